// covers: ternary `c ? await mcp.a.x() : await mcp.b.y()` -> decision with both branches; the next statement re-joins both.
// expect: 4 nodes, in order: d1 decision condition `args.format === "json"` (NO code:strictEqual node);
//   n1 task filesystem:read_text_file path=literal "data.json" (true); n2 task api:fetch_csv url=literal "https://example.com/data.csv" (false);
//   n3 task everything:echo message=literal "loaded".
//   edges: d1->n1 conditional "true"; d1->n2 conditional "false"; n1->n3, n2->n3 sequence.
const data = args.format === "json"
  ? await mcp.filesystem.read_text_file({ path: "data.json" })
  : await mcp.api.fetch_csv({ url: "https://example.com/data.csv" });
await mcp.everything.echo({ message: "loaded" });
