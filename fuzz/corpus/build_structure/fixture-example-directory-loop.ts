// covers: realistic loop over directory entries: for..of with an if/else inside, template-literal paths, a const [] mutated by push, write after the loop.
// expect: 10 nodes in order: n1 filesystem:list_directory path=parameter(dir); n2 code:filter `listing.entries.filter((e) => e.type === "file")`;
//   l1 loop (for..of over `n2`; arguments files=reference `n2`, summaries=reference `summaries`); n3 filesystem:get_file_info path=reference "`${args.dir}/${n2[*].name}`", scope l1;
//   d1 decision `n3.size > args.maxBytes`, scope l1; n4 filesystem:move_file (scope d1 "true"); n5 filesystem:read_text_file path as n3 (scope d1 "false");
//   n6 memory:create_entities entities=[{name: reference `n2[*].name`, entityType: literal "file", observations: [reference `n5.content`]}], scope d1 "false";
//   n7 code:JSON.stringify `JSON.stringify(summaries)` summaries=reference `summaries` (after the loop); n8 filesystem:write_file path=reference "`${args.dir}/index.json`", content=reference `n7`.
//   edges: n1->n2->l1; l1->n3 (body); n3->d1; d1->n4 "true"; d1->n5 "false"; n5->n6; l1->n7 (after the loop); n7->n8.
//   `summaries` (const [] mutated by push()) is NOT a literal binding, only a reference by name: literalBindings {}. variableBindings {listing: n1, files: n2, info: n3, text: n5, index: n7}.
const listing = await mcp.filesystem.list_directory({ path: args.dir });
const files = listing.entries.filter((e) => e.type === "file");
const summaries = [];
for (const entry of files) {
  const info = await mcp.filesystem.get_file_info({ path: `${args.dir}/${entry.name}` });
  if (info.size > args.maxBytes) {
    await mcp.filesystem.move_file({
      source: `${args.dir}/${entry.name}`,
      destination: `${args.dir}/large/${entry.name}`,
    });
  } else {
    const text = await mcp.filesystem.read_text_file({ path: `${args.dir}/${entry.name}` });
    await mcp.memory.create_entities({
      entities: [{ name: entry.name, entityType: "file", observations: [text.content] }],
    });
    summaries.push(entry.name);
  }
}
const index = JSON.stringify(summaries);
await mcp.filesystem.write_file({ path: `${args.dir}/index.json`, content: index });
