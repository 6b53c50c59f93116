// ETL over files: read two JSON files (in parallel: both reads are read-only), keep the active
// users, normalise their e-mail, join their team names, write a report, and return a summary.
// The filter/map/sort chain is traced operation by operation, each with its own time.
interface User { id: number; name: string; email: string; active: boolean; team: string }

const usersFile = await mcp.filesystem.read_text_file({ path: args.root + "/input/users.json" });
const teamsFile = await mcp.filesystem.read_text_file({ path: args.root + "/input/teams.json" });
const teams: Record<string, string> = JSON.parse(teamsFile.content);
const active = JSON.parse(usersFile.content)
  .filter((u: User) => u.active)
  .map((u: User) => ({ name: u.name, email: u.email.toLowerCase(), team: teams[u.team] }))
  .sort((a, b) => a.name.localeCompare(b.name));
const report = JSON.stringify({ generatedFor: args.root.length > 0, users: active }, null, 2);
await mcp.filesystem.write_file({ path: args.root + "/report.json", content: report });
const check = await mcp.filesystem.get_file_info({ path: args.root + "/report.json" });
return { written: active.length, names: active.map(u => u.name), reportHasSize: check.content.includes("size") };
