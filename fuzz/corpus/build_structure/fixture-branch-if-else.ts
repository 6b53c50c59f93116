// covers: if/else -> decision node with conditional edges "true"/"false"; condition rewritten to the node id.
// expect: 4 nodes. n1 task filesystem:get_file_info path=parameter(path); d1 decision condition `n1.isDirectory`;
//   n2 task filesystem:list_directory path=parameter(path) (true branch); n3 task filesystem:read_text_file path=parameter(path) (false branch).
//   edges: n1->d1 sequence; d1->n2 conditional outcome "true"; d1->n3 conditional outcome "false". No edge n2->n3.
const info = await mcp.filesystem.get_file_info({ path: args.path });
if (info.isDirectory) {
  await mcp.filesystem.list_directory({ path: args.path });
} else {
  await mcp.filesystem.read_text_file({ path: args.path });
}
