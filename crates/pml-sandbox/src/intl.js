// `Intl.Collator`, `Intl.NumberFormat`, `String.prototype.localeCompare` and the
// `toLocaleString` of numbers and BigInts, as Node 20 (V8 + ICU) has them, over the natives of
// `intl.rs`: `canonical(tag)`, `collate(a, b, locale, flags)`, `formatNumber(value, locale,
// digits)`. Options are read in ECMA-402's order, with V8's messages; what pml cannot answer
// as Node does throws a RangeError saying so.
(function (canonical, collate, formatNumber) {
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
  const slotOf = (self, kind, method) => {
    const slot = typeof self === "object" && self !== null ? apply(WeakMap.prototype.get, slots, [self]) : undefined;
    if (slot === undefined || slot.kind !== kind) {
      throw new TypeErr(`Method Intl.${kind}.prototype.${method} called on incompatible receiver ${self}`);
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
  const resolveNumberFormat = (locales, options) => {
    options = optionsOf(options);
    const locale = firstLocale(locales);
    getOption("NumberFormat", options, "localeMatcher", "string", ["lookup", "best fit"], "best fit");
    const numberingSystem = getOption("NumberFormat", options, "numberingSystem", "string", undefined, undefined);
    if (numberingSystem !== undefined && numberingSystem !== "latn") throw unsupported("NumberFormat", `numberingSystem: "${numberingSystem}"`);
    const style = getOption("NumberFormat", options, "style", "string", ["decimal", "percent", "currency", "unit"], "decimal");
    if (style === "currency" || style === "unit") throw unsupported("NumberFormat", `style: "${style}"`);
    const notation = getOption("NumberFormat", options, "notation", "string", ["standard", "scientific", "engineering", "compact"], "standard");
    if (notation !== "standard") throw unsupported("NumberFormat", `notation: "${notation}"`);
    // SetNumberFormatDigitOptions.
    const minimumIntegerDigits = numberOption(options, "minimumIntegerDigits", 1, 21, 1);
    let mnfd = options.minimumFractionDigits;
    let mxfd = options.maximumFractionDigits;
    let mnsd = options.minimumSignificantDigits;
    let mxsd = options.maximumSignificantDigits;
    const roundingIncrement = numberOption(options, "roundingIncrement", 1, 5000, 1);
    if (roundingIncrement !== 1) throw unsupported("NumberFormat", `roundingIncrement: ${roundingIncrement}`);
    const roundingMode = getOption("NumberFormat", options, "roundingMode", "string", ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"], "halfExpand");
    if (roundingMode !== "halfExpand") throw unsupported("NumberFormat", `roundingMode: "${roundingMode}"`);
    const roundingPriority = getOption("NumberFormat", options, "roundingPriority", "string", ["auto", "morePrecision", "lessPrecision"], "auto");
    if (roundingPriority !== "auto") throw unsupported("NumberFormat", `roundingPriority: "${roundingPriority}"`);
    const trailingZeroDisplay = getOption("NumberFormat", options, "trailingZeroDisplay", "string", ["auto", "stripIfInteger"], "auto");
    if (trailingZeroDisplay !== "auto") throw unsupported("NumberFormat", `trailingZeroDisplay: "${trailingZeroDisplay}"`);
    const mnfdDefault = 0;
    const mxfdDefault = style === "percent" ? 0 : 3;
    const hasSd = mnsd !== undefined || mxsd !== undefined;
    const hasFd = mnfd !== undefined || mxfd !== undefined;
    let significant = false;
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
    } else {
      mnfd = mnfdDefault;
      mxfd = mxfdDefault;
    }
    let grouping = options.useGrouping;
    if (grouping === undefined) grouping = "auto";
    else if (grouping === true) grouping = "always";
    else if (grouping === false || grouping === null || grouping === 0 || grouping === "") grouping = false;
    else {
      grouping = Str(grouping);
      if (grouping === "true" || grouping === "false") grouping = "auto";
      else if (!includes(["min2", "auto", "always"], grouping)) {
        throw new RangeErr(`Value ${grouping} out of range for Intl.NumberFormat options property useGrouping`);
      }
    }
    const signDisplay = getOption("NumberFormat", options, "signDisplay", "string", ["auto", "never", "always", "exceptZero", "negative"], "auto");
    if (signDisplay !== "auto") throw unsupported("NumberFormat", `signDisplay: "${signDisplay}"`);
    const digits = [
      style === "percent" ? 1 : 0,
      minimumIntegerDigits,
      significant ? 0 : mnfd,
      significant ? 0 : mxfd,
      significant ? mnsd : -1,
      significant ? mxsd : -1,
      grouping === false ? 0 : GROUPINGS.indexOf(grouping),
    ];
    return {
      kind: "NumberFormat", locale, style, minimumIntegerDigits, significant,
      mnfd, mxfd, mnsd, mxsd, grouping, digits, bound: undefined,
    };
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
  const DEFAULT_DIGITS = [0, 1, 0, 3, -1, -1, 3];

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
        slot.bound = named("", (x) => formatNumber(mathematical(x), slot.locale, slot.digits));
      }
      return slot.bound;
    }),
    enumerable: false,
    configurable: true,
  });
  define(NumberFormatProto, "resolvedOptions", method(function resolvedOptions() {
    const slot = slotOf(this, "NumberFormat", "resolvedOptions");
    const out = {
      locale: slot.locale,
      numberingSystem: "latn",
      style: slot.style,
      minimumIntegerDigits: slot.minimumIntegerDigits,
    };
    if (slot.significant) {
      out.minimumSignificantDigits = slot.mnsd;
      out.maximumSignificantDigits = slot.mxsd;
    } else {
      out.minimumFractionDigits = slot.mnfd;
      out.maximumFractionDigits = slot.mxfd;
    }
    out.useGrouping = slot.grouping;
    out.notation = "standard";
    out.signDisplay = "auto";
    out.roundingMode = "halfExpand";
    out.roundingIncrement = 1;
    out.trailingZeroDisplay = "auto";
    out.roundingPriority = "auto";
    return out;
  }));
  define(NumberFormatProto, Symbol.toStringTag, { value: "Intl.NumberFormat", configurable: true });
  define(NumberFormat, "supportedLocalesOf", method(function supportedLocalesOf(locales) {
    return localeList(locales);
  }));

  // Dates: en-US with no options, or with only `timeZone: "UTC"`, as ICU writes them
  // (`1/2/2024, 3:04:05 PM`); anything else throws rather than answer differently.
  const dateGetters = (utc) => {
    const P = Date.prototype;
    return utc
      ? [P.getUTCFullYear, P.getUTCMonth, P.getUTCDate, P.getUTCHours, P.getUTCMinutes, P.getUTCSeconds]
      : [P.getFullYear, P.getMonth, P.getDate, P.getHours, P.getMinutes, P.getSeconds];
  };
  const LOCAL = dateGetters(false);
  const UTC = dateGetters(true);
  const dateTime = Date.prototype.getTime;
  const dateParts = (date, locales, options, what) => {
    const t = apply(dateTime, date, []);
    if (locales !== undefined) {
      const locale = firstLocale(locales);
      if (locale !== "en-US" && locale !== "en") throw unsupported("DateTimeFormat", `the locale ${locale} for dates`);
    }
    let getters = LOCAL;
    if (options !== undefined) {
      options = optionsOf(options);
      for (const key in options) {
        if (key !== "timeZone") throw unsupported("DateTimeFormat", `the option ${key}`);
      }
      const zone = options.timeZone;
      if (zone !== undefined) {
        const name = Str(zone).toUpperCase();
        if (name !== "UTC" && name !== "ETC/UTC" && name !== "GMT" && name !== "ETC/GMT") {
          throw unsupported("DateTimeFormat", `timeZone: "${Str(zone)}"`);
        }
        getters = UTC;
      }
    }
    if (t !== t) return "Invalid Date";
    const get = (i) => apply(getters[i], date, []);
    const year = get(0);
    const day = `${get(1) + 1}/${get(2)}/${year <= 0 ? 1 - year : year}`;
    const hours = get(3);
    const two = (n) => (n < 10 ? `0${n}` : `${n}`);
    const time = `${hours % 12 === 0 ? 12 : hours % 12}:${two(get(4))}:${two(get(5))} ${hours < 12 ? "AM" : "PM"}`;
    return what === 0 ? `${day}, ${time}` : what === 1 ? day : time;
  };
  define(Date.prototype, "toLocaleString", method({
    toLocaleString() { return dateParts(this, arguments[0], arguments[1], 0); },
  }.toLocaleString));
  define(Date.prototype, "toLocaleDateString", method({
    toLocaleDateString() { return dateParts(this, arguments[0], arguments[1], 1); },
  }.toLocaleDateString));
  define(Date.prototype, "toLocaleTimeString", method({
    toLocaleTimeString() { return dateParts(this, arguments[0], arguments[1], 2); },
  }.toLocaleTimeString));

  const Intl = create(O.prototype);
  define(Intl, "Collator", method(Collator));
  define(Intl, "NumberFormat", method(NumberFormat));
  define(Intl, "getCanonicalLocales", method(function getCanonicalLocales(locales) {
    return localeList(locales);
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
      return formatNumber(x, slot.locale, slot.digits);
    },
  }.toLocaleString));
  define(BigInt.prototype, "toLocaleString", method({
    toLocaleString() {
      const x = apply(bigToString, apply(bigValueOf, this, []), []);
      const locales = arguments.length > 0 ? arguments[0] : undefined;
      const options = arguments.length > 1 ? arguments[1] : undefined;
      const slot = resolveNumberFormat(locales, options);
      return formatNumber(x, slot.locale, slot.digits);
    },
  }.toLocaleString));
})
