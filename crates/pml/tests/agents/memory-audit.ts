// covers: memory entities created from computed data, add_observations in a loop with a guard, open_nodes and search_nodes, delete_entities behind a condition, a result built with reduce and sort
const teams = { core: ["ada", "bo"], web: ["cy"] };
const entities = Object.entries(teams).flatMap(([team, members]) =>
  members.map((m) => ({ name: `${team}/${m}`, entityType: "member", observations: [`joined ${team}`] })),
);
await mcp.memory.create_entities({ entities });
for (const e of entities) {
  if (e.name.startsWith("core/")) {
    await mcp.memory.add_observations({ observations: [{ entityName: e.name, contents: ["on call"] }] });
  }
}
const core = await mcp.memory.open_nodes({ names: entities.filter((e) => e.name.startsWith("core/")).map((e) => e.name) });
const found = await mcp.memory.search_nodes({ query: "on call" });
if (args.prune) {
  await mcp.memory.delete_entities({ entityNames: ["web/cy"] });
}
const graph = await mcp.memory.read_graph({});
const byType = graph.entities.reduce((acc: Record<string, number>, e: any) => {
  acc[e.entityType] = (acc[e.entityType] ?? 0) + 1;
  return acc;
}, {});
return {
  core: core.entities.map((e: any) => [e.name, e.observations.length]).sort(),
  found: found.entities.map((e: any) => e.name).sort(),
  byType,
  left: graph.entities.map((e: any) => e.name).sort(),
};
