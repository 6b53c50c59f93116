// covers: tools the server lacks, called inside try/catch and with .catch (the program runs on: Node takes the fallback), a read of a missing file caught before the next read in its try, reads through a helper in a loop that breaks, a function in the result (dropped, as JSON.stringify drops it)
const dir = args.root;
let config: any;
try {
  config = await mcp.filesystem.read_config({ path: `${dir}/config.json` });
} catch (e) {
  config = JSON.parse((await mcp.filesystem.read_text_file({ path: `${dir}/config.json` })).content);
}
const tree = await mcp.filesystem.directory_tree_v2({ path: dir }).catch(() => null);
let notes = "none";
try {
  notes = (await mcp.filesystem.read_text_file({ path: `${dir}/missing.md` })).content;
  notes += (await mcp.filesystem.read_text_file({ path: `${dir}/a.md` })).content;
} catch (e) {
  notes = "no notes";
}
const load = async (name: string) => (await mcp.filesystem.read_text_file({ path: `${dir}/${name}` })).content.trim();
const seen: string[] = [];
for (const name of config.files) {
  const text = await load(name);
  if (text === config.stop) break;
  seen.push(text);
}
return { tree, notes, seen, limit: config.limit, format: (x: number) => x };
