// covers: MCP calls with no argument at all and with an empty object.
// expect: 3 nodes, each with arguments {} (no crash): n1 task memory:read_graph (called with no argument);
//   n2 task everything:getTinyImage (empty object); n3 task filesystem:list_allowed_directories (no argument).
//   edges: n1->n2, n2->n3 sequence. variableBindings {graph: n1, image: n2}.
const graph = await mcp.memory.read_graph();
const image = await mcp.everything.getTinyImage({});
await mcp.filesystem.list_allowed_directories();
