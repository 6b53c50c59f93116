// covers: a tool result read with the wrong shape in mind (an object where the program expects an array, a missing field, a null), the TypeErrors that follow caught and reported by message (what the value at fault is called in the program's text: a callee, a `new`, a `for ... of`, a spread, a destructuring, a call inside a global function's arguments)
const file = await mcp.filesystem.read_text_file({ path: `${args.root}/report.json` });
const report = JSON.parse(file.content);
const problems: string[] = [];
const attempt = (label: string, f: () => unknown) => {
  try {
    f();
  } catch (e: any) {
    problems.push(`${label}: ${e.name}: ${e.message}`);
  }
};
attempt("map over sections", () => report.sections.map((s: any) => s.rows.length));
attempt("rows of a missing section", () => report.sections.c.rows.forEach((r: number) => r));
attempt("for of sections", () => { for (const s of report.sections) problems.push(String(s)); });
attempt("spread of a missing list", () => [...report.tags]);
attempt("max of a missing list", () => Math.max(...report.scores));
attempt("owner's name", () => report.owner.name);
attempt("title as a function", () => report.title());
attempt("new of a field", () => new report.sections.a());
attempt("destructured tags", () => { const [first] = report.tags; return first; });
attempt("filter then sort", () => Object.keys(report.sections).filter((k) => k !== "b").sortBy((k: string) => k));
attempt("keys of the owner", () => Object.keys(report.owner));
attempt("sections as JSON", () => JSON.stringify(report.sections.map((s: any) => s.rows)));
attempt("title in capitals", () => String(report.title.toUpperCasee()));
const counts = Object.entries(report.sections).map(([name, s]: [string, any]) => `${name}=${s.rows.length}`);
await mcp.memory.create_entities({ entities: [{ name: report.title, entityType: "report", observations: [...counts, ...problems] }] });
return { counts, problems };
