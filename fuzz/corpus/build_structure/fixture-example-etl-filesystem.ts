// covers: realistic ETL over files with the filesystem server: list_directory -> filter/map -> parallel template reads -> transform -> create_directory/write_file.
// expect: 14 nodes in order: n1 filesystem:list_directory path=parameter(inputDir); n2 code:filter; n3 code:map (chain n2->n3);
//   f1 fork; n4 filesystem:read_text_file path=reference "`${args.inputDir}/${n3[*]}`" (ONE template task over `csvNames`); j1 join;
//   n5 code:flatMap (raw=reference `j1`); n6 code:filter (chain n5->n6); n7 code:map (block-bodied callback: split/toLowerCase inside are NOT nodes); n8 code:reduce;
//   n9 code:JSON.stringify `JSON.stringify(records, null, 2)`; n10 filesystem:create_directory path=parameter(outputDir);
//   n11 filesystem:write_file path=reference "`${args.outputDir}/records.json`", content=reference `n9`;
//   n12 filesystem:write_file path=reference "`${args.outputDir}/summary.txt`", content=reference "`records=${n7.length} total=${n8}`".
//   edges: n1->n2->n3->f1; f1->n4->j1; j1->n5->n6->n7->n8->n9->n10->n11->n12 (sequence). Total = 12 tasks + f1 + j1.
//   variableBindings {listing: n1, csvNames: n3, raw: j1, rows: n6, records: n7, total: n8, json: n9}.
const listing = await mcp.filesystem.list_directory({ path: args.inputDir });
const csvNames = listing.entries
  .filter((e) => e.type === "file" && e.name.endsWith(".csv"))
  .map((e) => e.name);
const raw = await Promise.all(
  csvNames.map((name) => mcp.filesystem.read_text_file({ path: `${args.inputDir}/${name}` })),
);
const rows = raw.flatMap((f) => f.content.split("\n").slice(1)).filter((line) => line.trim() !== "");
const records = rows.map((line) => {
  const [id, email, amount] = line.split(",");
  return { id, email: email.toLowerCase(), amount: Number(amount) };
});
const total = records.reduce((sum, r) => sum + r.amount, 0);
const json = JSON.stringify(records, null, 2);
await mcp.filesystem.create_directory({ path: args.outputDir });
await mcp.filesystem.write_file({ path: `${args.outputDir}/records.json`, content: json });
await mcp.filesystem.write_file({
  path: `${args.outputDir}/summary.txt`,
  content: `records=${records.length} total=${total}`,
});
return { count: records.length, total };
