// covers: a directory listing in a loop, a helper that calls a tool, regexp match index, try/catch of a missing file, JSON.parse of a read, destructuring defaults, console.log
// for-of over a directory listing, try/catch, helper, console, regexp index, template const
const dir = `${args.root}`;
const listing = await mcp.filesystem.list_directory({ path: dir });
const files = listing.content.split("\n").filter((l: string) => l.startsWith("[FILE]")).map((l: string) => l.slice(7));
const read = async (name: string) => (await mcp.filesystem.read_text_file({ path: `${dir}/${name}` })).content;
const todos: string[] = [];
for (const f of files) {
  if (!f.endsWith(".md")) continue;
  const text = await read(f);
  for (const line of text.split("\n")) {
    const m = line.match(/TODO: (.*)/);
    if (m) todos.push(`${f}@${m.index}: ${m[1]}`);
  }
}
console.log("found", todos.length);
let missing = "none";
try { await mcp.filesystem.read_text_file({ path: dir + "/nope.txt" }); } catch (e) { missing = "missing"; }
const users = JSON.parse((await mcp.filesystem.read_text_file({ path: dir + "/users.json" })).content).users;
const { name = "?", age: years = 0 } = users.find((u: any) => u.active && u.age < 30) ?? {};
const avg = users.reduce((s: number, u: any) => s + u.age, 0) / users.length;
return { todos, missing, name, years, avg: Math.round(avg * 10) / 10, sorted: users.map((u: any) => u.name).sort().reverse() };
