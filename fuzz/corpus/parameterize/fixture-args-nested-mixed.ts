// covers: nested objects/arrays whose leaves mix literals, parameters and references -> recursive extraction, each leaf keeps its own kind.
// expect: 3 nodes. n1 task filesystem:read_text_file path=parameter(path);
//   n2 task memory:add_observations observations = array[ object{ entityName: parameter(entity), contents: array[ reference `n1.content`, literal "imported", literal 42 ] } ];
//   n3 task api:create_job config = object{ source: reference `n1.path`, target: parameter(target), options: literal {"dryRun": true} }.
//   No leaf may be lost or turned into a single opaque reference of the whole object. edges: n1->n2, n2->n3 sequence.
const file = await mcp.filesystem.read_text_file({ path: args.path });
await mcp.memory.add_observations({
  observations: [{ entityName: args.entity, contents: [file.content, "imported", 42] }],
});
await mcp.api.create_job({ config: { source: file.path, target: args.target, options: { dryRun: true } } });
