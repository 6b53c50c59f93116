// Writes `src/intl_relative.json`: how Node 20's ICU writes a relative time
// (`Intl.RelativeTimeFormat`) in each English locale pml formats them in, per style and unit
// (years to seconds): the patterns of one and of many (`{0}` the number) in the future and in
// the past, then the words `numeric: "auto"` uses for -1, 0 and 1 (null where there is none).
// `intl.js` formats with them and the locale's numbers. The script checks that this gives what
// Node gives for every locale, style, unit and a range of values before it writes anything.
// Run with Node 20 (the version pml answers as):
//   node crates/pml-sandbox/tools/intl-relative.mjs > crates/pml-sandbox/src/intl_relative.json
const LOCALES = ["en", "en-GB", "en-CA", "en-AU", "en-IN"];
const STYLES = ["long", "short", "narrow"];
const UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second"];

// The pattern of `value` formatted: its literal parts around `{0}`, the number.
const patternOf = (format, value, unit) => {
  let out = "";
  let number = false;
  for (const p of format.formatToParts(value, unit)) {
    if (p.type === "literal") out += p.value;
    else if (!number) {
      out += "{0}";
      number = true;
    }
  }
  return out;
};

const table = {};
for (const locale of LOCALES) {
  table[locale] = {};
  for (const style of STYLES) {
    const always = new Intl.RelativeTimeFormat(locale, { style });
    const auto = new Intl.RelativeTimeFormat(locale, { style, numeric: "auto" });
    table[locale][style] = UNITS.map((unit) => {
      const row = [patternOf(always, 1, unit), patternOf(always, 2, unit), patternOf(always, -1, unit), patternOf(always, -2, unit)];
      for (const v of [-1, 0, 1]) {
        const word = auto.format(v, unit);
        row.push(/\d/.test(word) ? null : word);
      }
      return row;
    });
  }
}

// What intl.js does with the table.
const format = (locale, style, numeric, value, unit) => {
  const row = table[locale][style][UNITS.indexOf(unit)];
  const past = value < 0 || Object.is(value, -0);
  const text = new Intl.NumberFormat(locale).format(Math.abs(value));
  if (numeric === "auto") {
    const word = text === "0" ? row[5] : text === "1" ? row[past ? 4 : 6] : null;
    if (word !== null) return word;
  }
  return row[(past ? 2 : 0) + (text === "1" ? 0 : 1)].replace("{0}", text);
};
for (const locale of LOCALES) {
  for (const style of STYLES) {
    for (const numeric of ["always", "auto"]) {
      const node = new Intl.RelativeTimeFormat(locale, { style, numeric });
      for (const unit of UNITS) {
        for (const value of [-1234567.891, -2, -1.5, -1, -0.9999, -0.0004, -0, 0, 0.0001, 1, 1.0000001, 2, 3.25, 1e21]) {
          const ours = format(locale, style, numeric, value, unit);
          const theirs = node.format(value, unit);
          if (ours !== theirs) throw new Error(`${locale} ${style} ${numeric} ${value} ${unit}: ${ours} !== ${theirs}`);
        }
      }
    }
  }
}
console.log(JSON.stringify(table));
