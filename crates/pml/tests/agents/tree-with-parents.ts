// covers: a directory tree built with parent links is circular: returning it fails with V8's message naming the path of the cycle
const listing = await mcp.filesystem.list_directory({ path: args.root });
type Node = { name: string; parent?: Node; children: Node[] };
const root: Node = { name: "root", children: [] };
for (const line of listing.content.split("\n")) {
  const name = line.replace(/^\[(FILE|DIR)\] /, "");
  root.children.push({ name, parent: root, children: [] });
}
console.log("built %d children", root.children.length);
return { root, count: root.children.length };
