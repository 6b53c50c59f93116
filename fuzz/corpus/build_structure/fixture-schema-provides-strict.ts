// covers: provides edge, coverage "strict": A's outputs cover every required input of B (tools.json).
// expect: 2 nodes. n1 task filesystem:get_file_info path=parameter(path); n2 task filesystem:read_text_file path=reference `n1.path`.
//   edges: n1->n2 sequence; n1->n2 provides coverage "strict" (outputs {path,size,modified,isDirectory} ∩ inputs = {path} = all of B's required [path]).
//   No provides n2->n1 (n2 outputs {content} do not meet n1's inputs).
const info = await mcp.filesystem.get_file_info({ path: args.path });
const file = await mcp.filesystem.read_text_file({ path: info.path });
