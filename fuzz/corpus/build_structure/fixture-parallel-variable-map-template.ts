// covers: `Promise.all(files.map(f => mcp.fs.read({ path: f })))` over a runtime variable -> ONE template task between fork and join.
// expect: 4 nodes: n1 task filesystem:search_files path=parameter(dir), pattern=literal "*.md";
//   f1 fork; n2 task filesystem:read_text_file path=reference `n1[*]` (`f` reads `n1[*]`; template task: one node, not unrolled), scope f1; j1 join.
//   edges: n1->f1, f1->n2, n2->j1 sequence. NO code:map node. variableBindings {files: n1, contents: j1}.
const files = await mcp.filesystem.search_files({ path: args.dir, pattern: "*.md" });
const contents = await Promise.all(files.map((f) => mcp.filesystem.read_text_file({ path: f })));
