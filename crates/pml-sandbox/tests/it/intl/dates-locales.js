// Dates in the other locales pml has tables for (`src/intl_dates/`): the date fields with and
// without a time, the time fields with each hour cycle, the zone names, the styles; against
// Node by `tests/it/intl.rs`.
const W = [undefined, "short", "long"];
const Y = [undefined, "numeric", "2-digit"];
const M = [undefined, "numeric", "2-digit", "short", "long"];
const D = [undefined, "numeric"];
const dates = [Date.UTC(2024, 0, 5, 8, 3, 9, 123), Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2024, 6, 14, 0, 0, 0, 7), Date.UTC(2023, 2, 12, 12, 30, 0)];
const out = [];
const set = (o, k, v) => { if (v !== undefined) o[k] = v; };
const record = (locale, o) => {
  try {
    const f = new Intl.DateTimeFormat(locale, o);
    out.push([locale, o, dates.map((d) => f.format(d)), f.formatToParts(dates[0]), f.resolvedOptions()]);
  } catch (e) {
    out.push([locale, o, `${e.name}: ${e.message}`]);
  }
};
for (const locale of LOCALES) {
  for (const weekday of W) for (const year of Y) for (const month of M) for (const day of D) {
    for (const time of [[], ["numeric", "2-digit"]]) {
      const o = { timeZone: "UTC" };
      set(o, "weekday", weekday); set(o, "year", year); set(o, "month", month); set(o, "day", day);
      set(o, "hour", time[0]); set(o, "minute", time[1]);
      record(locale, o);
    }
  }
  for (const hourCycle of [undefined, "h11", "h12", "h23"]) for (const second of [undefined, "2-digit"]) {
    record(locale, { timeZone: "UTC", hour: "numeric", minute: "2-digit", second, hourCycle });
  }
  for (const timeZoneName of ["short", "long", "shortOffset", "longOffset"]) {
    record(locale, { timeZone: "UTC", hour: "numeric", minute: "numeric", timeZoneName });
    // A named zone's fields (its offsets' names only in English).
    record(locale, { timeZone: "America/New_York", hour: "numeric", minute: "numeric", timeZoneName: timeZoneName.endsWith("Offset") && locale.startsWith("en-") ? timeZoneName : undefined });
  }
  for (const dateStyle of [undefined, "full", "long", "medium", "short"]) for (const timeStyle of [undefined, "medium", "short"]) {
    if (dateStyle === undefined && timeStyle === undefined) continue;
    record(locale, { timeZone: "UTC", dateStyle, timeStyle });
  }
  out.push([locale, new Date(dates[0]).toLocaleDateString(locale, { timeZone: "UTC" }), new Date(dates[0]).toLocaleString(locale, { timeZone: "UTC" })]);
}
return out;
