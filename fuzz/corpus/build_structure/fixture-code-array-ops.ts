// covers: array pure ops, one statement each: reduce, flatMap, find, findIndex, some, every, reverse, slice, concat, join, includes, indexOf, lastIndexOf.
// expect: 14 nodes, one sequence chain n1->n2->...->n14. n1 task db:query sql=literal "SELECT id, tags, score FROM items";
//   n2 code:reduce `res.rows.reduce((s, r) => s + r.score, 0)`; n3 code:flatMap; n4 code:find; n5 code:findIndex; n6 code:some; n7 code:every;
//   n8 code:reverse `tags.reverse()`; n9 code:slice `tags.slice(0, 5)`; n10 code:concat `top.concat(["extra"])`; n11 code:join `all.join(",")`;
//   n12 code:includes; n13 code:indexOf; n14 code:lastIndexOf. Each node's code = the exact source of its call.
//   variableBindings: res n1, total n2, tags n3, first n4, firstIdx n5, anyZero n6, allPositive n7, reversed n8, top n9, all n10, joined n11, hasUrgent n12, at n13, lastAt n14.
const res = await mcp.db.query({ sql: "SELECT id, tags, score FROM items" });
const total = res.rows.reduce((s, r) => s + r.score, 0);
const tags = res.rows.flatMap((r) => r.tags);
const first = res.rows.find((r) => r.score > 90);
const firstIdx = res.rows.findIndex((r) => r.score > 90);
const anyZero = res.rows.some((r) => r.score === 0);
const allPositive = res.rows.every((r) => r.score >= 0);
const reversed = tags.reverse();
const top = tags.slice(0, 5);
const all = top.concat(["extra"]);
const joined = all.join(",");
const hasUrgent = tags.includes("urgent");
const at = tags.indexOf("urgent");
const lastAt = tags.lastIndexOf("urgent");
