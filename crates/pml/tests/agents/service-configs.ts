// covers: a helper that builds its read's path from its parameter (template, toLowerCase), awaited in a loop; a helper whose early return depends on a value it computed; a read that fails inside a helper, caught by the caller; a write after the reads, then a read of it
async function loadConfig(service: string): Promise<Record<string, unknown>> {
  const file = `${args.root}/config/${service.toLowerCase()}.json`;
  const text = await mcp.filesystem.read_text_file({ path: file });
  return JSON.parse(text.content);
}
async function ownerOf(service: string): Promise<string> {
  const internal = service.startsWith("_");
  if (internal) return "nobody";
  const cfg = await loadConfig(service);
  return typeof cfg.owner === "string" ? cfg.owner : "unowned";
}
const services = ["Api", "Worker", "Billing"];
const configs: { service: string; replicas: number; enabled: boolean }[] = [];
for (const s of services) {
  const cfg = await loadConfig(s);
  configs.push({ service: s, replicas: Number(cfg.replicas ?? 1), enabled: cfg.enabled !== false });
}
const owners = [await ownerOf("Api"), await ownerOf("_Cron"), await ownerOf("Billing")];
let missing = "none";
try {
  await loadConfig("Search");
} catch (e) {
  missing = e instanceof Error ? e.message.split(":")[0] : String(e);
}
await mcp.filesystem.write_file({ path: `${args.root}/summary.json`, content: JSON.stringify(configs) });
const written = JSON.parse((await mcp.filesystem.read_text_file({ path: `${args.root}/summary.json` })).content);
return {
  running: configs.filter((c) => c.enabled).map((c) => `${c.service}x${c.replicas}`),
  owners,
  missing,
  total: written.reduce((n: number, c: { replicas: number }) => n + c.replicas, 0),
};
