// covers: Promise.allSettled([...]) handled like Promise.all; a task before the fork.
// expect: 5 nodes in order: n1 task api:health (arguments {}); f1 fork; n2 task api:fetch url=literal "https://a.example.com/status";
//   n3 task api:fetch url=literal "https://b.example.com/status"; j1 join.
//   edges: n1->f1; f1->n2, f1->n3; n2->j1, n3->j1 (all sequence).
const before = await mcp.api.health({});
const settled = await Promise.allSettled([
  mcp.api.fetch({ url: "https://a.example.com/status" }),
  mcp.api.fetch({ url: "https://b.example.com/status" }),
]);
