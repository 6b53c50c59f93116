#!/usr/bin/env node
// A small MCP server (stdio, newline-delimited JSON-RPC) that misbehaves on purpose, for the
// fault-injection tests of crates/pml-mcp. Plain Node, no dependencies.
//
// Start-up faults are chosen by argv:
//   --slow-start=MS     wait MS milliseconds before answering anything
//   --exit-on-start=N   print a fatal message to stderr and exit with status N at once
//   --silent            read stdin but never answer (not even `initialize`)
//   --garbage-init      answer `initialize` with a line that is not JSON
//   --stubborn          ignore stdin EOF and SIGTERM (only SIGKILL ends it)
//   --no-tools          do not advertise the `tools` capability
//
// Per-call faults are tools (so one process serves many scenarios):
//   echo {text}         -> one text item `text`
//   json {value}        -> one text item holding JSON.stringify(value)
//   structured {value}  -> structuredContent `value` (+ its JSON as text)
//   multi               -> two text items
//   image               -> one image item
//   fail {message}      -> isError: true with `message` as text
//   crash {code}        -> writes to stderr, then exits with `code` (default 3) mid-call
//   hang                -> never answers
//   garbage             -> answers with a line that is not JSON
//   bad_result          -> answers with a JSON-RPC response whose result is not a CallToolResult
//   rpc_error           -> answers with a JSON-RPC error object
//   sleep {ms}          -> answers "slept" after `ms` milliseconds
//   pid                 -> {"pid": <this process id>}
//   grandchild          -> spawns a long-lived child process, answers {"pid": <its pid>}
//   cancelled           -> JSON of the request ids `notifications/cancelled` named so far

import { spawn } from "node:child_process";

const flags = new Map();
for (const arg of process.argv.slice(2)) {
  const [key, value] = arg.replace(/^--/, "").split("=");
  flags.set(key, value ?? "");
}

const log = (msg) => process.stderr.write(`[misbehaving] ${msg}\n`);
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

if (flags.has("exit-on-start")) {
  log("fatal: refusing to start (--exit-on-start)");
  process.exit(Number(flags.get("exit-on-start")) || 1);
}

if (flags.has("stubborn")) {
  process.on("SIGTERM", () => log("got SIGTERM, ignoring it"));
  setInterval(() => {}, 1 << 30);
}

const startDelay = Number(flags.get("slow-start") || 0);
const ready = new Promise((resolve) => setTimeout(resolve, startDelay));
log(`started pid=${process.pid} flags=${[...flags.keys()].join(",") || "none"}`);

const text = (t) => ({ type: "text", text: t });
const TOOLS = [
  ["echo", "Echo the text back", { text: { type: "string" } }, { readOnlyHint: true }],
  ["json", "Return a value as JSON text", { value: {} }, { readOnlyHint: true }],
  ["structured", "Return structuredContent", { value: {} }, { readOnlyHint: true }],
  ["multi", "Return two text items", {}, { readOnlyHint: true }],
  ["image", "Return one image item", {}, { readOnlyHint: true }],
  ["fail", "Return isError: true", { message: { type: "string" } }, {}],
  ["crash", "Exit mid-call", { code: { type: "number" } }, { destructiveHint: true }],
  ["hang", "Never answer", {}, {}],
  ["garbage", "Answer with non-JSON", {}, {}],
  ["bad_result", "Answer with a malformed result", {}, {}],
  ["rpc_error", "Answer with a JSON-RPC error", {}, {}],
  ["sleep", "Answer after ms milliseconds", { ms: { type: "number" } }, {}],
  ["pid", "Return the process id", {}, { readOnlyHint: true }],
  ["grandchild", "Spawn a long-lived child process", {}, {}],
  ["cancelled", "The request ids cancelled so far", {}, { readOnlyHint: true }],
].map(([name, description, properties, annotations]) => ({
  name,
  description,
  inputSchema: { type: "object", properties },
  annotations,
}));

const cancelled = [];

async function callTool(id, name, args) {
  const reply = (result) => send({ jsonrpc: "2.0", id, result });
  switch (name) {
    case "echo":
      return reply({ content: [text(String(args.text ?? ""))] });
    case "json":
      return reply({ content: [text(JSON.stringify(args.value ?? null))] });
    case "structured":
      return reply({
        content: [text(JSON.stringify(args.value ?? null))],
        structuredContent: args.value ?? null,
      });
    case "multi":
      return reply({ content: [text("first"), text("second")] });
    case "image":
      return reply({ content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] });
    case "fail":
      return reply({ content: [text(String(args.message ?? "failed"))], isError: true });
    case "crash":
      log("boom: crashing on purpose in the middle of a call");
      return process.exit(Number(args.code ?? 3));
    case "hang":
      log("hanging forever");
      return;
    case "garbage":
      return process.stdout.write("this is not json at all\n");
    case "bad_result":
      return reply(42);
    case "rpc_error":
      return send({ jsonrpc: "2.0", id, error: { code: -32000, message: "internal failure" } });
    case "sleep":
      return setTimeout(() => reply({ content: [text("slept")] }), Number(args.ms ?? 0));
    case "pid":
      return reply({ content: [text(JSON.stringify({ pid: process.pid }))] });
    case "grandchild": {
      const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], {
        stdio: "ignore",
      });
      return reply({ content: [text(JSON.stringify({ pid: child.pid }))] });
    }
    case "cancelled":
      return reply({ content: [text(JSON.stringify(cancelled))] });
    default:
      return reply({ content: [text(`unknown tool ${name}`)], isError: true });
  }
}

async function handle(msg) {
  await ready;
  if (flags.has("silent")) return;
  const { id, method, params } = msg;
  if (id === undefined) {
    // A notification.
    if (method === "notifications/cancelled") cancelled.push(params?.requestId);
    return;
  }
  switch (method) {
    case "initialize":
      if (flags.has("garbage-init")) return process.stdout.write("<html>garbage</html>\n");
      return send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: params?.protocolVersion ?? "2025-11-25",
          capabilities: flags.has("no-tools") ? {} : { tools: {} },
          serverInfo: { name: "misbehaving", version: "0.0.0" },
        },
      });
    case "ping":
      return send({ jsonrpc: "2.0", id, result: {} });
    case "tools/list":
      return send({ jsonrpc: "2.0", id, result: { tools: TOOLS } });
    case "tools/call":
      return callTool(id, params?.name, params?.arguments ?? {});
    default:
      return send({ jsonrpc: "2.0", id, error: { code: -32601, message: `no method ${method}` } });
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      log(`ignoring a line that is not JSON: ${line.slice(0, 80)}`);
      continue;
    }
    handle(msg).catch((e) => log(`handler failed: ${e}`));
  }
});
process.stdin.on("end", () => {
  if (flags.has("stubborn")) {
    log("stdin closed, staying alive anyway");
    return;
  }
  process.exit(0);
});
