// covers: GAP of the TS original: `Promise.all(["a","b","c"].map(...))` -> N tasks, each with its element substituted (async arrow, shorthand argument).
// expect: 5 nodes: f1 fork; n1 task kv:get key=literal "alpha"; n2 task kv:get key=literal "beta"; n3 task kv:get key=literal "gamma"; j1 join.
//   edges: f1->n1, f1->n2, f1->n3, n1->j1, n2->j1, n3->j1. NO code:map node; no argument left as reference `key`.
const values = await Promise.all(["alpha", "beta", "gamma"].map(async (key) => await mcp.kv.get({ key })));
