// A loop over a directory: every call the loop makes is traced under its node with its
// iteration, and the loop's reads start together as soon as the listing is known.
const listing = await mcp.filesystem.list_directory({ path: args.root + "/notes" });
const files = listing.content.split("\n").filter(l => l.startsWith("[FILE]")).map(l => l.slice(7)).sort();
const todos = [];
for (const name of files) {
  const file = await mcp.filesystem.read_text_file({ path: args.root + "/notes/" + name });
  for (const line of file.content.split("\n")) {
    if (line.startsWith("TODO:")) todos.push({ file: name, text: line.slice(5).trim() });
  }
}
await mcp.memory.create_entities({
  entities: todos.map((t, i) => ({ name: "todo-" + i, entityType: "todo", observations: [t.file + ": " + t.text] })),
});
return { files: files.length, todos: todos.length, first: todos[0] };
