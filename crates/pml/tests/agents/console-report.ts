// covers: console.log of tool results as Node prints them (util.inspect: nested objects, arrays grouped in columns, [Object] past depth 2, quotes), %s/%d/%i/%j/%o/%%, console.group indentation, console.count, console.dir with depth
const listing = await mcp.filesystem.list_directory({ path: args.root });
const files: string[] = listing.content
  .split("\n")
  .filter((l: string) => l.startsWith("[FILE]"))
  .map((l: string) => l.slice(7))
  .sort();
console.log("listing:", listing);
console.log("files", files);
const stats: Record<string, { lines: number; words: number; first: string }> = {};
console.group("reading %d files", files.length);
for (const f of files) {
  const text: string = (await mcp.filesystem.read_text_file({ path: `${args.root}/${f}` })).content;
  const lines = text.split("\n").filter((l) => l.length > 0);
  stats[f] = { lines: lines.length, words: text.split(/\s+/).filter(Boolean).length, first: lines[0] ?? "" };
  console.count("file");
  console.log("%s: %i lines (%f%% of the budget)", f, lines.length, (lines.length / 40) * 100);
}
console.groupEnd();
const squares = Array.from({ length: 24 }, (_, i) => i * i);
console.log({ stats, squares, when: new Date(Date.UTC(2024, 4, 6)), tags: new Set(["a", "b"]), sizes: new Map(Object.entries(stats).map(([k, v]) => [k, v.words])) });
console.log("deep: %o", { a: { b: { c: { d: { e: { f: 1 } } } } } });
console.log("json: %j", { files: files.length, ok: true });
console.dir({ level1: { level2: { level3: { level4: 1 } } } }, { depth: 1 });
console.info(["it's", 'say "hi"', `both 'and "`, "tab\there"]);
console.warn("100%% done", -0, [undefined, null, , 3]);
const summary = await mcp.everything.echo({ message: `${files.length} files` });
console.log(summary);
return { files: files.length, summary, totalWords: Object.values(stats).reduce((s, v) => s + v.words, 0) };
