// `Intl.Collator`, `Intl.NumberFormat`, `Intl.DateTimeFormat`, `String.prototype.localeCompare`
// and the `toLocaleString` of numbers, BigInts and dates, as Node 20 (V8 + ICU) has them, over
// the natives of `intl.rs`: `canonical(tag)`, `collate(a, b, locale, flags)`,
// `formatNumber(value, locale, digits, compact)`, `loadDates(locale)` (a locale's date patterns,
// `intl_dates/`, or `undefined`),
// the process's time zone `localZone`, `loadTable(name)` (`"currencies"`:
// `intl_currencies.json`, `"percent"`: `intl_percent.json`, `"compact"`: `intl_compact.json`,
// `"zones"`: `intl_zones.json`), `loadRelative()` (`intl_relative.json`) and `zoneOffset(zone, t)`
// (minutes east of UTC of an IANA time zone at an instant).
// Options
// are read in ECMA-402's order, with V8's messages; what pml cannot answer as Node does throws
// a RangeError saying so.
(function (canonical, collate, formatNumber, loadDates, localZone, loadTable, loadRelative, zoneOffset) {
  "use strict";
  const O = Object;
  const create = O.create;
  const define = O.defineProperty;
  const Str = String;
  const Num = Number;
  const Bool = Boolean;
  const RangeErr = RangeError;
  const TypeErr = TypeError;
  const apply = Reflect.apply;
  const floor = Math.floor;
  const slots = new WeakMap();
  // A receiver as V8 names it in an error, without running its code: `#<Object>`.
  const receiverText = (self) => {
    if (self === null || (typeof self !== "object" && typeof self !== "function")) return typeof self === "symbol" ? "Symbol()" : Str(self);
    for (let p = self, n = 0; p !== null && n < 1000; p = O.getPrototypeOf(p), n++) {
      const d = O.getOwnPropertyDescriptor(p, "constructor");
      if (d === undefined) continue;
      const name = typeof d.value === "function" ? O.getOwnPropertyDescriptor(d.value, "name") : undefined;
      return name !== undefined && typeof name.value === "string" && name.value !== "" ? `#<${name.value}>` : "[object Object]";
    }
    return "[object Object]";
  };
  const slotOf = (self, kind, method) => {
    const slot = typeof self === "object" && self !== null ? apply(WeakMap.prototype.get, slots, [self]) : undefined;
    if (slot === undefined || slot.kind !== kind) {
      throw new TypeErr(`Method Intl.${kind}.prototype.${method} called on incompatible receiver ${receiverText(self)}`);
    }
    return slot;
  };
  const numValueOf = Number.prototype.valueOf;
  const bigValueOf = BigInt.prototype.valueOf;
  const bigToString = BigInt.prototype.toString;
  const includes = (list, value) => {
    for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
    return false;
  };
  const hasOwn = O.prototype.hasOwnProperty;
  // `object[key]` if it is the object's own (the data's maps answer no inherited key).
  const own = (object, key) => (apply(hasOwn, object, [key]) ? object[key] : undefined);
  const method = (value) => ({ value, writable: true, enumerable: false, configurable: true });
  const named = (name, f) => define(f, "name", { value: name, configurable: true });

  const DEFAULT_LOCALE = "en-US";
  // CanonicalizeLocaleList.
  const localeList = (locales) => {
    if (locales === undefined) return [];
    const list = typeof locales === "string" ? [locales] : O(locales);
    const length = typeof locales === "string" ? 1 : floor(Num(list.length)) || 0;
    const out = [];
    for (let i = 0; i < length; i++) {
      if (!(typeof locales === "string" || i in list)) continue;
      const tag = list[i];
      if (typeof tag !== "string" && (typeof tag !== "object" || tag === null)) {
        throw new TypeErr("Language ID should be string or object.");
      }
      const c = canonical(Str(tag));
      if (c === undefined) throw new RangeErr("Incorrect locale information provided");
      if (!includes(out, c)) out[out.length] = c;
    }
    return out;
  };
  const firstLocale = (locales) => {
    const list = localeList(locales);
    return list.length === 0 ? DEFAULT_LOCALE : list[0];
  };
  const optionsOf = (options) => {
    if (options === undefined) return create(null);
    if (options === null) throw new TypeErr("Cannot convert undefined or null to object");
    return O(options);
  };
  const getOption = (service, options, name, type, values, fallback) => {
    let value = options[name];
    if (value === undefined) return fallback;
    value = type === "boolean" ? Bool(value) : Str(value);
    if (values !== undefined && !includes(values, value)) {
      throw new RangeErr(`Value ${value} out of range for Intl.${service} options property ${name}`);
    }
    return value;
  };
  // The value of a `-u-` keyword of a canonical tag ("" when present without a value).
  const keyword = (tag, key) => {
    const at = tag.indexOf("-u-");
    if (at === -1) return undefined;
    const parts = tag.slice(at + 3).split("-");
    for (let i = 0; i < parts.length; i++) {
      if (parts[i].length === 1) return undefined;
      if (parts[i] === key) {
        const next = parts[i + 1];
        return next !== undefined && next.length > 2 ? next : "";
      }
    }
    return undefined;
  };
  const unsupported = (service, what) => new RangeErr(`pml: Intl.${service} does not support ${what} (Node's answer would differ)`);

  // Collator.
  const SENSITIVITIES = ["base", "accent", "case", "variant"];
  const CASE_FIRSTS = ["upper", "lower", "false"];
  const resolveCollator = (locales, options) => {
    options = optionsOf(options);
    const usage = getOption("Collator", options, "usage", "string", ["sort", "search"], "sort");
    const locale = firstLocale(locales);
    const numericOption = getOption("Collator", options, "numeric", "boolean", undefined, undefined);
    const caseFirstOption = getOption("Collator", options, "caseFirst", "string", CASE_FIRSTS, undefined);
    const sensitivity = getOption("Collator", options, "sensitivity", "string", SENSITIVITIES, "variant");
    const ignorePunctuation = getOption("Collator", options, "ignorePunctuation", "boolean", undefined, false);
    const kn = keyword(locale, "kn");
    const kf = keyword(locale, "kf");
    const numeric = numericOption !== undefined ? numericOption : kn === "" || kn === "true";
    const caseFirst = caseFirstOption !== undefined ? caseFirstOption : includes(CASE_FIRSTS, kf) ? kf : "false";
    const explicitCase = caseFirstOption !== undefined || includes(CASE_FIRSTS, kf);
    const flags = SENSITIVITIES.indexOf(sensitivity)
      | (numeric ? 4 : 0)
      | ((explicitCase ? CASE_FIRSTS.indexOf(caseFirst) + 1 : 0) << 3)
      | (ignorePunctuation ? 32 : 0);
    return { kind: "Collator", locale, usage, sensitivity, ignorePunctuation, numeric, caseFirst, flags, bound: undefined };
  };
  const DEFAULT_FLAGS = 3;

  const Collator = function Collator(locales, options) {
    const self = create(new.target === undefined ? Collator.prototype : new.target.prototype);
    apply(WeakMap.prototype.set, slots, [self, resolveCollator(locales, options)]);
    return self;
  };
  define(Collator, "length", { value: 0, configurable: true });
  const CollatorProto = Collator.prototype;
  define(CollatorProto, "compare", {
    get: named("get compare", function () {
      const slot = slotOf(this, "Collator", "compare");
      if (slot.bound === undefined) {
        slot.bound = named("", (x, y) => collate(Str(x), Str(y), slot.locale, slot.flags));
      }
      return slot.bound;
    }),
    enumerable: false,
    configurable: true,
  });
  define(CollatorProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "Collator", "resolvedOptions");
    return {
      locale: slot.locale,
      usage: slot.usage,
      sensitivity: slot.sensitivity,
      ignorePunctuation: slot.ignorePunctuation,
      collation: "default",
      numeric: slot.numeric,
      caseFirst: slot.caseFirst,
    };
  }));
  define(CollatorProto, Symbol.toStringTag, { value: "Intl.Collator", configurable: true });
  define(Collator, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    return localeList(locales);
  }));

  // NumberFormat.
  const numberOption = (options, name, min, max, fallback) => {
    const value = options[name];
    return defaultNumber(value, min, max, fallback, name);
  };
  const defaultNumber = (value, min, max, fallback, name) => {
    if (value === undefined) return fallback;
    const n = Num(value);
    if (n !== n || n < min || n > max) throw new RangeErr(`${name} value is out of range.`);
    return floor(n);
  };
  const GROUPINGS = ["never", "always", "min2", "auto"];
  const SIGN_DISPLAYS = ["auto", "never", "always", "exceptZero", "negative"];
  const ROUNDING_MODES = ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"];
  const resolveNumberFormat = (locales, options) => {
    options = optionsOf(options);
    const locale = firstLocale(locales);
    getOption("NumberFormat", options, "localeMatcher", "string", ["lookup", "best fit"], "best fit");
    const numberingSystem = getOption("NumberFormat", options, "numberingSystem", "string", undefined, undefined);
    if (numberingSystem !== undefined && numberingSystem !== "latn") throw unsupported("NumberFormat", `numberingSystem: "${numberingSystem}"`);
    const style = getOption("NumberFormat", options, "style", "string", ["decimal", "percent", "currency", "unit"], "decimal");
    // SetNumberFormatUnitOptions.
    let currency = getOption("NumberFormat", options, "currency", "string", undefined, undefined);
    if (currency !== undefined) {
      if (apply(exec, /^[A-Za-z]{3}$/, [currency]) === null) throw new RangeErr(`Invalid currency code : ${currency}`);
      currency = apply(toUpper, currency, []);
    }
    const currencyDisplay = getOption("NumberFormat", options, "currencyDisplay", "string", ["code", "symbol", "narrowSymbol", "name"], "symbol");
    const currencySign = getOption("NumberFormat", options, "currencySign", "string", ["standard", "accounting"], "standard");
    const unit = getOption("NumberFormat", options, "unit", "string", undefined, undefined);
    // IsWellFormedUnitIdentifier: a sanctioned unit, or two joined by `-per-`.
    if (unit !== undefined) {
      if (zones === undefined) zones = loadTable("zones");
      const sanctioned = zones.supported.unit;
      const per = apply(stringIndexOf, unit, ["-per-"]);
      const well = includes(sanctioned, unit)
        || (per > 0 && includes(sanctioned, apply(sliceString, unit, [0, per])) && includes(sanctioned, apply(sliceString, unit, [per + 5])));
      if (!well) throw new RangeErr(`Invalid unit argument for Intl.NumberFormat() '${unit}'`);
    }
    const unitDisplay = getOption("NumberFormat", options, "unitDisplay", "string", ["short", "narrow", "long"], "short");
    let money;
    if (style === "currency") {
      if (currency === undefined) throw new TypeErr("Currency code is required with currency style.");
      if (currencies === undefined) currencies = loadTable("currencies");
      const data = currencies[locale === "en" ? "en-US" : locale];
      if (data === undefined || !apply(O.prototype.hasOwnProperty, currencies, [locale === "en" ? "en-US" : locale])) {
        throw unsupported("NumberFormat", `currencies in the locale ${locale}`);
      }
      let names;
      let symbol;
      if (currencyDisplay === "name") {
        // English only: the number, a space and the name in the number's plural form.
        if (data.names === null) throw unsupported("NumberFormat", `currencyDisplay: "name" in the locale ${locale}`);
        names = { one: own(data.names.one, currency) ?? currency, other: own(data.names.other, currency) ?? currency };
      } else {
        const symbols = data.symbols[currencyDisplay];
        symbol = currencyDisplay === "code" || own(symbols, currency) === undefined ? currency : own(symbols, currency);
      }
      const patterns = data.patterns[currencySign];
      if (patterns === null) throw unsupported("NumberFormat", `currencySign: "${currencySign}" in the locale ${locale}`);
      const digits = own(currencies.digits, currency);
      money = { currency, currencyDisplay, currencySign, symbol, names, positive: patterns[0], negative: patterns[1], digits: digits === undefined ? 2 : digits };
    }
    // Units (English, simple units): the pattern of each plural form (`intl_units.json`).
    let units;
    if (style === "unit") {
      if (unit === undefined) throw new TypeErr("Invalid unit argument for Intl.NumberFormat() ''");
      if (unitTables === undefined) unitTables = loadTable("units");
      const table = own(unitTables, locale === "en" ? "en-US" : locale);
      if (table === undefined) throw unsupported("NumberFormat", `style: "unit" in the locale ${locale}`);
      const entry = own(table[unitDisplay], unit);
      if (entry === undefined) throw unsupported("NumberFormat", `the unit ${unit}`);
      units = { unit, unitDisplay, one: typeof entry === "string" ? entry : entry[0], other: typeof entry === "string" ? entry : entry[1] };
    }
    // Percentages: the locale's patterns and words of `intl_percent.json` (loaded on first use).
    let percent;
    if (style === "percent") {
      if (percents === undefined) percents = loadTable("percent");
      percent = own(percents, locale);
      if (percent === undefined) throw unsupported("NumberFormat", `percentages in the locale ${locale}`);
    }
    // V8 (Node 20) reads the rounding increment here, and the rounding mode last.
    const roundingIncrement = numberOption(options, "roundingIncrement", 1, 5000, 1);
    if (roundingIncrement !== 1) throw unsupported("NumberFormat", `roundingIncrement: ${roundingIncrement}`);
    const notation = getOption("NumberFormat", options, "notation", "string", ["standard", "scientific", "engineering", "compact"], "standard");
    // Scientific and engineering notation in English (other locales write the exponent
    // otherwise: `×10^`, `أس`, a minus with a mark).
    if ((notation === "scientific" || notation === "engineering") && locale !== "en" && apply(stringIndexOf, locale, ["en-"]) !== 0) {
      throw unsupported("NumberFormat", `notation: "${notation}" in the locale ${locale}`);
    }
    // SetNumberFormatDigitOptions.
    const minimumIntegerDigits = numberOption(options, "minimumIntegerDigits", 1, 21, 1);
    let mnfd = options.minimumFractionDigits;
    let mxfd = options.maximumFractionDigits;
    let mnsd = options.minimumSignificantDigits;
    let mxsd = options.maximumSignificantDigits;
    const roundingPriority = getOption("NumberFormat", options, "roundingPriority", "string", ["auto", "morePrecision", "lessPrecision"], "auto");
    if (roundingPriority !== "auto") throw unsupported("NumberFormat", `roundingPriority: "${roundingPriority}"`);
    const trailingZeroDisplay = getOption("NumberFormat", options, "trailingZeroDisplay", "string", ["auto", "stripIfInteger"], "auto");
    const mnfdDefault = money !== undefined ? money.digits : 0;
    const mxfdDefault = money !== undefined ? money.digits : style === "percent" ? 0 : 3;
    const hasSd = mnsd !== undefined || mxsd !== undefined;
    const hasFd = mnfd !== undefined || mxfd !== undefined;
    let significant = false;
    // Compact notation without digit options: whichever of 2 significant digits and none after
    // the point rounds at the lower place (roundingPriority "morePrecision").
    let morePrecision = false;
    if (hasSd) {
      significant = true;
      mnsd = defaultNumber(mnsd, 1, 21, 1, "minimumSignificantDigits");
      mxsd = defaultNumber(mxsd, mnsd, 21, 21, "maximumSignificantDigits");
    } else if (hasFd) {
      mnfd = defaultNumber(mnfd, 0, 100, undefined, "minimumFractionDigits");
      mxfd = defaultNumber(mxfd, 0, 100, undefined, "maximumFractionDigits");
      if (mnfd === undefined) mnfd = mnfdDefault < mxfd ? mnfdDefault : mxfd;
      else if (mxfd === undefined) mxfd = mxfdDefault > mnfd ? mxfdDefault : mnfd;
      else if (mnfd > mxfd) throw new RangeErr("maximumFractionDigits value is out of range.");
    } else if (notation === "compact") {
      morePrecision = true;
      mnfd = 0;
      mxfd = 0;
      mnsd = 1;
      mxsd = 2;
    } else {
      mnfd = mnfdDefault;
      mxfd = mxfdDefault;
    }
    const compactDisplay = getOption("NumberFormat", options, "compactDisplay", "string", ["short", "long"], "short");
    // The divisor and pattern of each magnitude (`intl_compact.json`, loaded on first use).
    let compact;
    if (notation === "compact") {
      if (compacts === undefined) compacts = loadTable("compact");
      const data = own(compacts, locale);
      compact = data === undefined ? null : data[compactDisplay];
      if (compact === null) throw unsupported("NumberFormat", `notation: "compact" with compactDisplay: "${compactDisplay}" in the locale ${locale}`);
      // ICU's compact percentages and amounts are checked against Node in English only
      // (German ones have a plain space where the standard pattern has a no-break one).
      if (style !== "decimal" && locale !== "en" && apply(stringIndexOf, locale, ["en-"]) !== 0) {
        throw unsupported("NumberFormat", `notation: "compact" with style: "${style}" in the locale ${locale}`);
      }
    }
    const defaultGrouping = notation === "compact" ? "min2" : "auto";
    let grouping = options.useGrouping;
    if (grouping === undefined) grouping = defaultGrouping;
    else if (grouping === true) grouping = "always";
    else if (grouping === false || grouping === null || grouping === 0 || grouping === "") grouping = false;
    else {
      grouping = Str(grouping);
      if (grouping === "true" || grouping === "false") grouping = defaultGrouping;
      else if (!includes(["min2", "auto", "always"], grouping)) {
        throw new RangeErr(`Value ${grouping} out of range for Intl.NumberFormat options property useGrouping`);
      }
    }
    const signDisplay = getOption("NumberFormat", options, "signDisplay", "string", ["auto", "never", "always", "exceptZero", "negative"], "auto");
    if (signDisplay !== "auto" && money !== undefined && money.currencySign === "accounting") {
      throw unsupported("NumberFormat", `signDisplay: "${signDisplay}" with currencySign: "accounting"`);
    }
    const roundingMode = getOption("NumberFormat", options, "roundingMode", "string", ROUNDING_MODES, "halfExpand");
    const digits = [
      style === "percent" ? 1 : 0,
      minimumIntegerDigits,
      significant ? 0 : mnfd,
      significant ? 0 : mxfd,
      significant || morePrecision ? mnsd : -1,
      significant || morePrecision ? mxsd : -1,
      grouping === false ? 0 : GROUPINGS.indexOf(grouping),
      morePrecision ? 1 : 0,
      SIGN_DISPLAYS.indexOf(signDisplay),
      notation === "scientific" ? 1 : notation === "engineering" ? 3 : 0,
      ROUNDING_MODES.indexOf(roundingMode),
      trailingZeroDisplay === "stripIfInteger" ? 1 : 0,
    ];
    // For an absolute value (a percentage's or an amount's digits; the pattern has the sign):
    // no sign, and of a negative value, the rounding toward +∞ is toward -∞ (`ceil` is `floor`).
    const unsigned = (negative) => {
      const out = apply(Array.prototype.slice, digits, []);
      out[8] = 0;
      const mode = ROUNDING_MODES[digits[10]];
      const mirrored = { ceil: "floor", floor: "ceil", halfCeil: "halfFloor", halfFloor: "halfCeil" }[mode];
      if (negative && mirrored !== undefined) out[10] = ROUNDING_MODES.indexOf(mirrored);
      return out;
    };
    return {
      kind: "NumberFormat", locale, style, money, percent, units, minimumIntegerDigits, significant, morePrecision, signDisplay,
      mnfd, mxfd, mnsd, mxsd, grouping, notation, compactDisplay, compact, digits, bound: undefined,
      roundingMode, trailingZeroDisplay, unsigned: [unsigned(false), unsigned(true)],
    };
  };
  // Amounts of money: the patterns and symbols of `intl_currencies.json` (loaded on first use),
  // with ICU's no-break space between a currency ending (or starting) with a letter and a digit
  // it touches.
  let currencies;
  let percents;
  let compacts;
  let unitTables;
  const symbolClass = /[\p{S}\p{Z}]/u;
  const digitClass = /\p{Nd}/u;
  const spaced = (pattern, symbol, digits) => {
    const at = apply(stringIndexOf, pattern, ["¤"]);
    let out = pattern;
    const touches = (a, b) => apply(exec, symbolClass, [a]) === null && apply(exec, digitClass, [b]) !== null;
    if (out[at + 1] === "#" && touches(symbol[symbol.length - 1], digits[0])) out = apply(stringReplace, out, ["¤#", "¤\u00a0#"]);
    if (out[at - 1] === "#" && touches(symbol[0], digits[digits.length - 1])) out = apply(stringReplace, out, ["#¤", "#\u00a0¤"]);
    out = apply(stringReplace, out, ["¤", () => symbol]);
    return apply(stringReplace, out, ["#", () => digits]);
  };
  const stringReplace = String.prototype.replace;
  const stringIndexOf = String.prototype.indexOf;
  // The locale's minus and plus signs, as its decimal formatter writes them (`‎-` in Hebrew).
  const ANY_DIGIT = /\p{Nd}/u;
  // Found once per locale (a unit's pattern asks for them at every number).
  const signsByLocale = create(null);
  const signs = (locale) => {
    let known = signsByLocale[locale];
    if (known === undefined) {
      const minus = formatNumber(-1, locale, [0, 1, 0, 0, -1, -1, 0, 0, 0]);
      const plus = formatNumber(1, locale, [0, 1, 0, 0, -1, -1, 0, 0, 2]);
      known = [apply(stringReplace, minus, [ANY_DIGIT, ""]), apply(stringReplace, plus, [ANY_DIGIT, ""])];
      signsByLocale[locale] = known;
    }
    return known;
  };
  // A positive amount or percentage with its sign: the negative pattern, its minus a plus.
  const plus = (slot, negative) => {
    const both = signs(slot.locale);
    const minus = both[0];
    const plusSign = both[1];
    if (apply(stringIndexOf, negative, [minus]) === -1) throw unsupported("NumberFormat", `signDisplay: "${slot.signDisplay}" in the locale ${slot.locale}`);
    return apply(stringReplace, negative, [minus, () => plusSign]);
  };
  // `x` (a Number, or the digits of a BigInt or decimal string) formatted by `slot`.
  const formatWith = (slot, x) => {
    const money = slot.money;
    const percent = slot.percent;
    if (slot.units !== undefined) {
      // The number as a decimal one, in the pattern of its digits' plural form.
      const text = x !== x ? formatWith({ ...slot, units: undefined }, x) : formatNumber(x, slot.locale, slot.digits, slot.compact);
      const both = signs(slot.locale);
      const minus = both[0];
      const plusSign = both[1];
      let bare = text;
      if (apply(String.prototype.startsWith, bare, [minus])) bare = apply(sliceString, bare, [minus.length]);
      else if (apply(String.prototype.startsWith, bare, [plusSign])) bare = apply(sliceString, bare, [plusSign.length]);
      return apply(stringReplace, bare === "1" ? slot.units.one : slot.units.other, ["#", () => text]);
    }
    if (money === undefined && percent === undefined) {
      // NaN in the locale's words (those of `intl_percent.json`, the same ICU symbol).
      if (x !== x) {
        const nan = nanWord(slot.locale);
        return slot.signDisplay === "always" ? `${signs(slot.locale)[1]}${nan}` : nan;
      }
      return formatNumber(x, slot.locale, slot.digits, slot.compact);
    }
    let negative;
    if (typeof x === "number") {
      negative = x < 0 || (x === 0 && 1 / x < 0);
      if (negative) x = -x;
    } else {
      negative = x[0] === "-";
      if (negative || x[0] === "+") x = apply(sliceString, x, [1]);
    }
    // The digits of the absolute value, without a sign (the pattern has it).
    const digits = formatNumber(x, slot.locale, slot.unsigned[negative ? 1 : 0], slot.compact);
    // The sign the option asks for, of the rounded value (`exceptZero`: none on a zero).
    let sign = negative && digits !== "NaN" ? "-" : "";
    if (slot.signDisplay !== "auto") {
      const zero = digits === "NaN" || apply(exec, /[1-9∞]/, [digits]) === null;
      const mode = slot.signDisplay;
      sign = mode === "never" ? "" : mode === "always" ? (negative && digits !== "NaN" ? "-" : "+")
        : zero ? "" : negative ? "-" : mode === "exceptZero" ? "+" : "";
    }
    if (money !== undefined && money.names !== undefined) {
      const signText = sign === "" ? "" : signs(slot.locale)[sign === "-" ? 0 : 1];
      return `${signText}${digits} ${digits === "1" ? money.names.one : money.names.other}`;
    }
    if (money !== undefined) return spaced(sign === "-" ? money.negative : sign === "+" ? plus(slot, money.negative) : money.positive, money.symbol, digits);
    // NaN has no sign; the digits of 100 times the absolute value, or the locale's words.
    const words = digits === "NaN" ? percent.nan : digits === "∞" ? percent.infinity : digits;
    const pattern = sign === "-" ? percent.negative : sign === "+" ? plus(slot, percent.negative) : percent.positive;
    return apply(stringReplace, pattern, ["#", () => words]);
  };
  // ToIntlMathematicalValue: a BigInt as its digits, a string holding a decimal literal as
  // that exact decimal (`1.5e3`, `.5`, `-0`), anything else a Number.
  const decimalLiteral = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
  const mathematical = (x) => {
    if (typeof x === "bigint") return apply(bigToString, x, []);
    if (typeof x === "string") {
      const m = apply(RegExp.prototype.exec, decimalLiteral, [apply(String.prototype.trim, x, [])]);
      if (m !== null && (m[2] !== "" || (m[3] !== undefined && m[3] !== ""))) {
        const sign = m[1] === "-" ? "-" : "";
        const whole = m[2] === "" ? "0" : m[2];
        const fraction = m[3] === undefined || m[3] === "" ? "" : `.${m[3]}`;
        const exponent = m[4] === undefined ? "" : `e${m[4]}`;
        return `${sign}${whole}${fraction}${exponent}`;
      }
    }
    return Num(x);
  };
  const DEFAULT_DIGITS = [0, 1, 0, 3, -1, -1, 3, 0, 0, 0];
  // The resolved digit options of a NumberFormat's slot, in resolvedOptions' order.
  const digitOptions = (out, number) => {
    out.minimumIntegerDigits = number.minimumIntegerDigits;
    if (number.morePrecision) {
      out.minimumSignificantDigits = number.mnsd;
      out.maximumSignificantDigits = number.mxsd;
      out.minimumFractionDigits = number.mnfd;
      out.maximumFractionDigits = number.mxfd;
    } else if (number.significant) {
      out.minimumSignificantDigits = number.mnsd;
      out.maximumSignificantDigits = number.mxsd;
    } else {
      out.minimumFractionDigits = number.mnfd;
      out.maximumFractionDigits = number.mxfd;
    }
  };

  const NumberFormat = function NumberFormat(locales, options) {
    const self = create(new.target === undefined ? NumberFormat.prototype : new.target.prototype);
    apply(WeakMap.prototype.set, slots, [self, resolveNumberFormat(locales, options)]);
    return self;
  };
  define(NumberFormat, "length", { value: 0, configurable: true });
  const NumberFormatProto = NumberFormat.prototype;
  define(NumberFormatProto, "format", {
    get: named("get format", function () {
      const slot = slotOf(this, "NumberFormat", "format");
      if (slot.bound === undefined) {
        slot.bound = named("", (x) => formatWith(slot, mathematical(x)));
      }
      return slot.bound;
    }),
    enumerable: false,
    configurable: true,
  });
  // `formatToParts`: the formatted text cut where ICU cuts it, by the locale's symbols (its
  // group and decimal separators and signs, as its decimal formatter writes them; the
  // percent sign, the currency's symbol, the compact words of the slot's patterns; the
  // words for NaN and infinity); anything else is literal. A bidirectional mark next to a
  // sign is literal too.
  const MARKS = /[\u200e\u200f\u061c]/g;
  const partsSymbols = (slot) => {
    if (slot.symbols !== undefined) return slot.symbols;
    const grouped = formatNumber(1234.5, slot.locale, [0, 1, 1, 1, -1, -1, 1, 0, 0]);
    const digitsAt = (text, from) => {
      let i = from;
      while (i < text.length && isDigit(text[i])) i++;
      return i;
    };
    const afterOne = digitsAt(grouped, 0);
    const afterThousands = digitsAt(grouped, afterOne + 1);
    let beforeThree = afterOne;
    while (beforeThree < grouped.length && !isDigit(grouped[beforeThree])) beforeThree++;
    const group = apply(sliceString, grouped, [afterOne, beforeThree]);
    const end = digitsAt(grouped, beforeThree);
    let fractionAt = end;
    while (fractionAt < grouped.length && !isDigit(grouped[fractionAt])) fractionAt++;
    const decimal = apply(sliceString, grouped, [end, fractionAt]);
    void afterThousands;
    const both = signs(slot.locale);
    const minus = both[0];
    const plus = both[1];
    const words = [];
    if (slot.compact !== undefined) {
      for (let i = 0; i < slot.compact.length; i++) {
        const word = apply(String.prototype.trim, apply(stringReplace, apply(stringReplace, slot.compact[i][1], ["#", ""]), [MARKS, ""]), []);
        if (word !== "" && !includes(words, word)) words[words.length] = word;
      }
      apply(Array.prototype.sort, words, [(a, b) => b.length - a.length]);
    }
    slot.symbols = {
      group, decimal,
      minus: apply(stringReplace, minus, [MARKS, ""]),
      plus: apply(stringReplace, plus, [MARKS, ""]),
      nan: nanWord(slot.locale),
      words,
    };
    return slot.symbols;
  };
  // NaN in the locale's words (those of `intl_percent.json`, or of its language).
  const nanWord = (locale) => {
    if (percents === undefined) percents = loadTable("percent");
    let words = own(percents, locale);
    if (words === undefined) words = own(percents, apply(String.prototype.split, locale, ["-"])[0]);
    if (words === undefined) throw unsupported("NumberFormat", `NaN in the locale ${locale}`);
    return words.nan;
  };
  // A decimal digit of any script (the locale's own: Arabic-Indic in ar-EG).
  const isDigit = (c) => c !== undefined && apply(exec, ANY_DIGIT, [c]) !== null;
  const startsAt = (text, at, word) => word !== "" && apply(String.prototype.startsWith, text, [word, at]);
  const partsOfNumber = (slot, text) => {
    const sym = partsSymbols(slot);
    const out = [];
    let literal = "";
    let fraction = false;
    let exponent = false;
    const push = (type, value) => {
      if (literal !== "") { out[out.length] = { type: "literal", value: literal }; literal = ""; }
      out[out.length] = { type, value };
    };
    for (let i = 0; i < text.length;) {
      const c = text[i];
      if (isDigit(c)) {
        let j = i;
        while (j < text.length && isDigit(text[j])) j++;
        push(exponent ? "exponentInteger" : fraction ? "fraction" : "integer", apply(sliceString, text, [i, j]));
        i = j;
        if (slot.notation !== "standard" && slot.notation !== "compact" && text[i] === "E") {
          push("exponentSeparator", "E");
          i++;
          if (text[i] === "-") { push("exponentMinusSign", "-"); i++; }
          exponent = true;
          continue;
        }
        if (!fraction && startsAt(text, i, sym.group) && isDigit(text[i + sym.group.length])) {
          push("group", sym.group);
          i += sym.group.length;
        } else if (!fraction && startsAt(text, i, sym.decimal) && isDigit(text[i + sym.decimal.length])) {
          push("decimal", sym.decimal);
          i += sym.decimal.length;
          fraction = true;
        }
        continue;
      }
      let matched = false;
      const money = slot.money;
      const tries = money === undefined ? [] : money.names !== undefined ? [["currency", money.names.other], ["currency", money.names.one]] : [["currency", money.symbol]];
      const more = [["nan", sym.nan], ["infinity", "∞"], ["minusSign", sym.minus], ["plusSign", sym.plus]];
      for (let k = 0; k < more.length; k++) tries[tries.length] = more[k];
      if (slot.units !== undefined) {
        for (let k = 0; k < 2; k++) {
          const word = apply(String.prototype.trim, apply(stringReplace, k === 0 ? slot.units.other : slot.units.one, ["#", ""]), []);
          if (word !== "") tries[tries.length] = ["unit", word];
        }
      }
      for (let k = 0; k < sym.words.length; k++) tries[tries.length] = ["compact", sym.words[k]];
      if (slot.percent !== undefined) { tries[tries.length] = ["percentSign", "%"]; tries[tries.length] = ["percentSign", "٪"]; }
      for (let k = 0; k < tries.length && !matched; k++) {
        if (startsAt(text, i, tries[k][1])) {
          push(tries[k][0], tries[k][1]);
          i += tries[k][1].length;
          matched = true;
        }
      }
      if (!matched) { literal += c; i++; }
    }
    if (literal !== "") out[out.length] = { type: "literal", value: literal };
    return out;
  };
  define(NumberFormatProto, "formatToParts", method(function formatToParts(x) {
    const slot = slotOf(this, "NumberFormat", "formatToParts");
    return partsOfNumber(slot, formatWith(slot, mathematical(x)));
  }));
  define(NumberFormatProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "NumberFormat", "resolvedOptions");
    const out = {
      locale: slot.locale,
      numberingSystem: "latn",
      style: slot.style,
    };
    if (slot.units !== undefined) {
      out.unit = slot.units.unit;
      out.unitDisplay = slot.units.unitDisplay;
    }
    if (slot.money !== undefined) {
      out.currency = slot.money.currency;
      out.currencyDisplay = slot.money.currencyDisplay;
      out.currencySign = slot.money.currencySign;
    }
    digitOptions(out, slot);
    out.useGrouping = slot.grouping;
    out.notation = slot.notation;
    if (slot.notation === "compact") out.compactDisplay = slot.compactDisplay;
    out.signDisplay = slot.signDisplay;
    out.roundingMode = slot.roundingMode;
    out.roundingIncrement = 1;
    out.trailingZeroDisplay = slot.trailingZeroDisplay;
    out.roundingPriority = slot.morePrecision ? "morePrecision" : "auto";
    return out;
  }));
  define(NumberFormatProto, Symbol.toStringTag, { value: "Intl.NumberFormat", configurable: true });
  define(NumberFormat, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    return localeList(locales);
  }));

  // --- Dates -------------------------------------------------------------------------------
  // `Intl.DateTimeFormat` and `Date.prototype.toLocale{,Date,Time}String` as V8 makes them
  // (ECMA-402's option reading, V8's hour-cycle rule and messages), in the locales of
  // `dates` (`intl_dates.json`: the pattern ICU chooses for every combination of options, and
  // the names, as Node 20 has them), in UTC, the process's own time zone (`localZone`) or any
  // IANA time zone ICU knows (`intl_zones.json`: the names it accepts, and the zones' names in
  // 2020-2035; the offsets are the IANA database's, `zoneOffset`). Anything else (other
  // locales, `era`, `dayPeriod`, other calendars and numbering systems, ranges, the names of
  // a zone in other years) throws a RangeError saying so rather than answer otherwise.
  const UTC_ALIASES = ["UTC", "ETC/UTC", "GMT", "ETC/GMT", "UCT", "ETC/UCT", "UNIVERSAL", "ETC/UNIVERSAL", "ZULU", "ETC/ZULU", "GMT0", "ETC/GMT0", "GMT+0", "ETC/GMT+0", "GMT-0", "ETC/GMT-0", "GREENWICH", "ETC/GREENWICH"];
  const toUpper = String.prototype.toUpperCase;
  const toLower = String.prototype.toLowerCase;
  let zones;
  const exec = RegExp.prototype.exec;
  const zoneName = (name) => (includes(UTC_ALIASES, apply(toUpper, name, [])) ? "UTC" : name);
  const LOCAL_ZONE = zoneName(localZone);
  // Each locale's table, loaded on its first use (`null`: pml has none).
  const dates = create(null);
  const datesOf = (locale) => {
    let data = dates[locale];
    if (data === undefined) {
      data = loadDates(locale) ?? null;
      dates[locale] = data;
    }
    return data;
  };
  const dateLocale = (locales) => {
    const locale = firstLocale(locales);
    const data = datesOf(locale);
    if (data === null) throw unsupported("DateTimeFormat", `the locale ${locale}`);
    return [locale, data];
  };
  const COMPONENTS = [
    ["weekday", ["narrow", "short", "long"]],
    ["era", ["narrow", "short", "long"]],
    ["year", ["2-digit", "numeric"]],
    ["month", ["2-digit", "numeric", "narrow", "short", "long"]],
    ["day", ["2-digit", "numeric"]],
    ["dayPeriod", ["narrow", "short", "long"]],
    ["hour", ["2-digit", "numeric"]],
    ["minute", ["2-digit", "numeric"]],
    ["second", ["2-digit", "numeric"]],
    ["fractionalSecondDigits"],
    ["timeZoneName", ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"]],
  ];
  const STYLES = ["full", "long", "medium", "short"];
  const CYCLES = ["h11", "h12", "h23", "h24"];
  const ZONE_STYLES = ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"];
  const indexOf = (list, value) => {
    for (let i = 0; i < list.length; i++) if (list[i] === value) return i;
    return -1;
  };
  // The index of an option's value in the tables' order (`undefined` first).
  const position = (list, value) => indexOf(list, value) + 1;
  const WEEKDAYS = ["narrow", "short", "long"];
  const MONTHS = ["numeric", "2-digit", "narrow", "short", "long"];
  const NUMERIC = ["numeric", "2-digit"];

  // CreateDateTimeFormat: `required` and `defaults` are "date", "time", "any" or "all".
  const resolveDateTimeFormat = (locales, options, required, defaults) => {
    localeList(locales);
    options = optionsOf(options);
    getOption("DateTimeFormat", options, "localeMatcher", "string", ["lookup", "best fit"], "best fit");
    const calendar = getOption("DateTimeFormat", options, "calendar", "string", undefined, undefined);
    if (calendar !== undefined && !apply(exec, /^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/, [calendar])) {
      throw new RangeErr(`Invalid calendar : ${calendar}`);
    }
    const numberingSystem = getOption("DateTimeFormat", options, "numberingSystem", "string", undefined, undefined);
    if (numberingSystem !== undefined && !apply(exec, /^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/, [numberingSystem])) {
      throw new RangeErr(`Invalid numberingSystem : ${numberingSystem}`);
    }
    const hour12 = getOption("DateTimeFormat", options, "hour12", "boolean", undefined, undefined);
    let hourCycle = getOption("DateTimeFormat", options, "hourCycle", "string", CYCLES, undefined);
    if (hour12 !== undefined) hourCycle = null;
    const resolved = dateLocale(locales);
    const locale = resolved[0];
    const data = resolved[1];
    if (calendar !== undefined && calendar !== "gregory") throw unsupported("DateTimeFormat", `calendar: "${calendar}"`);
    if (numberingSystem !== undefined && numberingSystem !== "latn") throw unsupported("DateTimeFormat", `numberingSystem: "${numberingSystem}"`);
    let timeZone = options.timeZone;
    let named = false;
    if (timeZone === undefined) {
      timeZone = LOCAL_ZONE;
      // The process's zone by the ID ICU gives it, its offsets and names from the tables
      // (the OS's own database answers only where it has no such ID).
      if (timeZone !== "UTC") {
        if (zones === undefined) zones = loadTable("zones");
        const id = own(zones.ids, apply(toLower, timeZone, []));
        if (id !== undefined) {
          timeZone = id;
          named = true;
        }
      }
    } else {
      timeZone = zoneName(Str(timeZone));
      if (timeZone !== "UTC" && timeZone !== LOCAL_ZONE) {
        if (zones === undefined) zones = loadTable("zones");
        const id = own(zones.ids, apply(toLower, timeZone, []));
        if (id === undefined) throw new RangeErr(`Invalid time zone specified: ${timeZone}`);
        timeZone = id;
        named = true;
      }
    }
    const asked = create(null);
    let explicit;
    for (let i = 0; i < COMPONENTS.length; i++) {
      const name = COMPONENTS[i][0];
      const values = COMPONENTS[i][1];
      let value;
      if (name === "fractionalSecondDigits") {
        value = options[name];
        if (value !== undefined) {
          value = Num(value);
          if (!(value >= 1 && value <= 3)) throw new RangeErr("fractionalSecondDigits value is out of range.");
          value = floor(value);
        }
      } else {
        value = getOption("DateTimeFormat", options, name, "string", values, undefined);
      }
      asked[name] = value;
      if (value !== undefined && explicit === undefined) explicit = name;
    }
    getOption("DateTimeFormat", options, "formatMatcher", "string", ["basic", "best fit"], "best fit");
    const dateStyle = getOption("DateTimeFormat", options, "dateStyle", "string", STYLES, undefined);
    const timeStyle = getOption("DateTimeFormat", options, "timeStyle", "string", STYLES, undefined);
    const slot = { kind: "DateTimeFormat", locale, data, timeZone, named, utc: timeZone === "UTC" || LOCAL_ZONE === "UTC" && timeZone === LOCAL_ZONE };
    if (dateStyle !== undefined || timeStyle !== undefined) {
      if (explicit !== undefined) {
        throw new TypeErr(`Can't set option ${explicit} when ${dateStyle !== undefined ? "dateStyle" : "timeStyle"} is used`);
      }
      if (required === "date" && timeStyle !== undefined) throw new TypeErr("Invalid option : timeStyle");
      if (required === "time" && dateStyle !== undefined) throw new TypeErr("Invalid option : dateStyle");
    } else {
      let needDefaults = true;
      if (required === "date" || required === "any") {
        if (asked.weekday !== undefined || asked.year !== undefined || asked.month !== undefined || asked.day !== undefined) needDefaults = false;
      }
      if (required === "time" || required === "any") {
        if (asked.dayPeriod !== undefined || asked.hour !== undefined || asked.minute !== undefined || asked.second !== undefined || asked.fractionalSecondDigits !== undefined) needDefaults = false;
      }
      if (needDefaults && (defaults === "date" || defaults === "all")) asked.year = asked.month = asked.day = "numeric";
      if (needDefaults && (defaults === "time" || defaults === "all")) asked.hour = asked.minute = asked.second = "numeric";
      if (asked.era !== undefined) throw unsupported("DateTimeFormat", "the option era");
      if (asked.dayPeriod !== undefined) throw unsupported("DateTimeFormat", "the option dayPeriod");
    }
    // V8: `hour12` picks the cycle of the locale's kind (h11/h23 or h12/h24).
    const localeCycle = data.hourCycle;
    const elevenOr23 = localeCycle === "h11" || localeCycle === "h23";
    const cycle = hour12 === undefined ? hourCycle ?? localeCycle : hour12 ? (elevenOr23 ? "h11" : "h12") : elevenOr23 ? "h23" : "h24";
    if (slot.timeZone !== "UTC" && !slot.utc && !named && (asked.timeZoneName !== undefined || timeStyle === "full" || timeStyle === "long")) {
      throw unsupported("DateTimeFormat", `the names of the time zone ${slot.timeZone}`);
    }
    let pattern;
    if (dateStyle !== undefined || timeStyle !== undefined) {
      const key = `${dateStyle ?? ""}/${timeStyle ?? ""}/${timeStyle === undefined || hourCycle === undefined && hour12 === undefined ? "" : cycle}`;
      pattern = [own(data.styles, key)];
      slot.dateStyle = dateStyle;
      slot.timeStyle = timeStyle;
    } else {
      const dateIndex = ((position(WEEKDAYS, asked.weekday) * 3 + position(NUMERIC, asked.year)) * 6 + position(MONTHS, asked.month)) * 3 + position(NUMERIC, asked.day);
      const date = data.dates[dateIndex];
      const hasTime = asked.hour !== undefined || asked.minute !== undefined || asked.second !== undefined || asked.fractionalSecondDigits !== undefined || asked.timeZoneName !== undefined;
      const timeIndex = (((((position(NUMERIC, asked.hour) * 5 + (asked.hour === undefined ? 0 : position(CYCLES, cycle))) * 3 + position(NUMERIC, asked.minute)) * 3 + position(NUMERIC, asked.second)) * 4 + (asked.fractionalSecondDigits ?? 0)) * 7 + position(ZONE_STYLES, asked.timeZoneName));
      // A pattern of its own for both together, or the date's and the time's, joined.
      const whole = date !== -1 && hasTime ? own(data.combined, `${dateIndex}/${timeIndex}`) : undefined;
      pattern = [];
      if (whole !== undefined) pattern[0] = whole;
      else {
        if (date !== -1) pattern[pattern.length] = data.patterns[date[0]];
        if (date !== -1 && hasTime) pattern[pattern.length] = date[1];
        if (hasTime) pattern[pattern.length] = data.patterns[data.times[timeIndex]];
      }
    }
    slot.parts = compile(pattern);
    // The pattern's text as ICU has it: the glue between a date and a time (odd places) is a
    // quoted literal there (Swedish `' kl. '`).
    let text = "";
    for (let i = 0; i < pattern.length; i++) {
      text += i % 2 === 1 && apply(exec, /[A-Za-z]/, [pattern[i]]) !== null ? `'${apply(stringReplace, pattern[i], [/'/g, "''"])}'` : pattern[i];
    }
    slot.pattern = text;
    // V8 keeps an hour cycle when an hour was asked for, the one of the pattern's first hour.
    if (asked.hour !== undefined || timeStyle !== undefined) slot.hourCycle = patternCycle(text) ?? cycle;
    return slot;
  };
  // A pattern (UTS #35: letters, quoted literals) as [field letter, count] and literal strings;
  // `pattern` is a list whose odd elements are literal text (the glue between date and time).
  const compile = (pattern) => {
    const out = [];
    const literal = (text) => {
      if (text === "") return;
      if (out.length > 0 && typeof out[out.length - 1] === "string") out[out.length - 1] += text;
      else out[out.length] = text;
    };
    for (let k = 0; k < pattern.length; k++) {
      const p = pattern[k];
      if (k % 2 === 1) { literal(p); continue; }
      let i = 0;
      while (i < p.length) {
        const c = p[i];
        if (c === "'") {
          let j = i + 1;
          let text = "";
          while (j < p.length) {
            if (p[j] === "'") {
              if (p[j + 1] === "'") { text += "'"; j += 2; continue; }
              break;
            }
            text += p[j++];
          }
          literal(i + 1 === j && p[j] === "'" ? "'" : text);
          i = j + 1;
        } else if ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z")) {
          let j = i;
          while (p[j] === c) j++;
          out[out.length] = [c, j - i];
          i = j;
        } else {
          literal(c);
          i++;
        }
      }
    }
    return out;
  };
  const FIELD_TYPES = { E: "weekday", c: "weekday", y: "year", M: "month", L: "month", d: "day", a: "dayPeriod", h: "hour", H: "hour", K: "hour", k: "hour", m: "minute", s: "second", S: "fractionalSecond", z: "timeZoneName", O: "timeZoneName", v: "timeZoneName" };
  const pad = (n, width) => {
    let s = `${n}`;
    while (s.length < width) s = `0${s}`;
    return s;
  };
  const getters = (utc) => {
    const P = Date.prototype;
    return utc
      ? [P.getUTCFullYear, P.getUTCMonth, P.getUTCDate, P.getUTCHours, P.getUTCMinutes, P.getUTCSeconds, P.getUTCMilliseconds, P.getUTCDay]
      : [P.getFullYear, P.getMonth, P.getDate, P.getHours, P.getMinutes, P.getSeconds, P.getMilliseconds, P.getDay];
  };
  const LOCAL_GETTERS = getters(false);
  const UTC_GETTERS = getters(true);
  const DateCtor = Date;
  const dateTime = Date.prototype.getTime;
  // The name of a named zone at instant `t` that is `offset` minutes east of UTC: `O`/`OOOO`
  // written from the offset, `z`/`zzzz` and `v`/`vvvv` from `intl_zones.json`.
  const namedZone = (slot, letter, n, t, offset) => {
    const zone = slot.timeZone;
    if (letter === "O") {
      // In English (`GMT-5`; French writes `UTC−5`).
      if (slot.locale !== "en" && apply(stringIndexOf, slot.locale, ["en-"]) !== 0) {
        throw unsupported("DateTimeFormat", `the offsets of named time zones in the locale ${slot.locale}`);
      }
      if (offset !== floor(offset)) throw unsupported("DateTimeFormat", `the offset of the time zone ${zone} at this date`);
      if (offset === 0) return n === 4 ? "GMT+00:00" : "GMT+0";
      const a = offset < 0 ? -offset : offset;
      const h = floor(a / 60);
      const m = a % 60;
      const sign = offset < 0 ? "-" : "+";
      return n === 4 ? `GMT${sign}${pad(h, 2)}:${pad(m, 2)}` : m === 0 ? `GMT${sign}${h}` : `GMT${sign}${h}:${pad(m, 2)}`;
    }
    // A locale's table lists the zones whose names differ from en-US's.
    const locale = slot.locale === "en" ? "en-US" : slot.locale;
    const table = own(zones.names, locale);
    let names = table === undefined ? undefined : own(table, zone);
    if (table !== undefined && names === undefined) names = own(zones.names["en-US"], zone);
    const year = new DateCtor(t).getUTCFullYear();
    if (names === undefined || names === null || year < zones.first || year > zones.last) {
      throw unsupported("DateTimeFormat", `the names of the time zone ${zone} at this date`);
    }
    if (letter === "v") {
      // In the hour a clock turned back repeats, ICU writes a generic name with its country
      // (`Central European Time (Germany)`) unless the zone is its region's reference one.
      const wall = t + offset * 60000;
      for (let k = -1; k <= 1; k += 2) {
        const other = zoneOffset(zone, t + k * 86400000);
        if (other !== offset && zoneOffset(zone, wall - other * 60000) === other) {
          throw unsupported("DateTimeFormat", `the generic names of the time zone ${zone} in an hour its clocks repeat`);
        }
      }
      return names.generic[n === 4 ? 1 : 0];
    }
    for (let i = 0; i < names.offsets.length; i++) {
      const entry = names.offsets[i];
      if (entry[0] === offset) return entry[n === 4 ? 2 : 1];
    }
    throw unsupported("DateTimeFormat", `the names of the time zone ${zone} at this date`);
  };
  const partsOf = (slot, t) => {
    let date;
    let get;
    let offset;
    if (slot.named) {
      // The zone's wall clock: the UTC fields of the instant moved by its offset then.
      offset = zoneOffset(slot.timeZone, t);
      if (offset === undefined) throw unsupported("DateTimeFormat", `timeZone: "${slot.timeZone}"`);
      date = new DateCtor(t + offset * 60000);
      get = UTC_GETTERS;
    } else {
      date = new DateCtor(t);
      get = slot.timeZone === "UTC" ? UTC_GETTERS : LOCAL_GETTERS;
    }
    const field = (i) => apply(get[i], date, []);
    const data = slot.data;
    const out = [];
    for (let i = 0; i < slot.parts.length; i++) {
      const part = slot.parts[i];
      if (typeof part === "string") { out[out.length] = { type: "literal", value: part }; continue; }
      const c = part[0];
      const n = part[1];
      let value;
      switch (c) {
        case "E": value = data.weekdays[n === 5 ? 0 : n === 4 ? 2 : 1][field(7)]; break;
        case "y": {
          const y = field(0);
          const year = y <= 0 ? 1 - y : y;
          value = n === 2 ? pad(year % 100, 2) : pad(year, n);
          break;
        }
        case "M": case "L": {
          // Standalone (`L`) names where the locale has their own (Russian `январь`, `января`).
          const m = field(1);
          const names = c === "L" && data.monthsAlone !== undefined ? data.monthsAlone : data.months;
          value = n <= 2 ? pad(m + 1, n) : names[n === 5 ? 0 : n === 3 ? 1 : 2][m];
          break;
        }
        case "c": value = (data.weekdaysAlone ?? data.weekdays)[n === 5 ? 0 : n === 4 ? 2 : 1][field(7)]; break;
        case "d": value = pad(field(2), n); break;
        case "a": value = data.dayPeriods[field(3) < 12 ? 0 : 1]; break;
        case "h": value = pad(field(3) % 12 === 0 ? 12 : field(3) % 12, n); break;
        case "H": value = pad(field(3), n); break;
        case "K": value = pad(field(3) % 12, n); break;
        case "k": value = pad(field(3) === 0 ? 24 : field(3), n); break;
        case "m": value = pad(field(4), n); break;
        case "s": value = pad(field(5), n); break;
        case "S": value = apply(sliceString, pad(field(6), 3), [0, n]); break;
        case "z": case "O": case "v": value = slot.named ? namedZone(slot, c, n, t, offset) : data.utc[n === 4 ? c + c + c + c : c]; break;
        default: throw unsupported("DateTimeFormat", `the pattern field ${c}`);
      }
      out[out.length] = { type: FIELD_TYPES[c], value };
    }
    return out;
  };
  const sliceString = String.prototype.slice;
  const timeValue = (date) => {
    let t = date === undefined ? DateCtor.now() : Num(date);
    if (!(t >= -8.64e15 && t <= 8.64e15)) throw new RangeErr("Invalid time value");
    t = t < 0 ? -floor(-t) : floor(t);
    return t + 0;
  };
  // V8 writes U+202F (ICU's space before AM/PM since CLDR 42) as a plain space in a formatted
  // string, not in `formatToParts`'s parts.
  const formatDate = (slot, t) => {
    const parts = partsOf(slot, t);
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i].value;
    return apply(replaceAll, s, ["\u202f", " "]);
  };
  const DateTimeFormat = function DateTimeFormat(locales, options) {
    const self = create(new.target === undefined ? DateTimeFormat.prototype : new.target.prototype);
    apply(WeakMap.prototype.set, slots, [self, resolveDateTimeFormat(locales, options, "any", "date")]);
    return self;
  };
  define(DateTimeFormat, "length", { value: 0, configurable: true });
  const DateTimeFormatProto = DateTimeFormat.prototype;
  // The hour cycle of a pattern's first hour letter outside quotes.
  const patternCycle = (pattern) => {
    let quoted = false;
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === "'") quoted = !quoted;
      else if (!quoted && (c === "h" || c === "H" || c === "K" || c === "k")) {
        return c === "h" ? "h12" : c === "H" ? "h23" : c === "K" ? "h11" : "h24";
      }
    }
    return undefined;
  };
  // V8 reads the components back from the pattern's text by looking for each field's letters
  // anywhere in it, quoted text included (`h a' (second: 's` has a `d`: day "numeric").
  const PATTERN_ITEMS = [
    ["weekday", [["EEEEE", "narrow"], ["EEEE", "long"], ["EEE", "short"], ["ccccc", "narrow"], ["cccc", "long"], ["ccc", "short"]]],
    ["era", [["GGGGG", "narrow"], ["GGGG", "long"], ["GGG", "short"]]],
    ["year", [["yy", "2-digit"], ["y", "numeric"]]],
    ["month", [["MMMMM", "narrow"], ["MMMM", "long"], ["MMM", "short"], ["MM", "2-digit"], ["M", "numeric"], ["LLLLL", "narrow"], ["LLLL", "long"], ["LLL", "short"], ["LL", "2-digit"], ["L", "numeric"]]],
    ["day", [["dd", "2-digit"], ["d", "numeric"]]],
    ["dayPeriod", [["BBBBB", "narrow"], ["bbbbb", "narrow"], ["BBBB", "long"], ["bbbb", "long"], ["B", "short"], ["b", "short"]]],
    ["hour", [["HH", "2-digit"], ["H", "numeric"], ["hh", "2-digit"], ["h", "numeric"], ["kk", "2-digit"], ["k", "numeric"], ["KK", "2-digit"], ["K", "numeric"]]],
    ["minute", [["mm", "2-digit"], ["m", "numeric"]]],
    ["second", [["ss", "2-digit"], ["s", "numeric"]]],
    ["timeZoneName", [["zzzz", "long"], ["z", "short"], ["OOOO", "longOffset"], ["O", "shortOffset"], ["vvvv", "longGeneric"], ["v", "shortGeneric"]]],
  ];
  const stringIncludes = String.prototype.includes;
  const replaceAll = String.prototype.replaceAll;
  define(DateTimeFormatProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "DateTimeFormat", "resolvedOptions");
    const out = { locale: slot.locale, calendar: "gregory", numberingSystem: "latn", timeZone: slot.timeZone };
    if (slot.hourCycle !== undefined) {
      out.hourCycle = slot.hourCycle;
      out.hour12 = slot.hourCycle === "h11" || slot.hourCycle === "h12";
    }
    if (slot.dateStyle !== undefined || slot.timeStyle !== undefined) {
      if (slot.dateStyle !== undefined) out.dateStyle = slot.dateStyle;
      if (slot.timeStyle !== undefined) out.timeStyle = slot.timeStyle;
      return out;
    }
    const pattern = slot.pattern;
    for (let i = 0; i < PATTERN_ITEMS.length; i++) {
      const name = PATTERN_ITEMS[i][0];
      const pairs = PATTERN_ITEMS[i][1];
      if (name === "timeZoneName") {
        let digits = 0;
        let quoted = false;
        for (let j = 0; j < pattern.length; j++) {
          if (pattern[j] === "'") quoted = !quoted;
          else if (!quoted && pattern[j] === "S") digits++;
        }
        if (digits > 0) out.fractionalSecondDigits = digits;
      }
      for (let j = 0; j < pairs.length; j++) {
        if (apply(stringIncludes, pattern, [pairs[j][0]])) {
          out[name] = pairs[j][1];
          break;
        }
      }
    }
    return out;
  }));
  define(DateTimeFormatProto, "format", {
    get: named("get format", function () {
      const slot = slotOf(this, "DateTimeFormat", "format");
      if (slot.bound === undefined) {
        const bound = (date) => formatDate(slot, timeValue(date));
        slot.bound = named("", bound);
      }
      return slot.bound;
    }),
    enumerable: false,
    configurable: true,
  });
  define(DateTimeFormatProto, "formatToParts", method(function formatToParts(date) {
    const slot = slotOf(this, "DateTimeFormat", "formatToParts");
    return partsOf(slot, timeValue(date));
  }));
  define(DateTimeFormatProto, "formatRange", method(function formatRange(startDate, endDate) {
    slotOf(this, "DateTimeFormat", "formatRange");
    throw unsupported("DateTimeFormat", "formatRange");
  }));
  define(DateTimeFormatProto, "formatRangeToParts", method(function formatRangeToParts(startDate, endDate) {
    slotOf(this, "DateTimeFormat", "formatRangeToParts");
    throw unsupported("DateTimeFormat", "formatRangeToParts");
  }));
  define(DateTimeFormatProto, Symbol.toStringTag, { value: "Intl.DateTimeFormat", configurable: true });
  define(DateTimeFormat, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    const out = [];
    const list = localeList(locales);
    for (let i = 0; i < list.length; i++) if (datesOf(list[i]) !== null) out[out.length] = list[i];
    return out;
  }));
  // toLocaleString and the others: ToDateTimeOptions(options, required, defaults), then format;
  // an invalid date is "Invalid Date" before any option is read... after, as V8 does.
  const localeDate = (date, locales, options, required, defaults) => {
    const t = apply(dateTime, date, []);
    if (t !== t) return "Invalid Date";
    return formatDate(resolveDateTimeFormat(locales, options, required, defaults), t);
  };
  define(Date.prototype, "toLocaleString", method({
    toLocaleString() { return localeDate(this, arguments[0], arguments[1], "any", "all"); },
  }.toLocaleString));
  define(Date.prototype, "toLocaleDateString", method({
    toLocaleDateString() { return localeDate(this, arguments[0], arguments[1], "date", "date"); },
  }.toLocaleDateString));
  define(Date.prototype, "toLocaleTimeString", method({
    toLocaleTimeString() { return localeDate(this, arguments[0], arguments[1], "time", "time"); },
  }.toLocaleTimeString));

  // --- Lists and plural rules -----------------------------------------------------------------
  // `Intl.ListFormat` in the English locales below (the text between two items, then after the
  // first, between middle ones and before the last, as Node 20's ICU writes them) and
  // `Intl.PluralRules` in English (whose rules every English locale shares); other locales throw.
  const US_LISTS = { "conjunction/long": [" and ", ", ", ", ", ", and "], "conjunction/short": [" & ", ", ", ", ", ", & "], "conjunction/narrow": [", ", ", ", ", ", ", "], "disjunction/long": [" or ", ", ", ", ", ", or "], "disjunction/short": [" or ", ", ", ", ", ", or "], "disjunction/narrow": [" or ", ", ", ", ", ", or "], "unit/long": [", ", ", ", ", ", ", "], "unit/short": [", ", ", ", ", ", ", "], "unit/narrow": [" ", " ", " ", " "] };
  const GB_LISTS = { "conjunction/long": [" and ", ", ", ", ", " and "], "conjunction/short": [" and ", ", ", ", ", " and "], "conjunction/narrow": [", ", ", ", ", ", ", "], "disjunction/long": [" or ", ", ", ", ", " or "], "disjunction/short": [" or ", ", ", ", ", " or "], "disjunction/narrow": [" or ", ", ", ", ", " or "], "unit/long": [", ", ", ", ", ", ", "], "unit/short": [", ", ", ", ", ", ", "], "unit/narrow": [" ", " ", " ", " "] };
  const IN_LISTS = { ...GB_LISTS, "conjunction/narrow": [", ", ", ", ", ", ", and "] };
  const LISTS = { en: US_LISTS, "en-US": US_LISTS, "en-GB": GB_LISTS, "en-CA": GB_LISTS, "en-AU": GB_LISTS, "en-IN": IN_LISTS };
  const requireNew = (target, name) => {
    if (target === undefined) throw new TypeErr(`Constructor Intl.${name} requires 'new'`);
  };
  const ListFormat = function ListFormat(locales, options) {
    requireNew(new.target, "ListFormat");
    localeList(locales);
    options = optionsOf(options);
    getOption("ListFormat", options, "localeMatcher", "string", ["lookup", "best fit"], "best fit");
    const type = getOption("ListFormat", options, "type", "string", ["conjunction", "disjunction", "unit"], "conjunction");
    const style = getOption("ListFormat", options, "style", "string", ["long", "short", "narrow"], "long");
    const locale = firstLocale(locales);
    if (!apply(O.prototype.hasOwnProperty, LISTS, [locale])) throw unsupported("ListFormat", `the locale ${locale}`);
    const self = create(new.target.prototype);
    apply(WeakMap.prototype.set, slots, [self, { kind: "ListFormat", locale, type, style, separators: LISTS[locale][`${type}/${style}`] }]);
    return self;
  };
  define(ListFormat, "length", { value: 0, configurable: true });
  // StringListFromIterable.
  const listOf = (iterable) => {
    const out = [];
    if (iterable === undefined) return out;
    for (const item of iterable) {
      if (typeof item !== "string") throw new TypeErr(`Iterable yielded ${typeof item === "symbol" ? "Symbol()" : Str(item)} which is not a string`);
      out[out.length] = item;
    }
    return out;
  };
  const listParts = (slot, list) => {
    // Array destructuring would go through the program's `Array.prototype[Symbol.iterator]`.
    const separators = slot.separators;
    const two = separators[0], start = separators[1], middle = separators[2], end = separators[3];
    const parts = [];
    for (let i = 0; i < list.length; i++) {
      if (i > 0) {
        const sep = list.length === 2 ? two : i === 1 ? start : i === list.length - 1 ? end : middle;
        parts[parts.length] = { type: "literal", value: sep };
      }
      parts[parts.length] = { type: "element", value: list[i] };
    }
    return parts;
  };
  const ListFormatProto = ListFormat.prototype;
  define(ListFormatProto, "format", method(function format(list) {
    const slot = slotOf(this, "ListFormat", "format");
    const parts = listParts(slot, listOf(list));
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i].value;
    return s;
  }));
  define(ListFormatProto, "formatToParts", method(function formatToParts(list) {
    return listParts(slotOf(this, "ListFormat", "formatToParts"), listOf(list));
  }));
  define(ListFormatProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "ListFormat", "resolvedOptions");
    return { locale: slot.locale, type: slot.type, style: slot.style };
  }));
  define(ListFormatProto, Symbol.toStringTag, { value: "Intl.ListFormat", configurable: true });
  define(ListFormat, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    const out = [];
    const list = localeList(locales);
    for (let i = 0; i < list.length; i++) if (apply(O.prototype.hasOwnProperty, LISTS, [list[i]])) out[out.length] = list[i];
    return out;
  }));

  const PluralRules = function PluralRules(locales, options) {
    requireNew(new.target, "PluralRules");
    localeList(locales);
    options = optionsOf(options);
    getOption("PluralRules", options, "localeMatcher", "string", ["lookup", "best fit"], "best fit");
    const type = getOption("PluralRules", options, "type", "string", ["cardinal", "ordinal"], "cardinal");
    const locale = firstLocale(locales);
    if (locale !== "en" && apply(stringIndexOf, locale, ["en-"]) !== 0) throw unsupported("PluralRules", `the locale ${locale}`);
    // The digit options as a NumberFormat reads them (style "decimal": 0 to 3 fraction digits).
    const digits = create(null);
    const names = ["minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "roundingPriority", "roundingIncrement", "roundingMode", "trailingZeroDisplay"];
    for (let i = 0; i < names.length; i++) digits[names[i]] = options[names[i]];
    digits.useGrouping = false;
    // V8 (Node 20) rounds plural operands half away from zero whatever the rounding mode.
    digits.roundingMode = undefined;
    const number = resolveNumberFormat(locale, digits);
    const self = create(new.target.prototype);
    // ICU's plural rules are by language: an English locale asked for resolves to "en" (the
    // default one stays "en-US").
    const resolved = localeList(locales).length === 0 ? DEFAULT_LOCALE : "en";
    apply(WeakMap.prototype.set, slots, [self, { kind: "PluralRules", locale: resolved, type, number }]);
    return self;
  };
  define(PluralRules, "length", { value: 0, configurable: true });
  // English's rules (CLDR): cardinal "one" for 1 written without fraction digits; ordinal
  // "one", "two", "few" by the last digits (1st, 2nd, 3rd, but 11th, 12th, 13th).
  const plural = (slot, x) => {
    const text = formatNumber(x, slot.locale, slot.number.digits);
    if (text === "NaN" || apply(stringIncludes, text, ["∞"])) return "other";
    const unsigned = text[0] === "-" ? apply(sliceString, text, [1]) : text;
    const point = apply(stringIndexOf, unsigned, ["."]);
    const integer = point === -1 ? unsigned : apply(sliceString, unsigned, [0, point]);
    const fraction = point === -1 ? "" : apply(sliceString, unsigned, [point + 1]);
    if (slot.type === "cardinal") return integer === "1" && fraction === "" ? "one" : "other";
    if (fraction !== "" && Num(fraction) !== 0) return "other";
    const last2 = Num(apply(sliceString, integer, [-2]));
    const last = last2 % 10;
    if (last === 1 && last2 !== 11) return "one";
    if (last === 2 && last2 !== 12) return "two";
    if (last === 3 && last2 !== 13) return "few";
    return "other";
  };
  const PluralRulesProto = PluralRules.prototype;
  define(PluralRulesProto, "select", method(function select(n) {
    const slot = slotOf(this, "PluralRules", "select");
    return plural(slot, Num(n));
  }));
  define(PluralRulesProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "PluralRules", "resolvedOptions");
    const number = slot.number;
    const out = { locale: slot.locale, type: slot.type };
    digitOptions(out, number);
    out.pluralCategories = slot.type === "cardinal" ? ["one", "other"] : ["few", "one", "two", "other"];
    return out;
  }));
  define(PluralRulesProto, Symbol.toStringTag, { value: "Intl.PluralRules", configurable: true });
  define(PluralRules, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    const out = [];
    const list = localeList(locales);
    for (let i = 0; i < list.length; i++) if (list[i] === "en" || apply(stringIndexOf, list[i], ["en-"]) === 0) out[out.length] = list[i];
    return out;
  }));

  // --- Relative times -------------------------------------------------------------------------
  // `Intl.RelativeTimeFormat` in the English locales of `intl_relative.json` (per style and
  // unit: the patterns of one and of many in the future and in the past, then the words of
  // `numeric: "auto"` for -1, 0 and 1), the number written as `Intl.NumberFormat` writes it in
  // the locale; other locales throw.
  let relatives;
  const RELATIVE_UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second"];
  const RelativeTimeFormat = function RelativeTimeFormat(locales, options) {
    requireNew(new.target, "RelativeTimeFormat");
    const list = localeList(locales);
    options = optionsOf(options);
    getOption("RelativeTimeFormat", options, "localeMatcher", "string", ["lookup", "best fit"], "best fit");
    const numberingSystem = getOption("RelativeTimeFormat", options, "numberingSystem", "string", undefined, undefined);
    if (numberingSystem !== undefined && numberingSystem !== "latn") throw unsupported("RelativeTimeFormat", `numberingSystem: "${numberingSystem}"`);
    const style = getOption("RelativeTimeFormat", options, "style", "string", ["long", "short", "narrow"], "long");
    const numeric = getOption("RelativeTimeFormat", options, "numeric", "string", ["always", "auto"], "always");
    const locale = list.length === 0 ? DEFAULT_LOCALE : list[0];
    if (relatives === undefined) relatives = loadRelative();
    const data = own(relatives, locale === "en-US" ? "en" : locale);
    if (data === undefined) throw unsupported("RelativeTimeFormat", `the locale ${locale}`);
    const self = create(new.target.prototype);
    const number = resolveNumberFormat(locale, create(null));
    apply(WeakMap.prototype.set, slots, [self, { kind: "RelativeTimeFormat", locale, style, numeric, rows: data[style], number }]);
    return self;
  };
  define(RelativeTimeFormat, "length", { value: 0, configurable: true });
  // The parts of `value` in `unit` (`format` joins their values).
  const relativeParts = (slot, method, value, unit) => {
    // ToNumber (a BigInt throws, as in V8).
    const x = +value;
    const name = Str(unit);
    // The plural names are accepted too (`"days"`).
    const singular = name.length > 1 && name[name.length - 1] === "s" ? apply(sliceString, name, [0, -1]) : name;
    const index = RELATIVE_UNITS.indexOf(singular);
    if (index === -1) throw new RangeErr(`Invalid unit argument for Intl.RelativeTimeFormat.prototype.${method}() '${name}'`);
    if (x !== x || x === Infinity || x === -Infinity) throw new RangeErr(`Value need to be finite number for Intl.RelativeTimeFormat.prototype.${method}()`);
    const row = slot.rows[index];
    const past = x < 0 || (x === 0 && 1 / x < 0);
    const text = formatNumber(past ? -x : x, slot.locale, slot.number.digits);
    if (slot.numeric === "auto") {
      const word = text === "0" ? row[5] : text === "1" ? row[past ? 4 : 6] : null;
      if (word !== null) return [{ type: "literal", value: word }];
    }
    const pattern = row[(past ? 2 : 0) + (text === "1" ? 0 : 1)];
    const at = apply(stringIndexOf, pattern, ["{0}"]);
    const parts = [];
    if (at > 0) parts[parts.length] = { type: "literal", value: apply(sliceString, pattern, [0, at]) };
    // The number's parts, as `Intl.NumberFormat` names them (English: `,` groups, `.` decimal).
    let run = "";
    let type = "integer";
    const flush = () => {
      if (run !== "") parts[parts.length] = { type, value: run, unit: singular };
      run = "";
    };
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "," || c === ".") {
        flush();
        parts[parts.length] = { type: c === "," ? "group" : "decimal", value: c, unit: singular };
        if (c === ".") type = "fraction";
      } else {
        run += c;
      }
    }
    flush();
    if (at + 3 < pattern.length) parts[parts.length] = { type: "literal", value: apply(sliceString, pattern, [at + 3]) };
    return parts;
  };
  const RelativeTimeFormatProto = RelativeTimeFormat.prototype;
  define(RelativeTimeFormatProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "RelativeTimeFormat", "resolvedOptions");
    return { locale: slot.locale, style: slot.style, numeric: slot.numeric, numberingSystem: "latn" };
  }));
  define(RelativeTimeFormatProto, "format", method(function format(value, unit) {
    const parts = relativeParts(slotOf(this, "RelativeTimeFormat", "format"), "format", value, unit);
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i].value;
    return s;
  }));
  define(RelativeTimeFormatProto, "formatToParts", method(function formatToParts(value, unit) {
    return relativeParts(slotOf(this, "RelativeTimeFormat", "formatToParts"), "formatToParts", value, unit);
  }));
  define(RelativeTimeFormatProto, Symbol.toStringTag, { value: "Intl.RelativeTimeFormat", configurable: true });
  define(RelativeTimeFormat, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    const out = [];
    const list = localeList(locales);
    if (relatives === undefined) relatives = loadRelative();
    for (let i = 0; i < list.length; i++) if (list[i] === "en-US" || own(relatives, list[i]) !== undefined) out[out.length] = list[i];
    return out;
  }));

  const Intl = create(O.prototype);
  define(Intl, "Collator", method(Collator));
  define(Intl, "NumberFormat", method(NumberFormat));
  define(Intl, "DateTimeFormat", method(DateTimeFormat));
  define(Intl, "ListFormat", method(ListFormat));
  define(Intl, "PluralRules", method(PluralRules));
  define(Intl, "RelativeTimeFormat", method(RelativeTimeFormat));
  define(Intl, "getCanonicalLocales", method(function getCanonicalLocales(locales) {
    return localeList(locales);
  }));
  // Node's lists (`intl_zones.json`), a new array each time.
  define(Intl, "supportedValuesOf", method(function supportedValuesOf(key) {
    key = Str(key);
    if (zones === undefined) zones = loadTable("zones");
    const list = own(zones.supported, key);
    if (list === undefined) throw new RangeErr(`Invalid key : ${key}`);
    return apply(Array.prototype.slice, list, []);
  }));
  define(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });
  define(globalThis, "Intl", method(Intl));

  define(String.prototype, "localeCompare", method({
    localeCompare(that) {
      if (this === undefined || this === null) {
        throw new TypeErr("String.prototype.localeCompare called on null or undefined");
      }
      const s = Str(this);
      const t = Str(that);
      const locales = arguments.length > 1 ? arguments[1] : undefined;
      const options = arguments.length > 2 ? arguments[2] : undefined;
      if (locales === undefined && options === undefined) return collate(s, t, undefined, DEFAULT_FLAGS);
      const slot = resolveCollator(locales, options);
      return collate(s, t, slot.locale, slot.flags);
    },
  }.localeCompare));
  define(Number.prototype, "toLocaleString", method({
    toLocaleString() {
      const x = apply(numValueOf, this, []);
      const locales = arguments.length > 0 ? arguments[0] : undefined;
      const options = arguments.length > 1 ? arguments[1] : undefined;
      if (locales === undefined && options === undefined) return formatNumber(x, undefined, DEFAULT_DIGITS);
      const slot = resolveNumberFormat(locales, options);
      return formatWith(slot, x);
    },
  }.toLocaleString));
  define(BigInt.prototype, "toLocaleString", method({
    toLocaleString() {
      const x = apply(bigToString, apply(bigValueOf, this, []), []);
      const locales = arguments.length > 0 ? arguments[0] : undefined;
      const options = arguments.length > 1 ? arguments[1] : undefined;
      const slot = resolveNumberFormat(locales, options);
      return formatWith(slot, x);
    },
  }.toLocaleString));
})
