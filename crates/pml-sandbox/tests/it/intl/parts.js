// `Intl.NumberFormat.prototype.formatToParts`: `tests/it/intl.rs` runs this program in the sandbox
// and in Node and compares the results.
const out = [];
const t = (f) => { try { out.push(f()); } catch (e) { out.push([e.name, e.message]); } };
const values = [-1234567.891, 0.256, 0, -0, 12, NaN, -Infinity, 1234.5, 1e21, "12.50"];
const everywhere = [{}, { style: "percent", signDisplay: "always" }, { notation: "compact" }, { minimumFractionDigits: 2 }, { useGrouping: false },
  { style: "percent" }, { signDisplay: "exceptZero" }, { notation: "compact", signDisplay: "always", maximumFractionDigits: 2 }];
for (const locale of ["en", "en-US", "de", "fr", "sv", "he", "en-IN", "ja", "es", "it", "nl", "pt-BR", "ru", "pl", "de-CH"]) {
  for (const o of everywhere) t(() => values.map((v) => new Intl.NumberFormat(locale, o).formatToParts(v)));
}
// Digits of another script.
for (const o of [{}, { minimumFractionDigits: 2 }, { signDisplay: "always" }]) t(() => values.filter((v) => v === v).map((v) => new Intl.NumberFormat("ar-EG", o).formatToParts(v)));
for (const locale of ["en", "ja", "zh", "ko", "hi", "nl", "tr", "en-GB"]) {
  t(() => values.map((v) => new Intl.NumberFormat(locale, { notation: "compact", compactDisplay: "long" }).formatToParts(v)));
}
for (const [locale, currency] of [["en-US", "USD"], ["en-GB", "EUR"], ["en-IN", "INR"], ["de-DE", "EUR"], ["fr-FR", "EUR"], ["es-ES", "EUR"],
  ["it-IT", "EUR"], ["nl-NL", "EUR"], ["pt-BR", "BRL"], ["ja-JP", "JPY"], ["en-CA", "CAD"], ["en-US", "JPY"]]) {
  for (const o of [{}, { currencyDisplay: "code" }, { currencyDisplay: "narrowSymbol" }, { signDisplay: "always" }]) {
    t(() => values.map((v) => new Intl.NumberFormat(locale, { style: "currency", currency, ...o }).formatToParts(v)));
  }
}
t(() => values.map((v) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencySign: "accounting" }).formatToParts(v)));
t(() => values.map((v) => new Intl.NumberFormat("en", { style: "currency", currency: "USD", notation: "compact" }).formatToParts(v)));
t(() => [new Intl.NumberFormat("en").formatToParts(), new Intl.NumberFormat("en").formatToParts.length, new Intl.NumberFormat("en").formatToParts(12345678901234567890n)]);
return out;
