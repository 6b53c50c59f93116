// covers: previews cut inside an emoji (lone surrogates) sent to tools, written to a file, echoed back and returned
const text = (await mcp.filesystem.read_text_file({ path: `${args.root}/notes.txt` })).content;
const lines: string[] = text.split("\n").filter((l: string) => l.length > 0);
const previews = lines.map((l) => l.slice(0, 8));
const echoed: string[] = [];
for (const p of previews) {
  echoed.push(await mcp.everything.echo({ message: p }));
}
await mcp.filesystem.write_file({ path: `${args.root}/previews.txt`, content: previews.join("\n") });
const back = (await mcp.filesystem.read_text_file({ path: `${args.root}/previews.txt` })).content;
const lone = previews.filter((p) => /[\ud800-\udbff]$/.test(p));
return {
  previews,
  echoed,
  lengths: previews.map((p) => p.length),
  lone: lone.length,
  sameAfterEcho: echoed.map((e, i) => e === `Echo: ${previews[i]}`),
  back,
  codes: lone.map((p) => p.charCodeAt(p.length - 1).toString(16)),
};
