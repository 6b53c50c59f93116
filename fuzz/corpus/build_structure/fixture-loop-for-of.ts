// covers: for..of containing an MCP call -> loop node l1; the body node carries l1 as its scope; the call after the loop follows the loop.
// expect: 4 nodes. n1 task filesystem:list_directory path=parameter(dir); l1 loop (for..of, iterating `n1.entries`, arguments listing=reference `n1`);
//   n2 task filesystem:get_file_info path=reference `n1.entries[*].path` (`entry` reads `n1.entries[*]`), scope l1 (one node, not one per iteration);
//   n3 task everything:echo message=literal "done", top-level scope.
//   edges: n1->l1 sequence; l1->n2 sequence (into the body); l1->n3 sequence (what follows hangs off the loop, not off n2).
const listing = await mcp.filesystem.list_directory({ path: args.dir });
for (const entry of listing.entries) {
  await mcp.filesystem.get_file_info({ path: entry.path });
}
await mcp.everything.echo({ message: "done" });
