// An agent that reads a report and parses it, without a guard: the file is not JSON.
const report = await mcp.filesystem.read_text_file({ path: `${args.root}/report.json` });
const parsed = JSON.parse(report.content);
return parsed.total;
