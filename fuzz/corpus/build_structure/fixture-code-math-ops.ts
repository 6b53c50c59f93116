// covers: Math.max / Math.min (spread argument) / Math.round / Math.floor / Math.ceil / Math.abs; statement-level `/` and `-` over runtime values.
// expect: 11 nodes, sequence n1->...->n11. n1 task db:query sql=literal "SELECT latency_ms FROM requests";
//   n2 code:map; n3 code:Math.max `Math.max(...latencies)`; n4 code:Math.min; n5 code:reduce; n6 code:divide `sum / latencies.length`;
//   n7 code:Math.round `Math.round(mean)`; n8 code:Math.floor; n9 code:Math.ceil; n10 code:subtract `worst - best`; n11 code:Math.abs `Math.abs(range)`.
//   None of mean/range/avg are literalBindings (runtime operands).
const stats = await mcp.db.query({ sql: "SELECT latency_ms FROM requests" });
const latencies = stats.rows.map((r) => r.latency_ms);
const worst = Math.max(...latencies);
const best = Math.min(...latencies);
const sum = latencies.reduce((s, x) => s + x, 0);
const mean = sum / latencies.length;
const avg = Math.round(mean);
const low = Math.floor(mean);
const high = Math.ceil(mean);
const range = worst - best;
const spread = Math.abs(range);
