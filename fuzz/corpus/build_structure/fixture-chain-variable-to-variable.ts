// covers: variable-to-variable chains (`const a = xs.filter(..); const b = a.map(..);`) -> sequence edges and bindings through the variables.
// expect: 5 nodes, sequence n1->n2->n3->n4->n5. n1 task db:query sql=literal "SELECT * FROM orders";
//   n2 code:filter `rows.filter((r) => r.paid)`; n3 code:map `paid.map((r) => r.amount)`; n4 code:reduce `amounts.reduce((s, x) => s + x, 0)`;
//   n5 task api:post_metric name=literal "revenue", value=reference `n4`.
//   variableBindings {rows: n1, paid: n2, amounts: n3, total: n4}.
const rows = await mcp.db.query({ sql: "SELECT * FROM orders" });
const paid = rows.filter((r) => r.paid);
const amounts = paid.map((r) => r.amount);
const total = amounts.reduce((s, x) => s + x, 0);
await mcp.api.post_metric({ name: "revenue", value: total });
