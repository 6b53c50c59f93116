// covers: sorting names and file names with localeCompare and Intl.Collator (accents, case, numeric), totals and shares with toLocaleString and Intl.NumberFormat
const csv: string = (await mcp.filesystem.read_text_file({ path: `${args.root}/sales.csv` })).content;
const [header, ...rows] = csv.trim().split("\n");
const columns = header.split(",");
const sales = rows.map((r) => {
  const cells = r.split(",");
  return { name: cells[0], city: cells[1], amount: Number(cells[columns.indexOf("amount")]) };
});
const byName = [...sales].sort((a, b) => a.name.localeCompare(b.name)).map((s) => s.name);
const byCity = [...sales].sort((a, b) => a.city.localeCompare(b.city, "en", { sensitivity: "base" })).map((s) => s.city);
const listing = await mcp.filesystem.list_directory({ path: args.root });
const files = listing.content
  .split("\n")
  .filter((l: string) => l.startsWith("[FILE]"))
  .map((l: string) => l.slice(7));
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
const reports = files.filter((f: string) => /^report-/i.test(f)).sort(collator.compare);
const plain = files.filter((f: string) => /^report-/i.test(f)).sort();
const total = sales.reduce((s, x) => s + x.amount, 0);
const percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
const table = sales.map((s) => `${s.name.padEnd(6)} ${s.amount.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).padStart(14)} ${percent.format(s.amount / total)}`);
const echoed = await mcp.everything.echo({ message: `total ${total.toLocaleString()}` });
return {
  byName,
  byCity,
  reports,
  plain,
  total: total.toLocaleString(),
  rounded: total.toLocaleString("en-US", { maximumFractionDigits: 0 }),
  table,
  echoed,
  options: collator.resolvedOptions(),
  sameAsDefault: [..."bBaA"].sort((x, y) => x.localeCompare(y)).join(""),
};
