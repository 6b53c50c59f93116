// covers: provides edge, coverage "optional": A's outputs meet only optional inputs of B (tools.json).
// expect: 2 nodes. n1 task search:find query=parameter(q); n2 task search:more session=parameter(session), cursor=reference `n1.cursor`.
//   edges: n1->n2 sequence; n1->n2 provides coverage "optional" (outputs ∩ inputs = {cursor}, optional in B; required `session` not provided).
//   No provides n2->n1.
const first = await mcp.search.find({ query: args.q });
const next = await mcp.search.more({ session: args.session, cursor: first.cursor });
