// covers: operations inside a callback or inside a condition are NOT separate nodes.
// expect: 4 nodes. n1 task db:query sql=literal "SELECT * FROM users";
//   n2 task code:filter code `users.filter(u => u.name.trim() != "")` (ONE node: no code:trim, no code:notEqual);
//   d1 decision `n2.length > n1.length / 2` (no code:greaterThan / code:divide); n3 task api:notify message=literal "mostly named".
//   edges: n1->n2 sequence; n2->d1 sequence; d1->n3 conditional "true". variableBindings {users: n1, named: n2}.
const users = await mcp.db.query({ sql: "SELECT * FROM users" });
const named = users.filter(u => u.name.trim() != "");
if (named.length > users.length / 2) {
  await mcp.api.notify({ message: "mostly named" });
}
