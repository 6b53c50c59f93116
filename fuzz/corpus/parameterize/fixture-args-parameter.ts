// covers: `args.x` -> parameter; a nested parameter path `args.options.root`; parameters mixed with literals.
// expect: 2 nodes. n1 task filesystem:move_file source=parameter(from), destination=parameter(to);
//   n2 task filesystem:search_files path=parameter(options.root), pattern=parameter(pattern), excludePatterns=literal ["node_modules"].
//   edges: n1->n2 sequence.
await mcp.filesystem.move_file({ source: args.from, destination: args.to });
await mcp.filesystem.search_files({ path: args.options.root, pattern: args.pattern, excludePatterns: ["node_modules"] });
