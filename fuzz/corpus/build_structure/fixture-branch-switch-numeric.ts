// covers: switch over numeric case values -> outcomes "case:200", "case:404"; a `return` inside a case.
// expect: 5 nodes. n1 task api:fetch url=parameter(url); d1 decision condition `n1.status`;
//   n2 task filesystem:write_file path=literal "page.html", content=reference `n1.body` (case 200);
//   n3 task everything:echo message=literal "not found" (case 404); n4 task api:report_failure code=reference `n1.status` (default).
//   edges: n1->d1 sequence; d1->n2 conditional "case:200"; d1->n3 conditional "case:404"; d1->n4 conditional "default".
const res = await mcp.api.fetch({ url: args.url });
switch (res.status) {
  case 200:
    await mcp.filesystem.write_file({ path: "page.html", content: res.body });
    break;
  case 404:
    await mcp.everything.echo({ message: "not found" });
    return null;
  default:
    await mcp.api.report_failure({ code: res.status });
}
