// covers: GAP of the TS original: MCP calls inside object and array literals, and inside a non-MCP call's arguments, are not lost.
// expect: 4 nodes in source order: n1 task filesystem:read_text_file path=literal "a.txt"; n2 task filesystem:read_text_file path=literal "b.txt";
//   n3 task filesystem:get_file_info path=literal "b.txt"; n4 task everything:echo message=literal "logged" (inside console.log(...)).
//   edges: n1->n2->n3->n4 sequence. `r` is not bound to a single node: no variableBindings entry for r (variableBindings {}).
const r = {
  a: await mcp.filesystem.read_text_file({ path: "a.txt" }),
  b: [await mcp.filesystem.read_text_file({ path: "b.txt" }), await mcp.filesystem.get_file_info({ path: "b.txt" })],
};
console.log(await mcp.everything.echo({ message: "logged" }));
return r;
