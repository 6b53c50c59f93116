#!/usr/bin/env node
// A stdio pass-through in front of an MCP server that writes down every tool call the server
// receives: what the tests compare to know that pml sends the servers exactly the calls the
// program makes (speculation never shows). Plain Node, no dependencies.
//
// usage: node logging-proxy.mjs LOG_FILE COMMAND [ARG...]
//   Starts COMMAND ARG... as the server, passes stdin and stdout through unchanged (stderr is
//   the server's own), and for each `tools/call` request on its way to the server appends one
//   JSON line to LOG_FILE: {"name": TOOL, "arguments": ARGUMENTS}. Exits with the server.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";

const [log, command, ...args] = process.argv.slice(2);
if (!log || !command) {
  process.stderr.write("usage: node logging-proxy.mjs LOG_FILE COMMAND [ARG...]\n");
  process.exit(2);
}
const server = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const decoder = new StringDecoder("utf8");
let pending = "";
process.stdin.on("data", (chunk) => {
  server.stdin.write(chunk);
  pending += decoder.write(chunk);
  let end;
  while ((end = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message && message.method === "tools/call") {
      const call = { name: message.params?.name, arguments: message.params?.arguments ?? {} };
      fs.appendFileSync(log, JSON.stringify(call) + "\n");
    }
  }
});
process.stdin.on("end", () => server.stdin.end());
server.stdout.pipe(process.stdout);
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.kill(signal));
}
