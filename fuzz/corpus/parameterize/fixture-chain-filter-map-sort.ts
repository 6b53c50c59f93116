// covers: method chain `xs.filter(..).map(..).sort()` -> one node per call, sequence edges in chain order.
// expect: 4 nodes. n1 task db:query sql=literal "SELECT value FROM samples";
//   n2 code:filter `numbers.filter(n => n > 2)` (numbers=reference `n1`); n3 code:map `map(n => n * 2)` ($receiver=reference `n2`); n4 code:sort `sort()` ($receiver=reference `n3`) (never the whole chain thrice).
//   edges: n1->n2, n2->n3, n3->n4 sequence. variableBindings {numbers: n1, result: n4}.
const numbers = await mcp.db.query({ sql: "SELECT value FROM samples" });
const result = numbers.filter(n => n > 2).map(n => n * 2).sort();
