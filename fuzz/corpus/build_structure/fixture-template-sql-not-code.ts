// covers: a template literal without interpolation that does NOT look like code (SQL) -> plain literal; nested literals NOT extracted.
// expect: 1 node: n1 task db:query sql=literal "SELECT name FROM users WHERE role = 'admin' LIMIT 50", limit=literal 50.
//   No code-template parameters (no 'admin'/50 extraction from inside the SQL). variableBindings {rows: n1}.
const rows = await mcp.db.query({ sql: `SELECT name FROM users WHERE role = 'admin' LIMIT 50`, limit: 50 });
