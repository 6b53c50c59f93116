// covers: search_files, get_file_info per result in a loop, a write then a read of the written file, .then() chains, Promise.allSettled with a failing read, get-sum with computed arguments, an early return when nothing matches
const found = await mcp.filesystem.search_files({ path: args.root, pattern: args.pattern ?? "*.csv" });
const paths: string[] = (typeof found === "string" ? found : found.content ?? "").split("\n").filter((p: string) => p.trim().length > 0).sort();
if (paths.length === 0) return { none: true };
const sizes: Record<string, number> = {};
for (const p of paths) {
  const info = await mcp.filesystem.get_file_info({ path: p });
  const text = typeof info === "string" ? info : info.content;
  const m = /size: (\d+)/.exec(text);
  sizes[p.slice(args.root.length + 1)] = m ? Number(m[1]) : -1;
}
const total = await mcp.everything["get-sum"]({ a: Object.values(sizes).reduce((s, n) => s + n, 0), b: paths.length })
  .then((r: any) => (typeof r === "string" ? r : JSON.stringify(r)));
const lines = Object.entries(sizes).map(([name, size]) => `${name},${size}`);
await mcp.filesystem.write_file({ path: `${args.root}/report.txt`, content: ["name,size", ...lines].join("\n") });
const back = (await mcp.filesystem.read_text_file({ path: args.root + "/report.txt" })).content;
const settled = await Promise.allSettled([
  mcp.filesystem.read_text_file({ path: args.root + "/missing.csv" }),
  mcp.filesystem.read_text_file({ path: args.root + "/report.txt", head: 1 }),
]);
return { sizes, total, back, settled: settled.map((s) => s.status) };
