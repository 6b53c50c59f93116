// covers: references to previous results: `file.path` -> `n1.path`, deep paths, a whole result passed as value (-> "n1").
// expect: 3 nodes. n1 task filesystem:read_text_file path=literal "config.json";
//   n2 task filesystem:get_file_info path=reference `n1.path`;
//   n3 task api:post_config text=reference `n1.content`, size=reference `n2.size`, owner=reference `n1.meta.owner.name`, raw=reference `n1`.
//   edges: n1->n2, n2->n3 sequence. variableBindings {file: n1, info: n2}.
const file = await mcp.filesystem.read_text_file({ path: "config.json" });
const info = await mcp.filesystem.get_file_info({ path: file.path });
await mcp.api.post_config({ text: file.content, size: info.size, owner: file.meta.owner.name, raw: file });
