//! What V8 names in the `TypeError`s a program's own code throws where the value at fault is
//! written in the program: `o.list.map is not a function`, `C is not a constructor`,
//! `data.files is not iterable`. QuickJS says only `not a function`; a program that fails
//! (or catches and reports the message) must say what it says running in Node.
//!
//! Asked only when such an error is thrown, with the place the engine reports for it: the
//! program is parsed again then (by SWC, as everywhere), never on a run that throws none.
//! The expression is printed the way V8's `CallPrinter` prints it: names, `this`, property
//! reads (`o["a"]` as `o.a`, `o[k]`, `o[0]`, `o?.a`), calls as `f(...)`, literals, binary and
//! comma expressions in parentheses, anything else `(intermediate value)`.

use swc_common::Spanned;
use swc_ecma_ast::{
    ArrayLit, AssignOp, AssignTarget, AssignTargetPat, BinaryOp, CallExpr, Callee, Expr,
    ExprOrSpread, ForOfStmt, Lit, MemberExpr, MemberProp, NewExpr, ObjectPat, ObjectPatProp,
    OptCall, OptChainBase, OptChainExpr, Pat, PropName, SimpleAssignTarget, SuperProp, TaggedTpl,
    UnaryOp,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::canon::strip;
use crate::parse::{parse, Dialect, LineIndex};

/// Which error the engine threw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Culprit {
    /// `not a function`: a call (or a `new`: QuickJS says so for some) whose callee is at
    /// fault.
    Callee,
    /// `not a constructor`: a `new` whose callee is at fault.
    Constructor,
    /// An iteration (`for ... of`, a spread) over a value that is not iterable; `nullish` when
    /// the value is `undefined` or `null` (V8 words those otherwise in a call's spread), `null`
    /// when it is `null`.
    Iterable { nullish: bool, null: bool },
    /// `cannot convert to object` in the program's own code where a function's parameter is an
    /// object pattern: the function was given `undefined` (or `null`, which the engine's
    /// message does not tell: `undefined` is said, by far the likelier).
    Parameter,
    /// A write to what is read-only (`'total' is read-only`, QuickJS says of a `const` and of
    /// a read-only property alike): V8's `Assignment to constant variable.` where the place is
    /// an assignment or update of a name; a property's words name its object, which is not
    /// known here (left as the engine has them).
    ReadOnly,
}

/// V8's message for the error `culprit` thrown at byte `offset` of `code` (a program's
/// JavaScript, as [`crate::build_structure`] takes it), or `None` when no expression there
/// fits (the engine's own message stays).
///
/// The engine reports the last place it noted before the fault: in a call's callee when its
/// arguments note none, else in its arguments. `probed`: the place was in the text of a probe
/// of the instrumented program, which had ended (what it wraps was evaluated): the call at
/// fault is one around it, starting before it.
///
/// `operation`: the byte span in `code` of the `code:*` operation the program was running when
/// it threw (started, not ended), if one was: with calls inside calls at the place (`out.push(
/// words.count())`), the one at fault is the call that operation is (its span ends where the
/// call does).
pub fn culprit_message(
    code: &str,
    offset: usize,
    culprit: Culprit,
    probed: bool,
    operation: Option<(usize, usize)>,
) -> Option<String> {
    let lines = LineIndex::new(code);
    let parsed = parse(code, Dialect::JavaScript, &lines).ok()?;
    let at = parsed.base + offset as u32;
    if culprit == Culprit::Parameter {
        return parameter_message(&parsed.body, at);
    }
    if culprit == Culprit::ReadOnly {
        let mut finder = Writes {
            at,
            innermost: None,
        };
        parsed
            .body
            .iter()
            .for_each(|stmt| stmt.visit_with(&mut finder));
        return match finder.innermost? {
            (_, true) => Some("Assignment to constant variable.".to_owned()),
            (_, false) => None,
        };
    }
    let mut touched = Touched::default();
    parsed
        .body
        .iter()
        .for_each(|stmt| stmt.visit_with(&mut touched));
    let mut finder = Finder {
        at,
        culprit,
        probed,
        best: None,
        calls: Vec::new(),
        touched,
    };
    for stmt in &parsed.body {
        stmt.visit_with(&mut finder);
    }
    let found = match culprit {
        Culprit::Callee | Culprit::Constructor => {
            let mut calls = finder.calls;
            // A call whose callee's object holds the place did not fail: the engine notes the
            // callee's own property after its object (`xs.filter(f).map(g)` failing at
            // `filter` is not `map`'s fault). In a probe's text, places are not that precise.
            if calls.len() > 1 && !probed {
                let holds = |s: &swc_common::Span| s.lo.0 <= at && at < s.hi.0;
                calls.retain(|(_, _, object)| !object.as_ref().is_some_and(holds));
            }
            if calls.len() > 1 {
                // The call that is the operation under way, if one is.
                let (_, end) = operation?;
                let end = parsed.base + end as u32;
                calls.retain(|(span, ..)| span.hi.0 == end);
            }
            match calls.len() {
                1 => calls.pop()?.1,
                _ => return None,
            }
        }
        Culprit::Iterable { .. } => finder.best?.1,
        Culprit::Parameter | Culprit::ReadOnly => return None,
    };
    Some(match &found {
        Found::Call(callee) => format!("{} is not a function", print(callee)),
        Found::New(callee) => format!("{} is not a constructor", print(callee)),
        Found::ForOf(Expr::Call(call)) => match &call.callee {
            Callee::Expr(callee) => format!(
                "{} is not a function or its return value is not iterable",
                print(callee)
            ),
            _ => return None,
        },
        Found::ForOf(e) | Found::ArraySpread(e) => format!("{} is not iterable", print(e)),
        Found::CallSpread(e) => match culprit {
            Culprit::Iterable {
                nullish: true,
                null,
            } => {
                let value = match null {
                    true => "null",
                    false => "undefined",
                };
                format!(
                    "{} is not iterable (cannot read property {value})",
                    print(e)
                )
            }
            _ => "Spread syntax requires ...iterable[Symbol.iterator] to be a function".to_owned(),
        },
    })
}

/// V8's message for a function given `undefined` for its object-pattern parameter, where the
/// engine's place `at` is the function (its start, or its parameters) or a call passing it
/// (`rows.map(({ id }) => id)`, the engine's place being the call's): by the pattern's first
/// property, as V8 words a parameter's (`of 'undefined'`).
fn parameter_message(body: &[swc_ecma_ast::Stmt], at: u32) -> Option<String> {
    let mut finder = Parameters {
        at,
        own: None,
        passed: None,
    };
    body.iter().for_each(|stmt| stmt.visit_with(&mut finder));
    let pattern = finder.own.or(finder.passed)?;
    let words = match pattern.props.first() {
        Some(ObjectPatProp::KeyValue(kv)) => match (property_key(&kv.key), &*kv.value) {
            (Some(key), Pat::Assign(a)) if matches!(&*a.left, Pat::Ident(_)) => {
                format!("Cannot read properties of undefined (reading '{key}')")
            }
            (Some(key), _) => {
                format!("Cannot destructure property '{key}' of 'undefined' as it is undefined.")
            }
            (None, _) => "Cannot destructure 'undefined' as it is undefined.".to_owned(),
        },
        Some(ObjectPatProp::Assign(a)) => {
            let key = &a.key.id.sym;
            match a.value {
                Some(_) => format!("Cannot read properties of undefined (reading '{key}')"),
                None => format!(
                    "Cannot destructure property '{key}' of 'undefined' as it is undefined."
                ),
            }
        }
        Some(ObjectPatProp::Rest(_)) | None => {
            "Cannot destructure 'undefined' as it is undefined.".to_owned()
        }
    };
    Some(words)
}

/// The name an assignment writes, under parentheses and type assertions (`(total as any) +=
/// n`).
pub(crate) fn assigned_name(target: &SimpleAssignTarget) -> Option<&swc_ecma_ast::Ident> {
    let expr = match target {
        SimpleAssignTarget::Ident(b) => return Some(&b.id),
        SimpleAssignTarget::Paren(p) => &p.expr,
        SimpleAssignTarget::TsAs(t) => &t.expr,
        SimpleAssignTarget::TsSatisfies(t) => &t.expr,
        SimpleAssignTarget::TsNonNull(t) => &t.expr,
        SimpleAssignTarget::TsTypeAssertion(t) => &t.expr,
        _ => return None,
    };
    match strip(expr) {
        Expr::Ident(i) => Some(i),
        _ => None,
    }
}

/// The innermost assignment or update holding the place: its width, and whether it writes a
/// name (`total += n`, `seen++`) rather than a property or a pattern.
struct Writes {
    at: u32,
    innermost: Option<(u32, bool)>,
}

impl Writes {
    fn write(&mut self, span: swc_common::Span, to_name: bool) {
        if span.lo.0 <= self.at && self.at < span.hi.0.max(span.lo.0 + 1) {
            let width = span.hi.0 - span.lo.0;
            if self.innermost.is_none_or(|(w, _)| width <= w) {
                self.innermost = Some((width, to_name));
            }
        }
    }
}

impl Visit for Writes {
    fn visit_assign_expr(&mut self, a: &swc_ecma_ast::AssignExpr) {
        let to_name = match &a.left {
            AssignTarget::Simple(t) => assigned_name(t).is_some(),
            AssignTarget::Pat(_) => false,
        };
        self.write(a.span, to_name);
        a.visit_children_with(self);
    }

    fn visit_update_expr(&mut self, u: &swc_ecma_ast::UpdateExpr) {
        self.write(u.span, matches!(strip(&u.arg), Expr::Ident(_)));
        u.visit_children_with(self);
    }
}

/// Finds the object-pattern parameter of the function at the engine's place (innermost), or
/// of a function passed by a call there.
struct Parameters {
    at: u32,
    own: Option<ObjectPat>,
    passed: Option<ObjectPat>,
}

/// The first parameter of `params` that is an object pattern (with a default or not).
fn object_param<'p>(params: impl IntoIterator<Item = &'p Pat>) -> Option<&'p ObjectPat> {
    params.into_iter().find_map(|p| match p {
        Pat::Object(o) => Some(o),
        Pat::Assign(a) => match &*a.left {
            Pat::Object(o) => Some(o),
            _ => None,
        },
        _ => None,
    })
}

impl Parameters {
    /// A function spanning `span` whose parameters end where its body starts.
    fn function(&mut self, span: swc_common::Span, body_start: u32, pattern: Option<&ObjectPat>) {
        if span.lo.0 <= self.at && self.at < body_start.max(span.lo.0 + 1) {
            if let Some(p) = pattern {
                self.own = Some(p.clone());
            }
        }
    }
}

impl Visit for Parameters {
    fn visit_arrow_expr(&mut self, f: &swc_ecma_ast::ArrowExpr) {
        self.function(f.span, f.body.span().lo.0, object_param(&f.params));
        f.visit_children_with(self);
    }

    fn visit_function(&mut self, f: &swc_ecma_ast::Function) {
        let body_start = f.body.as_ref().map_or(f.span.hi.0, |b| b.span.lo.0);
        self.function(
            f.span,
            body_start,
            object_param(f.params.iter().map(|p| &p.pat)),
        );
        f.visit_children_with(self);
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        // The engine's place is the call's, or its callee's last name (`map` of `rows.map`).
        let callee_end = match &call.callee {
            Callee::Expr(e) => e.span().hi.0,
            _ => call.span.lo.0,
        };
        if call.span.lo.0 <= self.at && self.at <= callee_end && self.passed.is_none() {
            let passed = call.args.iter().find_map(|a| match strip(&a.expr) {
                Expr::Arrow(f) => object_param(&f.params),
                Expr::Fn(f) => object_param(f.function.params.iter().map(|p| &p.pat)),
                _ => None,
            });
            self.passed = passed.cloned();
        }
        call.visit_children_with(self);
    }
}

enum Found {
    Call(Expr),
    New(Expr),
    ForOf(Expr),
    ArraySpread(Expr),
    CallSpread(Expr),
}

/// What V8 says when a destructuring's value is `undefined` or `null` (QuickJS says `Cannot
/// convert undefined or null to object` for every one): by the pattern's first property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destructured {
    /// `Cannot destructure property 'a' of 'data.result' as it is undefined.`
    Property { key: String, text: String },
    /// The first property has a default (`{ a = 1 }`): `Cannot read properties of undefined
    /// (reading 'a')`.
    Reading { key: String },
    /// No property, or the first is computed or a rest: `Cannot destructure 'data.result' as
    /// it is undefined.`
    Whole { text: String },
    /// An array pattern's value, when it is no iterable: `rows is not iterable` (kind 4, a name
    /// or an `await`), `load is not a function or its return value is not iterable` (kind 5, a
    /// call of a name), or said by its value (kind 6: `object is not iterable (cannot read
    /// property Symbol(Symbol.iterator))`, `number 5 ...`).
    Iterable { kind: u8, text: String },
}

impl Destructured {
    /// 0, 1, 2 and the words in between, as the sandbox's probe object takes them.
    pub(crate) fn parts(&self) -> (u8, &str, &str) {
        match self {
            Destructured::Property { key, text } => (0, key, text),
            Destructured::Reading { key } => (1, key, ""),
            Destructured::Whole { text } => (2, "", text),
            Destructured::Iterable { kind, text } => (*kind, "", text),
        }
    }
}

/// What instrumenting a program guards so that its errors say V8's words, found in one walk
/// of its body ([`guards`]; the probes `P.o` and `P.k` of `instrument.rs`).
#[derive(Default)]
pub(crate) struct Guards {
    /// Every destructuring of a value the program computes, anywhere (`const { a } = v`,
    /// `({ a } = v)`, `const [first] = rows`): the value's span and what V8 says when it is
    /// `undefined` or `null` (an object pattern's) or no iterable (an array pattern's). (A
    /// parameter's, a loop head's and a `catch`'s patterns have no value written there.)
    pub(crate) values: Vec<(swc_common::Span, Destructured)>,
    /// Every object pattern nested in another without a default of its own (`{ data: { items }
    /// }`, `[{ a }]`), anywhere (declarations, parameters, assignments, loop heads): where it
    /// ends, and what V8 says when its value is `undefined` (`Cannot read properties of
    /// undefined (reading 'items')`, kind 1; a rest first, kind 3, says no property). A pattern
    /// whose first property is computed, or that has none, is left out (V8 names the outer
    /// property there).
    pub(crate) nested: Vec<(u32, u8, String)>,
    /// Every `key in v` whose key is a string or number literal or a name: the span of `v` and
    /// the key as JavaScript to read it again (a name has no side effect, and was read just
    /// before).
    pub(crate) searches: Vec<(swc_common::Span, String)>,
    /// Every value spread into an object literal (`{ ...v }`) that is not written as an object
    /// or an array: one that is a string has its characters copied, as in V8 (QuickJS copies
    /// nothing from a primitive).
    pub(crate) spreads: Vec<swc_common::Span>,
}

/// The [`Guards`] of `body`.
pub(crate) fn guards(body: &[swc_ecma_ast::Stmt]) -> Guards {
    let mut found = Guards::default();
    body.iter().for_each(|stmt| stmt.visit_with(&mut found));
    found
}

impl Guards {
    fn note(&mut self, pattern: &ObjectPat, value: &Expr) {
        // What is written as an object, a function or a literal other than `null` is neither
        // `undefined` nor `null`.
        if matches!(
            strip(value),
            Expr::Object(_)
                | Expr::Array(_)
                | Expr::Fn(_)
                | Expr::Arrow(_)
                | Expr::Class(_)
                | Expr::Tpl(_)
                | Expr::New(_)
                | Expr::Lit(
                    Lit::Str(_) | Lit::Num(_) | Lit::Bool(_) | Lit::BigInt(_) | Lit::Regex(_)
                )
        ) {
            return;
        }
        // V8 prints an optional chain standing alone as an intermediate value.
        let text = || match strip(value) {
            Expr::OptChain(_) => INTERMEDIATE.to_owned(),
            _ => print(value),
        };
        let words = match pattern.props.first() {
            Some(ObjectPatProp::KeyValue(kv)) => match (property_key(&kv.key), &*kv.value) {
                (None, _) => Destructured::Whole { text: text() },
                (Some(key), Pat::Assign(a)) if matches!(&*a.left, Pat::Ident(_)) => {
                    Destructured::Reading { key }
                }
                // V8 names the default's value there.
                (Some(key), Pat::Assign(a)) => Destructured::Property {
                    key,
                    text: print(&a.right),
                },
                (Some(key), _) => Destructured::Property { key, text: text() },
            },
            Some(ObjectPatProp::Assign(a)) => {
                let key = a.key.id.sym.to_string();
                match a.value {
                    Some(_) => Destructured::Reading { key },
                    None => Destructured::Property { key, text: text() },
                }
            }
            Some(ObjectPatProp::Rest(_)) | None => Destructured::Whole { text: text() },
        };
        self.values.push((value.span(), words));
    }
}

impl Guards {
    /// A pattern nested in another: guarded when it is an object pattern (see
    /// [`Guards::nested`]).
    fn inner(&mut self, pattern: &Pat) {
        let Pat::Object(inner) = pattern else {
            return;
        };
        let words = match inner.props.first() {
            Some(ObjectPatProp::KeyValue(kv)) => property_key(&kv.key).map(|key| (1, key)),
            Some(ObjectPatProp::Assign(a)) => Some((1, a.key.id.sym.to_string())),
            Some(ObjectPatProp::Rest(_)) => Some((3, String::new())),
            None => None,
        };
        if let Some((kind, key)) = words {
            self.nested.push((inner.span.hi.0, kind, key));
        }
    }
}

/// A pattern's property name as V8 prints it, unless computed.
fn property_key(key: &PropName) -> Option<String> {
    match key {
        PropName::Ident(i) => Some(i.sym.to_string()),
        PropName::Str(s) => Some(s.value.to_string_lossy().into_owned()),
        PropName::Num(n) => Some(crate::fold::number_to_string(n.value)),
        PropName::BigInt(b) => Some(b.value.to_string()),
        PropName::Computed(_) => None,
    }
}

impl Guards {
    /// The value of an array pattern: what V8 says when it is no iterable (a declaration's
    /// `declared`, an assignment's not: V8 says those by their value).
    fn note_array(&mut self, value: &Expr, declared: bool) {
        if makes_an_array(value) {
            return;
        }
        let words = match strip(value) {
            // Iterable, or worded otherwise by V8 (`{(intermediate value)} is not iterable`).
            Expr::Array(_) | Expr::Tpl(_) | Expr::Object(_) | Expr::Lit(Lit::Str(_)) => return,
            Expr::Ident(i) if declared => (4, i.sym.to_string()),
            // V8 names a literal as it is written (`5 is not iterable`).
            Expr::Lit(lit @ (Lit::Num(_) | Lit::Bool(_) | Lit::Null(_))) if declared => {
                let mut text = String::new();
                literal(lit, &mut text);
                (4, text)
            }
            Expr::Await(_) if declared => (4, INTERMEDIATE.to_owned()),
            Expr::Call(CallExpr {
                callee: Callee::Expr(callee),
                ..
            }) if declared && matches!(&**callee, Expr::Ident(_)) => (5, print(callee)),
            _ => (6, String::new()),
        };
        let (kind, text) = words;
        self.values
            .push((value.span(), Destructured::Iterable { kind, text }));
    }
}

/// Whether `value` is an array whenever it is computed: `await Promise.all(...)`,
/// `Object.entries(...)`, `line.split(",")`, `xs.map(f)`... (the methods of arrays and strings
/// that make arrays; a value that is not one of those is no harm here: its pattern is just not
/// guarded, and the engine's words stay).
fn makes_an_array(value: &Expr) -> bool {
    let value = match strip(value) {
        Expr::Await(a) => strip(&a.arg),
        v => v,
    };
    let Expr::Call(CallExpr {
        callee: Callee::Expr(callee),
        ..
    }) = value
    else {
        return false;
    };
    match static_path(strip(callee)).as_slice() {
        ["Promise", "all" | "allSettled"]
        | ["Object", "entries" | "keys" | "values"]
        | ["Array", "from" | "of"] => true,
        _ => match strip(callee) {
            Expr::Member(m) => matches!(
                &m.prop,
                MemberProp::Ident(p) if matches!(
                    &*p.sym,
                    "split" | "map" | "filter" | "slice" | "concat" | "flat" | "flatMap"
                        | "sort" | "toSorted" | "toReversed" | "matchAll"
                )
            ),
            _ => false,
        },
    }
}

impl Visit for Guards {
    fn visit_object_lit(&mut self, object: &swc_ecma_ast::ObjectLit) {
        for prop in &object.props {
            if let swc_ecma_ast::PropOrSpread::Spread(spread) = prop {
                if !matches!(strip(&spread.expr), Expr::Object(_) | Expr::Array(_)) {
                    self.spreads.push(spread.expr.span());
                }
            }
        }
        object.visit_children_with(self);
    }

    fn visit_object_pat(&mut self, pattern: &ObjectPat) {
        for prop in &pattern.props {
            if let ObjectPatProp::KeyValue(kv) = prop {
                self.inner(&kv.value);
            }
        }
        pattern.visit_children_with(self);
    }

    fn visit_array_pat(&mut self, pattern: &swc_ecma_ast::ArrayPat) {
        for element in pattern.elems.iter().flatten() {
            self.inner(element);
        }
        pattern.visit_children_with(self);
    }

    fn visit_bin_expr(&mut self, b: &swc_ecma_ast::BinExpr) {
        if b.op == BinaryOp::In {
            let key = match strip(&b.left) {
                Expr::Lit(Lit::Str(s)) => serde_json::to_string(&s.value.to_string_lossy()).ok(),
                Expr::Lit(Lit::Num(n)) => Some(crate::fold::number_to_string(n.value)),
                Expr::Ident(i) if &*i.sym != "undefined" => Some(i.sym.to_string()),
                _ => None,
            };
            if let Some(key) = key {
                self.searches.push((b.right.span(), key));
            }
        }
        b.visit_children_with(self);
    }

    fn visit_var_declarator(&mut self, d: &swc_ecma_ast::VarDeclarator) {
        match (&d.name, &d.init) {
            (Pat::Object(pattern), Some(value)) => self.note(pattern, value),
            (Pat::Array(_), Some(value)) => self.note_array(value, true),
            _ => {}
        }
        d.visit_children_with(self);
    }

    fn visit_assign_expr(&mut self, a: &swc_ecma_ast::AssignExpr) {
        match (a.op, &a.left) {
            (AssignOp::Assign, AssignTarget::Pat(AssignTargetPat::Object(pattern))) => {
                self.note(pattern, &a.right)
            }
            (AssignOp::Assign, AssignTarget::Pat(AssignTargetPat::Array(_))) => {
                self.note_array(&a.right, false)
            }
            _ => {}
        }
        a.visit_children_with(self);
    }
}

/// Global functions of the language and of the runtime a program calls.
const FUNCTIONS: &[&str] = &[
    "BigInt",
    "Symbol",
    "parseInt",
    "parseFloat",
    "isNaN",
    "isFinite",
    "encodeURIComponent",
    "decodeURIComponent",
    "encodeURI",
    "decodeURI",
    "structuredClone",
    "setTimeout",
    "setInterval",
    "queueMicrotask",
    "atob",
    "btoa",
];

/// Global constructors (functions too).
const CONSTRUCTORS: &[&str] = &[
    "String",
    "Number",
    "Boolean",
    "Object",
    "Array",
    "Date",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "Promise",
    "RegExp",
    "Error",
    "TypeError",
    "RangeError",
    "SyntaxError",
    "URL",
    "URLSearchParams",
    "TextEncoder",
    "TextDecoder",
];

/// Functions among the members of global objects.
const MEMBERS: &[(&str, &[&str])] = &[
    ("JSON", &["parse", "stringify"]),
    (
        "console",
        &[
            "log", "info", "warn", "error", "debug", "dir", "table", "trace", "assert",
        ],
    ),
    (
        "Math",
        &[
            "abs", "ceil", "floor", "round", "trunc", "sign", "max", "min", "pow", "sqrt", "cbrt",
            "hypot", "log", "log2", "log10", "exp", "random",
        ],
    ),
    (
        "Object",
        &[
            "keys",
            "values",
            "entries",
            "assign",
            "fromEntries",
            "freeze",
            "create",
            "getOwnPropertyNames",
            "getPrototypeOf",
            "defineProperty",
            "is",
        ],
    ),
    ("Array", &["from", "isArray", "of"]),
    (
        "Promise",
        &["all", "allSettled", "race", "any", "resolve", "reject"],
    ),
    (
        "Number",
        &[
            "isInteger",
            "isFinite",
            "isNaN",
            "isSafeInteger",
            "parseFloat",
            "parseInt",
        ],
    ),
    ("Date", &["now", "parse", "UTC"]),
    ("String", &["fromCharCode", "fromCodePoint", "raw"]),
];

/// Names under `mcp.server` and `capabilities` that are not tools: what every object has, and
/// what `await` looks for.
const NOT_TOOLS: &[&str] = &[
    "then",
    "catch",
    "finally",
    "constructor",
    "toString",
    "toLocaleString",
    "valueOf",
    "toJSON",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "__proto__",
];

/// `o.a["b"].c` as `["o", "a", "b", "c"]`; empty unless a name with static keys.
fn static_path(e: &Expr) -> Vec<&str> {
    match strip(e) {
        Expr::Ident(i) => vec![&*i.sym],
        Expr::Member(m) => member_path(m),
        _ => Vec::new(),
    }
}

/// [`static_path`] of a member expression.
fn member_path(m: &MemberExpr) -> Vec<&str> {
    let mut path = static_path(&m.obj);
    let key = match &m.prop {
        MemberProp::Ident(i) => Some(&*i.sym),
        MemberProp::Computed(c) => match &*c.expr {
            Expr::Lit(Lit::Str(s)) => s.value.as_str(),
            _ => None,
        },
        MemberProp::PrivateName(_) => None,
    };
    match (path.is_empty(), key) {
        (false, Some(key)) => {
            path.push(key);
            path
        }
        _ => Vec::new(),
    }
}

/// What a program does to the global names [`Finder::cannot_fail`] relies on: the names it
/// declares anywhere or assigns to, the paths it assigns to or redefines (`JSON.stringify =`,
/// `Object.assign(console, ...)`), and whether it can reach them otherwise (`globalThis`,
/// `eval`, `with`).
#[derive(Default)]
struct Touched {
    names: std::collections::HashSet<String>,
    paths: Vec<Vec<String>>,
    /// Names read as values (not as a callee nor as the object of a member).
    escaped: std::collections::HashSet<String>,
    everything: bool,
    /// Per name: how many times the program binds or assigns it, and how many of those bind
    /// it to an array literal (`const out = []`). A name always bound to one is an array
    /// (whatever its scope): its array methods are functions.
    bound: std::collections::HashMap<String, (u32, u32)>,
}

/// `Array.prototype`'s methods in Node 20.
const ARRAY_METHODS: &[&str] = &[
    "at",
    "concat",
    "copyWithin",
    "entries",
    "every",
    "fill",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flat",
    "flatMap",
    "forEach",
    "includes",
    "indexOf",
    "join",
    "keys",
    "lastIndexOf",
    "map",
    "pop",
    "push",
    "reduce",
    "reduceRight",
    "reverse",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "toLocaleString",
    "toReversed",
    "toSorted",
    "toSpliced",
    "toString",
    "unshift",
    "values",
    "with",
];

impl Touched {
    /// `name` is bound or assigned, to an array literal or not.
    fn bind(&mut self, name: &str, array: bool) {
        let (all, arrays) = self.bound.entry(name.to_owned()).or_default();
        *all += 1;
        *arrays += u32::from(array);
    }

    /// `name` holds an array wherever the program has it, and no array method was changed.
    fn is_array(&self, name: &str) -> bool {
        self.bound
            .get(name)
            .is_some_and(|&(all, arrays)| all > 0 && all == arrays)
            && !self
                .paths
                .iter()
                .any(|p| p.first().is_some_and(|r| r == "Array"))
    }

    /// `e` is assigned to, deleted or redefined.
    fn target(&mut self, e: &Expr) {
        match strip(e) {
            Expr::Member(m) => self.target_member(m),
            e => self.touch(static_path(e), e),
        }
    }

    fn target_member(&mut self, m: &MemberExpr) {
        self.touch(member_path(m), &m.obj);
    }

    /// `path` is changed; without a static path (`o[k] = ...`), the name at the root of `root`.
    fn touch(&mut self, path: Vec<&str>, mut root: &Expr) {
        match path.first() {
            Some(&"globalThis" | &"global") => self.everything = true,
            Some(_) => self
                .paths
                .push(path.iter().map(|s| (*s).to_owned()).collect()),
            None => {
                while let Expr::Member(m) = strip(root) {
                    root = &m.obj;
                }
                if let Expr::Ident(i) = strip(root) {
                    self.names.insert(i.sym.to_string());
                }
            }
        }
    }
}

impl Visit for Touched {
    fn visit_binding_ident(&mut self, b: &swc_ecma_ast::BindingIdent) {
        self.names.insert(b.id.sym.to_string());
        self.bind(&b.id.sym, false);
    }

    fn visit_var_declarator(&mut self, d: &swc_ecma_ast::VarDeclarator) {
        match (&d.name, d.init.as_deref().map(strip)) {
            (Pat::Ident(b), Some(Expr::Array(_))) => {
                self.names.insert(b.id.sym.to_string());
                self.bind(&b.id.sym, true);
                d.init.visit_with(self);
            }
            _ => d.visit_children_with(self),
        }
    }

    fn visit_fn_decl(&mut self, f: &swc_ecma_ast::FnDecl) {
        self.names.insert(f.ident.sym.to_string());
        self.bind(&f.ident.sym, false);
        f.visit_children_with(self);
    }

    fn visit_class_decl(&mut self, c: &swc_ecma_ast::ClassDecl) {
        self.names.insert(c.ident.sym.to_string());
        self.bind(&c.ident.sym, false);
        c.visit_children_with(self);
    }

    fn visit_simple_assign_target(&mut self, t: &SimpleAssignTarget) {
        match t {
            SimpleAssignTarget::Ident(i) => {
                self.names.insert(i.id.sym.to_string());
                self.bind(&i.id.sym, false);
            }
            SimpleAssignTarget::Member(m) => self.target_member(m),
            _ => {}
        }
        t.visit_children_with(self);
    }

    fn visit_update_expr(&mut self, u: &swc_ecma_ast::UpdateExpr) {
        self.target(&u.arg);
        u.visit_children_with(self);
    }

    fn visit_unary_expr(&mut self, u: &swc_ecma_ast::UnaryExpr) {
        if u.op == UnaryOp::Delete {
            self.target(&u.arg);
        }
        u.visit_children_with(self);
    }

    fn visit_with_stmt(&mut self, w: &swc_ecma_ast::WithStmt) {
        self.everything = true;
        w.visit_children_with(self);
    }

    fn visit_ident(&mut self, i: &swc_ecma_ast::Ident) {
        if matches!(
            &*i.sym,
            "globalThis" | "global" | "eval" | "Function" | "Reflect"
        ) {
            self.everything = true;
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Ident(i) = e {
            self.escaped.insert(i.sym.to_string());
        }
        e.visit_children_with(self);
    }

    fn visit_member_expr(&mut self, m: &MemberExpr) {
        match &*m.obj {
            // The object of a member is not held: only its member is read.
            Expr::Ident(i) => self.visit_ident(i),
            obj => obj.visit_with(self),
        }
        m.prop.visit_with(self);
    }

    fn visit_callee(&mut self, c: &Callee) {
        match c {
            Callee::Expr(e) => match &**e {
                Expr::Ident(i) => self.visit_ident(i),
                e => e.visit_with(self),
            },
            other => other.visit_children_with(self),
        }
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        // `Object.assign(console, ...)`, `Object.defineProperty(JSON, ...)`...
        if let Callee::Expr(callee) = &call.callee {
            let redefines = matches!(
                static_path(strip(callee)).as_slice(),
                [
                    "Object",
                    "assign" | "defineProperty" | "defineProperties" | "setPrototypeOf"
                ]
            );
            if let (true, Some(first)) = (redefines, call.args.first()) {
                self.target(&first.expr);
            }
        }
        call.visit_children_with(self);
    }
}

/// What holds the reported place: the innermost iterable, or the calls and `new`s.
struct Finder {
    at: u32,
    culprit: Culprit,
    probed: bool,
    /// (width of the expression, what it is).
    best: Option<(u32, Found)>,
    /// Calls and `new`s holding the place: each one's whole span, its callee, and the span of
    /// the callee's object when it is a member (`xs.filter(f)` of `xs.filter(f).map(g)`).
    calls: Vec<(swc_common::Span, Found, Option<swc_common::Span>)>,
    /// The global names the program declares, assigns or redefines.
    touched: Touched,
}

impl Finder {
    /// `e` found (`make` of a copy of it) if it holds the place and is the innermost so far.
    fn consider(&mut self, e: &Expr, make: fn(Expr) -> Found) {
        self.consider_in(e.span(), e, make);
    }

    /// [`Finder::consider`] of `e`, the place being anywhere in `span` (a declaration of it).
    fn consider_in(&mut self, span: swc_common::Span, e: &Expr, make: fn(Expr) -> Found) {
        if span.lo.0 > self.at || self.at >= span.hi.0.max(span.lo.0 + 1) {
            return;
        }
        let width = span.hi.0 - span.lo.0;
        if self.best.as_ref().is_none_or(|(w, _)| width <= *w) {
            self.best = Some((width, make(e.clone())));
        }
    }

    /// A call or `new` at fault: one holding the place (after a probe, past its start). The
    /// engine's place is the last it noted, in the callee or in the arguments: with calls
    /// inside calls there (`a(b.c())`, `xs.filter(f).map(g)`), which of them failed is not
    /// known, and nothing is said.
    fn callee(&mut self, whole: swc_common::Span, callee: &Expr, constructing: bool) {
        let starts = match self.probed {
            true => whole.lo.0 < self.at,
            false => whole.lo.0 <= self.at,
        };
        if starts && self.at < whole.hi.0 && !self.cannot_fail(callee, constructing) {
            let found = match constructing {
                true => Found::New(callee.clone()),
                false => Found::Call(callee.clone()),
            };
            let object = match strip(callee) {
                Expr::Member(m) => Some(m.obj.span()),
                _ => None,
            };
            self.calls.push((whole, found, object));
        }
    }

    /// A callee that cannot be the one at fault: a global function of the language or of the
    /// runtime (`JSON.stringify`, `console.log`, `new Set`), a tool (`mcp.fs.read_file`) or a
    /// capability, in a program that leaves its name alone. Then, with a call inside its
    /// arguments (`JSON.stringify(report.items.map(f))`), the inner one is named.
    fn cannot_fail(&self, callee: &Expr, constructing: bool) -> bool {
        if self.touched.everything {
            return false;
        }
        let path = static_path(callee);
        // An array method of a name that only ever holds an array (`out.push(words.count())`).
        if let [root, method] = path.as_slice() {
            let assigned = (self.touched.paths.iter())
                .any(|p| p.len() <= 2 && p.iter().zip(&path).all(|(a, b)| a == b));
            if !constructing
                && ARRAY_METHODS.contains(method)
                && self.touched.is_array(root)
                && !assigned
            {
                return true;
            }
        }
        let fits = match (self.culprit, path.as_slice()) {
            (_, []) => false,
            (_, [root, ..]) if self.touched.names.contains(*root) => false,
            (Culprit::Constructor, [name]) => CONSTRUCTORS.contains(name),
            (Culprit::Constructor, _) => false,
            (_, [name]) => FUNCTIONS.contains(name) || CONSTRUCTORS.contains(name),
            (_, ["mcp", _, tool]) | (_, ["capabilities", tool]) => {
                !constructing && !NOT_TOOLS.contains(tool)
            }
            (_, [owner, name]) => {
                !constructing
                    && MEMBERS
                        .iter()
                        .any(|(o, names)| o == owner && names.contains(name))
            }
            _ => false,
        };
        // An object held elsewhere could be changed there (`const J = JSON; J.parse = 1`).
        let escaped = path.len() > 1 && self.touched.escaped.contains(path[0]);
        let assigned = (self.touched.paths.iter())
            .any(|p| p.len() <= path.len() && p.iter().zip(&path).all(|(a, b)| a == b));
        fits && !escaped && !assigned
    }

    fn spreads(&mut self, args: &[ExprOrSpread], make: fn(Expr) -> Found) {
        if let Culprit::Iterable { .. } = self.culprit {
            for arg in args.iter().filter(|a| a.spread.is_some()) {
                self.consider(&arg.expr, make);
            }
        }
    }
}

impl Finder {
    /// Entering a function that holds the place: the engine noted it in that function's own
    /// frame, so the calls around the function are not the ones at fault.
    fn enter(&mut self, span: swc_common::Span) {
        if span.lo.0 < self.at && self.at < span.hi.0 {
            self.calls.clear();
        }
    }
}

impl Visit for Finder {
    fn visit_arrow_expr(&mut self, arrow: &swc_ecma_ast::ArrowExpr) {
        self.enter(arrow.span);
        arrow.visit_children_with(self);
    }

    fn visit_function(&mut self, function: &swc_ecma_ast::Function) {
        self.enter(function.span);
        function.visit_children_with(self);
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        if let (Culprit::Callee, Callee::Expr(callee)) = (self.culprit, &call.callee) {
            self.callee(call.span, callee, false);
        }
        self.spreads(&call.args, Found::CallSpread);
        call.visit_children_with(self);
    }

    fn visit_opt_call(&mut self, call: &OptCall) {
        if let Culprit::Callee = self.culprit {
            self.callee(call.span, &call.callee, false);
        }
        self.spreads(&call.args, Found::CallSpread);
        call.visit_children_with(self);
    }

    fn visit_tagged_tpl(&mut self, tagged: &TaggedTpl) {
        if let Culprit::Callee = self.culprit {
            self.callee(tagged.span, &tagged.tag, false);
        }
        tagged.visit_children_with(self);
    }

    fn visit_new_expr(&mut self, new: &NewExpr) {
        if let Culprit::Callee | Culprit::Constructor = self.culprit {
            self.callee(new.span, &new.callee, true);
        }
        self.spreads(new.args.as_deref().unwrap_or_default(), Found::CallSpread);
        new.visit_children_with(self);
    }

    fn visit_var_declarator(&mut self, d: &swc_ecma_ast::VarDeclarator) {
        // `const [first] = rows` of what is no iterable: V8 names a name (`rows is not
        // iterable`) or a call (`load is not a function or its return value is not iterable`);
        // of other values it says their type and value, not known here.
        if let (Culprit::Iterable { .. }, Pat::Array(_), Some(init)) =
            (self.culprit, &d.name, d.init.as_deref())
        {
            if matches!(strip(init), Expr::Ident(_) | Expr::Call(_)) {
                self.consider_in(d.span, init, Found::ForOf);
            }
        }
        d.visit_children_with(self);
    }

    fn visit_for_of_stmt(&mut self, stmt: &ForOfStmt) {
        if let (Culprit::Iterable { .. }, false) = (self.culprit, stmt.is_await) {
            self.consider(&stmt.right, Found::ForOf);
        }
        stmt.visit_children_with(self);
    }

    fn visit_array_lit(&mut self, array: &ArrayLit) {
        if let Culprit::Iterable { .. } = self.culprit {
            for element in array.elems.iter().flatten() {
                if element.spread.is_some() {
                    self.consider(&element.expr, Found::ArraySpread);
                }
            }
        }
        array.visit_children_with(self);
    }
}

/// `e` as V8's `CallPrinter` prints it.
fn print(e: &Expr) -> String {
    let mut out = String::new();
    write(e, &mut out);
    out
}

const INTERMEDIATE: &str = "(intermediate value)";

fn write(e: &Expr, out: &mut String) {
    if let Some(n) = folded(e) {
        // V8's parser folds operators over number literals (`o[1 + 1]` is `o[2]`).
        out.push_str(&crate::fold::number_to_string(n));
        return;
    }
    match e {
        Expr::Ident(i) => out.push_str(&i.sym),
        Expr::This(_) => out.push_str("this"),
        Expr::Paren(p) => write(&p.expr, out),
        Expr::Member(m) => member(m, false, out),
        Expr::SuperProp(s) => {
            out.push_str("super");
            match &s.prop {
                SuperProp::Ident(i) => {
                    out.push('.');
                    out.push_str(&i.sym);
                }
                SuperProp::Computed(c) => key(&c.expr, false, out),
            }
        }
        Expr::Call(c) => match &c.callee {
            Callee::Expr(callee) => {
                write(callee, out);
                out.push_str("(...)");
            }
            _ => out.push_str(INTERMEDIATE),
        },
        // A tagged template is a call.
        Expr::TaggedTpl(t) => {
            write(&t.tag, out);
            out.push_str("(...)");
        }
        Expr::OptChain(chain) => opt_chain(chain, out),
        Expr::Lit(lit) => literal(lit, out),
        // A template without substitutions is a string; with some, V8 prints those only.
        Expr::Tpl(t) if t.exprs.is_empty() => {
            match t.quasis.first().and_then(|q| q.cooked.as_ref()) {
                Some(cooked) => {
                    out.push('"');
                    out.push_str(&cooked.to_string_lossy());
                    out.push('"');
                }
                None => out.push_str(INTERMEDIATE),
            }
        }
        Expr::Tpl(t) => t.exprs.iter().for_each(|e| write(e, out)),
        Expr::Array(array) => {
            out.push('[');
            for (i, element) in array.elems.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(element) = element {
                    match element.spread {
                        Some(_) => {
                            out.push_str("(...");
                            write(&element.expr, out);
                            out.push(')');
                        }
                        None => write(&element.expr, out),
                    }
                }
            }
            out.push(']');
        }
        // Each property's value is not printed.
        Expr::Object(object) => {
            out.push('{');
            object.props.iter().for_each(|_| out.push_str(INTERMEDIATE));
            out.push('}');
        }
        // Nor are a conditional's three parts.
        Expr::Cond(_) => (0..3).for_each(|_| out.push_str(INTERMEDIATE)),
        Expr::Unary(u) => {
            out.push('(');
            out.push_str(u.op.as_str());
            if matches!(u.op, UnaryOp::TypeOf | UnaryOp::Void | UnaryOp::Delete) {
                out.push(' ');
            }
            write(&u.arg, out);
            out.push(')');
        }
        // An assignment prints as what it assigns to.
        Expr::Assign(a) => match &a.left {
            AssignTarget::Simple(SimpleAssignTarget::Ident(i)) => out.push_str(&i.id.sym),
            AssignTarget::Simple(SimpleAssignTarget::Member(m)) => member(m, false, out),
            _ => out.push_str(INTERMEDIATE),
        },
        Expr::Bin(b) => {
            out.push('(');
            write(&b.left, out);
            out.push(' ');
            out.push_str(b.op.as_str());
            out.push(' ');
            write(&b.right, out);
            out.push(')');
        }
        Expr::Seq(seq) => {
            out.push('(');
            for (i, e) in seq.exprs.iter().enumerate() {
                if i > 0 {
                    out.push_str(" , ");
                }
                write(e, out);
            }
            out.push(')');
        }
        _ => out.push_str(INTERMEDIATE),
    }
}

/// ECMAScript's `ToInt32`.
fn to_int32(n: f64) -> i32 {
    match n.is_finite() {
        true => n.trunc().rem_euclid(4_294_967_296.0) as u32 as i32,
        false => 0,
    }
}

/// The number V8's parser makes of `e`: a number literal, or an arithmetic or bitwise
/// operator (binary, or unary `-`, `+`, `~`) over such (folded as it parses).
fn folded(e: &Expr) -> Option<f64> {
    let int = to_int32;
    let uint = |n: f64| to_int32(n) as u32;
    match e {
        Expr::Lit(Lit::Num(n)) => Some(n.value),
        Expr::Paren(p) => folded(&p.expr),
        Expr::Unary(u) => {
            let n = folded(&u.arg)?;
            match u.op {
                UnaryOp::Minus => Some(-n),
                UnaryOp::Plus => Some(n),
                UnaryOp::Tilde => Some(f64::from(!int(n))),
                _ => None,
            }
        }
        Expr::Bin(b) => {
            let (x, y) = (folded(&b.left)?, folded(&b.right)?);
            Some(match b.op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Mod => x % y,
                BinaryOp::Exp => pml_jstext::math::pow(x, y),
                BinaryOp::BitOr => f64::from(int(x) | int(y)),
                BinaryOp::BitAnd => f64::from(int(x) & int(y)),
                BinaryOp::BitXor => f64::from(int(x) ^ int(y)),
                BinaryOp::LShift => f64::from(int(x).wrapping_shl(uint(y) & 31)),
                BinaryOp::RShift => f64::from(int(x) >> (uint(y) & 31)),
                BinaryOp::ZeroFillRShift => f64::from(uint(x) >> (uint(y) & 31)),
                _ => return None,
            })
        }
        _ => None,
    }
}

fn member(m: &MemberExpr, optional: bool, out: &mut String) {
    write(&m.obj, out);
    match &m.prop {
        MemberProp::Ident(i) => {
            out.push_str(if optional { "?." } else { "." });
            out.push_str(&i.sym);
        }
        MemberProp::PrivateName(p) => {
            out.push_str(if optional { "?.#" } else { ".#" });
            out.push_str(&p.name);
        }
        MemberProp::Computed(c) => key(&c.expr, optional, out),
    }
}

/// A computed key: a string as a name (`o["a"]` is `o.a`), anything else in brackets.
fn key(k: &Expr, optional: bool, out: &mut String) {
    let text = match k {
        Expr::Lit(Lit::Str(s)) => Some(s.value.to_string_lossy().into_owned()),
        Expr::Tpl(t) if t.exprs.is_empty() && t.quasis.len() == 1 => t.quasis[0]
            .cooked
            .as_ref()
            .map(|c| c.to_string_lossy().into_owned()),
        _ => None,
    };
    match text {
        Some(name) => {
            out.push_str(if optional { "?." } else { "." });
            out.push_str(&name);
        }
        None => {
            out.push_str(if optional { "?.[" } else { "[" });
            write(k, out);
            out.push(']');
        }
    }
}

fn opt_chain(chain: &OptChainExpr, out: &mut String) {
    match &*chain.base {
        OptChainBase::Member(m) => member(m, chain.optional, out),
        OptChainBase::Call(c) => {
            write(&c.callee, out);
            out.push_str(if chain.optional { "?.(...)" } else { "(...)" });
        }
    }
}

fn literal(lit: &Lit, out: &mut String) {
    match lit {
        Lit::Str(s) => {
            out.push('"');
            out.push_str(&s.value.to_string_lossy());
            out.push('"');
        }
        Lit::Num(n) => out.push_str(&crate::fold::number_to_string(n.value)),
        Lit::Bool(b) => out.push_str(if b.value { "true" } else { "false" }),
        Lit::Null(_) => out.push_str("null"),
        Lit::Regex(r) => {
            out.push('/');
            out.push_str(&r.exp);
            out.push('/');
            out.push_str(&r.flags);
        }
        _ => out.push_str(INTERMEDIATE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(code: &str, marker: &str, culprit: Culprit) -> Option<String> {
        culprit_message(code, code.find(marker).unwrap(), culprit, false, None)
    }

    #[test]
    fn calls_around_the_failing_link_of_a_chain_are_not_at_fault() {
        let callee = Culprit::Callee;
        let code = "const r = xs.filter((n) => n > 2).map((n) => n * 2).sort();";
        assert_eq!(
            at(code, "filter", callee).as_deref(),
            Some("xs.filter is not a function")
        );
        assert_eq!(
            at(code, "map", callee).as_deref(),
            Some("xs.filter(...).map is not a function")
        );
        // Inside the arguments, either call may be the one.
        assert_eq!(at("o.pus(words.count());", "count", callee), None);
    }

    #[test]
    fn array_patterns_name_their_value() {
        let iterable = Culprit::Iterable {
            nullish: false,
            null: false,
        };
        assert_eq!(
            at("const [first] = rows;", "first", iterable).as_deref(),
            Some("rows is not iterable")
        );
        assert_eq!(
            at("const [a, b] = load(1);", "a,", iterable).as_deref(),
            Some("load is not a function or its return value is not iterable")
        );
        // Of another value V8 says its type and value.
        assert_eq!(at("const [a] = o.r;", "a]", iterable), None);
    }

    #[test]
    fn writes_to_a_const_name_are_assignments_to_a_constant() {
        let read_only = Culprit::ReadOnly;
        let constant = Some("Assignment to constant variable.".to_owned());
        assert_eq!(
            at(
                "const t = 0;\nfor (const n of xs) t += n;",
                "t +=",
                read_only
            ),
            constant
        );
        assert_eq!(
            at("const seen = 0;\nseen++;", "seen++", read_only),
            constant
        );
        assert_eq!(at("const s = 0;\nf(s = 2);", "s = 2", read_only), constant);
        // A property's words name its object, not known here.
        assert_eq!(
            at("const o = {};\no.retries = 2;", "o.retries", read_only),
            None
        );
        assert_eq!(at("const a = 1;\n[a] = [2];", "[a]", read_only), None);
    }

    #[test]
    fn callees_print_as_v8_prints_them() {
        let callee = Culprit::Callee;
        let cases = [
            (
                "o.list.map((v) => v);",
                "map",
                "o.list.map is not a function",
            ),
            ("o[\"list\"]();", "o[", "o.list is not a function"),
            ("o[k]();", "o[", "o[k] is not a function"),
            ("o.items[0]();", "items", "o.items[0] is not a function"),
            (
                "o.f().toFixed2();",
                "toFixed2",
                "o.f(...).toFixed2 is not a function",
            ),
            ("x(1, 2);", "x(", "x is not a function"),
            ("o?.list?.map();", "map", "o?.list?.map is not a function"),
            (
                "(await load()).x.y();",
                "y(",
                "(intermediate value).x.y is not a function",
            ),
            ("[1, 2].foo();", "foo", "[1,2].foo is not a function"),
            ("\"str\".foo();", "foo", "\"str\".foo is not a function"),
            (
                "(o.nope || b).c();",
                "c(",
                "(o.nope || b).c is not a function",
            ),
            ("(0, o.a)();", "o.a", "(0 , o.a) is not a function"),
            (
                "JSON.parse(s).items.forEach((x) => x);",
                "forEach",
                "JSON.parse(...).items.forEach is not a function",
            ),
            ("t.fmt`x`;", "fmt", "t.fmt is not a function"),
            ("new o.list();", "o.list", "o.list is not a constructor"),
            (
                "new o.items[0]();",
                "items",
                "o.items[0] is not a constructor",
            ),
            ("this.nope();", "nope", "this.nope is not a function"),
        ];
        for (code, marker, expected) in cases {
            assert_eq!(
                at(code, marker, callee).as_deref(),
                Some(expected),
                "{code}"
            );
        }
        assert_eq!(at("const a = 1 + 2;", "1", callee), None);
        // Which of two calls holding the place failed is not known.
        assert_eq!(at("a(b.c());", "c(", callee), None);
        assert_eq!(
            at("xs.filter((n) => n > 2).map((n) => n);", "n > 2", callee),
            None
        );
        let constructor = Culprit::Constructor;
        assert_eq!(
            at("new (o.f())();", "o.f", constructor).as_deref(),
            Some("o.f(...) is not a constructor")
        );
        assert_eq!(at("o.f();", "o", constructor), None);
        // The calls around the function the place is in are another frame's.
        let code = "attempt(() => report.sections.map((s) => s.rows.length));";
        assert_eq!(
            at(code, "map", callee).as_deref(),
            Some("report.sections.map is not a function")
        );
        // After a probe around an argument (`o.list.map(P.b(k, (v) => v))`): the call around.
        let code = "o.list.map(items.filter((x) => x));";
        let probed =
            |marker: &str| culprit_message(code, code.find(marker).unwrap(), callee, true, None);
        assert_eq!(probed("(x)"), None);
        assert_eq!(
            probed("items").as_deref(),
            Some("o.list.map is not a function")
        );
    }

    /// A call inside the arguments of one that cannot fail (a global function, a tool, a
    /// capability): the inner one is at fault, unless the program changes the outer one.
    #[test]
    fn calls_inside_calls_that_cannot_fail_are_named() {
        let callee = Culprit::Callee;
        let named = [
            "JSON.stringify(report.items.map((x) => x));",
            "console.log(report.items.map((x) => x));",
            "String(report.items.map((x) => x));",
            "new Set(report.items.map((x) => x));",
            "Promise.all(report.items.map((x) => x));",
            "await mcp.filesystem.write_file({ content: report.items.map((x) => x) });",
            "await capabilities.summarize({ text: report.items.map((x) => x) });",
            "JSON.parse(JSON.stringify(report.items.map((x) => x)));",
            // An array method of a name that only ever holds an array.
            "const out = [];\nout.push(report.items.map((x) => x));",
            "let rows = [1];\nrows.unshift(report.items.map((x) => x));",
        ];
        for code in named {
            assert_eq!(
                at(code, "map", callee).as_deref(),
                Some("report.items.map is not a function"),
                "{code}"
            );
        }
        let unknown = [
            // Any function may be the one.
            "report.concat(report.items.map((x) => x));",
            // The program changes, holds or hides the outer one.
            "JSON.stringify = 5; JSON.stringify(report.items.map((x) => x));",
            "Object.assign(console, { log: 1 }); console.log(report.items.map((x) => x));",
            "const J = JSON; J.stringify(report.items.map((x) => x));",
            "const { filesystem } = mcp; mcp.filesystem.write_file(report.items.map((x) => x));",
            "function f(String) { return String(report.items.map((x) => x)); }",
            "globalThis.String = 1; String(report.items.map((x) => x));",
            "mcp.filesystem.then(report.items.map((x) => x));",
            // A name that holds something else somewhere, or whose method was changed.
            "let out = [];\nout = {};\nout.push(report.items.map((x) => x));",
            "const out = [];\nfunction f(out) { out.push(report.items.map((x) => x)); }",
            "const out = [];\nout.push = 1;\nout.push(report.items.map((x) => x));",
            "const out = [];\nArray.prototype.push = 1;\nout.push(report.items.map((x) => x));",
            "const out = [];\nout.pushAll(report.items.map((x) => x));",
        ];
        for code in unknown {
            assert_eq!(at(code, "map", callee), None, "{code}");
        }
        // `new` of a function that is not a constructor may be the one.
        let constructor = Culprit::Constructor;
        assert_eq!(
            at("new Map(new report.Items());", "Items", constructor).as_deref(),
            Some("report.Items is not a constructor")
        );
        assert_eq!(
            at("new parseInt(new report.Items());", "Items", constructor),
            None
        );
    }

    /// What V8's `CallPrinter` prints of expressions the examples above do not meet, as Node
    /// 20 printed them in `Cannot destructure property 'a' of '...'`.
    #[test]
    fn expressions_print_as_v8_prints_them() {
        let cases = [
            ("o[1 + 1]", "o[2]"),
            ("o[(1 + 2) * 3 % 5]", "o[4]"),
            ("o[2 ** 3 | 1]", "o[9]"),
            ("o[1 - -1]", "o[2]"),
            ("o[\"a\" + \"b\"]", "o[(\"a\" + \"b\")]"),
            ("(!o).x", "(!o).x"),
            ("(typeof o).x", "(typeof o).x"),
            ("(void 0)", "(void 0)"),
            ("`x`.y", "\"x\".y"),
            ("`${k}-${n}`.q", "kn.q"),
            ("String.raw`x`.y", "String.raw(...).y"),
            ("/re/g.x", "/re/g.x"),
            ("[...xs][0]", "[(...xs)][0]"),
            ("[1, 2][5]", "[1,2][5]"),
            (
                "({ b: 1, ...c }).a",
                "{(intermediate value)(intermediate value)}.a",
            ),
            (
                "(a ? b : c)",
                "(intermediate value)(intermediate value)(intermediate value)",
            ),
            ("(n = o.x)", "n"),
            ("(o.x = y)", "o.x"),
            ("new Map().get(1)", "(intermediate value).get(...)"),
            ("(k, o).r", "(k , o).r"),
        ];
        for (code, printed) in cases {
            let parsed = parse(
                &format!("({code});"),
                Dialect::JavaScript,
                &LineIndex::new(code),
            )
            .unwrap();
            let swc_ecma_ast::Stmt::Expr(stmt) = &parsed.body[0] else {
                panic!("{code}")
            };
            assert_eq!(print(&stmt.expr), printed, "{code}");
        }
    }

    /// Each object destructuring of a computed value, anywhere, with V8's words for it.
    #[test]
    fn destructurings_say_what_v8_says() {
        let code = "const { a, b } = data.result;\n\
                    let { c = 1 } = f();\n\
                    const { [k]: d } = g, { ...e } = h;\n\
                    const {} = i;\n\
                    ({ \"x-y\": j } = await load());\n\
                    const { n: { m } = {} } = o?.p;\n\
                    xs.map((x) => { const { 1.5: q } = x.q; return q; });\n\
                    const { lit } = { lit: 1 }, [r] = s, { t } = `t`;\n\
                    function w({ u }) { const { v } = u; for (const { z } of v) {} }";
        let parsed = parse(code, Dialect::JavaScript, &LineIndex::new(code)).unwrap();
        let found: Vec<(&str, Destructured)> = guards(&parsed.body)
            .values
            .into_iter()
            .map(|(span, words)| {
                let (lo, hi) = (
                    (span.lo.0 - parsed.base) as usize,
                    (span.hi.0 - parsed.base) as usize,
                );
                (&code[lo..hi], words)
            })
            .collect();
        let property = |key: &str, text: &str| Destructured::Property {
            key: key.to_owned(),
            text: text.to_owned(),
        };
        let whole = |text: &str| Destructured::Whole {
            text: text.to_owned(),
        };
        assert_eq!(
            found,
            [
                ("data.result", property("a", "data.result")),
                (
                    "f()",
                    Destructured::Reading {
                        key: "c".to_owned()
                    }
                ),
                ("g", whole("g")),
                ("h", whole("h")),
                ("i", whole("i")),
                ("await load()", property("x-y", "(intermediate value)")),
                // V8 names the default there.
                ("o?.p", property("n", "{}")),
                ("x.q", property("1.5", "x.q")),
                (
                    "s",
                    Destructured::Iterable {
                        kind: 4,
                        text: "s".to_owned()
                    }
                ),
                ("u", property("v", "u")),
            ]
        );
    }

    #[test]
    fn iterables_print_as_v8_prints_them() {
        let undefined = Culprit::Iterable {
            nullish: true,
            null: false,
        };
        let null = Culprit::Iterable {
            nullish: true,
            null: true,
        };
        let number = Culprit::Iterable {
            nullish: false,
            null: false,
        };
        let cases = [
            (
                "for (const f of data.files) {}",
                "data",
                undefined,
                "data.files is not iterable",
            ),
            (
                "for (const f of o.f()) {}",
                "o.f",
                number,
                "o.f is not a function or its return value is not iterable",
            ),
            (
                "const all = [...u, 1];",
                "u,",
                undefined,
                "u is not iterable",
            ),
            (
                "Math.max(...o.nope);",
                "o.nope",
                undefined,
                "o.nope is not iterable (cannot read property undefined)",
            ),
            (
                "out.push(...tags);",
                "tags",
                null,
                "tags is not iterable (cannot read property null)",
            ),
            (
                "Math.max(...5);",
                "5",
                number,
                "Spread syntax requires ...iterable[Symbol.iterator] to be a function",
            ),
        ];
        for (code, marker, culprit, expected) in cases {
            assert_eq!(
                at(code, marker, culprit).as_deref(),
                Some(expected),
                "{code}"
            );
        }
    }
}
