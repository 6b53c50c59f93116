// covers: calls after an if/else come after BOTH branches (re-join), then continue in sequence.
// expect: 6 nodes. n1 task filesystem:read_text_file path=parameter(path); d1 decision `n1.content.length === 0`;
//   n2 task filesystem:write_file path=parameter(path), content=literal "# empty" (true);
//   n3 task filesystem:edit_file path=parameter(path), edits=literal [{"oldText":"TODO","newText":"DONE"}] (false);
//   n4 task filesystem:get_file_info path=parameter(path); n5 task everything:echo message=literal "checked".
//   edges: n1->d1 sequence; d1->n2 "true"; d1->n3 "false"; n2->n4 sequence; n3->n4 sequence; n4->n5 sequence.
const file = await mcp.filesystem.read_text_file({ path: args.path });
if (file.content.length === 0) {
  await mcp.filesystem.write_file({ path: args.path, content: "# empty" });
} else {
  await mcp.filesystem.edit_file({ path: args.path, edits: [{ oldText: "TODO", newText: "DONE" }] });
}
await mcp.filesystem.get_file_info({ path: args.path });
await mcp.everything.echo({ message: "checked" });
