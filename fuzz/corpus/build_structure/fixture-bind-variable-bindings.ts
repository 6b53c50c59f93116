// covers: variableBindings for MCP, capability and code-op results; a plain property access (`const count = words.length`) is no node but a path binding.
// expect: 4 nodes. n1 task filesystem:read_text_file path=parameter(path); c1 capability capabilityId "summarize_text" text=reference `n1.content`;
//   n2 code:split `file.content.split(/\s+/)`; n3 task filesystem:write_file path=parameter(out), content=reference `c1.text`, words=reference `n2.length`.
//   edges: n1->c1, c1->n2, n2->n3 sequence. variableBindings EXACTLY {file: n1, summary: c1, words: n2, count: "n2.length"}. literalBindings {}.
const file = await mcp.filesystem.read_text_file({ path: args.path });
const summary = await capabilities.summarize_text({ text: file.content });
const words = file.content.split(/\s+/);
const count = words.length;
await mcp.filesystem.write_file({ path: args.out, content: summary.text, words: words.length });
