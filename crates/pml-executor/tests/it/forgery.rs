//! Programs that try to reach their own instrumentation: the probe object is out of reach by
//! every route a program has (`arguments`, `eval` of a built name, `Function`, `globalThis`,
//! stack traces, function texts), builtins the probes use replaced by the program change
//! nothing they report, and what the host keeps of a run is bounded.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use pml_executor::{AutoApprove, ExecuteOptions, RunReport, MAX_CONSOLE_BYTES, MAX_EVENTS};
use pml_sandbox::SandboxOptions;

use crate::support::*;

async fn ran(source: &str, args: Value) -> RunReport {
    let host = FakeHost::new()
        .tool("t:check", ToolSpec::new(Behavior::Echo).read_only())
        .into_arc();
    let p = program(source, &host.catalog());
    let options = ExecuteOptions {
        args,
        ..host.options()
    };
    run(&p, host, &options).await
}

/// `source` run as written, without probes.
async fn ran_plain(source: &str) -> RunReport {
    let host = FakeHost::new()
        .tool("t:check", ToolSpec::new(Behavior::Echo).read_only())
        .into_arc();
    let p = pml_executor::Program {
        instrumented: None,
        ..program(source, &host.catalog())
    };
    let options = ExecuteOptions {
        speculate: false,
        ..host.options()
    };
    run(&p, host, &options).await
}

fn decisions(report: &RunReport) -> Vec<(String, String)> {
    (report.trace.iter())
        .filter(|e| e.event == "decision")
        .map(|e| {
            let id = e.task_id.as_deref().unwrap_or_default().to_owned();
            (id, e.outcome.as_deref().unwrap_or_default().to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn no_route_reaches_the_probes() {
    // The issue's attack: the probe object as the program's first argument, then a decision
    // reported taken that was not.
    let report = ran(
        r#"const tries = [];
const attempt = (f) => { try { tries.push(f()); } catch (e) { tries.push(e.constructor.name); } };
attempt(() => typeof arguments[0]);
attempt(() => arguments.length);
attempt(() => arguments[0].d(1, 0, true));
attempt(() => eval("__pml"));
attempt(() => eval(["__", "pml"].join("")).d);
attempt(() => Object.getOwnPropertyNames(globalThis).filter((n) => n.includes("pml")).length);
attempt(() => Function("return typeof __pml")());
attempt(() => String(new Error("x").stack).includes("pml"));
const inner = async (x) => { if (x) { await mcp.t.check({ x }); } return [1, 2].map((y) => y + 1); };
attempt(() => inner.toString());
attempt(() => Function.prototype.toString.call(inner).includes("pml"));
attempt(() => `${inner}`.includes("pml"));
if (args.never) {
  await mcp.t.check({ never: true });
}
await inner(false);
return tries;
"#,
        json!({ "never": false }),
    )
    .await;
    assert_ok(&report);
    assert_eq!(
        report.result,
        json!([
            "undefined",
            0,
            "TypeError",
            "ReferenceError",
            "ReferenceError",
            0,
            "undefined",
            false,
            "async (x) => { if (x) { await mcp.t.check({ x }); } return [1, 2].map((y) => y + 1); }",
            false,
            false,
        ])
    );
    // Only the decisions the program took, as it took them.
    let taken = decisions(&report);
    assert!(
        taken.iter().all(|(_, outcome)| outcome == "false"),
        "{taken:?}"
    );
    assert!(!taken.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn builtins_the_program_replaces_change_nothing_reported() {
    // Setters on `Array.prototype` indices (the probes' own arrays would hit them) and
    // `instanceof Promise` answering false: the trace is the same as without them (a helper
    // that rejects still ends failed), and the program's count of setter calls is the count
    // of the same program run without probes (QuickJS's own `JSON.stringify` of the call
    // arguments sets elements of arrays of its own: that is the engine's, not the probes').
    let clean = r#"let hits = 0;
const helper = async (n) => {
  await mcp.t.check();
  if (n === 2) throw new Error("two");
  return n * 2;
};
let out = [];
for (let i = 0; i < 3; i++) {
  try {
    out = [...out, await helper(i)];
  } catch (e) {
    out = [...out, e.message];
  }
}
const all = await Promise.all([mcp.t.check(), mcp.t.check()]);
return { out, all: all.length, hits };
"#;
    let hostile = clean.replace(
        "let hits = 0;",
        r#"let hits = 0;
const data = { writable: true, enumerable: true, configurable: true };
Object.defineProperty(Array.prototype, "0", { set(v) { hits++; Object.defineProperty(this, "0", { ...data, value: v }); }, configurable: true });
Object.defineProperty(Array.prototype, "1", { set(v) { hits++; Object.defineProperty(this, "1", { ...data, value: v }); }, configurable: true });
Object.defineProperty(Array.prototype, "2", { set(v) { hits++; Object.defineProperty(this, "2", { ...data, value: v }); }, configurable: true });
Object.defineProperty(Promise, Symbol.hasInstance, { value: () => false });"#,
    );
    type Shape = (
        String,
        Option<String>,
        Vec<u32>,
        Option<String>,
        Option<bool>,
    );
    let shape = |r: &RunReport| -> Vec<Shape> {
        let mut out: Vec<Shape> = (r.trace.iter())
            .filter(|e| !e.tool.starts_with("code:"))
            .map(|e| {
                let outcome = e.outcome.as_deref().map(str::to_owned);
                (
                    e.event.to_string(),
                    e.task_id.as_deref().map(str::to_owned),
                    e.iteration.clone(),
                    outcome,
                    e.success,
                )
            })
            .collect();
        out.sort();
        out
    };
    let a = ran(clean, json!({})).await;
    let b = ran(&hostile, json!({})).await;
    let plain = ran_plain(&hostile).await;
    assert_ok(&a);
    assert_ok(&b);
    assert_ok(&plain);
    assert_eq!(a.result, json!({"out": [0, 2, "two"], "all": 2, "hits": 0}));
    assert_eq!(b.result["out"], a.result["out"]);
    assert_eq!(b.result, plain.result, "the probes hit a setter");
    assert_eq!(shape(&a), shape(&b));
    let failed_calls = (b.trace.iter())
        .filter(|e| e.event == "call" && e.success == Some(false))
        .count();
    assert_eq!(failed_calls, 1, "{:?}", shape(&b));
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_host_keeps_of_a_run_is_bounded() {
    // More operations than the trace keeps, and more console output than is kept. Its 50,000
    // iterations take 2-4 s of JavaScript in a debug build, more on a loaded machine: the
    // limit is raised so that only a fault fails it.
    let host = FakeHost::new().into_arc();
    let p = program(
        r#"let total = 0;
for (let i = 0; i < 50000; i++) {
  total += [i].map((x) => x + 1).filter((x) => x > 0).concat([0]).length;
}
const line = "x".repeat(4096);
for (let i = 0; i < 400; i++) console.log(line);
return total;
"#,
        &host.catalog(),
    );
    let sandbox = SandboxOptions {
        time_limit: Duration::from_secs(30),
        ..sandbox_options()
    };
    let options = host.options();
    let report = run_with(&p, host, Arc::new(AutoApprove), sandbox, &options).await;
    assert_ok(&report);
    assert_eq!(report.result, json!(100000));
    assert_eq!(report.trace.len(), MAX_EVENTS);
    assert!(report.dropped_events > 0);
    let kept: usize = report.console.iter().map(|l| l.text.len()).sum();
    assert!(kept <= MAX_CONSOLE_BYTES + 200, "{kept}");
    let last = report.console.last().unwrap();
    assert!(
        last.text.contains("more console lines not kept"),
        "{}",
        last.text
    );
}

/// The host checks every report against the probes the program has: one that no probe makes
/// (a decision reported with an iteration vector deeper than its probe's, a probe the program
/// does not have) ends the run, and nothing the instrumentation reported is kept. (The
/// program cannot make such reports: this forges them in the instrumented text itself.)
#[tokio::test(flavor = "multi_thread")]
async fn reports_no_probe_makes_end_the_run_and_leave_no_trace() {
    let host = FakeHost::new()
        .tool("t:check", ToolSpec::new(Behavior::Echo).read_only())
        .into_arc();
    let source = "if (args.never) { await mcp.t.check({}); }\nreturn 1;";
    for forged in [
        "{ns}.d(1, [7, 7], true);",
        "{ns}.d(999, 0, true);",
        "{ns}.e(1, 0, 5);",
    ] {
        let mut p = program(source, &host.catalog());
        let instrumented = p.instrumented.as_mut().unwrap();
        let forged = forged.replace("{ns}", &instrumented.namespace);
        instrumented.source = format!("{forged}{}", instrumented.source);
        let options = ExecuteOptions {
            args: json!({ "never": false }),
            ..host.options()
        };
        let report = run(&p, host.clone(), &options).await;
        assert!(!report.ok, "{forged}: {:?}", report.result);
        let message = &report.error.as_ref().unwrap().message;
        assert!(
            message.contains("instrumentation reported"),
            "{forged}: {message}"
        );
        assert!(report.trace.is_empty(), "{forged}: {:?}", report.trace);
    }
}

/// A program cannot have one tool's call traced as another's: a function it puts where a
/// node's tool was (replacing `mcp`, a parameter of the function it runs in, not a global:
/// setting `globalThis.mcp` changes nothing) makes its calls under the node's site, and they
/// are not that node's.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_is_traced_under_its_own_node_only() {
    let host = FakeHost::new()
        .tool("t:check", ToolSpec::new(Behavior::Echo).read_only())
        .tool("t:other", ToolSpec::new(Behavior::Echo).read_only())
        .into_arc();
    let source = r#"
(globalThis as any).mcp = { t: { check: async () => "replaced" } };
const first = await mcp.t.check({ n: 1 });
const real: any = [mcp][0];
mcp = { t: { check: (a) => real.t.other(a) } };
const second = await mcp.t.check({ n: 2 });
return [first.args.n, second.args.n];
"#;
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([1, 2]));
    let starts: Vec<(Option<&str>, &str)> = (report.trace.iter())
        .filter(|e| e.event == "tool_start")
        .map(|e| (e.task_id.as_deref(), e.tool.as_ref()))
        .collect();
    // The first under its node; the second is `t:other`'s, under no node of `t:check`.
    assert_eq!(
        starts,
        [(Some("n1"), "t:check"), (None, "t:other")],
        "{:#?}",
        report.trace
    );
}

/// `new` of a tool's function throws as in Node (its function is no constructor) and makes
/// no call: the site's wrapper of a call is no constructor either (it made the call).
#[tokio::test(flavor = "multi_thread")]
async fn new_of_a_tool_makes_no_call() {
    let host = FakeHost::new()
        .tool("t:check", ToolSpec::new(Behavior::Echo))
        .into_arc();
    let source = "let r;\ntry { r = await new (mcp.t.check as any)({ n: 1 }); } catch (e) { r = e.constructor.name + ': ' + e.message; }\nreturn r;";
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(
        report.result,
        json!("TypeError: mcp.t.check is not a constructor")
    );
    assert!(host.calls_to("t:check").is_empty());
}

/// Two runs of one switch waiting in a case test at once (the elements of a fork) each trace
/// the case they take, under their own iteration (one took the other's case, one none).
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_runs_of_a_switch_trace_their_own_cases() {
    let source = r#"
const id = async (v) => v;
return await Promise.all(args.vs.map(async (v) => {
  switch (v) {
    case await id(v === 1 ? 2 : 3): return (await mcp.t.check({ c: 0, v })).args.c;
    case 1: return (await mcp.t.check({ c: 1, v })).args.c;
    case 2: return (await mcp.t.check({ c: 2, v })).args.c;
  }
}));
"#;
    let report = ran(source, json!({ "vs": [1, 2] })).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([1, 2]));
    let mut taken: Vec<(Vec<u32>, String)> = (report.trace.iter())
        .filter(|e| e.event == "decision")
        .map(|e| {
            (
                e.iteration.clone(),
                e.outcome.as_deref().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    taken.sort();
    let outcomes: Vec<&str> = taken.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(taken.len(), 2, "{taken:?}");
    assert_eq!(
        (taken[0].0.clone(), taken[1].0.clone()),
        (vec![0], vec![1]),
        "{taken:?}"
    );
    assert_ne!(outcomes[0], outcomes[1], "{taken:?}");
}

/// What pml does for a call or a timer reads nothing the program can replace: a call is made
/// with `Promise.resolve` replaced, timers fire with `Map.prototype.get` replaced, and
/// `clearTimeout` reads no timer's `Symbol.toPrimitive` (Node's reads none either).
#[tokio::test(flavor = "multi_thread")]
async fn calls_and_timers_read_nothing_the_program_replaced() {
    let source = r#"
const resolve = Promise.resolve;
Promise.resolve = function () { throw new Error("no resolve"); };
let r;
try { r = (await mcp.t.check({ n: 1 })).args.n; } catch (e) { r = "ERR " + e.message; }
Promise.resolve = resolve;
const get = Map.prototype.get;
Map.prototype.get = function () { return undefined; };
let fired = false;
setTimeout(() => { fired = true; }, 1);
await new Promise((done) => setTimeout(done, 20));
Map.prototype.get = get;
let read = 0;
const t = setTimeout(() => {}, 5);
const proto = Object.getPrototypeOf(t);
const primitive = proto[Symbol.toPrimitive];
proto[Symbol.toPrimitive] = function () { read++; return primitive.call(this); };
clearTimeout(t);
return [r, fired, read];
"#;
    let report = ran(source, json!({})).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([1, true, 0]));
}

/// A string spread into an object literal gives its characters, as in V8 (QuickJS alone copies
/// nothing from a primitive); other values as they are.
#[tokio::test(flavor = "multi_thread")]
async fn a_string_spread_into_an_object_copies_its_characters() {
    let source = "const s = args.s;\nconst o = { ...s, n: 1 };\nreturn [o, { ...`${s}!` }, { ...[7] }, { ...5 }, { ...null }, { ...{ a: 1 } }];";
    let report = ran(source, json!({ "s": "hi" })).await;
    assert_ok(&report);
    assert_eq!(
        report.result,
        json!([{ "0": "h", "1": "i", "n": 1 }, { "0": "h", "1": "i", "2": "!" }, { "0": 7 }, {}, {}, { "a": 1 }])
    );
}

/// Past the operations the trace can keep, the program's operations run unreported (cheaply)
/// and are counted: the trace keeps what it kept before, and the events not kept are counted
/// exactly as if each had been reported.
#[tokio::test(flavor = "multi_thread")]
async fn operations_past_a_full_trace_are_counted_not_reported() {
    let host = FakeHost::new().into_arc();
    let events = |report: &RunReport| report.trace.len() as u64 + report.dropped_events;
    let run_n = |n: u32| {
        let host = host.clone();
        async move {
            let p = program(
                &format!("let s = 0;\nfor (let i = 0; i < {n}; i++) s += i % 7;\nreturn s;"),
                &host.catalog(),
            );
            let sandbox = SandboxOptions {
                time_limit: Duration::from_secs(60),
                ..sandbox_options()
            };
            let options = host.options();
            run_with(&p, host, Arc::new(AutoApprove), sandbox, &options).await
        }
    };
    let small = run_n(10).await;
    assert_ok(&small);
    // Two events per operation, and the loop's own.
    let own = events(&small) - 2 * 10;
    let n = pml_sandbox::REPORTED_OPERATIONS + 5_000;
    let large = run_n(n).await;
    assert_ok(&large);
    assert_eq!(large.trace.len(), MAX_EVENTS);
    assert_eq!(events(&large), 2 * u64::from(n) + own);
    let ends = (large.trace.iter())
        .filter(|e| e.event == "tool_end" && e.tool == "code:modulo")
        .count();
    assert_eq!(ends, MAX_EVENTS / 2);
}
