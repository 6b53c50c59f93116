// covers: a const whose initialiser has an unknown operand is NOT folded (parameter, MCP result, unknown function call); the known const still is.
// expect: literalBindings ONLY {prefix: "report-"}; name, label, stamp are absent.
//   nodes: n1 task filesystem:read_text_file path=parameter(path); n2 code:add `prefix + args.suffix`; n3 code:add `prefix + file.content`;
//   n4 code:add `prefix + Date.now()` (runtime values at statement level -> code:add, per the spec row);
//   n2, n3, n4 carry prefix=literal "report-" (n3 also file=reference `n1`); n5 task filesystem:write_file path=reference `n2`, content=reference `n3`.
//   edges: n1->n2->n3->n4->n5 sequence. variableBindings {file: n1, name: n2, label: n3, stamp: n4}.
const prefix = "report-";
const file = await mcp.filesystem.read_text_file({ path: args.path });
const name = prefix + args.suffix;
const label = prefix + file.content;
const stamp = prefix + Date.now();
await mcp.filesystem.write_file({ path: name, content: label });
