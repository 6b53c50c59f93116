// covers: MCP call with await -> task `server:tool`; two sequential awaits -> one sequence edge; variableBindings of an MCP result.
// expect: 2 nodes. n1 task filesystem:read_text_file path=literal "README.md";
//   n2 task filesystem:write_file path=literal "README.copy.md", content=reference `n1.content`.
//   edges: n1->n2 sequence. variableBindings {file: n1}. literalBindings {}.
const file = await mcp.filesystem.read_text_file({ path: "README.md" });
await mcp.filesystem.write_file({ path: "README.copy.md", content: file.content });
return file.content;
