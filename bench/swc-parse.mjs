// Node baseline for `cargo xtask bench`: how long `@swc/core` `parseSync` takes on an agent program.
//
// Usage: node bench/swc-parse.mjs FILE [iterations] [--check]
//
// FILE is an agent program: the BODY of an async function (top-level `await` and `return` are allowed, `args` is
// the parameter object). Neither a script nor a module accepts a top-level `return`, so the text is parsed wrapped
// exactly as `pml analyze` wraps it (crates/pml-structure/src/parse.rs, PREFIX and SUFFIX), as a TypeScript
// script with the latest ECMAScript version:
//
//     async function __pml_agent__(){<FILE>\n}
//
// Both sides therefore parse the same bytes. The wrapper adds 33 bytes; they are part of what is timed.
//
// Prints ONE JSON line on stdout:
//   {"file", "bytes", "iterations", "warmup", "median_ms", "min_ms", "max_ms", "median_cpu_ms", "max_rss_kb",
//    "swc_core", "node"}
// `median_ms` is the in-process wall time of one `parseSync` call (AST crossing into JS included: that is what a
// JS-hosted builder pays before it walks one node); `median_cpu_ms` is the process's CPU time (user + system, all
// threads) during that call, steadier than wall time on a busy machine. `max_rss_kb` is
// `process.resourceUsage().maxRSS` at the end.
//
// With --check, parses once and exits 0 if the program is valid TypeScript, 1 (with the error on stderr) if not.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseSync } from "@swc/core";

const require = createRequire(import.meta.url);

// Keep in sync with crates/pml-structure/src/parse.rs.
const PREFIX = "async function __pml_agent__(){";
const SUFFIX = "\n}";
const OPTIONS = { syntax: "typescript", tsx: false, target: "esnext", isModule: false, comments: false };

function usage(message) {
  process.stderr.write(`swc-parse: ${message}\nusage: node bench/swc-parse.mjs FILE [iterations] [--check]\n`);
  process.exit(2);
}

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const check = process.argv.includes("--check");
const file = positional[0];
if (!file) usage("missing FILE");
const iterations = positional[1] === undefined ? 20 : Number.parseInt(positional[1], 10);
if (!Number.isInteger(iterations) || iterations < 1) usage(`bad iterations: ${positional[1]}`);

const body = readFileSync(file, "utf8");
const text = PREFIX + body + SUFFIX;

if (check) {
  try {
    const ast = parseSync(text, OPTIONS);
    const statements = ast.body[0]?.body?.stmts?.length ?? 0;
    process.stdout.write(JSON.stringify({ file, ok: true, bytes: Buffer.byteLength(body), statements }) + "\n");
    process.exit(0);
  } catch (error) {
    process.stderr.write(`swc-parse: ${file} does not parse: ${error?.message ?? error}\n`);
    process.exit(1);
  }
}

// Warm-up: loads the native binding, JITs the JS side of the AST conversion.
const warmup = Math.min(5, iterations);
for (let i = 0; i < warmup; i++) parseSync(text, OPTIONS);

const times = [];
const cpuTimes = [];
for (let i = 0; i < iterations; i++) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const ast = parseSync(text, OPTIONS);
  const end = process.hrtime.bigint();
  const used = process.cpuUsage(cpu);
  if (ast.type !== "Script") throw new Error(`unexpected AST root ${ast.type}`);
  times.push(Number(end - start) / 1e6);
  cpuTimes.push((used.user + used.system) / 1e3);
}
function median(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}
times.sort((a, b) => a - b);

const round = (x) => Math.round(x * 1000) / 1000;
process.stdout.write(
  JSON.stringify({
    file,
    bytes: Buffer.byteLength(body),
    iterations,
    warmup,
    median_ms: round(median(times)),
    min_ms: round(times[0]),
    max_ms: round(times[times.length - 1]),
    median_cpu_ms: round(median(cpuTimes)),
    max_rss_kb: process.resourceUsage().maxRSS,
    swc_core: require("@swc/core/package.json").version,
    node: process.version,
  }) + "\n",
);
