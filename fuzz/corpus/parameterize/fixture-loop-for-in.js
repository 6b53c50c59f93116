// covers: for..in over an object containing an MCP call; plain JavaScript (input.js); a computed member `settings[key]` as argument.
// expect: 4 nodes. n1 task filesystem:read_text_file path=literal "settings.json"; n2 code:JSON.parse `JSON.parse(file.content)`;
//   l1 loop (for..in over `n2`, arguments settings=reference `n2`); n3 task kv:set key=reference `key`, value=reference `n2[key]`, scope l1.
//   edges: n1->n2 sequence; n2->l1 sequence; l1->n3 sequence (into the body). variableBindings {file: n1, settings: n2}.
const file = await mcp.filesystem.read_text_file({ path: "settings.json" });
const settings = JSON.parse(file.content);
for (const key in settings) {
  await mcp.kv.set({ key: key, value: settings[key] });
}
