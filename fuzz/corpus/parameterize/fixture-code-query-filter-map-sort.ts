// covers: the seeds' "Complete Flow" example: query -> filter -> map -> sort; operators and calls inside callbacks are not nodes.
// expect: EXACTLY 4 nodes. n1 task db:query table=literal "users";
//   n2 task code:filter code `users.filter(u => u.active && u.score > 50)`; n3 task code:map code `active.map(u => u.name.toUpperCase())`;
//   n4 task code:sort code `names.sort()`. (No code:and / code:greaterThan / code:toUpperCase nodes.)
//   edges: n1->n2, n2->n3, n3->n4 sequence. variableBindings {users: n1, active: n2, names: n3, sorted: n4}.
const users = await mcp.db.query({ table: "users" });
const active = users.filter(u => u.active && u.score > 50);
const names = active.map(u => u.name.toUpperCase());
const sorted = names.sort();
return sorted;
