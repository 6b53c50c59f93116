// covers: realistic parallel reads + merge: destructured Promise.all, JSON.parse of each, a nested-callback map, sort().slice() chain, write.
// expect: 11 nodes in order: f1 fork; n1 filesystem:read_text_file path=literal "data/users.json"; n2 filesystem:read_text_file path=literal "data/orders.json"; j1 join;
//   n3 code:JSON.parse `JSON.parse(usersFile.content)`; n4 code:JSON.parse `JSON.parse(ordersFile.content)`;
//   n5 code:map (the inner `orders.filter(...)` is inside the callback: NOT a node); n6 code:sort; n7 code:slice (chain n6->n7);
//   n8 code:JSON.stringify; n9 filesystem:write_file path=literal "data/top-customers.json", content=reference `n8`.
//   edges: f1->n1, f1->n2, n1->j1, n2->j1, j1->n3->n4->n5->n6->n7->n8->n9 (sequence).
//   variableBindings {usersFile: n1, ordersFile: n2, users: n3, orders: n4, merged: n5, top: n7, report: n8}.
const [usersFile, ordersFile] = await Promise.all([
  mcp.filesystem.read_text_file({ path: "data/users.json" }),
  mcp.filesystem.read_text_file({ path: "data/orders.json" }),
]);
const users = JSON.parse(usersFile.content);
const orders = JSON.parse(ordersFile.content);
const merged = users.map((u) => ({ ...u, orders: orders.filter((o) => o.userId === u.id) }));
const top = merged.sort((a, b) => b.orders.length - a.orders.length).slice(0, 10);
const report = JSON.stringify(top, null, 2);
await mcp.filesystem.write_file({ path: "data/top-customers.json", content: report });
return top.length;
