// covers: GAP of the TS original: an inner `await mcp.a.b()` inside another call's arguments is a node ordered BEFORE the outer call.
// expect: 4 nodes in this order: n1 task kv:read (arguments {}); n2 task kv:write data=reference `n1`;
//   n3 task filesystem:read_text_file path=literal "src.txt"; n4 task filesystem:write_file path=literal "copy.txt", content=reference `n3.content`.
//   edges: n1->n2->n3->n4 sequence.
await mcp.kv.write({ data: await mcp.kv.read({}) });
await mcp.filesystem.write_file({
  path: "copy.txt",
  content: (await mcp.filesystem.read_text_file({ path: "src.txt" })).content,
});
