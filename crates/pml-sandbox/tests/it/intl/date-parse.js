// Date.parse and new Date(text): the cases pml once read otherwise, then some 7,200 texts
// generated from a seed (the same in Node and in pml): ISO forms and their variants, a date and
// a time apart with offsets (Postgres' timestamptz), RFC 2822, US dates, month names, AM/PM,
// zone names, parentheses, mostly valid or each sometimes mutated, and words and symbols strung
// at random. Then what the replaced `Date` must keep of the original.
const texts = [
  "2024-03-05 10:20:30-05:00", "2024-03-05 10:20:30-0500", "2024-03-05 10:20:30-05",
  "2024-03-05 10:20:30.123456+00", "2024-03-05 10:20:30+05:30", "2024-03-05 10:20:30.5-07",
  "2024-01-15t10:00:00z", "2024-03-05 10:20Z", "2024-03-05 10:20+01:00", "2024-03-05 10:20 +01:00",
  "2024-03-05T10:20:30 CET", "2024-03-05T10:20:30 CEST", "2024-03-05 EET", "2024-03-05 WET",
  "2024-03-05T10:20:30+05", "2024-01-00", "2024-00-10", "2024-03-05T10:20:30,5Z", "2024-015",
  "10:20 PMZ", "-1", "+1", "0", "1", "12", "13", "32", "99", "100", "1000", "2024", "-2024", "+002024",
  "-000000", "+275760-09-13T00:00:00.000Z", "+275760-09-13T00:00:00.001Z", "-271821-04-20T00:00:00.000Z",
  "-271821-04-19T23:59:59.999Z", "-271821-04-20", "+275760-09-13", "2024-02-30", "2023-02-29", "2024-02-29",
  "2024-03-05T24:00", "2024-03-05T24:00:00.000Z", "2024-03-05T24:00:01Z", "2024-03-05T23:60Z",
  "2024-03-05T10:20:30.1234567890123Z", "2024-03-05T10:20:30.00012345678901Z", "2024-03-05T10:20:30.Z",
  "2024-03-05T10:20:30.5", "2024-03-05T10:20", "2024-03-05T10", "2024-03-05T1:20", "2024-03-05T",
  "2024-03-05T10:20:30+2400", "2024-03-05T10:20:30+23:59", "2024-03-05T10:20:30+01:60",
  "Tue, 05 Mar 2024 10:20:30 GMT", "Tue, 05 Mar 2024 10:20:30 +0000", "Tue, 5 Mar 2024 10:20:30 -0500 (EST)",
  "Tue Mar 05 2024 10:20:30 GMT+0100 (Central European Standard Time)", "Mar 5, 2024", "March 5 2024",
  "5 March 2024", "2024 March 5", "Jan 5", "5 Jan", "January", "3/5/2024", "3/5/24", "03/05/2024 10:20 PM",
  "12/31/1999 11:59:59 PM", "12:00 AM 1/1/2000", "1/1/2000 12:00 AM", "1/1/2000 12:00 PM", "1/1/2000 13:00 PM",
  "2024/03/05", "2024.03.05", "05.03.2024", "2024-3-5", "2024-03-5 10:20", "20240305", "2024-03-05 10:20:30 UTC+1",
  "2024-03-05 10:20:30 GMT-8", "2024-03-05 10:20:30 GMT-0830", "2024-03-05 10:20:30 UT", "2024-03-05 10:20:30 Z",
  "2024-03-05 10:20:30 EST", "2024-03-05 10:20:30 EDT", "2024-03-05 10:20:30 CST", "2024-03-05 10:20:30 CDT",
  "2024-03-05 10:20:30 MST", "2024-03-05 10:20:30 MDT", "2024-03-05 10:20:30 PST", "2024-03-05 10:20:30 PDT",
  "2024-03-05 10:20:30 (comment) GMT", "(x) 2024-03-05", "2024-03-05 (x", "2024-03-05 x)", "Mon 2024-03-05",
  "2024-03-05 Mon", "2024-03-05T10:20:30Z\u0000junk", "\u00a02024-03-05\u3000", "\ufeff2024-03-05", "2024-03-05\u2028",
  " 2024-03-05", "2024-03-05 ", "\t\n2024-03-05T10:20:30Z\r\n", "", " ", "Invalid Date", "null", "undefined",
  "NaN", "Infinity", "true", "1e3", "0x10", "10:20", "10:20:30", "10:20:30.5", "10::", "10:20::", "10.20.30",
  "2024-03-05 10.20", "2024-03-05 10:20.30", "2024-03-05 10:20:30.5.6", "Sat Jan 01 2000 00:00:00 GMT+0000",
  "Thu, 01 Jan 1970 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT+1193047:", "2024-01-01 10:00 +300000:",
  "1970-01-01T00:00:00.000+00:00", "0000-01-01T00:00:00Z", "0099-12-31", "0050-06-15 10:00", "0024-03-05 10:00",
  "49-01-01", "50-01-01", "Jan 1 49", "Jan 1 50", "Jan 1 0", "Jan 1 100", "1 2 3", "1 2 3 4", "13 1 2000", "32 1 2000",
  "2000 1 32", "Dec 25, 1995 13:30 PST", "Dec 25 1995 1:30 PM UTC", "Decemberrr 25 1995", "Mayday 1 2000",
  "am 10:00 1/1/2000", "10:00 am pm 1/1/2000", "T10:00", "tue", "z", "utc", "gmt 2000", "2000 gmt", "2000 gmt+",
  "2000 gmt-", "2000 gmt+1:", "2000 gmt+12345", "1/1/2000 10:00 +1", "1/1/2000 10:00 + 1", "1/1/2000 10:00+01:00",
  "1/1/2000 10:00 -01:30", "1/1/2000 +0100", "1/1/2000 GMT +0100", "1/1/2000 10:00 GMT+01:00 GMT-02:00",
  "2024-03-05T10:20:30.000Z", "2024-03-05T10:20:30.000+01:00", "2024-03-05T10:20:30.000-0100",
];

// A generator of numbers in [0, 1), the same everywhere (mulberry32).
let seed = 20240305;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (n) => Math.floor(random() * n);
const pick = (list) => list[int(list.length)];
const pad = (v, width) => String(v).padStart(width, "0");
const width = () => pick([1, 2, 2, 2]);
const months = ["Jan", "February", "mar", "APR", "May", "June", "jul", "Aug", "Sept", "Oct.", "nov", "Dec", "Foo"];
const weekdays = ["", "Mon, ", "Tuesday ", "Wed ", "Thu,", "Fri.", "Sat ", "Sun, "];
const zones = [
  "", "Z", "z", "+01:00", "-05:00", "+0530", "-0800", "+05", "-5", "+24:00", "+23:59", "+12:60", " Z", " GMT",
  " UTC", " GMT+0100", " GMT-05:30", " UTC+1", " EST", " PDT", " CET", " (CET)", " +0100", " -0500 (EST)", "GMT",
  "+1:00", "+01:0", " am", " PM", "PM", " a.m.",
];
const structured = () => {
  const y = pick([
    pad(int(10000), 4), "1970", "2024", "0000", "0099", `+${pad(int(300000), 6)}`, `-${pad(int(300000), 6)}`,
    "-000000", "+275760", "-271821", String(int(100)), String(int(3000)),
  ]);
  const mo = pad(int(14), width());
  const d = pad(int(33), width());
  const h = pad(int(26), width());
  const mi = pad(int(61), width());
  const s = pad(int(61), width());
  const frac = pick(["", `.${int(10)}`, `.${pad(int(1000), 3)}`, `.${pad(int(1e6), 6)}`, ".1234567890123", ",5", "."]);
  const zone = pick(zones);
  const sep = pick(["T", "t", " ", "  ", "\t", "", "_", "T "]);
  const dsep = pick(["-", "/", ".", " ", ""]);
  switch (int(9)) {
    case 0: return `${y}${dsep}${mo}${dsep}${d}${sep}${h}:${mi}:${s}${frac}${zone}`;
    case 1: return `${y}-${mo}-${d}${sep}${h}:${mi}${zone}`;
    case 2: return `${y}-${mo}-${d}${pick(["", `${sep}${h}:${mi}:${s}${frac}`])}${zone}`;
    case 3: return `${mo}/${d}/${y}${pick(["", ` ${h}:${mi}`, ` ${h}:${mi}:${s}`])}${pick(["", " AM", " PM", "pm"])}${zone}`;
    case 4: return `${pick(weekdays)}${d} ${pick(months)} ${y} ${h}:${mi}:${s}${zone}`;
    case 5: return `${pick(weekdays)}${pick(months)} ${d}${pick([" ", ", "])}${y}${pick(["", ` ${h}:${mi}:${s}`])}${zone}`;
    case 6: return `${pick(weekdays)}${pick(months)} ${d} ${y} ${h}:${mi}:${s} GMT${pick(["+", "-"])}${pad(int(1500), 4)}${pick(["", " (Central European Standard Time)", " (Coordinated Universal Time)"])}`;
    case 7: return `${y}${pick(["", `-${mo}`, `-${mo}-${d}`])}${zone}`;
    default: return `${h}:${mi}${pick(["", `:${s}`])}${pick(["", ` ${mo}/${d}/${y}`])}${zone}`;
  }
};
const inserted = ["-", "+", ":", ".", " ", "(", ")", "T", "Z", "0", "1", "9", "a", "\u00a0", "\u2028", "\u0000", "/", ",", "é"];
const mutated = (text) => {
  for (let k = int(4); k > 0; k--) {
    const p = int(text.length + 1);
    const what = int(3);
    if (what === 0) text = text.slice(0, p) + text.slice(p + 1);
    else if (what === 1) text = text.slice(0, p) + pick(inserted) + text.slice(p);
    else text = text.slice(0, p) + String.fromCharCode(int(128)) + text.slice(p + 1);
  }
  return text;
};
const pieces = [
  "0", "1", "2", "9", "00", "01", "05", "10", "12", "13", "23", "24", "25", "29", "30", "31", "32", "45", "49", "50",
  "59", "60", "99", "100", "999", "1000", "0000", "1970", "2000", "2024", "9999", "10000", "000000", "002024",
  "275760", "275761", "123456789", "1234567890123", "-", "+", ":", "::", ".", ",", "/", " ", "  ", "\t", "\n", "T",
  "t", "Z", "z", "Zz", "GMT", "UTC", "UT", "utc", "gmt", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT",
  "CET", "CEST", "BST", "JST", "AM", "PM", "am", "pm", "a.m.", "A", "P", "Jan", "January", "feb", "Mar", "March",
  "apr", "May", "jun", "Jul", "aug", "Sept", "Oct", "nov", "Dec", "DECEMBER", "Ja", "Mo", "Mon", "Monday", "Tue",
  "Thu", "Sun,", "Wed,", "(", ")", "(CET)", "(foo (bar) baz)", "((", "))", "x", "xyz", "é", "\u00a0", "\u3000",
  "\ufeff", "\u2028", "\u0000", "_", "[", "`", "{", "~", "@", "#", "%", "&", "*", "'", "\"", "st", "nd", "th", "of",
];
const strung = () => {
  let text = "";
  for (let k = 1 + int(8); k > 0; k--) text += pick(pieces);
  return text;
};
// Longer texts (the common forms are read at once up to 128 characters, by the parser after).
for (const text of [
  "Tue, 05 Mar 2024 10:20:30 GMT (", "2024-03-05T10:20:30.123Z", "2024-03-05 10:20:30-05:00", " 2024-03-05 10:20",
]) {
  texts.push(text + "x".repeat(130), text + " ".repeat(130), " ".repeat(130) + text, `${text} (${"y".repeat(130)})`);
}
// Mostly valid: each field in its range, at times at its edges or past them.
const p2 = (v) => String(v).padStart(2, "0");
const edge = (lo, hi) => (random() < 0.2 ? pick([lo, hi, hi + 1, Math.max(lo - 1, 0)]) : lo + int(hi - lo + 1));
const valid = () => {
  const y = random() < 0.1 ? pick(["0099", "0100", "0031", "+002024", "-000001", "+275760", "-271821", "9999"]) : String(1900 + int(200));
  const mo = p2(edge(1, 12));
  const d = p2(edge(1, 31));
  const h = p2(edge(0, 23));
  const mi = p2(edge(0, 59));
  const s = p2(edge(0, 59));
  const frac = pick(["", `.${int(1000)}`, `.${String(int(1e6)).padStart(6, "0")}`, `.${String(int(1e9)).padStart(9, "0")}`, ".0"]);
  const off = () => `${pick(["+", "-"])}${p2(edge(0, 23))}${pick([":", ""])}${p2(edge(0, 59))}`;
  const named = ["Jan", "Feb", "Mar", "December", "sep"];
  switch (int(6)) {
    case 0: return `${y}-${mo}-${d}T${h}:${mi}${pick(["", `:${s}`, `:${s}${frac}`])}${pick(["", "Z", "z", off()])}`;
    case 1: return `${y}-${mo}-${d}${pick(["", "Z"])}`;
    case 2: return `${y}-${mo}-${d} ${h}:${mi}${pick(["", `:${s}`, `:${s}${frac}`])}${pick(["", "Z", " Z", off(), ` ${off()}`, `${pick(["+", "-"])}${p2(edge(0, 23))}`])}`;
    case 3: return `${pick(["", "Tue, ", "Sunday "])}${int(33)} ${pick(named)} ${y} ${h}:${mi}${pick(["", `:${s}`])}${pick(["", " GMT", " +0000", " -0500", " GMT+0100", " EST", " PDT", " UT"])}`;
    case 4: return `${pick(["", "Tue "])}${pick(named)} ${p2(edge(1, 31))} ${y} ${h}:${mi}:${s} GMT${pick(["+", "-"])}${p2(edge(0, 14))}${pick(["00", "30", "45"])}${pick(["", " (Central European Standard Time)"])}`;
    default: return `${int(13)}/${int(32)}/${pick([y, String(int(100))])}${pick(["", ` ${int(13)}:${mi}`, ` ${h}:${mi}:${s}`])}${pick(["", " AM", " PM"])}${pick(["", " GMT", " -0500"])}`;
  }
};
for (let i = 0; i < 2000; i++) texts.push(valid());
for (let i = 0; i < 3000; i++) {
  const text = structured();
  texts.push(random() < 0.35 ? mutated(text) : text);
}
for (let i = 0; i < 2000; i++) texts.push(strung());

const out = [];
for (const text of texts) out.push([text, Date.parse(text)]);
// new Date(text) reads the text as Date.parse does; so does a text that an object gives.
const iso = (d) => (Number.isNaN(d.getTime()) ? "Invalid Date" : d.toISOString());
const attempt = (f) => {
  try {
    return f();
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};
const attributes = (o, key) => {
  const d = Object.getOwnPropertyDescriptor(o, key);
  return [typeof d.value, d.writable, d.enumerable, d.configurable];
};
const constructed = [];
for (let i = 0; i < 200; i++) constructed.push(iso(new Date(texts[i])));
out.push(constructed);
class Stamp extends Date {
  label() {
    return `stamp ${this.toISOString()}`;
  }
}
const stamp = new Stamp("2024-03-05 10:20:30-05:00");
out.push([
  iso(new Date({ valueOf: () => "2024-03-05 10:20:30-05:00" })),
  iso(new Date({ toString: () => "2024-03-05 10:20Z", valueOf: null })),
  iso(new Date({ [Symbol.toPrimitive]: (hint) => (hint === "default" ? "2024-03-05 10:20+01:00" : 0) })),
  iso(new Date({ valueOf: () => 86400000 })),
  iso(new Date(new Date("2024-03-05 10:20:30-05"))),
  iso(new Date(new String("2024-03-05 10:20:30-0500"))),
  iso(new Date(["2024-03-05 10:20:30-05:00"])),
  iso(new Date(0)),
  iso(new Date(1e15)),
  iso(new Date(8.64e15 + 1)),
  iso(new Date(undefined)),
  iso(new Date(null)),
  iso(new Date(true)),
  iso(new Date(2024, 2, 5, 10, 20, 30, 400)),
  iso(new Date(99, 0)),
  iso(new Date(Date.UTC(2024, 2, 5))),
  Date.UTC(2024, 2, 5, 10),
  attempt(() => new Date({ [Symbol.toPrimitive]: 1 })),
  attempt(() => new Date({ [Symbol.toPrimitive]: () => ({}) })),
  attempt(() => new Date({ valueOf: () => ({}), toString: () => ({}) })),
  attempt(() => new Date(Symbol("s"))),
  attempt(() => new Date(1n)),
  attempt(() => Date.parse(Symbol("s"))),
  Date.parse({ toString: () => "2024-03-05 10:20:30-05:00" }),
  Date.parse(), Date.parse(undefined), Date.parse(null), Date.parse(20240305), Date.parse(new Date(0)),
  typeof Date(), typeof Date("2024-03-05"), typeof new Date("2024-03-05"),
  new Date("2024-03-05") instanceof Date, stamp instanceof Stamp, stamp instanceof Date, stamp.label(),
  Object.getPrototypeOf(stamp) === Stamp.prototype, Object.getPrototypeOf(Stamp) === Date,
  Date.prototype.constructor === Date, Object.getPrototypeOf(new Date("2024-03-05")) === Date.prototype,
  Reflect.construct(Date, ["2024-03-05 10:20Z"], Stamp).label(),
  Date.length, Date.name, String(Date), `${Date.parse}`, Date.parse.length, Date.parse.name, String(Date.UTC),
  String(Date.now), Object.getOwnPropertyNames(Date), Object.keys(Date),
  attributes(Date, "prototype"), Date.prototype === Object.getPrototypeOf(new Date(0)), attributes(Date, "length"),
  attributes(Date, "name"), attributes(Date, "parse"), attributes(Date, "now"), attributes(Date, "UTC"),
  attributes(Date.prototype, "constructor"),
  "prototype" in Date.parse, attempt(() => new Date.parse("2024")).startsWith("TypeError: "),
  Object.prototype.toString.call(new Date("x")), String(new Date("x")),
]);
return out;
