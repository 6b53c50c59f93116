// covers: `let` bindings mutated later (++ and +=) are not literal bindings; a const beside them is.
// expect: literalBindings ONLY {limit: 3}. nodes: n1 task everything:echo message=reference `label`;
//   n2 task everything:add a=reference `count`, b=literal 3 (const `limit` inlined). edges: n1->n2 sequence.
//   No node for `count++` or `label += "-final"` (update/compound assignment, not a binary expression).
let count = 0;
const limit = 3;
count++;
let label = "draft";
label += "-final";
await mcp.everything.echo({ message: label });
await mcp.everything.add({ a: count, b: limit });
