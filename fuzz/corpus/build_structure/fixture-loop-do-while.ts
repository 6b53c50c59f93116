// covers: do..while loop whose body has two MCP calls in sequence.
// expect: 3 nodes. l1 loop (doWhile, condition `attempts < 3`, arguments attempts=reference `attempts`); n1 task everything:longRunningOperation duration=literal 2, steps=literal 4, scope l1;
//   n2 task everything:echo message=literal "tick", scope l1.
//   edges: l1->n1 sequence (into the body); n1->n2 sequence. literalBindings {} (`attempts` is a mutated let: a reference by name).
let attempts = 0;
do {
  await mcp.everything.longRunningOperation({ duration: 2, steps: 4 });
  await mcp.everything.echo({ message: "tick" });
  attempts++;
} while (attempts < 3);
