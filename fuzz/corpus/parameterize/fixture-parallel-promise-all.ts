// covers: Promise.all([mcp..., mcp..., mcp...]) -> fork -> N tasks -> join; the next call follows the join.
// expect: 6 nodes in order: f1 fork; n1 task filesystem:read_text_file path=literal "a.md"; n2 task filesystem:read_text_file path=literal "b.md";
//   n3 task filesystem:get_file_info path=literal "c.md"; j1 join; n4 task everything:echo message=literal "read 3 files".
//   edges: f1->n1, f1->n2, f1->n3; n1->j1, n2->j1, n3->j1; j1->n4 (all sequence). NO edges between n1, n2, n3.
const results = await Promise.all([
  mcp.filesystem.read_text_file({ path: "a.md" }),
  mcp.filesystem.read_text_file({ path: "b.md" }),
  mcp.filesystem.get_file_info({ path: "c.md" }),
]);
await mcp.everything.echo({ message: "read 3 files" });
