//! Property tests for `build_structure` and `parameterize`.
//!
//! A generator builds random but syntactically valid agent programs from the pieces agents use
//! (MCP calls with literal / parameter / previous-result / template arguments, `const` literals,
//! `filter`/`map` chains, `if`/`else`, `switch`, ternaries, `Promise.all` of calls and of an
//! unrolled literal `map`, `for..of`, `try`/`catch`/`finally`, labeled blocks left with
//! `break label`, early `return`, nested up to depth 4) and counts, while rendering, what the
//! structure must contain. Arbitrary strings, token soup and mutations of valid programs check
//! that bad input stays data.
//!
//! Runs are deterministic: a fixed RNG seed, and failures persisted to
//! `crates/pml-structure/proptest-regressions/it/props.txt` (replayed first on every run).
//! The same invariant checks run under cargo-fuzz (`fuzz/fuzz_targets/invariants.rs`).

use pml_structure::{
    build_structure, diagnostics, parameterize, BuildOptions, Dialect, NodeKind, Severity,
    StaticStructure,
};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{FileFailurePersistence, RngSeed, TestCaseError, TestRunner};

// ----- configuration ----------------------------------------------------------------------

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        // Shrinking is cheap (a build takes milliseconds) and generated programs are large.
        max_shrink_iters: 20_000,
        rng_seed: RngSeed::Fixed(0x706d_6c5f_7374_7275), // "pml_stru"
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/proptest-regressions/it/props.txt"
        )))),
        ..ProptestConfig::default()
    }
}

fn build(code: &str, dialect: Dialect) -> StaticStructure {
    let options = BuildOptions {
        dialect,
        ..Default::default()
    };
    build_structure(code, &options).structure
}

// ----- invariants (same as fuzz/fuzz_targets/invariants.rs) --------------------------------

/// Diagnostics point inside the input (1-based line within the line count, column within the
/// line + 1), and never `internal-error` (the crate's report of a caught panic).
fn check_diagnostics(code: &str, diags: &[pml_structure::Diagnostic]) -> Result<(), String> {
    let lines: Vec<&str> = code.split('\n').collect();
    for d in diags {
        let (Some(line), Some(column)) = (d.line, d.column) else {
            return Err(format!("diagnostic without a position: {d:?}"));
        };
        if line < 1 || line > lines.len() {
            return Err(format!(
                "diagnostic line {} outside 1..={}: {d:?}",
                line,
                lines.len()
            ));
        }
        let width = lines[line - 1].chars().count();
        if column < 1 || column > width + 1 {
            return Err(format!(
                "diagnostic column {} outside 1..={}: {d:?}",
                column,
                width + 1
            ));
        }
        if d.code == diagnostics::INTERNAL {
            return Err(format!(
                "internal error (a panic in the worker thread?): {d:?}"
            ));
        }
    }
    Ok(())
}

/// Every invariant the crate documents for a structure, for any input.
fn check(code: &str, s: &StaticStructure) -> Result<(), String> {
    pml_structure::check_invariants(code, s)?;
    // The structure's own JSON writer writes serde_json's bytes.
    if s.to_json() != serde_json::to_vec(s).map_err(|e| e.to_string())? {
        return Err("to_json differs from serde_json::to_vec".into());
    }
    Ok(())
}

/// `check`, plus the same for `parameterize`: positions, and code unchanged on errors.
fn check_any_input(code: &str) -> Result<(), String> {
    for dialect in [Dialect::TypeScript, Dialect::JavaScript] {
        let s = build(code, dialect);
        check(code, &s).map_err(|e| format!("{dialect:?}: {e}"))?;
        let p = parameterize(code, dialect);
        check_diagnostics(code, &p.diagnostics).map_err(|e| format!("parameterize: {e}"))?;
        if !p.diagnostics.is_empty() && p.code != code {
            return Err("parameterize changed code it reported errors in".into());
        }
    }
    Ok(())
}

// ----- the program generator --------------------------------------------------------------

/// A literal value, rendered as JavaScript.
#[derive(Debug, Clone)]
enum Lit {
    Num(i32),
    Float(u16),
    Str(String),
    Bool(bool),
    Null,
    Array(Vec<i32>),
}

impl Lit {
    fn render(&self) -> String {
        match self {
            Lit::Num(n) => n.to_string(),
            Lit::Float(n) => format!("{}.5", n),
            Lit::Str(s) => serde_json::to_string(s).unwrap(),
            Lit::Bool(b) => b.to_string(),
            Lit::Null => "null".into(),
            Lit::Array(xs) => format!(
                "[{}]",
                xs.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// A reference to a variable visible at this point (resolved while rendering), with an
/// optional property; `args.items` when nothing is in scope.
#[derive(Debug, Clone)]
struct VarRef {
    pick: Index,
    prop: Option<String>,
}

#[derive(Debug, Clone)]
enum Arg {
    Literal(Lit),
    Param(String),
    Var(VarRef),
    /// `` `<text>${<arg>}/<text>` ``.
    Template(String, Box<Arg>),
}

#[derive(Debug, Clone)]
struct Call {
    server: String,
    tool: String,
    key: String,
    arg: Arg,
}

#[derive(Debug, Clone)]
enum Cond {
    Param(String),
    Truthy(VarRef),
    Greater(VarRef, i32),
    Equals(String, Lit),
}

#[derive(Debug, Clone)]
enum Stmt {
    /// `await mcp.s.t({ k: <arg> });` or `const v = await ...;`
    Call(Option<String>, Call),
    /// `const k = <literal>;`
    Const(String, Lit),
    /// `const c = v.filter(x => x.ok).map(x => x.n);`
    Chain(String, VarRef),
    /// `const v = <cond> ? await mcp..(..) : await mcp..(..);`
    Ternary(String, Cond, Call, Call),
    /// `const [a, b] = await Promise.all([mcp..(..), ...]);` (or one name for the array).
    All(Vec<String>, bool, Vec<Call>),
    /// `const r = await Promise.all(["a", "b"].map(p => mcp.s.t({ k: p })));` (the call's
    /// argument is the element: its `arg` is not used).
    LiteralMap(String, Vec<String>, Call, String),
    If(Cond, Block, Option<Block>),
    /// `switch (args.mode) { case "..": ...; break; ... default: ... }`, each case's body in
    /// braces or not.
    Switch(String, bool, Vec<Block>, Option<Block>),
    ForOf(String, VarRef, Block),
    /// `try { .. } catch (e) { .. }`, with an optional `finally { .. }`.
    Try(Block, String, Block, Option<Block>),
    /// `label: { ..; break label; }`
    Labeled(String, Block),
}

#[derive(Debug, Clone)]
struct Block {
    stmts: Vec<Stmt>,
    /// An early `return` at the end of the block (with a value when `Some(Some(..))`).
    ret: Option<Option<VarRef>>,
}

/// What the rendered program must produce (valid only when it has no `return`).
#[derive(Debug, Clone, Default, PartialEq)]
struct Expected {
    mcp: usize,
    code_tasks: usize,
    forks: usize,
    loops: usize,
    decisions: usize,
    has_return: bool,
}

struct Renderer {
    out: String,
    counter: usize,
    /// Variables in scope, innermost block last.
    scopes: Vec<Vec<String>>,
    expected: Expected,
}

impl Renderer {
    fn fresh(&mut self, stem: &str) -> String {
        self.counter += 1;
        // The `_N` suffix makes names unique and never a keyword.
        format!("{stem}_{}", self.counter)
    }

    fn declare(&mut self, name: String) {
        self.scopes.last_mut().unwrap().push(name);
    }

    fn var(&self, r: &VarRef) -> String {
        let visible: Vec<&String> = self.scopes.iter().flatten().collect();
        let base = if visible.is_empty() {
            "args.items".to_string()
        } else {
            r.pick.get(&visible).to_string()
        };
        match &r.prop {
            Some(p) => format!("{base}.{p}"),
            None => base,
        }
    }

    fn arg(&self, a: &Arg) -> String {
        match a {
            Arg::Literal(l) => l.render(),
            Arg::Param(p) => format!("args.{p}"),
            Arg::Var(r) => self.var(r),
            Arg::Template(text, inner) => {
                let inner = match &**inner {
                    Arg::Literal(l) => l.render(),
                    other => self.arg(other),
                };
                format!("`{text}${{{inner}}}/{text}`")
            }
        }
    }

    fn call(&mut self, c: &Call) -> String {
        self.expected.mcp += 1;
        format!(
            "mcp.{}.{}({{ {}: {} }})",
            c.server,
            c.tool,
            c.key,
            self.arg(&c.arg)
        )
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::Param(p) => format!("args.{p}"),
            Cond::Truthy(r) => self.var(r),
            Cond::Greater(r, n) => format!("{}.length > {n}", self.var(r)),
            Cond::Equals(p, l) => format!("args.{p} === {}", l.render()),
        }
    }

    fn line(&mut self, indent: usize, text: &str) {
        self.out.push_str(&"  ".repeat(indent));
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Renders a block's statements; returns whether the generated subtree makes any node.
    fn block(&mut self, b: &Block, indent: usize) -> bool {
        let mut shaped = false;
        for s in &b.stmts {
            shaped |= self.stmt(s, indent);
        }
        if let Some(value) = &b.ret {
            self.expected.has_return = true;
            let text = match value {
                Some(r) => format!("return {};", self.var(r)),
                None => "return;".to_string(),
            };
            self.line(indent, &text);
        }
        shaped
    }

    fn scoped_block(&mut self, b: &Block, indent: usize) -> bool {
        self.scopes.push(Vec::new());
        let shaped = self.block(b, indent);
        self.scopes.pop();
        shaped
    }

    fn stmt(&mut self, s: &Stmt, indent: usize) -> bool {
        match s {
            Stmt::Call(bind, c) => {
                let call = self.call(c);
                match bind {
                    Some(stem) => {
                        let name = self.fresh(stem);
                        self.line(indent, &format!("const {name} = await {call};"));
                        self.declare(name);
                    }
                    None => self.line(indent, &format!("await {call};")),
                }
                true
            }
            Stmt::Const(stem, lit) => {
                let name = self.fresh(stem);
                self.line(indent, &format!("const {name} = {};", lit.render()));
                self.declare(name);
                false
            }
            Stmt::Chain(stem, src) => {
                let src = self.var(src);
                let name = self.fresh(stem);
                self.expected.code_tasks += 2;
                self.line(
                    indent,
                    &format!("const {name} = {src}.filter(x => x.ok).map(x => x.n);"),
                );
                self.declare(name);
                true
            }
            Stmt::Ternary(stem, cond, yes, no) => {
                let cond = self.cond(cond);
                let (yes, no) = (self.call(yes), self.call(no));
                let name = self.fresh(stem);
                self.expected.decisions += 1;
                self.line(
                    indent,
                    &format!("const {name} = {cond} ? await {yes} : await {no};"),
                );
                self.declare(name);
                true
            }
            Stmt::All(stems, destructure, calls) => {
                let calls: Vec<String> = calls.iter().map(|c| self.call(c)).collect();
                self.expected.forks += 1;
                let names: Vec<String> = if *destructure {
                    stems
                        .iter()
                        .take(calls.len())
                        .map(|s| self.fresh(s))
                        .collect()
                } else {
                    vec![self.fresh(&stems[0])]
                };
                let pattern = if *destructure {
                    format!("[{}]", names.join(", "))
                } else {
                    names[0].clone()
                };
                self.line(
                    indent,
                    &format!(
                        "const {pattern} = await Promise.all([{}]);",
                        calls.join(", ")
                    ),
                );
                for n in names {
                    self.declare(n);
                }
                true
            }
            Stmt::LiteralMap(stem, items, call, param) => {
                let param = self.fresh(param);
                let items: Vec<String> = items
                    .iter()
                    .map(|i| serde_json::to_string(i).unwrap())
                    .collect();
                // The callback's argument is the element: `{ key: param }`.
                let call = format!(
                    "mcp.{}.{}({{ {}: {param} }})",
                    call.server, call.tool, call.key
                );
                self.expected.mcp += items.len();
                self.expected.forks += 1;
                let name = self.fresh(stem);
                self.line(
                    indent,
                    &format!(
                        "const {name} = await Promise.all([{}].map({param} => {call}));",
                        items.join(", ")
                    ),
                );
                self.declare(name);
                true
            }
            Stmt::If(cond, yes, no) => {
                let cond = self.cond(cond);
                self.line(indent, &format!("if ({cond}) {{"));
                let mut shaped = self.scoped_block(yes, indent + 1);
                if let Some(no) = no {
                    self.line(indent, "} else {");
                    shaped |= self.scoped_block(no, indent + 1);
                }
                self.line(indent, "}");
                if shaped {
                    self.expected.decisions += 1;
                }
                shaped
            }
            Stmt::Switch(param, braces, cases, default) => {
                let (open, close) = if *braces {
                    (" {", Some("}"))
                } else {
                    ("", None)
                };
                self.line(indent, &format!("switch (args.{param}) {{"));
                let mut shaped = false;
                for (i, case) in cases.iter().enumerate() {
                    self.line(indent + 1, &format!("case \"{param}{i}\":{open}"));
                    shaped |= self.scoped_block(case, indent + 2);
                    if case.ret.is_none() {
                        self.line(indent + 2, "break;");
                    }
                    if let Some(close) = close {
                        self.line(indent + 1, close);
                    }
                }
                if let Some(d) = default {
                    self.line(indent + 1, &format!("default:{open}"));
                    shaped |= self.scoped_block(d, indent + 2);
                    if let Some(close) = close {
                        self.line(indent + 1, close);
                    }
                }
                self.line(indent, "}");
                if shaped {
                    self.expected.decisions += 1;
                }
                shaped
            }
            Stmt::ForOf(stem, src, body) => {
                let src = self.var(src);
                let item = self.fresh(stem);
                self.expected.loops += 1;
                self.line(indent, &format!("for (const {item} of {src}) {{"));
                self.scopes.push(vec![item]);
                self.block(body, indent + 1);
                self.scopes.pop();
                self.line(indent, "}");
                true
            }
            Stmt::Try(body, err, handler, finalizer) => {
                self.line(indent, "try {");
                let mut shaped = self.scoped_block(body, indent + 1);
                let err = self.fresh(err);
                self.line(indent, &format!("}} catch ({err}) {{"));
                self.scopes.push(vec![err]);
                shaped |= self.block(handler, indent + 1);
                self.scopes.pop();
                if let Some(finalizer) = finalizer {
                    self.line(indent, "} finally {");
                    shaped |= self.scoped_block(finalizer, indent + 1);
                }
                self.line(indent, "}");
                shaped
            }
            Stmt::Labeled(stem, body) => {
                let label = self.fresh(stem);
                self.line(indent, &format!("{label}: {{"));
                let shaped = self.scoped_block(body, indent + 1);
                if body.ret.is_none() {
                    self.line(indent + 1, &format!("break {label};"));
                }
                self.line(indent, "}");
                shaped
            }
        }
    }
}

/// A generated program: its source and what its structure must contain.
#[derive(Debug, Clone)]
struct Program {
    code: String,
    expected: Expected,
}

fn render(b: &Block) -> Program {
    let mut r = Renderer {
        out: String::new(),
        counter: 0,
        scopes: vec![Vec::new()],
        expected: Expected::default(),
    };
    r.block(b, 0);
    Program {
        code: r.out,
        expected: r.expected,
    }
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-zA-Z0-9]{0,6}"
}

/// Server, tool and key names: any identifier-ish name (keywords are valid property names).
fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,7}"
}

fn lit() -> impl Strategy<Value = Lit> {
    prop_oneof![
        any::<i32>().prop_map(Lit::Num),
        any::<u16>().prop_map(Lit::Float),
        "[a-zA-Z0-9 ./_-]{0,12}".prop_map(Lit::Str),
        any::<bool>().prop_map(Lit::Bool),
        Just(Lit::Null),
        prop::collection::vec(-100i32..100, 0..4).prop_map(Lit::Array),
    ]
}

fn var_ref() -> impl Strategy<Value = VarRef> {
    (any::<Index>(), prop::option::of(ident())).prop_map(|(pick, prop)| VarRef { pick, prop })
}

fn arg() -> impl Strategy<Value = Arg> {
    let simple = || {
        prop_oneof![
            lit().prop_map(Arg::Literal),
            ident().prop_map(Arg::Param),
            var_ref().prop_map(Arg::Var),
        ]
    };
    prop_oneof![
        3 => simple(),
        1 => ("[a-z0-9/._-]{0,8}", simple())
            .prop_map(|(text, a)| Arg::Template(text, Box::new(a))),
    ]
}

fn call() -> impl Strategy<Value = Call> {
    (name(), name(), ident(), arg()).prop_map(|(server, tool, key, arg)| Call {
        server,
        tool,
        key,
        arg,
    })
}

fn cond() -> impl Strategy<Value = Cond> {
    prop_oneof![
        ident().prop_map(Cond::Param),
        var_ref().prop_map(Cond::Truthy),
        (var_ref(), 0i32..10).prop_map(|(r, n)| Cond::Greater(r, n)),
        (ident(), lit()).prop_map(|(p, l)| Cond::Equals(p, l)),
    ]
}

fn leaf() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        4 => (prop::option::of(ident()), call()).prop_map(|(b, c)| Stmt::Call(b, c)),
        1 => (ident(), lit()).prop_map(|(n, l)| Stmt::Const(n, l)),
        1 => (ident(), var_ref()).prop_map(|(n, r)| Stmt::Chain(n, r)),
        1 => (ident(), cond(), call(), call()).prop_map(|(n, c, a, b)| Stmt::Ternary(n, c, a, b)),
        1 => (
            prop::collection::vec(ident(), 4),
            any::<bool>(),
            prop::collection::vec(call(), 1..=4),
        )
            .prop_map(|(names, d, calls)| Stmt::All(names, d, calls)),
        1 => (
            ident(),
            prop::collection::vec("[a-z0-9]{1,6}", 1..=3),
            call(),
            ident(),
        )
            .prop_map(|(n, items, c, p)| Stmt::LiteralMap(n, items, c, p)),
    ]
}

fn block_of(stmt: impl Strategy<Value = Stmt>, max: usize) -> impl Strategy<Value = Block> {
    (
        prop::collection::vec(stmt, 0..=max),
        prop::option::weighted(0.1, prop::option::of(var_ref())),
    )
        .prop_map(|(stmts, ret)| Block { stmts, ret })
}

fn stmt() -> impl Strategy<Value = Stmt> {
    // Nested up to depth 4: statements inside blocks inside statements...
    leaf().prop_recursive(4, 48, 4, |inner| {
        let block = || block_of(inner.clone(), 3);
        prop_oneof![
            (cond(), block(), prop::option::of(block())).prop_map(|(c, y, n)| Stmt::If(c, y, n)),
            (
                ident(),
                any::<bool>(),
                prop::collection::vec(block(), 1..=3),
                prop::option::of(block())
            )
                .prop_map(|(p, braces, cases, d)| Stmt::Switch(p, braces, cases, d)),
            (ident(), var_ref(), block()).prop_map(|(i, r, b)| Stmt::ForOf(i, r, b)),
            (block(), ident(), block(), prop::option::of(block()))
                .prop_map(|(b, e, h, f)| Stmt::Try(b, e, h, f)),
            (ident(), block()).prop_map(|(l, b)| Stmt::Labeled(l, b)),
        ]
    })
}

fn program() -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(stmt(), 1..=6),
        prop::option::weighted(0.1, prop::option::of(var_ref())),
    )
        .prop_map(|(stmts, ret)| render(&Block { stmts, ret }))
}

/// Programs without any `return`, whose node counts are exact.
fn program_without_return() -> impl Strategy<Value = Program> {
    program().prop_filter("has an early return", |p| !p.expected.has_return)
}

/// What a structure contains, in the terms of [`Expected`].
fn counted(s: &StaticStructure, has_return: bool) -> Expected {
    let count = |kind| s.nodes.iter().filter(|n| n.kind == kind).count();
    Expected {
        mcp: s.nodes.iter().filter(|n| n.is_mcp()).count(),
        code_tasks: s.nodes.iter().filter(|n| n.is_code()).count(),
        forks: count(NodeKind::Fork),
        loops: count(NodeKind::Loop),
        decisions: count(NodeKind::Decision),
        has_return,
    }
}

// ----- mutations ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Mutation {
    Delete(Index, Index),
    Duplicate(Index, Index),
}

/// The nearest char boundary at or before `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(code: &str, mutations: &[Mutation]) -> String {
    let mut s = code.to_string();
    for m in mutations {
        if s.is_empty() {
            break;
        }
        let (a, b) = match m {
            Mutation::Delete(a, b) | Mutation::Duplicate(a, b) => (a, b),
        };
        let start = floor_boundary(&s, a.index(s.len() + 1));
        // Ranges up to 40 bytes: small edits keep most of the program recognisable.
        let end = floor_boundary(&s, start + b.index(41));
        match m {
            Mutation::Delete(..) => s.replace_range(start..end, ""),
            Mutation::Duplicate(..) => {
                let piece = s[start..end].to_string();
                s.insert_str(end, &piece);
            }
        }
    }
    s
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(
        prop_oneof![
            (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Delete(a, b)),
            (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Duplicate(a, b)),
        ],
        1..=4,
    )
}

// ----- properties --------------------------------------------------------------------------

/// Run a property on a thread with a large stack: shrinking values of the recursive program
/// strategy recurses deeply, more than a test thread's default 2 MiB allows in a debug build.
/// The strategy is built on that thread (proptest's boxed strategies are not `Send`).
fn run<S: Strategy>(
    cases: u32,
    strategy: fn() -> S,
    test: fn(S::Value) -> Result<(), TestCaseError>,
) {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(scope, move || {
                let mut runner = TestRunner::new(config(cases));
                if let Err(e) = runner.run(&strategy(), test) {
                    panic!("{e}\n{runner}");
                }
            })
            .expect("spawn the property thread");
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

/// Generated programs are valid: no error diagnostics (nor warnings: nothing in them is
/// dynamic, impure or hidden in a function), in either dialect.
#[test]
fn valid_programs_have_no_diagnostics() {
    run(128, program, |p| {
        for dialect in [Dialect::TypeScript, Dialect::JavaScript] {
            let s = build(&p.code, dialect);
            prop_assert!(
                s.diagnostics.iter().all(|d| d.severity != Severity::Error),
                "{dialect:?}: error diagnostics {:?}\n{}",
                s.diagnostics,
                p.code
            );
            prop_assert!(
                s.diagnostics.is_empty(),
                "{dialect:?}: warnings {:?}\n{}",
                s.diagnostics,
                p.code
            );
            prop_assert!(parameterize(&p.code, dialect).diagnostics.is_empty());
        }
        Ok(())
    });
}

/// Ids, edges, scopes, reachability, spans and bindings are consistent.
#[test]
fn valid_programs_satisfy_the_invariants() {
    run(128, program, |p| {
        let s = build(&p.code, Dialect::TypeScript);
        if let Err(why) = check(&p.code, &s) {
            prop_assert!(false, "{why}\n{}", p.code);
        }
        Ok(())
    });
}

/// The same input gives byte-identical JSON.
#[test]
fn building_is_deterministic() {
    run(64, program, |p| {
        let a = serde_json::to_string(&build(&p.code, Dialect::TypeScript)).unwrap();
        let b = serde_json::to_string(&build(&p.code, Dialect::TypeScript)).unwrap();
        prop_assert_eq!(a, b);
        Ok(())
    });
}

/// One MCP task per call site (one per element for an unrolled literal `map`), two code tasks
/// per `filter`/`map` chain, a fork per `Promise.all`, a loop per `for..of`, a decision per
/// ternary and per `if`/`switch` that holds a node.
#[test]
fn node_counts_match_the_program() {
    run(128, program_without_return, |p| {
        let s = build(&p.code, Dialect::TypeScript);
        prop_assert_eq!(counted(&s, false), p.expected.clone(), "\n{}", p.code);
        Ok(())
    });
}

/// With early returns, calls after a `return` are skipped, never invented.
#[test]
fn early_return_only_removes_calls() {
    run(128, program, |p| {
        let s = build(&p.code, Dialect::TypeScript);
        let mcp = s.nodes.iter().filter(|n| n.is_mcp()).count();
        prop_assert!(
            mcp <= p.expected.mcp,
            "{mcp} > {}\n{}",
            p.expected.mcp,
            p.code
        );
        Ok(())
    });
}

/// Mutated programs (byte ranges deleted or duplicated) never panic and keep the invariants.
#[test]
fn mutated_programs_are_data() {
    run(
        128,
        || (program(), mutations()),
        |(p, m)| {
            let code = mutate(&p.code, &m);
            if let Err(why) = check_any_input(&code) {
                prop_assert!(false, "{why}\n{code}");
            }
            Ok(())
        },
    );
}

/// Arbitrary strings never panic; diagnostics point inside the input.
#[test]
fn arbitrary_strings_are_data() {
    run(
        256,
        || prop::string::string_regex("(.|\n){0,200}").unwrap(),
        |code| {
            if let Err(why) = check_any_input(&code) {
                prop_assert!(false, "{why}\n{code:?}");
            }
            Ok(())
        },
    );
}

/// Strings of agent-code tokens: far more likely to get past the parser than arbitrary text.
#[test]
fn token_soup_is_data() {
    run(
        256,
        || prop::collection::vec(prop::sample::select(TOKENS), 0..60),
        |tokens| {
            let code = tokens.concat();
            if let Err(why) = check_any_input(&code) {
                prop_assert!(false, "{why}\n{code}");
            }
            Ok(())
        },
    );
}

const TOKENS: &[&str] = &[
    "await ",
    "mcp",
    ".",
    "s",
    "t",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ", ",
    ": ",
    ";",
    "\n",
    "const ",
    "let ",
    "x",
    "y",
    " = ",
    "args",
    "return ",
    "if ",
    "else ",
    "for ",
    " of ",
    "switch ",
    "case ",
    "default",
    "break",
    "continue",
    "try ",
    "catch ",
    "finally ",
    "throw ",
    "while ",
    "do ",
    "Promise",
    "all",
    "map",
    "filter",
    "=> ",
    "? ",
    "&& ",
    "|| ",
    "?? ",
    "\"a\"",
    "`${",
    "`",
    "1",
    "0",
    "async ",
    "function ",
    "capabilities",
    "forEach",
    "label: ",
];
