// covers: a result holding a BigInt fails as JSON.stringify fails in Node ("Do not know how to serialize a BigInt"), after tool calls whose arguments carry the BigInt as a string
const sizes = [2n ** 40n, 2n ** 41n, 12345678901234567890n];
const total = sizes.reduce((s, x) => s + x, 0n);
const echoed = await mcp.everything.echo({ message: `total ${total}` });
return { echoed, total, count: sizes.length };
