// Memory graph building: create people and projects, relate them, then read the graph back
// and summarise it. Writes run in program order; the final read comes after every write.
const people = ["Ada", "Grace", "Alan"];
const created = await mcp.memory.create_entities({
  entities: [
    { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
    { name: "Grace", entityType: "person", observations: ["built the first compiler"] },
    { name: "Alan", entityType: "person", observations: ["defined computability"] },
    { name: "Analytical Engine", entityType: "project", observations: ["never completed"] },
  ],
});
await mcp.memory.create_relations({
  relations: [
    { from: "Ada", to: "Analytical Engine", relationType: "programmed" },
    { from: "Grace", to: "Ada", relationType: "admired" },
  ],
});
await mcp.memory.add_observations({
  observations: [{ entityName: "Alan", contents: ["broke Enigma"] }],
});
const graph = await mcp.memory.read_graph({});
const names = graph.entities.map(e => e.name).sort();
const known = names.filter(n => people.includes(n));
return {
  created: created.entities.length,
  entities: names,
  people: known.length,
  relations: graph.relations.map(r => r.from + " " + r.relationType + " " + r.to),
};
