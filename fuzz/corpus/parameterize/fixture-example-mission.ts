// covers: the mission example: parameter path, JSON.parse chain, if without braces, a pure op inside an MCP argument.
// expect: 7 nodes. n1 task filesystem:read_text_file path=reference `args.root + "/users.json"` (an expression over a parameter, not a bare parameter);
//   n2 code:JSON.parse `JSON.parse(file.content)`; n3 code:filter `filter(u => u.active)`; n4 code:map `map(u => u.name)` (one chain);
//   d1 decision `n4.length > 0`; n5 code:map `names.map(n => ({ name: n }))` inside the if, its own node before the call (same rule as args-pure-op-in-argument);
//   n6 task memory:create_entities entities=reference `n5`.
//   edges: n1->n2->n3->n4 sequence; n4->d1 sequence; d1->n5 conditional "true"; n5->n6 sequence.
//   variableBindings {file: n1, names: n4}. literalBindings {}. `return names` adds nothing.
const file = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
const names = JSON.parse(file.content).filter(u => u.active).map(u => u.name);
if (names.length > 0) await mcp.memory.create_entities({ entities: names.map(n => ({ name: n })) });
return names;
