// covers: an if/else nested in the true branch of another if/else.
// expect: 6 nodes in order: n1 task filesystem:get_file_info path=parameter(path); d1 decision `n1.exists`;
//   d2 decision `n1.size > 1000000`; n2 task filesystem:move_file source=parameter(path), destination=reference `args.path + ".large"`;
//   n3 task filesystem:read_text_file path=parameter(path); n4 task filesystem:write_file path=parameter(path), content=literal "".
//   edges: n1->d1 sequence; d1->d2 conditional "true"; d2->n2 conditional "true"; d2->n3 conditional "false"; d1->n4 conditional "false".
const info = await mcp.filesystem.get_file_info({ path: args.path });
if (info.exists) {
  if (info.size > 1000000) {
    await mcp.filesystem.move_file({ source: args.path, destination: args.path + ".large" });
  } else {
    await mcp.filesystem.read_text_file({ path: args.path });
  }
} else {
  await mcp.filesystem.write_file({ path: args.path, content: "" });
}
