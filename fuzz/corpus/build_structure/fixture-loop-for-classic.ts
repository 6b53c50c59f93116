// covers: classic for(;;) loop; the loop counter as argument; a literal const used in the loop test.
// expect: 2 nodes. l1 loop (for, test `i < pages`, arguments pages=literal 3); n1 task api:fetch_page page=reference `i`, size=literal 50, scope l1.
//   edges: l1->n1 sequence (into the body). literalBindings {pages: 3}. No code:lessThan node for the loop test, no node for `i++`.
const pages = 3;
for (let i = 0; i < pages; i++) {
  await mcp.api.fetch_page({ page: i, size: 50 });
}
