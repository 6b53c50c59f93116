// covers: a pure operation written directly as an argument value (not in a callback, not in a condition).
// expect: 3 nodes. The argument-level op becomes its own node before the call (same rule as `names.map(...)` in example-mission):
//   n1 task filesystem:read_text_file path=parameter(path);
//   n2 code:toUpperCase `file.content.toUpperCase()` with file=reference `n1`, evaluated before the call that uses it;
//   n3 task filesystem:write_file path=parameter(out), content=reference `n2`. edges: n1->n2, n2->n3 sequence. variableBindings {file: n1}.
const file = await mcp.filesystem.read_text_file({ path: args.path });
await mcp.filesystem.write_file({ path: args.out, content: file.content.toUpperCase() });
