// Parallel reads: two files read with Promise.all, two more and a directory listing awaited
// one after another. All five calls are read-only: pml starts the awaited ones ahead of the
// program, together with the Promise.all pair (the trace marks them `speculative`).
const [a, b] = await Promise.all([
  mcp.filesystem.read_text_file({ path: args.root + "/a.md" }),
  mcp.filesystem.read_text_file({ path: args.root + "/b.md" }),
]);
const c = await mcp.filesystem.read_text_file({ path: args.root + "/c.md" });
const d = await mcp.filesystem.read_text_file({ path: args.root + "/d.md" });
const listing = await mcp.filesystem.list_directory({ path: args.root });
const lines = [a.content, b.content, c.content, d.content].map(t => t.split("\n").length);
return { files: listing.content.split("\n").length, lines, first: a.content.split("\n")[0] };
