await mcp.a.b();
try { return 1; } finally { await mcp.c.d(); }
