// covers: a chain starting from `JSON.parse(file.content)`, with a property access (`.tasks`) inside the chain; a second chain join().trim().
// expect: 7 nodes, sequence n1->...->n7. n1 task filesystem:read_text_file path=literal "tasks.json";
//   n2 code:JSON.parse; n3 code:filter; n4 code:map; n5 code:join; n6 code:trim;
//   n7 task filesystem:write_file path=literal "open.txt", content=reference `n6`.
//   variableBindings {file: n1, open: n4, text: n6}.
const file = await mcp.filesystem.read_text_file({ path: "tasks.json" });
const open = JSON.parse(file.content).tasks.filter((t) => !t.done).map((t) => t.title);
const text = open.join("\n").trim();
await mcp.filesystem.write_file({ path: "open.txt", content: text });
