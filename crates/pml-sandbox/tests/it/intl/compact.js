// Compact notation (`notation: "compact"`): `tests/it/intl.rs` runs this program in the
// sandbox and in Node and compares the results.
const out = [];
const t = (f) => {
  try {
    out.push(f());
  } catch (e) {
    out.push([e.name, e.message]);
  }
};
const values = [0, -0, 0.5, 0.123, 0.00001234, 1, 9.99, 12.345, 99.5, 99.96, 999, 999.5, 999.9, 1000, 1234, 1500, 9950, 9999,
  12345, 99950, 99999, 123456, 999999, 1e6, 1234567, -1234567, 1e9, 1.5e12, 1e15, 1.234e16, 1e18, 1e21, 1e300, 5e-324, NaN, Infinity, -Infinity];
const options = [{}, { compactDisplay: "long" }, { maximumFractionDigits: 1 }, { maximumSignificantDigits: 3 },
  { minimumFractionDigits: 2 }, { useGrouping: true }, { useGrouping: false }, { useGrouping: "always" }, { useGrouping: "false" },
  { minimumIntegerDigits: 3 }, { minimumSignificantDigits: 2 }, { minimumFractionDigits: 1, maximumFractionDigits: 2, compactDisplay: "long" }];
for (const locale of ["en", "en-US", "en-GB", "en-IN", "de", "fr", "es", "ja", "zh", "ko", "ru", "hi", "pt-BR", "it", "sv", "tr"]) {
  for (const o of options) {
    const long = o.compactDisplay === "long";
    if (long && !["en", "en-US", "en-GB", "en-IN", "ja", "zh", "ko", "hi", "tr"].includes(locale)) continue;
    t(() => values.map((v) => new Intl.NumberFormat(locale, { notation: "compact", ...o }).format(v)));
  }
}
// Exact decimals: BigInts and numeric strings.
t(() => [12345678901234567890n, -999999n, 0n].map((v) => new Intl.NumberFormat("en", { notation: "compact" }).format(v)));
t(() => ["123456789012345678901234567890", "-0.0001", "9999999", "999.95", " 1.5e6 "].map((v) => new Intl.NumberFormat("en", { notation: "compact" }).format(v)));
t(() => [(1234567).toLocaleString("en-US", { notation: "compact" }), (12345n).toLocaleString("en", { notation: "compact", compactDisplay: "long" })]);
// Percentages and amounts of money.
t(() => [0, 0.005, 0.5, 9.99, 12.34, 1234, -56.7].map((v) => new Intl.NumberFormat("en", { style: "percent", notation: "compact" }).format(v)));
for (const [locale, currency] of [["en-US", "USD"], ["en-GB", "GBP"], ["en-IN", "INR"], ["en-US", "EUR"], ["en-CA", "CAD"], ["en-AU", "AUD"]]) {
  t(() => [0, 0.5, 1, 9.99, 999.5, 1234, -1234567, 1e15].map((v) => new Intl.NumberFormat(locale, { style: "currency", currency, notation: "compact" }).format(v)));
}
// What it resolves to.
for (const o of [{}, { compactDisplay: "long" }, { maximumFractionDigits: 1 }, { maximumSignificantDigits: 3 }, { minimumFractionDigits: 2 }, { useGrouping: true }, { style: "percent" }, { style: "currency", currency: "USD" }]) {
  t(() => new Intl.NumberFormat("en", { notation: "compact", ...o }).resolvedOptions());
}
t(() => new Intl.NumberFormat("en", { compactDisplay: "long" }).resolvedOptions());
// Checked as V8 checks it.
t(() => new Intl.NumberFormat("en", { notation: "compact", compactDisplay: "tiny" }));
t(() => new Intl.NumberFormat("en", { compactDisplay: "tiny" }));
t(() => new Intl.NumberFormat("en", { notation: "Compact" }));
// The options read, in order.
t(() => {
  const read = [];
  const o = new Proxy({ notation: "compact" }, { get: (target, key) => (read.push(key), target[key]) });
  new Intl.NumberFormat("en", o);
  return read.filter((k) => typeof k === "string");
});
// Scientific and engineering notation (English).
const exponents = [98765, 0.00012345, 0, -0, -12345, 1, 9.9999, 999999, 999.9996, NaN, Infinity, -Infinity, 1e21, 123, 1e-7, 5e-324, 1.7976931348623157e308];
for (const notation of ["scientific", "engineering"]) {
  for (const o of [{}, { maximumSignificantDigits: 2 }, { minimumFractionDigits: 2 }, { style: "percent" }, { style: "currency", currency: "USD" }, { signDisplay: "always" }, { minimumIntegerDigits: 2 }, { maximumFractionDigits: 0 }]) {
    t(() => exponents.map((v) => new Intl.NumberFormat("en", { notation, ...o }).format(v)));
  }
  t(() => [new Intl.NumberFormat("en-GB", { notation }).formatToParts(-0.00012345), new Intl.NumberFormat("en", { notation }).formatToParts(98765), new Intl.NumberFormat("en", { notation }).resolvedOptions()]);
  t(() => ["12345678901234567890", 12345678901234567890n, "0.000001"].map((v) => new Intl.NumberFormat("en", { notation }).format(v)));
}
// Units (English).
for (const locale of ["en", "en-US", "en-GB", "en-IN"]) {
  for (const unitDisplay of ["short", "long", "narrow"]) {
    t(() => Intl.supportedValuesOf("unit").map((unit) => [1, -1, 2, 0, 1.5, 1234.5, NaN, -Infinity].map((v) => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay }).format(v))));
  }
}
t(() => [{ notation: "compact" }, { maximumFractionDigits: 1 }, { signDisplay: "always" }, { minimumFractionDigits: 2 }, { unitDisplay: "long", notation: "compact", compactDisplay: "long" }]
  .map((o) => [1, 3.14159, 123456, -1].map((v) => new Intl.NumberFormat("en", { style: "unit", unit: "megabyte", ...o }).format(v))));
t(() => [new Intl.NumberFormat("en", { style: "unit", unit: "kilobyte", unitDisplay: "long" }).formatToParts(-1234.5), new Intl.NumberFormat("en", { style: "unit", unit: "foot", unitDisplay: "narrow" }).formatToParts(1), new Intl.NumberFormat("en", { style: "unit", unit: "celsius" }).formatToParts(21)]);
t(() => new Intl.NumberFormat("en", { style: "unit", unit: "kilobyte" }).resolvedOptions());
t(() => (5).toLocaleString("en-US", { style: "unit", unit: "hour", unitDisplay: "long" }));
for (const o of [{ unit: "parsec" }, { style: "unit" }, { style: "unit", unit: "KILOBYTE" }, { style: "unit", unit: "foo-per-bar" }, { style: "unit", unit: "kilobyte", unitDisplay: "wide" }]) {
  t(() => new Intl.NumberFormat("en", o).resolvedOptions().unit);
}
return out;
