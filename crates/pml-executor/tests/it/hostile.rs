//! Hostile programs: runaway loops, memory bombs and deep
//! recursion end with an error naming the limit; no I/O globals; the sandbox and the host
//! keep working afterwards.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pml_executor::{execute, AutoApprove, ExecuteOptions, Program, RunReport};
use pml_sandbox::{Sandbox, SandboxOptions};
use serde_json::json;

use crate::support::*;

fn limits() -> SandboxOptions {
    SandboxOptions {
        time_limit: Duration::from_millis(300),
        memory_limit: 32 * 1024 * 1024,
        // A runaway recursion reaches 1 MiB well within 300 ms in a debug build; the default
        // 8 MiB is for `deep_recursion_goes_thousands_of_levels_deep`.
        stack_limit: 1024 * 1024,
        watchdog_grace: Duration::from_millis(500),
        ..SandboxOptions::default()
    }
}

/// A program's local function recurses thousands of levels deep, as in Node (about 11,000
/// there; pml's probes make each level deeper, ~3,200 at the default 8 MiB); a runaway one
/// ends with the stack error, the process and the sandbox unharmed.
#[tokio::test(flavor = "multi_thread")]
async fn deep_recursion_goes_thousands_of_levels_deep() {
    let host = host();
    let sandbox = Arc::new(Sandbox::new(SandboxOptions::default()).unwrap());
    let options = host.options().clone();
    let deep = "await mcp.t.ro({});\nfunction depth(n) { return n === 0 ? 0 : 1 + depth(n - 1); }\nreturn depth(3000);";
    let report = go(&program(deep, &host.catalog()), &host, &sandbox, &options).await;
    assert_ok(&report);
    assert_eq!(report.result, json!(3000));
    let runaway = "await mcp.t.ro({});\nfunction f(n) { return f(n + 1) + 1; }\nreturn f(0);";
    let started = Instant::now();
    let report = go(
        &program(runaway, &host.catalog()),
        &host,
        &sandbox,
        &options,
    )
    .await;
    failed_with(&report, &["stack limit (8 mib)"]);
    assert!(started.elapsed() < Duration::from_secs(10), "liveness");
    still_works(&host, &sandbox).await;
}

fn host() -> Arc<FakeHost> {
    FakeHost::kv()
        .tool(
            "t:ro",
            ToolSpec::compute(|_| Ok(json!({"v": 1}))).read_only(),
        )
        .tool(
            "t:slow",
            ToolSpec::compute(|_| Ok(json!({"v": 2})))
                .read_only()
                .latency_ms(600),
        )
        .into_arc()
}

async fn go(
    p: &Program,
    host: &Arc<FakeHost>,
    sandbox: &Arc<Sandbox>,
    options: &ExecuteOptions,
) -> RunReport {
    execute(
        p,
        host.clone(),
        Arc::new(AutoApprove),
        sandbox.clone(),
        options,
    )
    .await
}

/// A normal program still runs, in both modes, on the same sandbox and host.
async fn still_works(host: &Arc<FakeHost>, sandbox: &Arc<Sandbox>) {
    let p = program(
        "const a = await mcp.t.ro({});\nconst b = [a.v, 2].map((x) => x * 10);\nawait mcp.kv.put({ key: \"k\", value: b });\nreturn b;",
        &host.catalog(),
    );
    for options in [host.options(), host.options().clone()] {
        let report = go(&p, host, sandbox, &options).await;
        assert_ok(&report);
        assert_eq!(report.result, json!([10, 20]));
        assert_eq!(host.stored("k"), Some(json!([10, 20])));
    }
    assert_eq!(host.in_flight(), 0);
}

#[track_caller]
fn failed_with(report: &RunReport, words: &[&str]) {
    assert!(!report.ok, "should fail: {:?}", report.result);
    let message = report.error.as_ref().unwrap().message.to_lowercase();
    assert!(
        words.iter().any(|w| message.contains(w)),
        "`{message}` should mention one of {words:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn runaway_programs_end_at_the_limits() {
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let options = host.options().clone();
    for (source, words) in [
        ("await mcp.t.ro({});\nwhile (true) {}", &["exceeded 300 ms"][..]),
        (
            "await mcp.t.ro({});\nconst a = [];\nwhile (true) { a.push(new Array(100000).fill(a.length)); }",
            &["out of memory", "exceeded 300 ms"][..],
        ),
        (
            "await mcp.t.ro({});\nfunction f(n) { return f(n + 1) + 1; }\nreturn f(0);",
            &["stack"][..],
        ),
        (
            "await mcp.t.ro({});\nlet s = 'x';\nwhile (true) { s = s + s; }",
            &["out of memory", "string too long", "exceeded 300 ms"][..],
        ),
    ] {
        let p = program(source, &host.catalog());
        let started = Instant::now();
        let report = go(&p, &host, &sandbox, &options).await;
        failed_with(&report, words);
        assert!(started.elapsed() < Duration::from_secs(10), "liveness");
        // The call before the runaway code was made and traced.
        let calls: Vec<&str> = report.calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(calls, ["t:ro"]);
        assert_eq!(report.executed_path[0], "t:ro");
    }
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn waiting_for_the_host_does_not_count_against_the_time_limit() {
    // Each call takes 600 ms, twice the time limit; the program's own JavaScript is quick.
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let p = program(
        "const a = await mcp.t.slow({});\nconst b = await mcp.t.slow({ after: a.v });\nreturn a.v + b.v;",
        &host.catalog(),
    );
    for options in [host.options(), host.options().clone()] {
        let report = go(&p, &host, &sandbox, &options).await;
        assert_ok(&report);
        assert_eq!(report.result, json!(4));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_io_globals_in_programs() {
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let options = host.options().clone();
    let p = program(
        "await mcp.t.ro({});\nreturn [typeof require, typeof process, typeof fetch, typeof Deno, typeof XMLHttpRequest, typeof std, typeof os];",
        &host.catalog(),
    );
    let report = go(&p, &host, &sandbox, &options).await;
    assert_ok(&report);
    // (Timers are no I/O: a program has Node's.)
    assert_eq!(report.result, json!(vec!["undefined"; 7]));
    for source in [
        "return require('fs');",
        "return process.env;",
        "return await fetch('http://example.com');",
        "return Deno.readTextFile('/etc/passwd');",
        "return eval('require')('fs');",
        "return Function('return fetch')()('http://example.com');",
    ] {
        let p = program(source, &host.catalog());
        let report = go(&p, &host, &sandbox, &options).await;
        assert!(!report.ok, "`{source}` should fail, gave {}", report.result);
        assert!(report.error.unwrap().message.contains("threw"), "{source}");
    }
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_that_never_settles_is_an_error() {
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let options = host.options().clone();
    let p = program(
        "await mcp.t.ro({});\nawait new Promise(() => {});\nreturn 1;",
        &host.catalog(),
    );
    let started = Instant::now();
    let report = go(&p, &host, &sandbox, &options).await;
    assert!(!report.ok);
    assert!(started.elapsed() < Duration::from_secs(10), "liveness");
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_syntax_error_runs_nothing() {
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let p = program("await mcp.t.ro({});\nconst = ;", &host.catalog());
    for options in [host.options(), host.options().clone()] {
        let report = go(&p, &host, &sandbox, &options).await;
        assert!(!report.ok);
        assert!(host.calls().is_empty());
    }
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_calling_forever_ends_at_the_call_cap() {
    // Each call is quick and the JavaScript between them is short: only the cap stops it, even
    // when the program catches the failures.
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    for source in [
        "while (true) await mcp.t.ro({});",
        "while (true) { try { await mcp.t.ro({}); } catch (e) {} }",
    ] {
        host.reset();
        let p = program(source, &host.catalog());
        let options = ExecuteOptions {
            max_calls: 50,
            ..host.options()
        };
        let report = go(&p, &host, &sandbox, &options).await;
        assert!(!report.ok);
        let error = report.error.unwrap().message;
        assert!(
            error.contains("more than 50 tool calls"),
            "{source}: {error}"
        );
        assert_eq!(report.calls.len(), 50, "{source}");
        // The trace so far is there, each call under its node.
        let ends = report
            .trace
            .iter()
            .filter(|e| e.event == "tool_end")
            .count();
        assert_eq!(ends, 50);
    }
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_ends_at_its_wall_clock_limit() {
    // Waiting for the host does not count against the JavaScript time limit; the wall clock
    // stops the run, without waiting for the call in flight.
    let host = host();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let p = program("while (true) await mcp.t.slow({});", &host.catalog());
    let options = ExecuteOptions {
        run_timeout: Duration::from_millis(1000),
        ..host.options()
    };
    let started = Instant::now();
    let report = go(&p, &host, &sandbox, &options).await;
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(!report.ok);
    let error = report.error.unwrap().message;
    assert!(error.contains("longer than 1000 ms"), "{error}");
    assert_eq!(report.calls.len(), 1, "one call finished before the limit");
    still_works(&host, &sandbox).await;
}

/// An interrupt (a cancelled `execute`) and the wall-clock limit end a run at once, whatever
/// the program does: waiting for a timer before its first call, or running its own
/// JavaScript (under a code time limit far longer than the test).
#[tokio::test(flavor = "multi_thread")]
async fn interrupts_and_the_wall_clock_stop_timers_and_busy_code_at_once() {
    let host = host();
    let sandbox = Arc::new(
        Sandbox::new(SandboxOptions {
            time_limit: Duration::from_secs(30),
            ..limits()
        })
        .unwrap(),
    );
    let sources = [
        "await new Promise((r) => setTimeout(r, 30000));\nawait mcp.kv.put({ key: \"after\", value: 1 });",
        "while (true) {}",
        "await mcp.t.ro({});\nwhile (true) {}",
        "while (true) await new Promise((r) => setTimeout(r, 20));",
    ];
    for source in sources {
        let p = program(source, &host.catalog());
        // Interrupted 300 ms in.
        let (interrupt, interrupted) = tokio::sync::watch::channel(false);
        let options = ExecuteOptions {
            interrupt: Some(interrupted),
            ..host.options()
        };
        let started = Instant::now();
        let stop = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            interrupt.send_replace(true);
        };
        let (report, ()) = tokio::join!(go(&p, &host, &sandbox, &options), stop);
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{source}: {took:?}");
        assert_eq!(
            report.error.map(|e| e.message).as_deref(),
            Some(pml_executor::INTERRUPTED),
            "{source}"
        );
        // Its wall clock: 300 ms.
        let options = ExecuteOptions {
            run_timeout: Duration::from_millis(300),
            ..host.options()
        };
        let started = Instant::now();
        let report = go(&p, &host, &sandbox, &options).await;
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{source}: {took:?}");
        let error = report.error.unwrap().message;
        assert!(error.contains("longer than 300 ms"), "{source}: {error}");
    }
    assert_eq!(host.stored("after"), None);
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_limit_names_the_operation_it_stopped_in() {
    let host = host();
    // A long grace: on a loaded machine the watchdog would otherwise abandon the worker before
    // it reports where it stopped (then the error cannot name the operation).
    let sandbox = Arc::new(
        Sandbox::new(SandboxOptions {
            watchdog_grace: Duration::from_secs(10),
            ..limits()
        })
        .unwrap(),
    );
    let p = program(
        "const r = await mcp.t.ro({});\nconst xs = [r.v, 2].map((x) => { while (true) {} });\nreturn xs;",
        &host.catalog(),
    );
    let report = go(&p, &host, &sandbox, &host.options()).await;
    assert!(!report.ok);
    let error = report.error.unwrap();
    assert_eq!(error.task_id.as_deref(), Some("n2"), "{error:?}");
    assert_eq!(error.tool.as_deref(), Some("code:map"));
    assert!(
        error.message.contains("exceeded 300 ms") && error.message.ends_with("(at 2:12)"),
        "{error:?}"
    );
    let end = (report.trace.iter())
        .find(|e| e.event == "tool_end" && e.tool == "code:map")
        .unwrap();
    assert_eq!(end.success, Some(false));
    // Out of time in no operation: the loop it spun in.
    let p = program(
        "const r = await mcp.t.ro({});\nlet i = 0;\nfor (const x of [1, 2]) { i += x; }\nwhile (r.v > 0) {\n  i++;\n}\nreturn i;",
        &host.catalog(),
    );
    let report = go(&p, &host, &sandbox, &host.options()).await;
    let error = report.error.unwrap();
    assert_eq!(error.task_id.as_deref(), Some("l2"), "{error:?}");
    assert!(
        error.message.starts_with("l2 (loop): ") && error.message.ends_with("(at 4:1)"),
        "{error:?}"
    );
    still_works(&host, &sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_starts_no_new_call_and_cancels_those_in_flight() {
    // The slow call (10 s) is in flight when the interrupt comes: it gets the grace, then is
    // cancelled (its future dropped); the program's `catch` and the call after it never run.
    let host = FakeHost::kv()
        .tool(
            "t:ro",
            ToolSpec::compute(|_| Ok(json!({"v": 1}))).read_only(),
        )
        .tool(
            "t:slow",
            ToolSpec::compute(|_| Ok(json!({"v": 2}))).latency_ms(10_000),
        )
        .into_arc();
    let sandbox = Arc::new(Sandbox::new(limits()).unwrap());
    let p = program(
        "const a = await mcp.t.ro({});\ntry { await mcp.t.slow({}); } catch (e) {}\nawait mcp.kv.put({ key: \"after\", value: 1 });\nreturn a;",
        &host.catalog(),
    );
    let (interrupt, interrupted) = tokio::sync::watch::channel(false);
    let options = ExecuteOptions {
        interrupt: Some(interrupted),
        ..host.options()
    };
    let started = Instant::now();
    let run = go(&p, &host, &sandbox, &options);
    let stop = async {
        while host.in_flight() == 0 || host.calls().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        interrupt.send_replace(true);
    };
    let (report, ()) = tokio::join!(run, stop);
    let took = started.elapsed();
    assert!(
        took < pml_executor::INTERRUPT_GRACE + Duration::from_millis(1500),
        "{took:?}"
    );
    assert!(!report.ok);
    assert_eq!(report.error.unwrap().message, pml_executor::INTERRUPTED);
    assert_eq!(host.in_flight(), 0, "the slow call was not cancelled");
    let tools: Vec<String> = host.calls().iter().map(|c| c.tool.clone()).collect();
    assert_eq!(tools, ["t:ro"], "only the first call completed");
    assert_eq!(host.stored("after"), None);
    // The trace so far: the first call, and the slow one ended as cancelled.
    let ends: Vec<(&str, Option<bool>, Option<&str>)> = (report.trace.iter())
        .filter(|e| e.event == "tool_end")
        .map(|e| (&*e.tool, e.success, e.error.as_deref()))
        .collect();
    assert_eq!(
        ends,
        [
            ("t:ro", Some(true), None),
            (
                "t:slow",
                Some(false),
                Some("cancelled: the run stopped before its answer")
            )
        ]
    );
    still_works(&host, &sandbox).await;
}

/// The code limit counts the program's own JavaScript, not pml's handling of its calls
/// (calls sent, answers turned into values, trace reports): quick calls with big answers in a
/// loop run to their end, though turning their answers into values alone takes longer than
/// the limit. (A limit of 1.5 s, and 200 answers of 1.5 MiB whose turning into values takes
/// ~8 s in a debug build; the loop's own time is a few tens of ms. On a loaded machine the
/// answers can be there before the program waits for them: that handling is not counted
/// either.)
#[tokio::test(flavor = "multi_thread")]
async fn the_code_limit_counts_the_programs_own_javascript() {
    let pad = "x".repeat(1536 * 1024);
    let host = FakeHost::kv()
        .tool(
            "t:big",
            ToolSpec::compute(move |_| Ok(json!({"v": 1, "pad": pad}))).read_only(),
        )
        .into_arc();
    let sandbox = Arc::new(
        Sandbox::new(SandboxOptions {
            time_limit: Duration::from_millis(1500),
            ..limits()
        })
        .unwrap(),
    );
    let n = 200;
    let p = program(
        &format!("let sum = 0;\nfor (let i = 0; i < {n}; i++) sum += (await mcp.t.big({{ i }})).v;\nreturn sum;"),
        &host.catalog(),
    );
    let options = ExecuteOptions {
        max_calls: n + 1,
        speculate: false,
        ..host.options().clone()
    };
    let report = go(&p, &host, &sandbox, &options).await;
    assert!(report.ok, "{:?}", report.error);
    assert_eq!(report.result, json!(n));
}
