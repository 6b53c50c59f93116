// covers: tool names that are not identifiers, `mcp.server["tool-name"](...)`; a string-literal bracket for an ordinary name; a bracketed server name.
// expect: 3 nodes. n1 task api:fetch-json url=literal "https://example.com/data.json";
//   n2 task everything:echo message=literal "fetched" (bracket `["echo"]` is the same tool as `.echo`);
//   n3 task brave-search:brave_web_search query=literal "pml static analysis", count=literal 5.
//   edges: n1->n2, n2->n3 sequence. variableBindings {page: n1}.
const page = await mcp.api["fetch-json"]({ url: "https://example.com/data.json" });
await mcp.everything["echo"]({ message: "fetched" });
await mcp["brave-search"]["brave_web_search"]({ query: "pml static analysis", count: 5 });
