// An agent that searches its knowledge graph with a filter it narrows in a helper, keeps its
// settings in a registry it edits through, and skips what its hooks and caches make needless.
const settingsFile = await mcp.filesystem.read_text_file({ path: `${args.root}/settings.json` });
const settings = JSON.parse(settingsFile.content);
const registry = new Map([["search", settings]]);
registry.get("search").folder = "notes";

await mcp.memory.create_entities({
  entities: [
    { name: "alpha beta", entityType: "note", observations: ["first"] },
    { name: "alpha gamma", entityType: "note", observations: ["second"] },
  ],
});

const filter = { query: "alpha" };
function narrow(f: { query: string }, extra: string) {
  f.query += " " + extra;
}
narrow(filter, settings.extra);
const found = await mcp.memory.search_nodes(filter);

const tagged = { tags: ["draft"] };
for (const holder of [tagged]) holder.tags.push("reviewed");
const listing = await mcp.filesystem.list_directory({ path: `${args.root}/${settings.folder}` });

const hooks: any = { onStart: null };
hooks.onStart?.(await mcp.everything.echo({ message: "never sent" }));
const cache: any = { names: null, count: 3 };
cache.names ??= found.entities.map((e: any) => e.name);
cache.count ||= (await mcp.everything.echo({ message: "not sent either" })).length;

const writesV2 = typeof (mcp.filesystem as any).write_file_v2 === "function";
const ticket = await mcp.everything.echo({ message: `ticket ${args.ticket} for ${args.owner}` });
const echoed = await mcp.everything.echo(args.request);
const prices = [1234.5, 0.25].toLocaleString("en-US", { style: "currency", currency: "USD" });

return {
  query: filter.query,
  found: found.entities.map((e: any) => e.name).sort(),
  listing,
  tags: tagged.tags,
  cached: cache,
  writesV2,
  ticket,
  echoed,
  prices,
};
