// covers: realistic branching on a file's content: split()[0].trim() chain through an index, else-if on string tests, pure ops inside branches, re-join.
// expect: 11 nodes in order: n1 filesystem:read_text_file path=parameter(path); n2 code:split; n3 code:trim (chain through `[0]`: n2->n3);
//   d1 decision `n3.startsWith("{")`; n4 code:JSON.parse (true branch); n5 memory:create_entities entities=[{name: reference `n4.name`, entityType: literal "config", observations: literal []}];
//   d2 decision `n3.startsWith("#")` (false branch of d1); n6 code:replace `firstLine.replace(/^#+\s*/, "")`; n7 memory:create_entities entities=[{name: reference `n6`, ...}];
//   n8 filesystem:move_file source=parameter(path), destination=reference `args.path + ".unknown"`;
//   n9 everything:echo message=reference "`processed ${args.path}`".
//   edges: n1->n2->n3->d1; d1->n4 "true"; n4->n5; d1->d2 "false"; d2->n6 "true"; n6->n7; d2->n8 "false"; n5->n9, n7->n9, n8->n9 (re-join).
//   variableBindings include file n1, firstLine n3, data n4, title n6.
const file = await mcp.filesystem.read_text_file({ path: args.path });
const firstLine = file.content.split("\n")[0].trim();
if (firstLine.startsWith("{")) {
  const data = JSON.parse(file.content);
  await mcp.memory.create_entities({ entities: [{ name: data.name, entityType: "config", observations: [] }] });
} else if (firstLine.startsWith("#")) {
  const title = firstLine.replace(/^#+\s*/, "");
  await mcp.memory.create_entities({ entities: [{ name: title, entityType: "document", observations: [] }] });
} else {
  await mcp.filesystem.move_file({ source: args.path, destination: args.path + ".unknown" });
}
await mcp.everything.echo({ message: `processed ${args.path}` });
