// covers: realistic knowledge-graph build with the memory server (search_nodes, create_entities, create_relations, add_observations, read_graph, open_nodes), if/else re-join, a chain.
// expect: 9 nodes in order: n1 memory:search_nodes query=parameter(project); d1 decision `n1.entities.length === 0`;
//   n2 memory:create_entities entities = array of 2 objects (name=parameter(project)/parameter(owner), entityType literal, observations:
//   [reference "`created for ${args.owner}`"] and literal []); n3 memory:create_relations relations=[{from: parameter(owner), to: parameter(project), relationType: literal "owns"}];
//   n4 memory:add_observations observations=[{entityName: parameter(project), contents: literal ["seen again"]}];
//   n5 memory:read_graph (no arguments); n6 code:filter; n7 code:map (chain); n8 memory:open_nodes names=reference `n7`.
//   edges: n1->d1; d1->n2 "true"; n2->n3; d1->n4 "false"; n3->n5 and n4->n5 (re-join); n5->n6->n7->n8 (sequence).
//   variableBindings {existing: n1, graph: n5, related: n7, people: n8}.
const existing = await mcp.memory.search_nodes({ query: args.project });
if (existing.entities.length === 0) {
  await mcp.memory.create_entities({
    entities: [
      { name: args.project, entityType: "project", observations: [`created for ${args.owner}`] },
      { name: args.owner, entityType: "person", observations: [] },
    ],
  });
  await mcp.memory.create_relations({
    relations: [{ from: args.owner, to: args.project, relationType: "owns" }],
  });
} else {
  await mcp.memory.add_observations({
    observations: [{ entityName: args.project, contents: ["seen again"] }],
  });
}
const graph = await mcp.memory.read_graph();
const related = graph.relations.filter((r) => r.to === args.project).map((r) => r.from);
const people = await mcp.memory.open_nodes({ names: related });
return { project: args.project, people: people.entities.length };
