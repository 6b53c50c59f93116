// covers: a CSV read from a tool, parsed and summarised as an agent does (numbers, dates, currency formatting, grouping, sorting with ties, regular expressions), the summary stored in the memory graph and read back
const { content } = await mcp.filesystem.read_text_file({ path: `${args.root}/orders.csv` });
const [header, ...rows] = content.trim().split(/\r?\n/);
const columns = header.split(",");
type Order = { id: number; customer: string; date: string; amount: number; currency: string; status: string };
const orders: Order[] = rows.map((line) => {
  const cells = line.split(",");
  const o: any = Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
  return { ...o, id: Number(o.id), amount: parseFloat(o.amount) };
});
const byCustomer = new Map<string, Order[]>();
for (const o of orders) {
  if (!byCustomer.has(o.customer)) byCustomer.set(o.customer, []);
  byCustomer.get(o.customer)!.push(o);
}
const money = (n: number, currency: string) => new Intl.NumberFormat("en-US", { style: "currency", currency }).format(n);
const totals = [...byCustomer].map(([customer, list]) => ({
  customer,
  initials: customer.split(" ").map((w) => w[0]).join(""),
  paid: list.filter((o) => o.status === "paid").reduce((s, o) => s + o.amount, 0),
  orders: list.length,
  last: list.map((o) => o.date).sort().at(-1),
}));
totals.sort((a, b) => b.orders - a.orders);
const months = orders.reduce<Record<string, number>>((acc, o) => {
  const d = new Date(`${o.date}T00:00:00Z`);
  const key = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
  acc[key] = Math.round(((acc[key] ?? 0) + o.amount) * 100) / 100;
  return acc;
}, {});
const weekday = (s: string) => new Date(`${s}T12:00:00Z`).toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });
const lines = totals.map((t) => `${t.initials.padEnd(3)}|${String(t.orders).padStart(2)}|${t.paid.toFixed(2)}|${weekday(t.last!)}`);
const sum = orders.reduce((s, o) => s + o.amount, 0);
const stats = {
  sum,
  sumFixed: sum.toFixed(2),
  avg: +(sum / orders.length).toPrecision(6),
  tiny: 0.1 + 0.2,
  formatted: orders.map((o) => money(o.amount, o.currency)),
  big: (1234567.891).toLocaleString("en-US"),
  exp: (0.000001234).toExponential(2),
  ids: orders.map((o) => o.id.toString(16)).join(" "),
  accents: orders.map((o) => o.customer).filter((c) => /[^\x00-\x7F]/.test(c)),
  normalized: "Édouard".normalize("NFD").replace(/[\u0300-\u036f]/g, ""),
  statuses: [...new Set(orders.map((o) => o.status))].sort((a, b) => a.localeCompare(b)),
};
await mcp.memory.create_entities({
  entities: totals.map((t) => ({ name: t.customer, entityType: "customer", observations: [`orders: ${t.orders}`, `paid: ${t.paid.toFixed(2)}`] })),
});
const graph = await mcp.memory.search_nodes({ query: "Turing" });
return { lines, months, stats, found: graph.entities.map((e: any) => `${e.name} (${e.observations.join("; ")})`) };
