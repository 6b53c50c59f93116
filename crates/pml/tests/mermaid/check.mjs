// Parses Mermaid files with mermaid's own parser (in a jsdom window): exit 1 naming the first
// that does not parse.
import { JSDOM } from "jsdom";
import { readFileSync } from "node:fs";
const dom = new JSDOM("<!DOCTYPE html><body></body>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
let failed = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  try {
    await mermaid.parse(text);
    console.log(`${file}: ok`);
  } catch (e) {
    failed++;
    console.log(`${file}: ${String(e.message || e).split("\n").slice(0, 4).join(" | ")}`);
  }
}
process.exit(failed ? 1 : 0);
