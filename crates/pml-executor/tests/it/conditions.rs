//! Conditions: only the taken branch runs and is traced, with the outcome each decision took;
//! the executed path is in completion order; the trace has a `tool_start`/`tool_end` pair per
//! logical operation, each under its structure node.

use std::collections::BTreeMap;

use pml_executor::{EventKind, ExecuteOptions, RunReport};
use serde_json::{json, Value};

use crate::support::*;

/// Runs `source` with `args` with and without speculation; checks both made exactly the calls
/// to `expected` (plus `t:check`), and that the path and the trace name those MCP tools and no
/// other. Returns the report of the run with speculation.
async fn only_taken(source: &str, args: Value, expected: &[&str]) -> RunReport {
    let host = FakeHost::new()
        .tool("t:check", ToolSpec::new(Behavior::Echo).read_only())
        .into_arc();
    let p = program(source, &host.catalog());
    let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    expected.push("t:check".into());
    expected.sort();
    let mut first = None;
    for speculate in [true, false] {
        host.reset();
        let options = ExecuteOptions {
            args: args.clone(),
            speculate,
            ..host.options()
        };
        let report = run(&p, host.clone(), &options).await;
        assert_ok(&report);
        let ctx = format!("speculate {speculate}, args {args}");
        let mut made: Vec<String> = host.calls().into_iter().map(|c| c.tool).collect();
        made.sort();
        assert_eq!(made, expected, "{ctx}");
        let mut path: Vec<String> = report
            .executed_path
            .iter()
            .filter(|t| !t.starts_with("code:"))
            .cloned()
            .collect();
        path.sort();
        assert_eq!(path, expected, "{ctx}");
        let mut traced: Vec<String> = report
            .trace
            .iter()
            .filter(|e| e.event == "tool_end" && !e.tool.starts_with("code:"))
            .map(|e| e.tool.to_string())
            .collect();
        traced.sort();
        assert_eq!(traced, expected, "{ctx}");
        check_trace_pairs(&report);
        first.get_or_insert(report);
    }
    first.expect("a run")
}

/// Every logical operation has exactly one `tool_start` then one `tool_end`, same tool; the
/// executed path is the tools of the `tool_end` events in order.
fn check_trace_pairs(report: &RunReport) {
    let mut seen: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, e) in report.trace.iter().enumerate() {
        if !e.is_operation() {
            // Sandbox mode also traces decisions, forks, joins and loops, each under its node.
            assert!(e.task_id.is_some(), "{e:?}");
            continue;
        }
        let entry = seen
            .entry(e.task_id.as_deref().unwrap_or_default())
            .or_insert((usize::MAX, usize::MAX));
        match e.event {
            EventKind::ToolStart => {
                assert_eq!(entry.0, usize::MAX, "two starts for {:?}", e.task_id);
                entry.0 = i;
                assert!(e.duration_ms.is_none() && e.success.is_none());
            }
            EventKind::ToolEnd => {
                assert_eq!(entry.1, usize::MAX, "two ends for {:?}", e.task_id);
                entry.1 = i;
                assert!(e.success.is_some() && e.duration_ms.is_some());
            }
            other => panic!("unknown event {other}"),
        }
    }
    for (id, (start, end)) in &seen {
        assert!(
            *start < *end && *end != usize::MAX,
            "{id}: start {start}, end {end}"
        );
        let (s, e) = (&report.trace[*start], &report.trace[*end]);
        assert_eq!(s.tool, e.tool);
        assert_eq!(s.physical_task_id, e.physical_task_id);
        assert!(s.ts_ms <= e.ts_ms);
    }
    let ends: Vec<String> = report
        .trace
        .iter()
        .filter(|e| e.event == "tool_end")
        .map(|e| e.tool.to_string())
        .collect();
    assert_eq!(ends, report.executed_path);
}

const IF_ELSE: &str = "
const r = await mcp.t.check({ v: args.v });
if (r.args.v > 10) {
  await mcp.t.big({ v: r.args.v });
} else {
  await mcp.t.small({ v: r.args.v });
}
await mcp.t.after({});
";

#[tokio::test(flavor = "multi_thread")]
async fn if_else_runs_one_branch() {
    only_taken(IF_ELSE, json!({"v": 11}), &["t:big", "t:after"]).await;
    only_taken(IF_ELSE, json!({"v": 10}), &["t:small", "t:after"]).await;
    // `undefined > 10` is false.
    only_taken(IF_ELSE, json!({}), &["t:small", "t:after"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn if_without_else() {
    let source = "
const r = await mcp.t.check({ s: args.s });
if (r.args.s) {
  await mcp.t.yes({});
}
return r.args.s;
";
    only_taken(source, json!({"s": "x"}), &["t:yes"]).await;
    // Falsy values as JavaScript has them.
    for falsy in [json!(""), json!(0), json!(null), json!(false)] {
        only_taken(source, json!({ "s": falsy }), &[]).await;
    }
    only_taken(source, json!({"s": []}), &["t:yes"]).await;
    only_taken(source, json!({"s": {}}), &["t:yes"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn else_if_chain() {
    let source = "
const r = await mcp.t.check({ v: args.v });
if (r.args.v > 10) {
  await mcp.t.big({});
} else if (r.args.v > 5) {
  await mcp.t.medium({});
} else if (r.args.v > 0) {
  await mcp.t.small({});
} else {
  await mcp.t.none({});
}
await mcp.t.after({});
";
    for (v, tool) in [
        (20, "t:big"),
        (7, "t:medium"),
        (1, "t:small"),
        (0, "t:none"),
    ] {
        only_taken(source, json!({ "v": v }), &[tool, "t:after"]).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nested_ifs() {
    let source = r#"
const r = await mcp.t.check({ a: args.a, b: args.b });
if (r.args.a) {
  await mcp.t.a({});
  if (r.args.b === "x") {
    await mcp.t.ax({});
  } else {
    await mcp.t.ay({});
  }
} else {
  if (r.args.b === "x") {
    await mcp.t.nx({});
  }
}
return 1;
"#;
    only_taken(source, json!({"a": true, "b": "x"}), &["t:a", "t:ax"]).await;
    only_taken(source, json!({"a": true, "b": "z"}), &["t:a", "t:ay"]).await;
    only_taken(source, json!({"a": false, "b": "x"}), &["t:nx"]).await;
    only_taken(source, json!({"a": false, "b": "z"}), &[]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn switch_with_fall_through_and_default_on_strings() {
    let source = r#"
const job = await mcp.t.check({ status: args.s });
switch (job.args.status) {
  case "queued":
  case "running":
    await mcp.api.wait_job({ id: 1 });
  case "done":
    await mcp.api.fetch_result({ id: 1 });
    break;
  default:
    await mcp.api.report_failure({ id: 1 });
}
return job.args.status;
"#;
    let both = &["api:wait_job", "api:fetch_result"];
    only_taken(source, json!({"s": "queued"}), both).await;
    only_taken(source, json!({"s": "running"}), both).await;
    only_taken(source, json!({"s": "done"}), &["api:fetch_result"]).await;
    only_taken(source, json!({"s": "failed"}), &["api:report_failure"]).await;
    only_taken(source, json!({}), &["api:report_failure"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn switch_on_numbers_booleans_and_null_is_strict() {
    let source = r#"
const r = await mcp.t.check({ code: args.c });
switch (r.args.code) {
  case 1:
    await mcp.api.one({});
    break;
  case 2:
    await mcp.api.two({});
  case true:
    await mcp.api.three({});
    break;
  case null:
    await mcp.api.nil({});
    break;
  default:
    await mcp.api.other({});
}
return 0;
"#;
    only_taken(source, json!({"c": 1}), &["api:one"]).await;
    only_taken(source, json!({"c": 2}), &["api:two", "api:three"]).await;
    only_taken(source, json!({"c": true}), &["api:three"]).await;
    only_taken(source, json!({"c": null}), &["api:nil"]).await;
    // Strict equality: no conversions.
    only_taken(source, json!({"c": "1"}), &["api:other"]).await;
    only_taken(source, json!({"c": "true"}), &["api:other"]).await;
    only_taken(source, json!({"c": 0}), &["api:other"]).await;
    only_taken(source, json!({}), &["api:other"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn switch_default_in_the_middle_falls_through() {
    let source = r#"
const r = await mcp.t.check({ k: args.k });
switch (r.args.k) {
  case "a":
    await mcp.api.a({});
    break;
  default:
    await mcp.api.d({});
  case "b":
    await mcp.api.b({});
}
return 0;
"#;
    only_taken(source, json!({"k": "a"}), &["api:a"]).await;
    only_taken(source, json!({"k": "b"}), &["api:b"]).await;
    only_taken(source, json!({"k": "z"}), &["api:d", "api:b"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn executed_path_is_completion_order() {
    let source = "
const [s, m, f] = await Promise.all([
  mcp.t.slow({}),
  mcp.t.medium({}),
  mcp.t.fast({}),
]);
const both = [s.tool, m.tool, f.tool].join(',');
return both;
";
    let host = FakeHost::new()
        .tool(
            "t:slow",
            ToolSpec::new(Behavior::Echo).read_only().latency_ms(300),
        )
        .tool(
            "t:medium",
            ToolSpec::new(Behavior::Echo).read_only().latency_ms(150),
        )
        .tool(
            "t:fast",
            ToolSpec::new(Behavior::Echo).read_only().latency_ms(1),
        )
        .into_arc();
    let p = program(source, &host.catalog());
    for speculate in [true, false] {
        host.reset();
        let options = ExecuteOptions {
            speculate,
            ..host.options()
        };
        let report = run(&p, host.clone(), &options).await;
        assert_ok(&report);
        assert_eq!(report.result, json!("t:slow,t:medium,t:fast"));
        let mcp: Vec<&str> = report
            .executed_path
            .iter()
            .map(String::as_str)
            .filter(|t| t.starts_with("t:"))
            .collect();
        assert_eq!(mcp, ["t:fast", "t:medium", "t:slow"]);
        let mut by_end = host.calls();
        by_end.sort_by_key(|c| c.end);
        let ended: Vec<String> = by_end.into_iter().map(|c| c.tool).collect();
        assert_eq!(mcp, ended);
        check_trace_pairs(&report);
        // `report.calls` is in completion order too.
        let calls: Vec<&str> = report.calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(calls, ["t:fast", "t:medium", "t:slow"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chain_is_traced_per_logical_operation() {
    let source = r#"
const x = await mcp.t.read({});
const ids = JSON.parse(x.content).filter((i) => i.ok).map((i) => i.id);
return ids;
"#;
    let host = FakeHost::new()
        .tool(
            "t:read",
            ToolSpec::new(Behavior::Value(json!({
                "content": "[{\"ok\":true,\"id\":1},{\"ok\":false,\"id\":2},{\"ok\":true,\"id\":3}]"
            })))
            .read_only(),
        )
        .into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([1, 3]));
    check_trace_pairs(&report);
    // Each operation under its own node, with its own time, the fused task it is part of
    // named beside it.
    let fused = (p.physical.physical_to_logical.iter())
        .flatten()
        .find(|(_, logical)| logical.len() > 1)
        .map(|(physical, logical)| (physical.clone(), logical.clone()));
    let (fused, members) = fused.expect("the chain is fused");
    assert!(members.len() >= 2, "{members:?}");
    for (id, tool) in [
        ("n2", "code:JSON.parse"),
        ("n3", "code:filter"),
        ("n4", "code:map"),
    ] {
        let events: Vec<_> = (report.trace.iter())
            .filter(|e| e.task_id.as_deref() == Some(id))
            .collect();
        assert_eq!(events.len(), 2, "{id}: {events:?}");
        for e in &events {
            assert_eq!(e.tool, tool, "{e:?}");
            let expected = members.contains(&id.to_owned()).then_some(fused.as_str());
            assert_eq!(e.physical_task_id.as_deref(), expected, "{e:?}");
        }
        assert_eq!(events[1].success, Some(true));
        assert!(events[1].duration_ms.unwrap() < 50.0, "{:?}", events[1]);
    }
    let last = (report.trace.iter())
        .find(|e| e.event == "tool_end" && e.task_id.as_deref() == Some("n4"))
        .unwrap();
    assert_eq!(last.preview.as_deref(), Some("[1,3]"));
    assert_eq!(
        report.executed_path,
        ["t:read", "code:JSON.parse", "code:filter", "code:map"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn decisions_say_which_outcome_they_took() {
    let source = r#"
const r = await mcp.t.check({ n: args.n });
const label = r.args.n > 1 ? await mcp.t.check({ big: true }) : null;
switch (args.kind) {
  case "a": await mcp.t.check({ a: 1 }); break;
  default: await mcp.t.check({ other: 1 });
}
return label === null;
"#;
    let report = only_taken(source, json!({"n": 0, "kind": "z"}), &["t:check"]).await;
    let decisions: Vec<(Option<&str>, Option<&str>)> = (report.trace.iter())
        .filter(|e| e.event == "decision")
        .map(|e| (e.task_id.as_deref(), e.outcome.as_deref()))
        .collect();
    assert_eq!(
        decisions,
        [(Some("d1"), Some("false")), (Some("d2"), Some("default"))]
    );
    let report = only_taken(
        source,
        json!({"n": 2, "kind": "a"}),
        &["t:check", "t:check"],
    )
    .await;
    let decisions: Vec<Option<&str>> = (report.trace.iter())
        .filter(|e| e.event == "decision")
        .map(|e| e.outcome.as_deref())
        .collect();
    assert_eq!(decisions, [Some("true"), Some("case:a")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn skipped_branches_are_not_traced_even_with_code() {
    // Pure code inside a branch that is not taken does not run either.
    let source = r#"
const r = await mcp.t.check({ n: args.n });
if (r.args.n > 0) {
  const doubled = [r.args.n, r.args.n].map((x) => x * 2);
  await mcp.t.use({ doubled });
}
return r.args.n;
"#;
    let report = only_taken(source, json!({"n": 0}), &[]).await;
    assert!(
        report.trace.iter().all(|e| !e.tool.starts_with("code:")),
        "{:?}",
        report.trace
    );
    let report = only_taken(source, json!({"n": 2}), &["t:use"]).await;
    assert!(
        report.executed_path.iter().any(|t| t == "code:map"),
        "{:?}",
        report.executed_path
    );
}
