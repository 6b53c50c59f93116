// Writes `src/intl_zones.json`: the time zones `Intl.DateTimeFormat` accepts in Node 20 and
// what it writes for them in the locales pml formats dates in. `intl.js` computes a date's
// fields in a zone from the zone's offset at that instant (`zoneOffset`, `src/intl.rs`, over
// the IANA database `jiff` bundles); this table gives the rest, as ICU has it:
// - `ids`: every name accepted (lower case) and the ID it resolves to (`US/Eastern` is
//   `America/New_York`, `Asia/Kolkata` is ICU's `Asia/Calcutta`), from the names of the
//   machine's IANA database (`/usr/share/zoneinfo`) and Node's own list;
// - `names`: per locale and zone, for each offset (minutes east of UTC) the zone had in
//   2000-2035, its short and long specific names (`EDT`, `Eastern Daylight Time`; `GMT+1`
//   where the locale has no abbreviation), and its generic names (`ET`, `Eastern Time`);
//   `null` where a name depends on more than the offset in those years (pml then throws
//   rather than answer otherwise); a locale other than en-US lists only the zones whose
//   names differ from en-US's;
// - `supported`: what `Intl.supportedValuesOf` answers for each of its keys.
// Run with Node 20 (the version pml answers as):
//   node crates/pml-sandbox/tools/intl-zones.mjs > crates/pml-sandbox/src/intl_zones.json
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const LOCALES = ["en-US", "en-GB", "en-CA", "en-AU", "en-IN", "en-NZ", "en-IE", "en-ZA", "en-SG"];
const FIRST_YEAR = 2020;
const LAST_YEAR = 2035;

const candidates = new Set(Intl.supportedValuesOf("timeZone"));
const walk = (dir, prefix) => {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const name = prefix === "" ? entry : `${prefix}/${entry}`;
    if (statSync(path).isDirectory()) {
      if (!["posix", "right"].includes(name)) walk(path, name);
    } else if (/^[A-Za-z]/.test(entry) && !entry.includes(".")) {
      candidates.add(name);
    }
  }
};
walk("/usr/share/zoneinfo", "");

const ids = {};
for (const name of [...candidates].sort()) {
  let resolved;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    continue;
  }
  if (resolved === "UTC") continue; // `intl.js` knows UTC's names itself
  ids[name.toLowerCase()] = resolved;
}
const zones = [...new Set(Object.values(ids))].sort();

// The offset `GMT-04:00` (or `GMT`) as minutes east of UTC.
const minutesOf = (text) => {
  if (text === "GMT") return 0;
  const m = /^GMT([+-])(\d\d):(\d\d)$/.exec(text);
  if (m === null) return undefined;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
};
const zoneName = (locale, zone, style, t) =>
  new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: style }).formatToParts(t).find((p) => p.type === "timeZoneName").value;

const names = {};
for (const locale of LOCALES) {
  const table = {};
  for (const zone of zones) {
    const byOffset = new Map();
    const generic = new Set();
    let consistent = true;
    for (let year = FIRST_YEAR; year <= LAST_YEAR && consistent; year++) {
      for (const month of [0, 3, 6, 9]) {
        const t = Date.UTC(year, month, 15, 12);
        const offset = minutesOf(zoneName(locale, zone, "longOffset", t));
        if (offset === undefined) { consistent = false; break; }
        const specific = [zoneName(locale, zone, "short", t), zoneName(locale, zone, "long", t)];
        const known = byOffset.get(offset);
        if (known === undefined) byOffset.set(offset, specific);
        else if (known[0] !== specific[0] || known[1] !== specific[1]) { consistent = false; break; }
        generic.add(JSON.stringify([zoneName(locale, zone, "shortGeneric", t), zoneName(locale, zone, "longGeneric", t)]));
      }
    }
    if (!consistent || generic.size !== 1) { table[zone] = null; continue; }
    table[zone] = {
      offsets: [...byOffset].sort((a, b) => a[0] - b[0]).map(([offset, [short, long]]) => [offset, short, long]),
      generic: JSON.parse([...generic][0]),
    };
  }
  names[locale] = table;
}
for (const locale of LOCALES.slice(1)) {
  for (const zone of zones) {
    if (JSON.stringify(names[locale][zone]) === JSON.stringify(names["en-US"][zone])) delete names[locale][zone];
  }
}
const supported = {};
for (const key of ["calendar", "collation", "currency", "numberingSystem", "timeZone", "unit"]) supported[key] = Intl.supportedValuesOf(key);
process.stdout.write(JSON.stringify({ first: FIRST_YEAR, last: LAST_YEAR, ids, names, supported }) + "\n");
