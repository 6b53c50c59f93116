// covers: a result holding functions, symbols, undefined, a Map, Dates and toJSON (Node prints it through JSON.stringify: dropped in objects, null in arrays), tool arguments holding a function, a symbol and a Date
const listing = await mcp.filesystem.list_directory({ path: args.root });
const names: string[] = listing.content
  .split("\n")
  .filter((l: string) => l.startsWith("[FILE]"))
  .map((l: string) => l.slice(7))
  .sort();
class Money {
  cents: number;
  constructor(cents: number) { this.cents = cents; }
  toJSON() { return `$${(this.cents / 100).toFixed(2)}`; }
}
const files = names.map((name) => ({
  name,
  price: new Money(name.length * 125),
  open: () => mcp.filesystem.read_text_file({ path: `${args.root}/${name}` }),
  tag: Symbol(name),
  note: undefined,
}));
const first = await files[0].open();
const echoed = await mcp.everything.echo({
  message: first.content.trim(),
  format: (s: string) => s.toUpperCase(),
  id: Symbol("x"),
});
const when = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
return {
  files,
  first,
  echoed,
  index: new Map(names.map((n, i) => [n, i])),
  handlers: [() => 1, Symbol("s"), undefined, null, files[1].open],
  when,
  range: { from: when, to: new Date(when.getTime() + 86400000), toJSON() { return `${this.from.toISOString().slice(0, 10)}..${this.to.toISOString().slice(0, 10)}`; } },
  nothing: undefined,
};
