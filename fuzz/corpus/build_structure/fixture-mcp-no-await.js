// covers: MCP calls without await (statement, const initialiser, return value); plain JavaScript (input.js), no semicolons (ASI).
// expect: 3 nodes, all tasks, in source order: n1 filesystem:create_directory path=literal "out";
//   n2 filesystem:write_file path=literal "out/a.txt", content=literal "a"; n3 filesystem:get_file_info path=literal "out/a.txt".
//   edges: n1->n2, n2->n3 sequence. variableBindings {pending: n2}. `await pending` creates no node.
mcp.filesystem.create_directory({ path: "out" })
const pending = mcp.filesystem.write_file({ path: "out/a.txt", content: "a" })
await pending
return mcp.filesystem.get_file_info({ path: "out/a.txt" })
