await mcp.a.b();
try { return 1; } catch (e) { await mcp.c.d(); }
