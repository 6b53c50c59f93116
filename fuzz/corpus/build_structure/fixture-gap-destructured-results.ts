// covers: GAP of the TS original: destructured results are bound: object destructuring (with rename) and array destructuring of one MCP result.
// expect: 4 nodes. n1 task filesystem:read_text_file path=literal "a.txt"; n2 task filesystem:get_file_info path=literal "a.txt";
//   n3 task filesystem:search_files path=literal ".", pattern=literal "*.md";
//   n4 task api:post_meta content=reference `n1.content`, size=reference `n2.size`, mtime=reference `n2.modified`,
//   first=reference `n3[0]`, second=reference `n3[1]`. edges: n1->n2->n3->n4 sequence.
//   variableBindings name each destructured variable (content, size, mtime -> n1/n2 paths; first, second -> n3 indices).
const { content } = await mcp.filesystem.read_text_file({ path: "a.txt" });
const { size, modified: mtime } = await mcp.filesystem.get_file_info({ path: "a.txt" });
const [first, second] = await mcp.filesystem.search_files({ path: ".", pattern: "*.md" });
await mcp.api.post_meta({ content, size, mtime, first, second });
