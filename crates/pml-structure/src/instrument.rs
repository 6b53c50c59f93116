//! The program rewritten so that every node of its structure reports when it runs.
//!
//! The builder records, while it walks the syntax tree, where each node it creates sits
//! ([`Recorder`]: spans from SWC, never a text search); [`Recorder::finish`] turns what survived
//! (rolled-back nodes take their probes with them) into insertions into the source. Only
//! insertions, never deletions and never a newline: line N of the instrumented source is line
//! N of the program, and [`Instrumented::original_column`] maps a column back.
//!
//! The inserted code calls a *probe object* whose name ([`Instrumented::namespace`]) occurs
//! nowhere in the program. What each call means (the sandbox implements them, see
//! `pml_sandbox`'s program mode):
//!
//! | inserted around | code | reports |
//! |---|---|---|
//! | the callee of an MCP or capability call | `P.s(k, it, callee)` | the call's site (its node) |
//! | the last operand of a `code:*` operation | `P.b(k, it, operand)` | the operation starts |
//! | the whole `code:*` operation | `P.e(k, it, op)` | it ended, with its value |
//! | an `if`/ternary/`&&`/`\|\|` test | `P.d(k, it, test)` | the outcome (truthiness) |
//! | a `??` guard's left side | `P.n(k, it, left)` | the outcome (`== null`) |
//! | the right side of `&&=`/`\|\|=`/`??=`, the first argument or key after `?.` (what decides cannot be wrapped) | `(P.d(k, it, outcome), (e))`, `(P.n(k, it, null or 0), (e))` | the outcome that leads there, as it starts (nothing when it is skipped) |
//! | a switch's discriminant, case tests, default | `P.w(k, it, v)`, `P.c(k, it, i, t)`, `P.x(k, it)` | the case taken (by body run: two runs may wait in case tests at once) |
//! | the start of a loop body or a fork's callback | `const Pi = P.i(k, it);` | one iteration; `Pi` is the iteration vector of what runs inside |
//! | `Promise` of `Promise.all`, the whole call | `P.f(k, it, Promise)`, `P.j(k, it, call)` | fork, join (when it settles) |
//! | the start of a local function's body | `const Pi = P.i(k, it);` | one call of it; `Pi` numbers the calls |
//! | the function a call of a local function calls (the callee, a `.then` callback) | `P.h(k, it, f)` | the call starts, and ends (returns, throws, or its promise settles) |
//! | the start of a `catch` handler whose `try` block has operations | `P.t([k, ...], it);` | those operations that started in this run of the block and never ended threw (`P.b` without `P.e`) |
//! | the value of an object destructuring (`const { a } = v`, `({ a } = v)`), anywhere | `P.o(v, kind, key, text)` | nothing: it throws V8's `TypeError` when `v` is `undefined` or `null` (`Cannot destructure property 'a' of 'v' as it is undefined.`) |
//! | a value spread into an object literal, not written as an object or an array | `P.p(v)` | nothing: a string becomes its `String` object, whose characters the spread copies as V8 does (QuickJS copies nothing from a primitive) |
//! | the object of `"key" in v` (a literal key) | `P.k(v, key)` | nothing: it throws V8's `TypeError` when `v` is no object (`Cannot use 'in' operator to search for 'key' in ...`) |
//! | after an object pattern nested in another, without a default (`{ data: { items } }`), anywhere | ` = P.o(void 0, kind, key, "")` | nothing: the default applies only to `undefined`, and throws V8's `Cannot read properties of undefined (reading 'items')` |
//!
//! Each returns its last argument unchanged (`P.s`, `P.h` a function that calls it), so the
//! program computes what it computed before. `it` is the iteration vector of the innermost loop
//! body, fork callback or local function body around the probe (`0` outside any).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// What kind of node a probe reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProbeKind {
    /// An MCP tool call or capability call site (`P.s`).
    Call,
    /// A `code:*` operation (`P.b` / `P.e`).
    Operation,
    /// An `if`, ternary or `&&`/`||` guard decision (`P.d`): outcome `true`/`false`.
    Decision,
    /// A `??` guard (`P.n`): outcome `true` when the left side is `null` or `undefined`.
    Nullish,
    /// A `switch` decision (`P.w`, `P.c`, `P.x`): the outcome is the index of the case taken in
    /// the node's `outcomes`.
    Switch,
    /// A loop's body (`P.i`): one call per iteration.
    Loop,
    /// The callback of a `Promise.all(xs.map(...))` fork (`P.i`), one call per element.
    ForkCallback,
    /// `Promise.all` starts (`P.f`).
    Fork,
    /// `Promise.all` settles (`P.j`).
    Join,
    /// The body of a local function (`P.i`): one call per time it is called.
    Function,
    /// A call of a local function (`P.h`): reports as an operation (start, end, success).
    Invoke,
}

/// One probe of the instrumented program: probe `k` is `probes[k - 1]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    pub kind: ProbeKind,
    /// A call directly under `await` (`await mcp.s.t(...)`, `(await mcp.s.t(...)).x`): the
    /// program cannot tell when it completed, only that it did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaited: bool,
    /// Inside a `catch` handler: it runs only if something before it threw.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guarded: bool,
    /// The length of the iteration vector `it` it reports with: how many loop bodies, fork
    /// callbacks and local function bodies are around it (what the executor checks every
    /// report against).
    #[serde(default)]
    pub depth: u32,
    /// The node ids it reports for. One, except where the builder unrolled a callback over a
    /// literal array (one node per element): then the last index of the iteration vector
    /// (the element) picks the node.
    pub nodes: Vec<String>,
}

impl Probe {
    /// The node this probe reports for at `iteration`.
    pub fn node(&self, iteration: &[u32]) -> Option<&str> {
        match self.nodes.as_slice() {
            [one] => Some(one),
            many => {
                let last = *iteration.last()? as usize;
                many.get(last).map(String::as_str)
            }
        }
    }
}

/// The program rewritten with probes (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instrumented {
    /// The instrumented JavaScript: same lines as the program.
    pub source: String,
    /// The name of the probe object the source reads (a free identifier of `source`).
    pub namespace: String,
    pub probes: Vec<Probe>,
    /// The program races promises (`Promise.race`, `Promise.any`): which call settles first
    /// is part of what it computes.
    #[serde(default)]
    pub observes_timing: bool,
    /// `(offset in the program, bytes inserted there)`, by offset.
    insertions: Vec<(usize, usize)>,
}

impl Instrumented {
    /// The probe with number `k` (1-based).
    pub fn probe(&self, k: u32) -> Option<&Probe> {
        (k as usize).checked_sub(1).and_then(|i| self.probes.get(i))
    }

    /// The text `program` (the original source) has where the instrumented source has `text`
    /// (a function's text, as the engine shows it): the same code without the probes. `None`
    /// when `text` is not part of the instrumented source. A text holding probes occurs once
    /// (their numbers differ), so the first occurrence is the one.
    pub fn original_text<'p>(&self, program: &'p str, text: &str) -> Option<&'p str> {
        let start = self.source.find(text)?;
        let end = start + text.len();
        program.get(self.to_original(start)..self.to_original(end))
    }

    /// The offset in the original program of offset `offset` of the instrumented source: the
    /// text inserted before it taken out (a position inside inserted text maps to where it was
    /// inserted).
    fn to_original(&self, offset: usize) -> usize {
        let mut shift = 0;
        for &(at, len) in &self.insertions {
            if offset <= at + shift {
                break;
            }
            if offset < at + shift + len {
                return at;
            }
            shift += len;
        }
        offset - shift
    }

    /// The program's 1-based column for a 1-based (`line`, `column`) of the instrumented
    /// source (`program` is the original source). Columns count characters.
    pub fn original_column(&self, program: &str, line: usize, column: usize) -> usize {
        self.original_place(program, line, column).0
    }

    /// [`Instrumented::original_column`], and whether the place is in the text of a probe
    /// (then the column is where that text was inserted: the start or the end of the code
    /// the probe wraps).
    pub fn original_place(&self, program: &str, line: usize, column: usize) -> (usize, bool) {
        let Some(start) = line_start(&self.source, line) else {
            return (column, false);
        };
        let rest = &self.source[start..];
        let offset = start
            + rest
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(rest.len(), |(i, _)| i);
        // Walk the insertions: a position inside inserted text maps to where it was inserted.
        let mut shift = 0;
        let mut original = offset;
        let mut probed = false;
        for &(at, len) in &self.insertions {
            if offset < at + shift {
                original = offset - shift;
                break;
            }
            if offset < at + shift + len {
                original = at;
                probed = true;
                break;
            }
            shift += len;
            original = offset - shift;
        }
        let original = original.min(program.len());
        let Some(program_line) = line_start(program, line) else {
            return (column, probed);
        };
        let column =
            (program.get(program_line..original)).map_or(column, |text| text.chars().count() + 1);
        (column, probed)
    }
}

/// The byte offset where 1-based `line` starts.
fn line_start(text: &str, line: usize) -> Option<usize> {
    if line <= 1 {
        return Some(0);
    }
    text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)
}

/// Where a probe's code goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Site {
    /// `P.s(k, it, ` callee `)`.
    Call {
        callee: (usize, usize),
        awaited: bool,
    },
    /// `P.e(k, it, ` whole `)` and `P.b(k, ` operand `)`.
    Operation {
        whole: (usize, usize),
        operand: (usize, usize),
    },
    /// `P.d(k, it, ` test `)` (or `P.n` for [`ProbeKind::Nullish`]).
    Test { test: (usize, usize) },
    /// `(P.d(k, it, true), (` what runs `))`: the outcome that leads to `at`, reported as it
    /// starts (what decides cannot be wrapped: the target of `x ||= ...`, or the callee of an
    /// optional call, whose `this` a wrapper would lose).
    Taken { at: (usize, usize), taken: Taken },
    /// `P.w(k, it, ` discriminant `)`, `P.c(k, i, ` test `)` per case, `P.x(k);` at the
    /// default clause (or a default clause added before the closing brace).
    Switch {
        discriminant: (usize, usize),
        cases: Vec<(usize, usize)>,
        /// Where the default clause's statements start; `None`: add `default: P.x(k);` at
        /// `close` (the offset of the switch's `}`).
        default: Option<usize>,
        close: usize,
    },
    /// The start of a body run once per iteration.
    Body(Body),
    /// `P.f(k, it, ` Promise `)`.
    Fork { promise: (usize, usize) },
    /// `P.j(k, it, ` call `)`.
    Join { call: (usize, usize) },
    /// `P.h(k, it, ` function `)`.
    Invoke { function: (usize, usize) },
}

/// The outcome a [`Site::Taken`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Taken {
    /// `P.d(k, it, true)`.
    True,
    /// `P.d(k, it, false)`.
    False,
    /// `P.n(k, it, null)`: nullish.
    Nullish,
    /// `P.n(k, it, 0)`: not nullish.
    NotNullish,
}

/// A body that runs once per iteration, and how to declare its iteration vector in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Body {
    /// A block: declare after its `{` (the offset of the `{`).
    Block(usize),
    /// A single statement: wrap it in a block.
    Statement((usize, usize)),
    /// An arrow function's expression body: `{const ...; return (` expr `);}`.
    Expression((usize, usize)),
}

impl Body {
    /// The offset where the iteration variable is declared: names the variable.
    fn key(&self) -> usize {
        match *self {
            Body::Block(open) => open,
            Body::Statement((lo, _)) | Body::Expression((lo, _)) => lo,
        }
    }
}

/// One probe as recorded during the walk.
#[derive(Debug, Clone)]
struct Recorded {
    kind: ProbeKind,
    /// Index of its node in the builder's node list (rollback drops it with the node).
    node: usize,
    site: Site,
    /// The iteration variable in scope (the key of its body), if any.
    iteration: Option<usize>,
    /// How many bodies with an iteration variable are around it.
    depth: usize,
    /// Inside a `catch` handler.
    guarded: bool,
}

/// What the builder records while it walks (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    on: bool,
    recorded: Vec<Recorded>,
    /// The bodies being walked that declare an iteration variable, innermost last.
    bodies: Vec<usize>,
    observes_timing: bool,
    /// `catch` handlers being walked.
    handlers: usize,
    /// Part of the probe object's name (`BuildOptions::probe_secret`).
    pub(crate) secret: Option<u64>,
    /// The values of object destructurings, and what follows the value in `P.o(`...`)`.
    guards: Vec<((usize, usize), String)>,
    /// Where nested object patterns end, and the default they get: `P.o(void 0, kind, key)`.
    nested: Vec<(usize, String)>,
    /// The objects of `"key" in v`, and the key: `P.k(v, key)`.
    searched: Vec<((usize, usize), String)>,
    /// The values spread into object literals: `P.p(v)`.
    spread: Vec<(usize, usize)>,
    /// The `try` statements with a handler: see [`Catch`].
    catches: Vec<Catch>,
}

/// A `try` statement with a handler: the nodes its block made (by index), where the handler's
/// block opens, and the iteration variable in scope there.
#[derive(Debug, Clone)]
struct Catch {
    nodes: std::ops::Range<usize>,
    open: usize,
    iteration: Option<usize>,
}

impl Recorder {
    pub(crate) fn new(on: bool) -> Self {
        Recorder {
            on,
            ..Default::default()
        }
    }

    /// Records a probe for the node at index `node`.
    pub(crate) fn record(&mut self, kind: ProbeKind, node: usize, site: Site) {
        if self.on {
            self.recorded.push(Recorded {
                kind,
                node,
                site,
                iteration: self.bodies.last().copied(),
                depth: self.bodies.len(),
                guarded: self.handlers > 0,
            });
        }
    }

    /// Whether it records (the program is instrumented).
    pub(crate) fn on(&self) -> bool {
        self.on
    }

    /// Guards the value at `value` of an object destructuring: `P.o(value, kind, key, text)`
    /// throws V8's `TypeError` when it is `undefined` or `null` (what `words` says, see
    /// [`crate::culprit::Destructured`]) and is the value otherwise.
    pub(crate) fn guard(&mut self, value: (usize, usize), words: &crate::culprit::Destructured) {
        if self.on {
            let (kind, key, text) = words.parts();
            let string = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
            let close = format!(",{kind},{},{})", string(key), string(text));
            self.guards.push((value, close));
        }
    }

    /// Gives the object pattern nested in another that ends at `end` (and has no default) the
    /// default `P.o(void 0, kind, key, "")`: it applies only when the value is `undefined`,
    /// where the engine would throw, and throws V8's `TypeError` instead (`Cannot read
    /// properties of undefined (reading 'items')`). A function's `length` does not change: the
    /// default is inside a parameter's pattern, never the parameter's own.
    pub(crate) fn guard_nested(&mut self, end: usize, kind: u8, key: &str) {
        if self.on {
            let key = serde_json::to_string(key).unwrap_or_else(|_| "\"\"".to_owned());
            self.nested.push((end, format!("{kind},{key},\"\")")));
        }
    }

    /// Guards the object at `object` of `key in object`: `P.k(object, key)` (`key`: the key's
    /// JavaScript, a literal or a name, read again) throws V8's `TypeError` when it is no object
    /// (`Cannot use 'in' operator to search for 'content' in Echo: hi`) and is the object
    /// otherwise.
    pub(crate) fn guard_in(&mut self, object: (usize, usize), key: &str) {
        if self.on {
            self.searched.push((object, format!(",{key})")));
        }
    }

    /// Records a loop body or fork callback of node `node` and makes its iteration variable
    /// the one in scope until [`Recorder::leave`].
    pub(crate) fn enter(&mut self, kind: ProbeKind, node: usize, body: Body) {
        self.record(kind, node, Site::Body(body));
        self.bodies.push(body.key());
    }

    pub(crate) fn leave(&mut self) {
        self.bodies.pop();
    }

    /// Walking a `catch` handler (until [`Recorder::leave_handler`]).
    pub(crate) fn enter_handler(&mut self) {
        self.handlers += 1;
    }

    pub(crate) fn leave_handler(&mut self) {
        self.handlers = self.handlers.saturating_sub(1);
    }

    /// The value at `value` is spread into an object literal (`{ ...v }`): `P.p(v)` is a string
    /// as an object (its characters copied, as V8 copies them; QuickJS copies nothing from a
    /// primitive), anything else itself.
    pub(crate) fn spread(&mut self, value: (usize, usize)) {
        if self.on {
            self.spread.push(value);
        }
    }

    /// A `try` whose block made nodes `nodes` has a handler whose block opens at `open`: its
    /// start reports the block's operations that threw (`P.t`).
    pub(crate) fn catching(&mut self, nodes: std::ops::Range<usize>, open: usize) {
        if self.on && !nodes.is_empty() {
            self.catches.push(Catch {
                nodes,
                open,
                iteration: self.bodies.last().copied(),
            });
        }
    }

    /// The program races promises.
    pub(crate) fn observe_timing(&mut self) {
        self.observes_timing = true;
    }

    /// Forgets the probes of nodes `nodes..` (rolled back).
    pub(crate) fn rollback(&mut self, nodes: usize) {
        self.recorded.retain(|r| r.node < nodes);
        self.catches.retain(|c| c.nodes.end <= nodes);
    }

    /// The instrumented program, or `None` when instrumentation is off. `ids` are the node ids
    /// by index.
    pub(crate) fn finish(self, program: &str, ids: &[&str]) -> Option<Instrumented> {
        if !self.on {
            return None;
        }
        let namespace = free_name(program, self.secret);
        // Probes at the same place (a callback unrolled once per element) are one probe.
        let mut probes: Vec<Probe> = Vec::new();
        let mut sites: Vec<(ProbeKind, Site, Option<usize>)> = Vec::new();
        let mut seen: HashMap<(ProbeKind, Site), usize> = HashMap::new();
        // The operations' probes (numbers), by node index: what a handler reports.
        let mut operations: Vec<(usize, usize)> = Vec::new();
        for r in self.recorded {
            let Some(id) = ids.get(r.node) else { continue };
            if r.kind == ProbeKind::Operation {
                let k = seen
                    .get(&(r.kind, r.site.clone()))
                    .map_or(sites.len(), |&i| i)
                    + 1;
                operations.push((r.node, k));
            }
            match seen.get(&(r.kind, r.site.clone())) {
                // A loop body entered again for the next unrolled element is the same node.
                Some(&i) if probes[i].nodes.last().map(String::as_str) == Some(*id) => {}
                Some(&i) => probes[i].nodes.push((*id).to_owned()),
                None => {
                    seen.insert((r.kind, r.site.clone()), sites.len());
                    let awaited = matches!(r.site, Site::Call { awaited: true, .. });
                    sites.push((r.kind, r.site, r.iteration));
                    probes.push(Probe {
                        kind: r.kind,
                        awaited,
                        guarded: r.guarded,
                        depth: r.depth as u32,
                        nodes: vec![(*id).to_owned()],
                    });
                }
            }
        }
        let mut edits = Edits::default();
        for (i, (kind, site, iteration)) in sites.iter().enumerate() {
            let k = i + 1;
            let ns = namespace.as_str();
            let it = match iteration {
                Some(key) => format!("{ns}i{key}"),
                None => "0".to_owned(),
            };
            match site {
                Site::Call { callee, .. } => edits.wrap(*callee, format!("{ns}.s({k},{it},"), ")"),
                Site::Operation { whole, operand } => {
                    edits.wrap(*whole, format!("{ns}.e({k},{it},"), ")");
                    edits.wrap(*operand, format!("{ns}.b({k},{it},"), ")");
                }
                Site::Test { test } => {
                    let f = if *kind == ProbeKind::Nullish {
                        'n'
                    } else {
                        'd'
                    };
                    edits.wrap(*test, format!("{ns}.{f}({k},{it},"), ")");
                }
                Site::Taken { at, taken } => {
                    let (f, value) = match taken {
                        Taken::True => ('d', "true"),
                        Taken::False => ('d', "false"),
                        Taken::Nullish => ('n', "null"),
                        Taken::NotNullish => ('n', "0"),
                    };
                    edits.wrap(*at, format!("({ns}.{f}({k},{it},{value}),("), "))");
                }
                Site::Switch {
                    discriminant,
                    cases,
                    default,
                    close,
                } => {
                    edits.wrap(*discriminant, format!("{ns}.w({k},{it},"), ")");
                    for (index, case) in cases.iter().enumerate() {
                        edits.wrap(*case, format!("{ns}.c({k},{it},{index},"), ")");
                    }
                    match default {
                        Some(at) => edits.point(*at, format!("{ns}.x({k},{it});")),
                        // `;` first: the last case may end in a statement without one (ASI).
                        None => edits.point(*close, format!("; default: {ns}.x({k},{it});")),
                    }
                }
                Site::Body(body) => {
                    let declare = format!("const {ns}i{}={ns}.i({k},{it});", body.key());
                    match *body {
                        Body::Block(open) => edits.point(open + 1, declare),
                        Body::Statement(span) => {
                            edits.wrap_outermost(span, format!("{{{declare}"), "}")
                        }
                        Body::Expression(span) => {
                            edits.wrap_outermost(span, format!("{{{declare}return ("), ");}")
                        }
                    }
                }
                Site::Fork { promise } => edits.wrap(*promise, format!("{ns}.f({k},{it},"), ")"),
                Site::Join { call } => edits.wrap(*call, format!("{ns}.j({k},{it},"), ")"),
                Site::Invoke { function } => {
                    edits.wrap(*function, format!("{ns}.h({k},{it},"), ")")
                }
            }
        }
        for catch in &self.catches {
            let mut ks: Vec<usize> = (operations.iter())
                .filter(|(node, _)| catch.nodes.contains(node))
                .map(|&(_, k)| k)
                .collect();
            if ks.is_empty() {
                continue;
            }
            ks.sort_unstable();
            ks.dedup();
            let ks: Vec<String> = ks.iter().map(usize::to_string).collect();
            let it = match catch.iteration {
                Some(key) => format!("{namespace}i{key}"),
                None => "0".to_owned(),
            };
            edits.point(
                catch.open + 1,
                format!("{namespace}.t([{}],{it});", ks.join(",")),
            );
        }
        for (value, close) in &self.guards {
            edits.wrap_outermost(*value, format!("{namespace}.o("), close);
        }
        for (object, close) in &self.searched {
            edits.wrap_outermost(*object, format!("{namespace}.k("), close);
        }
        for value in &self.spread {
            edits.wrap_outermost(*value, format!("{namespace}.p("), ")");
        }
        for (end, words) in &self.nested {
            edits.point(*end, format!(" = {namespace}.o(void 0,{words}"));
        }
        let (source, insertions) = edits.apply(program);
        Some(Instrumented {
            source,
            namespace,
            probes,
            observes_timing: self.observes_timing,
            insertions,
        })
    }
}

/// `__pml` (with a secret: `__pml_<secret as 16 hex digits>`), or that followed by `1`, `2`...:
/// the first that does not occur in the program at all, so neither it nor a name it starts
/// (`__pmli12`) can be one of the program's.
fn free_name(program: &str, secret: Option<u64>) -> String {
    let base = match secret {
        Some(secret) => format!("__pml_{secret:016x}"),
        None => "__pml".to_owned(),
    };
    let mut name = base.clone();
    let mut n = 0;
    while program.contains(&name) {
        n += 1;
        name = format!("{base}{n}");
    }
    name
}

/// Insertions into the program, ordered so that nested wraps stay nested.
#[derive(Default)]
struct Edits {
    /// (offset, order, text): at one offset, closers first (innermost first), then point
    /// insertions, then openers (outermost first).
    items: Vec<(usize, (u8, i64, usize), String)>,
}

impl Edits {
    /// Wraps `lo..hi`: inside what was wrapped around the same span before, outside what is
    /// wrapped around it later.
    fn wrap(&mut self, span: (usize, usize), open: String, close: &str) {
        let seq = self.items.len();
        self.wrap_as(span, open, close, seq);
    }

    /// Wraps `lo..hi` outside every other wrap of the same span (a body that declares the
    /// iteration variable the probes inside it read).
    fn wrap_outermost(&mut self, span: (usize, usize), open: String, close: &str) {
        let seq = usize::MAX / 2 + self.items.len();
        self.wrap_as(span, open, close, seq);
    }

    fn wrap_as(&mut self, (lo, hi): (usize, usize), open: String, close: &str, seq: usize) {
        let len = (hi - lo) as i64;
        self.items.push((hi, (0, len, seq), close.to_owned()));
        self.items.push((lo, (2, -len, usize::MAX - seq), open));
    }

    fn point(&mut self, at: usize, text: String) {
        let seq = self.items.len();
        self.items.push((at, (1, 0, seq), text));
    }

    fn apply(mut self, program: &str) -> (String, Vec<(usize, usize)>) {
        self.items.sort_by_key(|item| (item.0, item.1));
        let extra: usize = self.items.iter().map(|(_, _, t)| t.len()).sum();
        let mut out = String::with_capacity(program.len() + extra);
        let mut insertions: Vec<(usize, usize)> = Vec::new();
        let mut copied = 0;
        // A word inserted against a word (`return(x)` wrapped: `return __pml.e(...)`) is kept
        // apart from it by a space, or the two would read as one name.
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        for (at, _, text) in &self.items {
            let at = (*at).clamp(copied, program.len());
            out.push_str(&program[copied..at]);
            copied = at;
            let before = out.len();
            if word(out.chars().next_back()) && word(text.chars().next()) {
                out.push(' ');
            }
            out.push_str(text);
            if word(text.chars().next_back()) && word(program[at..].chars().next()) {
                out.push(' ');
            }
            let added = out.len() - before;
            match insertions.last_mut() {
                Some((last, len)) if *last == at => *len += added,
                _ => insertions.push((at, added)),
            }
        }
        out.push_str(&program[copied..]);
        (out, insertions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_map_back_through_insertions() {
        let program = "const a = f(x);\nreturn a;";
        let mut edits = Edits::default();
        edits.wrap((10, 14), "P.e(1,0,".to_owned(), ")");
        edits.wrap((12, 13), "P.b(1,0,".to_owned(), ")");
        let (source, insertions) = edits.apply(program);
        assert_eq!(source, "const a = P.e(1,0,f(P.b(1,0,x)));\nreturn a;");
        let inst = Instrumented {
            source,
            namespace: "P".into(),
            probes: Vec::new(),
            observes_timing: false,
            insertions,
        };
        // `f` is column 11 in the program, 19 in the instrumented source.
        assert_eq!(inst.original_column(program, 1, 19), 11);
        // `x`: 13 and 29.
        assert_eq!(inst.original_column(program, 1, 29), 13);
        // Inside inserted text: where it was inserted.
        assert_eq!(inst.original_column(program, 1, 12), 11);
        assert_eq!(inst.original_column(program, 2, 8), 8);
    }

    /// What is inserted against a word is kept apart from it: `return(x)` wrapped is not
    /// `returnP.e(...)`.
    #[test]
    fn insertions_against_words_stay_apart() {
        let program = "return(a)in b";
        let mut edits = Edits::default();
        edits.wrap((0, 13), "P.e(1,0,".to_owned(), ")");
        edits.wrap((6, 9), "P.e(2,0,".to_owned(), ")");
        edits.point(9, "x".to_owned());
        let (source, _) = edits.apply(program);
        assert_eq!(source, "P.e(1,0,return P.e(2,0,(a))x in b)");
    }

    #[test]
    fn the_namespace_is_not_in_the_program() {
        assert_eq!(free_name("const x = 1;", None), "__pml");
        assert_eq!(free_name("const __pml = 1; __pml1;", None), "__pml2");
        assert_eq!(
            free_name("const x = 1;", Some(0xab)),
            "__pml_00000000000000ab"
        );
        assert_eq!(
            free_name("__pml_00000000000000ab;", Some(0xab)),
            "__pml_00000000000000ab1"
        );
    }
}
