// covers: a loop whose body is an if/else: the decision is scoped to the loop, both branch tasks to the decision inside it.
// expect: 5 nodes. n1 task db:query sql=literal "SELECT id, done FROM tasks"; l1 loop (for..of over `n1.rows`, arguments tasks=reference `n1`);
//   d1 decision `n1.rows[*].done`, scope l1; n2 task db:execute sql=literal "DELETE FROM tasks WHERE id = ?", params=[reference `n1.rows[*].id`], scope d1 "true";
//   n3 task api:post_message channel=literal "#todo", text=reference "`still open: ${n1.rows[*].id}`", scope d1 "false".
//   edges: n1->l1 sequence; l1->d1 sequence (into the body); d1->n2 conditional "true"; d1->n3 conditional "false". variableBindings {tasks: n1}.
const tasks = await mcp.db.query({ sql: "SELECT id, done FROM tasks" });
for (const t of tasks.rows) {
  if (t.done) {
    await mcp.db.execute({ sql: "DELETE FROM tasks WHERE id = ?", params: [t.id] });
  } else {
    await mcp.api.post_message({ channel: "#todo", text: `still open: ${t.id}` });
  }
}
