// Mistakes agents make, caught and reported: each message must be Node's word for word.
const listing = await mcp.filesystem.list_directory({ path: args.root });
const found = await mcp.memory.search_nodes({ query: "nobody-here" });
const problems: string[] = [];

// A const counted into.
const total = 0;
try {
  for (const line of String(listing.content).split("\n")) total += line.length;
} catch (e) {
  problems.push(`count: ${e.message}`);
}

// A tool's result read as an array.
try {
  const [first] = found;
  problems.push(`first: ${first}`);
} catch (e) {
  problems.push(`first: ${e.message}`);
}

// A nested field that is not there.
try {
  const { entities: [entity], meta: { page } } = found;
  problems.push(`page: ${page} ${entity}`);
} catch (e) {
  problems.push(`page: ${e.message}`);
}

// A method that does not exist, inside another call.
const lines: string[] = [];
try {
  lines.push(String(listing.content).trim().lines());
} catch (e) {
  problems.push(`lines: ${e.message}`);
}
try {
  lines.push(found.entities.count());
} catch (e) {
  problems.push(`count(): ${e.message}`);
}

// A callback whose parameter's nested field is missing.
try {
  const names = found.entities.concat([{}]).map(({ observations: { length } }) => length);
  problems.push(`names: ${names}`);
} catch (e) {
  problems.push(`names: ${e.message}`);
}

// A tool's text searched as an object, a negative indent.
const echoed = await mcp.everything.echo({ message: "hi" });
const text = echoed.content?.[0]?.text ?? String(echoed);
for (const key of ["content", "isError"]) {
  try {
    problems.push(`${key}: ${key in text}`);
  } catch (e) {
    problems.push(`${key}: ${e.message}`);
  }
}
try {
  problems.push(`indent: [${" ".repeat(lines.length - 1)}]`);
} catch (e) {
  problems.push(`indent: ${e.message}`);
}

return { problems, lines: lines.length };
