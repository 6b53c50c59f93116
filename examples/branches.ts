// Branches: read a config and decide what to do with the data; only the branch taken runs
// (and appears in the trace).
const configFile = await mcp.filesystem.read_text_file({ path: args.root + "/config.json" });
const config = JSON.parse(configFile.content);
const data = await mcp.filesystem.read_text_file({ path: args.root + "/data.txt" });
const rows = data.content.trim().split("\n").map(line => ({ key: line.split(" ")[0], value: Number(line.split(" ")[1]) }));
let outcome = "none";
switch (config.mode) {
  case "summary":
    await mcp.memory.create_entities({ entities: [{ name: "summary", entityType: "report", observations: [JSON.stringify(rows.length)] }] });
    break;
  case "full":
    await mcp.memory.create_entities({ entities: rows.map(r => ({ name: r.key, entityType: "row", observations: [String(r.value)] })) });
    break;
  default:
    await mcp.everything.echo({ message: "unknown mode " + config.mode });
}
const big = rows.filter(r => r.value > config.threshold);
if (big.length > 1) {
  await mcp.everything.echo({ message: "big rows: " + big.map(r => r.key).join(",") });
} else {
  await mcp.everything.echo({ message: "few big rows" });
}
return { mode: config.mode, big: big.map(r => r.key) };
