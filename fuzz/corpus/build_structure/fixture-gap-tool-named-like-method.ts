// covers: GAP of the TS original: MCP tools named like JS array/string methods must be MCP tasks, never code:<op>.
// expect: 5 nodes. n1 task db:find collection=literal "users", id=parameter(id); n2 task db:filter collection=literal "users", where=literal {"role":"admin"};
//   n3 task kv:map prefix=literal "session:"; n4 task db:sort collection=literal "users", by=literal "name" (no await);
//   n5 task code:filter `admins.filter((a) => a.active)` (a real array op on the result of n2).
//   NO code:find / code:map / code:sort nodes. edges: n1->n2->n3->n4->n5 sequence. variableBindings {user: n1, admins: n2, sessions: n3, sorted: n4, active: n5}.
const user = await mcp.db.find({ collection: "users", id: args.id });
const admins = await mcp.db.filter({ collection: "users", where: { role: "admin" } });
const sessions = await mcp.kv.map({ prefix: "session:" });
const sorted = mcp.db.sort({ collection: "users", by: "name" });
const active = admins.filter((a) => a.active);
