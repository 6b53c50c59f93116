// An MCP client for the `pml serve` tests, on the official TypeScript SDK (the copy pinned in
// mcp-servers/). Usage: node client.mjs <command> [args...] (stdio: the gateway is spawned),
// or node client.mjs --url http://HOST:PORT/mcp [TOKEN] (streamable HTTP).
// Reads one JSON request per line on stdin and answers each, as it completes, with one JSON
// line on stdout: {id, result} or {id, error}. Requests run concurrently.
//   {id, op: "listTools"} | {id, op: "callTool", name, arguments, meta?, progress?, cancelAfterMs?}
//   {id, op: "listResources"} | {id, op: "readResource", uri} | {id, op: "close"}
// PML_TEST_ELICIT=approve|deny makes the client offer elicitation and answer it so; the
// questions it was asked are in the answer to the next request, as `elicited`. Every answer
// says how many tools/list_changed notifications came so far (`listChanged`).
import { createInterface } from "node:readline";

const sdk = `${process.env.PML_MCP_SERVERS}/node_modules/@modelcontextprotocol/sdk/dist/esm`;
const { Client } = await import(`${sdk}/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/client/stdio.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);
const { ElicitRequestSchema, ToolListChangedNotificationSchema } = await import(
  `${sdk}/types.js`
);

const elicit = process.env.PML_TEST_ELICIT;
const client = new Client(
  { name: "pml-test-client", version: "1.0.0" },
  { capabilities: elicit ? { elicitation: { form: {} } } : {} },
);
const elicited = [];
// How many `notifications/tools/list_changed` came (in every answer, as `listChanged`).
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  listChanged += 1;
});
if (elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params.message);
    return { action: "accept", content: { approve: elicit === "approve" } };
  });
}
const [command, ...args] = process.argv.slice(2);
const transport =
  command === "--url"
    ? new StreamableHTTPClientTransport(new URL(args[0]), {
        requestInit: args[1] ? { headers: { Authorization: `Bearer ${args[1]}` } } : {},
      })
    : new StdioClientTransport({ command, args, stderr: "inherit" });
await client.connect(transport);

const write = (line) => process.stdout.write(JSON.stringify(line) + "\n");

async function handle(request) {
  switch (request.op) {
    case "listTools":
      return client.listTools();
    case "callTool": {
      const progress = [];
      const controller = new AbortController();
      if (request.cancelAfterMs !== undefined) {
        setTimeout(() => controller.abort("cancelled by the test"), request.cancelAfterMs);
      }
      const options = { signal: controller.signal, timeout: 120000 };
      if (request.progress) options.onprogress = (p) => progress.push(p);
      const params = { name: request.name, arguments: request.arguments ?? {} };
      if (request.meta) params._meta = request.meta;
      const result = await client.callTool(
        params,
        undefined,
        options,
      );
      return request.progress ? { ...result, progress } : result;
    }
    case "listResources":
      return client.listResources();
    case "readResource":
      return client.readResource({ uri: request.uri });
    case "close":
      await client.close();
      return {};
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

const pending = [];
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  pending.push(
    handle(request).then(
      (result) => write({ id: request.id, result, elicited: elicited.splice(0), listChanged }),
      (error) => write({ id: request.id, error: String(error?.message ?? error) }),
    ),
  );
}
await Promise.all(pending);
await client.close();
