// Dates formatted through Intl.DateTimeFormat and Date's toLocale*String: every combination of
// the date fields with a few times, the time fields with each hour cycle, the styles, in each
// locale pml has dates for, in UTC and in the local time zone; errors by their messages.
const W = [undefined, "narrow", "short", "long"];
const Y = [undefined, "numeric", "2-digit"];
const M = [undefined, "numeric", "2-digit", "narrow", "short", "long"];
const D = [undefined, "numeric", "2-digit"];
const N = [undefined, "numeric", "2-digit"];
const CYCLES = [undefined, "h11", "h12", "h23", "h24"];
const dates = [
  Date.UTC(2024, 0, 5, 8, 3, 9, 123),
  Date.UTC(1999, 11, 31, 23, 59, 59, 999),
  Date.UTC(2024, 6, 14, 0, 0, 0, 7),
  Date.UTC(2023, 2, 12, 12, 30, 0),
];
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
for (const locale of ["en-US", "en-GB", "en"]) {
  for (const weekday of W) for (const year of Y) for (const month of M) for (const day of D) {
    for (const [hour, minute, second, hour12] of [[], ["numeric", "2-digit"], ["2-digit", undefined, "numeric", false], [undefined, "numeric", "numeric"]]) {
      const o = { timeZone: "UTC" };
      set(o, "weekday", weekday); set(o, "year", year); set(o, "month", month); set(o, "day", day);
      set(o, "hour", hour); set(o, "minute", minute); set(o, "second", second); set(o, "hour12", hour12);
      record(locale, o);
    }
  }
  for (const hour of N) for (const hourCycle of CYCLES) for (const hour12 of [undefined, true, false]) for (const minute of N) for (const second of [undefined, "2-digit"]) {
    const o = { timeZone: "UTC" };
    set(o, "hour", hour); set(o, "hourCycle", hourCycle); set(o, "hour12", hour12); set(o, "minute", minute); set(o, "second", second);
    record(locale, o);
  }
  for (const fractionalSecondDigits of [undefined, 1, 3]) for (const timeZoneName of [undefined, "short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"]) {
    const o = { timeZone: "UTC" };
    set(o, "fractionalSecondDigits", fractionalSecondDigits); set(o, "timeZoneName", timeZoneName);
    record(locale, o);
    record(locale, { ...o, hour: "numeric", minute: "numeric" });
  }
  for (const dateStyle of [undefined, "full", "long", "medium", "short"]) for (const timeStyle of [undefined, "full", "long", "medium", "short"]) for (const hourCycle of [undefined, "h23"]) {
    const o = { timeZone: "UTC" };
    set(o, "dateStyle", dateStyle); set(o, "timeStyle", timeStyle); set(o, "hourCycle", hourCycle);
    record(locale, o);
  }
}
// The local time zone (the process's, as Node's), and Date's methods with their defaults.
const local = [];
const attempt = (f) => { try { return f(); } catch (e) { return `${e.name}: ${e.message}`; } };
for (const d of dates.map((t) => new Date(t))) {
  local.push(
    d.toLocaleString(), d.toLocaleDateString(), d.toLocaleTimeString(),
    d.toLocaleString("en-GB"), d.toLocaleDateString("en-US", { hour: "numeric" }), d.toLocaleTimeString("en-US", { month: "long" }),
    d.toLocaleDateString(undefined, { weekday: "long", year: "numeric", month: "long", day: "numeric" }),
    d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }),
    new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" }).format(d),
  );
}
local.push(
  new Intl.DateTimeFormat().resolvedOptions(),
  new Date(NaN).toLocaleDateString("en-US", { month: "long" }),
  new Date(8.64e15).toLocaleString("en-US", { timeZone: "UTC" }),
  new Date(Date.UTC(-50, 0, 1)).toLocaleDateString("en-US", { timeZone: "UTC" }),
  [new Date(0), dates[1]].map(new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "Etc/GMT" }).format),
  typeof Intl.DateTimeFormat.prototype.formatToParts, Intl.DateTimeFormat.length,
  Object.prototype.toString.call(new Intl.DateTimeFormat()),
  Intl.DateTimeFormat("en") instanceof Intl.DateTimeFormat,
  Intl.DateTimeFormat.supportedLocalesOf(["en-GB", "en"]),
  attempt(() => new Intl.DateTimeFormat("en-US", { dateStyle: "long", month: "short" })),
  attempt(() => new Intl.DateTimeFormat("en-US", { timeStyle: "long", hour: "numeric" })),
  attempt(() => new Date(0).toLocaleDateString("en-US", { timeStyle: "short" })),
  attempt(() => new Date(0).toLocaleTimeString("en-US", { dateStyle: "short" })),
  attempt(() => new Intl.DateTimeFormat("en-US", { month: "longg" })),
  attempt(() => new Intl.DateTimeFormat("en-US", { hourCycle: "h25" })),
  attempt(() => new Intl.DateTimeFormat("en-US", { fractionalSecondDigits: 4 })),
  attempt(() => new Intl.DateTimeFormat("en-US", { calendar: "abc!" })),
  attempt(() => new Intl.DateTimeFormat("en-US").format(NaN)),
  attempt(() => new Intl.DateTimeFormat("en-US").format(1e20)),
  attempt(() => new Date(0).toLocaleDateString("en-US", null)),
);
// Date's own text ends with the zone's name where pml knows it (UTC).
if (new Intl.DateTimeFormat().resolvedOptions().timeZone === "UTC") {
  for (const d of [new Date(dates[0]), new Date(NaN)]) {
    local.push(d.toString(), d.toTimeString(), String(d), `${d}`, d + "", d.toDateString(), d.toUTCString());
  }
  local.push(Date.prototype.toString.name, Date.prototype.toString.length, Date.prototype.toTimeString.name, `${Date.prototype.toString}`);
}
out.push(local);
return out;
