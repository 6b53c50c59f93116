// covers: an async arrow helper called several times, a hoisted function declaration that writes, a recursive walk, .then/.catch callbacks, an IIFE, aliases of mcp and of a server and a tool, a pure helper with an operand reduce
const fs = mcp.filesystem;
const { memory } = mcp;
const { read_text_file: readText } = mcp.filesystem;
const lines = async (path: string) => (await readText({ path })).content.split("\n").filter((l: string) => l.length > 0);

async function walk(dir: string, depth: number): Promise<string[]> {
  const listing = await fs.list_directory({ path: dir });
  const out: string[] = [];
  for (const entry of listing.content.split("\n").sort()) {
    if (entry.startsWith("[FILE]")) out.push(dir + "/" + entry.slice(7));
    else if (entry.startsWith("[DIR]") && depth > 0) out.push(...(await walk(dir + "/" + entry.slice(6), depth - 1)));
  }
  return out;
}

const files = await walk(args.root, 2);
const counts: Record<string, number> = {};
for (const f of files) counts[f.slice(args.root.length + 1)] = (await lines(f)).length;
const mean = (xs: number[]) => xs.reduce((s, n) => s + n, 0) / xs.length;
await remember("files", Object.keys(counts));
const missing = await readText({ path: args.root + "/nope.txt" }).then(() => "found").catch((e: Error) => "missing: " + e.message.includes("nope"));
const graph = await (async () => {
  const g = await mcp.memory.read_graph({});
  return g.entities.map((e: any) => e.name + ":" + e.observations.length);
})();
return { counts, mean: mean(Object.values(counts)), missing, graph };

async function remember(name: string, observations: string[]) {
  await memory.create_entities({ entities: [{ name, entityType: "list", observations }] });
}
