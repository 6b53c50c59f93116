// Intl.RelativeTimeFormat in the English locales, against Node.
const out = [];
const t = (f) => { try { out.push(f()); } catch (e) { out.push(`${e.name}: ${e.message}`); } };
const values = [-123456.789, -2, -1.5, -1, -0.9999, -0.0004, -0, 0, 0.0001, 1, 1.0000001, 2, 3.25, 1e21];
const units = ["year", "years", "quarter", "quarters", "month", "months", "week", "weeks", "day", "days", "hour", "hours", "minute", "minutes", "second", "seconds"];
for (const locale of [undefined, "en", "en-US", "en-GB", "en-CA", "en-AU", "en-IN"]) {
  for (const style of [undefined, "long", "short", "narrow"]) for (const numeric of [undefined, "always", "auto"]) {
    t(() => {
      const f = new Intl.RelativeTimeFormat(locale, { style, numeric });
      return [locale, style, numeric, f.resolvedOptions(), units.map((u) => values.map((v) => f.format(v, u))), f.formatToParts(-1234.5, "hours"), f.formatToParts(1, "day"), f.formatToParts(0, "second")];
    });
  }
}
const f = new Intl.RelativeTimeFormat("en");
t(() => f.format(1, "fortnight"));
t(() => f.format(NaN, "day"));
t(() => f.format(-Infinity, "day"));
t(() => f.format(1n, "day"));
t(() => f.format(1));
t(() => f.format("2", "day"));
t(() => f.format(1, "Day"));
t(() => new Intl.RelativeTimeFormat("en", { style: "x" }));
t(() => new Intl.RelativeTimeFormat("en", { numeric: "never" }));
t(() => Intl.RelativeTimeFormat("en"));
t(() => Intl.RelativeTimeFormat.prototype.format.call({}, 1, "day"));
t(() => Intl.RelativeTimeFormat.supportedLocalesOf(["en-GB", "en-US", "en"]));
t(() => [Object.prototype.toString.call(f), Intl.RelativeTimeFormat.length, f.format.length, f.formatToParts.length]);
t(() => { const days = Math.round((Date.UTC(2024, 2, 1) - Date.UTC(2024, 2, 8)) / 864e5); return new Intl.RelativeTimeFormat("en", { numeric: "auto" }).format(days, "day"); });
return out;
