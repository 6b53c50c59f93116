// covers: provides edge, coverage "partial": A's outputs cover some but not all of B's required inputs (tools.json).
// expect: 2 nodes. n1 task db:describe_table table=parameter(table); n2 task db:query table=parameter(table), sql=literal "SELECT * FROM t LIMIT 10".
//   edges: n1->n2 sequence; n1->n2 provides coverage "partial" (outputs ∩ required = {table}; required `sql` not covered).
//   No provides n2->n1.
const schema = await mcp.db.describe_table({ table: args.table });
const rows = await mcp.db.query({ table: args.table, sql: "SELECT * FROM t LIMIT 10" });
