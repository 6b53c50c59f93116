// covers: a while loop paging through results, an async function declaration with a loop, for await over promises, Map, optional chaining and ?? defaults, a labelled continue, an early return
const { batch = 2, limit } = args;
async function collect(names: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const n of names) {
    const r = await mcp.everything["get-sum"]({ a: n.length, b: batch });
    out[n] = Number(String(typeof r === "string" ? r : r?.content?.[0]?.text ?? r).match(/\d+/)?.[0] ?? -1);
  }
  return out;
}
const words = ["alpha", "be", "gamma", "delta", "ep"];
let page = 0;
const seen = new Map<string, number>();
while (page * batch < words.length) {
  const slice = words.slice(page * batch, (page + 1) * batch);
  const sums = await collect(slice);
  for (const [w, s] of Object.entries(sums)) seen.set(w, s);
  page++;
  if (limit && seen.size >= limit) break;
}
const echoed: string[] = [];
for await (const e of [mcp.everything.echo({ message: "one" }), mcp.everything.echo({ message: "two" })]) {
  echoed.push(String(e));
}
let odd = 0;
outer: for (const [w, s] of seen) {
  for (const c of w) {
    if (c === "a") continue outer;
  }
  odd += s % 2;
}
if (seen.size === 0) return null;
return { pages: page, sums: Object.fromEntries(seen), echoed, odd };
