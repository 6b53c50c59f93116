// Intl.ListFormat and Intl.PluralRules in the English locales, against Node.
const out = [];
const t = (f) => { try { out.push(f()); } catch (e) { out.push(`${e.name}: ${e.message}`); } };
const lists = [[], ["A"], ["A", "B"], ["A", "B", "C"], ["A", "B", "C", "D", "E"], new Set(["x", "y", "z"]), "abc"];
for (const locale of [undefined, "en", "en-US", "en-GB", "en-CA", "en-AU", "en-IN"]) {
  for (const type of [undefined, "conjunction", "disjunction", "unit"]) for (const style of [undefined, "long", "short", "narrow"]) {
    t(() => {
      const f = new Intl.ListFormat(locale, { type, style });
      return [locale, type, style, lists.map((l) => f.format(l)), f.formatToParts(["a", "b", "c"]), f.resolvedOptions()];
    });
  }
  for (const type of [undefined, "cardinal", "ordinal"]) {
    for (const o of [{}, { minimumFractionDigits: 1 }, { maximumFractionDigits: 0 }, { maximumSignificantDigits: 2 }]) {
      t(() => {
        const p = new Intl.PluralRules(locale, { type, ...o });
        return [locale, type, o, [0, 1, 1.0, 1.5, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112, 1.0001, 1.04, -1, -2, 1e21, NaN, Infinity, "1", "2.0"].map((n) => p.select(n)), p.resolvedOptions()];
      });
    }
  }
}
t(() => new Intl.ListFormat("en").format(["a", 1]));
t(() => new Intl.ListFormat("en", { type: "x" }));
t(() => Intl.ListFormat("en"));
t(() => Intl.PluralRules("en"));
t(() => new Intl.PluralRules("en", { type: "x" }));
t(() => new Intl.ListFormat().format());
t(() => Object.prototype.toString.call(new Intl.ListFormat()) + Object.prototype.toString.call(new Intl.PluralRules()));
t(() => { const n = 3; return `${n} ${new Intl.PluralRules("en-US").select(n) === "one" ? "file" : "files"} changed`; });
// An array's toLocaleString gives its elements the locales and options.
t(() => [1234.5, 0.25].toLocaleString("en-US", { style: "currency", currency: "USD" }));
t(() => [1234.5, null, undefined, [5678.9, "x"]].toLocaleString("de-DE"));
t(() => [new Date(0), 3].toLocaleString("en-GB", { timeZone: "UTC" }));
t(() => { const a = [1, 2]; a.push(a); return a.toLocaleString("en-US"); });
t(() => Array.prototype.toLocaleString.call({ length: 2, 0: 1e6, 1: 2 }, "en-IN"));
t(() => Array.prototype.toLocaleString.call(null));
return out;
