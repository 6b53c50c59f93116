// covers: code:* pure ops never need approval, even when a `code:*` pattern says "hil"; a specific "auto" pattern beats a "hil" server glob; tools inside a fork are checked too.
// expect: 9 nodes: f1 fork; n1, n2 tasks filesystem:read_text_file path=literal "a.json" / "b.json"; j1 join;
//   n3 code:JSON.parse; n4 code:JSON.parse; n5 code:Object.keys `Object.keys(left)`; n6 code:filter (chained: n5->n6);
//   n7 task filesystem:search_files path=literal ".", pattern=literal "*.json".
//   hilRequiredTools EXACTLY ["filesystem:search_files"] (read_text_file -> its own "auto" pattern; search_files -> "filesystem:*" hil;
//   code:JSON.parse / code:Object.keys / code:filter never listed despite "code:*": "hil").
const [a, b] = await Promise.all([
  mcp.filesystem.read_text_file({ path: "a.json" }),
  mcp.filesystem.read_text_file({ path: "b.json" }),
]);
const left = JSON.parse(a.content);
const right = JSON.parse(b.content);
const common = Object.keys(left).filter((k) => k in right);
await mcp.filesystem.search_files({ path: ".", pattern: "*.json" });
return common;
