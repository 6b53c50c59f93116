// covers: a condition that references two previous results combined with && and comparisons -> every bound name rewritten; no code nodes for the operators.
// expect: 4 nodes. n1 task filesystem:get_file_info path=parameter(path); n2 task filesystem:list_directory path=parameter(dir);
//   d1 decision condition `n1.size > 1024 && n2.entries.length < 100` (NO code:and / code:greaterThan / code:lessThan nodes);
//   n3 task filesystem:move_file source=parameter(path), destination=reference `args.dir + "/archive/" + args.name`.
//   edges: n1->n2 sequence; n2->d1 sequence; d1->n3 conditional "true".
const info = await mcp.filesystem.get_file_info({ path: args.path });
const listing = await mcp.filesystem.list_directory({ path: args.dir });
if (info.size > 1024 && listing.entries.length < 100) {
  await mcp.filesystem.move_file({ source: args.path, destination: args.dir + "/archive/" + args.name });
}
