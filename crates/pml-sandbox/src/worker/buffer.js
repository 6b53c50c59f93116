// Node's `Buffer` (Node 20, lib/buffer.js) for programs: the bytes of a string in an encoding
// and back (`Buffer.from(data, "base64").toString("utf8")`, `Buffer.byteLength(text)`),
// concatenation, comparison, search, and how `JSON.stringify` and `console.log` show one.
// Encodings: utf8, hex, base64, base64url, latin1 (binary), ascii, utf16le (ucs2), decoded as
// leniently as Node decodes them (base64 skips what is not of its alphabet and stops at `=`;
// hex stops at the first pair that is not hex; invalid UTF-8 reads as U+FFFD), and the
// fixed-width number reads (`readUInt32BE`...). Left out: the number writes, the 64-bit
// integer reads, `transcode`, `Blob`.
//
// Evaluates to `(globals) => isBuffer`: defines `Buffer` on the global object, made on first
// use (a program that never touches it does not pay for it); `isBuffer(v)` tells `console`'s
// inspector (`inspect.js`) which values print as `<Buffer 68 69>`, without running program code.
(function (globals) {
  "use strict";
  const define = Object.defineProperty;
  const protoOf = Object.getPrototypeOf;
  const apply = Reflect.apply;
  const isArray = Array.isArray;
  const U8 = Uint8Array;
  const AB = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const TypeErr = TypeError;
  const RangeErr = RangeError;
  const fromCharCode = String.fromCharCode;
  const charCodeAt = String.prototype.charCodeAt;
  const toLowerCase = String.prototype.toLowerCase;
  const Encoder = globals.TextEncoder;
  const Decoder = globals.TextDecoder;
  const typedTag = Object.getOwnPropertyDescriptor(protoOf(U8.prototype), Symbol.toStringTag).get;
  const typedLength = Object.getOwnPropertyDescriptor(protoOf(U8.prototype), "length").get;
  const u8Subarray = U8.prototype.subarray;
  const u8Set = U8.prototype.set;
  const u8Fill = U8.prototype.fill;
  const mathMin = Math.min;
  const mathMax = Math.max;
  const mathFloor = Math.floor;
  const mathTrunc = Math.trunc;
  let bufferProto = null;

  const isBuffer = (v) => {
    if (bufferProto === null || v === null || typeof v !== "object") return false;
    if (apply(typedTag, v, []) !== "Uint8Array") return false;
    for (let p = protoOf(v); p !== null; p = protoOf(p)) if (p === bufferProto) return true;
    return false;
  };

  const make = () => {
    class FastBuffer extends U8 {}
    const proto = FastBuffer.prototype;
    const utf8 = new Encoder();
    const utf8Decoder = new Decoder("utf-8");

    const codeError = (Ctor, code, message) => {
      const e = new Ctor(message);
      define(e, "code", { value: code, writable: true, configurable: true, enumerable: true });
      return e;
    };
    // How Node's errors describe a value they did not want (`Received type number (5)`).
    const received = (v) => {
      if (v === null || v === undefined) return ` Received ${v}`;
      if (typeof v === "function") return ` Received function ${v.name}`;
      if (typeof v === "object") {
        const ctor = v.constructor;
        return ctor && typeof ctor.name === "string" && ctor.name !== "" ? ` Received an instance of ${ctor.name}` : " Received an instance of Object";
      }
      let shown = typeof v === "string" ? `'${v.length > 28 ? `${apply(String.prototype.slice, v, [0, 25])}...` : v}'` : typeof v === "bigint" ? `${v}n` : typeof v === "symbol" ? String(v) : `${v}`;
      return ` Received type ${typeof v} (${shown})`;
    };
    const outOfRange = (name, range, v) => codeError(RangeErr, "ERR_OUT_OF_RANGE", `The value of "${name}" is out of range. It must be ${range}. Received ${v}`);
    const invalidArg = (name, expected, v) => codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${expected}.${received(v)}`);

    // The encoding's canonical name, or undefined when Node knows no such encoding.
    const encodingOf = (enc) => {
      if (enc === undefined || enc === null || enc === "") return "utf8";
      const e = apply(toLowerCase, `${enc}`, []);
      switch (e) {
        case "utf8": case "utf-8": return "utf8";
        case "hex": return "hex";
        case "base64": return "base64";
        case "base64url": return "base64url";
        case "latin1": case "binary": return "latin1";
        case "ascii": return "ascii";
        case "ucs2": case "ucs-2": case "utf16le": case "utf-16le": return "utf16le";
        default: return undefined;
      }
    };
    const encodingOrThrow = (enc) => {
      const e = encodingOf(enc);
      if (e === undefined) throw codeError(TypeErr, "ERR_UNKNOWN_ENCODING", `Unknown encoding: ${enc}`);
      return e;
    };

    const wrap = (bytes) => new FastBuffer(bytes.buffer, bytes.byteOffset, apply(typedLength, bytes, []));
    const alloc = (n) => new FastBuffer(n);

    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // Both alphabets decode (as Node's decoder reads either).
    const b64Value = (c) => {
      if (c >= 65 && c <= 90) return c - 65;
      if (c >= 97 && c <= 122) return c - 71;
      if (c >= 48 && c <= 57) return c + 4;
      if (c === 43 || c === 45) return 62;
      if (c === 47 || c === 95) return 63;
      return -1;
    };
    const hexValue = (c) => {
      if (c >= 48 && c <= 57) return c - 48;
      if (c >= 97 && c <= 102) return c - 87;
      if (c >= 65 && c <= 70) return c - 55;
      return -1;
    };

    // The bytes of `string` in `enc` (canonical).
    const encode = (string, enc) => {
      const n = string.length;
      switch (enc) {
        case "utf8":
          return wrap(utf8.encode(string));
        case "latin1":
        case "ascii": {
          const out = alloc(n);
          for (let i = 0; i < n; i++) out[i] = apply(charCodeAt, string, [i]) & 255;
          return out;
        }
        case "utf16le": {
          const out = alloc(n * 2);
          for (let i = 0; i < n; i++) {
            const c = apply(charCodeAt, string, [i]);
            out[2 * i] = c & 255;
            out[2 * i + 1] = c >> 8;
          }
          return out;
        }
        case "hex": {
          const pairs = n >>> 1;
          const out = [];
          for (let i = 0; i < pairs; i++) {
            const hi = hexValue(apply(charCodeAt, string, [2 * i]));
            const lo = hexValue(apply(charCodeAt, string, [2 * i + 1]));
            if (hi < 0 || lo < 0) break;
            out[out.length] = hi * 16 + lo;
          }
          const buf = alloc(out.length);
          for (let i = 0; i < out.length; i++) buf[i] = out[i];
          return buf;
        }
        default: {
          // base64 and base64url: the letters of either alphabet, up to the first `=`.
          // A string with a character past U+00FF stops at the first one not of the alphabet;
          // others skip them (Node's two decoders).
          let wide = false;
          for (let i = 0; i < n && !wide; i++) if (apply(charCodeAt, string, [i]) > 255) wide = true;
          const values = [];
          for (let i = 0; i < n; i++) {
            const c = apply(charCodeAt, string, [i]);
            if (c === 61) break;
            const v = b64Value(c);
            if (v >= 0) values[values.length] = v;
            else if (wide) break;
          }
          const m = values.length;
          const size = mathFloor((m * 3) / 4);
          const out = alloc(size);
          let o = 0;
          for (let i = 0; i + 1 < m; i += 4) {
            const a = values[i], b = values[i + 1], c = i + 2 < m ? values[i + 2] : 0, d = i + 3 < m ? values[i + 3] : 0;
            const bits = (a << 18) | (b << 12) | (c << 6) | d;
            if (o < size) out[o++] = (bits >> 16) & 255;
            if (o < size && i + 2 < m) out[o++] = (bits >> 8) & 255;
            if (o < size && i + 3 < m) out[o++] = bits & 255;
          }
          return out;
        }
      }
    };

    // The text of `bytes[start..end]` in `enc` (canonical).
    const decode = (bytes, enc, start, end) => {
      switch (enc) {
        case "utf8":
          return utf8Decoder.decode(apply(u8Subarray, bytes, [start, end]));
        case "latin1":
        case "ascii": {
          let s = "";
          const mask = enc === "ascii" ? 127 : 255;
          for (let i = start; i < end; i++) s += fromCharCode(bytes[i] & mask);
          return s;
        }
        case "utf16le": {
          let s = "";
          for (let i = start; i + 1 < end; i += 2) s += fromCharCode(bytes[i] | (bytes[i + 1] << 8));
          return s;
        }
        case "hex": {
          let s = "";
          for (let i = start; i < end; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
          return s;
        }
        default: {
          const table = enc === "base64" ? B64 : B64URL;
          let s = "";
          let i = start;
          for (; i + 2 < end; i += 3) {
            const bits = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
            s += table[bits >> 18] + table[(bits >> 12) & 63] + table[(bits >> 6) & 63] + table[bits & 63];
          }
          const pad = enc === "base64" ? "=" : "";
          if (end - i === 1) {
            const bits = bytes[i] << 16;
            s += table[bits >> 18] + table[(bits >> 12) & 63] + pad + pad;
          } else if (end - i === 2) {
            const bits = (bytes[i] << 16) | (bytes[i + 1] << 8);
            s += table[bits >> 18] + table[(bits >> 12) & 63] + table[(bits >> 6) & 63] + pad;
          }
          return s;
        }
      }
    };

    const lengthOf = (v) => apply(typedLength, v, []);
    const isUint8 = (v) => v !== null && typeof v === "object" && isView(v) && apply(typedTag, v, []) === "Uint8Array";
    const isTyped = (v) => v !== null && typeof v === "object" && isView(v) && apply(typedTag, v, []) !== undefined;
    // A start or end as Node reads one (`undefined` is the default, NaN is 0), clamped.
    const bound = (v, fallback, length) => {
      if (v === undefined) return fallback;
      const n = +v;
      if (n !== n) return 0;
      const t = mathTrunc(n);
      return t < 0 ? 0 : t > length ? length : t;
    };

    const fromArrayLike = (list) => {
      const n = list.length >>> 0;
      const out = alloc(n);
      for (let i = 0; i < n; i++) out[i] = list[i];
      return out;
    };

    function Buffer(arg, encodingOrOffset, length) {
      if (typeof arg === "number") {
        if (typeof encodingOrOffset === "string") throw invalidArg("string", "of type string", arg);
        return Buffer.alloc(arg);
      }
      return Buffer.from(arg, encodingOrOffset, length);
    }
    define(Buffer, "prototype", { value: proto, writable: false, enumerable: false, configurable: false });
    define(proto, "constructor", { value: Buffer, writable: true, enumerable: false, configurable: true });
    Object.setPrototypeOf(Buffer, U8);

    const statics = {
      from(value, encodingOrOffset, length) {
        if (typeof value === "string") return encode(value, encodingOrThrow(encodingOrOffset));
        if (typeof value === "object" && value !== null) {
          if (value instanceof AB) {
            const total = value.byteLength;
            const offset = encodingOrOffset === undefined ? 0 : +encodingOrOffset || 0;
            if (offset > total) throw codeError(RangeErr, "ERR_BUFFER_OUT_OF_BOUNDS", '"offset" is outside of buffer bounds');
            const size = length === undefined ? total - offset : +length || 0;
            if (offset + size > total) throw codeError(RangeErr, "ERR_BUFFER_OUT_OF_BOUNDS", '"length" is outside of buffer bounds');
            return new FastBuffer(value, offset, size);
          }
          const primitive = value.valueOf();
          if (primitive !== null && primitive !== undefined && primitive !== value) return Buffer.from(primitive, encodingOrOffset, length);
          if (isTyped(value)) {
            if (isUint8(value)) {
              const out = alloc(lengthOf(value));
              apply(u8Set, out, [value]);
              return out;
            }
            return fromArrayLike(value);
          }
          if (value.length !== undefined || isArray(value)) return typeof value.length !== "number" ? alloc(0) : fromArrayLike(value);
          if (value.type === "Buffer" && isArray(value.data)) return fromArrayLike(value.data);
        }
        throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object.${received(value)}`);
      },
      alloc(size, fill, encoding) {
        if (typeof size !== "number") throw invalidArg("size", "of type number", size);
        if (!(size >= 0 && size <= 4294967296)) throw outOfRange("size", ">= 0 && <= 4294967296", size);
        const out = alloc(mathFloor(size));
        if (fill !== undefined && fill !== 0 && out.length > 0) out.fill(fill, 0, out.length, encoding);
        return out;
      },
      allocUnsafe(size) {
        return Buffer.alloc(size);
      },
      allocUnsafeSlow(size) {
        return Buffer.alloc(size);
      },
      isBuffer(value) {
        return isBuffer(value);
      },
      isEncoding(encoding) {
        return typeof encoding === "string" && encoding.length !== 0 && encodingOf(encoding) !== undefined;
      },
      byteLength(value, encoding) {
        if (typeof value !== "string") {
          if (isView(value) || value instanceof AB) return value.byteLength;
          throw invalidArg("string", "of type string or an instance of Buffer or ArrayBuffer", value);
        }
        const enc = encodingOf(encoding) || "utf8";
        const n = value.length;
        if (enc === "utf16le") return n * 2;
        if (enc === "latin1" || enc === "ascii") return n;
        // From the length alone, as Node counts them (what decoding gives may be less).
        if (enc === "hex") return n >>> 1;
        if (enc === "base64" || enc === "base64url") {
          let m = n;
          if (m > 0 && apply(charCodeAt, value, [m - 1]) === 61) m--;
          if (m > 1 && apply(charCodeAt, value, [m - 1]) === 61) m--;
          return (m * 3) >>> 2;
        }
        return lengthOf(encode(value, enc));
      },
      concat(list, totalLength) {
        if (!isArray(list)) throw invalidArg("list", "an instance of Array", list);
        if (list.length === 0) return alloc(0);
        let total = 0;
        for (let i = 0; i < list.length; i++) {
          if (!isUint8(list[i])) throw invalidArg(`list[${i}]`, "an instance of Buffer or Uint8Array", list[i]);
          total += lengthOf(list[i]);
        }
        const size = totalLength === undefined ? total : mathMax(0, mathFloor(+totalLength || 0));
        const out = alloc(size);
        let at = 0;
        for (let i = 0; i < list.length && at < size; i++) {
          const part = list[i];
          const n = mathMin(lengthOf(part), size - at);
          apply(u8Set, out, [apply(u8Subarray, part, [0, n]), at]);
          at += n;
        }
        return out;
      },
      compare(a, b) {
        if (!isUint8(a)) throw invalidArg("buf1", "an instance of Buffer or Uint8Array", a);
        if (!isUint8(b)) throw invalidArg("buf2", "an instance of Buffer or Uint8Array", b);
        return compareBytes(a, 0, lengthOf(a), b, 0, lengthOf(b));
      },
    };
    const compareBytes = (a, aStart, aEnd, b, bStart, bEnd) => {
      const n = mathMin(aEnd - aStart, bEnd - bStart);
      for (let i = 0; i < n; i++) {
        const x = a[aStart + i], y = b[bStart + i];
        if (x !== y) return x < y ? -1 : 1;
      }
      const la = aEnd - aStart, lb = bEnd - bStart;
      return la < lb ? -1 : la > lb ? 1 : 0;
    };
    for (const name of ["from", "alloc", "allocUnsafe", "allocUnsafeSlow", "isBuffer", "isEncoding", "byteLength", "concat", "compare"]) {
      define(Buffer, name, { value: statics[name], writable: true, enumerable: true, configurable: true });
    }
    define(Buffer, "poolSize", { value: 8192, writable: true, enumerable: true, configurable: true });

    // Node's optional arguments before an encoding: `(a, "hex")` and `(a, b, "hex")` name it
    // early, the arguments after it left out.
    const encodingEarly = (first, second, encoding) => {
      if (typeof first === "string") return [undefined, undefined, first];
      if (typeof second === "string") return [first, undefined, second];
      return [first, second, encoding];
    };

    // The bytes a search or a fill looks for.
    const needle = (value, encoding) => {
      if (typeof value === "string") return encode(value, encodingOrThrow(encoding));
      if (isUint8(value)) return value;
      if (typeof value === "number") {
        const one = alloc(1);
        one[0] = value;
        return one;
      }
      throw invalidArg("value", "one of type number or string or an instance of Buffer or Uint8Array", value);
    };
    const search = (bytes, value, byteOffset, encoding, last) => {
      [byteOffset, , encoding] = encodingEarly(byteOffset, undefined, encoding);
      const n = lengthOf(bytes);
      const find = needle(value, encoding);
      const m = lengthOf(find);
      let from = byteOffset === undefined ? (last ? n : 0) : +byteOffset;
      if (from !== from) from = last ? n : 0;
      from = mathTrunc(from);
      if (from < 0) from += n;
      if (last) {
        if (from < 0) return -1;
        if (m === 0) return mathMin(from, n);
        for (let i = mathMin(from, n - m); i >= 0; i--) if (compareBytes(bytes, i, i + m, find, 0, m) === 0) return i;
        return -1;
      }
      if (from < 0) from = 0;
      if (m === 0) return from <= n ? from : n;
      for (let i = from; i + m <= n; i++) if (compareBytes(bytes, i, i + m, find, 0, m) === 0) return i;
      return -1;
    };

    const methods = {
      toString(encoding, start, end) {
        const n = lengthOf(this);
        if (arguments.length === 0) return decode(this, "utf8", 0, n);
        const s = bound(start, 0, n);
        const e = bound(end, n, n);
        if (e <= s) return "";
        return decode(this, encodingOrThrow(encoding), s, e);
      },
      toJSON() {
        const n = lengthOf(this);
        const data = [];
        for (let i = 0; i < n; i++) data[i] = this[i];
        return { type: "Buffer", data };
      },
      equals(other) {
        if (!isUint8(other)) throw invalidArg("otherBuffer", "an instance of Buffer or Uint8Array", other);
        return compareBytes(this, 0, lengthOf(this), other, 0, lengthOf(other)) === 0;
      },
      compare(target, targetStart, targetEnd, sourceStart, sourceEnd) {
        if (!isUint8(target)) throw invalidArg("target", "an instance of Buffer or Uint8Array", target);
        const tn = lengthOf(target), sn = lengthOf(this);
        return compareBytes(this, bound(sourceStart, 0, sn), bound(sourceEnd, sn, sn), target, bound(targetStart, 0, tn), bound(targetEnd, tn, tn));
      },
      slice(start, end) {
        return this.subarray(start, end);
      },
      write(string, offset, length, encoding) {
        if (typeof string !== "string") throw invalidArg("argument", "of type string", string);
        [offset, length, encoding] = encodingEarly(offset, length, encoding);
        const n = lengthOf(this);
        const at = offset === undefined ? 0 : bound(offset, 0, n);
        const room = n - at;
        const max = length === undefined ? room : mathMin(room, bound(length, room, room));
        const enc = encodingOrThrow(encoding);
        const bytes = encode(string, enc);
        let count = mathMin(lengthOf(bytes), max);
        // A character is written whole or not at all (UTF-8).
        if (enc === "utf8" && count < lengthOf(bytes)) while (count > 0 && (bytes[count] & 0xc0) === 0x80) count--;
        apply(u8Set, this, [apply(u8Subarray, bytes, [0, count]), at]);
        return count;
      },
      fill(value, offset, end, encoding) {
        [offset, end, encoding] = encodingEarly(offset, end, encoding);
        const n = lengthOf(this);
        const s = offset === undefined ? 0 : bound(offset, 0, n);
        const e = end === undefined ? n : bound(end, n, n);
        if (typeof value === "number" || typeof value === "boolean") {
          apply(u8Fill, this, [+value & 255, s, e]);
          return this;
        }
        const bytes = needle(typeof value === "string" && value.length === 0 ? 0 : value, encoding);
        const m = lengthOf(bytes);
        if (m === 0) throw codeError(TypeErr, "ERR_INVALID_ARG_VALUE", `The argument 'value' is invalid. Received ${typeof value === "string" ? `'${value}'` : String(value)}`);
        for (let i = s; i < e; i++) this[i] = bytes[(i - s) % m];
        return this;
      },
      indexOf(value, byteOffset, encoding) {
        return search(this, value, byteOffset, encoding, false);
      },
      lastIndexOf(value, byteOffset, encoding) {
        return search(this, value, byteOffset, encoding, true);
      },
      includes(value, byteOffset, encoding) {
        return search(this, value, byteOffset, encoding, false) !== -1;
      },
      copy(target, targetStart, sourceStart, sourceEnd) {
        if (!isUint8(target)) throw invalidArg("target", "an instance of Buffer or Uint8Array", target);
        const tn = lengthOf(target), sn = lengthOf(this);
        const t = bound(targetStart, 0, tn);
        const s = bound(sourceStart, 0, sn);
        const e = bound(sourceEnd, sn, sn);
        const count = mathMax(0, mathMin(e - s, tn - t));
        apply(u8Set, target, [apply(u8Subarray, this, [s, s + count]), t]);
        return count;
      },
    };
    // The fixed-width number reads (`readUInt32BE(16)`: a PNG's width), checked as Node checks
    // their offset.
    const DV = DataView;
    const viewOf = (bytes) => new DV(bytes.buffer, bytes.byteOffset, lengthOf(bytes));
    const reader = (size, read, little) =>
      function (offset) {
        const at = offset === undefined ? 0 : offset;
        if (typeof at !== "number") throw invalidArg("offset", "of type number", at);
        const last = lengthOf(this) - size;
        if (at !== mathFloor(at)) throw outOfRange("offset", "an integer", at);
        if (last < 0) throw codeError(RangeErr, "ERR_BUFFER_OUT_OF_BOUNDS", "Attempt to access memory outside buffer bounds");
        if (at < 0 || at > last) throw outOfRange("offset", `>= 0 and <= ${last}`, at);
        return apply(read, viewOf(this), [at, little]);
      };
    const dv = DV.prototype;
    const reads = [
      ["UInt8", 1, dv.getUint8], ["Int8", 1, dv.getInt8],
      ["UInt16", 2, dv.getUint16], ["Int16", 2, dv.getInt16],
      ["UInt32", 4, dv.getUint32], ["Int32", 4, dv.getInt32],
      ["Float", 4, dv.getFloat32], ["Double", 8, dv.getFloat64],
    ];
    for (const [kind, size, read] of reads) {
      const ends = size === 1 ? [["", false]] : [["LE", true], ["BE", false]];
      for (const [end, little] of ends) {
        const method = reader(size, read, little);
        for (const name of [`read${kind}${end}`, `read${kind.replace("UInt", "Uint")}${end}`]) {
          define(proto, name, { value: method, writable: true, enumerable: true, configurable: true });
        }
      }
    }
    for (const name of ["toString", "toJSON", "equals", "compare", "slice", "write", "fill", "indexOf", "lastIndexOf", "includes", "copy"]) {
      define(proto, name, { value: methods[name], writable: true, enumerable: true, configurable: true });
    }
    define(proto, "toLocaleString", { value: methods.toString, writable: true, enumerable: true, configurable: true });
    for (const enc of ["utf8", "hex", "base64", "base64url", "latin1", "ascii", "ucs2"]) {
      const canonical = encodingOf(enc);
      define(proto, `${enc}Slice`, {
        value: function (start, end) {
          const n = lengthOf(this);
          return decode(this, canonical, bound(start, 0, n), bound(end, n, n));
        },
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    bufferProto = proto;
    return Buffer;
  };

  define(globals, "Buffer", {
    get() {
      const Buffer = make();
      define(globals, "Buffer", { value: Buffer, writable: true, enumerable: false, configurable: true });
      return Buffer;
    },
    set(value) {
      define(globals, "Buffer", { value, writable: true, enumerable: false, configurable: true });
    },
    enumerable: false,
    configurable: true,
  });
  return isBuffer;
})
