a_1: {
  break a_1;
}
await mcp.a.a({ a: 0 });
