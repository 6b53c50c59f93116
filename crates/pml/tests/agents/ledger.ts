// covers: a helper with try/catch around a read that fails for one account (no card.csv), a loop that sums and breaks past a threshold, Promise.all over reads, a write then a read of what was written, a recursive walk over a directory listing, an early return on an empty walk
const root = args.root;
const config = JSON.parse((await mcp.filesystem.read_text_file({ path: `${root}/config.json` })).content);

async function rows(account: string): Promise<number[]> {
  try {
    const csv = await mcp.filesystem.read_text_file({ path: `${root}/inbox/${account}.csv` });
    return csv.content.trim().split("\n").slice(1).map((line) => Number(line.split(",")[1]));
  } catch (e) {
    return [];
  }
}

const totals: Record<string, number> = {};
for (const account of config.accounts) {
  const amounts = await rows(account);
  let sum = 0;
  for (const amount of amounts) {
    sum += amount;
    if (sum > config.threshold) break;
  }
  totals[account] = sum;
}

async function walk(dir: string, depth: number): Promise<string[]> {
  const listing = await mcp.filesystem.list_directory({ path: dir });
  const found: string[] = [];
  for (const line of listing.content.split("\n")) {
    const name = line.replace(/^\[(FILE|DIR)\] /, "");
    if (line.startsWith("[DIR]")) found.push(...(await walk(`${dir}/${name}`, depth + 1)));
    else if (line.startsWith("[FILE]")) found.push(`${depth}:${name}`);
  }
  return found.sort();
}
const files = await walk(`${root}/archive`, 0);
if (files.length === 0) return { totals, files: "none" };

const [cash, bank] = await Promise.all(["cash", "bank"].map((a) => mcp.filesystem.get_file_info({ path: `${root}/inbox/${a}.csv` }).then((i) => i.size ?? i.content?.length ?? 0).catch(() => -1)));
await mcp.filesystem.write_file({ path: `${root}/summary.json`, content: JSON.stringify({ totals, files }) });
const back = JSON.parse((await mcp.filesystem.read_text_file({ path: `${root}/summary.json` })).content);
return { totals: back.totals, files: back.files, sized: typeof cash === typeof bank };
