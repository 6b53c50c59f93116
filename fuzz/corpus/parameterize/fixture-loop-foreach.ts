// covers: `arr.forEach(cb)` with an MCP call in the callback -> loop node, NOT a code op.
// expect: 3 nodes. n1 task filesystem:search_files path=parameter(root), pattern=literal "*.log";
//   l1 loop (forEach over `n1`, arguments found=reference `n1`); n2 task filesystem:get_file_info path=reference `n1[*]` (callback parameter `p`), scope l1.
//   edges: n1->l1 sequence; l1->n2 sequence (into the body). variableBindings {found: n1}. No code:forEach node.
const found = await mcp.filesystem.search_files({ path: args.root, pattern: "*.log" });
found.forEach(async (p) => {
  await mcp.filesystem.get_file_info({ path: p });
});
