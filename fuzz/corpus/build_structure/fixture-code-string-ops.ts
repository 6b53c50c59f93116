// covers: string pure ops: split, trim, trimStart, trimEnd, toLowerCase, toUpperCase, replace (regex), replaceAll, substring, substr, match, matchAll.
// expect: 14 nodes, sequence chain n1->...->n14. n1 task filesystem:read_text_file path=literal "notes/today.md";
//   n2 code:split `file.content.split("\n")`; n3 code:trim `lines[0].trim()`; n4 code:trimStart; n5 code:trimEnd; n6 code:toLowerCase; n7 code:toUpperCase;
//   n8 code:replace `lower.replace(/\s+/g, "-")`; n9 code:replaceAll; n10 code:substring; n11 code:substr; n12 code:match; n13 code:matchAll;
//   n14 task everything:echo message=reference `n10`.
//   variableBindings include file n1, lines n2, title n3, lower n6, slug n8, clean n9, short n10, tags n12, mentions n13.
const file = await mcp.filesystem.read_text_file({ path: "notes/today.md" });
const lines = file.content.split("\n");
const title = lines[0].trim();
const left = title.trimStart();
const right = title.trimEnd();
const lower = title.toLowerCase();
const upper = title.toUpperCase();
const slug = lower.replace(/\s+/g, "-");
const clean = slug.replaceAll("--", "-");
const short = clean.substring(0, 24);
const legacy = clean.substr(0, 8);
const tags = file.content.match(/#[a-z]+/g);
const mentions = file.content.matchAll(/@(\w+)/g);
await mcp.everything.echo({ message: short });
