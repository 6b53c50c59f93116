// covers: JSON.parse and JSON.stringify (with replacer/indent arguments); a code-op result passed to an MCP call.
// expect: 4 nodes, sequence n1->n2->n3->n4. n1 task filesystem:read_text_file path=literal "config.json";
//   n2 code:JSON.parse `JSON.parse(file.content)`; n3 code:JSON.stringify `JSON.stringify(config, null, 2)`;
//   n4 task filesystem:write_file path=literal "config.pretty.json", content=reference `n3`.
//   variableBindings {file: n1, config: n2, pretty: n3}.
const file = await mcp.filesystem.read_text_file({ path: "config.json" });
const config = JSON.parse(file.content);
const pretty = JSON.stringify(config, null, 2);
await mcp.filesystem.write_file({ path: "config.pretty.json", content: pretty });
