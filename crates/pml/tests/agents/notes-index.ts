// covers: helpers written as an arrow, a concise arrow and a declaration; a tool passed as a value to map; a call by a name chosen at run time; a try/catch around a read that fails; a write then a read of what was written; an early return inside a loop
const root: string = args.root;
const list = async (dir: string) => (await mcp.filesystem.list_directory({ path: dir })).content;
const read = async (path: string): Promise<string | null> => {
  try {
    return (await mcp.filesystem.read_text_file({ path })).content;
  } catch {
    return null;
  }
};
function todos(text: string): string[] {
  return text.split("\n").filter((l) => l.startsWith("TODO:")).map((l) => l.slice(5).trim());
}
const names = (await list(`${root}/notes`))
  .split("\n")
  .filter((l: string) => l.startsWith("[FILE]") && l.endsWith(".md"))
  .map((l: string) => l.slice(7))
  .sort();
const index: Record<string, string[]> = {};
for (const name of names) {
  const text = await read(`${root}/notes/${name}`);
  if (text === null) continue;
  index[name] = todos(text);
  if (index[name].length > 5) break;
}
const missing = await read(`${root}/notes/none.md`);
const kind = names.length > 1 ? "write_file" : "none";
await mcp.filesystem[kind]({ path: `${root}/index.json`, content: JSON.stringify(index) });
const back = JSON.parse((await mcp.filesystem.read_text_file({ path: `${root}/index.json` })).content);
const stats = await Promise.all(names.map((n: string) => ({ path: `${root}/notes/${n}` })).map(mcp.filesystem.get_file_info));
for (const n of Object.keys(back)) {
  if (back[n].length === 0) return { early: n };
}
return { index: back, missing, files: stats.length };
