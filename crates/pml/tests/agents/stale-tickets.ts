// covers: a triage report over tickets read from a tool: ages written with Intl.RelativeTimeFormat (numeric "auto", styles), owners destructured where some are missing (the TypeError's message kept as the reason), a callback looked up by name that may be missing, JSON.stringify of a failing map, results stored in the memory graph
const { content } = await mcp.filesystem.read_text_file({ path: `${args.root}/tickets.json` });
const { asOf, tickets } = JSON.parse(content);
const now = Date.parse(asOf);
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const short = new Intl.RelativeTimeFormat("en-GB", { style: "short" });
const age = (iso: string) => {
  const minutes = Math.round((Date.parse(iso) - now) / 60000);
  if (Math.abs(minutes) < 60) return rtf.format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return rtf.format(hours, "hour");
  const days = Math.round(hours / 24);
  if (Math.abs(days) < 30) return rtf.format(days, "day");
  const months = Math.round(days / 30);
  return Math.abs(months) < 12 ? rtf.format(months, "month") : rtf.format(Math.round(months / 12), "year");
};
const reasons: string[] = [];
const rows = tickets.map((t: any) => {
  let owner = "unassigned";
  try {
    const { name } = t.owner;
    owner = name;
  } catch (e: any) {
    reasons.push(`#${t.id}: ${e.message}`);
  }
  return { id: t.id, owner, age: age(t.updated), short: short.format(Math.round((Date.parse(t.updated) - now) / 864e5), "days"), labels: (t.labels ?? []).length };
});
const sorters: Record<string, (a: any, b: any) => number> = { byId: (a, b) => a.id - b.id };
const pick = args.sort ?? "byAge";
try {
  rows.slice().sort((a: any, b: any) => a.id - b.id).forEach(sorters[pick]);
} catch (e: any) {
  reasons.push(`sort ${pick}: ${e.message}`);
}
try {
  reasons.push(JSON.stringify(tickets.map((t: any) => t.labels.join("+"))));
} catch (e: any) {
  reasons.push(`labels: ${e.message}`);
}
const stale = rows.filter((r: any) => /month|year/.test(r.age));
await mcp.memory.create_entities({
  entities: stale.map((r: any) => ({ name: `ticket-${r.id}`, entityType: "stale-ticket", observations: [`updated ${r.age}`, `owner ${r.owner}`] })),
});
const { entities } = await mcp.memory.open_nodes({ names: stale.map((r: any) => `ticket-${r.id}`) });
return { rows, reasons, stale: entities.map(({ name, observations }: any) => `${name}: ${observations.join(", ")}`) };
