// Dates in named time zones: `tests/it/intl.rs` runs this program in the sandbox and in Node
// and compares the results.
const out = [];
const t = (f) => {
  try {
    out.push(f());
  } catch (e) {
    out.push([e.name, e.message]);
  }
};
// Instants around the DST changes of 2024 and 2025 in both hemispheres, and ordinary ones.
const instants = [Date.UTC(2024, 2, 10, 6, 59), Date.UTC(2024, 2, 10, 7, 0), Date.UTC(2024, 2, 31, 0, 59), Date.UTC(2024, 2, 31, 1, 0),
  Date.UTC(2024, 3, 6, 15, 59), Date.UTC(2024, 3, 6, 16, 0), Date.UTC(2024, 9, 27, 0, 59), Date.UTC(2024, 9, 27, 1, 0),
  Date.UTC(2024, 10, 3, 5, 59), Date.UTC(2024, 10, 3, 6, 0), Date.UTC(2025, 0, 1), Date.UTC(2025, 5, 30, 23, 59, 59, 999),
  Date.UTC(2026, 11, 31, 23, 30), Date.UTC(2023, 6, 4, 12, 0), Date.UTC(2030, 3, 1, 8, 15)];
// Every zone ICU has: the wall clock and offset at each instant.
const fields = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "longOffset" };
for (const zone of Intl.supportedValuesOf("timeZone")) {
  t(() => [zone, instants.map((i) => new Intl.DateTimeFormat("en-US", { timeZone: zone, ...fields }).format(i))]);
}
// Names, styles and parts in the zones agents name, at instants away from clock changes.
const named = [Date.UTC(2024, 0, 15, 12), Date.UTC(2024, 6, 15, 12), Date.UTC(2025, 3, 1, 3), Date.UTC(2023, 10, 20, 23, 45),
  Date.UTC(2030, 5, 1, 8), Date.UTC(2026, 2, 9, 18, 5)];
const zones = ["America/New_York", "America/Los_Angeles", "America/Chicago", "America/Denver", "America/Phoenix", "America/Sao_Paulo",
  "Europe/London", "Europe/Berlin", "Europe/Paris", "Europe/Moscow", "Asia/Tokyo", "Asia/Kolkata", "Asia/Shanghai", "Asia/Singapore",
  "Asia/Dubai", "Australia/Sydney", "Pacific/Auckland", "Africa/Lagos", "America/St_Johns", "Asia/Kathmandu"];
for (const locale of ["en-US", "en-GB", "en", "en-AU", "en-CA", "en-IN", "en-NZ", "en-IE", "en-ZA", "en-SG"]) {
  for (const zone of zones) {
    // (Not in an hour a clock turned back repeats: pml throws for generic names there.)
    t(() => named.map((i) => ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"]
      .map((timeZoneName) => new Date(i).toLocaleString(locale, { timeZone: zone, timeZoneName }))));
    t(() => [new Date(named[1]).toLocaleString(locale, { timeZone: zone, dateStyle: "full", timeStyle: "full" }),
      new Date(named[0]).toLocaleTimeString(locale, { timeZone: zone, timeStyle: "long" }),
      new Date(named[3]).toLocaleDateString(locale, { timeZone: zone }),
      new Date(named[5]).toLocaleString(locale, { timeZone: zone, weekday: "short", hour: "numeric", minute: "2-digit", timeZoneName: "short" })]);
  }
}
t(() => new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hour: "numeric", timeZoneName: "short" }).formatToParts(instants[0]));
// The names a zone goes by, and the ID each resolves to.
for (const name of ["america/new_york", "US/Eastern", "US/Pacific", "Asia/Calcutta", "Asia/Kolkata", "EST", "EST5EDT", "Etc/GMT+5", "Etc/GMT-14",
  "Europe/Kiev", "Europe/Kyiv", "America/Argentina/Buenos_Aires", "GB", "Japan", "utc", "Etc/UTC", "GMT", "Foo/Bar", "+05:30", "", "Asia/Tokyo "]) {
  t(() => new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone);
  t(() => new Date(instants[4]).toLocaleString("en-US", { timeZone: name }));
}
return out;
