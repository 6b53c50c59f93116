// covers: template literal without interpolation -> literal; with interpolation -> reference (expression text, bound names rewritten).
// expect: 2 nodes. n1 task db:query sql=literal "SELECT id, name FROM users WHERE active = true" (no backticks in the value);
//   n2 task filesystem:write_file path=reference "`${args.outDir}/users.csv`", content=reference "`count=${n1.rowCount}`" (`report` rewritten to n1).
//   edges: n1->n2 sequence.
const report = await mcp.db.query({ sql: `SELECT id, name FROM users WHERE active = true` });
await mcp.filesystem.write_file({ path: `${args.outDir}/users.csv`, content: `count=${report.rowCount}` });
