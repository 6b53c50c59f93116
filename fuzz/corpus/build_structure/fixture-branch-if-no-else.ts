// covers: if without else, nothing after it; a pure op inside the condition is not a node.
// expect: 3 nodes. n1 task filesystem:read_text_file path=literal "TODO.md";
//   d1 decision condition `n1.content.includes("urgent")` (NO code:includes node);
//   n2 task everything:echo message=literal "urgent items found".
//   edges: n1->d1 sequence; d1->n2 conditional "true". No "false" edge (nothing follows).
const file = await mcp.filesystem.read_text_file({ path: "TODO.md" });
if (file.content.includes("urgent")) {
  await mcp.everything.echo({ message: "urgent items found" });
}
