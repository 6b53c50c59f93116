// covers: provides edges over several tasks at once (every earlier/later pair, not only neighbours); code: tasks and a tool missing from the catalog get no provides edges.
// expect: 6 nodes. n1 filesystem:get_file_info; n2 filesystem:read_text_file; n3 code:trim `file.content.trim()`;
//   n4 filesystem:write_file path=parameter(out), content=reference `n3`; n5 everything:echo message=literal "written"; n6 custom:untracked x=literal 1.
//   sequence n1->n2->n3->n4->n5->n6. provides EXACTLY: n1->n2 "strict" ({path} covers [path]); n1->n4 "partial" ({path} of [path, content]);
//   n2->n4 "partial" ({content} of [path, content]). No provides to/from n3 (code op), n5 (no intersection), n6 (not in tools.json).
const info = await mcp.filesystem.get_file_info({ path: args.path });
const file = await mcp.filesystem.read_text_file({ path: args.path });
const text = file.content.trim();
await mcp.filesystem.write_file({ path: args.out, content: text });
await mcp.everything.echo({ message: "written" });
await mcp.custom.untracked({ x: 1 });
