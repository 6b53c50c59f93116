// covers: if without else followed by a call: the following call comes after the true branch AND after the skipped (false) path.
// expect: 4 nodes. n1 task filesystem:get_file_info path=parameter(path); d1 decision condition `args.notify` (parameter, not rewritten);
//   n2 task everything:echo message=literal "notifying" (true branch); n3 task filesystem:read_text_file path=parameter(path).
//   edges: n1->d1 sequence; d1->n2 conditional "true"; n2->n3 sequence; d1->n3 conditional "false" (the false path skips to what follows).
const info = await mcp.filesystem.get_file_info({ path: args.path });
if (args.notify) {
  await mcp.everything.echo({ message: "notifying" });
}
await mcp.filesystem.read_text_file({ path: args.path });
