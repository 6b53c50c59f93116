// covers: GAP of the TS original: the decision condition is rewritten like arguments (`file.exists` -> `n1.exists`). Input = the seed's "Example Output".
// expect: 3 nodes. n1 task filesystem:read_file path=literal "config.json"; d1 decision condition `n1.exists` (NOT `file.exists`);
//   n2 task memory:create_entities entities=literal [].
//   edges: n1->d1 sequence; d1->n2 conditional "true". variableBindings {file: n1}.
const file = await mcp.filesystem.read_file({ path: "config.json" });
if (file.exists) {
  await mcp.memory.create_entities({ entities: [] });
}
