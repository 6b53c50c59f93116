// covers: spread elements in object arguments: spread of a literal const, of a previous result, of a parameter object, mixed with named properties.
// expect: 3 nodes. n1 task filesystem:get_file_info path=parameter(path);
//   n2 task filesystem:write_file: the literal spread `...defaults` is inlined first: encoding=literal "utf-8", overwrite=literal false,
//   then path=parameter(path), content=literal "x";
//   n3 task api:post: `...meta`=reference `n1`, `...args.extra`=parameter(extra) (spread keys are `...<source text>`), then source=literal "pml".
//   literalBindings {defaults: {"encoding": "utf-8", "overwrite": false}}. variableBindings {meta: n1}. edges: n1->n2, n2->n3 sequence. No diagnostics.
const defaults = { encoding: "utf-8", overwrite: false };
const meta = await mcp.filesystem.get_file_info({ path: args.path });
await mcp.filesystem.write_file({ ...defaults, path: args.path, content: "x" });
await mcp.api.post({ ...meta, ...args.extra, source: "pml" });
