//! Failures: a failing call or code task ends the run with an error naming the task, the tool
//! and the cause; what comes after it does not run; the program catches what it catches;
//! approvals are asked before calls and a denial means the call is not made.

use std::sync::{Arc, Mutex};

use pml_executor::{
    ApprovalPolicy, Approver, AutoApprove, BoxFuture, DenyAll, ExecuteOptions, Recording,
    RunReport, SideEffect, ToolFailure,
};
use pml_structure::Permissions;
use serde_json::json;

use crate::support::*;

fn failure() -> ToolFailure {
    ToolFailure {
        message: "disk full".into(),
        detail: "server t, tool bad: disk full (stderr: no space left on device)".into(),
    }
}

/// `t:slow` (read-only, 200 ms), `t:bad` (read-only, fails at once), `t:read` (read-only),
/// plus the kv tools.
fn host() -> FakeHost {
    FakeHost::kv()
        .tool(
            "t:slow",
            ToolSpec::compute(|_| Ok(json!({"v": 1})))
                .read_only()
                .latency_ms(200),
        )
        .tool(
            "t:bad",
            ToolSpec::new(Behavior::Fail(failure())).read_only(),
        )
        .tool("t:read", ToolSpec::new(Behavior::Echo).read_only())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_failure_ends_the_run_and_names_task_tool_and_cause() {
    let source = r#"
const a = await mcp.t.read({ n: 1 });
await mcp.t.bad({ n: 2 });
await mcp.kv.put({ key: "k", value: 3 });
const c = await mcp.t.read({ n: 4 });
return c;
"#;
    let host = host().into_arc();
    let p = program_unoptimized(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert!(!report.ok);
    assert_eq!(report.result, json!(null));
    let error = report.error.clone().unwrap();
    assert_eq!(error.task_id.as_deref(), Some("n2"), "{error:?}");
    assert_eq!(error.tool.as_deref(), Some("t:bad"));
    assert!(
        error.message.contains("n2") && error.message.contains("t:bad"),
        "{error:?}"
    );
    assert!(
        error.message.contains("no space left on device"),
        "the detail: {error:?}"
    );
    // The write after the failure is not made (n4, read-only and independent, may already
    // have started alongside: it is not a write).
    assert!(host.calls_to("kv:put").is_empty());
    assert_eq!(host.stored("k"), None);
    let failed_end = report
        .trace
        .iter()
        .find(|e| e.event == "tool_end" && e.tool == "t:bad")
        .unwrap();
    assert_eq!(failed_end.success, Some(false));
    assert!(failed_end.error.as_deref().unwrap().contains("disk full"));
    assert!(report.executed_path.contains(&"t:bad".to_owned()));
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_after_a_failure_is_made_even_ahead_of_the_program() {
    // `t:slow` and `t:bad` are read-only: both start ahead of the program; `t:bad` fails at
    // once. The program gets `t:slow`, calls `t:bad` itself, fails there: `t:read` (after
    // the failure) is not started ahead either, and the write is not made.
    let source = r#"
const s = await mcp.t.slow({});
await mcp.t.bad({});
const r = await mcp.t.read({ v: s.v });
await mcp.kv.put({ key: "k", value: r });
return r;
"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert!(!report.ok);
    let error = report.error.clone().unwrap();
    assert_eq!(error.tool.as_deref(), Some("t:bad"), "{error:?}");
    assert_eq!(error.task_id.as_deref(), Some("n2"), "{error:?}");
    assert_eq!(host.calls_to("t:slow").len(), 1);
    assert!(host.calls_to("t:read").is_empty(), "{:?}", host.calls());
    assert!(host.calls_to("kv:put").is_empty());
    assert_eq!(host.in_flight(), 0);
    assert_eq!(report.executed_path, ["t:slow", "t:bad"]);
    let s = report.speculation.unwrap();
    assert_eq!(s.planned, s.served + s.wasted, "{s:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_mode_names_the_failed_call_tool_and_cause() {
    // The failure's `message` (what the program's `Error` says) differs from its `detail` (what
    // people are told), as for any real `McpError::Tool`: the uncaught exception must still be
    // matched to the call. (Found failing while these tests were written: program.rs looked for
    // the detail in the exception; fixed since.)
    let source = r#"
const a = await mcp.t.read({ n: 1 });
await mcp.t.bad({ n: 2 });
await mcp.t.read({ n: 3 });
"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options().clone()).await;
    assert!(!report.ok);
    let reads = report.calls.iter().filter(|c| c.tool == "t:read").count();
    assert_eq!(reads, 1, "the call after the failure is not made");
    let error = report.error.clone().unwrap();
    assert_eq!(error.tool.as_deref(), Some("t:bad"), "{error:?}");
    // The call's node in the structure, and where it is in the program.
    assert_eq!(error.task_id.as_deref(), Some("n2"), "{error:?}");
    assert!(error.message.contains("disk full"), "{error:?}");
    assert!(error.message.starts_with("n2 (t:bad): "), "{error:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_mode_names_the_failed_call_when_message_and_detail_agree() {
    let source = "await mcp.t.read({}); await mcp.t.oops({}); await mcp.t.read({});";
    let host = host()
        .tool(
            "t:oops",
            ToolSpec::new(Behavior::Fail(ToolFailure::new("oops: no such row"))),
        )
        .into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options().clone()).await;
    let error = report.error.clone().unwrap();
    assert_eq!(error.task_id.as_deref(), Some("n2"), "{error:?}");
    assert!(error.message.ends_with("(at 1:29)"), "{error:?}");
    assert_eq!(error.tool.as_deref(), Some("t:oops"));
    assert!(error.message.contains("no such row"));
    assert_eq!(host.calls_to("t:read").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_caught_call_failure_is_not_blamed_for_a_later_error() {
    let source = r#"
try {
  await mcp.t.bad({});
} catch (e) {}
await mcp.t.read({});
throw new Error("mine");
"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert!(!report.ok);
    let error = report.error.clone().unwrap();
    assert!(error.message.contains("mine"), "{error:?}");
    assert_eq!(error.tool, None, "{error:?}");
    assert_eq!(host.calls_to("t:read").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_throwing_operation_fails_the_run_and_is_named() {
    let source = r#"
const x = await mcp.t.read({ text: "not json" });
const data = JSON.parse(x.args.text);
const n = data.length;
await mcp.t.use({ n });
return n;
"#;
    let host = host()
        .tool("t:use", ToolSpec::new(Behavior::Echo))
        .into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert!(!report.ok);
    let error = report.error.clone().unwrap();
    assert_eq!(error.task_id.as_deref(), Some("n2"), "{error:?}");
    assert_eq!(error.tool.as_deref(), Some("code:JSON.parse"), "{error:?}");
    assert!(error.message.contains("SyntaxError"), "{error:?}");
    assert!(error.message.contains("(at 3:14)"), "{error:?}");
    assert!(host.calls_to("t:use").is_empty());
    let parse_end = (report.trace.iter())
        .find(|e| e.event == "tool_end" && e.tool == "code:JSON.parse")
        .unwrap();
    assert_eq!(parse_end.success, Some(false));
    assert_eq!(parse_end.task_id.as_deref(), Some("n2"));
    assert!(!report.executed_path.iter().any(|t| t == "t:use"));
}

/// An operation that throws into a `catch` of the program ends, failed, where it threw:
/// before what follows starts (in the program, in a loop, in a local function called from
/// another operation's callback, whose own operation goes on), not as an operation the
/// program left unfinished at the end of the run.
#[tokio::test(flavor = "multi_thread")]
async fn an_operation_that_throws_into_a_catch_ends_where_it_threw() {
    let source = r#"
let a = null;
try { a = JSON.parse(args.bad); } catch { a = "caught"; }
const out = [];
for (const s of ["1", "{"]) {
  try { const v = JSON.parse(s); out.push(v); } catch (e) { out.push(null); }
}
function parse(s) {
  try { return JSON.parse(s); } catch { return null; }
}
const parsed = ["2", "}"].map((s) => parse(s));
await mcp.t.read({ a, out, parsed });
return [a, out, parsed];
"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let options = ExecuteOptions {
        args: json!({ "bad": "not json" }),
        ..host.options()
    };
    let report = run(&p, host.clone(), &options).await;
    assert_ok(&report);
    assert_eq!(report.result, json!(["caught", [1, null], [2, null]]));
    let parses: Vec<_> = (report.trace.iter())
        .filter(|e| e.event == "tool_end" && e.tool == "code:JSON.parse")
        .collect();
    // The program's, the loop's twice, the function's twice: two succeed, three threw.
    assert_eq!(parses.len(), 5, "{:#?}", report.trace);
    let failed = parses.iter().filter(|e| e.success == Some(false)).count();
    assert_eq!(failed, 3, "{:#?}", parses);
    for e in &parses {
        assert_ne!(
            e.error.as_deref(),
            Some("did not finish: the program stopped"),
            "{e:?}"
        );
    }
    // Each ended before the call started; the `map` around the function's ended once, well.
    let call = (report.trace.iter())
        .position(|e| e.event == "tool_start" && e.tool == "t:read")
        .unwrap();
    let last_parse = (report.trace.iter())
        .rposition(|e| e.event == "tool_end" && e.tool == "code:JSON.parse")
        .unwrap();
    assert!(last_parse < call, "{:#?}", report.trace);
    let maps: Vec<_> = (report.trace.iter())
        .filter(|e| e.event == "tool_end" && e.tool == "code:map")
        .collect();
    assert_eq!(maps.len(), 1, "{maps:?}");
    assert_eq!(maps[0].success, Some(true), "{maps:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn try_catch_in_sandbox_mode_lets_the_program_go_on() {
    let source = r#"
let r;
try {
  r = await mcp.t.bad({});
} catch (e) {
  r = "caught: " + e.message;
}
await mcp.kv.put({ key: "after", value: r });
return r;
"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    // The program sees the message, not the detail.
    assert_eq!(report.result, json!("caught: disk full"));
    assert_eq!(host.stored("after"), Some(json!("caught: disk full")));
    let bad_end = report
        .trace
        .iter()
        .find(|e| e.event == "tool_end" && e.tool == "t:bad")
        .unwrap();
    assert_eq!(bad_end.success, Some(false));
    // The operation the handler ran is in the executed path too.
    assert_eq!(report.executed_path, ["t:bad", "code:add", "kv:put"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn all_settled_in_sandbox_mode_records_the_rejection_and_goes_on() {
    let source = r#"
const rs = await Promise.allSettled([mcp.t.bad({}), mcp.t.read({ a: 1 })]);
await mcp.kv.put({ key: "n", value: rs.length });
return rs.map((r) => r.status === "rejected" ? r.reason.message : r.value.args.a);
"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!(["disk full", 1]));
    assert_eq!(host.stored("n"), Some(json!(2)));
    let ends: Vec<(String, Option<bool>)> = report
        .trace
        .iter()
        .filter(|e| e.event == "tool_end")
        .map(|e| (e.tool.to_string(), e.success))
        .collect();
    assert!(ends.contains(&("t:bad".into(), Some(false))), "{ends:?}");
    assert!(ends.contains(&("t:read".into(), Some(true))));
    assert_eq!(report.calls.len(), 3);
}

/// `danger:drop` is annotated destructive; `kv:put` is not.
fn approval_host() -> Arc<FakeHost> {
    FakeHost::kv()
        .tool(
            "danger:drop",
            ToolSpec::compute(|a| Ok(json!({"dropped": a["table"]}))).destructive(true),
        )
        .into_arc()
}

const DROP: &str = r#"
const a = await mcp.kv.get({ key: "a" });
await mcp.danger.drop({ table: "users" });
await mcp.kv.put({ key: "b", value: 1 });
return a;
"#;

fn denied(report: &RunReport, tool: &str) {
    assert!(!report.ok);
    let error = report.error.clone().unwrap();
    assert_eq!(error.tool.as_deref(), Some(tool), "{error:?}");
    assert!(error.task_id.is_some(), "{error:?}");
    assert!(error.message.contains("not approved"), "{error:?}");
    let end = report
        .trace
        .iter()
        .find(|e| e.event == "tool_end" && e.tool == tool)
        .expect("the denied call is traced");
    assert_eq!(end.success, Some(false));
}

#[tokio::test(flavor = "multi_thread")]
async fn deny_all_refuses_a_destructive_call_which_is_not_made() {
    let host = approval_host();
    let p = program(DROP, &host.catalog());
    for options in [host.options(), host.options().clone()] {
        host.reset();
        let report = run_with(
            &p,
            host.clone(),
            Arc::new(DenyAll),
            sandbox_options(),
            &options,
        )
        .await;
        denied(&report, "danger:drop");
        assert!(host.calls_to("danger:drop").is_empty());
        assert!(
            host.calls_to("kv:put").is_empty(),
            "the write after it is not made"
        );
        assert_eq!(host.calls_to("kv:get").len(), 1);
        assert!(report.calls.iter().all(|c| c.tool != "danger:drop"));
    }
    // Approved, the same program runs.
    host.reset();
    let report = run_with(
        &p,
        host.clone(),
        Arc::new(AutoApprove),
        sandbox_options(),
        &host.options(),
    )
    .await;
    assert_ok(&report);
    assert_eq!(host.calls_to("danger:drop").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permissions_config_saying_hil_requires_approval() {
    let source = r#"
await mcp.kv.put({ key: "b", value: 1 });
return await mcp.kv.get({ key: "b" });
"#;
    let host = approval_host();
    let p = program(source, &host.catalog());
    let hil = ApprovalPolicy {
        permissions: Some(Permissions::from_json(r#"{"permissions": {"kv:put": "hil"}}"#).unwrap()),
    };
    // Without the config a non-destructive write needs no approval: DenyAll lets it run.
    let report = run_with(
        &p,
        host.clone(),
        Arc::new(DenyAll),
        sandbox_options(),
        &host.options(),
    )
    .await;
    assert_ok(&report);
    assert_eq!(report.result, json!(1));
    for speculate in [true, false] {
        let host = approval_host();
        let options = ExecuteOptions {
            policy: hil.clone(),
            speculate,
            ..host.options()
        };
        let report = run_with(
            &p,
            host.clone(),
            Arc::new(DenyAll),
            sandbox_options(),
            &options,
        )
        .await;
        denied(&report, "kv:put");
        assert!(host.calls_to("kv:put").is_empty());
        assert_eq!(host.stored("b"), None);

        // A recording approver that says no is asked once, with the arguments.
        let host = approval_host();
        let recording = Arc::new(Recording::new(false));
        let report = run_with(
            &p,
            host.clone(),
            recording.clone(),
            sandbox_options(),
            &options,
        )
        .await;
        denied(&report, "kv:put");
        let asked = recording.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(asked[0].tool, "kv:put");
        assert_eq!(asked[0].arguments, Some(json!({"key": "b", "value": 1})));
        assert!(asked[0].needs_approval);
        assert!(host.calls_to("kv:put").is_empty());

        // Saying yes runs it.
        let host = approval_host();
        let recording = Arc::new(Recording::new(true));
        let report = run_with(
            &p,
            host.clone(),
            recording.clone(),
            sandbox_options(),
            &options,
        )
        .await;
        assert_ok(&report);
        assert_eq!(report.result, json!(1));
        assert_eq!(recording.asked.lock().unwrap().len(), 1);
    }
}

/// A [`Recording`] that also notes how many calls the host had received when `review` ran.
struct Probe {
    inner: Recording,
    host: Arc<FakeHost>,
    calls_at_review: Mutex<Option<usize>>,
}

impl Approver for Probe {
    fn review<'a>(&'a self, planned: &'a [SideEffect]) -> BoxFuture<'a, bool> {
        *self.calls_at_review.lock().unwrap() =
            Some(self.host.calls().len() + self.host.in_flight());
        self.inner.review(planned)
    }

    fn approve<'a>(&'a self, call: &'a SideEffect) -> BoxFuture<'a, bool> {
        self.inner.approve(call)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn review_sees_every_side_effect_before_anything_runs() {
    let source = r#"
const flag = await mcp.kv.get({ key: "flag" });
const text = JSON.stringify({ flag });
if (flag) {
  await mcp.danger.drop({ table: text });
} else {
  await mcp.kv.put({ key: "b", value: text });
}
return text;
"#;
    for speculate in [true, false] {
        let host = approval_host();
        let p = program(source, &host.catalog());
        let probe = Arc::new(Probe {
            inner: Recording::new(true),
            host: host.clone(),
            calls_at_review: Mutex::new(None),
        });
        let options = ExecuteOptions {
            speculate,
            ..host.options()
        };
        let report = run_with(&p, host.clone(), probe.clone(), sandbox_options(), &options).await;
        assert_ok(&report);
        assert_eq!(
            *probe.calls_at_review.lock().unwrap(),
            Some(0),
            "review before any call"
        );
        let reviewed = probe.inner.reviewed.lock().unwrap().clone();
        let mut tools: Vec<(String, bool)> = reviewed
            .iter()
            .map(|s| (s.tool.clone(), s.needs_approval))
            .collect();
        tools.sort();
        // Both branches' writes, the one not taken included; not the read, not the pure op.
        assert_eq!(
            tools,
            [
                ("danger:drop".to_owned(), true),
                ("kv:put".to_owned(), false)
            ],
            "speculate {speculate}: {reviewed:?}"
        );
        // The plan: arguments as far as known (the computed ones as `$computed`, said with the
        // program's names and where they come from), both in a branch (they may run), after
        // the read.
        let drop = reviewed.iter().find(|s| s.tool == "danger:drop").unwrap();
        let put = reviewed.iter().find(|s| s.tool == "kv:put").unwrap();
        assert_eq!(
            drop.arguments,
            Some(
                serde_json::json!({"table": {"$computed": "text, from code:JSON.stringify at 3:14"}})
            ),
            "{drop:?}"
        );
        assert_eq!(
            put.arguments,
            Some(
                serde_json::json!({"key": "b", "value": {"$computed": "text, from code:JSON.stringify at 3:14"}})
            ),
            "{put:?}"
        );
        assert!(drop.may_run && put.may_run);
        assert_eq!(drop.reads_before, ["kv:get"]);
        assert_eq!((drop.line, drop.column), (Some(5), Some(9)));
        // Only the branch taken (flag is null: the put) ran; it needs no approval: nobody asked.
        assert!(probe.inner.asked.lock().unwrap().is_empty());
        assert_eq!(host.calls_to("kv:put").len(), 1);
        assert!(host.calls_to("danger:drop").is_empty());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn pure_operations_never_ask() {
    // Everything needs a human per the config: every MCP call is asked, no code op is.
    let source = r#"
const x = await mcp.kv.get({ key: "k" });
const parsed = JSON.parse(x).map((v) => v * 2);
await mcp.kv.put({ key: "out", value: parsed });
return parsed;
"#;
    for speculate in [true, false] {
        let host = approval_host();
        host.set("k", json!("[1,2]"));
        let p = program(source, &host.catalog());
        let recording = Arc::new(Recording::new(true));
        let options = ExecuteOptions {
            speculate,
            policy: ApprovalPolicy {
                permissions: Some(Permissions::from_json(r#"{"*": "hil"}"#).unwrap()),
            },
            ..host.options()
        };
        let report = run_with(
            &p,
            host.clone(),
            recording.clone(),
            sandbox_options(),
            &options,
        )
        .await;
        assert_ok(&report);
        assert_eq!(report.result, json!([2, 4]));
        let asked: Vec<String> = recording
            .asked
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.tool.clone())
            .collect();
        assert_eq!(asked, ["kv:get", "kv:put"], "speculate {speculate}");
        assert!(report.executed_path.iter().any(|t| t.starts_with("code:")));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_review_runs_nothing() {
    struct No;
    impl Approver for No {
        fn review<'a>(&'a self, _: &'a [SideEffect]) -> BoxFuture<'a, bool> {
            Box::pin(async { false })
        }
        fn approve<'a>(&'a self, _: &'a SideEffect) -> BoxFuture<'a, bool> {
            Box::pin(async { true })
        }
    }
    let host = approval_host();
    let p = program(DROP, &host.catalog());
    for options in [host.options(), host.options().clone()] {
        let report = run_with(&p, host.clone(), Arc::new(No), sandbox_options(), &options).await;
        assert!(!report.ok);
        assert!(report.error.unwrap().message.contains("not approved"));
        assert!(host.calls().is_empty());
        assert!(report.trace.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_mode_waits_for_calls_still_running() {
    // A call the program did not await to the end (a fire-and-forget `mcp.log.write(..)`
    // without `await`, or the slow sibling of a call that made `Promise.all` reject) runs to
    // its end, as it would running the program directly: the run waits for it, and the
    // report has its `tool_end` and its call.
    let host = FakeHost::kv()
        .tool(
            "log:write",
            ToolSpec::compute(|a| Ok(json!({"logged": a["m"]}))).latency_ms(300),
        )
        .tool(
            "t:bad",
            ToolSpec::new(Behavior::Fail(failure())).read_only(),
        )
        .into_arc();
    for (source, made) in [
        (
            "mcp.log.write({ m: 'started' });\nconst v = await mcp.kv.get({ key: 'k' });\nreturn v;",
            ["log:write", "kv:get"],
        ),
        (
            "const [a, b] = await Promise.all([mcp.t.bad({}), mcp.log.write({ m: 'x' })]);\nreturn 1;",
            ["t:bad", "log:write"],
        ),
    ] {
        host.reset();
        let p = program(source, &host.catalog());
        let report = run(&p, host.clone(), &host.options().clone()).await;
        let in_flight = host.in_flight();
        let starts = report.trace.iter().filter(|e| e.event == "tool_start").count();
        let ends = report.trace.iter().filter(|e| e.event == "tool_end").count();
        let mut calls: Vec<&str> = report.calls.iter().map(|c| c.tool.as_str()).collect();
        calls.sort();
        let mut made = made.to_vec();
        made.sort();
        // Let the straggler finish before asserting, so the next case starts clean.
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        assert_eq!(in_flight, 0, "{source}: a call still running after the run");
        assert_eq!(starts, ends, "{source}: {:?}", report.trace);
        assert_eq!(calls, made, "{source}");
    }
}

/// Code written without spaces (`return(...)`, `typeof(...)`) runs as written: what the
/// instrumentation wraps there stays apart from the keyword (`return(x).split()` made
/// `return__pml.e(...)`, a name that is not defined).
#[tokio::test(flavor = "multi_thread")]
async fn code_written_without_spaces_runs_as_written() {
    let source = r#"async function f(){return(await mcp.t.read({v:"a b"})).args.v.split(" ")}
const a = await f();
const n = typeof(a);
if(a.length>1){return(a.concat([n])).join("-")}
return(a)"#;
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!("a-b-object"));
}
