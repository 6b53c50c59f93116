// covers: TypeScript-only syntax around MCP calls and code ops: interface/type declarations, type annotations, `as` casts, non-null `!`, typed arrow parameters.
// expect: 3 nodes. n1 task filesystem:list_directory path=parameter(dir) (the `as string` cast is transparent);
//   n2 task code:filter, code `(listing.entries as Entry[]).filter((e: Entry) => e.size! > 0)`, listing=reference `n1`;
//   n3 task filesystem:get_file_info path=reference `n2[0].name` (`entries[0]!` is no op: `first` is the path binding "n2[0]").
//   edges: n1->n2, n2->n3 sequence. literalBindings {mode: "fast"}. variableBindings {listing: n1, entries: n2, first: "n2[0]"}.
//   Type declarations create no nodes and no diagnostics.
interface Entry {
  name: string;
  size?: number;
}
type Mode = "fast" | "safe";
const mode: Mode = "fast";
const listing = await mcp.filesystem.list_directory({ path: args.dir as string });
const entries: Entry[] = (listing.entries as Entry[]).filter((e: Entry) => e.size! > 0);
const first = entries[0]!;
await mcp.filesystem.get_file_info({ path: first.name });
