// covers: TypeScript interfaces, type guards and casts, for-of with array destructuring, Set, Array.from, Object.fromEntries, a class, labelled break, Date, NaN and -0 in the result
interface Item { id: number; tags?: string[] }
type Pair = [string, number];
const items: Item[] = [{ id: 1, tags: ["a"] }, { id: 2 }, { id: 3, tags: ["b", "c"] }];
const tagged = items.filter((i): i is Required<Item> => Array.isArray(i.tags));
const pairs: Pair[] = tagged.map((t) => [t.tags.join("+"), t.id] as Pair);
const echoed = [];
for (const [label, id] of pairs) {
  const r = await mcp.everything.echo({ message: `${label}#${id}` });
  echoed.push(r);
}
const set = new Set(pairs.map(([l]) => l.length));
const arr = Array.from(set).sort((a, b) => b - a);
const obj = Object.fromEntries(pairs);
class Counter { n = 0; inc() { this.n++; return this; } }
const c = new Counter().inc().inc();
outer: for (const x of [1, 2, 3]) { for (const y of [1, 2]) { if (x * y === 4) break outer; c.inc(); } }
const last = await mcp.everything.echo({ message: String(c.n) });
if (c.n > 100) throw new Error("too many");
return { echoed, arr, obj, n: c.n, last, date: new Date(0).toISOString(), big: 2 ** 60, neg: -0, nan: NaN };
