// Amounts of money (`style: "currency"`) in each locale pml has currencies for: symbols,
// narrow symbols and codes (with ICU's spacing), accounting signs, fraction digits of each
// currency and as asked, against what Node writes; errors by their messages.
const out = [];
const t = (f) => { try { out.push(f()); } catch (e) { out.push(`${e.name}: ${e.message}`); } };
const values = [1234.5, -1234.5, 0, -0, 0.005, -0.004, 1e21, NaN, Infinity, -Infinity, 1234567.891, 12, "1234.5678", 10n ** 20n, -5n];
const options = [{}, { currencyDisplay: "code" }, { currencyDisplay: "narrowSymbol" }, { currencySign: "accounting" }, { maximumFractionDigits: 0 }, { minimumFractionDigits: 3 }, { maximumFractionDigits: 1 }, { useGrouping: false }, { maximumSignificantDigits: 3 }];
for (const locale of ["en-US", "en", "en-GB", "de-DE", "fr-FR", "es-ES", "ja-JP", "en-IN", "nl-NL", "pt-BR", "it-IT", "en-CA", "en-AU"]) {
  for (const currency of ["USD", "EUR", "GBP", "JPY", "CHF", "INR", "CAD", "AUD", "BHD", "XYZ", "usd", "BRL", "CNY", "KRW", "MXN"]) {
    for (const o of options) {
      // en-IN's accounting pattern groups otherwise than its numbers: pml refuses it.
      if (locale === "en-IN" && o.currencySign === "accounting") continue;
      t(() => {
        const f = new Intl.NumberFormat(locale, { style: "currency", currency, ...o });
        return [locale, currency, o, values.map((v) => f.format(v)), f.resolvedOptions()];
      });
    }
  }
  t(() => values.map((v) => v.toLocaleString(locale, { style: "currency", currency: "EUR" })));
}
t(() => new Intl.NumberFormat("en", { style: "currency" }));
t(() => new Intl.NumberFormat("en", { style: "currency", currency: "US" }));
t(() => new Intl.NumberFormat("en", { style: "currency", currency: "U$D" }));
t(() => new Intl.NumberFormat("en", { currency: "USD" }).format(5));
t(() => new Intl.NumberFormat("en", { style: "currency", currency: "USD", currencyDisplay: "nam" }));
t(() => `Total: ${(1234.5).toLocaleString("en-US", { style: "currency", currency: "USD" })}`);
// Names (English): the plural form of the digits written.
for (const locale of ["en", "en-US", "en-GB", "en-CA", "en-AU", "en-IN"]) {
  for (const currency of ["USD", "EUR", "JPY", "GBP", "INR", "CHF", "XYZ", "usd"]) {
    t(() => [1, 1.5, 2, 0, -1, -0, 1234567.891, NaN, Infinity, 0.999].map((v) => new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay: "name" }).format(v)));
  }
}
t(() => [{ minimumFractionDigits: 0 }, { maximumFractionDigits: 0 }, { notation: "compact" }, { signDisplay: "always" }, { currencySign: "accounting" }, { signDisplay: "exceptZero" }]
  .map((o) => [1, -5, 1234, 0].map((v) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencyDisplay: "name", ...o }).format(v))));
t(() => [-1234.5, 1, 2].map((v) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencyDisplay: "name" }).formatToParts(v)));
t(() => new Intl.NumberFormat("en-GB", { style: "currency", currency: "EUR", currencyDisplay: "name" }).resolvedOptions());
return out;
