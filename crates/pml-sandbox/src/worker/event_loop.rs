//! Program mode on the worker: the `mcp` object, the one native function behind it, and the
//! event loop that runs the program's promise jobs and feeds it the host's answers.
//!
//! The program's context gets one native function, which never becomes a global: it is an
//! argument of [`SETUP`], whose closures keep it, the table of unsettled calls and the
//! `JSON.stringify` and `Error` they use (taken before any program code runs, so a program that
//! replaces globals changes nothing here). The program sees only `mcp` and `capabilities`, and
//! no code can reach those closures' variables.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rquickjs::function::Opt;
use rquickjs::promise::PromiseState;
use rquickjs::{Array, Ctx, Exception, FromJs, Function, IntoJs, Persistent, Value};

use super::{failure, message_of, settled, text_of, to_json, Failure, Phase, TaskClock};
use crate::bytecode;
use crate::program::{
    AnswerLine, Answers, ConsoleLevel, Event, HostAnswer, HostCall, Inbound, Report, Reported,
};

/// Node's `util.format` and `util.inspect` for the program's `console` (`inspect.js`: a
/// function of the native `isProxy`, `proxyTarget`, `promiseState` and `stringWidth`, made
/// before program code runs).
pub(super) const INSPECT: &str = include_str!("inspect.js");

/// Builds `mcp` (and `capabilities`, whose calls pass a `null` server) around the native
/// `call(server, tool, argumentsJson) -> id` and returns `[mcp, settle, ...]`, where `settle(id, ok, payload)` resolves call `id` with `payload` or rejects
/// it with an `Error` whose message is `payload`.
///
/// `mcp` and each server object are proxies over a frozen empty object: a string key names a
/// server (a tool), the same object each time, except `then`, `toJSON`, `toString` and
/// `valueOf`, which `await`, `JSON.stringify` and conversions to strings and numbers probe:
/// they are `undefined`, like symbol keys, so probing never makes a call. Writes fail, key
/// listings find nothing. A tool is `(arguments) => Promise`; it never throws: arguments
/// `JSON.stringify` refuses (the `toJson` of [`STRINGIFY`](super::STRINGIFY)) make a rejected
/// promise (its `TypeError`). The error a call rejects with is made when the call is, so its
/// stack points at the program's line that made the call. `util` is [`INSPECT`]'s.
pub(super) const SETUP: &str = r#"(function (call, toJson, record, isProxy, isPromise, util) {
  const begin = util.begin;
  const Err = Error;
  const TypeErr = TypeError;
  const capture = typeof Err.captureStackTrace === "function" ? Err.captureStackTrace : undefined;
  const P = Promise;
  const Px = Proxy;
  const stringify = JSON.stringify;
  const create = Object.create;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const describe = Object.getOwnPropertyDescriptor;
  const defineProperty = Object.defineProperty;
  const protoOf = Object.getPrototypeOf;
  const hasOwn = Object.hasOwn;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const setProto = Object.setPrototypeOf;
  // The tools' functions (arrows: no constructors), known without asking.
  const tools = new WeakSet();
  const weakAdd = WeakSet.prototype.add;
  const weakHas = WeakSet.prototype.has;
  // Whether `f` is a constructor, touching nothing of it: a proxy of it is one exactly when it
  // is, and this one's trap makes the object.
  const constructTrap = freeze({ __proto__: null, construct: () => ({}) });
  const constructs = (f) => {
    if (apply(weakHas, tools, [f])) return false;
    try {
      new (new Px(f, constructTrap))();
      return true;
    } catch (e) {
      return false;
    }
  };
  // Arrays the probes fill: no prototype, so no setter a program puts on `Array.prototype`
  // sees (or changes) what they hold.
  const list = () => setProto([], null);
  const then = P.prototype.then;
  const promiseResolve = P.resolve;
  const ToObject = Object;
  const sliceText = String.prototype.slice;
  const repeatText = String.prototype.repeat;
  const Str = String;
  const iteratorKey = Symbol.iterator;
  const symbolText = Symbol.prototype.toString;
  const time = Date.prototype.getTime;
  const iso = Date.prototype.toISOString;
  const ObjectProto = Object.prototype;
  const ArrayProto = Array.prototype;
  const mapSize = describe(Map.prototype, "size").get;
  const setSize = describe(Set.prototype, "size").get;
  const pending = create(null);
  const reserved = create(null);
  reserved.then = reserved.toJSON = reserved.toString = reserved.valueOf = true;
  const isName = (key) => typeof key === "string" && reserved[key] !== true;
  const rejected = (error) => new P((resolve, reject) => reject(error));

  // A value as JSON-like text of about `limit` characters (operation previews in the trace),
  // read without running program code: own data properties only (getters show as [Getter]),
  // proxies not looked into, builtins captured above (a program that replaces them changes
  // nothing here).
  //
  // No closure is made per call: an inner function that refers to itself (a recursive walk)
  // is a reference cycle, which only QuickJS's cycle collector frees; made at every probe, it
  // grew the heap until a collection, and collections over the whole heap were a fifth of a
  // loop's time. The walks below are made once and carry their state in a plain object.
  const showPut = (s, text) => {
    s.out += text;
    return s.out.length < s.limit;
  };
  const showText = (s, v) =>
    showPut(s, stringify(v.length > s.limit ? apply(sliceText, v, [0, s.limit]) : v));
  const showField = (s, d, depth) => d === undefined ? showPut(s, "undefined")
    : hasOwn(d, "value") ? showWalk(s, d.value, depth + 1) : showPut(s, "[Getter]");
  const showWalk = (s, v, depth) => {
    switch (typeof v) {
      case "string": return showText(s, v);
      case "number": case "boolean": case "symbol": return showPut(s, Str(v));
      case "bigint": return showPut(s, Str(v) + "n");
      case "undefined": return showPut(s, "undefined");
      case "function": return showPut(s, "[Function]");
    }
    if (v === null) return showPut(s, "null");
    if (isProxy(v)) return showPut(s, "[Proxy]");
    const seen = s.seen;
    for (let i = 0; i < seen.length; i++) if (seen[i] === v) return showPut(s, "[Circular]");
    if (depth > 8) return showPut(s, isArray(v) ? "[Array]" : "[Object]");
    const proto = protoOf(v);
    if (proto !== ObjectProto && proto !== ArrayProto && proto !== null) {
      try { apply(time, v, []); return showText(s, apply(iso, v, [])); } catch (e) {}
      try { return showPut(s, "Map(" + apply(mapSize, v, []) + ")"); } catch (e) {}
      try { return showPut(s, "Set(" + apply(setSize, v, []) + ")"); } catch (e) {}
    }
    seen[seen.length] = v;
    let more;
    if (isArray(v)) {
      more = showPut(s, "[");
      for (let i = 0; more && i < v.length; i++) {
        more = (i === 0 || showPut(s, ",")) && showField(s, describe(v, i), depth);
      }
      more = more && showPut(s, "]");
    } else {
      const names = keys(v);
      more = showPut(s, "{");
      for (let i = 0; more && i < names.length; i++) {
        more = (i === 0 || showPut(s, ",")) && showPut(s, stringify(names[i]) + ":")
          && showField(s, describe(v, names[i]), depth);
      }
      more = more && showPut(s, "}");
    }
    seen.length = seen.length - 1;
    return more;
  };
  const show = (value, limit) => {
    const type = typeof value;
    if (type === "number" || type === "boolean") {
      // (Most previews: no walk.)
      const out = Str(value);
      return out.length > limit ? apply(sliceText, out, [0, limit]) + "…" : out;
    }
    const s = { __proto__: null, out: "", limit, seen: list() };
    showWalk(s, value, 0);
    const out = s.out;
    return out.length > limit ? apply(sliceText, out, [0, limit]) + "…" : out;
  };

  // A value as JSON text when it is plain data (arrays, plain objects, strings, finite
  // numbers but -0, booleans, null; own data properties only), else undefined; read like
  // `show`. JSON would hold NaN, the infinities and -0 as other values (`null`, `0`): code
  // computed ahead from them would compute something else than the program.
  const plainField = (s, d, depth) => d !== undefined && hasOwn(d, "value") && plainWalk(s, d.value, depth + 1);
  const plainWalk = (s, v, depth) => {
    switch (typeof v) {
      case "string": s.out += stringify(v); return s.out.length < 1048576;
      case "number":
        if (v !== v || v === 1 / 0 || v === -1 / 0 || (v === 0 && 1 / v < 0)) return false;
        s.out += Str(v);
        return true;
      case "boolean": s.out += v ? "true" : "false"; return true;
      case "object": break;
      default: return false;
    }
    if (v === null) { s.out += "null"; return true; }
    if (depth > 64 || isProxy(v)) return false;
    const proto = protoOf(v);
    if (isArray(v)) {
      if (proto !== ArrayProto) return false;
      s.out += "[";
      for (let i = 0; i < v.length; i++) {
        if (i > 0) s.out += ",";
        if (!plainField(s, describe(v, i), depth)) return false;
      }
      s.out += "]";
    } else {
      if (proto !== ObjectProto && proto !== null) return false;
      const names = keys(v);
      s.out += "{";
      for (let i = 0; i < names.length; i++) {
        s.out += (i > 0 ? "," : "") + stringify(names[i]) + ":";
        if (!plainField(s, describe(v, names[i]), depth)) return false;
      }
      s.out += "}";
    }
    return s.out.length < 1048576;
  };
  const plain = (value) => {
    const s = { __proto__: null, out: "" };
    return plainWalk(s, value, 0) ? s.out : undefined;
  };
  const wants = create(null);
  // How many more operations are reported (start and end; the run sets it when it starts:
  // `REPORTED_OPERATIONS`); past it they run unreported, counted when they start
  // (`skipped`): a host whose trace is full by then loses nothing it keeps. `unreported`:
  // the probes of those under way, innermost last (`unreportedOpen` of them); an `e` pairs with the
  // innermost of its probe (one that threw stays below, unpaired; an `e` with no `b`, a
  // short-circuited operand, is reported as before). A typed array made once, when the
  // first operation goes unreported: the probes allocate nothing after (a program filling
  // its memory runs out in its own code).
  const U32 = Uint32Array;
  let reportsLeft = 0;
  let unreported;
  let unreportedOpen = 0;
  let skipped = 0;
  // The run gives the probes whose values it wants when it starts, and how many operations
  // are reported.
  const want = (wanted, reported) => {
    for (let i = 0; i < wanted.length; i++) wants[wanted[i]] = true;
    reportsLeft = reported;
  };

  // The site of the call being made (set by a call site's wrapper just before the call).
  let site = 0;
  let siteIteration = 0;

  const tool = (server, name) => {
    // Every error it makes gets the program's stack: frames from `invoke` on are left out.
    const invoke = (args) => {
      const at = site;
      const iteration = siteIteration;
      site = 0;
      siteIteration = 0;
      const error = new Err("");
      if (capture !== undefined) capture(error, invoke);
      const stack = at === 0 ? error.stack : undefined;
      return new P((resolve, reject) => {
        // Sent one job later, as a Node client sends it (the SDK writes the arguments after
        // the `await` that gets its connection): what the program changes in the arguments
        // before it next waits (`base.message = x` in a `map` that calls with `base`) is
        // what the server receives.
        apply(then, apply(promiseResolve, P, []), [() => {
          let id;
          try {
            // As Node's MCP SDK sends `arguments: a || {}`: through `JSON.stringify`, whose
            // `undefined` leaves the arguments out.
            const text = toJson(args || {});
            // From here to the native call's end is pml's work, not the program's (its time
            // limit); the arguments' own `toJSON`, getters and proxies above are the
            // program's.
            begin();
            id = call(server, name, text, at, iteration, stack);
          } catch (e) {
            if (!(e instanceof TypeErr)) return reject(e);
            // With the program's stack, where it made the call.
            const failed = new TypeErr(e.message);
            defineProperty(failed, "stack", { value: error.stack, writable: true, configurable: true });
            return reject(failed);
          }
          pending[id] = { resolve, reject, error };
        }]);
      });
    };
    apply(weakAdd, tools, [invoke]);
    return invoke;
  };

  const table = (make) => {
    const made = create(null);
    return new Px(freeze({}), {
      __proto__: null,
      get(target, key) {
        if (!isName(key)) return undefined;
        const known = made[key];
        return known !== undefined ? known : (made[key] = make(key));
      },
    });
  };

  const mcp = table((server) => table((name) => tool(server, name)));
  // `capabilities.<name>(args)`: a call like a tool's, which the host runs as a program.
  const capabilities = table((name) => tool(null, name));

  const settle = (id, ok, payload) => {
    const entry = pending[id];
    if (entry === undefined) return;
    delete pending[id];
    if (ok) {
      entry.resolve(payload);
    } else {
      entry.error.message = payload;
      entry.reject(entry.error);
    }
  };

  // The probes of an instrumented program (pml_structure's `instrument` module): each returns
  // its last argument, or for `s` a function that calls it.
  const switches = create(null);
  // Each loop body entered, once per iteration vector around it: [probe, that vector, how
  // many times it was entered], in the order first entered; found by probe for bodies
  // outside any other (`top`, no key to build), by "probe,i,j..." for the others.
  const loops = list();
  const top = list();
  const counts = create(null);
  // The loop body entered last: its probe (0: none yet) and the iteration vector around it.
  let lastLoop = 0;
  let lastLoopAround = 0;
  // Calls of local functions made so far (each call's token).
  let invocations = 0;
  // Calls `resolved` or `rejected` when promise `p` settles; false if that cannot be known
  // (a program that made its promises' species throw).
  // (`util.observe`: attached as `then` attaches it, but the program's rejection stays its
  // own to handle, or to leave unhandled.)
  const observe = util.observe;
  const settles = (p, resolved, rejected) => {
    try {
      return observe(p, then, resolved, rejected);
    } catch (e) {
      return false;
    }
  };
  // Probe `k` in the body run `it`, as a key.
  const runKey = (k, it) => {
    let key = "" + k;
    if (it !== 0) for (let i = 0; i < it.length; i++) key += "," + it[i];
    return key;
  };
  const extend = (it, n) => {
    const out = list();
    if (it !== 0) for (let i = 0; i < it.length; i++) out[i] = it[i];
    out[out.length] = n;
    return out;
  };
  const probes = freeze({
    __proto__: null,
    // The call at site `k`: `f` called with what it was called with, `this` included. A
    // method, so not a constructor, when `f` is none (a tool's function): `new` of it throws
    // as the tool's own would, and makes no call.
    s: (k, it, f) => {
      if (typeof f !== "function") return f;
      const call = (self, a) => {
        site = k;
        siteIteration = it;
        try {
          return apply(f, self, a);
        } finally {
          site = 0;
          siteIteration = 0;
        }
      };
      if (!constructs(f)) return ({ f(...a) { return call(this, a); } }).f;
      return function (...a) { return call(this, a); };
    },
    b: (k, it, v) => {
      if (reportsLeft > 0) {
        reportsLeft--;
        record(1, k, it);
      } else {
        if (unreported === undefined) unreported = new U32(8192);
        // Bounded: the older half of too many that never ended (each threw) is forgotten.
        if (unreportedOpen === 8192) {
          for (let i = 0; i < 4096; i++) unreported[i] = unreported[i + 4096];
          unreportedOpen = 4096;
        }
        unreported[unreportedOpen++] = k;
        skipped++;
      }
      return v;
    },
    t: (ks, it) => { for (let i = 0; i < ks.length; i++) record(11, ks[i], it); },
    p: (v) => typeof v === "string" ? ToObject(v) : v,
    e: (k, it, v) => {
      if (unreportedOpen > 0 && unreported[unreportedOpen - 1] === k) {
        unreportedOpen--;
        return v;
      }
      record(2, k, it);
      record(3, k, it, show(v, 200));
      if (wants[k] === true) {
        const text = plain(v);
        if (text !== undefined) record(8, k, it, text);
      }
      return v;
    },
    d: (k, it, v) => { record(4, k, it, v ? 1 : 0); return v; },
    n: (k, it, v) => { record(4, k, it, v == null ? 1 : 0); return v; },
    // A switch under way, by probe and body run: two runs of one switch (iterations of a
    // loop, calls of a function, elements of a fork) may wait in their case tests at once.
    w: (k, it, v) => { switches[runKey(k, it)] = { v }; return v; },
    c: (k, it, i, t) => {
      const key = runKey(k, it);
      const open = switches[key];
      if (open !== undefined && t === open.v) {
        switches[key] = undefined;
        record(4, k, it, i);
      }
      return t;
    },
    x: (k, it) => {
      const key = runKey(k, it);
      if (switches[key] !== undefined) {
        switches[key] = undefined;
        record(4, k, it, -1);
      }
    },
    i: (k, it) => {
      lastLoop = k;
      lastLoopAround = it;
      let entry;
      if (it === 0) {
        entry = top[k];
        if (entry === undefined) top[k] = entry = [k, 0, 0];
      } else {
        const key = runKey(k, it);
        entry = counts[key];
        if (entry === undefined) counts[key] = entry = [k, it, 0];
      }
      const n = entry[2];
      if (n === 0) loops[loops.length] = entry;
      entry[2] = n + 1;
      return extend(it, n);
    },
    h: (k, it, f) => typeof f !== "function" ? f : function (...a) {
      const token = ++invocations;
      record(9, k, it, token);
      let v;
      try {
        v = apply(f, this, a);
      } catch (e) {
        record(10, token, 0, 0);
        throw e;
      }
      if (!isPromise(v) || !settles(v, () => { record(10, token, 0, 1); }, () => { record(10, token, 0, 0); })) {
        record(10, token, 0, 1);
      }
      return v;
    },
    f: (k, it, p) => { record(5, k, it); return p; },
    // The value of an object destructuring: V8's words when there is nothing to destructure
    // (QuickJS says `Cannot convert undefined or null to object`).
    o: (v, kind, key, text) => {
      if (kind >= 4) {
        // An array pattern's value: iterable, or V8's words (a proxy is left to the engine:
        // reading its iterator here would run its trap once more).
        if (v !== undefined && v !== null && (isProxy(v) || typeof v[iteratorKey] === "function")) return v;
        if (kind === 4) throw new TypeErr(`${text} is not iterable`);
        if (kind === 5) throw new TypeErr(`${text} is not a function or its return value is not iterable`);
        const type = typeof v;
        const said = v === null ? "object null"
          : type === "object" || type === "undefined" || type === "function" ? type
          : type === "symbol" ? `symbol ${Str(v)}` : `${type} ${Str(v)}`;
        throw new TypeErr(`${said} is not iterable (cannot read property Symbol(Symbol.iterator))`);
      }
      if (v !== undefined && v !== null) return v;
      const what = v === null ? "null" : "undefined";
      throw new TypeErr(kind === 0
        ? `Cannot destructure property '${key}' of '${text}' as it is ${what}.`
        : kind === 1 ? `Cannot read properties of ${what} (reading '${key}')`
        : kind === 3 ? `Cannot read properties of ${what}` : `Cannot destructure '${text}' as it is ${what}.`);
    },
    // The object of `key in v`: V8's `TypeError` when it is no object (QuickJS says `invalid
    // 'in' operand`), the value otherwise.
    k: (v, key) => {
      if ((typeof v === "object" && v !== null) || typeof v === "function") return v;
      const text = (x) => typeof x === "symbol" ? apply(symbolText, x, []) : Str(x);
      throw new TypeErr(`Cannot use 'in' operator to search for '${text(key)}' in ${text(v)}`);
    },
    j: (k, it, p) => {
      if (isPromise(p)) settles(p, () => { record(6, k, it, 1); }, () => { record(6, k, it, 0); });
      return p;
    },
  });
  // At the end: [[probe, iteration, count] per loop body and iteration vector around it,
  // the loop body entered last, how many operations ran unreported].
  const iterations = () => {
    const out = list();
    for (let i = 0; i < loops.length; i++) {
      const loop = loops[i];
      out[i] = [loop[0], loop[1], loop[2]];
    }
    return [out, lastLoop === 0 ? 0 : [lastLoop, lastLoopAround], skipped];
  };

  // Node's console (`console.Console` over a stream): each call writes one `util.format`ted
  // text; `group` indents what follows by two spaces per level; `dir`, `count`, `assert`,
  // `trace` and `time*` write what Node writes (with QuickJS's frames and the millisecond
  // clock), `table` draws Node's table.
  const format = util.format;
  const inspectValue = util.inspect;
  let indent = "";
  const write = (level, text) => {
    if (indent !== "") {
      let out = indent;
      let last = 0;
      for (let i = 0; i < text.length; i++) {
        if (text[i] === "\n") {
          out += apply(sliceText, text, [last, i + 1]) + indent;
          last = i + 1;
        }
      }
      text = out + apply(sliceText, text, [last]);
    }
    record(7, level, 0, text);
  };
  const log = (level) => (...args) => { write(level, format(args)); };
  const counted = create(null);
  const timers = create(null);
  // The real clock, not the one a resumed run replays (`READS` is installed later).
  const now = Date.now;
  // Node's formatTime for durations under a minute.
  const toFixed = Number.prototype.toFixed;
  const elapsed = (ms) => ms >= 1000 ? `${apply(toFixed, ms / 1000, [3])}s` : `${+apply(toFixed, ms, [3])}ms`;
  // `console.table` (Node 20's `internal/cli_table`: left-aligned cells, widths in terminal
  // columns). Entries are read as data properties (a getter's cell is empty).
  const cell = (v) => inspectValue(v, {
    depth: v !== null && typeof v === "object" && !isArray(v) && keys(v).length > 2 ? -1 : 0,
    maxArrayLength: 3,
    breakLength: 1 / 0,
  });
  const dataOf = (object, key) => {
    const d = describe(object, key);
    return d !== undefined && hasOwn(d, "value") ? [d.value] : undefined;
  };
  const drawTable = (data, properties) => {
    let head;
    let columns;
    const indices = (n) => {
      const out = [];
      for (let i = 0; i < n; i++) out[i] = cell(i);
      return out;
    };
    const entries = util.entriesOf(data);
    if (entries !== undefined && entries.map) {
      const ks = [];
      const vs = [];
      for (let i = 0; i < entries.list.length; i++) {
        ks[i] = cell(entries.list[i][0]);
        vs[i] = cell(entries.list[i][1]);
      }
      head = ["(iteration index)", "Key", "Values"];
      columns = [indices(ks.length), ks, vs];
    } else if (entries !== undefined) {
      const vs = [];
      for (let i = 0; i < entries.list.length; i++) vs[i] = cell(entries.list[i]);
      head = ["(iteration index)", "Values"];
      columns = [indices(vs.length), vs];
    } else {
      const map = create(null);
      const names = [];
      let primitives = false;
      const values = [];
      const rows = keys(data);
      for (let i = 0; i < rows.length; i++) {
        const found = dataOf(data, rows[i]);
        const item = found === undefined ? undefined : found[0];
        const primitive = item === null || (typeof item !== "function" && typeof item !== "object");
        if (properties === undefined && primitive) {
          primitives = true;
          values[i] = cell(item);
        } else {
          const ks = properties !== undefined ? properties : keys(item);
          for (let j = 0; j < ks.length; j++) {
            const key = ks[j];
            if (map[key] === undefined) {
              map[key] = [];
              names[names.length] = key;
            }
            const value = primitive ? undefined : dataOf(item, key);
            map[key][i] = value === undefined ? "" : cell(value[0]);
          }
        }
      }
      head = ["(index)"];
      columns = [rows];
      for (let i = 0; i < names.length; i++) {
        head[head.length] = `${names[i]}`;
        columns[columns.length] = map[names[i]];
      }
      if (primitives) {
        head[head.length] = "Values";
        columns[columns.length] = values;
      }
    }
    const widths = [];
    let longest = 0;
    for (let i = 0; i < columns.length; i++) if (columns[i].length > longest) longest = columns[i].length;
    const rows = [];
    const width = util.getStringWidth;
    for (let i = 0; i < head.length; i++) {
      widths[i] = width(head[i]);
      for (let j = 0; j < longest; j++) {
        if (rows[j] === undefined) rows[j] = [];
        const value = hasOwn(columns[i], j) && columns[i][j] !== undefined ? columns[i][j] : "";
        rows[j][i] = value;
        const w = width(value);
        if (w > widths[i]) widths[i] = w;
      }
    }
    const line = (left, middle, right) => {
      let out = left;
      for (let i = 0; i < widths.length; i++) {
        out += (i === 0 ? "" : middle) + apply(repeatText, "─", [widths[i] + 2]);
      }
      return out + right;
    };
    const render = (row) => {
      let out = "│ ";
      for (let i = 0; i < row.length; i++) {
        out += (i === 0 ? "" : " │ ") + row[i] + apply(repeatText, " ", [widths[i] - width(row[i])]);
      }
      return out + " │";
    };
    let out = line("┌", "┬", "┐") + "\n" + render(head) + "\n" + line("├", "┼", "┤") + "\n";
    for (let i = 0; i < rows.length; i++) out += render(rows[i]) + "\n";
    return out + line("└", "┴", "┘");
  };
  // Its methods are the program's to replace, as Node's are (`console.log = ...` changes what
  // the program's own calls print); nothing of pml calls them.
  const console = {
    log: log(0), info: log(1), warn: log(2), error: log(3), debug: log(4), dirxml: log(0),
    table: (data, properties) => {
      if (data === null || typeof data !== "object") return write(0, format([data]));
      write(0, drawTable(data, isArray(properties) ? properties : undefined));
    },
    trace: function trace(...args) {
      const error = new Err("");
      if (capture !== undefined) capture(error, trace);
      let frames = typeof error.stack === "string" ? error.stack : "";
      while (frames.length > 0 && frames[frames.length - 1] === "\n") frames = apply(sliceText, frames, [0, frames.length - 1]);
      const head = args.length === 0 ? "Trace" : `Trace: ${format(args)}`;
      write(3, frames === "" ? head : `${head}\n${frames}`);
    },
    time: (label = "default") => {
      label = `${label}`;
      if (timers[label] !== undefined) return write(2, `Label '${label}' already exists for console.time()`);
      timers[label] = now();
    },
    timeEnd: (label = "default") => {
      label = `${label}`;
      const started = timers[label];
      if (started === undefined) return write(2, `No such label '${label}' for console.timeEnd()`);
      timers[label] = undefined;
      write(1, `${label}: ${elapsed(now() - started)}`);
    },
    timeLog: (label = "default", ...args) => {
      label = `${label}`;
      const started = timers[label];
      if (started === undefined) return write(2, `No such label '${label}' for console.timeLog()`);
      write(1, args.length === 0 ? `${label}: ${elapsed(now() - started)}` : `${label}: ${elapsed(now() - started)} ${format(args)}`);
    },
    clear: () => {},
    dir: (value, options) => {
      write(0, inspectValue(value, typeof options === "object" && options !== null ? options : undefined));
    },
    assert: (ok, ...args) => {
      if (ok) return;
      if (args.length === 0) return write(2, "Assertion failed");
      // Node writes `${args[0]}`: an object whose `toString` is the program's is inspected.
      const first = args[0];
      const text = typeof first === "symbol" ? apply(symbolText, first, [])
        : (typeof first !== "object" && typeof first !== "function") || first === null || util.hasBuiltInToString(first) ? Str(first)
        : inspectValue(first);
      args[0] = `Assertion failed: ${text}`;
      write(2, format(args));
    },
    count: (label = "default") => {
      label = `${label}`;
      const n = (counted[label] || 0) + 1;
      counted[label] = n;
      write(1, `${label}: ${n}`);
    },
    countReset: (label = "default") => {
      label = `${label}`;
      if (counted[label] === undefined) write(2, `Count for '${label}' does not exist`);
      else counted[label] = 0;
    },
    group: (...args) => {
      if (args.length > 0) write(0, format(args));
      indent += "  ";
    },
    groupCollapsed: (...args) => {
      if (args.length > 0) write(0, format(args));
      indent += "  ";
    },
    groupEnd: () => { indent = apply(sliceText, indent, [0, indent.length - 2]); },
  };

  // Timers as Node's: `setTimeout(callback, delay, ...args)` calls `callback(...args)` once,
  // after `delay` ms (not a number in 1..2^31-1: 1 ms), `setInterval` every `delay` ms,
  // `setImmediate` as soon as the program waits; each returns an object (`Timeout`,
  // `Immediate`: `ref`, `unref`, `hasRef`, `refresh`, its id as a primitive) that `clear*`
  // takes, as its id does. The host keeps when each is due (`util.schedule(id, ms)`,
  // `util.unschedule(id)`) and calls `fire(id)` then; the callbacks live here.
  const schedule = util.schedule;
  const unschedule = util.unschedule;
  // By id; no prototype, and nothing the program can replace (a `Map`'s methods are its).
  const timerTable = create(null);
  let lastTimer = 0;
  const TIMEOUT_MAX = 2147483647;
  const received = (v) => {
    if (v === undefined || v === null) return ` Received ${v}`;
    if (typeof v === "object") {
      const name = protoOf(v) && protoOf(v).constructor && protoOf(v).constructor.name;
      return name ? ` Received an instance of ${name}` : " Received [Object: null prototype]";
    }
    let shown = typeof v === "string" ? `'${v.length > 25 ? apply(sliceText, v, [0, 25]) + "..." : v}'` : `${String(v)}`;
    if (typeof v === "bigint") shown += "n";
    return ` Received type ${typeof v} (${shown})`;
  };
  const callbackError = (v) => {
    const e = new TypeErr(`The "callback" argument must be of type function.${received(v)}`);
    e.code = "ERR_INVALID_ARG_TYPE";
    return e;
  };
  let timerId;
  class Timer {
    #id;
    #kind;
    constructor(id, kind) { this.#id = id; this.#kind = kind; }
    ref() { return this; }
    unref() { return this; }
    hasRef() { return true; }
    refresh() {
      const t = timerTable[this.#id];
      if (t && this.#kind !== "Immediate") { unschedule(this.#id); schedule(this.#id, t.delay); }
      return this;
    }
    close() { clear(this.#id); return this; }
    [Symbol.toPrimitive]() { return this.#id; }
    // A timer's id, as `clearTimeout` reads it: not through what the program can replace.
    static { timerId = (t) => #id in t ? t.#id : undefined; }
  }
  const idOf = (t) => {
    if (t !== null && typeof t === "object") return timerId(t);
    if (typeof t === "number" || typeof t === "string") return +t;
    return undefined;
  };
  const clear = (t) => {
    const id = idOf(t);
    if (id !== undefined && timerTable[id] !== undefined) {
      delete timerTable[id];
      unschedule(id);
    }
  };
  const add = (callback, delay, args, repeat, kind) => {
    if (typeof callback !== "function") throw callbackError(callback);
    delay = kind === "Immediate" ? 0 : +delay;
    if (kind !== "Immediate" && !(delay >= 1 && delay <= TIMEOUT_MAX)) delay = 1;
    const id = ++lastTimer;
    timerTable[id] = { callback, args, repeat, delay };
    schedule(id, delay);
    return new Timer(id, kind);
  };
  const fire = (id) => {
    const t = timerTable[id];
    if (!t) return;
    if (t.repeat) schedule(id, t.delay);
    else delete timerTable[id];
    apply(t.callback, undefined, t.args);
  };
  const timerGlobals = {
    setTimeout: function setTimeout(callback, delay, ...args) { return add(callback, delay, args, false, "Timeout"); },
    setInterval: function setInterval(callback, delay, ...args) { return add(callback, delay, args, true, "Timeout"); },
    setImmediate: function setImmediate(callback, ...args) { return add(callback, 0, args, false, "Immediate"); },
    clearTimeout: function clearTimeout(t) { clear(t); },
    clearInterval: function clearInterval(t) { clear(t); },
    clearImmediate: function clearImmediate(t) { clear(t); },
  };

  return [mcp, settle, probes, console, iterations, capabilities, want, timerGlobals, fire];
})"#;

/// Routes the program's reads of the clock and of `Math.random()` through the native
/// `read(what, live) -> value` (0 the clock, 1 `Math.random`): `Date.now`, `Date` (called or
/// constructed without arguments; with arguments it is the original) and `Math.random` are
/// replaced by functions that read the real value and return what `read` says. The new `Date`
/// is the original in every other way: the same prototype (whose `constructor` it becomes, so
/// `instanceof` and subclasses work), `parse`, `UTC`, `name`, `length`.
pub(super) const READS: &str = r#"(function (read) {
  const RealDate = Date;
  const realNow = RealDate.now;
  const realRandom = Math.random;
  const construct = Reflect.construct;
  const define = Object.defineProperty;
  const method = (value) => ({ value, writable: true, enumerable: false, configurable: true });
  const now = { now() { return read(0, realNow()); } }.now;
  const Replaced = function Date(...values) {
    if (new.target === undefined) return construct(RealDate, [now()]).toString();
    return construct(RealDate, values.length === 0 ? [now()] : values, new.target);
  };
  define(Replaced, "length", { value: 7, writable: false, enumerable: false, configurable: true });
  define(Replaced, "prototype", { value: RealDate.prototype, writable: false, enumerable: false, configurable: false });
  define(RealDate.prototype, "constructor", method(Replaced));
  define(Replaced, "now", method(now));
  define(Replaced, "parse", method(RealDate.parse));
  define(Replaced, "UTC", method(RealDate.UTC));
  define(globalThis, "Date", method(Replaced));
  const random = { random() { return read(1, realRandom()); } }.random;
  define(Math, "random", method(random));
})"#;

/// What `Function.prototype.toString` gives for a function whose text cannot be shown.
const NATIVE_CODE: &str = "function () { [native code] }";

/// Replaces `Function.prototype.toString` with one that shows the program's functions as they
/// are written: a text holding the probe object's name (`namespace`) goes through the native
/// `original(text)`; any other text is the engine's. The replacement passes for the original:
/// same name, length and property attributes, and its own text is native code's.
pub(super) const TO_STRING: &str = r#"(function (original, namespace) {
  const real = Function.prototype.toString;
  const apply = Reflect.apply;
  const includes = String.prototype.includes;
  const shown = {
    toString() {
      if (this === shown) return "function toString() { [native code] }";
      const text = apply(real, this, []);
      return apply(includes, text, [namespace]) ? original(text) : text;
    },
  }.toString;
  Object.defineProperty(Function.prototype, "toString", {
    __proto__: null, value: shown, writable: true, enumerable: false, configurable: true,
  });
})"#;

/// One program's connection to its caller and its host.
pub(crate) struct Link {
    /// Issues the [`Answers`] handle sent with each call.
    pub line: Arc<AnswerLine>,
    /// Answers (and the caller's cancel).
    pub inbox: Receiver<Inbound>,
    /// To the caller: calls, phases, the outcome.
    pub events: Sender<Event>,
}

/// Time given back to a program's limit ([`Calls::handled_since`]) the caller's watchdog may not
/// know of: past this much, the worker tells it what is left. Its deadline is later than what it
/// was told by as much, so never earlier than the worker's.
pub(crate) const CREDIT_NOTICE: Duration = Duration::from_millis(10);

/// Reports are sent to the caller in batches of at most this many (and before each call).
const BATCH: usize = 4096;

/// Operations started and not ended, and calls of local functions under way, the worker keeps
/// track of at most (each: past it, the oldest operation is reported failed; a new call is not
/// traced).
const MAX_OPEN: usize = 10_000;

/// The state behind the native functions: the calls made and where they go, and what the
/// probes of an instrumented program reported.
struct Calls {
    /// The last id given out.
    last: Cell<u64>,
    /// Ids of calls made and not answered yet.
    outstanding: RefCell<HashSet<u64>>,
    events: Sender<Event>,
    line: Arc<AnswerLine>,
    /// Set when a call could not be sent: the caller is gone.
    caller_gone: Cell<bool>,
    /// Reported and not sent yet.
    reports: RefCell<Vec<Report>>,
    /// Operations started and not ended: probe, iteration, when. An operation that throws
    /// never ends: the next end of an operation below it (or the end of the run) finds it.
    started: RefCell<Vec<(u32, Vec<u32>, Instant)>>,
    /// The index in `reports` of the last operation ended, for its preview (`record(3, ...)`).
    last_ended: Cell<Option<usize>>,
    /// Calls of local functions under way, by token.
    invoked: RefCell<HashMap<u64, Started>>,
    /// The worker's clock: time pml spends handling the program's calls and reports
    /// (arguments read, calls sent, reports kept, answers turned into values) is not the
    /// program's own JavaScript, and is given back to its time limit
    /// ([`TaskClock::credit`]).
    clock: Rc<TaskClock>,
    /// Time given back since the caller was last told what is left: its watchdog counts it
    /// once it is told ([`CREDIT_NOTICE`]).
    untold: Cell<Duration>,
    /// When the program's current call started being handled (the tool function entered).
    begun: Cell<Option<Instant>>,
    /// The program's timers: when each is due (then in the order they were set), by id.
    timers: RefCell<std::collections::BTreeMap<(Instant, u64), u32>>,
    /// The last order given to a timer.
    timer_order: Cell<u64>,
}

impl Calls {
    /// Timer `id` is due in `ms` milliseconds.
    fn schedule(&self, id: u32, ms: f64) {
        let order = self.timer_order.get() + 1;
        self.timer_order.set(order);
        let due = Instant::now() + Duration::from_secs_f64(ms.max(0.0) / 1e3);
        self.timers.borrow_mut().insert((due, order), id);
    }

    /// Timer `id` is not due any more.
    fn unschedule(&self, id: u32) {
        self.timers.borrow_mut().retain(|_, t| *t != id);
    }

    /// When the next timer is due.
    fn next_timer(&self) -> Option<Instant> {
        self.timers.borrow().keys().next().map(|&(due, _)| due)
    }

    /// The first timer due by now, taken off the schedule.
    fn take_due_timer(&self) -> Option<u32> {
        let mut timers = self.timers.borrow_mut();
        let (&(due, order), &id) = timers.iter().next()?;
        (due <= Instant::now()).then(|| {
            timers.remove(&(due, order));
            id
        })
    }

    /// pml handled something from `started` to now: not the program's time (see
    /// [`Calls::clock`]). The caller is told what is left once the time given back since it
    /// was last told reaches [`CREDIT_NOTICE`].
    fn handled_since(&self, started: Instant) {
        let spent = started.elapsed();
        self.clock.credit(spent);
        let untold = self.untold.get() + spent;
        if untold < CREDIT_NOTICE {
            self.untold.set(untold);
            return;
        }
        self.untold.set(Duration::ZERO);
        if let Some(deadline) = self.clock.deadline.get() {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.events.send(Event::Running(left)).is_err() {
                self.caller_gone.set(true);
            }
        }
    }

    /// The native `call(server, tool, argumentsJson, site, iteration, stack)`: sends the call
    /// (after what was reported so far), returns its id. No arguments (`undefined` text): the
    /// call carries `null`, sent without arguments.
    fn call(
        &self,
        ctx: &Ctx<'_>,
        server: Option<String>,
        tool: String,
        text: Option<&str>,
        (site, iteration, stack): (u32, Vec<u32>, Option<String>),
    ) -> rquickjs::Result<f64> {
        // `JSON.stringify` output; lone surrogates become pml text (`pml_jstext`), nesting up to
        // `pml_jstext::MAX_DEPTH`.
        let arguments: serde_json::Value = match text {
            None => serde_json::Value::Null,
            Some(text) => pml_jstext::parse_js_json(text).map_err(|e| {
                let callee = match &server {
                    Some(server) => format!("{server}.{tool}"),
                    None => format!("capabilities.{tool}"),
                };
                Exception::throw_type(
                    ctx,
                    &format!("the arguments of {callee} cannot be sent: {e}"),
                )
            })?,
        };
        let id = self.last.get() + 1;
        self.last.set(id);
        let call = HostCall {
            id,
            capability: server.is_none(),
            server: server.unwrap_or_default(),
            tool,
            arguments,
            site,
            iteration,
            stack,
        };
        self.flush();
        if self
            .events
            .send(Event::Call(call, Answers::issue(&self.line)))
            .is_err()
        {
            self.caller_gone.set(true);
            return Err(Exception::throw_internal(ctx, "the host is gone"));
        }
        self.outstanding.borrow_mut().insert(id);
        // Exact: a run cannot make 2^53 calls.
        Ok(id as f64)
    }

    /// The native `record(code, probe, iteration, extra)` behind the probes and `console`
    /// (codes: 1 operation start, 2 end, 3 the ended operation's preview, 4 decision outcome,
    /// 5 fork, 6 join, 7 console output with the level as `probe`, 9 a call of a local function
    /// starts (its token as `extra`), 10 it ended (the token as `probe`, success as `extra`),
    /// 11 a `catch` handler starts whose `try` block has operation `probe`, in the body run
    /// `iteration` (those started there that never ended threw)).
    /// `at`: when the probe reported.
    fn record(&self, code: u8, probe: u32, iteration: Vec<u32>, extra: Option<Extra>, at: Instant) {
        let what = match (code, extra) {
            (1, _) => {
                let mut started = self.started.borrow_mut();
                // Bounded: the oldest of too many operations that started and never ended
                // (each threw) is reported as failed now.
                let oldest = match started.len() >= MAX_OPEN {
                    true => Some(started.remove(0)),
                    false => None,
                };
                started.push((probe, iteration, at));
                drop(started);
                if let Some(oldest) = oldest {
                    self.threw(oldest, at);
                }
                return;
            }
            (2, _) => {
                self.unwind(probe, at);
                let started = match self.started.borrow_mut().pop() {
                    Some((_, _, since)) => since,
                    None => at,
                };
                self.last_ended.set(Some(self.reports.borrow().len()));
                Reported::Operation {
                    probe,
                    iteration,
                    started,
                    ok: true,
                    preview: None,
                }
            }
            (11, _) => {
                self.caught(probe, &iteration, at);
                return;
            }
            (3, Some(Extra::Text(text))) => {
                let mut reports = self.reports.borrow_mut();
                if let Some(Report {
                    what: Reported::Operation { preview, .. },
                    ..
                }) = self.last_ended.take().and_then(|i| reports.get_mut(i))
                {
                    *preview = Some(text);
                }
                return;
            }
            (4, Some(Extra::Number(outcome))) => Reported::Outcome {
                probe,
                iteration,
                outcome: outcome as i64,
            },
            (5, _) => Reported::Fork { probe, iteration },
            (6, Some(Extra::Number(ok))) => Reported::Join {
                probe,
                iteration,
                ok: ok != 0.0,
            },
            (8, Some(Extra::Text(text))) => match pml_jstext::parse_js_json(&text) {
                Ok(value) => Reported::Value {
                    probe,
                    iteration,
                    value,
                },
                Err(_) => return,
            },
            (9, Some(Extra::Number(token))) => {
                let mut invoked = self.invoked.borrow_mut();
                // Bounded: past that many calls under way, a call is not traced.
                if invoked.len() < MAX_OPEN {
                    invoked.insert(token as u64, (probe, iteration, at));
                }
                return;
            }
            (10, Some(Extra::Number(ok))) => {
                let Some((probe, iteration, started)) =
                    self.invoked.borrow_mut().remove(&u64::from(probe))
                else {
                    return;
                };
                Reported::Operation {
                    probe,
                    iteration,
                    started,
                    ok: ok != 0.0,
                    preview: None,
                }
            }
            (7, Some(Extra::Text(text))) => Reported::Console {
                level: ConsoleLevel::from_code(probe.into()),
                text,
            },
            _ => return,
        };
        self.push(Report { at, what });
    }

    /// A report that does not hold what a probe reports: said to the host, which ends the run.
    fn invalid(&self, why: String) {
        self.push(Report {
            at: Instant::now(),
            what: Reported::Invalid { why },
        });
    }

    /// Operations above the last start of `probe` never ended: they threw.
    fn unwind(&self, probe: u32, at: Instant) {
        loop {
            let top = {
                let mut started = self.started.borrow_mut();
                match started.last() {
                    Some((p, _, _))
                        if *p != probe && started.iter().any(|(q, _, _)| *q == probe) =>
                    {
                        started.pop()
                    }
                    _ => None,
                }
            };
            let Some(top) = top else {
                return;
            };
            self.threw(top, at);
        }
    }

    /// A handler of a `try` whose block has operation `probe` starts, in the body run
    /// `iteration` (the iteration vector around the `try`): the runs of that operation started
    /// there (their vectors begin with it) that never ended threw. None of them can still be
    /// running: an operation starts and ends in one synchronous stretch, and one around the
    /// handler (a local function called in its callback) started before its block.
    fn caught(&self, probe: u32, iteration: &[u32], at: Instant) {
        let threw: Vec<Started> = {
            let mut started = self.started.borrow_mut();
            let (threw, open) = std::mem::take(&mut *started)
                .into_iter()
                .partition(|(p, it, _)| *p == probe && it.starts_with(iteration));
            *started = open;
            threw
        };
        for s in threw {
            self.threw(s, at);
        }
    }

    /// The operation `(probe, iteration, started)` never ended: it threw (noticed at `at`).
    fn threw(&self, (probe, iteration, started): Started, at: Instant) {
        self.push(Report {
            at,
            what: Reported::Operation {
                probe,
                iteration,
                started,
                ok: false,
                preview: None,
            },
        });
    }

    /// At the end of the run: operations still started never ended (the innermost last).
    fn unwind_all(&self, at: Instant) {
        let left = std::mem::take(&mut *self.started.borrow_mut());
        for (probe, iteration, started) in left {
            self.push(Report {
                at,
                what: Reported::Unfinished {
                    probe,
                    iteration,
                    started,
                },
            });
        }
    }

    fn push(&self, report: Report) {
        let full = {
            let mut reports = self.reports.borrow_mut();
            reports.push(report);
            reports.len() >= BATCH
        };
        if full {
            self.flush();
        }
    }

    /// Sends what was reported so far.
    fn flush(&self) {
        let reports = std::mem::take(&mut *self.reports.borrow_mut());
        self.last_ended.set(None);
        if !reports.is_empty() && self.events.send(Event::Reports(reports)).is_err() {
            self.caller_gone.set(true);
        }
    }
}

/// What a probe started: probe, iteration vector, when.
type Started = (u32, Vec<u32>, Instant);

/// The last argument of `record`: a number or a text.
enum Extra {
    Number(f64),
    Text(String),
}

/// An iteration vector from JavaScript: `0` (none) or an array of at most
/// [`crate::MAX_ITERATION_DEPTH`] indices (integers from 0 to 2^32 - 1), read as plain data
/// (own elements only). Anything else is an error saying why (the caller reports it as
/// [`Reported::Invalid`]).
fn iteration_of(value: &Value<'_>) -> Result<Vec<u32>, String> {
    if value.as_int() == Some(0) || value.as_float() == Some(0.0) {
        return Ok(Vec::new());
    }
    let Some(array) = value.as_array() else {
        return Err("an iteration vector that is not an array".to_owned());
    };
    if array.len() > crate::MAX_ITERATION_DEPTH {
        return Err(format!(
            "an iteration vector of {} entries (at most {})",
            array.len(),
            crate::MAX_ITERATION_DEPTH
        ));
    }
    let mut out = Vec::with_capacity(array.len());
    for n in array.iter::<Value>() {
        let n = n.ok().and_then(|n| n.as_number());
        match n {
            Some(n) if n >= 0.0 && n <= f64::from(u32::MAX) && n.fract() == 0.0 => {
                out.push(n as u32)
            }
            _ => return Err("an iteration vector holding something else than an index".into()),
        }
    }
    Ok(out)
}

/// What a program run brings to its context: its compiled source, `args`, probes, link to
/// the caller, and its limits' state.
pub(crate) struct Program<'a> {
    /// The script's file name in stack traces.
    pub name: &'a str,
    /// Bytecode of `(async function () {SOURCE\n})`.
    pub wrapper: &'a [u8],
    /// `args` as JSON text.
    pub args: &'a str,
    /// An instrumented program: the name of the probe object, which the wrapper takes.
    pub probes: Option<&'a str>,
    /// The text as written of the instrumented program's functions.
    pub originals: Option<Arc<dyn crate::OriginalText>>,
    /// Probes whose values the host wants.
    pub values: &'a [u32],
    /// Hears the reads of the clock and `Math.random()` ([`READS`]).
    pub reads: Option<Arc<dyn crate::Reads>>,
    /// Bytecode of [`READS`] and [`TO_STRING`].
    pub reads_script: &'a [u8],
    pub to_string_script: &'a [u8],
    pub link: &'a Link,
    /// The worker's clock: armed, counting from when the caller sent the program.
    pub clock: Rc<TaskClock>,
    /// Where the runtime's rejection tracker notes the promises rejected with no handler.
    pub unhandled: Unhandled,
}

/// The run a ready context's natives serve: set while its program runs.
type Current = Rc<RefCell<Option<Rc<Calls>>>>;

/// The promises rejected while no handler was attached to them, in the order they were, with
/// their reasons; a promise leaves when a handler is attached after all (what Node keeps for
/// its `unhandledRejection`). Only programs are watched.
#[derive(Default)]
pub(crate) struct Rejections {
    /// `None` outside a program's run.
    watching: Option<Vec<(Persistent<Value<'static>>, Persistent<Value<'static>>)>>,
    /// While a probe attaches its own reaction to a program's promise: that handler is pml's,
    /// not the program's, and takes no rejection back.
    probing: bool,
}

pub(crate) type Unhandled = Rc<RefCell<Rejections>>;

/// The runtime's host rejection tracker: QuickJS calls it with `handled == false` when a
/// promise with no handler is rejected, and with `handled == true` when such a promise gets
/// its first handler.
pub(crate) fn track_rejection<'js>(
    unhandled: &Unhandled,
    ctx: Ctx<'js>,
    promise: Value<'js>,
    reason: Value<'js>,
    handled: bool,
) {
    let Ok(mut rejections) = unhandled.try_borrow_mut() else {
        return;
    };
    if handled && rejections.probing {
        return;
    }
    let Some(list) = rejections.watching.as_mut() else {
        return;
    };
    if handled {
        list.retain(|(p, _)| p.clone().restore(&ctx).is_ok_and(|p| p != promise));
    } else {
        list.push((
            Persistent::save(&ctx, promise),
            Persistent::save(&ctx, reason),
        ));
    }
}

/// The native `observe(p, then, resolved, rejected)` of [`SETUP`]'s probes: `then.call(p,
/// resolved, rejected)` (the trace hears when a local function's promise settles) without
/// making `p` handled in the program's eyes, so that a rejection the program leaves alone
/// still ends its run as in Node.
fn observe<'js>(
    unhandled: &Unhandled,
    p: Value<'js>,
    then: Function<'js>,
    resolved: Value<'js>,
    rejected: Value<'js>,
) -> rquickjs::Result<bool> {
    unhandled.borrow_mut().probing = true;
    let attached = then.call::<_, Value>((rquickjs::function::This(p.clone()), resolved, rejected));
    unhandled.borrow_mut().probing = false;
    attached?;
    unmark_handled(&p);
    Ok(true)
}

/// The head of QuickJS's `JSPromiseData` (`quickjs.c` of rquickjs-sys 0.14, not in its
/// headers): the promise's state, its two reaction lists, and whether a handler was ever
/// attached (`bool`, one byte).
#[repr(C)]
struct PromiseData {
    state: std::ffi::c_int,
    reactions: [[*mut std::ffi::c_void; 2]; 2],
    is_handled: u8,
}

/// Clears the "handled" flag `then` just set on promise `p`. QuickJS has no call for it; the
/// flag is written only when the state read through [`PromiseData`] is the one rquickjs reports
/// and the flag is set, as it must be right after `then`: a layout that differs is left alone
/// (rejections are then missed, never invented; `tests/it/program.rs` would fail).
fn unmark_handled(p: &Value<'_>) {
    let Some(promise) = p.as_promise() else {
        return;
    };
    let state = match promise.state() {
        PromiseState::Pending => 0,
        PromiseState::Resolved => 1,
        PromiseState::Rejected => 2,
    };
    let raw = p.as_raw();
    // SAFETY: `raw` is a live promise object (held by `p`); its opaque pointer is its
    // `JSPromiseData`, whose first fields `PromiseData` mirrors; only the flag byte is written.
    unsafe {
        let class = rquickjs::qjs::JS_GetClassID(raw);
        let data = rquickjs::qjs::JS_GetOpaque(raw, class).cast::<PromiseData>();
        if data.is_null() || (*data).state != state || (*data).is_handled != 1 {
            return;
        }
        (*data).is_handled = 0;
    }
}

/// The reason of the first promise still rejected with no handler, if any, but the program's
/// own (`program`), whose outcome is the run's: its caller awaits it.
fn first_unhandled<'js>(
    ctx: &Ctx<'js>,
    unhandled: &Unhandled,
    program: &rquickjs::Promise<'js>,
) -> Option<Value<'js>> {
    let list = unhandled
        .borrow_mut()
        .watching
        .as_mut()?
        .drain(..)
        .collect::<Vec<_>>();
    let program = program.clone().into_value();
    list.into_iter()
        .filter_map(|(promise, reason)| Some((promise.restore(ctx).ok()?, reason)))
        .find(|(promise, _)| *promise != program)
        .and_then(|(_, reason)| reason.restore(ctx).ok())
}

/// What ends a run whose promise was rejected with no handler, as Node 20 ends it (its
/// default `--unhandled-rejections=throw`): an error is thrown as it is; any other reason is
/// said in an `UnhandledPromiseRejection` error.
fn unhandled_rejection<'js>(ctx: &Ctx<'js>, reason: Value<'js>) -> Failure {
    if reason.as_object().is_some_and(|o| o.is_error()) {
        return super::classify(ctx, reason);
    }
    let said = said_without_side_effects(ctx, &reason);
    Failure::Threw {
        message: format!(
            "UnhandledPromiseRejection: This error originated either by throwing inside of an \
             async function without a catch block, or by rejecting a promise which was not \
             handled with .catch(). The promise rejected with the reason \"{said}\"."
        ),
        stack: None,
    }
}

/// `reason` as V8's `NoSideEffectsToString` says it in that message: a primitive as
/// `String()` writes it, `Symbol(description)`, `[object Array]`, and `#<Name>` for another
/// object (its constructor's name).
fn said_without_side_effects<'js>(ctx: &Ctx<'js>, reason: &Value<'js>) -> String {
    use rquickjs::convert::Coerced;
    if let Some(symbol) = reason.as_symbol() {
        let description = symbol
            .description()
            .ok()
            .and_then(|d| d.as_string().and_then(|s| s.to_string().ok()))
            .unwrap_or_default();
        return format!("Symbol({description})");
    }
    if let Some(object) = reason.as_object() {
        if reason.is_array() {
            return "[object Array]".to_owned();
        }
        if reason.is_function() {
            if let Ok(Coerced(text)) = reason.get::<Coerced<String>>() {
                return text;
            }
            ctx.catch();
            return "function".to_owned();
        }
        let name = object
            .get::<_, rquickjs::Object>("constructor")
            .and_then(|c| c.get::<_, String>("name"))
            .ok()
            .filter(|n| !n.is_empty());
        if name.is_none() {
            ctx.catch();
        }
        return format!("#<{}>", name.as_deref().unwrap_or("Object"));
    }
    match reason.get::<Coerced<String>>() {
        Ok(Coerced(text)) => text,
        Err(_) => {
            ctx.catch();
            String::new()
        }
    }
}

/// A program context made ready before its program comes ([`ready`]): the handles its run
/// binds. Dropped before its context.
pub(crate) struct Ready {
    current: Current,
    stringify: Persistent<Function<'static>>,
    settle: Persistent<Function<'static>>,
    probe_object: Persistent<Value<'static>>,
    /// What the program names `mcp` and `capabilities`: parameters of its wrapper (as `args`),
    /// not globals, as in Node where they are the parameters of the function it runs as.
    mcp: Persistent<Value<'static>>,
    capabilities: Persistent<Value<'static>>,
    iterations: Persistent<Function<'static>>,
    want: Persistent<Function<'static>>,
    /// `fire(id)`: runs timer `id`'s callback (see [`SETUP`]).
    fire: Persistent<Function<'static>>,
    /// Gives the engine's error hook the native that reads the culprits of the program's
    /// errors (`worker/node20.js`).
    culprits: Persistent<Function<'static>>,
}

/// The error of a native called with no run current (never, unless a context outlived its run).
fn no_run(ctx: &Ctx<'_>) -> rquickjs::Error {
    Exception::throw_message(ctx, "no program is running in this context")
}

/// Makes `ctx` (a fresh program context, `Intl` installed; `stringify` the [`STRINGIFY`]
/// function made in it) ready for a program, before one comes: the console's inspector and
/// [`SETUP`] run, and `mcp`, `console` and `capabilities` are globals, over natives that serve
/// whichever run is current ([`run_in`] sets it). Nothing of a program runs here: what a run
/// brings (its calls, the values it wants, `args`, its probes) is bound when it starts. This
/// is most of what making a program context costs (~1 ms), off the run's path.
pub(crate) fn ready<'js>(
    ctx: &Ctx<'js>,
    setup: &[u8],
    inspect: &[u8],
    stringify: Function<'js>,
    is_buffer: Function<'js>,
    culprits: Function<'js>,
    unhandled: &Unhandled,
) -> Result<Ready, Failure> {
    let run = |e| failure(ctx, e, Phase::Run);
    let current: Current = Rc::new(RefCell::new(None));
    let native = {
        let current = current.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  server: Option<String>,
                  tool: String,
                  text: Option<String>,
                  site: Opt<u32>,
                  iteration: Opt<Value<'js>>,
                  stack: Opt<Value<'js>>| {
                let Some(calls) = current.borrow().clone() else {
                    return Err(no_run(&ctx));
                };
                let iteration = match iteration.0.as_ref().map(iteration_of) {
                    Some(Ok(iteration)) => iteration,
                    None => Vec::new(),
                    Some(Err(why)) => {
                        calls.invalid(why);
                        Vec::new()
                    }
                };
                let stack = stack
                    .0
                    .and_then(|s| s.as_string().and_then(|s| s.to_string().ok()));
                let started = calls.begun.take().unwrap_or_else(Instant::now);
                let id = calls.call(
                    &ctx,
                    server,
                    tool,
                    text.as_deref(),
                    (site.0.unwrap_or(0), iteration, stack),
                );
                calls.handled_since(started);
                id
            },
        )
        .map_err(run)?
    };
    let begin = {
        let current = current.clone();
        Function::new(ctx.clone(), move || {
            if let Some(calls) = current.borrow().as_ref() {
                calls.begun.set(Some(Instant::now()));
            }
        })
        .map_err(run)?
    };
    let record = {
        let current = current.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  code: u8,
                  probe: u32,
                  iteration: Value<'js>,
                  extra: Opt<Value<'js>>| {
                let Some(calls) = current.borrow().clone() else {
                    return;
                };
                // Reading what came is pml's time too; the probe reported now.
                let started = Instant::now();
                let extra = extra.0.and_then(|v| {
                    if let Some(n) = v.as_number() {
                        Some(Extra::Number(n))
                    } else if code == 7 {
                        // Console output, as Node writes it.
                        v.as_string().map(|s| Extra::Text(message_of(&ctx, s)))
                    } else {
                        v.as_string()
                            .and_then(|s| text_of(&ctx, s))
                            .map(Extra::Text)
                    }
                });
                match iteration_of(&iteration) {
                    Ok(iteration) => calls.record(code, probe, iteration, extra, started),
                    Err(why) => calls.invalid(why),
                }
                calls.handled_since(started);
            },
        )
        .map_err(run)?
    };
    let is_proxy = Function::new(ctx.clone(), |v: Value<'js>| v.is_proxy()).map_err(run)?;
    let is_promise = Function::new(ctx.clone(), |v: Value<'js>| v.is_promise()).map_err(run)?;
    let observe = {
        let unhandled = unhandled.clone();
        Function::new(
            ctx.clone(),
            move |p: Value<'js>,
                  then: Function<'js>,
                  resolved: Value<'js>,
                  rejected: Value<'js>| {
                observe(&unhandled, p, then, resolved, rejected)
            },
        )
        .map_err(run)?
    };
    let util: Value = {
        let proxy_target = Function::new(ctx.clone(), |v: Value<'js>, handler: bool| {
            let proxy = v.into_proxy()?;
            match handler {
                true => proxy.handler().ok(),
                false => proxy.target().ok(),
            }
        })
        .map_err(run)?;
        let promise_state = Function::new(ctx.clone(), promise_state).map_err(run)?;
        let string_width = Function::new(ctx.clone(), crate::intl::string_width).map_err(run)?;
        bytecode::run(ctx, inspect)
            .and_then(|v| Function::from_js(ctx, v))
            .and_then(|make| {
                make.call((
                    is_proxy.clone(),
                    proxy_target,
                    promise_state,
                    string_width,
                    is_buffer,
                ))
            })
            .map_err(run)?
    };
    let schedule = {
        let current = current.clone();
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, id: u32, ms: f64| {
            let Some(calls) = current.borrow().clone() else {
                return Err(no_run(&ctx));
            };
            calls.schedule(id, ms);
            Ok(())
        })
        .map_err(run)?
    };
    let unschedule = {
        let current = current.clone();
        Function::new(ctx.clone(), move |id: u32| {
            if let Some(calls) = current.borrow().as_ref() {
                calls.unschedule(id);
            }
        })
        .map_err(run)?
    };
    // The natives of a call's start and of timers, for SETUP (kept out of the program's reach
    // as the rest of `util` is).
    let util_object = util
        .as_object()
        .ok_or_else(|| Failure::Internal("the inspector made no object".to_owned()))?;
    util_object.set("begin", begin).map_err(run)?;
    util_object.set("schedule", schedule).map_err(run)?;
    util_object.set("unschedule", unschedule).map_err(run)?;
    util_object.set("observe", observe).map_err(run)?;
    let made: Array = bytecode::run(ctx, setup)
        .and_then(|v| Function::from_js(ctx, v))
        .and_then(|setup| {
            setup.call((
                native,
                stringify.clone(),
                record,
                is_proxy,
                is_promise,
                util,
            ))
        })
        .map_err(run)?;

    let globals = ctx.globals();
    // Typed arrays yes, but nothing that could block the worker (`Atomics.wait`).
    globals.remove("Atomics").map_err(run)?;
    globals.remove("SharedArrayBuffer").map_err(run)?;
    globals
        .set("console", made.get::<Value>(3).map_err(run)?)
        .map_err(run)?;
    let timers: rquickjs::Object = made.get(7).map_err(run)?;
    for name in [
        "setTimeout",
        "setInterval",
        "setImmediate",
        "clearTimeout",
        "clearInterval",
        "clearImmediate",
    ] {
        let timer: Value = timers.get(name).map_err(run)?;
        globals.set(name, timer).map_err(run)?;
    }
    Ok(Ready {
        current,
        stringify: Persistent::save(ctx, stringify),
        settle: Persistent::save(ctx, made.get::<Function>(1).map_err(run)?),
        probe_object: Persistent::save(ctx, made.get::<Value>(2).map_err(run)?),
        mcp: Persistent::save(ctx, made.get::<Value>(0).map_err(run)?),
        capabilities: Persistent::save(ctx, made.get::<Value>(5).map_err(run)?),
        iterations: Persistent::save(ctx, made.get::<Function>(4).map_err(run)?),
        want: Persistent::save(ctx, made.get::<Function>(6).map_err(run)?),
        fire: Persistent::save(ctx, made.get::<Function>(8).map_err(run)?),
        culprits: Persistent::save(ctx, culprits),
    })
}

/// Runs the program in `ctx` (a context made [`ready`], `ready` its handles) to the end: its
/// result as JSON text.
pub(crate) fn run_in<'js>(
    ctx: &Ctx<'js>,
    program: Program<'_>,
    ready: Ready,
) -> Result<String, Failure> {
    let calls = Rc::new(Calls {
        last: Cell::new(0),
        outstanding: RefCell::new(HashSet::new()),
        events: program.link.events.clone(),
        line: program.link.line.clone(),
        caller_gone: Cell::new(false),
        reports: RefCell::new(Vec::new()),
        started: RefCell::new(Vec::new()),
        last_ended: Cell::new(None),
        invoked: RefCell::new(HashMap::new()),
        clock: program.clock.clone(),
        untold: Cell::new(Duration::ZERO),
        begun: Cell::new(None),
        timers: RefCell::new(std::collections::BTreeMap::new()),
        timer_order: Cell::new(0),
    });
    *ready.current.borrow_mut() = Some(calls.clone());
    let current = ready.current.clone();
    let unhandled = program.unhandled.clone();
    unhandled.borrow_mut().watching = Some(Vec::new());
    let mut iterations = None;
    let outcome = run_with(ctx, program, ready, &calls, &mut iterations);
    unhandled.borrow_mut().watching = None;
    // What the run reported last: the loop counts, the operations that never ended, and for a
    // run that stopped, the loop body it entered last.
    let summary = iterations.and_then(|f: Function| f.call::<_, Array>(()).ok());
    if let Some(summary) = summary {
        let at = Instant::now();
        if outcome.is_err() {
            if let Ok(last) = summary.get::<Array>(1) {
                if let (Ok(probe), Ok(iteration)) = (last.get::<u32>(0), last.get::<Value>(1)) {
                    if let Ok(iteration) = iteration_of(&iteration) {
                        calls.push(Report {
                            at,
                            what: Reported::LastLoop { probe, iteration },
                        });
                    }
                }
            }
        }
        // Counted by a number the program cannot reach; at most one per operation run.
        if let Ok(operations) = summary.get::<f64>(2) {
            if operations >= 1.0 {
                calls.push(Report {
                    at,
                    what: Reported::Unreported {
                        operations: operations as u64,
                    },
                });
            }
        }
        let counts = summary.get::<Array>(0).ok();
        for entry in counts.iter().flat_map(|c| c.iter::<Array>()).flatten() {
            let (Ok(probe), Ok(iteration), Ok(count)) = (
                entry.get::<u32>(0),
                entry.get::<Value>(1),
                entry.get::<u32>(2),
            ) else {
                continue;
            };
            match iteration_of(&iteration) {
                Ok(iteration) => calls.push(Report {
                    at,
                    what: Reported::Iterations {
                        probe,
                        iteration,
                        count,
                    },
                }),
                Err(why) => calls.invalid(why),
            }
        }
    }
    calls.unwind_all(Instant::now());
    calls.flush();
    *current.borrow_mut() = None;
    outcome
}

fn run_with<'js>(
    ctx: &Ctx<'js>,
    program: Program<'_>,
    ready: Ready,
    calls: &Rc<Calls>,
    iterations: &mut Option<Function<'js>>,
) -> Result<String, Failure> {
    let Program {
        name,
        wrapper,
        args,
        probes,
        originals,
        values,
        reads,
        reads_script,
        to_string_script,
        link,
        clock,
        unhandled,
    } = program;
    let run = |e| failure(ctx, e, Phase::Run);
    let restore =
        |e: rquickjs::Error| Failure::Internal(format!("a ready context lost a handle: {e}"));
    let stringify = ready.stringify.restore(ctx).map_err(restore)?;
    let settle = ready.settle.restore(ctx).map_err(restore)?;
    let fire = ready.fire.restore(ctx).map_err(restore)?;
    let probe_object = ready.probe_object.restore(ctx).map_err(restore)?;
    let mcp = ready.mcp.restore(ctx).map_err(restore)?;
    let capabilities = ready.capabilities.restore(ctx).map_err(restore)?;
    *iterations = Some(ready.iterations.restore(ctx).map_err(restore)?);
    let want = ready.want.restore(ctx).map_err(restore)?;
    want.call::<_, ()>((values.to_vec(), crate::REPORTED_OPERATIONS))
        .map_err(run)?;
    let args: Value = ctx
        .json_parse(pml_jstext::to_js_json(args).as_bytes())
        .map_err(run)?;
    if let Some(reads) = reads {
        let read = Function::new(ctx.clone(), move |what: u8, live: f64| {
            let what = match what {
                0 => crate::Unrepeatable::Clock,
                _ => crate::Unrepeatable::Random,
            };
            reads.read(what, live)
        })
        .map_err(run)?;
        let install = bytecode::run(ctx, reads_script)
            .and_then(|v| Function::from_js(ctx, v))
            .map_err(run)?;
        install.call::<_, ()>((read,)).map_err(run)?;
    }

    if let Some(originals) = originals.clone() {
        // Its errors name what its code names at their place (`o.list.map is not a function`).
        let name = name.to_owned();
        let under_way = calls.clone();
        let read = Function::new(
            ctx.clone(),
            move |kind: u8, file: Option<String>, line: Option<u32>, column: Option<u32>| {
                let fault = match kind {
                    0 => crate::Fault::NotAFunction,
                    1 => crate::Fault::NotAConstructor,
                    2 => crate::Fault::NotIterable {
                        nullish: true,
                        null: false,
                    },
                    7 => crate::Fault::NotIterable {
                        nullish: true,
                        null: true,
                    },
                    4 => crate::Fault::NotAnObject,
                    5 => crate::Fault::ReadOnly,
                    _ => crate::Fault::NotIterable {
                        nullish: false,
                        null: false,
                    },
                };
                match (file, line, column) {
                    (Some(file), Some(line), Some(column)) if file == name => {
                        // The operation the program runs (started, not ended), if any.
                        let started = under_way.started.borrow();
                        let operation = started.last().map(|(probe, it, _)| (*probe, &it[..]));
                        originals.culprit(fault, line as usize, column as usize, operation)
                    }
                    _ => None,
                }
            },
        )
        .map_err(run)?;
        let culprits = ready.culprits.restore(ctx).map_err(restore)?;
        culprits.call::<_, ()>((read,)).map_err(run)?;
    }
    if let Some(namespace) = probes {
        // The program's functions read as it wrote them: their text without the probes (and
        // so without the probe object's name).
        let original = Function::new(ctx.clone(), move |text: String| match &originals {
            Some(originals) => originals
                .original(&text)
                .unwrap_or_else(|| NATIVE_CODE.to_owned()),
            None => NATIVE_CODE.to_owned(),
        })
        .map_err(run)?;
        let install = bytecode::run(ctx, to_string_script)
            .and_then(|v| Function::from_js(ctx, v))
            .map_err(run)?;
        install.call::<_, ()>((original, namespace)).map_err(run)?;
    }
    let outer = bytecode::run(ctx, wrapper)
        .and_then(|v| Function::from_js(ctx, v))
        .map_err(run)?;
    // The wrapper's parameters: the probe object (instrumented programs), then what
    // `crate::worker::PROGRAM_PARAMETERS` names.
    let program: Function = if probes.is_some() {
        outer.call((probe_object, mcp, args, capabilities))
    } else {
        outer.call((mcp, args, capabilities))
    }
    .map_err(run)?;
    let result: Value = program.call(()).map_err(run)?;
    // Not a promise only if the source closed the wrapper and made it something else.
    let Some(promise) = result.as_promise().cloned() else {
        return to_json(ctx, result, stringify);
    };
    let value = loop {
        while ctx.execute_pending_job() {
            if clock.over() || clock.interrupted.get() {
                return Err(Failure::Interrupted);
            }
        }
        // As Node does once the jobs of a turn have run: a promise rejected with no handler by
        // then ends the run, even when the program's own promise settled in the same turn, if
        // anything is left to do before the process exits: closing the connections to the
        // servers it called takes turns (when it called none, Node exits in this one).
        if let Some(reason) = first_unhandled(ctx, &unhandled, &promise) {
            let exits_now = calls.last.get() == 0 && settled(ctx, &promise).is_some();
            if !exits_now {
                return Err(unhandled_rejection(ctx, reason));
            }
        }
        if calls.caller_gone.get() {
            return Err(Failure::Internal("the caller stopped listening".to_owned()));
        }
        if let Some(outcome) = settled(ctx, &promise) {
            break outcome?;
        }
        // A timer due runs (then the jobs it queued, as Node runs them after each callback).
        if let Some(id) = calls.take_due_timer() {
            fire.call::<_, ()>((id,)).map_err(run)?;
            continue;
        }
        let next_timer = calls.next_timer();
        if calls.outstanding.borrow().is_empty() && next_timer.is_none() {
            return Err(Failure::Stalled);
        }
        let answers = wait(link, calls, next_timer)?;
        // Turning the answers into values is pml's work, not the program's: given back as it
        // goes, or the clock could stop the run in the middle of it.
        for (id, answer) in answers {
            let started = Instant::now();
            let (ok, payload) = match answer {
                Ok(value) => {
                    let text = serde_json::to_string(&value).map_err(|e| {
                        Failure::Internal(format!("cannot serialise an answer: {e}"))
                    })?;
                    let text = pml_jstext::to_js_json(&text);
                    (true, ctx.json_parse(text.as_bytes()).map_err(run)?)
                }
                Err(message) => (false, message.into_js(ctx).map_err(run)?),
            };
            settle
                .call::<_, ()>((id as f64, ok, payload))
                .map_err(run)?;
            calls.handled_since(started);
        }
    };
    to_json(ctx, value, stringify)
}

/// The native `promiseState(value)` of [`INSPECT`]: `undefined` for what is not a promise, else
/// `[0]` (pending), `[1, value]` (fulfilled) or `[2, reason]` (rejected). Reads the state
/// without running any code.
fn promise_state<'js>(ctx: Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Value<'js>> {
    let Some(promise) = value.as_promise() else {
        return Ok(Value::new_undefined(ctx));
    };
    let state = Array::new(ctx.clone())?;
    match promise.state() {
        PromiseState::Pending => state.set(0, 0)?,
        PromiseState::Resolved => {
            state.set(0, 1)?;
            let value = match promise.result::<Value>() {
                Some(Ok(value)) => value,
                _ => Value::new_undefined(ctx.clone()),
            };
            state.set(1, value)?;
        }
        PromiseState::Rejected => {
            state.set(0, 2)?;
            let reason = match promise.result::<Value>() {
                Some(Ok(value)) => value,
                Some(Err(rquickjs::Error::Exception)) => ctx.catch(),
                _ => Value::new_undefined(ctx.clone()),
            };
            state.set(1, reason)?;
        }
    }
    Ok(state.into_value())
}

/// The answers to some outstanding calls: those already in the inbox, or else the next ones to
/// come, until `timer` (when the next timer is due: then maybe none), the clock stopped
/// meanwhile (the caller is told both when it stops and when it starts again).
fn wait(
    link: &Link,
    calls: &Calls,
    timer: Option<Instant>,
) -> Result<Vec<(u64, HostAnswer)>, Failure> {
    let caller_gone = |_| Failure::Internal("the caller stopped listening".to_owned());
    let mut answers = Vec::new();
    drain(link, calls, &mut answers)?;
    if !answers.is_empty() || timer.is_some_and(|t| t <= Instant::now()) {
        return Ok(answers);
    }

    let left = calls.clock.pause();
    calls.untold.set(Duration::ZERO);
    if left.is_zero() {
        return Err(Failure::Interrupted);
    }
    link.events.send(Event::Waiting).map_err(caller_gone)?;
    let closed = || Failure::Internal("the answer channel closed".to_owned());
    while answers.is_empty() {
        // No handle left: only the answers already in the inbox can come (see `AnswerLine`).
        if link.line.handles() == 0 && timer.is_none() {
            drain(link, calls, &mut answers)?;
            if answers.is_empty() {
                return Err(Failure::Unanswered(calls.outstanding.borrow().len()));
            }
            break;
        }
        let message = match timer {
            Some(due) => match link
                .inbox
                .recv_timeout(due.saturating_duration_since(Instant::now()))
            {
                Ok(message) => message,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                // Nothing more can come: the timer is what is left to wait for.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                    break;
                }
            },
            None => link.inbox.recv().map_err(|_| closed())?,
        };
        accept(message, calls, &mut answers)?;
        drain(link, calls, &mut answers)?;
    }

    calls.clock.resume(Instant::now(), left);
    link.events
        .send(Event::Running(left))
        .map_err(caller_gone)?;
    Ok(answers)
}

/// Takes everything already in the inbox.
fn drain(link: &Link, calls: &Calls, answers: &mut Vec<(u64, HostAnswer)>) -> Result<(), Failure> {
    loop {
        match link.inbox.try_recv() {
            Ok(message) => accept(message, calls, answers)?,
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => return Ok(()),
        }
    }
}

/// Keeps the first answer to each outstanding call; a cancel ends the run.
fn accept(
    message: Inbound,
    calls: &Calls,
    answers: &mut Vec<(u64, HostAnswer)>,
) -> Result<(), Failure> {
    match message {
        Inbound::Answer(id, answer) => {
            if calls.outstanding.borrow_mut().remove(&id) {
                answers.push((id, answer));
            }
        }
        // `wait` checks the count itself.
        Inbound::HandlesGone => {}
        Inbound::Cancel => return Err(Failure::Interrupted),
        Inbound::Abort => return Err(Failure::Aborted),
    }
    Ok(())
}
