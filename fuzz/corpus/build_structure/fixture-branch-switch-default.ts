// covers: switch with string cases and a default -> one decision, outcomes "case:<value>" and "default"; the call after the switch re-joins all branches.
// expect: 6 nodes. n1 task filesystem:get_file_info path=parameter(path); d1 decision condition `n1.extension`;
//   n2 task filesystem:read_text_file path=parameter(path) (case "json"); n3 task filesystem:read_text_file path=parameter(path), head=literal 20 (case "md");
//   n4 task everything:echo message=literal "unsupported" (default); n5 task everything:echo message=literal "done".
//   edges: n1->d1 sequence; d1->n2 conditional "case:json"; d1->n3 conditional "case:md"; d1->n4 conditional "default";
//   n2->n5, n3->n5, n4->n5 sequence. No edge between n2, n3, n4 (each case ends with break / is last).
const file = await mcp.filesystem.get_file_info({ path: args.path });
switch (file.extension) {
  case "json":
    await mcp.filesystem.read_text_file({ path: args.path });
    break;
  case "md":
    await mcp.filesystem.read_text_file({ path: args.path, head: 20 });
    break;
  default:
    await mcp.everything.echo({ message: "unsupported" });
}
await mcp.everything.echo({ message: "done" });
