outer: { await mcp.a.b(); break outer; }
await mcp.c.d();
