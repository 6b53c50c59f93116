// Writes `src/intl_compact.json`: how Node 20's ICU writes numbers in compact notation
// (`notation: "compact"`) in each locale pml formats numbers in, for `compactDisplay` "short"
// and "long": for every magnitude of the number (0 for 1-9 ... 19 for 10^19 and more), the
// power of ten its digits are divided by and the pattern around them (`#` the digits:
// `#K`, `# thousand`). A locale whose pattern depends on more than the magnitude (the plural
// form of the digits: `2 Millionen`, `1,5 millier`) or puts text before the digits has
// `null` for that display: pml throws rather than answer otherwise. `intl.js` and
// `format_number` (`src/intl.rs`) round the digits as ICU does (the magnitude chosen again
// when rounding carries into the next one). The script checks that this gives what Node gives
// for every locale, value and option below before it writes anything. Run with Node 20 (the
// version pml answers as):
//   node crates/pml-sandbox/tools/intl-compact.mjs > crates/pml-sandbox/src/intl_compact.json
import percent from "../src/intl_percent.json" with { type: "json" };

const LOCALES = Object.keys(percent);
const MAX_MAGNITUDE = 19;
const DISPLAYS = ["short", "long"];
// The digits of a number `v` x 10^e without rounding, and the text around them.
const shape = (locale, display, digits, e) => {
  const f = new Intl.NumberFormat(locale, { notation: "compact", compactDisplay: display, maximumSignificantDigits: 21 });
  const parts = f.formatToParts(`${digits}e${e}`);
  let pattern = "";
  let number = "";
  let open = false;
  let closed = false;
  for (const p of parts) {
    if (["integer", "group", "decimal", "fraction"].includes(p.type)) {
      if (closed) return null; // digits in two places
      if (!open) pattern += "#";
      open = true;
      number += p.type === "group" ? "" : p.type === "decimal" ? "." : p.value;
    } else {
      if (open) closed = true;
      pattern += p.value;
    }
  }
  return { pattern, number };
};
const MANTISSAS = ["1", "1.1", "1.5", "2", "2.1", "2.2", "2.5", "3", "4", "5", "7", "9.9"];
const table = (locale, display) => {
  const out = [];
  for (let e = 0; e <= MAX_MAGNITUDE + 4; e++) {
    let entry;
    for (const m of MANTISSAS) {
      const s = shape(locale, display, m, e);
      if (s === null || s.pattern.indexOf("#") !== 0) return null;
      // The power of ten the number was divided by: its magnitude less the digits'.
      const shown = Number(s.number);
      const divisor = e - Math.floor(Math.log10(shown) + 1e-9);
      if (Number(s.number) !== Number(`${m}e${e - divisor}`)) return null;
      const here = [divisor, s.pattern];
      if (entry === undefined) entry = here;
      else if (entry[0] !== here[0] || entry[1] !== here[1]) return null;
    }
    if (e <= MAX_MAGNITUDE) out.push(entry);
    else if (entry[0] !== out[MAX_MAGNITUDE][0] || entry[1] !== out[MAX_MAGNITUDE][1]) return null;
  }
  return out;
};

const out = {};
for (const locale of LOCALES) {
  const entry = {};
  for (const display of DISPLAYS) entry[display] = table(locale, display);
  if (entry.short !== null || entry.long !== null) out[locale] = entry;
}

// The check: pml's way (intl.js and format_number) with Node's own decimal formatting.
const magnitudeOf = (digits) => {
  // `digits`: a decimal string without sign; the power of ten of its first nonzero digit.
  const [m, exp = "0"] = digits.split("e");
  const [whole, fraction = ""] = m.split(".");
  const w = whole.replace(/^0+/, "");
  if (w !== "") return w.length - 1 + Number(exp);
  const lead = fraction.match(/^0*/)[0].length;
  return -lead - 1 + Number(exp);
};
// Rounds the decimal `digits` (no sign) as the resolved options say, as format_number does.
const rounded = (digits, r) => {
  const top = magnitudeOf(digits);
  const sig = r.maximumSignificantDigits !== undefined;
  const frac = r.maximumFractionDigits !== undefined;
  let useSig = sig;
  if (sig && frac) useSig = top - r.maximumSignificantDigits + 1 <= -r.maximumFractionDigits;
  const options = useSig
    ? { minimumSignificantDigits: r.minimumSignificantDigits, maximumSignificantDigits: r.maximumSignificantDigits }
    : { minimumFractionDigits: r.minimumFractionDigits, maximumFractionDigits: r.maximumFractionDigits };
  // Node's own rounding, read back as a plain decimal.
  const plain = new Intl.NumberFormat("en", { ...options, useGrouping: false, minimumIntegerDigits: 1 }).format(digits);
  return { plain, options };
};
const ours = (locale, options, x) => {
  const f = new Intl.NumberFormat(locale, { notation: "compact", ...options });
  const r = f.resolvedOptions();
  const data = out[locale][r.compactDisplay];
  if (typeof x === "number" && (x === 0 || !Number.isFinite(x))) {
    return new Intl.NumberFormat(locale, { ...options, notation: "standard", useGrouping: r.useGrouping }).format(x);
  }
  const text = typeof x === "number" ? String(x) : x;
  const negative = text[0] === "-";
  let digits = negative ? text.slice(1) : text;
  const shift = (d, by) => {
    const [m, exp = "0"] = d.split("e");
    return `${m}e${Number(exp) + by}`;
  };
  const m = magnitudeOf(digits);
  const at = (k) => data[Math.max(0, Math.min(k, MAX_MAGNITUDE))];
  let divisor = m < 0 ? 0 : at(m)[0];
  let result = rounded(shift(digits, -divisor), r);
  // Rounding carried into the next magnitude, whose divisor differs: the rounded digits are
  // divided again and rounded again (ICU's `chooseMultiplierAndApply`).
  if (Number(result.plain) !== 0 && magnitudeOf(result.plain) !== m - divisor && m + 1 >= 0 && at(m + 1)[0] !== divisor) {
    const next = at(m + 1)[0];
    result = rounded(shift(result.plain, divisor - next), r);
    divisor = next;
  }
  const magnitude = Number(result.plain) === 0 ? 0 : magnitudeOf(result.plain) + divisor;
  const number = new Intl.NumberFormat(locale, { ...result.options, useGrouping: r.useGrouping, minimumIntegerDigits: r.minimumIntegerDigits })
    .format(`${negative ? "-" : ""}${result.plain}`);
  return magnitude < 0 ? number : at(magnitude)[1].replace("#", () => number);
};
const VALUES = [0, -0, 0.5, 0.123, 0.00001234, 1, 9.99, 12.345, 99.5, 99.96, 999, 999.5, 999.9, 1000, 1234, 1500, 9950, 9999,
  12345, 99950, 99999, 123456, 999999, 1e6, 1234567, -1234567, 1e9, 1.5e12, 1e15, 1.234e16, 1e18, 1e21, NaN, Infinity, -Infinity,
  "123456789012345678901234567890", "-0.0001", "9999999"];
const OPTIONS = [{}, { maximumFractionDigits: 1 }, { maximumSignificantDigits: 3 }, { minimumFractionDigits: 2 }, { useGrouping: true },
  { useGrouping: false }, { minimumIntegerDigits: 3 }, { minimumSignificantDigits: 2 }];
let wrong = 0;
for (const [locale, tables] of Object.entries(out)) {
  for (const display of DISPLAYS) {
    if (tables[display] === null) continue;
    for (const o of OPTIONS) {
      const options = { compactDisplay: display, ...o };
      for (const v of VALUES) {
        const node = new Intl.NumberFormat(locale, { notation: "compact", ...options }).format(v);
        const mine = ours(locale, options, v);
        if (mine !== node) {
          wrong++;
          if (wrong < 20) console.error(`${locale} ${JSON.stringify(options)} ${v}: ours ${JSON.stringify(mine)}, node ${JSON.stringify(node)}`);
        }
      }
    }
  }
}
if (wrong > 0) {
  console.error(`${wrong} differ`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + "\n");
