// QuickJS made to answer as Node 20 does, in every context (programs' and code tasks'), run
// once before anything else:
// - the built-ins of standards later than Node 20's that QuickJS has are deleted: a program
//   using one fails in Node (not a function, not defined), so it must fail here too, and a
//   code task that speculation computes ahead must fail as the program would;
// - the errors the engine throws say what V8 says where QuickJS words it otherwise
//   (`Cannot read properties of undefined (reading 'x')`...): a program that catches one and
//   returns or logs its message gets Node's text; so do `JSON.parse`'s syntax errors and the
//   array, `Set` and `Map` methods given a callback that is not a function;
// - `Array.prototype.sort` and `toSorted` with a comparison function sort as V8 does (its
//   TimSort): with a function that is not a consistent order (`(a, b) => a > b`, or one that
//   never returns 0) the result depends on which pairs are compared in which order;
// - built-in functions' text is V8's (`function max() { [native code] }`);
// - `Math.hypot` computes as V8's (the rest of `Math` and `**`: `math.rs`);
// - `global` is the global object, as in Node.
(function (globals) {
  const protoOf = Object.getPrototypeOf;
  const iteratorPrototype = protoOf(protoOf([][Symbol.iterator]()));
  // A code task's context has no typed arrays and no weak references.
  const AB = globals.ArrayBuffer;
  const U8 = globals.Uint8Array;
  const WM = globals.WeakMap;
  const absent = [
    [globals, ["Iterator", "Float16Array", "DisposableStack", "AsyncDisposableStack", "SuppressedError", "InternalError"]],
    [Object, ["groupBy"]],
    [Map, ["groupBy"]],
    [Array, ["fromAsync"]],
    [Promise, ["withResolvers", "try"]],
    [Math, ["sumPrecise", "f16round"]],
    [JSON, ["rawJSON", "isRawJSON"]],
    [RegExp, ["escape"]],
    [Error, ["isError"]],
    [Map.prototype, ["getOrInsert", "getOrInsertComputed"]],
    [WM?.prototype, ["getOrInsert", "getOrInsertComputed"]],
    [Set.prototype, ["union", "intersection", "difference", "symmetricDifference", "isSubsetOf", "isSupersetOf", "isDisjointFrom"]],
    [AB?.prototype, ["detached", "immutable", "sliceToImmutable", "transfer", "transferToFixedLength", "transferToImmutable"]],
    [U8?.prototype, ["setFromBase64", "setFromHex", "toBase64", "toHex"]],
    [U8, ["fromBase64", "fromHex"]],
    [iteratorPrototype, ["chunks", "constructor", "drop", "every", "filter", "find", "flatMap", "forEach", "includes", "join", "map", "reduce", "some", "take", "toArray", "windows", Symbol.dispose, Symbol.toStringTag]],
  ];
  for (const [owner, keys] of absent) {
    if (owner === undefined) continue;
    for (const key of keys) if (key !== undefined) delete owner[key];
  }

  // --- engine errors worded as V8's ------------------------------------------------------
  // QuickJS calls `Error.prepareStackTrace(error, callSites)` as it makes every error, its
  // own included, with the message already set: the hook rewords the message, then writes the
  // frames exactly as QuickJS writes them without a hook. Like `JSON.parse` below, it uses
  // only what it took before any program ran (a program that replaces a built-in changes
  // nothing here). It is taken off `Error` afterwards (Node has no `Error.prepareStackTrace`
  // until a program sets one); the engine keeps it.
  const ErrorCtor = globals.Error;
  const describe = Object.getOwnPropertyDescriptor;
  const define = Object.defineProperty;
  const exec = RegExp.prototype.exec;
  const startsWith = String.prototype.startsWith;
  const apply = Reflect.apply;
  const nativeErrors = [globals.TypeError, globals.RangeError, globals.ReferenceError, globals.SyntaxError, globals.URIError];
  const prototypes = [];
  for (const C of nativeErrors) prototypes.push(C.prototype);
  const URIErrorProto = globals.URIError.prototype;
  const digitsMessages = {
    toFixed: "toFixed() digits argument must be between 0 and 100",
    toExponential: "toExponential() argument must be between 0 and 100",
    toPrecision: "toPrecision() argument must be between 1 and 100",
  };
  // Messages QuickJS words otherwise whatever threw them: V8's says the same thing with no
  // value or source text QuickJS would not have given (those are left as QuickJS has them).
  const reworded = [
    [/^cannot read property 'Symbol\.(\w+)' of (undefined|null)$/, (m) => `Cannot read properties of ${m[2]} (reading 'Symbol(Symbol.${m[1]})')`],
    [/^cannot read property '(.*)' of (undefined|null)$/s, (m) => `Cannot read properties of ${m[2]} (reading '${m[1]}')`],
    [/^cannot set property '(.*)' of (undefined|null)$/s, (m) => `Cannot set properties of ${m[2]} (setting '${m[1]}')`],
    [/^cannot convert to object$/, () => "Cannot convert undefined or null to object"],
    [/^invalid array length$/, () => "Invalid array length"],
    [/^invalid string length$/, () => "Invalid string length"],
    [/^Date value is NaN$/, () => "Invalid time value"],
    [/^(.*) is not initialized$/s, (m) => `Cannot access '${m[1]}' before initialization`],
    [/^cannot convert symbol to (string|number)$/, (m) => `Cannot convert a Symbol value to a ${m[1]}`],
    [/^bad normalization form$/, () => "The normalization form should be one of NFC, NFD, NFKC, NFKD."],
    [/^invalid value used as WeakMap key$/, () => "Invalid value used as weak map key"],
    [/^invalid value used as WeakSet key$/, () => "Invalid value used in weak set"],
    [/^BigInt division by zero$/, () => "Division by zero"],
    [/^BigInt negative exponent$/, () => "undefined must be positive"],
    [/^BigInt operands are forbidden for >>>$/, () => "BigInts have no unsigned right shift, use >> instead"],
    [/^bigint argument with unary \+$/, () => "Cannot convert a BigInt value to a number"],
    // QuickJS says so of any right operand that is not a function; V8 says `is not callable`
    // of an object that is not one (the operand is not known here): the likelier case.
    [/^invalid 'instanceof' right operand$/, () => "Right-hand side of 'instanceof' is not an object"],
    // In the program's own code (a built-in's is worded by `byBuiltIn`): an operator mixing.
    [/^cannot convert BigInt to number$/, () => "Cannot mix BigInt and other types, use explicit conversions"],
  ];
  // Messages V8 words after the built-in that threw (the first frame, a native one).
  const byBuiltIn = {
    "empty array": (fn) => (fn === "reduce" || fn === "reduceRight") ? "Reduce of empty array with no initial value" : undefined,
    "regexp must have the 'g' flag": (fn) => (fn === "replaceAll" || fn === "matchAll") ? `String.prototype.${fn} called with a non-global RegExp argument` : undefined,
    "null or undefined are forbidden": (fn) => apply(exec, /^[a-zA-Z]+$/, [fn]) !== null ? `String.prototype.${fn} called on null or undefined` : undefined,
    "cannot convert BigInt to number": () => "Cannot convert a BigInt value to a number",
    // V8's other Date methods name the receiver (`#<Object>`, `[object Array]`...).
    "not a Date object": (fn) => (apply(startsWith, fn, ["get"]) || fn === "valueOf") ? "this is not a Date object." : undefined,
  };
  // Messages V8 words after the program's text at the place of the error (`o.list.map is
  // not a function`, `data.files is not iterable`): the native `culpritOf(kind, file, line,
  // column)` a program's run sets reads it there (`culprit.rs` of pml-structure); kinds: 0 not
  // a function, 1 not a constructor, 2 not iterable (undefined), 7 not iterable (null), 3 not
  // iterable, 4 nothing to convert to an object (a parameter's object pattern), 5 a write to
  // what is read-only (a `const`: `Assignment to constant variable.`).
  let culpritOf;
  const iteratorOfNothing = /^cannot read property 'Symbol\.iterator' of (undefined|null)$/;
  const readOnly = /^'.*' is read-only$/s;
  const culprit = (message, first) => {
    let kind = -1;
    let nothing = null;
    if (message === "not a function") kind = 0;
    else if (message === "not a constructor") kind = 1;
    else if (message === "value is not iterable") kind = 3;
    else if (message === "cannot convert to object" || message === "Cannot convert undefined or null to object") kind = 4;
    else if (apply(exec, readOnly, [message]) !== null) kind = 5;
    else {
      nothing = apply(exec, iteratorOfNothing, [message]);
      if (nothing !== null) kind = nothing[1] === "null" ? 7 : 2;
    }
    if (kind < 0) return undefined;
    if (culpritOf !== undefined && first !== undefined && !first.isNative()) {
      const text = culpritOf(kind, first.getFileName(), first.getLineNumber(), first.getColumnNumber());
      if (typeof text === "string") return text;
    }
    // Destructuring, `Promise.all`, `Array.from`...: V8 names the value.
    // (V8 says the value's type before `null`, as where it says a value it cannot name.)
    if (nothing !== null) return `${nothing[1] === "null" ? "object null" : nothing[1]} is not iterable (cannot read property Symbol(Symbol.iterator))`;
    return undefined;
  };
  const reword = (error, sites) => {
    const proto = protoOf(error);
    let known = false;
    for (let i = 0; i < prototypes.length; i++) if (prototypes[i] === proto) known = true;
    if (!known) return;
    const own = describe(error, "message");
    if (own === undefined || typeof own.value !== "string") return;
    const message = own.value;
    // Worded as V8 words it, and made at every frame a runaway recursion unwinds through (a
    // handler near the limit overflows again): no pattern to try.
    if (message === "Maximum call stack size exceeded") return;
    let replaced;
    const first = sites.length > 0 ? sites[0] : undefined;
    const fn = first !== undefined && first.isNative() ? first.getFunctionName() : undefined;
    if (proto === URIErrorProto) {
      // QuickJS's URI functions say what is wrong; V8's say only this.
      if (fn !== undefined) replaced = "URI malformed";
    } else if (message === "invalid number of digits" && typeof fn === "string") {
      if (describe(digitsMessages, fn) !== undefined) replaced = digitsMessages[fn];
    } else if (message === "class constructors must be invoked with 'new'" && first !== undefined) {
      // The first frame is the class's constructor.
      const name = first.getFunctionName();
      replaced = `Class constructor ${typeof name === "string" ? name : ""} cannot be invoked without 'new'`;
    } else if (typeof fn === "string" && describe(byBuiltIn, message) !== undefined) {
      replaced = byBuiltIn[message](fn);
    } else {
      replaced = culprit(message, first);
    }
    for (let i = 0; replaced === undefined && i < reworded.length; i++) {
      const m = apply(exec, reworded[i][0], [message]);
      if (m !== null) replaced = reworded[i][1](m);
    }
    if (replaced !== undefined) define(error, "message", { value: replaced, writable: true, configurable: true, enumerable: false });
  };
  const sliceFrames = String.prototype.slice;
  ErrorCtor.prepareStackTrace = (error, sites) => {
    if (error !== null && typeof error === "object") reword(error, sites);
    let out = "";
    for (let i = 0; i < sites.length; i++) {
      const site = sites[i];
      const line = site.getLineNumber();
      const at = line === null ? "" : `:${line}:${site.getColumnNumber()}`;
      if (site.isNative()) {
        out += `    at ${site.getFunctionName() || "<anonymous>"} (native)\n`;
      } else if (site.getFunction() === null) {
        // Where a parse failed (QuickJS's extra frame of a syntax error).
        out += `    at ${site.getFileName()}${at}\n`;
      } else {
        const file = site.getFileName();
        out += `    at ${site.getFunctionName() || "<anonymous>"} (${file === null ? "<null>" : file}${at})\n`;
      }
    }
    // V8's ends with its last frame, not with a newline.
    return out === "" ? out : apply(sliceFrames, out, [0, -1]);
  };
  delete ErrorCtor.prepareStackTrace;

  // --- built-in functions' text as V8's ----------------------------------------------------
  // `String(Math.max)` is `function max() { [native code] }` on one line in V8, on three in
  // QuickJS; a bound function's text has no name in V8 (`function bound f()` in QuickJS).
  const functionText = Function.prototype.toString;
  const builtInText = /^function (.*)\(\) \{\n    \[native code\]\n\}$/s;
  const toString = {
    toString() {
      const text = apply(functionText, this, []);
      const m = apply(exec, builtInText, [text]);
      if (m === null) return text;
      return apply(startsWith, m[1], ["bound "]) ? "function () { [native code] }" : `function ${m[1]}() { [native code] }`;
    },
  }.toString;
  define(Function.prototype, "toString", { value: toString, writable: true, enumerable: false, configurable: true });

  // --- JSON.parse's syntax errors as V8's ------------------------------------------------
  // QuickJS's parser accepts and refuses what V8's does, but words its errors otherwise and
  // without the text (`Unexpected token 'E', "Error: fil"... is not valid JSON`): a failed
  // parse is read again by `jsonError`, which follows V8's parser to its first error (checked
  // against Node 20 on generated texts). An error of the reviver is left as it is.
  const unit = (text, i) => apply(charCodeAt, text, [i]);
  const cut = (text, from, to) => apply(sliceString, text, to === undefined ? [from] : [from, to]);
  const charCodeAt = String.prototype.charCodeAt;
  const sliceString = String.prototype.slice;
  const SyntaxErrorProto = globals.SyntaxError.prototype;
  const nativeParse = JSON.parse;
  const jsonError = (text) => {
    const n = text.length;
    let i = 0;
    const ws = (c) => c === 32 || c === 9 || c === 10 || c === 13;
    const skip = () => { while (i < n && ws(unit(text, i))) i++; };
    const digit = (c) => c >= 48 && c <= 57;
    const at = (m) => { throw `${m} in JSON at position ${i}`; };
    const special = ["[object Object]", "undefined", "Infinity", "NaN"];
    // The message for the token at `i` where nothing more specific is said.
    const unexpected = () => {
      if (i >= n) throw "Unexpected end of JSON input";
      const c = unit(text, i);
      if (c === 34) at("Unexpected string");
      if (c === 45 || digit(c)) at("Unexpected number");
      for (let k = 0; k < special.length; k++) if (text === special[k]) throw `"${text}" is not valid JSON`;
      const token = text[i];
      if (n < 21) throw `Unexpected token '${token}', "${text}" is not valid JSON`;
      if (i < 10) throw `Unexpected token '${token}', "${cut(text, 0, i + 10)}"... is not valid JSON`;
      if (i < n - 10) throw `Unexpected token '${token}', ..."${cut(text, i - 10, i + 10)}"... is not valid JSON`;
      throw `Unexpected token '${token}', ..."${cut(text, i - 10)}" is not valid JSON`;
    };
    const expect = (code, message) => {
      skip();
      if (i < n && unit(text, i) === code) { i++; return; }
      if (message === undefined) unexpected();
      at(message);
    };
    const string = () => {
      // `i` is past the opening quote.
      for (;;) {
        if (i >= n) at("Unterminated string");
        const c = unit(text, i);
        if (c === 34) { i++; return; }
        if (c === 92) {
          i++;
          if (i >= n) throw "Unexpected end of JSON input";
          const e = text[i];
          if (e === "u") {
            for (let k = 0; k < 4; k++) {
              i++;
              const h = i < n ? unit(text, i) : -1;
              if (!(digit(h) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102))) at("Bad Unicode escape");
            }
          } else if (!(e === '"' || e === "\\" || e === "/" || e === "b" || e === "f" || e === "n" || e === "r" || e === "t")) {
            at("Bad escaped character");
          }
          i++;
          continue;
        }
        if (c < 32) at("Bad control character in string literal");
        i++;
      }
    };
    const number = () => {
      if (unit(text, i) === 45) i++;
      if (unit(text, i) === 48) {
        i++;
        if (i < n && digit(unit(text, i))) unexpected();
      } else {
        const start = i;
        while (i < n && digit(unit(text, i))) i++;
        if (i === start) at("No number after minus sign");
      }
      if (unit(text, i) === 46) {
        i++;
        if (!(i < n && digit(unit(text, i)))) at("Unterminated fractional number");
        while (i < n && digit(unit(text, i))) i++;
      }
      const e = unit(text, i);
      if (e === 101 || e === 69) {
        i++;
        if (unit(text, i) === 43 || unit(text, i) === 45) i++;
        if (!(i < n && digit(unit(text, i)))) at("Exponent part is missing a number");
        while (i < n && digit(unit(text, i))) i++;
      }
    };
    const literal = (word) => {
      for (let k = 1; k < word.length; k++) {
        i++;
        if (i >= n) throw "Unexpected end of JSON input";
        if (text[i] !== word[k]) unexpected();
      }
      i++;
    };
    // Iterative, as V8's: a stack of open arrays (true) and objects (false).
    const open = [];
    for (;;) {
      // A value.
      for (;;) {
        skip();
        const c = i < n ? unit(text, i) : -1;
        if (c === 34) { i++; string(); break; }
        if (c === 45 || digit(c)) { number(); break; }
        if (c === 116) { literal("true"); break; }
        if (c === 102) { literal("false"); break; }
        if (c === 110) { literal("null"); break; }
        if (c === 123) {
          i++;
          skip();
          if (i < n && unit(text, i) === 125) { i++; break; }
          expect(34, "Expected property name or '}'");
          string();
          expect(58, "Expected ':' after property name");
          open[open.length] = false;
          continue;
        }
        if (c === 91) {
          i++;
          skip();
          if (i < n && unit(text, i) === 93) { i++; break; }
          open[open.length] = true;
          continue;
        }
        unexpected();
      }
      // What follows a value.
      let more = false;
      while (open.length > 0) {
        const array = open[open.length - 1];
        skip();
        if (i < n && unit(text, i) === 44) {
          i++;
          if (!array) {
            expect(34, "Expected double-quoted property name");
            string();
            expect(58);
          }
          more = true;
          break;
        }
        if (array) expect(93, "Expected ',' or ']' after array element");
        else expect(125, "Expected ',' or '}' after property value");
        open.length--;
      }
      if (more) continue;
      skip();
      if (i < n) throw `Unexpected non-whitespace character after JSON at position ${i}`;
      return undefined;
    }
  };  // --- Array.prototype.sort as V8's ----------------------------------------------------
  // V8's TimSort (v8/src/builtins/array-sort.tq), ported: the same comparisons in the same
  // order, so the same result whatever the comparison function (checked against Node 20's
  // results and calls on generated arrays and functions, consistent or not). Without a
  // function the order is total and both sorts are stable: QuickJS's own sort runs.
  const ArrayCtor = globals.Array;
  const ObjectCtor = Object;
  const mathMax = Math.max;
  const mathMin = Math.min;
  const mathFloor = Math.floor;
  const ArrayProto = ArrayCtor.prototype;
  const nativeSort = ArrayProto.sort;
  const nativeToSorted = ArrayProto.toSorted;
  const TypeErr = globals.TypeError;
  function timsort(work, cmp) {
    const MIN_GALLOP = 7;
    let minGallop = MIN_GALLOP;
    const runBase = [];
    const runLength = [];
    const length = work.length;
    if (length < 2) return;

    const gallopLeft = (array, key, base, len, hint) => {
      let lastOfs = 0;
      let offset = 1;
      let order = +cmp(array[base + hint], key);
      if (order < 0) {
        const maxOfs = len - hint;
        while (offset < maxOfs) {
          order = +cmp(array[base + hint + offset], key);
          if (!(order < 0)) break;
          lastOfs = offset;
          offset = (offset << 1) + 1;
          if (offset <= 0) offset = maxOfs;
        }
        if (offset > maxOfs) offset = maxOfs;
        lastOfs += hint;
        offset += hint;
      } else {
        const maxOfs = hint + 1;
        while (offset < maxOfs) {
          order = +cmp(array[base + hint - offset], key);
          if (order < 0) break;
          lastOfs = offset;
          offset = (offset << 1) + 1;
          if (offset <= 0) offset = maxOfs;
        }
        if (offset > maxOfs) offset = maxOfs;
        const tmp = lastOfs;
        lastOfs = hint - offset;
        offset = hint - tmp;
      }
      lastOfs++;
      while (lastOfs < offset) {
        const m = lastOfs + ((offset - lastOfs) >> 1);
        order = +cmp(array[base + m], key);
        if (order < 0) lastOfs = m + 1;
        else offset = m;
      }
      return offset;
    };

    const gallopRight = (array, key, base, len, hint) => {
      let lastOfs = 0;
      let offset = 1;
      let order = +cmp(key, array[base + hint]);
      if (order < 0) {
        const maxOfs = hint + 1;
        while (offset < maxOfs) {
          order = +cmp(key, array[base + hint - offset]);
          if (!(order < 0)) break;
          lastOfs = offset;
          offset = (offset << 1) + 1;
          if (offset <= 0) offset = maxOfs;
        }
        if (offset > maxOfs) offset = maxOfs;
        const tmp = lastOfs;
        lastOfs = hint - offset;
        offset = hint - tmp;
      } else {
        const maxOfs = len - hint;
        while (offset < maxOfs) {
          order = +cmp(key, array[base + hint + offset]);
          if (order < 0) break;
          lastOfs = offset;
          offset = (offset << 1) + 1;
          if (offset <= 0) offset = maxOfs;
        }
        if (offset > maxOfs) offset = maxOfs;
        lastOfs += hint;
        offset += hint;
      }
      lastOfs++;
      while (lastOfs < offset) {
        const m = lastOfs + ((offset - lastOfs) >> 1);
        order = +cmp(key, array[base + m]);
        if (order < 0) offset = m;
        else lastOfs = m + 1;
      }
      return offset;
    };

    const copy = (from, fromAt, to, toAt, n) => {
      if (fromAt < toAt) {
        for (let i = n - 1; i >= 0; i--) to[toAt + i] = from[fromAt + i];
      } else {
        for (let i = 0; i < n; i++) to[toAt + i] = from[fromAt + i];
      }
    };

    const mergeLow = (baseA, lengthA, baseB, lengthB) => {
      const temp = new ArrayCtor(lengthA);
      copy(work, baseA, temp, 0, lengthA);
      let dest = baseA;
      let cursorTemp = 0;
      let cursorB = baseB;
      work[dest++] = work[cursorB++];
      let copyB = false;
      outer: {
        if (--lengthB === 0) break outer;
        if (lengthA === 1) { copyB = true; break outer; }
        for (;;) {
          let winsA = 0;
          let winsB = 0;
          for (;;) {
            const order = +cmp(work[cursorB], temp[cursorTemp]);
            if (order < 0) {
              work[dest++] = work[cursorB++];
              ++winsB;
              --lengthB;
              winsA = 0;
              if (lengthB === 0) break outer;
              if (winsB >= minGallop) break;
            } else {
              work[dest++] = temp[cursorTemp++];
              ++winsA;
              --lengthA;
              winsB = 0;
              if (lengthA === 1) { copyB = true; break outer; }
              if (winsA >= minGallop) break;
            }
          }
          ++minGallop;
          let first = true;
          while (winsA >= MIN_GALLOP || winsB >= MIN_GALLOP || first) {
            first = false;
            minGallop = mathMax(1, minGallop - 1);
            winsA = gallopRight(temp, work[cursorB], cursorTemp, lengthA, 0);
            if (winsA > 0) {
              copy(temp, cursorTemp, work, dest, winsA);
              dest += winsA;
              cursorTemp += winsA;
              lengthA -= winsA;
              if (lengthA === 1) { copyB = true; break outer; }
              if (lengthA === 0) break outer;
            }
            work[dest++] = work[cursorB++];
            if (--lengthB === 0) break outer;
            winsB = gallopLeft(work, temp[cursorTemp], cursorB, lengthB, 0);
            if (winsB > 0) {
              copy(work, cursorB, work, dest, winsB);
              dest += winsB;
              cursorB += winsB;
              lengthB -= winsB;
              if (lengthB === 0) break outer;
            }
            work[dest++] = temp[cursorTemp++];
            if (--lengthA === 1) { copyB = true; break outer; }
          }
          ++minGallop;
        }
      }
      if (copyB) {
        copy(work, cursorB, work, dest, lengthB);
        work[dest + lengthB] = temp[cursorTemp];
      } else if (lengthA > 0) {
        copy(temp, cursorTemp, work, dest, lengthA);
      }
    };

    const mergeHigh = (baseA, lengthA, baseB, lengthB) => {
      const temp = new ArrayCtor(lengthB);
      copy(work, baseB, temp, 0, lengthB);
      let dest = baseB + lengthB - 1;
      let cursorTemp = lengthB - 1;
      let cursorA = baseA + lengthA - 1;
      work[dest--] = work[cursorA--];
      let copyA = false;
      outer: {
        if (--lengthA === 0) break outer;
        if (lengthB === 1) { copyA = true; break outer; }
        for (;;) {
          let winsA = 0;
          let winsB = 0;
          for (;;) {
            const order = +cmp(temp[cursorTemp], work[cursorA]);
            if (order < 0) {
              work[dest--] = work[cursorA--];
              ++winsA;
              --lengthA;
              winsB = 0;
              if (lengthA === 0) break outer;
              if (winsA >= minGallop) break;
            } else {
              work[dest--] = temp[cursorTemp--];
              ++winsB;
              --lengthB;
              winsA = 0;
              if (lengthB === 1) { copyA = true; break outer; }
              if (winsB >= minGallop) break;
            }
          }
          ++minGallop;
          let first = true;
          while (winsA >= MIN_GALLOP || winsB >= MIN_GALLOP || first) {
            first = false;
            minGallop = mathMax(1, minGallop - 1);
            let k = gallopRight(work, temp[cursorTemp], baseA, lengthA, lengthA - 1);
            winsA = lengthA - k;
            if (winsA > 0) {
              dest -= winsA;
              cursorA -= winsA;
              copy(work, cursorA + 1, work, dest + 1, winsA);
              lengthA -= winsA;
              if (lengthA === 0) break outer;
            }
            work[dest--] = temp[cursorTemp--];
            if (--lengthB === 1) { copyA = true; break outer; }
            k = gallopLeft(temp, work[cursorA], 0, lengthB, lengthB - 1);
            winsB = lengthB - k;
            if (winsB > 0) {
              dest -= winsB;
              cursorTemp -= winsB;
              copy(temp, cursorTemp + 1, work, dest + 1, winsB);
              lengthB -= winsB;
              if (lengthB === 1) { copyA = true; break outer; }
              if (lengthB === 0) break outer;
            }
            work[dest--] = work[cursorA--];
            if (--lengthA === 0) break outer;
          }
          ++minGallop;
        }
      }
      if (copyA) {
        dest -= lengthA;
        cursorA -= lengthA;
        copy(work, cursorA + 1, work, dest + 1, lengthA);
        work[dest] = temp[cursorTemp];
      } else if (lengthB > 0) {
        copy(temp, 0, work, dest - (lengthB - 1), lengthB);
      }
    };

    const mergeAt = (i) => {
      let baseA = runBase[i];
      let lengthA = runLength[i];
      const baseB = runBase[i + 1];
      let lengthB = runLength[i + 1];
      runLength[i] = lengthA + lengthB;
      if (i === runBase.length - 3) {
        runBase[i + 1] = runBase[i + 2];
        runLength[i + 1] = runLength[i + 2];
      }
      runBase.length--;
      runLength.length--;
      const k = gallopRight(work, work[baseB], baseA, lengthA, 0);
      baseA += k;
      lengthA -= k;
      if (lengthA === 0) return;
      lengthB = gallopLeft(work, work[baseA + lengthA - 1], baseB, lengthB, lengthB - 1);
      if (lengthB === 0) return;
      if (lengthA <= lengthB) mergeLow(baseA, lengthA, baseB, lengthB);
      else mergeHigh(baseA, lengthA, baseB, lengthB);
    };

    const established = (n) => {
      if (n < 2) return true;
      return runLength[n - 2] > runLength[n - 1] + runLength[n];
    };

    let n = length;
    let r = 0;
    while (n >= 64) {
      r |= n & 1;
      n >>= 1;
    }
    const minRun = n + r;
    let low = 0;
    let remaining = length;
    while (remaining !== 0) {
      // A run: ascending (each not less than the one before), or strictly descending, reversed.
      let run = 2;
      const high = low + remaining;
      if (low + 1 === high) {
        run = 1;
      } else {
        let previous = work[low + 1];
        const descending = +cmp(previous, work[low]) < 0;
        for (let i = low + 2; i < high; i++) {
          const current = work[i];
          const order = +cmp(current, previous);
          if (descending ? !(order < 0) : order < 0) break;
          previous = current;
          ++run;
        }
        if (descending) {
          for (let a = low, b = low + run - 1; a < b; a++, b--) {
            const t = work[a];
            work[a] = work[b];
            work[b] = t;
          }
        }
      }
      if (run < minRun) {
        const forced = mathMin(minRun, remaining);
        // Binary insertion of the elements after the run.
        for (let start = low === low + run ? low + run + 1 : low + run; start < low + forced; ++start) {
          let left = low;
          let right = start;
          const pivot = work[start];
          while (left < right) {
            const mid = left + ((right - left) >> 1);
            if (+cmp(pivot, work[mid]) < 0) right = mid;
            else left = mid + 1;
          }
          for (let p = start; p > left; --p) work[p] = work[p - 1];
          work[left] = pivot;
        }
        run = forced;
      }
      runBase[runBase.length] = low;
      runLength[runLength.length] = run;
      while (runBase.length > 1) {
        let m = runBase.length - 2;
        if (!established(m + 1) || !established(m)) {
          if (runLength[m - 1] < runLength[m + 1]) --m;
          mergeAt(m);
        } else if (runLength[m] <= runLength[m + 1]) {
          mergeAt(m);
        } else {
          break;
        }
      }
      low += run;
      remaining -= run;
    }
    while (runBase.length > 1) {
      let m = runBase.length - 2;
      if (m > 0 && runLength[m - 1] < runLength[m + 1]) --m;
      mergeAt(m);
    }
  }
  const checked = (comparefn) => {
    if (comparefn !== undefined && typeof comparefn !== "function") {
      throw new TypeErr("The comparison function must be either a function or undefined");
    }
  };
  const receiver = (value) => {
    if (value === null || value === undefined) throw new TypeErr("Cannot convert undefined or null to object");
    return ObjectCtor(value);
  };
  const lengthOf = (o) => {
    const n = +o.length;
    return n > 0 ? mathMin(mathFloor(n), 9007199254740991) : 0;
  };
  // Past this many elements (a sparse array's length) the copy would take too long: QuickJS's
  // sort, which skips the holes.
  const WORK_LIMIT = 1 << 24;
  define(ArrayProto, "sort", {
    value: {
      sort(comparefn) {
        "use strict";
        checked(comparefn);
        const obj = receiver(this);
        const len = lengthOf(obj);
        if (comparefn === undefined || len > WORK_LIMIT) return apply(nativeSort, obj, [comparefn]);
        const work = [];
        let undefs = 0;
        for (let i = 0; i < len; i++) {
          if (!(i in obj)) continue;
          const v = obj[i];
          if (v === undefined) undefs++;
          else work[work.length] = v;
        }
        // Called as V8 calls it: `undefined` for `this`, its value made a number.
        timsort(work, comparefn);
        let i = 0;
        for (; i < work.length; i++) obj[i] = work[i];
        for (; i < work.length + undefs; i++) obj[i] = undefined;
        for (; i < len; i++) delete obj[i];
        return obj;
      },
    }.sort,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  define(ArrayProto, "toSorted", {
    value: {
      toSorted(comparefn) {
        "use strict";
        checked(comparefn);
        const obj = receiver(this);
        const len = lengthOf(obj);
        if (comparefn === undefined || len > WORK_LIMIT) return apply(nativeToSorted, obj, [comparefn]);
        const work = [];
        let undefs = 0;
        for (let i = 0; i < len; i++) {
          const v = obj[i];
          if (v === undefined) undefs++;
          else work[work.length] = v;
        }
        // Called as V8 calls it: `undefined` for `this`, its value made a number.
        timsort(work, comparefn);
        while (undefs-- > 0) work[work.length] = undefined;
        return work;
      },
    }.toSorted,
    writable: true,
    configurable: true,
    enumerable: false,
  });

  // --- Math.hypot as V8's ------------------------------------------------------------------
  // QuickJS folds the C library's `hypot(r, a)` over the arguments; V8 scales each value by the
  // largest and sums their squares with Kahan's compensation, so the last digit differs on a
  // third of inputs. (`Math`'s other functions and `**` are V8's through `math.rs`.)
  const mathAbs = Math.abs;
  const mathSqrt = Math.sqrt;
  define(Math, "hypot", {
    value: {
      hypot(value1, value2) {
        const n = arguments.length;
        const abs = [];
        let max = 0;
        let nan = false;
        for (let i = 0; i < n; i++) {
          const v = mathAbs(+arguments[i]);
          abs[i] = v;
          if (v !== v) nan = true;
          else if (v > max) max = v;
        }
        if (max === Infinity) return Infinity;
        if (nan) return NaN;
        if (max === 0) return 0;
        let sum = 0;
        let compensation = 0;
        for (let i = 0; i < n; i++) {
          const scaled = abs[i] / max;
          const summand = scaled * scaled - compensation;
          const preliminary = sum + summand;
          compensation = preliminary - sum - summand;
          sum = preliminary;
        }
        return mathSqrt(sum) * max;
      },
    }.hypot,
    writable: true,
    configurable: true,
    enumerable: false,
  });

  // --- a callback that is not a function, named as V8 names it -------------------------------
  // `items.map(handler)` with `handler` unset: V8 says `undefined is not a function` (the value,
  // as its `NoSideEffectsToString` writes it), `Set`'s and `Map`'s `forEach` say `number 2 is
  // not a function`, `flatMap` says its own words; QuickJS says `not a function`. Each method
  // checks as V8 does, after what V8 reads before (the receiver and its `length`), and only
  // when the callback is not a function: otherwise the engine's method runs as before.
  const ObjectProto = ObjectCtor.prototype;
  const objectToString = ObjectProto.toString;
  const ErrorProto = ErrorCtor.prototype;
  const errorToString = ErrorProto.toString;
  const isArray = ArrayCtor.isArray;
  const SymbolToStringTag = Symbol.toStringTag;
  const dateValue = Date.prototype.getTime;
  const regexpSource = describe(RegExp.prototype, "source").get;
  const isErrorObject = (v) => {
    for (let p = v, n = 0; p !== null && n < 1000; p = protoOf(p), n++) if (p === ErrorProto) return true;
    return false;
  };
  const branded = (f, v) => {
    try {
      apply(f, v, []);
      return true;
    } catch (e) {
      return false;
    }
  };
  // A property's value where it is a data property of `v` or of its prototypes (no getter runs).
  const dataProperty = (v, key) => {
    for (let p = v, n = 0; p !== null && n < 1000; p = protoOf(p), n++) {
      const d = describe(p, key);
      if (d !== undefined) return "value" in d ? d.value : undefined;
    }
    return undefined;
  };
  const symbolToString = Symbol.prototype.toString;
  const noSideEffectsText = (v) => {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return typeof v === "symbol" ? apply(symbolToString, v, []) : `${v}`;
    const toString = dataProperty(v, "toString");
    if (isErrorObject(v) || toString === errorToString) {
      const name = dataProperty(v, "name");
      const message = dataProperty(v, "message");
      const n = typeof name === "string" ? name : "Error";
      const m = typeof message === "string" ? message : "";
      return n === "" ? m : m === "" ? n : `${n}: ${m}`;
    }
    if (toString === objectToString) {
      const ctor = dataProperty(v, "constructor");
      const name = typeof ctor === "function" ? dataProperty(ctor, "name") : undefined;
      if (typeof name === "string" && name !== "") return `#<${name}>`;
    }
    const tag = dataProperty(v, SymbolToStringTag);
    if (typeof tag === "string") return `[object ${tag}]`;
    if (isArray(v)) return "[object Array]";
    if (branded(dateValue, v)) return "[object Date]";
    if (branded(regexpSource, v)) return "[object RegExp]";
    return "[object Object]";
  };
  // V8's words where it cannot print the call: the type, then a primitive's value.
  const typedText = (v) => {
    if (v === null) return "object null";
    if (typeof v === "string") return `string "${v}"`;
    if (typeof v === "number" || typeof v === "boolean") return `${typeof v} ${v}`;
    return typeof v;
  };
  const callbackChecked = (owner, name, words, before, nothing) => {
    const native = owner[name];
    const method = {
      [name](callback) {
        "use strict";
        if (nothing !== undefined && (this === null || this === undefined)) throw new TypeErr(nothing);
        if (typeof callback !== "function" && before(this)) throw new TypeErr(words(callback));
        return apply(native, this, arguments);
      },
    }[name];
    define(method, "length", { value: native.length, configurable: true });
    define(owner, name, { value: method, writable: true, configurable: true, enumerable: false });
  };
  // What an array method reads before it checks its callback: its receiver (`nothing` when
  // there is none), then the receiver's `length`.
  const arrayReads = (self) => {
    lengthOf(ObjectCtor(self));
    return true;
  };
  const nothing = (name) => `Array.prototype.${name} called on null or undefined`;
  const notAFunction = (v) => `${noSideEffectsText(v)} is not a function`;
  for (const name of ["every", "filter", "find", "findIndex", "findLast", "findLastIndex", "forEach", "map", "some", "reduce", "reduceRight"]) {
    callbackChecked(ArrayProto, name, notAFunction, arrayReads, nothing(name));
  }
  callbackChecked(ArrayProto, "flatMap", () => "flatMap mapper function is not callable", arrayReads, nothing("flatMap"));
  const setHas = Set.prototype.has;
  const mapHas = Map.prototype.has;
  callbackChecked(Set.prototype, "forEach", (v) => `${typedText(v)} is not a function`, (self) => branded(setHas, self));
  callbackChecked(Map.prototype, "forEach", (v) => `${typedText(v)} is not a function`, (self) => branded(mapHas, self));
  // `Array.from(items, mapfn)`: checked first; no mapping function at all is not one.
  const nativeFrom = ArrayCtor.from;
  const from = {
    from(items) {
      "use strict";
      const mapfn = arguments.length > 1 ? arguments[1] : undefined;
      if (mapfn !== undefined && typeof mapfn !== "function") throw new TypeErr(notAFunction(mapfn));
      return apply(nativeFrom, this, arguments);
    },
  }.from;
  define(ArrayCtor, "from", { value: from, writable: true, configurable: true, enumerable: false });
  // `[1234.5, 0.25].toLocaleString("en-US", { style: "currency", currency: "USD" })`: each
  // element's `toLocaleString` gets the locales and options (ECMA-402; QuickJS calls it with
  // none); an array met again inside itself is "", as V8 writes it.
  const joining = [];
  const toLocale = {
    toLocaleString(locales, options) {
      if (this === undefined || this === null) throw new TypeErr("Cannot convert undefined or null to object");
      const array = ObjectCtor(this);
      for (let i = 0; i < joining.length; i++) if (joining[i] === array) return "";
      const length = lengthOf(array);
      joining[joining.length] = array;
      try {
        let out = "";
        for (let k = 0; k < length; k++) {
          if (k > 0) out += ",";
          const element = array[k];
          if (element !== undefined && element !== null) out += `${element.toLocaleString(locales, options)}`;
        }
        return out;
      } finally {
        joining.length -= 1;
      }
    },
  }.toLocaleString;
  define(ArrayProto, "toLocaleString", { value: toLocale, writable: true, configurable: true, enumerable: false });

  // `toLocaleUpperCase`/`toLocaleLowerCase` in Turkish and Azeri, as ICU maps them (QuickJS
  // ignores the locale): the dotted capital İ and the dotless ı are their own letters, so `i`
  // is upper-cased to `İ`, `I` lower-cased to `ı`, `İ` to `i` (and `I` before a combining dot
  // above to `i`, the dot dropped). The locales are read as Node reads them (the first one;
  // an invalid tag is a RangeError); every other locale maps as the engine does.
  const nativeUpper = String.prototype.toLocaleUpperCase;
  const nativeLower = String.prototype.toLocaleLowerCase;
  const replaceText = String.prototype.replace;
  const toStr = String;
  const turkic = (locales) => {
    if (locales === undefined) return false;
    const list = globals.Intl.getCanonicalLocales(locales);
    if (list.length === 0) return false;
    const tag = list[0];
    return apply(startsWith, tag, ["tr"]) && (tag.length === 2 || tag[2] === "-")
      || apply(startsWith, tag, ["az"]) && (tag.length === 2 || tag[2] === "-");
  };
  const caseMethods = {
    toLocaleUpperCase(locales) {
      if (this === undefined || this === null) throw new TypeErr("String.prototype.toLocaleUpperCase called on null or undefined");
      const text = toStr(this);
      if (!turkic(locales)) return apply(nativeUpper, text, []);
      return apply(nativeUpper, apply(replaceText, text, [/i/g, "\u0130"]), []);
    },
    toLocaleLowerCase(locales) {
      if (this === undefined || this === null) throw new TypeErr("String.prototype.toLocaleLowerCase called on null or undefined");
      const text = toStr(this);
      if (!turkic(locales)) return apply(nativeLower, text, []);
      const mapped = apply(replaceText, text, [/I\u0307|I|\u0130/g, (m) => (m === "I" ? "\u0131" : "i")]);
      return apply(nativeLower, mapped, []);
    },
  };
  for (const name of ["toLocaleUpperCase", "toLocaleLowerCase"]) {
    define(caseMethods[name], "length", { value: 0, configurable: true });
    define(String.prototype, name, { value: caseMethods[name], writable: true, configurable: true, enumerable: false });
  }

  define(globals, "global", { value: globals, writable: true, enumerable: true, configurable: true });

  // --- Number.prototype.toString(radix) as V8's -----------------------------------------------
  // V8 writes a number in another radix than 10 with its own method (`DoubleToRadixCString`):
  // fraction digits only as far as the double's precision (half the gap to the next double),
  // rounded half to even, and an integer part past 2**53 written as zeros; QuickJS's digits
  // differ for fractions and large integers (`(0.001).toString(36)` ends `gez5` here, `gez6` in
  // Node). The method, written again; radix 10 and the checks are the engine's.
  const nativeNumberToString = Number.prototype.toString;
  const numberValueOf = Number.prototype.valueOf;
  const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
  const [floor, log2] = [Math.floor, Math.log2];
  // Half the gap from positive finite `x` to the next double (at least the smallest double).
  const halfGap = (x) => {
    let e = floor(log2(x));
    if (2 ** e > x) e--;
    else if (2 ** (e + 1) <= x) e++;
    return mathMax(0.5 * 2 ** mathMax(e - 52, -1074), 2 ** -1074);
  };
  const inRadix = (value, radix) => {
    const negative = value < 0;
    if (negative) value = -value;
    let integer = floor(value);
    let fraction = value - integer;
    let delta = halfGap(value);
    const frac = [];
    if (fraction >= delta) {
      do {
        fraction *= radix;
        delta *= radix;
        const digit = floor(fraction);
        frac[frac.length] = digit;
        fraction -= digit;
        if (fraction > 0.5 || (fraction === 0.5 && (digit & 1))) {
          if (fraction + delta > 1) {
            // Round up, carrying through the digits written.
            for (;;) {
              if (frac.length === 0) {
                integer += 1;
                break;
              }
              const last = frac[frac.length - 1] + 1;
              if (last < radix) {
                frac[frac.length - 1] = last;
                break;
              }
              frac.length--;
            }
            break;
          }
        }
      } while (fraction >= delta);
    }
    let int = "";
    while (integer / radix >= 2 ** 53) {
      integer /= radix;
      int = "0" + int;
    }
    do {
      const remainder = integer % radix;
      int = DIGITS[floor(remainder)] + int;
      integer = (integer - remainder) / radix;
    } while (integer > 0);
    let out = negative ? "-" + int : int;
    if (frac.length > 0) {
      out += ".";
      for (let i = 0; i < frac.length; i++) out += DIGITS[frac[i]];
    }
    return out;
  };
  const numberToString = {
    toString(radix) {
      // The engine's checks (`this` a number, the radix 2 to 36) and its radix 10.
      const text = apply(nativeNumberToString, this, [radix]);
      if (radix === undefined) return text;
      const r = +radix;
      const value = apply(numberValueOf, this, []);
      if (r === 10 || value !== value || value === Infinity || value === -Infinity || value === 0) return text;
      return inRadix(value, floor(r));
    },
  }.toString;
  define(Number.prototype, "toString", { value: numberToString, writable: true, enumerable: false, configurable: true });

  const json = globals.JSON;
  define(json, "parse", {
    value: {
      parse(text, reviver) {
        const source = `${text}`;
        // Node 20 calls a reviver with the key and the value; QuickJS adds a third argument
        // (`{ source }`, a later standard) that a feature-detecting reviver would use.
        const revive = typeof reviver === "function"
          ? function (key, value) { return apply(reviver, this, [key, value]); }
          : reviver;
        try {
          return apply(nativeParse, json, [source, revive]);
        } catch (error) {
          if (error === null || typeof error !== "object" || protoOf(error) !== SyntaxErrorProto) throw error;
          let message;
          try {
            jsonError(source);
          } catch (m) {
            message = m;
          }
          if (message !== undefined) define(error, "message", { value: message, writable: true, configurable: true, enumerable: false });
          throw error;
        }
      },
    }.parse,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  // --- String.prototype.repeat's RangeError as V8's ------------------------------------------
  // QuickJS says `invalid repeat count`; V8 says the count (`Invalid count value: -1`). The
  // count is read again on that path only (its `valueOf` runs twice there).
  const nativeRepeat = globals.String.prototype.repeat;
  const RangeErr = globals.RangeError;
  const repeat = {
    repeat(count) {
      try {
        return apply(nativeRepeat, this, [count]);
      } catch (e) {
        const said = e !== null && typeof e === "object" ? describe(e, "message") : undefined;
        if (protoOf(e) === RangeErr.prototype && said !== undefined && said.value === "invalid repeat count") {
          // Too long a string is no bad count to V8.
          const n = +count;
          throw new RangeErr(n < 0 || n === Infinity ? `Invalid count value: ${n}` : "Invalid string length");
        }
        throw e;
      }
    },
  }.repeat;
  define(globals.String.prototype, "repeat", { value: repeat, writable: true, configurable: true, enumerable: false });

  // --- Promise.any's rejection as V8's ------------------------------------------------------
  // When every promise rejects, QuickJS's AggregateError has no message; V8's says `All
  // promises were rejected`. The spec's steps (PerformPromiseAny), in its order: the same
  // `then` calls on the same promises, so the same jobs in the same turns as the engine's.
  const PromiseCtor = globals.Promise;
  const AggregateErr = globals.AggregateError;
  define(PromiseCtor, "any", {
    value: {
      any(iterable) {
        "use strict";
        const C = this;
        let resolve;
        let reject;
        // NewPromiseCapability(C): a TypeError here is thrown, not a rejection.
        const promise = new C((res, rej) => {
          if (resolve !== undefined || reject !== undefined) throw new TypeErr("Promise executor has already been invoked with non-undefined arguments");
          resolve = res;
          reject = rej;
        });
        if (typeof resolve !== "function" || typeof reject !== "function") throw new TypeErr("Promise resolve or reject function is not callable");
        try {
          const promiseResolve = C.resolve;
          if (typeof promiseResolve !== "function") throw new TypeErr("Promise resolve or reject function is not callable");
          const errors = [];
          let remaining = 1;
          let index = 0;
          for (const next of iterable) {
            const at = index++;
            errors[at] = undefined;
            const nextPromise = apply(promiseResolve, C, [next]);
            let called = false;
            const rejectElement = (x) => {
              if (called) return undefined;
              called = true;
              errors[at] = x;
              if (--remaining === 0) reject(new AggregateErr(errors, "All promises were rejected"));
              return undefined;
            };
            remaining++;
            nextPromise.then(resolve, rejectElement);
          }
          if (--remaining === 0) reject(new AggregateErr(errors, "All promises were rejected"));
        } catch (e) {
          reject(e);
        }
        return promise;
      },
    }.any,
    writable: true,
    configurable: true,
    enumerable: false,
  });

  // --- Date setters given a value that is not a finite number --------------------------------
  // `d.setUTCDate(NaN)` makes `d` an Invalid Date in V8 (the spec: the new time value is NaN);
  // QuickJS answers NaN but leaves the date as it was. Each setter runs QuickJS's (which
  // converts each argument once, in order), then makes the date invalid where QuickJS kept a
  // valid one but answered NaN.
  const DateProto = globals.Date.prototype;
  const getTime = DateProto.getTime;
  const setTime = DateProto.setTime;
  for (const name of ["setMilliseconds", "setUTCMilliseconds", "setSeconds", "setUTCSeconds", "setMinutes", "setUTCMinutes", "setHours", "setUTCHours", "setDate", "setUTCDate", "setMonth", "setUTCMonth", "setFullYear", "setUTCFullYear"]) {
    const native = DateProto[name];
    const setter = {
      [name](...values) {
        const time = apply(native, this, values);
        if (time !== time && apply(getTime, this, []) === apply(getTime, this, [])) apply(setTime, this, [NaN]);
        return time;
      },
    }[name];
    define(setter, "length", { value: native.length, configurable: true });
    define(DateProto, name, { value: setter, writable: true, configurable: true, enumerable: false });
  }

  // For a program's run: where its errors' culprits are read (see `culpritOf`).
  return (read) => {
    culpritOf = read;
  };
})
