// covers: a program that assumes the wrong shape of a tool result and fails uncaught: the run's error is Node's message, naming the value as the program's text does
await mcp.memory.create_entities({ entities: [{ name: "inbox", entityType: "folder", observations: ["3 unread"] }] });
const graph = await mcp.memory.read_graph({});
const notes: string[] = [];
for (const entity of graph.entities) {
  for (const note of entity.observations.items) notes.push(note);
}
return notes;
