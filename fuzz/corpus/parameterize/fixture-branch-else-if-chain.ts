// covers: else-if chain -> nested decisions (the else-if is a second decision on the false edge of the first).
// expect: 6 nodes in this order: n1 task db:query sql=literal "SELECT count(*) AS n FROM jobs";
//   d1 decision `n1.n > 1000`; n2 task api:page_oncall severity=literal "high";
//   d2 decision `n1.n > 100`; n3 task api:post_message channel=literal "#ops", text=literal "backlog growing";
//   n4 task everything:echo message=literal "ok".
//   edges: n1->d1 sequence; d1->n2 conditional "true"; d1->d2 conditional "false"; d2->n3 conditional "true"; d2->n4 conditional "false".
const stats = await mcp.db.query({ sql: "SELECT count(*) AS n FROM jobs" });
if (stats.n > 1000) {
  await mcp.api.page_oncall({ severity: "high" });
} else if (stats.n > 100) {
  await mcp.api.post_message({ channel: "#ops", text: "backlog growing" });
} else {
  await mcp.everything.echo({ message: "ok" });
}
