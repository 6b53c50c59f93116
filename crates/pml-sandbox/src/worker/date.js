// `Date.parse(text)` and `new Date(text)` as Node 20's, in every context (programs' and code
// tasks'), run once after `node20.js`: QuickJS's own parser reads many texts otherwise (a
// Postgres `timestamptz`, `2024-03-05 10:20:30-05:00`, is 05:00:30Z there, 15:20:30Z in Node;
// `2024-01-15t10:00:00z` is NaN there; `CET` is a zone there and not in V8). This is V8's
// parser (v8/src/date/dateparser*.{h,cc} and `ParseDateTimeString` of builtins-date.cc),
// ported: first the ES5 ISO format, then, where that does not read the whole text, the legacy
// parser (numbers, signs, words whose first three letters name a month, AM/PM, T, Z, UT, UTC,
// GMT and the US zones, text in parentheses skipped), composing the day, the time and the zone
// as V8 does; the common forms (ISO, Postgres', RFC 2822) are first tried by a regular
// expression each, which gives the same fields faster. Checked against Node 20 on generated
// texts (`tests/it/intl/date-parse.js`).
// A text without a zone is local time, converted as V8 converts it (in a repeated hour, the
// earlier; in a skipped one, the offset before the change), with the offsets QuickJS knows.
//
// `Date` is replaced by a function that is the original in every other way: called, it is the
// original; constructed with one argument that is (or whose `ToPrimitive` is) a string, it
// constructs the original with the parsed time; with any other arguments it constructs the
// original with them. The same prototype (whose `constructor` it becomes, so `instanceof` and
// subclasses work), `now`, `parse` (this one), `UTC`, `name`, `length`; its text is native
// code's.
(function (globals) {
  const NativeDate = globals.Date;
  const DateProto = NativeDate.prototype;
  const TypeErr = globals.TypeError;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const protoOf = Object.getPrototypeOf;
  const floor = Math.floor;
  const imul = Math.imul;
  const call = Function.prototype.call;
  // `codeAt(text, i)`: no array made for each character, as `apply` would.
  const codeAt = call.bind(String.prototype.charCodeAt);
  const indexOf = call.bind(String.prototype.indexOf);
  const getTime = DateProto.getTime;
  const setTime = DateProto.setTime;
  const getTimezoneOffset = DateProto.getTimezoneOffset;
  const toPrimitiveKey = Symbol.toPrimitive;

  // --- the scanner (V8's InputReader and DateStringTokenizer) ----------------------------
  // Its state in variables of this scope, and the parser in one function, inline: QuickJS
  // pays for every call, and a program may parse 100,000 dates. A token is a tag, a length (a
  // number's digits, leading zeros included; a word's characters) and a value (a number's first
  // 9 significant digits; a symbol's character; a keyword's value in V8's table).
  const UNKNOWN = 1;
  const WHITESPACE = 2;
  const NUMBER = 3;
  const SYMBOL = 4;
  const END = 5;
  // Keywords: a tag from KEYWORD up (V8's KeywordType; KEYWORD itself is a word V8 does not
  // know).
  const KEYWORD = 6;
  const MONTH_NAME = 7;
  const TIME_ZONE_NAME = 8;
  const TIME_SEPARATOR = 9;
  const AM_PM = 10;
  const COLON = 58;
  const MINUS = 45;
  const PLUS = 43;
  const DOT = 46;
  const CLOSE = 41;

  // V8's KeywordTable, in its order: a word's first three characters lower-cased (none past its
  // end), its type and value. A word longer than three characters is only a month's name.
  const table = [
    "jan", MONTH_NAME, 1, "feb", MONTH_NAME, 2, "mar", MONTH_NAME, 3, "apr", MONTH_NAME, 4,
    "may", MONTH_NAME, 5, "jun", MONTH_NAME, 6, "jul", MONTH_NAME, 7, "aug", MONTH_NAME, 8,
    "sep", MONTH_NAME, 9, "oct", MONTH_NAME, 10, "nov", MONTH_NAME, 11, "dec", MONTH_NAME, 12,
    "am", AM_PM, 0, "pm", AM_PM, 12,
    "ut", TIME_ZONE_NAME, 0, "utc", TIME_ZONE_NAME, 0, "z", TIME_ZONE_NAME, 0, "gmt", TIME_ZONE_NAME, 0,
    "cdt", TIME_ZONE_NAME, -5, "cst", TIME_ZONE_NAME, -6, "edt", TIME_ZONE_NAME, -4, "est", TIME_ZONE_NAME, -5,
    "mdt", TIME_ZONE_NAME, -6, "mst", TIME_ZONE_NAME, -7, "pdt", TIME_ZONE_NAME, -7, "pst", TIME_ZONE_NAME, -8,
    "t", TIME_SEPARATOR, 0,
  ];
  // Each entry's prefix as one number (three UTF-16 units, 0 past the word's end).
  const keys = [];
  const keyTags = [];
  const keyValues = [];
  for (let i = 0; i < table.length; i += 3) {
    const word = table[i];
    let key = 0;
    for (let k = 0; k < 3; k++) key = key * 65536 + (k < word.length ? codeAt(word, k) : 0);
    keys[keys.length] = key;
    keyTags[keyTags.length] = table[i + 1];
    keyValues[keyValues.length] = table[i + 2];
  }

  // V8's IsWhiteSpace from U+00A0 up (Zs and U+FEFF): every other character from 'A' up is
  // part of a word (U+2028 and U+2029 too).
  const isWideSpace = (c) =>
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

  // The text (cut at its first NUL: V8's reader ends there), the position, its character (0
  // at the end); the token read ahead (V8's Peek) and the one `next` took (V8's Next).
  let text = "";
  let n = 0;
  let pos = 0;
  let c = 0;
  let peekTag = END;
  let peekLength = 0;
  let peekValue = 0;
  let tokenTag = END;
  let tokenLength = 0;
  let tokenValue = 0;
  // Reads the next token into peek*.
  const scan = () => {
    if (pos >= n) {
      peekTag = END;
      peekLength = 0;
      peekValue = 0;
      return;
    }
    const start = pos;
    if (c >= 48 && c <= 57) {
      // Leading zeros, then at most 9 significant digits; the rest are read and ignored.
      while (c === 48) c = ++pos < n ? codeAt(text, pos) : 0;
      let value = 0;
      let significant = 0;
      while (c >= 48 && c <= 57) {
        if (significant < 9) value = value * 10 + (c - 48);
        significant++;
        c = ++pos < n ? codeAt(text, pos) : 0;
      }
      peekTag = NUMBER;
      peekLength = pos - start;
      peekValue = value;
      return;
    }
    if (c === COLON || c === MINUS || c === PLUS || c === DOT || c === CLOSE) {
      peekTag = SYMBOL;
      peekLength = 1;
      peekValue = c;
      c = ++pos < n ? codeAt(text, pos) : 0;
      return;
    }
    if (c >= 65 && !(c >= 0xa0 && isWideSpace(c))) {
      // A word; V8 lower-cases by `c | 0x20`, so only letters can then match its table.
      let key = 0;
      do {
        if (pos - start < 3) key = key * 65536 + (c >= 65 && c <= 90 ? c + 32 : c);
        c = ++pos < n ? codeAt(text, pos) : 0;
      } while (c >= 65 && !(c >= 0xa0 && isWideSpace(c)));
      const length = pos - start;
      for (let k = length; k < 3; k++) key *= 65536;
      peekTag = KEYWORD;
      peekLength = length;
      peekValue = 0;
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] === key) {
          if (length <= 3 || keyTags[i] === MONTH_NAME) {
            peekTag = keyTags[i];
            peekValue = keyValues[i];
          }
          break;
        }
      }
      return;
    }
    peekTag = UNKNOWN;
    peekLength = 1;
    peekValue = 0;
    if (c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && isWideSpace(c))) {
      peekTag = WHITESPACE;
    } else if (c === 40) {
      // Parentheses, nested, to the one that closes the first (or the end).
      let balance = 0;
      do {
        if (c === 41) --balance;
        else if (c === 40) ++balance;
        c = ++pos < n ? codeAt(text, pos) : 0;
      } while (balance > 0 && c !== 0);
      return;
    }
    c = ++pos < n ? codeAt(text, pos) : 0;
  };
  const next = () => {
    tokenTag = peekTag;
    tokenLength = peekLength;
    tokenValue = peekValue;
    scan();
  };
  const skip = (symbol) => {
    if (peekTag !== SYMBOL || peekValue !== symbol) return false;
    scan();
    return true;
  };

  // The first three significant digits of a fraction, as its value and number of digits say.
  const milliseconds = (number, length) => {
    if (length < 3) {
      if (length === 1) number *= 100;
      else if (length === 2) number *= 10;
    } else if (length > 3) {
      if (length > 9) length = 9;
      let factor = 1;
      do {
        factor *= 10;
        length--;
      } while (length > 3);
      number = floor(number / factor);
    }
    return number;
  };

  // --- the parser (V8's DateParser::Parse, with its composers) ---------------------------
  // What it writes: year, month (0-based), day, hour, minute, second, millisecond, and the
  // zone's offset in seconds (NONE: local time).
  const NONE = 2147483647;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let millisecond = 0;
  let offset = NONE;
  const dayComp = [0, 0, 0];
  const timeComp = [0, 0, 0, 0];
  // False where the text is no date, else the fields are written.
  const parseFields = (string) => {
    text = string;
    const nul = indexOf(string, "\0");
    n = nul < 0 ? string.length : nul;
    pos = 0;
    c = n > 0 ? codeAt(string, 0) : 0;
    scan();
    // DayComposer, TimeComposer, TimeZoneComposer.
    let dayIndex = 0;
    let namedMonth = NONE;
    let isoDate = false;
    let timeIndex = 0;
    let hourOffset = NONE;
    let tzSign = NONE;
    let tzHour = NONE;
    let tzMinute = NONE;

    // ParseES5DateTime: as far as the text is an ES5 date-time; the token the legacy parser
    // goes on with (END when the text was all read).
    let tag = END;
    let value = 0;
    es5: {
      if (peekTag === SYMBOL && (peekValue === MINUS || peekValue === PLUS)) {
        // The sign goes back to the legacy parser if it is not used here.
        next();
        tag = SYMBOL;
        value = tokenValue;
        if (peekTag !== NUMBER || peekLength !== 6) break es5;
        next();
        if (value === MINUS && tokenValue === 0) break es5;
        dayComp[dayIndex++] = value === MINUS ? -tokenValue : tokenValue;
      } else if (peekTag === NUMBER && peekLength === 4) {
        next();
        dayComp[dayIndex++] = tokenValue;
      } else {
        next();
        tag = tokenTag;
        value = tokenValue;
        break es5;
      }
      if (skip(MINUS)) {
        if (peekTag !== NUMBER || peekLength !== 2 || peekValue < 1 || peekValue > 12) {
          next();
          tag = tokenTag;
          value = tokenValue;
          break es5;
        }
        next();
        dayComp[dayIndex++] = tokenValue;
        if (skip(MINUS)) {
          if (peekTag !== NUMBER || peekLength !== 2 || peekValue < 1 || peekValue > 31) {
            next();
            tag = tokenTag;
            value = tokenValue;
            break es5;
          }
          next();
          dayComp[dayIndex++] = tokenValue;
        }
      }
      if (peekTag !== TIME_SEPARATOR) {
        if (peekTag !== END) {
          next();
          tag = tokenTag;
          value = tokenValue;
          break es5;
        }
      } else {
        next();
        if (peekTag !== NUMBER || peekLength !== 2 || peekValue > 24) return false;
        // 24:00[:00[.000]], and no other time of hour 24.
        const hourIs24 = peekValue === 24;
        next();
        timeComp[timeIndex++] = tokenValue;
        if (!skip(COLON)) return false;
        if (peekTag !== NUMBER || peekLength !== 2 || peekValue > 59 || (hourIs24 && peekValue > 0)) return false;
        next();
        timeComp[timeIndex++] = tokenValue;
        if (skip(COLON)) {
          if (peekTag !== NUMBER || peekLength !== 2 || peekValue > 59 || (hourIs24 && peekValue > 0)) return false;
          next();
          timeComp[timeIndex++] = tokenValue;
          if (skip(DOT)) {
            if (peekTag !== NUMBER || (hourIs24 && peekValue > 0)) return false;
            next();
            timeComp[timeIndex++] = milliseconds(tokenValue, tokenLength);
          }
        }
        if (peekTag === TIME_ZONE_NAME && peekLength === 1 && peekValue === 0) {
          // Z
          next();
          tzSign = 1;
          tzHour = 0;
          tzMinute = 0;
        } else if (peekTag === SYMBOL && (peekValue === PLUS || peekValue === MINUS)) {
          next();
          tzSign = tokenValue === PLUS ? 1 : -1;
          if (peekTag === NUMBER && peekLength === 4) {
            // hhmm
            next();
            const h = floor(tokenValue / 100);
            const m = tokenValue % 100;
            if (h > 23 || m > 59) return false;
            tzHour = h;
            tzMinute = m;
          } else {
            // hh:mm
            if (peekTag !== NUMBER || peekLength !== 2 || peekValue > 23) return false;
            next();
            tzHour = tokenValue;
            if (!skip(COLON)) return false;
            if (peekTag !== NUMBER || peekLength !== 2 || peekValue > 59) return false;
            next();
            tzMinute = tokenValue;
          }
        }
        if (peekTag !== END) return false;
      }
      // A date alone is UTC; a date and a time without a zone, local time.
      if (tzHour === NONE && timeIndex === 0) {
        tzSign = 1;
        tzHour = 0;
        tzMinute = 0;
      }
      isoDate = true;
      tag = END;
    }

    // The legacy parser, from that token on.
    let hasReadNumber = dayIndex !== 0;
    while (tag !== END) {
      if (tag === NUMBER) {
        hasReadNumber = true;
        const x = value;
        if (skip(COLON)) {
          if (skip(COLON)) {
            // x::
            if (timeIndex !== 0) return false;
            timeComp[timeIndex++] = x;
            timeComp[timeIndex++] = 0;
          } else {
            // x:
            if (timeIndex === 4) return false;
            timeComp[timeIndex++] = x;
            if (peekTag === SYMBOL && peekValue === DOT) next();
          }
        } else if (skip(DOT) && ((timeIndex === 1 && x <= 59) || (timeIndex === 2 && x <= 59) || (timeIndex === 3 && x <= 999))) {
          // x.fraction
          timeComp[timeIndex++] = x;
          if (peekTag !== NUMBER) return false;
          next();
          if (timeIndex < 4) {
            timeComp[timeIndex++] = milliseconds(tokenValue, tokenLength);
            while (timeIndex < 4) timeComp[timeIndex++] = 0;
          }
        } else if (tzHour !== NONE && tzMinute === NONE && x <= 59) {
          tzMinute = x;
        } else if ((timeIndex === 1 && x <= 59) || (timeIndex === 2 && x <= 59) || (timeIndex === 3 && x <= 999)) {
          // The time's last number: then the end, white space, "Z", "+" or "-".
          timeComp[timeIndex++] = x;
          while (timeIndex < 4) timeComp[timeIndex++] = 0;
          if (peekTag !== END && peekTag !== WHITESPACE && !(peekTag === TIME_ZONE_NAME && peekLength === 1 && peekValue === 0) &&
              !(peekTag === SYMBOL && (peekValue === MINUS || peekValue === PLUS))) {
            return false;
          }
        } else {
          if (dayIndex === 3) return false;
          dayComp[dayIndex++] = x;
          skip(MINUS);
        }
      } else if (tag >= KEYWORD) {
        if (tag === AM_PM && timeIndex !== 0) {
          hourOffset = value;
        } else if (tag === MONTH_NAME) {
          namedMonth = value;
          skip(MINUS);
        } else if (tag === TIME_ZONE_NAME && hasReadNumber) {
          tzSign = value < 0 ? -1 : 1;
          tzHour = value < 0 ? -value : value;
          tzMinute = 0;
        } else {
          // A word V8 does not know is allowed before the first number only, and not right
          // before it.
          if (hasReadNumber || peekTag === NUMBER) return false;
        }
      } else if (tag === SYMBOL && (value === MINUS || value === PLUS) && ((tzHour === 0 && tzMinute === 0) || timeIndex !== 0)) {
        // A zone's offset, after UTC or a time; its number may be missing.
        tzSign = value === MINUS ? -1 : 1;
        let x = 0;
        let digits = 0;
        if (peekTag === NUMBER) {
          next();
          digits = tokenLength;
          x = tokenValue;
        }
        hasReadNumber = true;
        if (peekTag === SYMBOL && peekValue === COLON) {
          tzHour = x;
          tzMinute = NONE;
        } else if (digits === 1 || digits === 2) {
          // GMT-8
          tzHour = x;
          tzMinute = 0;
        } else if (digits === 3 || digits === 4) {
          // hhmm
          tzHour = floor(x / 100);
          tzMinute = x % 100;
        } else {
          return false;
        }
      } else if (tag === SYMBOL && (value === MINUS || value === PLUS || value === CLOSE) && hasReadNumber) {
        // A sign or a ")" past the first number.
        return false;
      }
      // Anything else is ignored.
      next();
      tag = tokenTag;
      value = tokenValue;
    }

    // DayComposer::Write: day and month are 1 when missing.
    if (dayIndex < 1) return false;
    while (dayIndex < 3) dayComp[dayIndex++] = 1;
    let y = 0;
    let m = NONE;
    let d = NONE;
    if (namedMonth === NONE) {
      if (isoDate || !(dayComp[0] >= 1 && dayComp[0] <= 31)) {
        y = dayComp[0];
        m = dayComp[1];
        d = dayComp[2];
      } else {
        m = dayComp[0];
        d = dayComp[1];
        y = dayComp[2];
      }
    } else {
      // (V8 reads one number as the day only when its index is 1, after it filled it to 3:
      // never; the number's year is then 1, 2001.)
      m = namedMonth;
      if (!(dayComp[0] >= 1 && dayComp[0] <= 31)) {
        y = dayComp[0];
        d = dayComp[1];
      } else {
        d = dayComp[0];
        y = dayComp[1];
      }
    }
    if (!isoDate) {
      if (y >= 0 && y <= 49) y += 2000;
      else if (y >= 50 && y <= 99) y += 1900;
    }
    if (!(m >= 1 && m <= 12) || !(d >= 1 && d <= 31)) return false;

    // TimeComposer::Write: every part is 0 when missing; hour 24 when the rest is 0.
    while (timeIndex < 4) timeComp[timeIndex++] = 0;
    let h = timeComp[0];
    const mi = timeComp[1];
    const s = timeComp[2];
    const ms = timeComp[3];
    if (hourOffset !== NONE) {
      if (!(h >= 0 && h <= 12)) return false;
      h = (h % 12) + hourOffset;
    }
    if (!(h >= 0 && h <= 23) || !(mi >= 0 && mi <= 59) || !(s >= 0 && s <= 59) || !(ms >= 0 && ms <= 999)) {
      if (h !== 24 || mi !== 0 || s !== 0 || ms !== 0) return false;
    }

    // TimeZoneComposer::Write: in unsigned 32-bit arithmetic, as V8's, then at most its
    // largest small integer.
    let zone = NONE;
    if (tzSign !== NONE) {
      if (tzHour === NONE) tzHour = 0;
      if (tzMinute === NONE) tzMinute = 0;
      const total = (imul(tzHour, 3600) + imul(tzMinute, 60)) >>> 0;
      if (total > 2147483647) return false;
      zone = tzSign < 0 ? -total : total;
    }

    year = y;
    month = m - 1;
    day = d;
    hour = h;
    minute = mi;
    second = s;
    millisecond = ms;
    offset = zone;
    return true;
  };

  // --- the common forms, read at once ----------------------------------------------------
  // An ES5 date-time (`2024-03-05T10:20:30.123Z`), a date and a time apart with an offset
  // (Postgres' `2024-03-05 10:20:30.123456-05`) and RFC 2822's forms by one regular expression
  // each, made once, ten times faster than the parser above in QuickJS: the fields as that
  // parser writes them, where every part is in the ranges that make it take the same way
  // (else it reads the text; checked against it and Node on generated texts). Only short
  // texts: QuickJS's matcher keeps a state for each character it may go back to.
  const AT_ONCE_LENGTH = 128;
  const exec = call.bind(RegExp.prototype.exec);
  const ISO = /^(?:([+-]\d{6})|(\d{4}))(?:-(\d\d)(?:-(\d\d))?)?(?:[Tt](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d\d):?(\d\d))?)?$/;
  const SPACED = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(?: ?([Zz])| ?([+-])(\d\d)(?::(\d\d)|(\d\d))?)?$/;
  // RFC 2822 and what `Date.prototype.toString` writes: `Tue, 05 Mar 2024 10:20:30 GMT`,
  // `Tue Mar 05 2024 10:20:30 GMT+0100 (Central European Standard Time)`, `Mar 5, 2024 10:20`.
  const NAMED = /^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*(?:, ?| ))?(?:(\d\d?) (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* (\d\d?),?) (\d{4}) (\d\d):(\d\d)(?::(\d\d))?(?: (?:(gmt|utc|ut|z)(?:([+-])(\d{4}))?|([+-])(\d{4})|([ecmp][sd]t)))?(?: \([^()\0]*\))?$/i;
  const lowerCase = call.bind(String.prototype.toLowerCase);
  const MONTHS = { __proto__: null, jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };
  const US_ZONES = { __proto__: null, edt: -4, est: -5, cdt: -5, cst: -6, mdt: -6, mst: -7, pdt: -7, pst: -8 };
  // The legacy parser: a weekday's name and the separators are ignored; the day and the
  // year (from 100: a smaller one is read otherwise) go to the DayComposer, the month's name
  // sets the month; an hour from 24, a minute or second from 60 are read otherwise; a zone's
  // name sets the offset, a sign after it or after the time sets it again (hhmm, unchecked).
  const readNamed = (string) => {
    const m = exec(NAMED, string);
    if (m === null) return false;
    const d = +(m[1] === undefined ? m[4] : m[1]);
    const y = +m[5];
    const h = +m[6];
    const mi = +m[7];
    const sec = m[8] === undefined ? 0 : +m[8];
    if (d < 1 || d > 31 || y < 100 || h > 23 || mi > 59 || sec > 59) return false;
    let zone = NONE;
    let sign = m[10];
    let digits = m[11];
    if (m[9] !== undefined) {
      zone = 0;
    } else if (m[12] !== undefined) {
      sign = m[12];
      digits = m[13];
    } else if (m[14] !== undefined) {
      zone = US_ZONES[lowerCase(m[14])] * 3600;
    }
    if (sign !== undefined) {
      const hhmm = +digits;
      zone = (floor(hhmm / 100) * 3600 + (hhmm % 100) * 60) * (sign === "-" ? -1 : 1);
    }
    year = y;
    month = MONTHS[lowerCase(m[2] === undefined ? m[3] : m[2])];
    day = d;
    hour = h;
    minute = mi;
    second = sec;
    millisecond = 0;
    offset = zone;
    return true;
  };
  const readAtOnce = (string) => {
    let m = exec(ISO, string);
    if (m !== null) {
      // ParseES5DateTime: a year of 6 digits is signed (and -000000 none); a month, day, hour,
      // minute or second out of its range is read otherwise (or not at all); so is hour 24.
      let y;
      if (m[1] !== undefined) {
        y = +m[1];
        if (y === 0 && m[1][0] === "-") return false;
      } else {
        y = +m[2];
      }
      const mo = m[3] === undefined ? 1 : +m[3];
      const d = m[4] === undefined ? 1 : +m[4];
      if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
      year = y;
      month = mo - 1;
      day = d;
      hour = 0;
      minute = 0;
      second = 0;
      millisecond = 0;
      offset = 0;
      if (m[5] !== undefined) {
        const h = +m[5];
        const mi = +m[6];
        const sec = m[7] === undefined ? 0 : +m[7];
        if (h > 23 || mi > 59 || sec > 59) return false;
        hour = h;
        minute = mi;
        second = sec;
        if (m[8] !== undefined) millisecond = milliseconds(+m[8], m[8].length);
        if (m[10] !== undefined) {
          const zh = +m[11];
          const zm = +m[12];
          if (zh > 23 || zm > 59) return false;
          offset = (zh * 3600 + zm * 60) * (m[10] === "-" ? -1 : 1);
        } else if (m[9] === undefined) {
          offset = NONE;
        }
      }
      return true;
    }
    m = exec(SPACED, string);
    if (m === null) return readNamed(string);
    // The legacy parser after the ES5 date: a year from 100 is the year (a smaller one may be
    // a day, or a year of the 1900s); an hour from 24, a minute or second from 60 are read
    // otherwise; an offset's hour is not checked (nor its minutes, of 4 digits).
    const y = +m[1];
    const mo = +m[2];
    const d = +m[3];
    const h = +m[4];
    const mi = +m[5];
    const sec = m[6] === undefined ? 0 : +m[6];
    if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return false;
    let zone = NONE;
    if (m[8] !== undefined) {
      zone = 0;
    } else if (m[9] !== undefined) {
      const zh = +m[10];
      let zm = 0;
      if (m[11] !== undefined) {
        zm = +m[11];
        if (zm > 59) return false;
      } else if (m[12] !== undefined) {
        zm = +m[12];
      }
      zone = (zh * 3600 + zm * 60) * (m[9] === "-" ? -1 : 1);
    }
    year = y;
    month = mo - 1;
    day = d;
    hour = h;
    minute = mi;
    second = sec;
    millisecond = m[7] === undefined ? 0 : milliseconds(+m[7], m[7].length);
    offset = zone;
    return true;
  };

  // --- the time value (V8's ParseDateTimeString) -------------------------------------------
  const MS_PER_DAY = 86400000;
  const MAX_TIME = 8.64e15;
  const MAX_TIME_BEFORE_UTC = MAX_TIME + 864000000;
  const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
  const DAYS_BEFORE_MONTH_LEAP = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];
  // V8's MakeDay for a month 0..11: NaN past a million years.
  const makeDay = (y, m, d) => {
    if (!(y >= -1000000 && y <= 1000000)) return NaN;
    const days = 365 * (y - 1970) + floor((y - 1969) / 4) - floor((y - 1901) / 100) + floor((y - 1601) / 400);
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    return days + (leap ? DAYS_BEFORE_MONTH_LEAP : DAYS_BEFORE_MONTH)[m] + d - 1;
  };
  // The local time zone's offset (UTC minus local, in ms) at time `t`, as QuickJS knows it.
  let scratch;
  const offsetAt = (t) => {
    if (scratch === undefined) scratch = new NativeDate(0);
    apply(setTime, scratch, [t < -MAX_TIME ? -MAX_TIME : t > MAX_TIME ? MAX_TIME : t]);
    return apply(getTimezoneOffset, scratch, []) * 60000;
  };
  // Local time `local` as UTC, as V8's DateCache::ToUTC: the offset in force at that local
  // time; in a repeated hour, the earlier of the two; in a skipped hour, the one before.
  const localToUTC = (local) => {
    const before = offsetAt(local - 14 * 3600000);
    const after = offsetAt(local + 14 * 3600000);
    if (before === after) return local + before;
    const early = local + before;
    if (offsetAt(early) === before) return early;
    const late = local + after;
    return offsetAt(late) === after ? late : early;
  };
  const parse = (string) => {
    if (!(string.length <= AT_ONCE_LENGTH && readAtOnce(string)) && !parseFields(string)) return NaN;
    let date = makeDay(year, month, day) * MS_PER_DAY + (hour * 3600000 + minute * 60000 + second * 1000 + millisecond);
    if (offset === NONE) {
      if (!(date >= -MAX_TIME_BEFORE_UTC && date <= MAX_TIME_BEFORE_UTC)) return NaN;
      date = localToUTC(date);
    } else {
      date -= offset * 1000;
    }
    if (!(date >= -MAX_TIME && date <= MAX_TIME)) return NaN;
    return date + 0;
  };

  // --- Date.parse and the Date constructor -------------------------------------------------
  const dateParse = {
    parse(string) {
      return parse(`${string}`);
    },
  }.parse;

  const isDate = (v) => {
    try {
      apply(getTime, v, []);
      return true;
    } catch (e) {
      return false;
    }
  };
  // What V8 names an object in its message (`#<Foo>`), read with no getter run.
  const named = (v) => {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return `${typeof v === "symbol" ? "Symbol()" : v}`;
    for (let p = v, k = 0; p !== null && k < 1000; p = protoOf(p), k++) {
      const d = describe(p, "constructor");
      if (d === undefined) continue;
      const name = "value" in d && typeof d.value === "function" ? describe(d.value, "name") : undefined;
      return name !== undefined && typeof name.value === "string" && name.value !== "" ? `#<${name.value}>` : "[object Object]";
    }
    return "[object Object]";
  };
  const PRIMITIVE = "Cannot convert object to primitive value";
  // ToPrimitive(v) with no hint, as `new Date(v)` makes it.
  const toPrimitive = (v) => {
    const exotic = v[toPrimitiveKey];
    if (exotic !== undefined && exotic !== null) {
      if (typeof exotic !== "function") {
        throw new TypeErr(`'${named(exotic)}' returned for property 'Symbol(Symbol.toPrimitive)' of object '${named(v)}' is not a function`);
      }
      const result = apply(exotic, v, ["default"]);
      if (result !== null && (typeof result === "object" || typeof result === "function")) throw new TypeErr(PRIMITIVE);
      return result;
    }
    const valueOfMethod = v.valueOf;
    if (typeof valueOfMethod === "function") {
      const result = apply(valueOfMethod, v, []);
      if (result === null || (typeof result !== "object" && typeof result !== "function")) return result;
    }
    const toStringMethod = v.toString;
    if (typeof toStringMethod === "function") {
      const result = apply(toStringMethod, v, []);
      if (result === null || (typeof result !== "object" && typeof result !== "function")) return result;
    }
    throw new TypeErr(PRIMITIVE);
  };

  const Replaced = function Date(year, month, date, hours, minutes, seconds, ms) {
    if (new.target === undefined) return NativeDate();
    if (arguments.length !== 1) return construct(NativeDate, arguments, new.target);
    let value = year;
    if (typeof value === "string") {
      value = parse(value);
    } else if (value !== null && (typeof value === "object" || typeof value === "function") && !isDate(value)) {
      value = toPrimitive(value);
      if (typeof value === "string") value = parse(value);
    }
    return construct(NativeDate, [value], new.target);
  };
  const method = (value) => ({ value, writable: true, enumerable: false, configurable: true });
  define(Replaced, "prototype", { value: DateProto, writable: false, enumerable: false, configurable: false });
  define(DateProto, "constructor", method(Replaced));
  define(Replaced, "now", method(NativeDate.now));
  define(Replaced, "parse", method(dateParse));
  define(Replaced, "UTC", method(NativeDate.UTC));
  define(globals, "Date", method(Replaced));
})
