// covers: `const [a, b] = await Promise.all([...])` -> each destructured name bound to its task; `users.rows` used as an argument -> reference to the first task.
// expect: 5 nodes: f1 fork; n1 task db:query sql=literal "SELECT * FROM users"; n2 task db:query sql=literal "SELECT * FROM orders"; j1 join;
//   n3 task api:post_report users=reference `n1.rows`, orders=reference `n2.rows`, generatedBy=literal "pml".
//   edges: f1->n1, f1->n2, n1->j1, n2->j1, j1->n3. variableBindings {users: n1, orders: n2}.
const [users, orders] = await Promise.all([
  mcp.db.query({ sql: "SELECT * FROM users" }),
  mcp.db.query({ sql: "SELECT * FROM orders" }),
]);
await mcp.api.post_report({ users: users.rows, orders: orders.rows, generatedBy: "pml" });
