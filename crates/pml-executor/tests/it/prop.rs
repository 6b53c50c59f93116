//! Properties over generated programs against the in-process host:
//! - straight-line programs (reads, writes, echoes, pure operations; literal or previous-result
//!   arguments) give the same result, calls, store and order of writes run as written, with
//!   speculation, and with speculation against random latencies;
//! - programs with control flow (loops over literal and computed lists, branches, `try` around
//!   a failing call, a local helper, `Promise.all` of reads, early returns, pure chains,
//!   writes) give the same outcome as written and with speculation against random latencies,
//!   and no read, speculative or not, overlaps a write.

use proptest::prelude::*;
use serde_json::Value;

use crate::modes::equivalent;

#[derive(Debug, Clone)]
enum Arg {
    Lit(i64),
    /// The result of an earlier statement (index taken modulo the statements before).
    Prev(usize),
}

#[derive(Debug, Clone)]
enum Op {
    /// `kv:get` (read-only).
    Get(u8),
    /// `kv:put` (a write).
    Put(u8, Arg),
    /// `t:ro` (read-only echo).
    Echo(Arg),
    /// `t:w` (a write, echo).
    Write(Arg),
    /// A pure operation on a value.
    Code(Arg),
}

fn arg() -> impl Strategy<Value = Arg> {
    prop_oneof![
        (-5i64..50).prop_map(Arg::Lit),
        (0usize..8).prop_map(Arg::Prev)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..3).prop_map(Op::Get),
        3 => (0u8..3, arg()).prop_map(|(k, a)| Op::Put(k, a)),
        2 => arg().prop_map(Op::Echo),
        1 => arg().prop_map(Op::Write),
        1 => arg().prop_map(Op::Code),
    ]
}

fn text(arg: &Arg, i: usize) -> String {
    match arg {
        Arg::Prev(p) if i > 0 => format!("v{}", p % i),
        Arg::Prev(p) => p.to_string(),
        Arg::Lit(n) => n.to_string(),
    }
}

/// The program's source: one statement per op, then `return { vA, vB, .. }`.
fn source(ops: &[Op], returned: &[bool]) -> String {
    let mut s = String::new();
    let keys = ["a", "b", "c"];
    for (i, op) in ops.iter().enumerate() {
        let line = match op {
            Op::Get(k) => format!(
                "const v{i} = await mcp.kv.get({{ key: \"{}\" }});",
                keys[*k as usize]
            ),
            Op::Put(k, a) => format!(
                "const v{i} = await mcp.kv.put({{ key: \"{}\", value: {} }});",
                keys[*k as usize],
                text(a, i)
            ),
            Op::Echo(a) => format!(
                "const v{i} = await mcp.t.ro({{ n: {i}, x: {} }});",
                text(a, i)
            ),
            Op::Write(a) => format!(
                "const v{i} = await mcp.t.w({{ n: {i}, x: {} }});",
                text(a, i)
            ),
            Op::Code(a) => format!(
                "const v{i} = JSON.stringify({{ n: {i}, x: {} }});",
                text(a, i)
            ),
        };
        s.push_str(&line);
        s.push('\n');
    }
    let names: Vec<String> = (0..ops.len())
        .filter(|i| returned.get(*i).copied().unwrap_or(false))
        .map(|i| format!("v{i}"))
        .collect();
    s.push_str(&format!("return {{ {} }};\n", names.join(", ")));
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn straight_line_programs_run_the_same_in_every_mode(
        ops in prop::collection::vec(op(), 1..8),
        returned in prop::collection::vec(any::<bool>(), 8),
    ) {
        let src = source(&ops, &returned);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        // `equivalent` asserts the three runs agree (result, calls, store, writes in the order
        // they started).
        let outcome = runtime.block_on(equivalent("generated", &src, Value::Object(Default::default())));
        prop_assert!(outcome.ok, "{src}\n{outcome:?}");
        let writes = ops.iter().filter(|o| matches!(o, Op::Put(..) | Op::Write(_))).count();
        prop_assert_eq!(outcome.writes.len(), writes, "{}", src);
    }
}

// ---------------------------------------------------------------------------------------------
// Programs with control flow: loops, branches, `try`, a helper, `Promise.all`, early returns,
// pure chains and writes, run as written and with speculation against random latencies.

/// An argument: a literal, an earlier variable (maybe still `undefined`), or the loop element.
#[derive(Debug, Clone)]
enum Val {
    Lit(i64),
    Var(usize),
    Element,
}

#[derive(Debug, Clone)]
enum Stmt {
    /// `v = await mcp.kv.get({ key })` (read-only).
    Get(u8),
    /// `v = await mcp.t.ro({ n, x })` (read-only echo).
    Read(Val),
    /// `await mcp.kv.put({ key, value })` (a write).
    Put(u8, Val),
    /// `v = await mcp.t.w({ n, x })` (a write, echo).
    Write(Val),
    /// `v = [x, n].map(..).filter(..).length` (pure).
    Chain(Val),
    If(Val, Vec<Stmt>, Vec<Stmt>),
    /// `for (const e of [..]) { .. }` over a literal list or over an earlier value's keys.
    For(bool, Vec<Stmt>),
    /// `try { ..; await mcp.t.fail({}) maybe } catch (e) { .. }`.
    Try(Vec<Stmt>, bool, Vec<Stmt>),
    /// `v = await h(key)`: a local helper that calls a tool.
    Helper(u8),
    /// `[v, w] = await Promise.all([read, read])` (reads only: a read beside a write in one
    /// `Promise.all` would overlap it because the program says so).
    All(Val, u8),
    /// `if (x > 30) return { early: n };`
    Return(Val),
}

fn val() -> impl Strategy<Value = Val> {
    prop_oneof![
        (-5i64..50).prop_map(Val::Lit),
        (0usize..12).prop_map(Val::Var),
        Just(Val::Element),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let leaf = prop_oneof![
        3 => (0u8..3).prop_map(Stmt::Get),
        3 => val().prop_map(Stmt::Read),
        2 => (0u8..3, val()).prop_map(|(k, v)| Stmt::Put(k, v)),
        1 => val().prop_map(Stmt::Write),
        2 => val().prop_map(Stmt::Chain),
        1 => (0u8..3).prop_map(Stmt::Helper),
        1 => (val(), 0u8..3).prop_map(|(v, k)| Stmt::All(v, k)),
        1 => val().prop_map(Stmt::Return),
    ];
    leaf.prop_recursive(2, 24, 4, |inner| {
        let block = prop::collection::vec(inner, 1..4);
        prop_oneof![
            (val(), block.clone(), block.clone()).prop_map(|(v, a, b)| Stmt::If(v, a, b)),
            (any::<bool>(), block.clone()).prop_map(|(l, b)| Stmt::For(l, b)),
            (block.clone(), any::<bool>(), block).prop_map(|(a, f, b)| Stmt::Try(a, f, b)),
        ]
    })
}

/// Writes the statements; `n` numbers them (each assigns `v{n % 12}`), `in_loop` says whether
/// `e` (the loop element) is in scope, `helper` whether helper calls go through `h` (else they
/// call the tool directly).
fn write(stmts: &[Stmt], n: &mut usize, in_loop: bool, helper: bool, out: &mut String) {
    let keys = ["a", "b", "c"];
    for s in stmts {
        let i = *n;
        *n += 1;
        let v = format!("v{}", i % 12);
        let x = |val: &Val| match val {
            Val::Lit(l) => l.to_string(),
            Val::Var(j) => format!("v{j}"),
            Val::Element if in_loop => "e".to_owned(),
            Val::Element => "null".to_owned(),
        };
        match s {
            Stmt::Get(k) => out.push_str(&format!(
                "{v} = await mcp.kv.get({{ key: \"{}\" }});\n",
                keys[*k as usize]
            )),
            Stmt::Read(a) => out.push_str(&format!(
                "{v} = await mcp.t.ro({{ n: {i}, x: {} }});\n",
                x(a)
            )),
            Stmt::Put(k, a) => out.push_str(&format!(
                "await mcp.kv.put({{ key: \"{}\", value: {} }});\n",
                keys[*k as usize],
                x(a)
            )),
            Stmt::Write(a) => out.push_str(&format!(
                "{v} = await mcp.t.w({{ n: {i}, x: {} }});\n",
                x(a)
            )),
            Stmt::Chain(a) => out.push_str(&format!(
                "{v} = [JSON.stringify({}), {i}].map((s) => String(s)).filter((s) => s.length > 1).length;\n",
                x(a)
            )),
            Stmt::If(a, yes, no) => {
                out.push_str(&format!("if (JSON.stringify({}) > \"2\") {{\n", x(a)));
                write(yes, n, in_loop, helper, out);
                out.push_str("} else {\n");
                write(no, n, in_loop, helper, out);
                out.push_str("}\n");
            }
            Stmt::For(literal, body) => {
                let list = if *literal {
                    "[1, 2, 3]".to_owned()
                } else {
                    format!("Object.keys({{ ...(v{}) }}).slice(0, 3)", (i + 1) % 12)
                };
                out.push_str(&format!("for (const e of {list}) {{\n"));
                write(body, n, true, helper, out);
                out.push_str("}\n");
            }
            Stmt::Try(body, fail, handler) => {
                out.push_str("try {\n");
                write(body, n, in_loop, helper, out);
                if *fail {
                    out.push_str("await mcp.t.fail({});\n");
                }
                out.push_str("} catch (err) {\n");
                out.push_str(&format!("{v} = err.message;\n"));
                write(handler, n, in_loop, helper, out);
                out.push_str("}\n");
            }
            Stmt::Helper(k) if helper => out.push_str(&format!(
                "{v} = await h(\"{}\");\n",
                keys[*k as usize]
            )),
            Stmt::Helper(k) => out.push_str(&format!(
                "{v} = (await mcp.kv.get({{ key: \"{}\" }}));\n",
                keys[*k as usize]
            )),
            Stmt::All(a, k) => out.push_str(&format!(
                "[{v}, v{}] = await Promise.all([mcp.t.ro({{ n: {i}, x: {} }}), mcp.kv.get({{ key: \"{}\" }})]);\n",
                (i + 1) % 12,
                x(a),
                keys[*k as usize]
            )),
            Stmt::Return(a) => out.push_str(&format!(
                "if (JSON.stringify({}) > \"3\") return {{ early: {i}, v0 }};\n",
                x(a)
            )),
        }
    }
}

/// Whether a helper call is among the statements (a helper hides its calls from the structure,
/// which turns speculation off for the whole program: declared only when used).
fn uses_helper(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Helper(_) => true,
        Stmt::If(_, a, b) | Stmt::Try(a, _, b) => uses_helper(a) || uses_helper(b),
        Stmt::For(_, b) => uses_helper(b),
        _ => false,
    })
}

fn program_text(stmts: &[Stmt], helper: bool) -> String {
    let mut out = String::from("let v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11;\n");
    let helper = helper && uses_helper(stmts);
    if helper {
        out.push_str("const h = async (k) => (await mcp.kv.get({ key: k }));\n");
    }
    let mut n = 0;
    write(stmts, &mut n, false, helper, &mut out);
    out.push_str("return [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11];\n");
    out
}

/// Runs `p` on `host`: the outcome and the host's call records.
async fn run_on(
    p: &pml_executor::Program,
    host: std::sync::Arc<crate::support::FakeHost>,
    speculate: bool,
) -> (crate::modes::Outcome, Vec<crate::support::CallRecord>) {
    let options = pml_executor::ExecuteOptions {
        speculate,
        ..host.options()
    };
    let report = crate::support::run(p, host.clone(), &options).await;
    let store = ["a", "b", "c"]
        .iter()
        .filter_map(|k| host.stored(k).map(|v| (k.to_string(), v)))
        .collect();
    let records = host.calls();
    let writes = records
        .iter()
        .filter(|c| matches!(c.tool.as_str(), "kv:put" | "t:w"))
        .map(|c| (c.tool.clone(), c.arguments.to_string()))
        .collect();
    let outcome = crate::modes::Outcome {
        ok: report.ok,
        result: report.result.clone(),
        calls: crate::support::call_multiset(&report),
        store,
        writes,
    };
    (outcome, records)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn programs_with_control_flow_run_the_same_with_speculation(
        stmts in prop::collection::vec(stmt(), 1..7),
        seed in any::<u64>(),
        helper in prop::bool::weighted(0.25),
    ) {
        let src = program_text(&stmts, helper);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let catalog = crate::modes::world().catalog();
        let p = crate::support::program(&src, &catalog);
        prop_assert!(!p.structure.has_errors(), "{src}\n{:?}", p.structure.diagnostics);
        let (plain, _) = runtime.block_on(run_on(&p, crate::modes::world().into_arc(), false));
        let host = crate::modes::world().jitter(seed, 20).into_arc();
        let (fast, records) = runtime.block_on(run_on(&p, host, true));
        prop_assert_eq!(&plain, &fast, "{}", src);
        // No read (speculative or not) ran while a write was running.
        let reads = |c: &&crate::support::CallRecord| matches!(c.tool.as_str(), "kv:get" | "t:ro" | "t:fail");
        for w in records.iter().filter(|c| matches!(c.tool.as_str(), "kv:put" | "t:w")) {
            for r in records.iter().filter(reads) {
                prop_assert!(!r.overlaps(w), "{src}\nread {r:?}\noverlaps write {w:?}");
            }
        }
    }
}
