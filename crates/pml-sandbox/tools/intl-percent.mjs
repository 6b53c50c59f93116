// Writes `src/intl_percent.json`: how Node 20's ICU writes a percentage in each locale pml
// formats numbers in: the patterns (`#` the number) of positive and negative percentages, and
// the locale's words for NaN and infinity. `intl.js` puts the digits pml's decimal formatter
// writes for the absolute value into them. The script checks that this gives what Node gives
// for every locale and value before it writes anything. Run with Node 20 (the version pml
// answers as):
//   node crates/pml-sandbox/tools/intl-percent.mjs > crates/pml-sandbox/src/intl_percent.json
const LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pt", "ja", "zh", "ko", "ru", "pl", "sv", "da", "fi", "nb", "cs", "tr", "el", "hu", "ro", "uk", "id", "vi", "th", "he", "ar", "hi", "ca", "sk", "sl", "hr", "bg", "lt", "lv", "et", "ms", "fil", "sr", "is", "ga"];
const REGIONS = {
  en: ["US", "GB", "CA", "AU", "IN", "IE", "NZ", "ZA", "SG", "DE", "CH", "NL", "SE"],
  de: ["DE", "AT", "CH", "LU", "BE"],
  fr: ["FR", "CA", "BE", "CH", "LU"],
  es: ["ES", "MX", "AR", "CO", "CL", "US", "419"],
  it: ["IT", "CH"],
  nl: ["NL", "BE"],
  pt: ["BR", "PT"],
  zh: ["CN", "TW", "HK"],
  sv: ["SE", "FI"],
};
const LOCALES = [];
for (const language of LANGUAGES) {
  LOCALES.push(language);
  // The region the language is most likely spoken in (`ja-JP`, `ru-RU`), and those listed.
  const likely = new Intl.Locale(language).maximize().region;
  for (const region of new Set([likely, ...(REGIONS[language] ?? [])])) LOCALES.push(`${language}-${region}`);
}
// Other regions of these languages: the language's pattern is not theirs in every case.
const patternOf = (locale, value) => {
  const parts = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).formatToParts(value);
  let out = "";
  let number = false;
  for (const p of parts) {
    if (["integer", "group", "decimal", "fraction", "nan", "infinity"].includes(p.type)) {
      if (!number) out += "#";
      number = true;
    } else out += p.value;
  }
  return out;
};
const wordOf = (locale, value, type) =>
  new Intl.NumberFormat(locale, { style: "percent" }).formatToParts(value).find((p) => p.type === type).value;

const out = {};
for (const locale of LOCALES) {
  const resolved = new Intl.NumberFormat(locale).resolvedOptions();
  if (resolved.numberingSystem !== "latn") continue; // pml writes Latin digits only.
  out[locale] = {
    positive: patternOf(locale, 0.25),
    negative: patternOf(locale, -0.25),
    nan: wordOf(locale, NaN, "nan"),
    infinity: wordOf(locale, Infinity, "infinity"),
  };
}
// The check: the patterns around Node's own decimal digits of 100x the absolute value.
const VALUES = [0, -0, 0.25, -0.25, 0.256, 1, 12.3456, -1234.5678, 0.0001, 1e6, NaN, Infinity, -Infinity];
const OPTIONS = [{}, { maximumFractionDigits: 2 }, { minimumFractionDigits: 1 }, { maximumSignificantDigits: 3 }, { useGrouping: false }];
let wrong = 0;
for (const [locale, p] of Object.entries(out)) {
  for (const options of OPTIONS) {
    const percent = new Intl.NumberFormat(locale, { style: "percent", ...options });
    const r = percent.resolvedOptions();
    const digitOptions = r.minimumSignificantDigits !== undefined
      ? { minimumSignificantDigits: r.minimumSignificantDigits, maximumSignificantDigits: r.maximumSignificantDigits }
      : { minimumFractionDigits: r.minimumFractionDigits, maximumFractionDigits: r.maximumFractionDigits };
    const decimal = new Intl.NumberFormat(locale, { ...digitOptions, useGrouping: r.useGrouping });
    for (const v of VALUES) {
      const negative = v < 0 || Object.is(v, -0);
      const abs = Math.abs(v) * 100;
      const digits = Number.isNaN(v) ? p.nan : !Number.isFinite(v) ? p.infinity : decimal.format(abs);
      const ours = (negative && !Number.isNaN(v) ? p.negative : p.positive).replace("#", digits);
      const node = percent.format(v);
      if (ours !== node) {
        wrong++;
        if (wrong < 20) console.error(`${locale} ${JSON.stringify(options)} ${v}: ours ${JSON.stringify(ours)}, node ${JSON.stringify(node)}`);
      }
    }
  }
}
if (wrong > 0) {
  console.error(`${wrong} differ`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
