// The web platform's data functions that Node 20 has as globals and QuickJS has not, as Node's
// behave: `atob`, `btoa`, `structuredClone`, `TextEncoder`, `TextDecoder`, `URL`,
// `URLSearchParams`, `crypto`'s random values and `crypto.subtle.digest`, `performance.now()`,
// `Event`, `EventTarget`, `AbortController`, `AbortSignal`, `Blob` and the `DOMException` they throw. Pure computation over the program's
// values, nothing reaching outside. Run once in a program's context before the program: it
// takes the built-ins it uses then, so a program that replaces them changes nothing here.
// `urlNative` is `{ parse(input, base?), set(href, component, value) }` (`src/url.rs`: the
// URL Standard's parser and setters), each giving a URL's components or `null`, and
// `digest(name, bytes)`, a SHA digest as an `ArrayBuffer`.
(function (globals, urlNative) {
  const TypeErr = TypeError;
  const RangeErr = RangeError;
  const Err = Error;
  const define = Object.defineProperty;
  const freeze = Object.freeze;
  const protoOf = Object.getPrototypeOf;
  const ownKeys = Object.keys;
  const isArray = Array.isArray;
  const fromCharCode = String.fromCharCode;
  const charCodeAt = String.prototype.charCodeAt;
  const codePointAt = String.prototype.codePointAt;
  const apply = Reflect.apply;
  const U8 = Uint8Array;
  const AB = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const M = Map;
  const S = Set;
  const D = Date;
  const R = RegExp;
  const toStringOf = (v) => apply(Object.prototype.toString, v, []);
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const dateTime = Date.prototype.getTime;
  const sliceBuffer = ArrayBuffer.prototype.slice;

  const CODES = {
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
  };
  class DOMException extends Err {
    #name;
    constructor(message = "", options = "Error") {
      super(`${message}`);
      this.#name = typeof options === "object" && options !== null ? `${options.name ?? "Error"}` : `${options}`;
      if (typeof options === "object" && options !== null && "cause" in options) {
        define(this, "cause", { value: options.cause, writable: true, configurable: true });
      }
    }
    get name() { return this.#name; }
    get code() { return CODES[this.#name] ?? 0; }
  }
  define(DOMException.prototype, Symbol.toStringTag, { value: "DOMException", configurable: true });

  // --- base64 ----------------------------------------------------------------------------
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const VALUE = {};
  for (let i = 0; i < 64; i++) VALUE[ALPHABET[i]] = i;

  function btoa(data) {
    if (arguments.length === 0) throw new TypeErr('The "data" argument must be specified');
    const s = `${data}`;
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const a = apply(charCodeAt, s, [i]);
      const b = i + 1 < s.length ? apply(charCodeAt, s, [i + 1]) : 0;
      const c = i + 2 < s.length ? apply(charCodeAt, s, [i + 2]) : 0;
      if (a > 255 || b > 255 || c > 255) throw new DOMException("Invalid character", "InvalidCharacterError");
      out += ALPHABET[a >> 2] + ALPHABET[((a & 3) << 4) | (b >> 4)];
      out += i + 1 < s.length ? ALPHABET[((b & 15) << 2) | (c >> 6)] : "=";
      out += i + 2 < s.length ? ALPHABET[c & 63] : "=";
    }
    return out;
  }

  // Node's checks: ASCII white space is skipped; `=` only at the end, at most two, and none
  // when the other characters do not fill groups of four.
  function atob(data) {
    if (arguments.length === 0) throw new TypeErr('The "data" argument must be specified');
    const input = `${data}`;
    const invalid = () => new DOMException("Invalid character", "InvalidCharacterError");
    let s = "";
    let count = 0;
    let equals = 0;
    for (let i = 0; i < input.length; i++) {
      const ch = input[i];
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\f" || ch === "\r") continue;
      if (ch === "=") equals++;
      else if (VALUE[ch] === undefined || equals) throw invalid();
      if (equals > 2) throw invalid();
      count++;
      if (ch !== "=") s += ch;
    }
    let reminder = count % 4;
    if (!reminder) reminder = (count - equals) % 4;
    else if (equals) throw invalid();
    if (reminder === 1) {
      throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    }
    let out = "";
    let buffer = 0;
    let bits = 0;
    for (let i = 0; i < s.length; i++) {
      buffer = ((buffer << 6) | VALUE[s[i]]) & 0xffff;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += fromCharCode((buffer >> bits) & 255);
      }
    }
    return out;
  }

  // --- TextEncoder / TextDecoder ---------------------------------------------------------
  const utf8 = (s) => {
    const bytes = [];
    for (let i = 0; i < s.length; i++) {
      let c = apply(codePointAt, s, [i]);
      if (c > 0xffff) i++;
      else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) bytes.push(c);
      else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return bytes;
  };

  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") { return new U8(utf8(`${input}`)); }
    encodeInto(source, destination) {
      if (!(destination instanceof U8)) throw new TypeErr('The "dest" argument must be an instance of Uint8Array.');
      const s = `${source}`;
      let read = 0;
      let written = 0;
      for (let i = 0; i < s.length; i++) {
        const c = apply(codePointAt, s, [i]);
        const units = c > 0xffff ? 2 : 1;
        const bytes = utf8(apply(String.prototype.slice, s, [i, i + units]));
        if (written + bytes.length > destination.length) break;
        for (const b of bytes) destination[written++] = b;
        read += units;
        i += units - 1;
      }
      return { read, written };
    }
  }
  define(TextEncoder.prototype, Symbol.toStringTag, { value: "TextEncoder", configurable: true });

  // The labels of the encodings decoded here (the WHATWG Encoding standard's), by name.
  const LABELS = {
    "utf-8": ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"],
    "windows-1252": ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"],
    "utf-16le": ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"],
  };
  const encodingOf = (label) => {
    const name = `${label}`.trim().toLowerCase();
    for (const encoding of ownKeys(LABELS)) if (LABELS[encoding].includes(name)) return encoding;
    return undefined;
  };
  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    constructor(label = "utf-8", options = {}) {
      const encoding = encodingOf(label);
      if (encoding === undefined) {
        const e = new RangeErr(`The "${label}" encoding is not supported`);
        e.code = "ERR_ENCODING_NOT_SUPPORTED";
        throw e;
      }
      this.#encoding = encoding;
      this.#fatal = !!(options && options.fatal);
      this.#ignoreBOM = !!(options && options.ignoreBOM);
    }
    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input = new U8(0)) {
      const encoding = this.#encoding;
      const decodingError = () => {
        const e = new TypeErr(`The encoded data was not valid for encoding ${encoding}`);
        e.code = "ERR_ENCODING_INVALID_ENCODED_DATA";
        return e;
      };
      let bytes;
      if (input instanceof AB) bytes = new U8(input);
      else if (isView(input)) bytes = new U8(input.buffer, input.byteOffset, input.byteLength);
      else {
        const e = new TypeErr('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView.' + (input === null ? " Received null" : ` Received type ${typeof input} (${`${input}`})`));
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
      let out = "";
      let i = 0;
      if (this.#encoding === "windows-1252") {
        for (; i < bytes.length; i++) {
          const b = bytes[i];
          // Each byte its own code point, as Node decodes it (not windows-1252's 0x80..0x9f).
          out += fromCharCode(b);
        }
        return out;
      }
      if (this.#encoding === "utf-16le") {
        if (!this.#ignoreBOM && bytes[0] === 0xff && bytes[1] === 0xfe) i = 2;
        let units = [];
        for (; i + 1 < bytes.length; i += 2) units.push(bytes[i] | (bytes[i + 1] << 8));
        for (let k = 0; k < units.length; k++) {
          const u = units[k];
          const next = units[k + 1];
          if (u >= 0xd800 && u <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) { out += fromCharCode(u, next); k++; }
          else if (u >= 0xd800 && u <= 0xdfff) {
            if (this.#fatal) throw decodingError();
            out += "\ufffd";
          } else out += fromCharCode(u);
        }
        if (i < bytes.length) {
          if (this.#fatal) throw decodingError();
          out += "\ufffd";
        }
        return out;
      }
      if (!this.#ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
      const invalid = () => {
        if (this.#fatal) throw decodingError();
        out += "\ufffd";
      };
      while (i < bytes.length) {
        const b = bytes[i];
        if (b < 0x80) { out += fromCharCode(b); i++; continue; }
        let need = 0;
        let c = 0;
        let lower = 0x80;
        let upper = 0xbf;
        if (b >= 0xc2 && b <= 0xdf) { need = 1; c = b & 31; }
        else if (b >= 0xe0 && b <= 0xef) { need = 2; c = b & 15; if (b === 0xe0) lower = 0xa0; if (b === 0xed) upper = 0x9f; }
        else if (b >= 0xf0 && b <= 0xf4) { need = 3; c = b & 7; if (b === 0xf0) lower = 0x90; if (b === 0xf4) upper = 0x8f; }
        else { invalid(); i++; continue; }
        let j = 1;
        for (; j <= need; j++) {
          const n = bytes[i + j];
          if (n === undefined || n < lower || n > upper) break;
          lower = 0x80;
          upper = 0xbf;
          c = (c << 6) | (n & 63);
        }
        if (j <= need) { invalid(); i += j; continue; }
        out += String.fromCodePoint(c);
        i += need + 1;
      }
      return out;
    }
  }
  define(TextDecoder.prototype, Symbol.toStringTag, { value: "TextDecoder", configurable: true });

  // --- structuredClone -------------------------------------------------------------------
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeErr('The "value" argument must be specified');
    if (options !== undefined && options !== null && typeof options !== "object") {
      throw new TypeErr('The "options" argument must be of type object.');
    }
    const seen = new M();
    const uncloneable = (v) => {
      let shown;
      try {
        if (typeof v === "function") shown = `${v}`;
        else if (typeof v === "symbol") shown = apply(Symbol.prototype.toString, v, []);
        else {
          const proto = protoOf(v);
          const ctor = proto && proto.constructor;
          shown = `#<${(typeof ctor === "function" && ctor.name) || "Object"}>`;
        }
      } catch { shown = "value"; }
      return new DOMException(`${shown} could not be cloned.`, "DataCloneError");
    };
    const clone = (v) => {
      if (v === null || (typeof v !== "object" && typeof v !== "function")) {
        if (typeof v === "symbol") throw uncloneable(v);
        return v;
      }
      if (typeof v === "function") throw uncloneable(v);
      if (apply(mapHas, seen, [v])) return apply(mapGet, seen, [v]);
      const tag = toStringOf(v);
      let out;
      switch (tag) {
        case "[object Boolean]": out = Object(apply(Boolean.prototype.valueOf, v, [])); break;
        case "[object Number]": out = Object(apply(Number.prototype.valueOf, v, [])); break;
        case "[object String]": out = Object(apply(String.prototype.valueOf, v, [])); break;
        case "[object BigInt]": out = Object(apply(BigInt.prototype.valueOf, v, [])); break;
        case "[object Date]": out = new D(apply(dateTime, v, [])); break;
        case "[object RegExp]": out = new R(v.source, v.flags); break;
        case "[object ArrayBuffer]": out = apply(sliceBuffer, v, [0]); break;
        case "[object Map]": {
          out = new M();
          apply(mapSet, seen, [v, out]);
          for (const [k, x] of apply(mapEntries, v, [])) apply(mapSet, out, [clone(k), clone(x)]);
          return out;
        }
        case "[object Set]": {
          out = new S();
          apply(mapSet, seen, [v, out]);
          for (const x of apply(setValues, v, [])) out.add(clone(x));
          return out;
        }
        case "[object Error]": {
          const name = v.name;
          const Ctor = ERRORS[name] || Err;
          out = new Ctor(v.message === undefined ? undefined : `${v.message}`);
          apply(mapSet, seen, [v, out]);
          if (typeof v.stack === "string") define(out, "stack", { value: v.stack, writable: true, configurable: true });
          if ("cause" in v) define(out, "cause", { value: clone(v.cause), writable: true, configurable: true });
          return out;
        }
        default:
          if (isView(v)) {
            const buffer = clone(v.buffer);
            const Ctor = protoOf(v).constructor;
            out = Ctor === DataView ? new DataView(buffer, v.byteOffset, v.byteLength) : new Ctor(buffer, v.byteOffset, v.length);
            break;
          }
          if (isArray(v)) {
            out = new Array(v.length);
            apply(mapSet, seen, [v, out]);
            for (const k of ownKeys(v)) out[k] = clone(v[k]);
            return out;
          }
          if (tag !== "[object Object]" && tag !== "[object Arguments]") throw uncloneable(v);
          if (v instanceof WeakMap || v instanceof WeakSet || v instanceof Promise) throw uncloneable(v);
          out = {};
          apply(mapSet, seen, [v, out]);
          for (const k of ownKeys(v)) out[k] = clone(v[k]);
          return out;
      }
      apply(mapSet, seen, [v, out]);
      return out;
    };
    return clone(value);
  }

  // --- URLSearchParams -------------------------------------------------------------------
  const PLAIN = /[A-Za-z0-9*\-._]/;
  const hex = "0123456789ABCDEF";
  const formEncode = (text) => {
    let out = "";
    for (const b of utf8(`${text}`)) {
      const ch = fromCharCode(b);
      if (b === 0x20) out += "+";
      else if (b < 0x80 && PLAIN.test(ch)) out += ch;
      else out += "%" + hex[b >> 4] + hex[b & 15];
    }
    return out;
  };
  const decoder = new TextDecoder();
  const formDecode = (text) => {
    const bytes = utf8(text.replace(/\+/g, " "));
    const out = [];
    for (let i = 0; i < bytes.length; i++) {
      const h = bytes[i] === 0x25 && i + 2 < bytes.length ? fromCharCode(bytes[i + 1], bytes[i + 2]) : "";
      if (h && /^[0-9A-Fa-f]{2}$/.test(h)) { out.push(parseInt(h, 16)); i += 2; }
      else out.push(bytes[i]);
    }
    return decoder.decode(new U8(out));
  };
  const parseQuery = (query) => {
    const list = [];
    for (const part of query.split("&")) {
      if (part === "") continue;
      const at = part.indexOf("=");
      const name = at < 0 ? part : part.slice(0, at);
      const value = at < 0 ? "" : part.slice(at + 1);
      list.push([formDecode(name), formDecode(value)]);
    }
    return list;
  };
  const missing = (names) => {
    const e = new TypeErr(`The ${names} must be specified`);
    e.code = "ERR_MISSING_ARGS";
    return e;
  };
  class URLSearchParams {
    #list = [];
    /** Gives the URL these are the search of its new query (`null`: no URL). */
    #onChange = null;
    constructor(init = undefined) {
      if (init === undefined || init === null) return;
      if (typeof init === "object" || typeof init === "function") {
        if (typeof init[Symbol.iterator] === "function") {
          for (const pair of init) {
            const items = pair !== null && typeof pair === "object" && typeof pair[Symbol.iterator] === "function" ? [...pair] : null;
            if (items === null || items.length !== 2) {
              const e = new TypeErr("Each query pair must be an iterable [name, value] tuple");
              e.code = "ERR_INVALID_TUPLE";
              throw e;
            }
            this.#list.push([`${items[0]}`, `${items[1]}`]);
          }
        } else {
          for (const key of ownKeys(init)) this.#list.push([key, `${init[key]}`]);
        }
        return;
      }
      let query = `${init}`;
      if (query.startsWith("?")) query = query.slice(1);
      this.#list = parseQuery(query);
    }
    static _link(params, onChange, query) { params.#onChange = onChange; params.#list = parseQuery(query); }
    static _reset(params, query) { params.#list = parseQuery(query); }
    #update() { if (this.#onChange) this.#onChange(this.toString()); }
    get size() { return this.#list.length; }
    append(name, value) {
      if (arguments.length < 2) throw missing('"name" and "value" arguments');
      this.#list.push([`${name}`, `${value}`]);
      this.#update();
    }
    delete(name, value = undefined) {
      if (arguments.length < 1) throw missing('"name" argument');
      name = `${name}`;
      const only = value === undefined ? null : `${value}`;
      this.#list = this.#list.filter(([n, v]) => !(n === name && (only === null || v === only)));
      this.#update();
    }
    get(name) {
      if (arguments.length < 1) throw missing('"name" argument');
      const found = this.#list.find(([n]) => n === `${name}`);
      return found ? found[1] : null;
    }
    getAll(name) {
      if (arguments.length < 1) throw missing('"name" argument');
      return this.#list.filter(([n]) => n === `${name}`).map(([, v]) => v);
    }
    has(name, value = undefined) {
      if (arguments.length < 1) throw missing('"name" argument');
      const only = value === undefined ? null : `${value}`;
      return this.#list.some(([n, v]) => n === `${name}` && (only === null || v === only));
    }
    set(name, value) {
      if (arguments.length < 2) throw missing('"name" and "value" arguments');
      name = `${name}`;
      value = `${value}`;
      const at = this.#list.findIndex(([n]) => n === name);
      if (at < 0) this.#list.push([name, value]);
      else {
        this.#list[at] = [name, value];
        this.#list = this.#list.filter(([n], i) => i <= at || n !== name);
      }
      this.#update();
    }
    sort() {
      const indexed = this.#list.map((pair, i) => [pair, i]);
      indexed.sort(([[a], i], [[b], j]) => {
        for (let k = 0; k < a.length && k < b.length; k++) {
          const d = apply(charCodeAt, a, [k]) - apply(charCodeAt, b, [k]);
          if (d) return d;
        }
        return a.length - b.length || i - j;
      });
      this.#list = indexed.map(([pair]) => pair);
      this.#update();
    }
    forEach(callback, thisArg = undefined) {
      if (typeof callback !== "function") {
        const e = new TypeErr(`The "callback" argument must be of type function. Received ${callback === undefined ? "undefined" : `type ${typeof callback}`}`);
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
      for (let i = 0; i < this.#list.length; i++) {
        const [n, v] = this.#list[i];
        apply(callback, thisArg, [v, n, this]);
      }
    }
    *entries() { for (const [n, v] of this.#list) yield [n, v]; }
    *keys() { for (const [n] of this.#list) yield n; }
    *values() { for (const [, v] of this.#list) yield v; }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return this.#list.map(([n, v]) => `${formEncode(n)}=${formEncode(v)}`).join("&"); }
  }
  define(URLSearchParams.prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });
  const link = URLSearchParams._link;
  const reset = URLSearchParams._reset;
  delete URLSearchParams._link;
  delete URLSearchParams._reset;

  // --- URL -------------------------------------------------------------------------------
  // A URL's components, in the order of `src/url.rs`'s `COMPONENTS`.
  const parseUrl = urlNative.parse;
  const setUrl = urlNative.set;
  const invalidUrl = (input, base) => {
    const e = new TypeErr("Invalid URL");
    e.code = "ERR_INVALID_URL";
    e.input = input;
    if (base !== undefined) e.base = base;
    return e;
  };
  class URL {
    #parts;
    #params;
    constructor(input, base = undefined) {
      if (arguments.length === 0) {
        const e = new TypeErr('The "url" argument must be specified');
        e.code = "ERR_MISSING_ARGS";
        throw e;
      }
      input = `${input}`;
      if (base !== undefined) base = `${base}`;
      const parts = base === undefined ? parseUrl(input) : parseUrl(input, base);
      if (parts === null || parts === undefined) throw invalidUrl(input, base);
      this.#parts = parts;
      this.#params = new URLSearchParams();
      link(this.#params, (query) => this.#query(query), parts[9].slice(1));
    }
    static canParse(input, base = undefined) {
      const parts = base === undefined ? parseUrl(`${input}`) : parseUrl(`${input}`, `${base}`);
      return parts !== null && parts !== undefined;
    }
    #set(which, value) {
      const parts = setUrl(this.#parts[0], which, `${value}`);
      if (parts === null || parts === undefined) throw invalidUrl(`${value}`);
      this.#parts = parts;
      if (which === "href" || which === "search") reset(this.#params, parts[9].slice(1));
    }
    #query(query) {
      const parts = setUrl(this.#parts[0], "search", query);
      if (parts !== null && parts !== undefined) this.#parts = parts;
    }
    get href() { return this.#parts[0]; }
    set href(v) { this.#set("href", v); }
    get origin() { return this.#parts[1]; }
    get protocol() { return this.#parts[2]; }
    set protocol(v) { this.#set("protocol", v); }
    get username() { return this.#parts[3]; }
    set username(v) { this.#set("username", v); }
    get password() { return this.#parts[4]; }
    set password(v) { this.#set("password", v); }
    get host() { return this.#parts[5]; }
    set host(v) { this.#set("host", v); }
    get hostname() { return this.#parts[6]; }
    set hostname(v) { this.#set("hostname", v); }
    get port() { return this.#parts[7]; }
    set port(v) { this.#set("port", v); }
    get pathname() { return this.#parts[8]; }
    set pathname(v) { this.#set("pathname", v); }
    get search() { return this.#parts[9]; }
    set search(v) { this.#set("search", v); }
    get hash() { return this.#parts[10]; }
    set hash(v) { this.#set("hash", v); }
    get searchParams() { return this.#params; }
    toString() { return this.#parts[0]; }
    toJSON() { return this.#parts[0]; }
  }
  define(URL.prototype, Symbol.toStringTag, { value: "URL", configurable: true });

  // --- crypto.subtle's digests ---------------------------------------------------------------
  // `crypto.subtle.digest(algorithm, data)`: SHA-1 and the SHA-2 digests (computed natively),
  // each error a rejection in Node's words. The other methods of WebCrypto are not here.
  const DIGESTS = { __proto__: null, "SHA-1": "SHA-1", "SHA-256": "SHA-256", "SHA-384": "SHA-384", "SHA-512": "SHA-512" };
  const digestNative = urlNative.digest;
  const toUpper = String.prototype.toUpperCase;
  const coded = (e, code) => {
    define(e, "code", { value: code, writable: true, configurable: true, enumerable: true });
    return e;
  };
  class SubtleCrypto {
    constructor(key) {
      if (key !== SUBTLE) throw new TypeErr("Illegal constructor");
    }
    async digest(algorithm, data) {
      if (this !== subtle) throw coded(new TypeErr('Value of "this" must be of type SubtleCrypto'), "ERR_INVALID_THIS");
      if (arguments.length < 2) {
        throw coded(new TypeErr(`Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only ${arguments.length} present.`), "ERR_MISSING_ARGS");
      }
      let bytes;
      if (isView(data)) bytes = new U8(data.buffer, data.byteOffset, data.byteLength);
      else if (data instanceof AB) bytes = new U8(data);
      else {
        throw coded(new TypeErr("Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView."), "ERR_INVALID_ARG_TYPE");
      }
      let name = algorithm;
      if (typeof algorithm === "object" && algorithm !== null) {
        name = algorithm.name;
        if (name === undefined) {
          throw coded(new TypeErr("Failed to normalize algorithm: passed algorithm can not be converted to 'Algorithm' because 'name' is required in 'Algorithm'."), "ERR_MISSING_OPTION");
        }
      }
      const known = DIGESTS[apply(toUpper, `${name}`, [])];
      if (known === undefined) throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
      // The data as it is now: what the program changes in it later is not digested.
      return digestNative(known, new U8(bytes));
    }
  }
  const SUBTLE = {};
  define(SubtleCrypto.prototype, Symbol.toStringTag, { value: "SubtleCrypto", configurable: true });
  define(SubtleCrypto.prototype, "digest", { enumerable: true });
  const subtle = new SubtleCrypto(SUBTLE);

  // --- Event, EventTarget, AbortController, AbortSignal --------------------------------------
  // As Node 20's (`lib/internal/event_target.js`, `abort_controller.js`): listeners called in
  // the order added (a listener once per type and capture flag; `once`, `signal`;
  // `handleEvent` objects), `preventDefault` on cancelable events, the abort event and its
  // reason (`AbortError` by default, `TimeoutError` for `AbortSignal.timeout`), Node's errors.
  const codeError = (Ctor, code, message) => {
    const e = new Ctor(message);
    define(e, "code", { value: code, writable: true, configurable: true, enumerable: true });
    return e;
  };
  const describe = (v) => {
    if (v === null || v === undefined) return ` Received ${v}`;
    if (typeof v === "function") return ` Received function ${v.name}`;
    if (typeof v === "object") {
      const ctor = v.constructor;
      return ctor && typeof ctor.name === "string" && ctor.name !== "" ? ` Received an instance of ${ctor.name}` : " Received an instance of Object";
    }
    const shown = typeof v === "string" ? `'${v.length > 28 ? `${apply(String.prototype.slice, v, [0, 25])}...` : v}'` : typeof v === "bigint" ? `${v}n` : typeof v === "symbol" ? String(v) : `${v}`;
    return ` Received type ${typeof v} (${shown})`;
  };
  const eventState = new WeakMap();
  const stateOf = (e, method) => {
    const state = typeof e === "object" && e !== null ? apply(WeakMap.prototype.get, eventState, [e]) : undefined;
    if (state === undefined) throw codeError(TypeErr, "ERR_INVALID_THIS", 'Value of "this" must be of type Event');
    return state;
  };
  const clock = () => globals.performance.now();
  class Event {
    constructor(type, options = undefined) {
      if (arguments.length === 0) throw codeError(TypeErr, "ERR_MISSING_ARGS", 'The "type" argument must be specified');
      if (options !== undefined && options !== null && typeof options !== "object" && typeof options !== "function") {
        throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "options" argument must be of type object.${describe(options)}`);
      }
      const o = options ?? {};
      apply(WeakMap.prototype.set, eventState, [this, {
        type: `${type}`, bubbles: !!o.bubbles, cancelable: !!o.cancelable, composed: !!o.composed,
        defaultPrevented: false, timeStamp: clock(), target: null, current: null, phase: 0,
        stop: false, stopImmediate: false, dispatched: false, trusted: false,
      }]);
    }
    get type() { return stateOf(this).type; }
    get bubbles() { return stateOf(this).bubbles; }
    get cancelable() { return stateOf(this).cancelable; }
    get composed() { return stateOf(this).composed; }
    get defaultPrevented() { const s = stateOf(this); return s.cancelable && s.defaultPrevented; }
    get timeStamp() { return stateOf(this).timeStamp; }
    get isTrusted() { return stateOf(this).trusted; }
    get target() { return stateOf(this).target; }
    get currentTarget() { return stateOf(this).current; }
    get srcElement() { return stateOf(this).target; }
    get eventPhase() { return stateOf(this).phase; }
    get returnValue() { const s = stateOf(this); return !(s.cancelable && s.defaultPrevented); }
    get cancelBubble() { return stateOf(this).stop; }
    set cancelBubble(value) { if (value) stateOf(this).stop = true; }
    composedPath() { const s = stateOf(this); return s.phase === 0 || s.current === null ? [] : [s.current]; }
    preventDefault() { stateOf(this).defaultPrevented = true; }
    stopPropagation() { stateOf(this).stop = true; }
    stopImmediatePropagation() { const s = stateOf(this); s.stop = true; s.stopImmediate = true; }
    initEvent(type, bubbles = false, cancelable = false) {
      const s = stateOf(this);
      if (arguments.length === 0) throw codeError(TypeErr, "ERR_MISSING_ARGS", 'The "type" argument must be specified');
      if (s.dispatched) return;
      s.type = `${type}`;
      s.bubbles = !!bubbles;
      s.cancelable = !!cancelable;
    }
  }
  for (const [name, value] of [["NONE", 0], ["CAPTURING_PHASE", 1], ["AT_TARGET", 2], ["BUBBLING_PHASE", 3]]) {
    define(Event, name, { value, enumerable: true });
  }

  const listenersOf = new WeakMap();
  const listeners = (target) => {
    const table = typeof target === "object" && target !== null ? apply(WeakMap.prototype.get, listenersOf, [target]) : undefined;
    if (table === undefined) throw codeError(TypeErr, "ERR_INVALID_THIS", 'Value of "this" must be of type EventTarget');
    return table;
  };
  const captureOf = (options) => (typeof options === "boolean" ? options : typeof options === "object" && options !== null ? !!options.capture : false);
  const removeListener = (table, type, listener, capture) => {
    const list = apply(mapGet, table, [type]);
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) {
      if (list[i].listener === listener && list[i].capture === capture) {
        list[i].removed = true;
        apply(Array.prototype.splice, list, [i, 1]);
        return;
      }
    }
  };
  const dispatch = (target, event) => {
    const s = stateOf(event);
    const list = apply(mapGet, listeners(target), [s.type]);
    s.dispatched = true;
    s.target = target;
    s.current = target;
    s.phase = 2;
    if (list !== undefined) {
      const snapshot = apply(Array.prototype.slice, list, []);
      for (let i = 0; i < snapshot.length && !s.stopImmediate; i++) {
        const entry = snapshot[i];
        if (entry.removed) continue;
        if (entry.once) removeListener(listeners(target), s.type, entry.listener, entry.capture);
        const listener = entry.listener;
        try {
          if (typeof listener === "function") apply(listener, target, [event]);
          else if (typeof listener.handleEvent === "function") apply(listener.handleEvent, listener, [event]);
        } catch (error) {
          // Node reports a listener's error as an uncaught exception, after the dispatch.
          globals.queueMicrotask(() => { throw error; });
        }
      }
    }
    s.current = null;
    s.phase = 0;
    return !(s.cancelable && s.defaultPrevented);
  };
  class EventTarget {
    constructor() {
      apply(WeakMap.prototype.set, listenersOf, [this, new M()]);
    }
    addEventListener(type, listener, options = undefined) {
      const table = listeners(this);
      if (arguments.length < 2) throw codeError(TypeErr, "ERR_MISSING_ARGS", 'The "type" and "listener" arguments must be specified');
      if (listener === null || listener === undefined) return;
      if (typeof listener !== "function" && typeof listener !== "object") {
        throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "listener" argument must be an instance of EventListener.${describe(listener)}`);
      }
      const once = typeof options === "object" && options !== null ? !!options.once : false;
      const signal = typeof options === "object" && options !== null ? options.signal : undefined;
      const capture = captureOf(options);
      type = `${type}`;
      if (signal !== undefined) {
        if (!(signal instanceof AbortSignal)) {
          throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "options.signal" property must be an instance of AbortSignal.${describe(signal)}`);
        }
        if (signal.aborted) return;
      }
      let list = apply(mapGet, table, [type]);
      if (list === undefined) {
        list = [];
        apply(mapSet, table, [type, list]);
      }
      for (let i = 0; i < list.length; i++) if (list[i].listener === listener && list[i].capture === capture) return;
      list[list.length] = { listener, capture, once, removed: false };
      if (signal !== undefined) {
        apply(EventTarget.prototype.addEventListener, signal, ["abort", () => removeListener(table, type, listener, capture), { once: true }]);
      }
    }
    removeEventListener(type, listener, options = undefined) {
      const table = listeners(this);
      if (arguments.length < 2) throw codeError(TypeErr, "ERR_MISSING_ARGS", 'The "type" and "listener" arguments must be specified');
      removeListener(table, `${type}`, listener, captureOf(options));
    }
    dispatchEvent(event) {
      listeners(this);
      if (!(event instanceof Event)) {
        throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "event" argument must be an instance of Event.${describe(event)}`);
      }
      return dispatch(this, event);
    }
  }

  const signalState = new WeakMap();
  const signalOf = (signal) => {
    const state = typeof signal === "object" && signal !== null ? apply(WeakMap.prototype.get, signalState, [signal]) : undefined;
    if (state === undefined) throw codeError(TypeErr, "ERR_INVALID_THIS", 'Value of "this" must be of type AbortSignal');
    return state;
  };
  const SIGNAL = {};
  const abortSignal = (signal, reason) => {
    const state = signalOf(signal);
    if (state.aborted) return;
    state.aborted = true;
    state.reason = reason;
    const event = new Event("abort");
    apply(WeakMap.prototype.get, eventState, [event]).trusted = true;
    dispatch(signal, event);
  };
  const aborted = () => new DOMException("This operation was aborted", "AbortError");
  class AbortSignal extends EventTarget {
    constructor(key) {
      if (key !== SIGNAL) throw codeError(TypeErr, "ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor");
      super();
      apply(WeakMap.prototype.set, signalState, [this, { aborted: false, reason: undefined, onabort: null }]);
    }
    get aborted() { return signalOf(this).aborted; }
    get reason() { return signalOf(this).reason; }
    get onabort() { return signalOf(this).onabort; }
    set onabort(handler) {
      const state = signalOf(this);
      if (state.handler === undefined) {
        state.handler = (event) => {
          const f = state.onabort;
          if (typeof f === "function") apply(f, this, [event]);
        };
        apply(EventTarget.prototype.addEventListener, this, ["abort", state.handler]);
      }
      state.onabort = typeof handler === "function" || (typeof handler === "object" && handler !== null) ? handler : null;
    }
    throwIfAborted() {
      const state = signalOf(this);
      if (state.aborted) throw state.reason;
    }
    static abort(reason = aborted()) {
      const signal = new AbortSignal(SIGNAL);
      const state = signalOf(signal);
      state.aborted = true;
      state.reason = reason;
      return signal;
    }
    static timeout(delay) {
      const ms = Number(delay);
      if (typeof delay !== "number") throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "delay" argument must be of type number.${describe(delay)}`);
      if (!(ms >= 0 && ms <= 4294967295) || ms !== floor(ms)) {
        throw codeError(RangeErr, "ERR_OUT_OF_RANGE", `The value of "delay" is out of range. It must be >= 0 && <= 4294967295. Received ${ms}`);
      }
      const signal = new AbortSignal(SIGNAL);
      globals.setTimeout(() => abortSignal(signal, new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms);
      return signal;
    }
    static any(signals) {
      const signal = new AbortSignal(SIGNAL);
      const list = [...signals];
      for (let i = 0; i < list.length; i++) {
        if (!(list[i] instanceof AbortSignal)) {
          throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "signals[${i}]" argument must be an instance of AbortSignal.${describe(list[i])}`);
        }
      }
      for (let i = 0; i < list.length; i++) {
        if (list[i].aborted) {
          const state = signalOf(signal);
          state.aborted = true;
          state.reason = list[i].reason;
          return signal;
        }
      }
      for (let i = 0; i < list.length; i++) {
        const source = list[i];
        apply(EventTarget.prototype.addEventListener, source, ["abort", () => abortSignal(signal, source.reason), { once: true }]);
      }
      return signal;
    }
  }
  const controllerSignal = new WeakMap();
  const controllerOf = (controller) => {
    const signal = typeof controller === "object" && controller !== null ? apply(WeakMap.prototype.get, controllerSignal, [controller]) : undefined;
    if (signal === undefined) throw codeError(TypeErr, "ERR_INVALID_THIS", 'Value of "this" must be of type AbortController');
    return signal;
  };
  class AbortController {
    constructor() {
      apply(WeakMap.prototype.set, controllerSignal, [this, new AbortSignal(SIGNAL)]);
    }
    get signal() { return controllerOf(this); }
    abort(reason = aborted()) { abortSignal(controllerOf(this), reason); }
  }
  // Node's order of their prototypes' members, and which are enumerable.
  const arrange = (proto, order, enumerable) => {
    for (let i = 0; i < order.length; i++) {
      const d = Object.getOwnPropertyDescriptor(proto, order[i]);
      delete proto[order[i]];
      d.enumerable = apply(Array.prototype.includes, enumerable, [order[i]]);
      define(proto, order[i], d);
    }
  };
  const EVENT_MEMBERS = ["initEvent", "stopImmediatePropagation", "preventDefault", "target", "currentTarget", "srcElement", "type", "cancelable",
    "defaultPrevented", "timeStamp", "composedPath", "returnValue", "bubbles", "composed", "eventPhase", "cancelBubble", "stopPropagation", "isTrusted"];
  arrange(Event.prototype, EVENT_MEMBERS, EVENT_MEMBERS);
  arrange(EventTarget.prototype, ["addEventListener", "removeEventListener", "dispatchEvent"], ["addEventListener", "removeEventListener", "dispatchEvent"]);
  arrange(AbortSignal.prototype, ["aborted", "reason", "throwIfAborted", "onabort"], ["aborted", "onabort"]);
  arrange(AbortController.prototype, ["signal", "abort"], ["signal", "abort"]);
  define(Event.prototype, Symbol.toStringTag, { value: "Event", configurable: true });
  define(EventTarget.prototype, Symbol.toStringTag, { value: "EventTarget", configurable: true });
  define(AbortSignal.prototype, Symbol.toStringTag, { value: "AbortSignal", configurable: true });
  define(AbortController.prototype, Symbol.toStringTag, { value: "AbortController", configurable: true });

  // --- Blob ---------------------------------------------------------------------------------
  // Bytes and a type, as Node 20's `Blob` (`new Blob([text]).size` is how programs count a
  // text's UTF-8 bytes): the parts copied when it is made (strings as UTF-8, buffers and views
  // as their bytes, blobs as theirs, anything else as its string), read back as text, an
  // `ArrayBuffer` or bytes, and sliced. No `stream()`: Node's needs web streams, which pml
  // has not.
  const TextDecoderCtor = TextDecoder;
  const setBytes = U8.prototype.set;
  const lowerCase = String.prototype.toLowerCase;
  const printable = /^[\x20-\x7e]*$/;
  const regexTest = RegExp.prototype.test;
  const [trunc, max, min] = [Math.trunc, Math.max, Math.min];
  class Blob {
    #bytes;
    #type;
    constructor(sources = [], options = undefined) {
      if (sources === null || (typeof sources !== "object" && typeof sources !== "function") || typeof sources[Symbol.iterator] !== "function") {
        throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "sources" argument must be a sequence.${describe(sources)}`);
      }
      if (options !== undefined && options !== null && typeof options !== "object" && typeof options !== "function") {
        throw codeError(TypeErr, "ERR_INVALID_ARG_TYPE", `The "options" argument must be a dictionary.${describe(options)}`);
      }
      const parts = [];
      let size = 0;
      for (const part of sources) {
        let bytes;
        if (typeof part === "object" && part !== null && #bytes in part) bytes = part.#bytes;
        else if (part instanceof AB) bytes = new U8(apply(sliceBuffer, part, [0]));
        else if (isView(part)) bytes = new U8(apply(sliceBuffer, part.buffer, [part.byteOffset, part.byteOffset + part.byteLength]));
        else bytes = new U8(utf8(`${part}`));
        parts[parts.length] = bytes;
        size += bytes.length;
      }
      const all = new U8(size);
      let at = 0;
      for (let i = 0; i < parts.length; i++) {
        apply(setBytes, all, [parts[i], at]);
        at += parts[i].length;
      }
      const type = options === undefined || options === null || options.type === undefined ? "" : `${options.type}`;
      this.#bytes = all;
      this.#type = apply(regexTest, printable, [type]) ? apply(lowerCase, type, []) : "";
    }
    get size() {
      return this.#bytes.length;
    }
    get type() {
      return this.#type;
    }
    slice(start = 0, end = undefined, contentType = undefined) {
      const size = this.#bytes.length;
      const at = (n, fallback) => {
        if (n === undefined) return fallback;
        const i = trunc(+n) || 0;
        return i < 0 ? max(size + i, 0) : min(i, size);
      };
      const from = at(start, 0);
      const to = max(at(end, size), from);
      const part = new Blob([], contentType === undefined ? undefined : { type: contentType });
      part.#bytes = new U8(apply(sliceBuffer, this.#bytes.buffer, [from, to]));
      return part;
    }
    async text() {
      return new TextDecoderCtor().decode(this.#bytes);
    }
    async arrayBuffer() {
      return apply(sliceBuffer, this.#bytes.buffer, [0]);
    }
    async bytes() {
      return new U8(apply(sliceBuffer, this.#bytes.buffer, [0]));
    }
  }
  define(Blob.prototype, Symbol.toStringTag, { value: "Blob", configurable: true });

  // --- crypto's random values --------------------------------------------------------------
  // Drawn from the run's `Math.random`, read when called: a resumed run's journal answers them
  // as it answers the program's own draws.
  const mathObject = Math;
  const floor = Math.floor;
  const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
  const crypto = {
    getRandomValues(data) {
      if (arguments.length === 0) {
        const e = new TypeErr("Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.");
        e.code = "ERR_MISSING_ARGS";
        throw e;
      }
      if (!isView(data) || !INTEGER_ARRAYS.some((A) => data instanceof A)) {
        throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
      }
      if (data.byteLength > 65536) throw new DOMException("The requested length exceeds 65,536 bytes", "QuotaExceededError");
      const bytes = new U8(data.buffer, data.byteOffset, data.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = floor(mathObject.random() * 256);
      return data;
    },
    randomUUID() {
      const b = new U8(16);
      for (let i = 0; i < 16; i++) b[i] = floor(mathObject.random() * 256);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      let h = "";
      for (let i = 0; i < 16; i++) {
        h += hex[b[i] >> 4].toLowerCase() + hex[b[i] & 15].toLowerCase();
        if (i === 3 || i === 5 || i === 7 || i === 9) h += "-";
      }
      return h;
    },
  };

  define(crypto, Symbol.toStringTag, { value: "Crypto", configurable: true });
  // Node's is a getter of `Crypto.prototype`: not an own key (`JSON.stringify(crypto)` is `{}`).
  define(crypto, "subtle", { value: subtle, configurable: true });

  // `performance.now()` and `performance.timeOrigin` (High Resolution Time) over the program's
  // own clock (`Date.now()` at the time of the call: a resumed run reads it again from its
  // journal): milliseconds since the program first asked for `performance`. Made on first use.
  const makePerformance = () => {
    const clock = () => globals.Date.now();
    const origin = clock();
    class Performance {
      now() {
        return clock() - origin;
      }
      get timeOrigin() {
        return origin;
      }
      toJSON() {
        return { timeOrigin: origin };
      }
    }
    define(Performance.prototype, Symbol.toStringTag, { value: "Performance", configurable: true });
    return new Performance();
  };
  for (const [name, value] of [
    ["crypto", crypto],
    ["SubtleCrypto", SubtleCrypto],
    ["URL", URL],
    ["URLSearchParams", URLSearchParams],
    ["DOMException", DOMException],
    ["atob", atob],
    ["btoa", btoa],
    ["TextEncoder", TextEncoder],
    ["TextDecoder", TextDecoder],
    ["structuredClone", structuredClone],
    ["Event", Event],
    ["EventTarget", EventTarget],
    ["AbortController", AbortController],
    ["AbortSignal", AbortSignal],
    ["Blob", Blob],
  ]) {
    define(globals, name, { value, writable: true, configurable: true, enumerable: /^[a-z]/.test(name) });
  }
  define(globals, "performance", {
    get() {
      const value = makePerformance();
      define(globals, "performance", { value, writable: true, enumerable: true, configurable: true });
      return value;
    },
    set(value) {
      define(globals, "performance", { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
})
