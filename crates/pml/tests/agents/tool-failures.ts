// covers: tool failures reported by message (missing file, directory as file, bad path), Promise.allSettled reasons, errors of the program's own classes, finally blocks, a generator over results, labeled loops, getters and toJSON
const dir = args.root;
class ToolFailure extends Error {
  constructor(public tool: string, cause: unknown) {
    super(`${tool} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "ToolFailure";
  }
}
const log: string[] = [];
const attempt = async <T>(tool: string, f: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await f();
  } catch (e) {
    const failure = new ToolFailure(tool, e);
    log.push(`${failure.name}: ${failure.message}`);
    log.push(String(failure));
    return undefined;
  } finally {
    log.push(`done ${tool}`);
  }
};
await attempt("missing", () => mcp.filesystem.read_text_file({ path: `${dir}/nope.txt` }));
await attempt("directory", () => mcp.filesystem.read_text_file({ path: `${dir}/sub` }));
await attempt("outside", () => mcp.filesystem.read_text_file({ path: "/etc/passwd" }));
await attempt("bad args", () => mcp.filesystem.read_text_file({ file: "x" } as any));
const settled = await Promise.allSettled(["a.txt", "nope.txt", "sub/b.txt"].map((f) => mcp.filesystem.read_text_file({ path: `${dir}/${f}` })));
const summary = settled.map((s) => (s.status === "fulfilled" ? `ok:${s.value.content.length}` : `err:${s.reason?.message ?? s.reason}`));
function* lines(text: string) {
  for (const line of text.split("\n")) if (line.trim()) yield line.trim();
}
const a = await mcp.filesystem.read_text_file({ path: `${dir}/a.txt` });
const found: string[] = [];
outer: for (const line of lines(a.content)) {
  for (const word of line.split(/\s+/)) {
    if (word === "STOP") break outer;
    if (word.startsWith("#")) continue outer;
    found.push(word.toUpperCase());
  }
}
const report = {
  get count() { return found.length; },
  toJSON() { return { count: this.count, first: found[0] ?? null, at: new Date(Date.UTC(2024, 0, 31)).toISOString() }; },
};
const info = await mcp.filesystem.get_file_info({ path: `${dir}/a.txt` });
const keys = Object.keys(info).sort();
return { log, summary, found, report, json: JSON.stringify(report, null, 2), keys, sizeType: typeof info.size };
