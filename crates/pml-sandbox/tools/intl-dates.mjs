// Writes `src/intl_dates/LOCALE.json`: for each locale pml formats dates in, the pattern Node 20's ICU
// chooses for every combination of `Intl.DateTimeFormat`'s component options, its names
// (months, weekdays, day periods) and the UTC time zone's names. `intl.js` formats dates with
// them (`src/intl.rs` says what is covered). Run with Node 20 (the version pml answers as):
//   node crates/pml-sandbox/tools/intl-dates.mjs crates/pml-sandbox/src/intl_dates [LOCALE...]
// (about a minute per locale; `date_table` in `src/intl.rs` lists the files).
// Patterns are ICU's (letters as in UTS #35, literals in quotes), read back from
// `formatToParts` of a date whose fields all differ in width (2024-01-05 08:03:09.123 UTC).
import { writeFileSync } from "node:fs";
const [DIR, ...ASKED] = process.argv.slice(2);
const LOCALES = ASKED.length > 0 ? ASKED : ["en-US", "en-GB", "en-CA", "en-AU", "en-IN", "en-NZ", "en-IE", "en-ZA", "en-SG",
  "de-DE", "fr-FR", "es-ES", "nl-NL", "pt-BR", "pl-PL", "sv-SE", "ru-RU", "ja-JP", "ko-KR", "zh-CN"];
const DATE = new Date(Date.UTC(2024, 0, 5, 8, 3, 9, 123));

export const WEEKDAY = [undefined, "narrow", "short", "long"];
export const YEAR = [undefined, "numeric", "2-digit"];
export const MONTH = [undefined, "numeric", "2-digit", "narrow", "short", "long"];
export const DAY = [undefined, "numeric", "2-digit"];
export const HOUR = [undefined, "numeric", "2-digit"];
export const CYCLE = [undefined, "h11", "h12", "h23", "h24"];
export const MINUTE = [undefined, "numeric", "2-digit"];
export const SECOND = [undefined, "numeric", "2-digit"];
export const FRACTION = [undefined, 1, 2, 3];
export const ZONE = [undefined, "short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"];
const ZONE_LETTERS = { short: "z", long: "zzzz", shortOffset: "O", longOffset: "OOOO", shortGeneric: "v", longGeneric: "vvvv" };

// A pattern written one way: its literal text merged and quoted only where needed.
const canonical = (pattern) => {
  const tokens = [];
  let text = "";
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === "'") {
      let j = i + 1;
      if (pattern[j] === "'") { text += "'"; i = j + 1; continue; }
      while (j < pattern.length && !(pattern[j] === "'" && pattern[j + 1] !== "'")) {
        text += pattern[j];
        j += pattern[j] === "'" ? 2 : 1;
      }
      i = j + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (text !== "") { tokens.push(quote(text)); text = ""; }
      let j = i;
      while (pattern[j] === c) j++;
      tokens.push(pattern.slice(i, j));
      i = j;
    } else {
      text += c;
      i++;
    }
  }
  if (text !== "") tokens.push(quote(text));
  return tokens.join("");
};
const quote = (text) => (/^[^A-Za-z']*$/.test(text) ? text : `'${text.replace(/'/g, "''")}'`);
// The letters of a name of DATE's weekday or month: its width in the format context (`E`,
// `M`: in a date) or, when only that matches, the standalone one (`c`, `L`: alone).
const WIDTHS = [5, 3, 4]; // narrow, short, long
const WIDTH_NAMES = ["narrow", "short", "long"];
const lettersOf = (value, names, format, standalone, asked) => {
  // The width asked for first, where widths write the same (Japanese narrow and short).
  const order = [WIDTH_NAMES.indexOf(asked), 0, 1, 2].filter((i) => i >= 0);
  for (const i of order) if (names.format[i] === value) return format.repeat(WIDTHS[i]);
  for (const i of order) if (names.standalone[i] === value) return standalone.repeat(WIDTHS[i]);
  return undefined;
};
// The pattern of `parts` (of DATE), given what was asked and the locale's names of DATE.
const pattern = (parts, asked, cycle, names) =>
  parts
    .map(({ type, value }) => {
      switch (type) {
        case "literal": return quote(value);
        case "weekday": return lettersOf(value, names.weekday, "E", "c", asked.weekday) ?? fail(type, value);
        case "year": return value.length === 2 ? "yy" : "y";
        case "month": return { 1: "M", "01": "MM" }[value] ?? lettersOf(value, names.month, "M", "L", asked.month) ?? fail(type, value);
        case "day": return value.length === 2 ? "dd" : "d";
        case "hour": {
          const letter = { h11: "K", h12: "h", h23: "H", h24: "k" }[cycle];
          return value.length === 2 ? letter + letter : letter;
        }
        case "minute": return value.length === 2 ? "mm" : "m";
        case "second": return value.length === 2 ? "ss" : "s";
        case "fractionalSecond": return "S".repeat(value.length);
        case "dayPeriod": return "a";
        case "timeZoneName": {
          // A style's zone: told by its name.
          const style = asked.timeZoneName ?? (value === names.utc.short ? "short" : value === names.utc.long ? "long" : undefined);
          return ZONE_LETTERS[style] ?? fail(type, value);
        }
        default: return fail(type, value);
      }
    })
    .join("");
function fail(type, value) {
  throw new Error(`unexpected ${type} ${JSON.stringify(value)}`);
}

// The text `both` has between the parts of `first` and those of `second` (formatToParts
// merges neighbouring literals: a literal ending `first` or starting `second` is part of it).
const between = (both, first, second) => {
  const text = (ps) => ps.map((p) => p.value).join("");
  const lead = first.at(-1).type === "literal" ? first.at(-1).value : "";
  const trail = second[0].type === "literal" ? second[0].value : "";
  const whole = text(both);
  const a = text(first);
  const b = text(second);
  if (!whole.startsWith(a) || !whole.endsWith(b) || whole.length < a.length + b.length) fail("date and time", whole);
  const fields = (ps) => ps.filter((p) => p.type !== "literal").map((p) => p.type).join();
  if (fields(both) !== [fields(first), fields(second)].join()) fail("date and time fields", whole);
  void lead, trail;
  return whole.slice(a.length, whole.length - b.length);
};

const table = (locale) => {
  // DATE's weekday and month in each width, in a date and alone, and UTC's names.
  const nameOf = (options, field) => new Intl.DateTimeFormat(locale, { timeZone: "UTC", ...options }).formatToParts(DATE).find((p) => p.type === field).value;
  const widths = ["narrow", "short", "long"];
  const dateNames = {
    weekday: { format: widths.map((w) => nameOf({ weekday: w, year: "numeric", month: "long", day: "numeric" }, "weekday")), standalone: widths.map((w) => nameOf({ weekday: w }, "weekday")) },
    month: { format: widths.map((w) => nameOf({ month: w, day: "numeric" }, "month")), standalone: widths.map((w) => nameOf({ month: w }, "month")) },
    utc: { short: nameOf({ timeZoneName: "short" }, "timeZoneName"), long: nameOf({ timeZoneName: "long" }, "timeZoneName") },
  };
  const names = (options, field, dates) => ["narrow", "short", "long"].map((width) =>
    dates.map((d) => new Intl.DateTimeFormat(locale, { timeZone: "UTC", [field]: width, ...options })
      .formatToParts(d).find((p) => p.type === field).value));
  // In a date (`M`, `E`), and alone (`L`, `c`) where that differs.
  const MONTH_DATES = Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(2024, m, 5)));
  const months = names({ day: "numeric" }, "month", MONTH_DATES);
  const monthsAlone = names({}, "month", MONTH_DATES);
  // 2023-01-01 is a Sunday.
  const WEEKDAY_DATES = Array.from({ length: 7 }, (_, d) => new Date(Date.UTC(2023, 0, 1 + d)));
  const weekdays = names({ year: "numeric", month: "long", day: "numeric" }, "weekday", WEEKDAY_DATES);
  const weekdaysAlone = names({}, "weekday", WEEKDAY_DATES);
  // Which names a pattern's month (weekday) takes, in a date or alone, is told by every month
  // (weekday) it writes; where both are the same, by what V8 reads back from the pattern
  // (the first of its letter groups anywhere in it: `ccc (Monat: LLLL)` reads month numeric).
  const READBACK = {
    month: [["MMMMM", "narrow"], ["MMMM", "long"], ["MMM", "short"], ["MM", "2-digit"], ["M", "numeric"], ["LLLLL", "narrow"], ["LLLL", "long"], ["LLL", "short"], ["LL", "2-digit"], ["L", "numeric"]],
    weekday: [["EEEEE", "narrow"], ["EEEE", "long"], ["EEE", "short"], ["ccccc", "narrow"], ["cccc", "long"], ["ccc", "short"]],
  };
  const readBack = (text, field) => READBACK[field].find(([letters]) => text.includes(letters))?.[1];
  // `text` with its unquoted runs of `from` (3 or more) written with `to`.
  const swap = (text, from, to) => {
    let out = "";
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "'") quoted = !quoted;
      out += !quoted && c === from ? to : c;
    }
    return out;
  };
  const runOf = (text, letters) => {
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "'") quoted = !quoted;
      else if (!quoted && letters.includes(text[i])) {
        let j = i;
        while (text[j] === text[i]) j++;
        return j - i;
      }
    }
    return 0;
  };
  const context = (text, f, field) => {
    const [format, alone, formatTable, aloneTable, probes] = field === "month" ? ["M", "L", months, monthsAlone, MONTH_DATES] : ["E", "c", weekdays, weekdaysAlone, WEEKDAY_DATES];
    const n = runOf(text, format + alone);
    if (n === 0) return text;
    const asFormat = swap(text, alone, format);
    const asAlone = swap(text, format, alone);
    // Digits (`M`, `MM`): the same either way but for what V8 reads back.
    const width = n === 5 ? 0 : n === 3 ? 1 : 2;
    const written = n < 3 ? [] : probes.map((d) => f.formatToParts(d).find((p) => p.type === field)?.value);
    const inDate = written.every((v, i) => v === formatTable[width][i]);
    const standalone = written.every((v, i) => v === aloneTable[width][i]);
    if (inDate && !standalone) return asFormat;
    if (standalone && !inDate) return asAlone;
    if (!inDate) fail(field, written.join());
    const asked = f.resolvedOptions()[field];
    return readBack(asFormat, field) === asked || readBack(asAlone, field) !== asked ? asFormat : asAlone;
  };
  const format = (options) => {
    const f = new Intl.DateTimeFormat(locale, { timeZone: "UTC", ...options });
    const text = pattern(f.formatToParts(DATE), options, f.resolvedOptions().hourCycle, dateNames);
    return context(context(text, f, "month"), f, "weekday");
  };
  const parts = (options) => new Intl.DateTimeFormat(locale, { timeZone: "UTC", ...options }).formatToParts(DATE);
  const clean = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  // Date skeletons: the pattern, and the text between it and a time (`hour: "numeric"`).
  const dates = [];
  const dateOptions = [];
  for (const weekday of WEEKDAY) for (const year of YEAR) for (const month of MONTH) for (const day of DAY) {
    const options = clean({ weekday, year, month, day });
    dateOptions.push(options);
    if (Object.keys(options).length === 0) { dates.push(null); continue; }
    const alone = format(options);
    // ICU joins a date and a time with its date-time pattern, which depends on the date's
    // fields; a time of seconds alone is never part of a pattern for both together.
    const glue = between(parts({ ...options, second: "numeric" }), parts(options), parts({ second: "numeric" }));
    dates.push([alone, glue]);
  }
  const times = [];
  const timeOptions = [];
  for (const hour of HOUR) for (const hourCycle of CYCLE) for (const minute of MINUTE) for (const second of SECOND)
    for (const fractionalSecondDigits of FRACTION) for (const timeZoneName of ZONE) {
      const options = clean({ hour, hourCycle, minute, second, fractionalSecondDigits, timeZoneName });
      const timeFields = clean({ hour, minute, second, fractionalSecondDigits, timeZoneName });
      timeOptions.push(options);
      if (Object.keys(timeFields).length === 0 || (hour === undefined && hourCycle !== undefined)) {
        times.push(null);
      } else if (Object.keys(timeFields).length === 1 && timeZoneName !== undefined) {
        // A zone name alone brings the default date: what comes after the date and its glue.
        const all = format(options);
        const date = format({ day: "numeric" });
        const glue = between(parts({ day: "numeric", hour: "numeric" }), parts({ day: "numeric" }), parts({ hour: "numeric" }));
        if (format({ day: "numeric", timeZoneName }) !== `${date}${glue}${ZONE_LETTERS[timeZoneName]}` || !all.endsWith(ZONE_LETTERS[timeZoneName])) fail("zone", all);
        times.push(ZONE_LETTERS[timeZoneName]);
      } else {
        times.push(format(options));
      }
    }
  // Where ICU has a pattern for the date and time fields together (en: `E h:mm a` for a
  // weekday and a time) the whole differs from date, glue and time: those combinations, by
  // index of date and time.
  const combined = {};
  dates.forEach((date, d) => {
    if (date === null) return;
    times.forEach((time, t) => {
      if (time === null) return;
      const options = clean({ ...dateOptions[d], ...timeOptions[t] });
      const whole = format(options);
      if (canonical(whole) !== canonical(`${date[0]}${quote(date[1])}${time}`)) combined[`${d}/${t}`] = whole;
    });
  });
  const styles = {};
  for (const dateStyle of [undefined, "full", "long", "medium", "short"])
    for (const timeStyle of [undefined, "full", "long", "medium", "short"])
      for (const hourCycle of CYCLE) {
        if (dateStyle === undefined && timeStyle === undefined) continue;
        if (timeStyle === undefined && hourCycle !== undefined) continue;
        styles[[dateStyle ?? "", timeStyle ?? "", hourCycle ?? ""].join("/")] = format(clean({ dateStyle, timeStyle, hourCycle }));
      }
  const period = (h) => new Intl.DateTimeFormat(locale, { timeZone: "UTC", hour: "numeric", hourCycle: "h12" })
    .formatToParts(Date.UTC(2024, 0, 5, h)).find((p) => p.type === "dayPeriod").value;
  const utc = {};
  for (const style of ZONE.slice(1)) {
    utc[ZONE_LETTERS[style]] = new Intl.DateTimeFormat(locale, { timeZone: "UTC", timeZoneName: style })
      .formatToParts(DATE).find((p) => p.type === "timeZoneName").value;
  }
  const defaultCycle = new Intl.DateTimeFormat(locale, { hour: "numeric" }).resolvedOptions().hourCycle;
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return {
    hourCycle: defaultCycle, dates, times, combined, styles, months, weekdays, dayPeriods: [period(8), period(20)], utc,
    ...(same(months, monthsAlone) ? {} : { monthsAlone }),
    ...(same(weekdays, weekdaysAlone) ? {} : { weekdaysAlone }),
  };
};

// Patterns repeat a lot: each table lists its distinct patterns once and refers to them by index.
for (const locale of LOCALES) {
  const t = table(locale);
  const distinct = [];
  const index = (p) => {
    if (p === null) return -1;
    let i = distinct.indexOf(p);
    if (i === -1) { i = distinct.length; distinct.push(p); }
    return i;
  };
  const out = {
    ...t,
    // A date pattern and the text between it and a time (text, not a pattern).
    dates: t.dates.map((d) => (d === null ? -1 : [index(d[0]), d[1]])),
    times: t.times.map(index),
    patterns: distinct,
  };
  writeFileSync(`${DIR}/${locale}.json`, JSON.stringify(out));
}
