// covers: memory writes then reads, Promise.all over an async map, switch fallthrough, while loop, args["a.b"], a callback parameter named args
const people = ["Ada", "Grace", "Alan"];
await mcp.memory.create_entities({ entities: people.map((n) => ({ name: n, entityType: "person", observations: [`${n} wrote code`] })) });
const results = await Promise.all(people.map(async (p) => (await mcp.memory.search_nodes({ query: p })).entities.length));
await mcp.memory.create_relations({ relations: [{ from: "Ada", to: "Grace", relationType: "inspired" }] });
const graph = await mcp.memory.read_graph({});
let kind = "";
switch (graph.relations.length) {
  case 0: kind = "none"; break;
  case 1: kind = "one";
  default: kind += "+";
}
let i = 0, echoes = [];
while (i < 3) {
  const e = await mcp.everything.echo({ message: "m" + i });
  echoes.push(e.content?.[0]?.text ?? e);
  i++;
}
if (args["a.b"] === 1) return { early: true, kind };
const m = "id=42".match(/id=(\d+)/);
const ok = args.on && results.some((args) => args > 0);
return { results, kind, echoes, index: m.index, ok, entities: graph.entities.map((e) => e.name).sort() };
