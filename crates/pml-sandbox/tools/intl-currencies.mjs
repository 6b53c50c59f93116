// Writes `src/intl_currencies.json`: how Node 20's ICU writes an amount of money in each locale
// pml formats currencies in: the patterns (`¤` the currency, `#` the number) of positive and
// negative amounts, standard and accounting, each currency's symbol and narrow symbol where it
// is not its code, each currency's number of fraction digits, and in English each currency's
// names (`currencyDisplay: "name"`). `intl.js` formats with them,
// putting ICU's no-break space between a currency that ends (or starts) with a letter and the
// digits. The script checks that this gives what Node gives for every currency, display and
// sign before it writes anything. Run with Node 20 (the version pml answers as):
//   node crates/pml-sandbox/tools/intl-currencies.mjs > crates/pml-sandbox/src/intl_currencies.json
const LOCALES = ["en-US", "en-GB", "en-CA", "en-AU", "en-IN", "de-DE", "fr-FR", "es-ES", "it-IT", "nl-NL", "pt-BR", "ja-JP"];
const CURRENCIES = Intl.supportedValuesOf("currency");

// The pattern of `value` formatted: every part before and after the number, the currency as ¤.
const patternOf = (locale, options, value) => {
  const parts = new Intl.NumberFormat(locale, { style: "currency", maximumFractionDigits: 0, ...options }).formatToParts(value);
  let out = "";
  let number = false;
  for (const p of parts) {
    if (p.type === "integer" || p.type === "group") {
      if (!number) out += "#";
      number = true;
    } else if (p.type === "currency") out += "¤";
    else out += p.value;
  }
  return out;
};
const symbolOf = (locale, currency, display) =>
  new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay: display }).formatToParts(1).find((p) => p.type === "currency").value;

// ICU's currency spacing: a no-break space between the currency and the digits where they touch
// and the currency's character next to them is not a symbol.
export const spaced = (pattern, symbol) => {
  const at = pattern.indexOf("¤");
  let out = pattern;
  if (pattern[at + 1] === "#" && !/[\p{S}\p{Z}]/u.test(symbol.at(-1))) out = out.replace("¤#", "¤\u00a0#");
  if (pattern[at - 1] === "#" && !/[\p{S}\p{Z}]/u.test(symbol[0])) out = out.replace("#¤", "#\u00a0¤");
  return out.replace("¤", symbol);
};

const out = { digits: {} };
for (const currency of CURRENCIES) {
  out.digits[currency] = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
}
for (const locale of LOCALES) {
  const patterns = {};
  for (const sign of ["standard", "accounting"]) {
    patterns[sign] = [1, -1].map((v) => patternOf(locale, { currency: "XXX", currencySign: sign, currencyDisplay: "narrowSymbol" }, v));
  }
  // A pattern written with a symbol next to the digits, without spacing: from a currency whose
  // symbol is a sign. Checked below against every currency.
  for (const sign of ["standard", "accounting"]) {
    patterns[sign] = [1, -1].map((v) => patternOf(locale, { currency: "EUR", currencySign: sign, currencyDisplay: "narrowSymbol" }, v));
  }
  // The digits as the locale's decimal numbers group them, or the sign's pattern is left out
  // (en-IN's accounting pattern groups by three where its numbers group by lakhs).
  for (const sign of ["standard", "accounting"]) {
    const digits = (f) => f.formatToParts(12345678.5).filter((p) => !["currency", "literal", "minusSign"].includes(p.type)).map((p) => p.value).join("");
    const money = digits(new Intl.NumberFormat(locale, { style: "currency", currency: "EUR", currencySign: sign }));
    const plain = digits(new Intl.NumberFormat(locale, { minimumFractionDigits: 2 }));
    if (money !== plain) patterns[sign] = null;
  }
  const symbols = { symbol: {}, narrowSymbol: {} };
  for (const display of ["symbol", "narrowSymbol"]) {
    for (const currency of CURRENCIES) {
      const symbol = symbolOf(locale, currency, display);
      if (symbol !== currency) symbols[display][currency] = symbol;
    }
  }
  for (const display of ["symbol", "narrowSymbol", "code"]) for (const currency of [...CURRENCIES, "ABC"]) for (const sign of ["standard", "accounting"]) {
    if (patterns[sign] === null) continue;
    [1, -1].forEach((v, i) => {
      const node = new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay: display, currencySign: sign, maximumFractionDigits: 0 }).format(v);
      const symbol = display === "code" ? currency : symbols[display][currency] ?? currency;
      const ours = spaced(patterns[sign][i], symbol).replace("#", "1");
      if (ours !== node) throw new Error(`${locale} ${currency} ${display} ${sign} ${v}: ${JSON.stringify(ours)} but Node ${JSON.stringify(node)}`);
    });
  }
  // English names (`currencyDisplay: "name"`): the number, a space and the currency's name in
  // the plural form of the number's digits ("1 US dollar", "1.00 US dollars"); checked below.
  let names = null;
  if (locale.startsWith("en-")) {
    names = { one: {}, other: {} };
    for (const currency of CURRENCIES) {
      const nameOf = (digits) => new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay: "name", minimumFractionDigits: digits, maximumFractionDigits: digits })
        .formatToParts(1).find((p) => p.type === "currency").value;
      const one = nameOf(0);
      const other = nameOf(2);
      if (one !== currency) names.one[currency] = one;
      if (other !== currency) names.other[currency] = other;
    }
    for (const currency of [...CURRENCIES, "ABC"]) for (const v of [1, -1, 2, 0, 1.5, -0, 1234.5]) for (const digits of [0, 2]) {
      const node = new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay: "name", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
      const number = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
      const form = number.replace(/^-/, "") === "1" ? "one" : "other";
      const ours = `${number} ${names[form][currency] ?? currency}`;
      if (ours !== node) throw new Error(`${locale} ${currency} name ${v}: ${JSON.stringify(ours)} but Node ${JSON.stringify(node)}`);
    }
  }
  out[locale] = { patterns, symbols, names };
}
process.stdout.write(JSON.stringify(out) + "\n");
