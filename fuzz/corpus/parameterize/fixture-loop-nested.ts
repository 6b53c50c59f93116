// covers: a loop nested in a loop: the inner loop node is scoped to the outer one; each body node scoped to its own loop.
// expect: 4 nodes in order: l1 loop (for..of over `args.dirs`, no arguments); n1 task filesystem:list_directory path=reference `args.dirs[*]`, scope l1;
//   l2 loop (for..of over `n1.entries`, arguments listing=reference `n1`), scope l1; n2 task filesystem:get_file_info path=reference `n1.entries[*].path`, scope l2.
//   edges: l1->n1 sequence (into the body); n1->l2 sequence; l2->n2 sequence (into the body). variableBindings {listing: n1}.
for (const dir of args.dirs) {
  const listing = await mcp.filesystem.list_directory({ path: dir });
  for (const entry of listing.entries) {
    await mcp.filesystem.get_file_info({ path: entry.path });
  }
}
