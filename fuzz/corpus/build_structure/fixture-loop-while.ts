// covers: while loop containing an MCP call; a `let` counter (not a literal binding).
// expect: 2 nodes. l1 loop (while, condition `remaining > 0`, arguments remaining=reference `remaining`); n1 task everything:longRunningOperation duration=literal 1, steps=literal 2, scope l1.
//   edges: l1->n1 sequence (into the body). literalBindings {} (`remaining` is a mutated let). No node for `remaining--`.
let remaining = args.count;
while (remaining > 0) {
  await mcp.everything.longRunningOperation({ duration: 1, steps: 2 });
  remaining--;
}
