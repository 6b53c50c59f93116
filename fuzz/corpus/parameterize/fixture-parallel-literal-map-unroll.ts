// covers: `Promise.all(["a.txt","b.txt"].map(p => mcp.fs.read({ path: p })))` -> unrolled to 2 tasks, arrow parameter substituted by each element.
// expect: 4 nodes: f1 fork; n1 task filesystem:read_text_file path=literal "a.txt"; n2 task filesystem:read_text_file path=literal "b.txt"; j1 join.
//   edges: f1->n1, f1->n2, n1->j1, n2->j1. NO code:map node (the .map is the unrolling, not a pure op).
//   Neither argument is reference `p`.
const contents = await Promise.all(["a.txt", "b.txt"].map((p) => mcp.filesystem.read_text_file({ path: p })));
