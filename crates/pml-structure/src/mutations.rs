//! What a program changes in place or assigns again, by name: the names the builder must not
//! take for constants, the results nothing may be computed ahead from.
//!
//! One pass over the syntax tree, ignoring scopes (a conservative answer only costs a folded
//! constant or a binding). Values are tied to the names whose objects they are, are part of,
//! hold or share elements with ([`value_roots`]); a change under one name reaches the names
//! tied to it, a local function's parameters reach what its calls pass, and what goes to code
//! the pass does not follow counts as changed.

use rustc_hash::FxHashSet as HashSet;
use swc_atoms::Atom;
use swc_ecma_ast::{CallExpr, Callee, Expr, MemberProp, Pat, Prop, Stmt};
use swc_ecma_visit::{Visit, VisitWith};

use crate::builder::strip;
use crate::rewrite::pattern_names;

/// Methods that change their receiver in place.
pub(crate) const MUTATING_METHODS: &[&str] = &[
    "push",
    "pop",
    "shift",
    "unshift",
    "splice",
    "sort",
    "reverse",
    "fill",
    "copyWithin",
    "set",
    "add",
    "delete",
    "clear",
    // A regular expression's `lastIndex` (`/g`, `/y`): what its next `exec` finds depends on
    // the last (a literal copied elsewhere would start again at 0).
    "exec",
    "test",
];

/// The identifier an expression's value is rooted at (`x` for `x.a[0].b`).
pub(crate) fn root_ident(e: &Expr) -> Option<&str> {
    match strip(e) {
        Expr::Ident(id) => Some(&id.sym),
        Expr::Member(m) => root_ident(&m.obj),
        _ => None,
    }
}

/// What [`value_roots`] finds: names, each with how the value is tied to its object.
type Roots = Vec<(Atom, Tie)>;

/// How a value is tied to a name's object (see [`value_roots`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tie {
    /// It is the object (`o`, `c ? o : p`, `xs.sort()`), or may be (a method's result).
    Same,
    /// It is part of it (`o.meta`, `xs.find(f)`, an element of it).
    Part,
    /// It holds it (`{ k: o }`, `[o]`, `new Map([[k, o]])`).
    Holds,
    /// A new object holding the same elements (`[...xs]`, `xs.slice()`, `xs.map(f)`, `{ ...o }`).
    Shares,
}

impl Tie {
    /// `outer` of a value tied to a name by `self`.
    fn then(self, outer: Tie) -> Tie {
        match (outer, self) {
            (Tie::Same, t) | (t, Tie::Same) => t,
            (a, b) if a == b => a,
            (Tie::Shares, Tie::Part) | (Tie::Holds, Tie::Part) => Tie::Shares,
            (Tie::Shares, Tie::Holds) => Tie::Holds,
            // Part of what holds it, or of what shares its elements: maybe the object itself.
            _ => Tie::Same,
        }
    }
}

/// The names whose objects the value of `e` may be, be part of, hold or share, and how
/// (`o` for `o`, `o.a[0]`, `{ k: o }`, `[...o]`, `c ? o : p`, `o.find(f)`): none for a value
/// made anew that shares nothing (a literal of primitives, a tool's result, `JSON.parse(...)`,
/// a string, a local function's result).
pub(crate) fn value_roots(e: &Expr, out: &mut Roots) {
    roots_as(e, Tie::Same, out);
}

fn roots_as(e: &Expr, tie: Tie, out: &mut Roots) {
    match strip(e) {
        Expr::Ident(id) if !matches!(&*id.sym, "undefined" | "NaN" | "Infinity") => {
            out.push((id.sym.clone(), tie));
        }
        Expr::Member(m) => roots_as(&m.obj, Tie::Part.then(tie), out),
        Expr::Array(a) => {
            for elem in a.elems.iter().flatten() {
                let inner = match elem.spread {
                    Some(_) => Tie::Shares,
                    None => Tie::Holds,
                };
                roots_as(&elem.expr, inner.then(tie), out);
            }
        }
        Expr::Object(o) => {
            for prop in &o.props {
                match prop {
                    swc_ecma_ast::PropOrSpread::Spread(s) => {
                        roots_as(&s.expr, Tie::Shares.then(tie), out)
                    }
                    swc_ecma_ast::PropOrSpread::Prop(p) => match &**p {
                        Prop::Shorthand(id) => out.push((id.sym.clone(), Tie::Holds.then(tie))),
                        Prop::KeyValue(kv) => roots_as(&kv.value, Tie::Holds.then(tie), out),
                        _ => {}
                    },
                }
            }
        }
        Expr::Cond(c) => {
            roots_as(&c.cons, tie, out);
            roots_as(&c.alt, tie, out);
        }
        Expr::Bin(b)
            if matches!(
                b.op,
                swc_ecma_ast::BinaryOp::LogicalOr
                    | swc_ecma_ast::BinaryOp::LogicalAnd
                    | swc_ecma_ast::BinaryOp::NullishCoalescing
            ) =>
        {
            roots_as(&b.left, tie, out);
            roots_as(&b.right, tie, out);
        }
        Expr::Seq(s) => {
            if let Some(last) = s.exprs.last() {
                roots_as(last, tie, out);
            }
        }
        Expr::Assign(a) => roots_as(&a.right, tie, out),
        Expr::Await(a) => roots_as(&a.arg, tie, out),
        // A `Set` or a `Map` holds the elements of what it is given; an instance, anything.
        Expr::New(n) => {
            let inner = match strip(&n.callee) {
                Expr::Ident(c) if CONTAINERS.contains(&&*c.sym) => Tie::Shares,
                _ => Tie::Same,
            };
            for arg in n.args.iter().flatten() {
                roots_as(&arg.expr, inner.then(tie), out);
            }
        }
        Expr::Call(call) => {
            let Callee::Expr(callee) = &call.callee else {
                return;
            };
            // A method's result may be its receiver (`xs.sort()`), a part of it (`xs.find(f)`,
            // `m.get(k)`), a new array of its elements (`xs.slice()`, `Object.values(o)`), but a
            // tool's answer, a string, a number, a copy through JSON are new. A function's
            // result is taken for a new value (a helper returning what it is given is rare;
            // taking every helper's result for its arguments would take a loop's element for
            // changed whenever a helper's result is kept).
            let Expr::Member(m) = strip(callee) else {
                return;
            };
            let method = match &m.prop {
                MemberProp::Ident(id) => Some(&*id.sym),
                _ => None,
            };
            let owner = root_ident(&m.obj);
            if owner.is_some_and(|o| matches!(o, "mcp" | "capabilities"))
                || method.is_some_and(|m| NEW_VALUE_METHODS.contains(&m))
                || matches!(strip(&m.obj), Expr::Ident(o) if &*o.sym == "JSON")
            {
                return;
            }
            let of_owner =
                matches!(strip(&m.obj), Expr::Ident(o) if SAFE_OWNERS.contains(&&*o.sym));
            let inner = match method {
                Some("sort" | "reverse" | "fill" | "copyWithin") => Tie::Same,
                Some(m) if PART_METHODS.contains(&m) => Tie::Part,
                Some(m) if SHARES_METHODS.contains(&m) => Tie::Shares,
                _ => Tie::Same,
            };
            if !of_owner {
                roots_as(&m.obj, inner.then(tie), out);
            }
            // `Object.values(o)`, `Array.from(xs)`, `xs.concat(ys)`: its arguments' elements.
            for arg in &call.args {
                roots_as(&arg.expr, Tie::Shares.then(tie), out);
            }
        }
        _ => {}
    }
}

/// Whether the value of `e` is an object `e` makes anew, whose top level no name holds: an
/// array or object literal, a new array of a receiver's elements (`xs.filter(f)`,
/// `Object.values(o)`), or such an array sorted or reversed in place.
fn made_anew(e: &Expr) -> bool {
    match strip(e) {
        Expr::Array(_) | Expr::Object(_) => true,
        Expr::Call(call) => {
            let Callee::Expr(callee) = &call.callee else {
                return false;
            };
            let Expr::Member(m) = strip(callee) else {
                return false;
            };
            let MemberProp::Ident(method) = &m.prop else {
                return false;
            };
            let of = |owner: &str| matches!(strip(&m.obj), Expr::Ident(o) if &*o.sym == owner);
            match &*method.sym {
                // They return their receiver.
                "sort" | "reverse" | "fill" | "copyWithin" => made_anew(&m.obj),
                "slice" | "map" | "filter" | "concat" | "flat" | "flatMap" | "toSorted"
                | "toReversed" | "toSpliced" | "with" => !of("Object") && !of("Reflect"),
                "keys" | "values" | "entries" | "fromEntries" => of("Object"),
                "from" | "of" => of("Array"),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Methods whose result is an element or a part of the receiver.
const PART_METHODS: &[&str] = &[
    "find", "findLast", "at", "get", "pop", "shift", "values", "entries",
];

/// Methods whose result is a new array (or object) of the receiver's elements.
const SHARES_METHODS: &[&str] = &[
    "slice",
    "map",
    "filter",
    "concat",
    "flat",
    "flatMap",
    "toSorted",
    "toReversed",
    "toSpliced",
    "with",
    "from",
    "of",
    "fromEntries",
    "assign",
    "splice",
];

/// Functions of the language that neither keep nor change what they are given, and whose
/// result shares nothing with it: the builder's pure ones, and these.
const SAFE_FUNCTIONS: &[&str] = &[
    "Symbol",
    "escape",
    "unescape",
    "structuredClone",
    "atob",
    "btoa",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "queueMicrotask",
    "Date",
];

/// Whether the global function `name` neither keeps nor changes what it is given.
fn safe_function(name: &str) -> bool {
    crate::builder::PURE_FUNCTIONS.contains(&name) || SAFE_FUNCTIONS.contains(&name)
}

/// Objects of the language whose functions neither keep nor change what they are given
/// (`console.log(o)`, `JSON.stringify(o)`, `Math.max(...xs)`, `Object.keys(o)`,
/// `Promise.all(ps)`).
const SAFE_OWNERS: &[&str] = &[
    "console", "JSON", "Math", "Number", "String", "Date", "Intl", "Promise", "Symbol", "Array",
    "Object", "BigInt",
];

/// Methods that neither keep nor change their arguments.
const SAFE_METHODS: &[&str] = &[
    "includes",
    "indexOf",
    "lastIndexOf",
    "join",
    "has",
    "get",
    "at",
    "startsWith",
    "endsWith",
    "slice",
    "substring",
    "substr",
    "split",
    "replace",
    "replaceAll",
    "padStart",
    "padEnd",
    "localeCompare",
    "test",
    "exec",
    "match",
    "matchAll",
    "search",
    "toFixed",
    "toString",
    "toLocaleString",
    "hasOwnProperty",
    "format",
    "compare",
    "then",
    "catch",
    "finally",
];

/// Methods whose result is a new value sharing nothing with the receiver or arguments.
const NEW_VALUE_METHODS: &[&str] = &[
    "join",
    "toString",
    "toLocaleString",
    "toUpperCase",
    "toLowerCase",
    "trim",
    "trimStart",
    "trimEnd",
    "split",
    "replace",
    "replaceAll",
    "includes",
    "indexOf",
    "some",
    "every",
    "keys",
    "stringify",
    "parse",
    "toFixed",
    "padStart",
    "padEnd",
    "charAt",
    "substring",
    "startsWith",
    "endsWith",
    "test",
    "localeCompare",
    "format",
];

/// Array methods that give a callback the receiver's elements.
const CALLBACK_METHODS: &[&str] = &[
    "forEach",
    "map",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "some",
    "every",
    "flatMap",
    "sort",
    "toSorted",
];

/// Constructors of the language whose instances hold what they are given.
const CONTAINERS: &[&str] = &["Map", "Set", "WeakMap", "WeakSet", "Array"];

/// Constructors that keep nothing they are given.
const SAFE_CONSTRUCTORS: &[&str] = &[
    "Date",
    "URL",
    "URLSearchParams",
    "RegExp",
    "Error",
    "TypeError",
    "RangeError",
    "SyntaxError",
    "ReferenceError",
    "Promise",
    "Number",
    "String",
    "Boolean",
    "TextEncoder",
    "TextDecoder",
];

/// What a program changes, by name (ignoring shadowing: a conservative answer only costs a
/// folded constant or a binding).
#[derive(Debug, Default)]
pub(crate) struct Mutations {
    /// Names whose value is changed in place (`x.a = 1`, `x.push(y)`, `delete x.a`).
    pub(crate) names: HashSet<String>,
    /// The first place `mcp` is used as a value (not called through, `mcp.s.t(...)`, nor
    /// named anew, `const fs = mcp.filesystem`), anywhere, walked by the builder or not (a
    /// class's constructor): what holds it may call tools where the structure cannot see.
    pub(crate) mcp_value: Option<swc_common::Span>,
    /// Inside what calls a tool or names `mcp` anew: `mcp` there is no value.
    naming_mcp: usize,
    /// Names assigned again (`x = 1`, `x += 1`, `x++`, `[x] = ys`, `for (x of xs)`), with the
    /// start of the first such assignment.
    pub(crate) reassigned: rustc_hash::FxHashMap<String, Reassigned>,
    /// Every name the program declares (`const`/`let`/`var`, parameters, a `catch` binding,
    /// function and class declarations), at any depth, ignoring scopes.
    pub(crate) declared: HashSet<String>,
    /// Those declared more than once (in different scopes, or a parameter and a `const`).
    pub(crate) redeclared: HashSet<String>,
    /// Those changed below their top level (`x.a.b = 1`, `x[0].push(y)`, given to code out of
    /// sight): what shares their elements changes too.
    deep: HashSet<String>,
    /// `(a, b, tie)`: `a` took a value tied to `b`'s object (`const alias = o`, `const inner =
    /// o.meta`, `const holder = { o }`, `holder.o = o`, a loop's element, a local function's
    /// parameter): a change under one may be a change under the other.
    ties: Vec<(Atom, Atom, Tie)>,
    /// Local functions by name: the names each parameter declares, and whether it is a rest
    /// parameter (it takes every argument from there on).
    functions: rustc_hash::FxHashMap<Atom, Vec<(Vec<Atom>, bool)>>,
    /// Calls of a plain name with what each argument may hold (see [`value_roots`]): of a
    /// local function, its parameters flow into them; of anything else, they escape.
    calls: Vec<(Atom, Vec<Roots>)>,
    /// How many loops and functions the visit is in.
    repeat: usize,
    /// Where the program calls a tool by `mcp`'s own name (`mcp.s.t(...)`): `(lo, hi)` of each
    /// call. The builder's structure has a node for each, or says it has not.
    pub(crate) tool_calls: Vec<(u32, u32)>,
    /// Names read as values anywhere (not only called by name, `f(...)`, nor declared):
    /// a local function named so may be called where the structure does not see.
    pub(crate) values: HashSet<Atom>,
}

/// Where a name is first assigned again, and whether some assignment of it may run more than
/// once or at a time the program's order does not say (in a loop or a function).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reassigned {
    pub(crate) at: u32,
    pub(crate) repeated: bool,
}

impl Mutations {
    fn reassign_name(&mut self, name: &str, at: u32) {
        let repeated = self.repeat > 0;
        self.reassigned
            .entry(name.to_owned())
            .and_modify(|r| r.repeated |= repeated)
            .or_insert(Reassigned { at, repeated });
    }

    fn reassign(&mut self, pat: &Pat, at: u32) {
        let mut names = Vec::new();
        pattern_names(pat, &mut names);
        for name in names {
            self.reassign_name(&name, at);
        }
    }

    /// The objects a pattern assigns into (`for (cfg.file of ...)`, `[o.a, o.b] = ...`) are
    /// changed in place.
    fn assign_into(&mut self, pat: &Pat) {
        match pat {
            Pat::Expr(e) => {
                if let Some(root) = root_ident(e).filter(|_| !matches!(strip(e), Expr::Ident(_))) {
                    self.names.insert(root.to_string());
                }
            }
            Pat::Array(a) => {
                for p in a.elems.iter().flatten() {
                    self.assign_into(p);
                }
            }
            Pat::Object(o) => {
                for prop in &o.props {
                    match prop {
                        swc_ecma_ast::ObjectPatProp::KeyValue(kv) => self.assign_into(&kv.value),
                        swc_ecma_ast::ObjectPatProp::Rest(r) => self.assign_into(&r.arg),
                        swc_ecma_ast::ObjectPatProp::Assign(_) => {}
                    }
                }
            }
            Pat::Assign(a) => self.assign_into(&a.left),
            Pat::Rest(r) => self.assign_into(&r.arg),
            Pat::Ident(_) | Pat::Invalid(_) => {}
        }
    }

    /// `name` given the value of `value`.
    fn alias(&mut self, name: &Atom, value: &Expr) {
        let mut roots = Vec::new();
        value_roots(value, &mut roots);
        self.tie(name, roots);
    }

    fn tie(&mut self, name: &Atom, roots: Roots) {
        for (root, tie) in roots {
            self.ties.push((name.clone(), root, tie));
        }
    }

    /// `name` changed in place (below its top level too with `deep`).
    fn change(&mut self, name: &str, deep: bool) {
        if !self.names.contains(name) {
            self.names.insert(name.to_owned());
        }
        if deep && !self.deep.contains(name) {
            self.deep.insert(name.to_owned());
        }
    }

    /// The object `value` is, changed in place (`value.a = 1`, `value.push(x)`): the names it
    /// is or is part of ([`value_roots`]), those it is part of below their top level. An
    /// object `value` itself makes anew (`xs.filter(f)`, `[...xs]`, `{ k: o }`) changes no
    /// name: `xs.filter(f).sort()` sorts the new array.
    fn changes(&mut self, value: &Expr) -> Vec<Atom> {
        let mut roots = Vec::new();
        value_roots(value, &mut roots);
        if !made_anew(value) {
            for (root, tie) in &roots {
                self.change(root, *tie != Tie::Same);
            }
        }
        roots.into_iter().map(|(root, _)| root).collect()
    }

    /// What `value` holds is out of sight: code the analysis does not follow may change it.
    fn escape(&mut self, value: &Expr) {
        let mut roots = Vec::new();
        value_roots(value, &mut roots);
        for (root, _) in roots {
            self.change(&root, true);
        }
    }

    /// Each name `pat` declares takes elements of what `of` holds.
    fn elements_of(&mut self, pat: &Pat, of: &Expr) {
        let mut roots = Vec::new();
        roots_as(of, Tie::Part, &mut roots);
        if roots.is_empty() {
            return;
        }
        let mut names = Vec::new();
        pattern_names(pat, &mut names);
        for name in names {
            self.tie(&name, roots.clone());
        }
    }

    /// A change under one name is one under the names tied to it; a call passes its arguments
    /// to a local function's parameters, or out of sight.
    pub(crate) fn close(&mut self) {
        let calls = std::mem::take(&mut self.calls);
        for (callee, args) in calls {
            let Some(params) = self.functions.get(&callee).cloned() else {
                if !safe_function(&callee) {
                    for (root, _) in args.into_iter().flatten() {
                        self.change(&root, true);
                    }
                }
                continue;
            };
            for (i, roots) in args.into_iter().enumerate() {
                let param = params
                    .get(i)
                    .or_else(|| params.last().filter(|(_, rest)| *rest));
                match param {
                    Some((names, _)) => {
                        for name in names {
                            self.tie(name, roots.clone());
                        }
                    }
                    // Read through `arguments`, or not at all: out of sight.
                    None => {
                        for (root, _) in roots {
                            self.change(&root, true);
                        }
                    }
                }
            }
        }
        self.propagate();
    }

    /// Spreads changes along the ties until nothing changes: a worklist over the names, each
    /// learning (changed, deep) from its neighbours (linear in the ties).
    fn propagate(&mut self) {
        let ties = std::mem::take(&mut self.ties);
        // (changed, deep) per name; edges per name: (other, tie, whether it is the tie's `a`).
        let mut at: rustc_hash::FxHashMap<&str, usize> = Default::default();
        let mut state: Vec<(bool, bool)> = Vec::new();
        let mut edges: Vec<Vec<(usize, Tie, bool)>> = Vec::new();
        let mut key: Vec<&str> = Vec::new();
        for (a, b, tie) in &ties {
            let mut ends = [0; 2];
            for (end, name) in ends.iter_mut().zip([a.as_str(), b.as_str()]) {
                *end = *at.entry(name).or_insert_with(|| {
                    key.push(name);
                    state.push((self.names.contains(name), self.deep.contains(name)));
                    edges.push(Vec::new());
                    state.len() - 1
                });
            }
            let [i, j] = ends;
            edges[i].push((j, *tie, true));
            edges[j].push((i, *tie, false));
        }
        let mut todo: Vec<usize> = (0..state.len())
            .filter(|&i| state[i].0 || state[i].1)
            .collect();
        while let Some(i) = todo.pop() {
            let (changed, deep) = state[i];
            for &(j, tie, i_is_a) in &edges[i] {
                // What the other side learns from this one.
                let learns = match (tie, i_is_a) {
                    (Tie::Same, _) => (changed, deep),
                    // `a` is part of `b`: a change of `a` is a deep change of `b`; a deep
                    // change of `b` may be one of `a`.
                    (Tie::Part, true) => (changed, changed),
                    (Tie::Part, false) => (deep, deep),
                    // `a` holds `b`: a deep change of `a` may be one of `b`; a change of `b`
                    // is a deep change of `a`.
                    (Tie::Holds, true) => (deep, deep),
                    (Tie::Holds, false) => (changed, changed),
                    (Tie::Shares, _) => (deep, deep),
                };
                let before = state[j];
                let after = (before.0 || learns.0, before.1 || learns.1);
                if after != before {
                    state[j] = after;
                    todo.push(j);
                }
            }
        }
        for (i, name) in key.iter().enumerate() {
            if state[i].0 {
                self.names.insert((*name).to_owned());
            }
            if state[i].1 {
                self.deep.insert((*name).to_owned());
            }
        }
        self.ties = ties;
    }

    /// The names `pat` declares take `value` or parts of it.
    fn destructure(&mut self, pat: &Pat, value: &Expr) {
        match pat {
            Pat::Ident(name) => self.alias(&name.id.sym, value),
            _ => {
                let mut names = Vec::new();
                pattern_names(pat, &mut names);
                for name in names {
                    self.alias(&name, value);
                }
            }
        }
    }

    /// What a call passes its callee: to a tool, a capability or a function of the language
    /// that neither keeps nor changes it, nothing; to a local function, its parameters (see
    /// [`Mutations::close`]); its elements to a callback's parameters; otherwise it is out of
    /// sight.
    fn passes(&mut self, callee: &Expr, call: &CallExpr) {
        let roots = |e: &Expr| {
            let mut out = Vec::new();
            value_roots(e, &mut out);
            out
        };
        match strip(callee) {
            Expr::Ident(f) => {
                // What the language's own functions are given stays where it was.
                if safe_function(&f.sym) && !self.functions.contains_key(&f.sym) {
                    return;
                }
                let args: Vec<Roots> = call.args.iter().map(|a| roots(&a.expr)).collect();
                if args.iter().any(|r| !r.is_empty()) {
                    self.calls.push((f.sym.clone(), args));
                }
            }
            Expr::Member(m) => {
                let method = match &m.prop {
                    MemberProp::Ident(id) => Some(&*id.sym),
                    _ => None,
                };
                let owner = root_ident(&m.obj);
                if owner.is_some_and(|o| matches!(o, "mcp" | "capabilities"))
                    || matches!(strip(&m.obj), Expr::Ident(o) if SAFE_OWNERS.contains(&&*o.sym))
                    || method.is_some_and(|m| SAFE_METHODS.contains(&m))
                {
                    return;
                }
                let element = match method {
                    Some("reduce" | "reduceRight") => Some(1),
                    Some(m) if CALLBACK_METHODS.contains(&m) => Some(0),
                    _ => None,
                };
                for arg in &call.args {
                    let params: Vec<&Pat> = match (strip(&arg.expr), element) {
                        (Expr::Arrow(f), Some(_)) => f.params.iter().collect(),
                        (Expr::Fn(f), Some(_)) => {
                            f.function.params.iter().map(|p| &p.pat).collect()
                        }
                        (Expr::Ident(f), Some(i)) => {
                            // A local function given as the callback: its element parameter.
                            let mut args = vec![Vec::new(); i + 1];
                            roots_as(&m.obj, Tie::Part, &mut args[i]);
                            self.calls.push((f.sym.clone(), args));
                            continue;
                        }
                        _ => {
                            self.escape(&arg.expr);
                            continue;
                        }
                    };
                    let Some(i) = element else { continue };
                    // `sort`'s comparator gets two elements.
                    let taking = if method == Some("sort") || method == Some("toSorted") {
                        2
                    } else {
                        1
                    };
                    for p in params.into_iter().skip(i).take(taking) {
                        self.elements_of(p, &m.obj);
                    }
                }
            }
            // An immediately invoked function, a call of a call's result: out of sight.
            _ => {
                for arg in &call.args {
                    self.escape(&arg.expr);
                }
            }
        }
    }

    fn function(&mut self, name: &Atom, params: Vec<&Pat>) {
        let params = (params.into_iter())
            .map(|p| {
                let mut names = Vec::new();
                pattern_names(p, &mut names);
                (names, matches!(p, Pat::Rest(_)))
            })
            .collect();
        self.functions.insert(name.clone(), params);
    }

    fn declare(&mut self, pat: &Pat) {
        let mut names = Vec::new();
        pattern_names(pat, &mut names);
        for name in names {
            self.declare_name(name.to_string());
        }
    }

    fn declare_name(&mut self, name: String) {
        if !self.declared.insert(name.clone()) {
            self.redeclared.insert(name);
        }
    }

    fn repeating(&mut self, visit: impl FnOnce(&mut Self)) {
        self.repeat += 1;
        visit(self);
        self.repeat -= 1;
    }
}

impl Visit for Mutations {
    fn visit_assign_expr(&mut self, a: &swc_ecma_ast::AssignExpr) {
        use swc_ecma_ast::{AssignTarget, SimpleAssignTarget};
        match &a.left {
            AssignTarget::Simple(SimpleAssignTarget::Member(m)) => {
                // `o.a = v`, `m.get(k).a = v`, `xs.find(f).a = v`: what the object is part
                // of changes, and holds the value.
                for root in self.changes(&m.obj) {
                    self.alias(&root, &a.right);
                }
            }
            AssignTarget::Simple(SimpleAssignTarget::Ident(id)) => {
                self.reassign_name(&id.id.sym, a.span.lo.0);
                if a.op == swc_ecma_ast::AssignOp::Assign {
                    self.alias(&id.id.sym, &a.right);
                }
            }
            AssignTarget::Pat(p) => {
                let pat: Pat = p.clone().into();
                self.reassign(&pat, a.span.lo.0);
                self.assign_into(&pat);
                self.destructure(&pat, &a.right);
            }
            _ => {}
        }
        a.visit_children_with(self);
    }

    fn visit_update_expr(&mut self, u: &swc_ecma_ast::UpdateExpr) {
        match strip(&u.arg) {
            Expr::Member(m) => {
                self.changes(&m.obj);
            }
            Expr::Ident(id) => self.reassign_name(&id.sym, u.span.lo.0),
            _ => {}
        }
        u.visit_children_with(self);
    }

    fn visit_for_of_stmt(&mut self, f: &swc_ecma_ast::ForOfStmt) {
        self.repeating(|m| {
            match &f.left {
                swc_ecma_ast::ForHead::Pat(p) => {
                    m.reassign(p, f.span.lo.0);
                    m.assign_into(p);
                    m.elements_of(p, &f.right);
                }
                swc_ecma_ast::ForHead::VarDecl(v) => {
                    for d in &v.decls {
                        m.elements_of(&d.name, &f.right);
                    }
                }
                swc_ecma_ast::ForHead::UsingDecl(_) => {}
            }
            f.visit_children_with(m);
        });
    }

    fn visit_for_in_stmt(&mut self, f: &swc_ecma_ast::ForInStmt) {
        self.repeating(|m| {
            if let swc_ecma_ast::ForHead::Pat(p) = &f.left {
                m.reassign(p, f.span.lo.0);
                m.assign_into(p);
            }
            f.visit_children_with(m);
        });
    }

    fn visit_for_stmt(&mut self, f: &swc_ecma_ast::ForStmt) {
        self.repeating(|m| f.visit_children_with(m));
    }

    fn visit_while_stmt(&mut self, w: &swc_ecma_ast::WhileStmt) {
        self.repeating(|m| w.visit_children_with(m));
    }

    fn visit_do_while_stmt(&mut self, d: &swc_ecma_ast::DoWhileStmt) {
        self.repeating(|m| d.visit_children_with(m));
    }

    fn visit_function(&mut self, f: &swc_ecma_ast::Function) {
        for p in &f.params {
            self.declare(&p.pat);
        }
        self.repeating(|m| f.visit_children_with(m));
    }

    fn visit_arrow_expr(&mut self, a: &swc_ecma_ast::ArrowExpr) {
        for p in &a.params {
            self.declare(p);
        }
        self.repeating(|m| a.visit_children_with(m));
    }

    fn visit_var_declarator(&mut self, d: &swc_ecma_ast::VarDeclarator) {
        if d.init
            .as_deref()
            .is_some_and(|init| (1..=3).contains(&mcp_depth(init)))
        {
            // `const fs = mcp.filesystem`, `const { filesystem } = mcp`: named anew.
            self.declare(&d.name);
            self.naming_mcp += 1;
            d.visit_children_with(self);
            self.naming_mcp -= 1;
            return;
        }
        self.declare(&d.name);
        if let Some(init) = &d.init {
            match (&d.name, strip(init)) {
                (Pat::Ident(name), Expr::Arrow(f)) => {
                    self.function(&name.id.sym, f.params.iter().collect())
                }
                (Pat::Ident(name), Expr::Fn(f)) => self.function(
                    &name.id.sym,
                    f.function.params.iter().map(|p| &p.pat).collect(),
                ),
                _ => self.destructure(&d.name, init),
            }
        }
        d.visit_children_with(self);
    }

    fn visit_catch_clause(&mut self, c: &swc_ecma_ast::CatchClause) {
        if let Some(p) = &c.param {
            self.declare(p);
        }
        c.visit_children_with(self);
    }

    fn visit_fn_decl(&mut self, f: &swc_ecma_ast::FnDecl) {
        self.declare_name(f.ident.sym.to_string());
        let params = f.function.params.iter().map(|p| &p.pat).collect();
        self.function(&f.ident.sym, params);
        f.visit_children_with(self);
    }

    fn visit_new_expr(&mut self, n: &swc_ecma_ast::NewExpr) {
        // An instance of a class keeps what it is given, out of sight (a `Map` or a `Set`
        // holds it where `value_roots` sees it).
        let keeps = !matches!(strip(&n.callee), Expr::Ident(c)
            if SAFE_CONSTRUCTORS.contains(&&*c.sym) || CONTAINERS.contains(&&*c.sym));
        if keeps {
            for arg in n.args.iter().flatten() {
                self.escape(&arg.expr);
            }
        }
        n.visit_children_with(self);
    }

    fn visit_class_decl(&mut self, c: &swc_ecma_ast::ClassDecl) {
        self.declare_name(c.ident.sym.to_string());
        c.visit_children_with(self);
    }

    fn visit_unary_expr(&mut self, u: &swc_ecma_ast::UnaryExpr) {
        if u.op == swc_ecma_ast::UnaryOp::Delete {
            if let Expr::Member(m) = strip(&u.arg) {
                self.changes(&m.obj);
            }
        }
        u.visit_children_with(self);
    }

    fn visit_ident(&mut self, id: &swc_ecma_ast::Ident) {
        if &*id.sym == "mcp" && self.naming_mcp == 0 && self.mcp_value.is_none() {
            self.mcp_value = Some(id.span);
        }
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        if let Callee::Expr(callee) = &call.callee {
            if mcp_depth(callee) >= 2 {
                // `mcp.s.t(...)`, `mcp.s[t](...)`: a call of a tool, not a value.
                self.tool_calls.push((call.span.lo.0, call.span.hi.0));
                self.naming_mcp += 1;
                callee.visit_with(self);
                self.naming_mcp -= 1;
                for arg in &call.args {
                    arg.visit_with(self);
                }
                self.passes(callee, call);
                return;
            }
            if let Expr::Member(m) = strip(callee) {
                let method = match &m.prop {
                    MemberProp::Ident(id) => Some(&*id.sym),
                    _ => None,
                };
                if let Some(method) = method {
                    if MUTATING_METHODS.contains(&method) {
                        self.changes(&m.obj);
                    }
                    // `Object.assign(target, ...)`, `Object.defineProperty(target, ...)`,
                    // `Reflect.set(target, ...)`... change their first argument.
                    let changes_first = match strip(&m.obj) {
                        Expr::Ident(o) if &*o.sym == "Object" => OBJECT_CHANGERS.contains(&method),
                        Expr::Ident(o) if &*o.sym == "Reflect" => {
                            REFLECT_CHANGERS.contains(&method)
                        }
                        _ => false,
                    };
                    if changes_first {
                        if let Some(root) = call.args.first().and_then(|a| root_ident(&a.expr)) {
                            self.names.insert(root.to_string());
                            // `Object.assign(target, source)`: the target holds the source's
                            // values.
                            let root = Atom::from(root);
                            for arg in call.args.iter().skip(1) {
                                self.alias(&root, &arg.expr);
                            }
                        }
                    }
                }
            }
            self.passes(callee, call);
            // `f(...)`: `f` is called, not read as a value.
            if let Expr::Ident(_) = strip(callee) {
                call.args.visit_with(self);
                call.type_args.visit_with(self);
                return;
            }
        }
        call.visit_children_with(self);
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Ident(id) = e {
            if !self.values.contains(&id.sym) {
                self.values.insert(id.sym.clone());
            }
        }
        e.visit_children_with(self);
    }
}

/// `1 +` how many members deep `e` is in `mcp` (`mcp` 1, `mcp.s` 2, `mcp.s.t` 3, computed
/// names alike), 0 when it is not rooted at `mcp`.
fn mcp_depth(e: &Expr) -> usize {
    match strip(e) {
        Expr::Ident(id) if &*id.sym == "mcp" => 1,
        Expr::Member(m) => match mcp_depth(&m.obj) {
            0 => 0,
            d => d + 1,
        },
        _ => 0,
    }
}

/// What the program changes in place or assigns again, by name.
pub(crate) fn mutated_names(stmts: &[Stmt]) -> Mutations {
    let mut m = collect(stmts);
    m.close();
    m
}

/// What `stmts` change, before the changes are spread along the ties: the program's top-level
/// statements can be collected in parts (each half of a program where it is parsed) and
/// [`Mutations::then`]-joined in order, then [`Mutations::close`]d once.
pub(crate) fn collect(stmts: &[Stmt]) -> Mutations {
    let mut m = Mutations::default();
    for stmt in stmts {
        stmt.visit_with(&mut m);
    }
    m
}

impl Mutations {
    /// These top-level statements' collection followed by `later`'s: what one collection of
    /// both in order gives.
    pub(crate) fn then(mut self, later: Mutations) -> Mutations {
        let Mutations {
            names,
            mcp_value,
            naming_mcp: _,
            reassigned,
            declared,
            redeclared,
            deep,
            ties,
            functions,
            calls,
            repeat: _,
            values,
            tool_calls,
        } = later;
        self.values.extend(values);
        self.tool_calls.extend(tool_calls);
        self.names.extend(names);
        self.mcp_value = self.mcp_value.or(mcp_value);
        for (name, r) in reassigned {
            self.reassigned
                .entry(name)
                .and_modify(|first| first.repeated |= r.repeated)
                .or_insert(r);
        }
        for name in declared {
            self.declare_name(name);
        }
        self.redeclared.extend(redeclared);
        self.deep.extend(deep);
        self.ties.extend(ties);
        // A later declaration of a function replaces an earlier one, as in one collection.
        self.functions.extend(functions);
        self.calls.extend(calls);
        self
    }
}

/// `Object.X(target, ...)` that change `target` in place.
const OBJECT_CHANGERS: &[&str] = &[
    "assign",
    "defineProperty",
    "defineProperties",
    "setPrototypeOf",
];

/// `Reflect.X(target, ...)` that change `target` in place.
const REFLECT_CHANGERS: &[&str] = &["set", "defineProperty", "deleteProperty", "setPrototypeOf"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Dialect, LineIndex};

    /// Everything a closed collection answers, in an order that compares.
    fn answers(m: &Mutations) -> String {
        let sorted = |set: &HashSet<String>| {
            let mut v: Vec<_> = set.iter().cloned().collect();
            v.sort();
            v
        };
        let mut reassigned: Vec<_> = m
            .reassigned
            .iter()
            .map(|(k, r)| (k.clone(), r.at, r.repeated))
            .collect();
        reassigned.sort();
        let mut values: Vec<String> = m.values.iter().map(|a| a.to_string()).collect();
        values.sort();
        format!(
            "names {:?}\nmcp {:?}\nreassigned {reassigned:?}\ndeclared {:?}\nredeclared {:?}\nvalues {values:?}",
            sorted(&m.names),
            m.mcp_value,
            sorted(&m.declared),
            sorted(&m.redeclared),
        )
    }

    /// Collected in two parts (cut before every top-level statement) and joined, a program
    /// gives what one collection of it gives: every program in the repository.
    #[test]
    fn parts_joined_answer_as_the_whole() {
        let mut checked = 0;
        for (name, code) in crate::parse::tests::programs() {
            let Ok(parsed) = parse(&code, Dialect::TypeScript, &LineIndex::new(&code)) else {
                continue;
            };
            let body = &parsed.body;
            let whole = answers(&mutated_names(body));
            for cut in 0..=body.len() {
                let mut joined = collect(&body[..cut]).then(collect(&body[cut..]));
                joined.close();
                assert_eq!(
                    answers(&joined),
                    whole,
                    "{name}, cut before statement {cut}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked} cuts");
    }
}
