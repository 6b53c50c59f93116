// covers: a reply thread read from a file and rebuilt as a tree nested about 190 levels deep (past serde_json's 128), returned whole, written back as JSON and read again, and its deepest reply found by a recursive helper
const root = args.root;
const { channel, messages } = JSON.parse(
  (await mcp.filesystem.read_text_file({ path: `${root}/thread.json` })).content,
);

type Reply = { id: number; author: string; text: string; replies: Reply[] };
const byId = new Map<number, Reply>();
for (const m of messages) byId.set(m.id, { id: m.id, author: m.author, text: m.text, replies: [] });
let first: Reply | undefined;
for (const m of messages) {
  const reply = byId.get(m.id)!;
  if (m.parent === null) first = reply;
  else byId.get(m.parent)!.replies.push(reply);
}

function deepest(r: Reply, depth: number): { id: number; depth: number } {
  let best = { id: r.id, depth };
  for (const child of r.replies) {
    const d = deepest(child, depth + 1);
    if (d.depth > best.depth) best = d;
  }
  return best;
}

await mcp.filesystem.write_file({ path: `${root}/tree.json`, content: JSON.stringify(first) });
const again = JSON.parse((await mcp.filesystem.read_text_file({ path: `${root}/tree.json` })).content);
return { channel, deepest: deepest(first!, 0), same: JSON.stringify(again) === JSON.stringify(first), thread: first };
