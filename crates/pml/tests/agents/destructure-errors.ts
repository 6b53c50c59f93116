// covers: settings read from a tool result and destructured with the wrong shape in mind (a missing section, a null field, a default, a computed key, a rest, an assignment, a value awaited from a tool): the TypeErrors caught and reported by message, worded as V8 words them (the property and the expression as the program's text writes them)
const file = await mcp.filesystem.read_text_file({ path: `${args.root}/settings.json` });
const settings = JSON.parse(file.content);
const problems: string[] = [];
const attempt = (label: string, f: () => unknown) => {
  try {
    f();
  } catch (e: any) {
    problems.push(`${label}: ${e.name}: ${e.message}`);
  }
};
attempt("missing section", () => { const { retries, backoff } = settings.network; return retries + backoff; });
attempt("null owner", () => { const { email } = settings.service.owner; return email; });
attempt("default of a missing one", () => { const { weekly = 7 } = settings.quotas; return weekly; });
attempt("computed key", () => { const key = "daily"; const { [key]: n } = settings.quota; return n; });
attempt("rest", () => { const { ...rest } = settings.extra; return rest; });
attempt("quoted key", () => { const { "max-size": max } = settings["storage"]; return max; });
attempt("assignment", () => { let daily; ({ daily } = settings.limit); return daily; });
attempt("found region", () => { const { code } = settings.regions.find((r: string) => r === "ap"); return code; });
attempt("region by index", () => { const { code } = settings.regions[5]; return code; });
attempt("either section", () => { const { a } = settings.network || settings.proxy; return a; });
attempt("fine", () => { const { daily } = settings.limits; return daily; });
let found = 0;
for (const region of settings.regions) {
  try {
    const { size } = await mcp.filesystem.get_file_info({ path: `${args.root}/${region}.json` }).catch(() => undefined);
    found += size;
  } catch (e: any) {
    problems.push(`${region}: ${e.message}`);
  }
}
await mcp.filesystem.write_file({ path: `${args.root}/problems.txt`, content: problems.join("\n") });
const { limits: { daily }, regions: [first] } = settings;
return { found, problems, daily, first };
