// covers: shorthand properties: `{ data }` where data is a previous result (-> reference "n1"), and `{ path }` / `{ numbers }` where they are const literals (inlined).
// expect: 4 nodes. n1 task filesystem:read_text_file path=literal "input.txt";
//   n2 task filesystem:write_file path=literal "output.txt" (const `path` inlined), content=reference `n1.content`;
//   n3 task everything:echo data=reference `n1`; n4 task math:sum numbers=literal [10, 20, 30] (const `numbers` inlined).
//   literalBindings {numbers: [10, 20, 30], path: "output.txt"}. variableBindings {data: n1}. edges: n1->n2->n3->n4 sequence.
const data = await mcp.filesystem.read_text_file({ path: "input.txt" });
const numbers = [10, 20, 30];
const path = "output.txt";
await mcp.filesystem.write_file({ path, content: data.content });
await mcp.everything.echo({ data });
await mcp.math.sum({ numbers });
