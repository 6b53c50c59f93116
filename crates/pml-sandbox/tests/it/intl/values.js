// Collation and number formatting for the default locale (and a few others): `tests/it/intl.rs`
// runs this program in the sandbox and in Node and compares the results.
const out = [];
const t = (f) => {
  try {
    out.push(f());
  } catch (e) {
    out.push([e.name, e.message]);
  }
};
const words = ["B", "a", "b", "A", "á", "c", "Zoë", "zoe", "Zoe", "zoë", "ZOE", "_a", "-a", "1", "é", "ae", "æ", "Å", "z", "ß", "ss"];
t(() => [...words].sort((x, y) => x.localeCompare(y)));
t(() => [...words].sort(new Intl.Collator().compare));
t(() => [...words].sort(new Intl.Collator("en", { sensitivity: "base" }).compare));
t(() => [...words].sort(new Intl.Collator("en", { caseFirst: "upper" }).compare));
t(() => [...words].sort(new Intl.Collator("en", { caseFirst: "lower" }).compare));
t(() => ["item10", "item2", "Item1", "item 3", "item02"].sort((x, y) => x.localeCompare(y, undefined, { numeric: true })));
t(() => ["item10", "item2", "Item1"].sort(new Intl.Collator("en-u-kn-true").compare));
t(() => ["file-10.txt", "file_2.txt", "file 1.txt", "file.txt"].sort(new Intl.Collator(undefined, { ignorePunctuation: true }).compare));
for (const sensitivity of ["base", "accent", "case", "variant"]) {
  t(() => [["a", "á"], ["a", "A"], ["a", "b"], ["á", "A"]].map(([x, y]) => x.localeCompare(y, "en", { sensitivity })));
}
t(() => ["a-b".localeCompare("ab", undefined, { ignorePunctuation: true }), "a-b".localeCompare("ab"), "".localeCompare("a"), "a".localeCompare("a")]);
t(() => ["ä", "a", "z"].sort(new Intl.Collator("de").compare));
t(() => ["ä", "a", "z"].sort(new Intl.Collator("sv").compare));
t(() => new Intl.Collator().resolvedOptions());
t(() => new Intl.Collator("de", { numeric: true, sensitivity: "base" }).resolvedOptions());
t(() => new Intl.Collator("en-u-kn-true").resolvedOptions());
t(() => new Intl.Collator("EN-us").resolvedOptions().locale);
t(() => Intl.Collator.supportedLocalesOf(["en-US", "de"]));
t(() => "a".localeCompare("b", "not a locale!"));
t(() => new Intl.Collator("en", { sensitivity: "x" }));
t(() => "a".localeCompare("b", ["en", 5]));
t(() => [Object.prototype.toString.call(new Intl.Collator()), String(Intl), typeof Intl.Collator, Intl.Collator.length, "a".localeCompare.length]);
const numbers = [0, -0, 1, -1, 0.5, 1.005, 2.5, -2.5, 1234.5, 1234567.891, 0.000001234, 1e21, 123456789012345680000, NaN, Infinity, -Infinity, 99.99, 0.1256, 12];
t(() => numbers.map((n) => n.toLocaleString()));
t(() => numbers.map((n) => n.toLocaleString("en-US", { maximumFractionDigits: 2 })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { minimumFractionDigits: 2 })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { maximumFractionDigits: 0 })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { style: "percent" })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { style: "percent", maximumFractionDigits: 2 })));
// Percentages in the locales' own patterns (`intl_percent.json`): before or after the number,
// with or without a no-break space, the locale's minus sign and words for NaN.
for (const locale of ["en", "en-US", "en-GB", "en-IN", "de", "de-DE", "de-AT", "de-CH", "fr", "fr-FR", "fr-CA", "es-ES", "es-MX", "it-IT", "nl-NL", "pt-BR", "pt-PT", "ja-JP", "zh-CN", "zh-TW", "ko", "ru", "pl", "sv-SE", "da", "fi", "nb", "cs", "tr", "el", "hu", "ro", "uk", "id", "vi", "he", "ca", "sk"]) {
  t(() => [locale, [0.256, -0.256, 0, -0, 1234.5678, -0.0001, NaN, Infinity, -Infinity].map((n) => n.toLocaleString(locale, { style: "percent" }))]);
  t(() => [locale, [0.256, -12.3456].map((n) => new Intl.NumberFormat(locale, { style: "percent", minimumFractionDigits: 1, useGrouping: false }).format(n))]);
}
t(() => numbers.map((n) => n.toLocaleString(undefined, { useGrouping: false })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { maximumSignificantDigits: 2 })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { minimumSignificantDigits: 3 })));
t(() => numbers.map((n) => n.toLocaleString(undefined, { minimumIntegerDigits: 3 })));
t(() => numbers.map((n) => n.toLocaleString("de-DE")));
t(() => numbers.map((n) => n.toLocaleString("en-IN")));
t(() => numbers.map((n) => n.toLocaleString("fr")));
t(() => numbers.map((n) => new Intl.NumberFormat("en", { useGrouping: "min2" }).format(n)));
t(() => [12345678901234567890n.toLocaleString(), (-5n).toLocaleString("de"), new Intl.NumberFormat().format(10n ** 30n)]);
t(() => [[1234.5, 1e6, -7].toLocaleString(), new Intl.NumberFormat().format("1234.5")]);
t(() => ["12345678901234567890", " 1.5e3 ", "0x10", "abc", "", "-0", "Infinity", "1_000", ".5", "5.", "-12.3456", "1e-7", "+7"].map((s) => new Intl.NumberFormat().format(s)));
t(() => new Intl.NumberFormat().resolvedOptions());
t(() => new Intl.NumberFormat("en", { style: "percent", minimumFractionDigits: 1 }).resolvedOptions());
t(() => new Intl.NumberFormat("en", { maximumSignificantDigits: 3 }).resolvedOptions());
t(() => new Intl.NumberFormat("en", { useGrouping: false }).resolvedOptions().useGrouping);
t(() => new Intl.NumberFormat("en", { maximumFractionDigits: 200 }));
t(() => new Intl.NumberFormat("en", { minimumFractionDigits: 5, maximumFractionDigits: 2 }));
t(() => new Intl.NumberFormat("en", { style: "x" }));
t(() => new Intl.NumberFormat("en", { minimumIntegerDigits: 0 }));
// Turkish and Azeri casing (dotted and dotless i), and the locales read as Node reads them.
for (const locale of ["tr", "az", "tr-TR", "TR", ["tr", "en"], ["en", "tr"], "en", undefined, "de", [], "trx", 5]) {
  t(() => [locale, "istanbul İZMİR Iı I\u0307x ǆ ß".toLocaleUpperCase(locale), "İSTANBUL IŞIK I\u0307x İ\u0307 ǅ".toLocaleLowerCase(locale)]);
}
t(() => "a".toLocaleUpperCase("not a locale!"));
t(() => String.prototype.toLocaleLowerCase.call(null, "tr"));
t(() => [String.prototype.toLocaleUpperCase.length, String.prototype.toLocaleLowerCase.name, String.prototype.toLocaleUpperCase.call(12, "tr")]);
const dates = [new Date(Date.UTC(2024, 0, 2, 15, 4, 5)), new Date(Date.UTC(2024, 10, 22, 0, 0, 7)), new Date(Date.UTC(1999, 11, 31, 12, 30)), new Date(Date.UTC(-5, 0, 1)), new Date(NaN)];
t(() => dates.map((d) => [d.toLocaleString(), d.toLocaleDateString(), d.toLocaleTimeString()]));
t(() => dates.map((d) => [d.toLocaleString("en-US", { timeZone: "UTC" }), d.toLocaleDateString("en"), d.toLocaleTimeString(undefined, { timeZone: "utc" })]));
t(() => [dates[0]].toLocaleString());
// The locale's words for NaN and its minus before infinity; ICU's "always" groups four digits.
t(() => [NaN, -Infinity, Infinity, 12, 1000, 1234.5, -9999, 12345].map((v) => [new Intl.NumberFormat("ru").format(v), new Intl.NumberFormat("sv").format(v),
  new Intl.NumberFormat("es", { useGrouping: true }).format(v), new Intl.NumberFormat("pl", { useGrouping: "always" }).format(v),
  v.toLocaleString("it", { useGrouping: true, minimumIntegerDigits: 4 }), v.toLocaleString("es", { useGrouping: "min2" })]));
// signDisplay, of the rounded value, in decimals, percentages and amounts of money.
const signed = [1.5, -1.5, 0, -0, 0.0004, -0.0004, NaN, Infinity, -Infinity, 1234567.891, -0.004];
for (const signDisplay of ["auto", "always", "exceptZero", "negative", "never"]) {
  for (const locale of ["en", "de", "sv", "fr", "he", "ru", "ja", "en-IN"]) {
    t(() => [signDisplay, locale, signed.map((v) => new Intl.NumberFormat(locale, { signDisplay }).format(v)),
      signed.map((v) => new Intl.NumberFormat(locale, { signDisplay, style: "percent" }).format(v)),
      signed.map((v) => new Intl.NumberFormat(locale, { signDisplay, notation: "compact" }).format(v))]);
  }
  for (const [locale, currency] of [["en-US", "USD"], ["en-GB", "EUR"], ["de-DE", "EUR"], ["fr-FR", "EUR"], ["ja-JP", "JPY"]]) {
    t(() => signed.map((v) => new Intl.NumberFormat(locale, { signDisplay, style: "currency", currency }).format(v)));
  }
  t(() => [(5).toLocaleString("en", { signDisplay }), (-5n).toLocaleString("en", { signDisplay }), new Intl.NumberFormat("en", { signDisplay }).resolvedOptions().signDisplay]);
}
// roundingMode and trailingZeroDisplay, in decimals, percentages, amounts and compact numbers.
const roundings = [1.005, 2.5, -2.5, 1.45, -1.45, 0.125, 1, 1.1, -0, 12.3456, -0.0004, 999.95, 1999];
for (const roundingMode of ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"]) {
  t(() => [roundingMode, ...[{ maximumFractionDigits: 1 }, { maximumSignificantDigits: 2 }, { style: "percent" }, { style: "currency", currency: "USD" }, { notation: "compact" }, { maximumFractionDigits: 0, signDisplay: "exceptZero" }]
    .map((o) => roundings.map((v) => new Intl.NumberFormat("en", { roundingMode, ...o }).format(v)))]);
}
t(() => [{ minimumFractionDigits: 2 }, { minimumSignificantDigits: 3 }, { style: "currency", currency: "EUR" }, { style: "percent", minimumFractionDigits: 1 }]
  .map((o) => roundings.map((v) => new Intl.NumberFormat("de-DE", { trailingZeroDisplay: "stripIfInteger", ...o }).format(v))));
t(() => new Intl.NumberFormat("en", { roundingMode: "floor", trailingZeroDisplay: "stripIfInteger" }).resolvedOptions());
t(() => new Intl.NumberFormat("en", { roundingMode: "up" }));
t(() => [new Intl.PluralRules("en", { roundingMode: "floor", maximumFractionDigits: 0 }).select(1.9), new Intl.PluralRules("en", { roundingMode: "up" }).select(1)]);
return out;
