// covers: `await capabilities.name({...})` -> capability node; capability result used as a reference.
// expect: 3 nodes. n1 task filesystem:read_text_file path=parameter(path);
//   c1 capability capabilityId "summarize_text", arguments text=reference `n1.content`, maxWords=literal 50;
//   n2 task everything:echo message=reference `c1.text`.
//   edges: n1->c1, c1->n2 sequence. variableBindings {file: n1, summary: c1}.
const file = await mcp.filesystem.read_text_file({ path: args.path });
const summary = await capabilities.summarize_text({ text: file.content, maxWords: 50 });
await mcp.everything.echo({ message: summary.text });
