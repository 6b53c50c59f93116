// covers: HIL-required tools from permissions.json: a specific tool pattern beats the server glob; a whole server on hil; pure code op never needs approval.
// expect: 4 nodes: n1 task filesystem:read_text_file path=parameter(path); n2 code:toUpperCase `file.content.toUpperCase()`;
//   n3 task filesystem:write_file path=reference `args.path + ".upper"`, content=reference `n2`;
//   n4 task memory:create_entities entities=[object{ name: parameter(path), entityType: literal "file", observations: literal ["uppercased"] }].
//   edges: n1->n2->n3->n4 sequence. hilRequiredTools EXACTLY ["filesystem:write_file", "memory:create_entities"]
//   (read_text_file -> "filesystem:*" auto; write_file -> its own pattern, hil; memory:* hil; code:toUpperCase never).
const file = await mcp.filesystem.read_text_file({ path: args.path });
const upper = file.content.toUpperCase();
await mcp.filesystem.write_file({ path: args.path + ".upper", content: upper });
await mcp.memory.create_entities({ entities: [{ name: args.path, entityType: "file", observations: ["uppercased"] }] });
