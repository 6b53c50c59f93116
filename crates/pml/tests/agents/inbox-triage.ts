// covers: rows.shift() on a parsed CSV before a loop (a value changed in place), a helper looping over its parameter with a try/catch around a read that fails for one id, a write then a read of what was written, an early return never taken
const root = args.root;
const csv = (await mcp.filesystem.read_text_file({ path: `${root}/inbox/index.csv` })).content;
const rows = csv.trim().split("\n");
rows.shift();
const messages = rows.map((line) => {
  const [id, from, subject] = line.split(",");
  return { id, from, subject };
});

async function bodies(ids: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const id of ids) {
    try {
      out[id] = (await mcp.filesystem.read_text_file({ path: `${root}/inbox/${id}.txt` })).content.trim();
    } catch (e) {
      out[id] = "missing";
    }
  }
  return out;
}

const invoices = messages.filter((m) => m.subject === "invoice");
if (invoices.length === 0) return { invoices: [] };
const texts = await bodies([...invoices.map((m) => m.id), "9"]);
await mcp.filesystem.write_file({ path: `${root}/triage.json`, content: JSON.stringify({ invoices, texts }) });
const back = JSON.parse((await mcp.filesystem.read_text_file({ path: `${root}/triage.json` })).content);
return { count: back.invoices.length, texts: back.texts, first: back.invoices[0].from };
