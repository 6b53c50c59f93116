// covers: no provides edge when A's outputs and B's inputs do not intersect (tools.json).
// expect: 2 nodes. n1 task everything:getTinyImage (arguments {}); n2 task everything:echo message=literal "got image".
//   edges: ONLY n1->n2 sequence; NO provides edge in either direction.
const img = await mcp.everything.getTinyImage({});
await mcp.everything.echo({ message: "got image" });
