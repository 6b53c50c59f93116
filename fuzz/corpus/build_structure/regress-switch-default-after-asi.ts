// covers: switch with string cases and a default -> one decision, outcomes "case:1 task filesystem:get_file});
switch (file.extension) {
  case "json":
    await mcp.filesystem.read_text_file({ path: args.path });
    break;
  case "md":
    await mcp.fil}
await mcp.everything.echo({ message: "done" });
