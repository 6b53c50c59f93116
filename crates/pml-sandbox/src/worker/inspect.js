// Node's `util.format` and `util.inspect` (Node 20, lib/internal/util/inspect.js, default
// options: depth 2, breakLength 80, compact 3, maxArrayLength 100, maxStringLength 10000), for a
// program's `console`. Values are read without running program code: own data properties
// through their descriptors (an accessor prints as [Getter], [Setter] or [Getter/Setter]),
// builtins captured before any program code runs, a proxy's target read natively (its traps
// never run), no `toString`, `valueOf`, `toJSON` or `[util.inspect.custom]` of the program's
// (where Node would call one, for `%s`, `%d` and `%i` on objects, the object is inspected or
// read as NaN instead); `%j` is `JSON.stringify`, as in Node. The output is bounded: past
// `LIMIT` characters a value prints as far as it got.
//
// Evaluates to `(isProxy, proxyTarget, promiseState, stringWidth, isBuffer) => ({ format, inspect, ... })`:
// `stringWidth(text)` the columns Node's ICU gives a (normalized) text; `isProxy(v)`,
// `proxyTarget(proxy, handler)` (the target, or with `handler` true the handler; null once
// revoked), `promiseState(p)` ([0] pending,
// [1, value] fulfilled, [2, reason] rejected); `isBuffer(v)` whether `v` is a `Buffer`
// (`buffer.js`), which prints as `<Buffer 68 69>`.
(function (isProxy, proxyTarget, promiseState, stringWidth, isBuffer) {
  "use strict";
  const O = Object;
  const describe = O.getOwnPropertyDescriptor;
  const protoOf = O.getPrototypeOf;
  const ownNames = O.getOwnPropertyNames;
  const ownSymbols = O.getOwnPropertySymbols;
  const keysOf = O.keys;
  const hasOwn = O.hasOwn;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const Str = String;
  const parseInt_ = parseInt;
  const parseFloat_ = parseFloat;
  const stringify = JSON.stringify;
  const MathMin = Math.min;
  const MathMax = Math.max;
  const MathSqrt = Math.sqrt;
  const MathRound = Math.round;
  const MathFloor = Math.floor;
  const isNaN_ = Number.isNaN;
  const TypeErr = TypeError;
  const SymbolIterator = Symbol.iterator;
  const SymbolToStringTag = Symbol.toStringTag;
  const uncurry = (f) => (self, ...args) => apply(f, self, args);
  const charCodeAt = uncurry(String.prototype.charCodeAt);
  const slice = uncurry(String.prototype.slice);
  const includes = uncurry(String.prototype.includes);
  const indexOf = uncurry(String.prototype.indexOf);
  const startsWith = uncurry(String.prototype.startsWith);
  const endsWith = uncurry(String.prototype.endsWith);
  const repeat = uncurry(String.prototype.repeat);
  const padStart = uncurry(String.prototype.padStart);
  const padEnd = uncurry(String.prototype.padEnd);
  const trim = uncurry(String.prototype.trim);
  const normalize = uncurry(String.prototype.normalize);
  const numberToString = uncurry(Number.prototype.toString);
  const exec = uncurry(RegExp.prototype.exec);
  const fnToString = uncurry(Function.prototype.toString);
  const symToString = uncurry(Symbol.prototype.toString);
  const symValueOf = uncurry(Symbol.prototype.valueOf);
  const numValueOf = uncurry(Number.prototype.valueOf);
  const strValueOf = uncurry(String.prototype.valueOf);
  const boolValueOf = uncurry(Boolean.prototype.valueOf);
  const bigValueOf = uncurry(BigInt.prototype.valueOf);
  const regexpToString = uncurry(RegExp.prototype.toString);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const dateToIso = uncurry(Date.prototype.toISOString);
  const dateToString = uncurry(Date.prototype.toString);
  const mapSize = uncurry(describe(Map.prototype, "size").get);
  const setSize = uncurry(describe(Set.prototype, "size").get);
  const mapEntries = uncurry(Map.prototype.entries);
  const setValues = uncurry(Set.prototype.values);
  const mapIterNext = uncurry(protoOf(new Map().entries()).next);
  const setIterNext = uncurry(protoOf(new Set().values()).next);
  const weakMapHas = uncurry(WeakMap.prototype.has);
  const weakSetHas = uncurry(WeakSet.prototype.has);
  const errorProto = Error.prototype;
  const errorStack = (() => {
    const d = describe(errorProto, "stack");
    return d !== undefined && typeof d.get === "function" ? uncurry(d.get) : undefined;
  })();
  const typedProto = typeof Uint8Array === "function" ? protoOf(Uint8Array.prototype) : undefined;
  const typedLength = typedProto && uncurry(describe(typedProto, "length").get);
  const typedTag = typedProto && uncurry(describe(typedProto, SymbolToStringTag).get);
  const bufferBytes = typeof ArrayBuffer === "function" ? uncurry(describe(ArrayBuffer.prototype, "byteLength").get) : undefined;
  const U8 = typeof Uint8Array === "function" ? Uint8Array : undefined;
  const AsyncFunctionProto = protoOf(async function () {});
  const GeneratorFunctionProto = protoOf(function* () {});
  const AsyncGeneratorFunctionProto = protoOf(async function* () {});
  const ObjectProto = O.prototype;
  const propertyIsEnumerable = uncurry(ObjectProto.propertyIsEnumerable);

  const LIMIT = 1 << 20;
  const TooLong = {};

  const builtInObjects = new Set();
  {
    const names = ownNames(globalThis);
    for (let i = 0; i < names.length; i++) {
      if (exec(/^[A-Z][a-zA-Z0-9]+$/, names[i]) !== null) builtInObjects.add(names[i]);
    }
  }

  const brand = (f, v) => {
    try { f(v); return true; } catch (e) { return false; }
  };
  const isMap = (v) => brand(mapSize, v);
  const isSet = (v) => brand(setSize, v);
  const isDate = (v) => brand(dateGetTime, v);
  const isRegExp = (v) => {
    // `lastIndex` is an own data property of every RegExp; `source` getter brand-checks.
    const d = describe(RegExp.prototype, "source");
    try { apply(d.get, v, []); return v !== RegExp.prototype; } catch (e) { return false; }
  };
  const isTypedArray = (v) => typedTag !== undefined && typedTag(v) !== undefined;
  const isArrayBuffer = (v) => bufferBytes !== undefined && brand(bufferBytes, v);
  const isWeakMap = (v) => brand((x) => weakMapHas(x, ObjectProto), v);
  const isWeakSet = (v) => brand((x) => weakSetHas(x, ObjectProto), v);
  const isPromise = (v) => promiseState(v) !== undefined;
  const isMapIterator = (v) => brand(mapIterNextProbe, v);
  const isSetIterator = (v) => brand(setIterNextProbe, v);
  // Brand checks that do not advance the iterator: `next` on a wrong receiver throws before
  // reading anything; a real one is never passed here (see `isMapIterator`).
  function mapIterNextProbe(v) { if (protoOf(v) !== protoOf(new Map().entries())) throw new TypeErr(""); }
  function setIterNextProbe(v) { if (protoOf(v) !== protoOf(new Set().values())) throw new TypeErr(""); }
  const isError = (v) => {
    for (let p = v, n = 0; p !== null && n < 1000; p = protoOf(p), n++) {
      if (p === errorProto) return true;
    }
    return false;
  };
  const boxed = (v) => {
    try { return ["Number", numValueOf(v)]; } catch (e) {}
    try { return ["String", strValueOf(v)]; } catch (e) {}
    try { return ["Boolean", boolValueOf(v)]; } catch (e) {}
    try { return ["BigInt", bigValueOf(v)]; } catch (e) {}
    try { return ["Symbol", symValueOf(v)]; } catch (e) {}
    return undefined;
  };

  // A data property's value, or undefined (never runs a getter).
  const dataOf = (object, key) => {
    const d = describe(object, key);
    return d !== undefined && hasOwn(d, "value") ? d.value : undefined;
  };
  // `object[key]` for data properties along the prototype chain only.
  const lookup = (object, key) => {
    for (let p = object, n = 0; p !== null && n < 1000; p = protoOf(p), n++) {
      if (isProxy(p)) return undefined;
      const d = describe(p, key);
      if (d !== undefined) return hasOwn(d, "value") ? d.value : undefined;
    }
    return undefined;
  };
  const inChain = (object, proto) => {
    for (let p = protoOf(object), n = 0; p !== null && n < 1000; p = protoOf(p), n++) {
      if (p === proto) return true;
    }
    return false;
  };
  const functionName = (f) => {
    const name = dataOf(f, "name");
    return typeof name === "string" ? name : "";
  };

  const stylize = (s) => s;

  // Node's `getStringWidth` (with ICU): ASCII here, the rest, normalized, natively. (Node also
  // strips ANSI escape sequences first; inspected text has none, its strings are escaped.)
  function getStringWidth(str) {
    let width = 0;
    for (let i = 0; i < str.length; i++) {
      const code = charCodeAt(str, i);
      if (code >= 127) return width + stringWidth(normalize(slice(str, i), "NFC"));
      width += code >= 32 ? 1 : 0;
    }
    return width;
  }

  function getConstructorName(obj) {
    let firstProto;
    const tmp = obj;
    let n = 0;
    while (obj !== null && n++ < 1000) {
      if (isProxy(obj)) return "Object";
      const descriptor = describe(obj, "constructor");
      if (descriptor !== undefined && typeof descriptor.value === "function") {
        const name = functionName(descriptor.value);
        const proto = dataOf(descriptor.value, "prototype");
        if (name !== "" && (typeof proto === "object" || typeof proto === "function") && proto !== null && inChain(tmp, proto)) {
          return name;
        }
      }
      obj = protoOf(obj);
      if (firstProto === undefined) firstProto = obj;
    }
    if (firstProto === null) return null;
    return "Object";
  }

  function getPrefix(constructor, tag, fallback, size = "") {
    if (constructor === null) {
      if (tag !== "" && fallback !== tag) return `[${fallback}${size}: null prototype] [${tag}] `;
      return `[${fallback}${size}: null prototype] `;
    }
    if (tag !== "" && constructor !== tag) return `${constructor}${size} [${tag}] `;
    return `${constructor}${size} `;
  }

  const keyStrRegExp = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const numberRegExp = /^(0|[1-9][0-9]*)$/;
  const meta = [
    "\\x00", "\\x01", "\\x02", "\\x03", "\\x04", "\\x05", "\\x06", "\\x07",
    "\\b", "\\t", "\\n", "\\x0B", "\\f", "\\r", "\\x0E", "\\x0F",
    "\\x10", "\\x11", "\\x12", "\\x13", "\\x14", "\\x15", "\\x16", "\\x17",
    "\\x18", "\\x19", "\\x1A", "\\x1B", "\\x1C", "\\x1D", "\\x1E", "\\x1F",
  ];
  const metaOf = (point) => {
    if (point < 32) return meta[point];
    if (point === 39) return "\\'";
    if (point === 92) return "\\\\";
    return "\\x" + padStart(numberToString(point, 16).toUpperCase(), 2, "0");
  };

  function strEscape(str) {
    let quote = 39;
    if (includes(str, "'")) {
      if (!includes(str, '"')) quote = -2;
      else if (!includes(str, "`") && !includes(str, "${")) quote = -1;
    }
    let result = "";
    let last = 0;
    for (let i = 0; i < str.length; i++) {
      const point = charCodeAt(str, i);
      if (point === quote || point === 92 || point < 32 || (point > 126 && point < 160)) {
        result += slice(str, last, i) + metaOf(point);
        last = i + 1;
      } else if (point >= 0xd800 && point <= 0xdfff) {
        if (point <= 0xdbff && i + 1 < str.length) {
          const next = charCodeAt(str, i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
        }
        result += slice(str, last, i) + "\\u" + numberToString(point, 16);
        last = i + 1;
      }
    }
    if (last !== str.length) result += slice(str, last);
    if (quote === -2) return `"${result}"`;
    if (quote === -1) return `\`${result}\``;
    return `'${result}'`;
  }

  function formatNumber(n) {
    if (n === 0 && 1 / n < 0) return "-0";
    return `${n}`;
  }

  function formatPrimitive(value, ctx) {
    switch (typeof value) {
      case "string": {
        let trailer = "";
        if (value.length > ctx.maxStringLength) {
          const remaining = value.length - ctx.maxStringLength;
          value = slice(value, 0, ctx.maxStringLength);
          trailer = `... ${remaining} more character${remaining > 1 ? "s" : ""}`;
        }
        if (value.length > 16 && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
          // Split after each newline.
          const lines = [];
          let start = 0;
          for (let i = 0; i < value.length; i++) {
            if (charCodeAt(value, i) === 10) {
              lines[lines.length] = slice(value, start, i + 1);
              start = i + 1;
            }
          }
          if (start < value.length) lines[lines.length] = slice(value, start);
          let out = "";
          for (let i = 0; i < lines.length; i++) {
            if (i > 0) out += ` +\n${repeat(" ", ctx.indentationLvl + 2)}`;
            out += strEscape(lines[i]);
          }
          return out + trailer;
        }
        return strEscape(value) + trailer;
      }
      case "number": return formatNumber(value);
      case "bigint": return `${value}n`;
      case "boolean": return `${value}`;
      case "undefined": return "undefined";
      default: return symToString(value);
    }
  }

  function formatValue(ctx, value, recurseTimes, typedArray) {
    if (typeof value !== "object" && typeof value !== "function") return formatPrimitive(value, ctx);
    if (value === null) return "null";
    if (++ctx.visits > LIMIT / 8) throw TooLong;
    let n = 0;
    while (isProxy(value)) {
      if (ctx.showProxy) {
        return formatProxy(ctx, value, recurseTimes);
      }
      value = proxyTarget(value, false);
      if (value === null || n++ > 1000) return "<Revoked Proxy>";
    }
    if (isBuffer(value)) return formatBuffer(value);
    if (ctx.seen.includes(value)) {
      let index = 1;
      if (ctx.circular === undefined) {
        ctx.circular = new Map();
        ctx.circular.set(value, index);
      } else {
        index = ctx.circular.get(value);
        if (index === undefined) {
          index = ctx.circular.size + 1;
          ctx.circular.set(value, index);
        }
      }
      return `[Circular *${index}]`;
    }
    return formatRaw(ctx, value, recurseTimes, typedArray);
  }

  function formatProxy(ctx, proxy, recurseTimes) {
    if (recurseTimes > ctx.depth) return "Proxy [Array]";
    recurseTimes += 1;
    ctx.indentationLvl += 2;
    const res = [formatValue(ctx, proxyTarget(proxy, false), recurseTimes), formatValue(ctx, proxyTarget(proxy, true), recurseTimes)];
    ctx.indentationLvl -= 2;
    return reduceToSingleString(ctx, res, "", ["Proxy [", "]"], kArrayExtrasType, recurseTimes);
  }

  const kObjectType = 0;
  const kArrayType = 1;
  const kArrayExtrasType = 2;

  function getKeys(value, showHidden) {
    const symbols = ownSymbols(value);
    let keys;
    if (showHidden) {
      keys = ownNames(value);
      for (let i = 0; i < symbols.length; i++) keys[keys.length] = symbols[i];
    } else {
      keys = keysOf(value);
      for (let i = 0; i < symbols.length; i++) {
        if (propertyIsEnumerable(value, symbols[i])) keys[keys.length] = symbols[i];
      }
    }
    return keys;
  }

  function getNonIndexKeys(value, showHidden) {
    const all = getKeys(value, showHidden);
    const out = [];
    for (let i = 0; i < all.length; i++) {
      const key = all[i];
      if (typeof key === "string" && exec(numberRegExp, key) !== null && +key < 4294967295) continue;
      out[out.length] = key;
    }
    return out;
  }

  function toStringTag(value, showHidden) {
    let tag;
    for (let p = value, n = 0; p !== null && n < 1000; p = protoOf(p), n++) {
      const d = describe(p, SymbolToStringTag);
      if (d !== undefined) {
        tag = hasOwn(d, "value") ? d.value : undefined;
        break;
      }
    }
    if (typeof tag !== "string") return "";
    if (tag !== "" && (showHidden ? hasOwn(value, SymbolToStringTag) : propertyIsEnumerable(value, SymbolToStringTag))) return "";
    return tag;
  }

  // A `Buffer` as its own `[util.inspect.custom]` shows it: its first 50 bytes in hex.
  function formatBuffer(value) {
    const length = typedLength(value);
    const shown = length < 50 ? length : 50;
    let out = "<Buffer";
    for (let i = 0; i < shown; i++) out += (value[i] < 16 ? " 0" : " ") + numberToString(value[i], 16);
    const remaining = length - 50;
    if (remaining > 0) out += ` ... ${remaining} more byte${remaining > 1 ? "s" : ""}`;
    return length === 0 ? "<Buffer >" : `${out}>`;
  }

  function formatRaw(ctx, value, recurseTimes, typedArray) {
    let keys;
    const constructor = getConstructorName(value);
    let tag = toStringTag(value, ctx.showHidden);
    let base = "";
    let formatter = () => [];
    let braces;
    let noIterator = true;
    let extrasType = kObjectType;
    if (lookup(value, SymbolIterator) !== undefined || constructor === null) {
      noIterator = false;
      if (isArray(value)) {
        const length = value.length;
        const prefix = (constructor !== "Array" || tag !== "") ? getPrefix(constructor, tag, "Array", `(${length})`) : "";
        keys = getNonIndexKeys(value, ctx.showHidden);
        braces = [`${prefix}[`, "]"];
        if (length === 0 && keys.length === 0) return `${braces[0]}]`;
        extrasType = kArrayExtrasType;
        formatter = formatArray;
      } else if (isSet(value)) {
        const size = setSize(value);
        const prefix = getPrefix(constructor, tag, "Set", `(${size})`);
        keys = getKeys(value, ctx.showHidden);
        formatter = (ctx, v, recurseTimes) => formatSet(value, ctx, recurseTimes);
        if (size === 0 && keys.length === 0) return `${prefix}{}`;
        braces = [`${prefix}{`, "}"];
      } else if (isMap(value)) {
        const size = mapSize(value);
        const prefix = getPrefix(constructor, tag, "Map", `(${size})`);
        keys = getKeys(value, ctx.showHidden);
        formatter = (ctx, v, recurseTimes) => formatMap(value, ctx, recurseTimes);
        if (size === 0 && keys.length === 0) return `${prefix}{}`;
        braces = [`${prefix}{`, "}"];
      } else if (isTypedArray(value)) {
        keys = getNonIndexKeys(value, ctx.showHidden);
        const size = typedLength(value);
        const fallback = constructor === null ? typedTag(value) : "";
        const prefix = getPrefix(constructor, tag, fallback, `(${size})`);
        braces = [`${prefix}[`, "]"];
        if (size === 0 && keys.length === 0 && !ctx.showHidden) return `${braces[0]}]`;
        formatter = (ctx, v, recurseTimes) => formatTypedArray(value, size, ctx);
        extrasType = kArrayExtrasType;
      } else if (isMapIterator(value)) {
        keys = getKeys(value, ctx.showHidden);
        braces = [`[${tag}] {`, "}"];
        formatter = () => ["<items unknown>"];
      } else if (isSetIterator(value)) {
        keys = getKeys(value, ctx.showHidden);
        braces = [`[${tag}] {`, "}"];
        formatter = () => ["<items unknown>"];
      } else {
        noIterator = true;
      }
    }
    if (noIterator) {
      keys = getKeys(value, ctx.showHidden);
      braces = ["{", "}"];
      if (constructor === "Object" && typeof value !== "function" && !isError(value) && !isDate(value) && !isRegExp(value) && boxed(value) === undefined && !isPromise(value)) {
        if (tag !== "") braces[0] = `${getPrefix(constructor, tag, "Object")}{`;
        if (keys.length === 0) return `${braces[0]}}`;
      } else if (typeof value === "function") {
        base = getFunctionBase(value, constructor, tag);
        if (keys.length === 0) return base;
      } else if (isRegExp(value)) {
        base = regexpToString(value);
        const prefix = getPrefix(constructor, tag, "RegExp");
        if (prefix !== "RegExp ") base = `${prefix}${base}`;
        if (keys.length === 0 || recurseTimes > ctx.depth) return base;
      } else if (isDate(value)) {
        base = isNaN_(dateGetTime(value)) ? dateToString(value) : dateToIso(value);
        const prefix = getPrefix(constructor, tag, "Date");
        if (prefix !== "Date ") base = `${prefix}${base}`;
        if (keys.length === 0) return base;
      } else if (isError(value)) {
        base = formatError(value, constructor, tag, ctx, keys);
        if (keys.length === 0) return base;
      } else if (isArrayBuffer(value)) {
        const prefix = getPrefix(constructor, tag, "ArrayBuffer");
        if (typedArray === undefined) {
          formatter = formatArrayBuffer;
        } else if (keys.length === 0) {
          return prefix + `{ byteLength: ${formatNumber(bufferBytes(value))} }`;
        }
        braces[0] = `${prefix}{`;
        keys.unshift("byteLength");
      } else if (isPromise(value)) {
        braces[0] = `${getPrefix(constructor, tag, "Promise")}{`;
        formatter = formatPromise;
      } else if (isWeakSet(value)) {
        braces[0] = `${getPrefix(constructor, tag, "WeakSet")}{`;
        formatter = () => ["<items unknown>"];
      } else if (isWeakMap(value)) {
        braces[0] = `${getPrefix(constructor, tag, "WeakMap")}{`;
        formatter = () => ["<items unknown>"];
      } else if (boxed(value) !== undefined) {
        base = getBoxedBase(value, ctx, keys, constructor, tag);
        if (keys.length === 0) return base;
      } else {
        if (keys.length === 0) return `${getPrefix(constructor, tag, "Object")}{}`;
        braces[0] = `${getPrefix(constructor, tag, "Object")}{`;
      }
    }
    if (recurseTimes > ctx.depth) {
      let name = slice(getPrefix(constructor, tag, "Object"), 0, -1);
      if (constructor !== null) name = `[${name}]`;
      return name;
    }
    recurseTimes += 1;
    ctx.seen.push(value);
    ctx.currentDepth = recurseTimes;
    let output;
    try {
      output = formatter(ctx, value, recurseTimes);
      for (let i = 0; i < keys.length; i++) {
        output[output.length] = formatProperty(ctx, value, recurseTimes, keys[i], extrasType);
      }
    } catch (e) {
      if (e === TooLong) throw e;
      if (e instanceof RangeError) {
        ctx.seen.pop();
        return `[${slice(getPrefix(constructor, tag, "Object"), 0, -1)}: Inspection interrupted prematurely. Maximum call stack size exceeded.]`;
      }
      throw e;
    }
    if (ctx.circular !== undefined) {
      const index = ctx.circular.get(value);
      if (index !== undefined) {
        const reference = `<ref *${index}>`;
        base = base === "" ? reference : `${reference} ${base}`;
      }
    }
    ctx.seen.pop();
    return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
  }

  function getFunctionBase(value, constructor, tag) {
    let stringified = "";
    try { stringified = fnToString(value); } catch (e) {}
    if (startsWith(stringified, "class") && endsWith(stringified, "}")) {
      const body = slice(stringified, 5, -1);
      const bracketIndex = indexOf(body, "{");
      if (bracketIndex !== -1 && (!includes(slice(body, 0, bracketIndex), "(") || exec(/^\s*(?:extends\s+[^{]*)?\s*$/, slice(body, 0, bracketIndex)) !== null)) {
        return getClassBase(value, constructor, tag);
      }
    }
    let type = "Function";
    if (inChain(value, GeneratorFunctionProto) || inChain(value, AsyncGeneratorFunctionProto)) type = `Generator${type}`;
    if (inChain(value, AsyncFunctionProto) || inChain(value, AsyncGeneratorFunctionProto)) type = `Async${type}`;
    let base = `[${type}`;
    if (constructor === null) base += " (null prototype)";
    const name = functionName(value);
    if (name === "") base += " (anonymous)";
    else base += `: ${name}`;
    base += "]";
    if (constructor !== type && constructor !== null) base += ` ${constructor}`;
    if (tag !== "" && constructor !== tag) base += ` [${tag}]`;
    return base;
  }

  function getClassBase(value, constructor, tag) {
    const name = (hasOwn(value, "name") && functionName(value)) || "(anonymous)";
    let base = `class ${name}`;
    if (constructor !== "Function" && constructor !== null) base += ` [${constructor}]`;
    if (tag !== "" && constructor !== tag) base += ` [${tag}]`;
    if (constructor !== null) {
      const parent = protoOf(value);
      const superName = parent !== null && typeof parent === "function" ? functionName(parent) : "";
      if (superName) base += ` extends ${superName}`;
    } else {
      base += " extends [null prototype]";
    }
    return `[${base}]`;
  }

  function getBoxedBase(value, ctx, keys, constructor, tag) {
    const [type, primitive] = boxed(value);
    let fallback = type;
    let base = `[${type}`;
    if (type !== constructor) {
      if (constructor === null) base += " (null prototype)";
      else base += ` (${constructor})`;
    }
    if (type === "String") {
      // The string's indices are not shown.
      for (let i = keys.length - 1; i >= 0; i--) {
        if (typeof keys[i] === "string" && exec(numberRegExp, keys[i]) !== null && +keys[i] < primitive.length) keys.splice(i, 1);
      }
      if (ctx.showHidden) {
        const at = keys.indexOf("length");
        if (at !== -1) keys.splice(at, 1);
      }
    }
    base += `: ${formatPrimitive(primitive, { ...ctx, breakLength: Infinity })}]`;
    if (tag !== "" && tag !== constructor) base += ` [${tag}]`;
    if (keys.length !== 0 || ctx.stylize === stylize) return base;
    return base;
  }

  function stackOf(err) {
    for (let p = err, n = 0; p !== null && n < 1000; p = protoOf(p), n++) {
      const d = describe(p, "stack");
      if (d === undefined) continue;
      if (hasOwn(d, "value")) return d.value;
      if (p === errorProto && errorStack !== undefined) {
        try { return errorStack(err); } catch (e) { return undefined; }
      }
      return undefined;
    }
    return undefined;
  }

  function formatError(err, constructor, tag, ctx, keys) {
    const nameValue = lookup(err, "name");
    const name = nameValue != null ? Str(nameValue) : "Error";
    const messageValue = lookup(err, "message");
    const message = messageValue != null ? Str(messageValue) : "";
    const header = message === "" ? name : `${name}: ${message}`;
    let frames = stackOf(err);
    frames = typeof frames === "string" ? frames : "";
    // QuickJS's stack holds the frames only; V8's starts with the header.
    if (frames !== "" && !startsWith(frames, "    at")) frames = "";
    let stack = frames === "" ? header : `${header}\n${frames}`;
    while (endsWith(stack, "\n")) stack = slice(stack, 0, -1);
    // Own `name`, `message` and `stack` shown in the stack are not repeated.
    for (const key of ["name", "message", "stack"]) {
      const at = keys.indexOf(key);
      const own = dataOf(err, key);
      if (at !== -1 && (typeof own !== "string" || includes(stack, own))) keys.splice(at, 1);
    }
    const cause = describe(err, "cause");
    if (cause !== undefined && (keys.length === 0 || !keys.includes("cause"))) keys.push("cause");
    const errors = dataOf(err, "errors");
    if (isArray(errors) && (keys.length === 0 || !keys.includes("errors"))) keys.push("errors");
    // Improve the header to show the constructor when the name does not.
    if (constructor === null || (endsWith(name, "Error") && startsWith(stack, name) && (stack.length === name.length || stack[name.length] === ":" || stack[name.length] === "\n"))) {
      let fallback = "Error";
      if (constructor === null) {
        const start = exec(/^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/, stack) || exec(/^([a-z_A-Z0-9-]*Error)$/, stack);
        fallback = (start && start[1]) || "";
        stack = `[${fallback}: null prototype]${fallback === "" ? " " : ""}${slice(stack, fallback.length)}`;
      } else if (constructor !== name) {
        if (includes(constructor, name)) {
          stack = name.length === 0 ? `${constructor}: ${stack}` : `${constructor}${slice(stack, name.length)}`;
        } else {
          stack = `${constructor} [${name}]${slice(stack, name.length)}`;
        }
      }
    }
    let pos = (message !== "" && indexOf(stack, message)) || -1;
    if (pos !== -1) pos += message.length;
    const stackStart = indexOf(stack, "\n    at", pos);
    if (stackStart === -1) stack = `[${stack}]`;
    if (ctx.indentationLvl !== 0) {
      const indentation = repeat(" ", ctx.indentationLvl);
      let out = "";
      let last = 0;
      for (let i = 0; i < stack.length; i++) {
        if (charCodeAt(stack, i) === 10) {
          out += slice(stack, last, i + 1) + indentation;
          last = i + 1;
        }
      }
      stack = out + slice(stack, last);
    }
    return stack;
  }

  function formatArrayBuffer(ctx, value) {
    const bytes = new U8(value);
    const n = MathMin(ctx.maxArrayLength, bytes.length);
    let str = "";
    for (let i = 0; i < n; i++) {
      str += (i === 0 ? "" : " ") + padStart(numberToString(bytes[i], 16), 2, "0");
    }
    const remaining = bytes.length - ctx.maxArrayLength;
    if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? "s" : ""}`;
    return [`[Uint8Contents]: <${str}>`];
  }

  function formatArray(ctx, value, recurseTimes) {
    const valLen = value.length;
    const len = MathMin(MathMax(0, ctx.maxArrayLength), valLen);
    const remaining = valLen - len;
    const output = [];
    for (let i = 0; i < len; i++) {
      if (!hasOwn(value, i)) return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
      output[output.length] = formatProperty(ctx, value, recurseTimes, i, kArrayType);
    }
    if (remaining > 0) output[output.length] = remainingText(remaining);
    return output;
  }

  function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
    const keys = keysOf(value);
    let index = i;
    for (; i < keys.length && output.length < maxLength; i++) {
      const key = keys[i];
      const tmp = +key;
      if (tmp > 2 ** 32 - 2) break;
      if (`${index}` !== key) {
        if (exec(numberRegExp, key) === null) break;
        const emptyItems = tmp - index;
        output[output.length] = `<${emptyItems} empty item${emptyItems > 1 ? "s" : ""}>`;
        index = tmp;
        if (output.length === maxLength) break;
      }
      output[output.length] = formatProperty(ctx, value, recurseTimes, key, kArrayType);
      index++;
    }
    const remaining = value.length - index;
    if (output.length !== maxLength) {
      if (remaining > 0) output[output.length] = `<${remaining} empty item${remaining > 1 ? "s" : ""}>`;
    } else if (remaining > 0) {
      output[output.length] = remainingText(remaining);
    }
    return output;
  }

  const remainingText = (remaining) => `... ${remaining} more item${remaining > 1 ? "s" : ""}`;

  function formatTypedArray(value, length, ctx) {
    const maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
    const remaining = length - maxLength;
    const output = [];
    for (let i = 0; i < maxLength; ++i) {
      const v = value[i];
      output[i] = typeof v === "bigint" ? `${v}n` : formatNumber(v);
    }
    if (remaining > 0) output[maxLength] = remainingText(remaining);
    return output;
  }

  function formatSet(set, ctx, recurseTimes) {
    const length = setSize(set);
    const maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
    const remaining = length - maxLength;
    const output = [];
    ctx.indentationLvl += 2;
    const it = setValues(set);
    for (let i = 0; i < maxLength; i++) {
      const step = setIterNext(it);
      if (step.done) break;
      output[output.length] = formatValue(ctx, step.value, recurseTimes);
    }
    if (remaining > 0) output[output.length] = remainingText(remaining);
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatMap(map, ctx, recurseTimes) {
    const length = mapSize(map);
    const maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
    const remaining = length - maxLength;
    const output = [];
    ctx.indentationLvl += 2;
    const it = mapEntries(map);
    for (let i = 0; i < maxLength; i++) {
      const step = mapIterNext(it);
      if (step.done) break;
      const entry = step.value;
      output[output.length] = `${formatValue(ctx, entry[0], recurseTimes)} => ${formatValue(ctx, entry[1], recurseTimes)}`;
    }
    if (remaining > 0) output[output.length] = remainingText(remaining);
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatPromise(ctx, value, recurseTimes) {
    const details = promiseState(value);
    if (details[0] === 0) return ["<pending>"];
    ctx.indentationLvl += 2;
    const str = formatValue(ctx, details[1], recurseTimes);
    ctx.indentationLvl -= 2;
    return [details[0] === 2 ? `<rejected> ${str}` : str];
  }

  function formatProperty(ctx, value, recurseTimes, key, type, desc) {
    let name;
    let str;
    const extra = " ";
    if (desc === undefined) desc = describe(value, key);
    if (desc === undefined) {
      // `byteLength` of an ArrayBuffer: its builtin getter.
      desc = { value: key === "byteLength" && isArrayBuffer(value) ? bufferBytes(value) : undefined, enumerable: true };
    }
    if (desc.value !== undefined) {
      ctx.indentationLvl += 2;
      str = formatValue(ctx, desc.value, recurseTimes);
      ctx.indentationLvl -= 2;
    } else if (desc.get !== undefined) {
      str = desc.set !== undefined ? "[Getter/Setter]" : "[Getter]";
    } else if (desc.set !== undefined) {
      str = "[Setter]";
    } else {
      str = "undefined";
    }
    if (type === kArrayType) return str;
    if (typeof key === "symbol") {
      name = `[${symToString(key)}]`;
    } else if (key === "__proto__") {
      name = "['__proto__']";
    } else if (desc.enumerable === false) {
      name = `[${key}]`;
    } else if (exec(keyStrRegExp, key) !== null) {
      name = key;
    } else {
      name = strEscape(key);
    }
    return `${name}:${extra}${str}`;
  }

  function isBelowBreakLength(ctx, output, start, base) {
    let totalLength = output.length + start;
    if (totalLength + output.length > ctx.breakLength) return false;
    for (let i = 0; i < output.length; i++) {
      totalLength += output[i].length;
      if (totalLength > ctx.breakLength) return false;
    }
    return base === "" || !includes(base, "\n");
  }

  function groupArrayElements(ctx, output, value) {
    let totalLength = 0;
    let maxLength = 0;
    let i = 0;
    let outputLength = output.length;
    if (ctx.maxArrayLength < output.length) outputLength--;
    const separatorSpace = 2;
    const dataLen = [];
    for (; i < outputLength; i++) {
      const len = getStringWidth(output[i]);
      dataLen[i] = len;
      totalLength += len + separatorSpace;
      if (maxLength < len) maxLength = len;
    }
    const actualMax = maxLength + separatorSpace;
    if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
        (totalLength / actualMax > 5 || maxLength <= 6)) {
      const approxCharHeights = 2.5;
      const averageBias = MathSqrt(actualMax - totalLength / output.length);
      const biasedMax = MathMax(actualMax - 3 - averageBias, 1);
      const columns = MathMin(
        MathRound(MathSqrt(approxCharHeights * biasedMax * outputLength) / biasedMax),
        MathFloor((ctx.breakLength - ctx.indentationLvl) / actualMax),
        ctx.compact * 4,
        15,
      );
      if (columns <= 1) return output;
      const tmp = [];
      const maxLineLength = [];
      for (let i = 0; i < columns; i++) {
        let lineLength = 0;
        for (let j = i; j < output.length; j += columns) {
          if (dataLen[j] > lineLength) lineLength = dataLen[j];
        }
        maxLineLength[maxLineLength.length] = lineLength + separatorSpace;
      }
      let order = padStart;
      if (value !== undefined) {
        for (let i = 0; i < output.length; i++) {
          const d = describe(value, i);
          const v = d !== undefined && hasOwn(d, "value") ? d.value : undefined;
          if (typeof v !== "number" && typeof v !== "bigint") {
            order = padEnd;
            break;
          }
        }
      }
      for (let i = 0; i < outputLength; i += columns) {
        const max = MathMin(i + columns, outputLength);
        let str = "";
        let j = i;
        for (; j < max - 1; j++) {
          const padding = maxLineLength[j - i] + output[j].length - dataLen[j];
          str += order(`${output[j]}, `, padding, " ");
        }
        if (order === padStart) {
          const padding = maxLineLength[j - i] + output[j].length - dataLen[j] - separatorSpace;
          str += padStart(output[j], padding, " ");
        } else {
          str += output[j];
        }
        tmp[tmp.length] = str;
      }
      if (ctx.maxArrayLength < output.length) tmp[tmp.length] = output[outputLength];
      output = tmp;
    }
    return output;
  }

  function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
    const entries = output.length;
    if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
    if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
      const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
      if (isBelowBreakLength(ctx, output, start, base)) {
        const joined = output.join(", ");
        if (!includes(joined, "\n")) {
          return `${base ? `${base} ` : ""}${braces[0]} ${joined} ${braces[1]}`;
        }
      }
    }
    const indentation = `\n${repeat(" ", ctx.indentationLvl)}`;
    return `${base ? `${base} ` : ""}${braces[0]}${indentation}  ${output.join(`,${indentation}  `)}${indentation}${braces[1]}`;
  }

  function inspect(value, options) {
    const ctx = {
      seen: [],
      circular: undefined,
      indentationLvl: 0,
      currentDepth: 0,
      visits: 0,
      depth: 2,
      showHidden: false,
      showProxy: false,
      maxArrayLength: 100,
      maxStringLength: 10000,
      breakLength: 80,
      compact: 3,
    };
    if (options !== undefined) {
      for (const key of ["depth", "showHidden", "showProxy", "maxArrayLength", "maxStringLength", "breakLength", "compact"]) {
        const v = dataOf(options, key);
        if (v !== undefined) ctx[key] = v === null ? Infinity : v;
      }
    }
    try {
      return formatValue(ctx, value, 0);
    } catch (e) {
      if (e === TooLong) return "[pml: too large to print]";
      throw e;
    }
  }

  function tryStringify(arg) {
    try {
      return stringify(arg);
    } catch (err) {
      // V8's message (the context's `JSON.stringify` is pml's, `worker.rs`), or QuickJS's.
      if (err instanceof TypeErr && (startsWith(err.message, "Converting circular structure to JSON") || err.message === "circular reference")) {
        return "[Circular]";
      }
      throw err;
    }
  }

  function hasBuiltInToString(value) {
    let n = 0;
    while (isProxy(value)) {
      value = proxyTarget(value, false);
      if (value === null || n++ > 1000) return true;
    }
    const toString = lookup(value, "toString");
    if (typeof toString !== "function") return true;
    if (hasOwn(value, "toString")) return false;
    let pointer = value;
    do {
      pointer = protoOf(pointer);
    } while (pointer !== null && !hasOwn(pointer, "toString"));
    if (pointer === null) return true;
    const ctor = dataOf(pointer, "constructor");
    return typeof ctor === "function" && builtInObjects.has(functionName(ctor));
  }

  // A number read from a value without running program code: primitives as `Number` reads
  // them, Dates and boxed primitives their value, other objects NaN.
  function numberOf(value, parse) {
    if (typeof value === "object" && value !== null || typeof value === "function") {
      if (isDate(value)) value = dateGetTime(value);
      else {
        const b = boxed(value);
        if (b === undefined || b[0] === "Symbol") return NaN;
        value = b[1];
      }
    }
    return parse(value);
  }

  function format(args) {
    const first = args[0];
    let a = 0;
    let str = "";
    let join = "";
    if (typeof first === "string") {
      if (args.length === 1) return first;
      let tempStr;
      let lastPos = 0;
      for (let i = 0; i < first.length - 1; i++) {
        if (charCodeAt(first, i) === 37) {
          const nextChar = charCodeAt(first, ++i);
          if (a + 1 !== args.length) {
            switch (nextChar) {
              case 115: { // s
                const arg = args[++a];
                if (typeof arg === "number") tempStr = formatNumber(arg);
                else if (typeof arg === "bigint") tempStr = `${arg}n`;
                else if (typeof arg === "symbol") tempStr = symToString(arg);
                else if (typeof arg === "function") tempStr = fnToString(arg);
                else if (typeof arg !== "object" || arg === null) tempStr = Str(arg);
                else tempStr = inspect(arg, { depth: 0 });
                break;
              }
              case 106: // j
                tempStr = tryStringify(args[++a]);
                break;
              case 100: { // d
                const arg = args[++a];
                if (typeof arg === "bigint") tempStr = `${arg}n`;
                else if (typeof arg === "symbol") tempStr = "NaN";
                else tempStr = formatNumber(numberOf(arg, Number));
                break;
              }
              case 79: // O
                tempStr = inspect(args[++a]);
                break;
              case 111: // o
                tempStr = inspect(args[++a], { showHidden: true, showProxy: true, depth: 4 });
                break;
              case 105: { // i
                const arg = args[++a];
                if (typeof arg === "bigint") tempStr = `${arg}n`;
                else if (typeof arg === "symbol") tempStr = "NaN";
                else tempStr = formatNumber(numberOf(arg, (v) => parseInt_(typeof v === "string" ? v : `${v}`)));
                break;
              }
              case 102: { // f
                const arg = args[++a];
                if (typeof arg === "symbol") tempStr = "NaN";
                else tempStr = formatNumber(numberOf(arg, (v) => parseFloat_(typeof v === "string" ? v : `${v}`)));
                break;
              }
              case 99: // c
                a += 1;
                tempStr = "";
                break;
              case 37: // %
                str += slice(first, lastPos, i);
                lastPos = i + 1;
                continue;
              default:
                continue;
            }
            if (lastPos !== i - 1) str += slice(first, lastPos, i - 1);
            str += tempStr;
            lastPos = i + 1;
          } else if (nextChar === 37) {
            str += slice(first, lastPos, i);
            lastPos = i + 1;
          }
        }
      }
      if (lastPos !== 0) {
        a++;
        join = " ";
        if (lastPos < first.length) str += slice(first, lastPos);
      }
    }
    while (a < args.length) {
      const value = args[a];
      str += join;
      str += typeof value !== "string" ? inspect(value) : value;
      join = " ";
      a++;
      if (str.length > LIMIT) return slice(str, 0, LIMIT) + "…";
    }
    return str;
  }

  // The entries of a Map (`{ map: true, list: [[key, value]...] }`) or a Set
  // (`{ map: false, list: [value...] }`), read through the builtins; undefined for anything else.
  function entriesOf(value) {
    let n = 0;
    while (isProxy(value)) {
      value = proxyTarget(value, false);
      if (value === null || n++ > 1000) return undefined;
    }
    const list = [];
    if (isMap(value)) {
      const it = mapEntries(value);
      for (let step = mapIterNext(it); !step.done; step = mapIterNext(it)) list[list.length] = step.value;
      return { map: true, list };
    }
    if (isSet(value)) {
      const it = setValues(value);
      for (let step = setIterNext(it); !step.done; step = setIterNext(it)) list[list.length] = step.value;
      return { map: false, list };
    }
    return undefined;
  }

  return { format, inspect, hasBuiltInToString, entriesOf, getStringWidth };
})
