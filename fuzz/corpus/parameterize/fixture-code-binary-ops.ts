// covers: statement-level binary operators over runtime values -> code:<op>: arithmetic, comparison, logical, bitwise; a binary op over a previous binary result.
// expect: 13 nodes, sequence n1->...->n13. n1 task metrics:get_counter name=literal "hits"; n2 task metrics:get_counter name=literal "misses";
//   n3 code:add `a.value + b.value`; n4 code:subtract; n5 code:divide; n6 code:multiply `ratio * 100` (ratio is n5: runtime);
//   n7 code:modulo; n8 code:greaterThan; n9 code:strictEqual; n10 code:and; n11 code:or; n12 code:bitwiseOr `a.flags | b.flags`; n13 code:leftShift `a.flags << 2`.
//   literalBindings {} (no operand is known). variableBindings a n1, b n2, total n3, diff n4, ratio n5, pct n6, rem n7, bigger n8, same n9, both n10, either n11, mask n12, shifted n13.
const a = await mcp.metrics.get_counter({ name: "hits" });
const b = await mcp.metrics.get_counter({ name: "misses" });
const total = a.value + b.value;
const diff = a.value - b.value;
const ratio = a.value / b.value;
const pct = ratio * 100;
const rem = a.value % 7;
const bigger = a.value > b.value;
const same = a.value === b.value;
const both = a.ok && b.ok;
const either = a.ok || b.ok;
const mask = a.flags | b.flags;
const shifted = a.flags << 2;
