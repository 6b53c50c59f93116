// Writes `src/intl_units.json`: how Node 20's ICU writes a number with a unit
// (`style: "unit"`) in the English locales pml formats units in: for each unit ECMA-402
// sanctions and each `unitDisplay`, the pattern (`#` the number) for the plural forms "one"
// and "other" (`# kilobyte`, `# kilobytes`; `#kB`). `intl.js` puts the number pml's decimal
// formatter writes into the pattern of its digits' form (one when they are `1`). The script
// checks that this gives what Node gives for every unit, display and value before it writes
// anything. Compound units (`kilometer-per-hour`) are not in it. Run with Node 20:
//   node crates/pml-sandbox/tools/intl-units.mjs > crates/pml-sandbox/src/intl_units.json
const LOCALES = ["en-US", "en-GB", "en-CA", "en-AU", "en-IN"];
const UNITS = Intl.supportedValuesOf("unit");
const DISPLAYS = ["short", "long", "narrow"];
const NUMBER = ["integer", "group", "decimal", "fraction", "minusSign", "plusSign", "nan", "infinity"];
const patternOf = (locale, unit, display, value) => {
  let out = "";
  let number = false;
  for (const p of new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: display }).formatToParts(value)) {
    if (NUMBER.includes(p.type)) {
      if (!number) out += "#";
      number = true;
    } else out += p.value;
  }
  return out;
};
const out = {};
for (const locale of LOCALES) {
  const table = {};
  for (const display of DISPLAYS) {
    table[display] = {};
    for (const unit of UNITS) {
      const one = patternOf(locale, unit, display, 1);
      const other = patternOf(locale, unit, display, 2);
      table[display][unit] = one === other ? one : [one, other];
    }
  }
  out[locale] = table;
}
// The check: the pattern of the digits' form around Node's own digits.
let wrong = 0;
for (const locale of LOCALES) for (const display of DISPLAYS) for (const unit of UNITS) {
  for (const v of [1, -1, 2, 0, 1.5, 1234.5, -0, 0.999, 1e21, NaN, Infinity]) {
    const node = new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: display }).format(v);
    const number = new Intl.NumberFormat(locale).format(v);
    const entry = out[locale][display][unit];
    const pattern = typeof entry === "string" ? entry : entry[number.replace(/^-/, "") === "1" ? 0 : 1];
    const ours = pattern.replace("#", () => number);
    if (ours !== node) {
      wrong++;
      if (wrong < 20) console.error(`${locale} ${unit} ${display} ${v}: ours ${JSON.stringify(ours)}, node ${JSON.stringify(node)}`);
    }
  }
}
if (wrong > 0) {
  console.error(`${wrong} differ`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + "\n");
