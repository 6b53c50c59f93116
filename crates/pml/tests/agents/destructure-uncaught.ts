// covers: a program that destructures a tool result's missing part and fails uncaught: the run's error is Node's message, naming the property and the value as the program's text does
const graph = await mcp.memory.read_graph({});
const { entities } = graph;
const { name, observations } = entities.find((e: any) => e.entityType === "project");
return { name, count: observations.length };
