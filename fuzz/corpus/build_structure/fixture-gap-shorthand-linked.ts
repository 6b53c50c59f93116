// covers: GAP of the TS original: shorthand arguments `{ content }` linked to the node that produced the variable (MCP, capability, code op).
// expect: 4 nodes. n1 task filesystem:read_text_file path=literal "draft.md"; c1 capability "summarize_text" content=reference `n1`;
//   n2 code:split `content.text.split(" ")`; n3 task filesystem:write_file path=literal "summary.md", content=reference `n1`,
//   summary=reference `c1`, words=reference `n2` (NOT the bare names content/summary/words).
//   edges: n1->c1->n2->n3 sequence.
const content = await mcp.filesystem.read_text_file({ path: "draft.md" });
const summary = await capabilities.summarize_text({ content });
const words = content.text.split(" ");
await mcp.filesystem.write_file({ path: "summary.md", content, summary, words });
