// covers: literalBindings for consts bound to array, object, nested array, nested object, string, number, float, boolean, null literals.
// expect: 1 node: n1 task everything:echo message=literal "hello" (const `greeting` inlined). No node for any const.
//   literalBindings (9 entries, in declaration order): ids [1,2,3]; config {"retries":3,"verbose":false}; matrix [[1,2],[3,4]];
//   nested {"db":{"host":"localhost","ports":[5432,5433]}}; greeting "hello"; limit 42; ratio 0.5; enabled true; nothing null.
//   variableBindings {}.
const ids = [1, 2, 3];
const config = { retries: 3, verbose: false };
const matrix = [[1, 2], [3, 4]];
const nested = { db: { host: "localhost", ports: [5432, 5433] } };
const greeting = "hello";
const limit = 42;
const ratio = 0.5;
const enabled = true;
const nothing = null;
await mcp.everything.echo({ message: greeting });
