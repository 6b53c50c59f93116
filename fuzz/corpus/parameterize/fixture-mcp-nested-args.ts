// covers: MCP call whose arguments are nested objects and arrays of literals.
// expect: 2 nodes. n1 task filesystem:edit_file path=literal "src/app.ts",
//   edits=literal [{"oldText":"foo","newText":"bar"},{"oldText":"baz","newText":"qux"}], dryRun=literal true;
//   n2 task memory:create_relations relations=literal [{"from":"alice","to":"pml","relationType":"maintains"},{"from":"bob","to":"pml","relationType":"uses"}].
//   edges: n1->n2 sequence.
await mcp.filesystem.edit_file({
  path: "src/app.ts",
  edits: [
    { oldText: "foo", newText: "bar" },
    { oldText: "baz", newText: "qux" },
  ],
  dryRun: true,
});
await mcp.memory.create_relations({
  relations: [
    { from: "alice", to: "pml", relationType: "maintains" },
    { from: "bob", to: "pml", relationType: "uses" },
  ],
});
