// covers: call / arithmetic / member-of-call expressions as argument values -> reference with the expression text (bound names rewritten); a binary op inside an argument is NOT a statement-level code node.
// expect: 3 nodes. n1 task metrics:get_counter name=literal "hits"; n2 task metrics:get_counter name=literal "misses";
//   n3 task metrics:put_gauge name=literal "hit_total", value=reference `n1.value + n2.value`, label=reference `String(n1.value)`,
//   doubled=reference `n1.items.length * 2`, when=reference `Date.now()`.
//   edges: n1->n2, n2->n3 sequence. NO code:add / code:multiply nodes.
const a = await mcp.metrics.get_counter({ name: "hits" });
const b = await mcp.metrics.get_counter({ name: "misses" });
await mcp.metrics.put_gauge({
  name: "hit_total",
  value: a.value + b.value,
  label: String(a.value),
  doubled: a.items.length * 2,
  when: Date.now(),
});
