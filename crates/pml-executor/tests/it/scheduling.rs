//! Running ahead of the program: overlap of independent read-only calls (measured as calls in
//! flight), write barriers, write-then-read, start-as-soon-as-ready, data flowing between
//! calls, with speculation on and off.

use pml_executor::ExecuteOptions;
use serde_json::{json, Value};

use crate::support::*;

/// `t:read` (read-only, 100 ms) answers `{id, v: id * 10}`; `t:write` (a write, 100 ms) answers
/// `{written: id}`.
fn host() -> FakeHost {
    FakeHost::kv()
        .tool(
            "t:read",
            ToolSpec::compute(|a| {
                Ok(json!({"id": a["id"], "v": a["id"].as_i64().unwrap_or(0) * 10}))
            })
            .read_only()
            .latency_ms(100),
        )
        .tool(
            "t:write",
            ToolSpec::compute(|a| Ok(json!({"written": a["id"]})))
                .destructive(false)
                .latency_ms(100),
        )
}

const SEQUENTIAL: &str = "
const a = await mcp.t.read({ id: 1 });
const b = await mcp.t.read({ id: 2 });
const c = await mcp.t.read({ id: 3 });
const d = await mcp.t.read({ id: 4 });
return [a.v, b.v, c.v, d.v];
";

const PARALLEL: &str = "
const [a, b, c, d] = await Promise.all([
  mcp.t.read({ id: 1 }),
  mcp.t.read({ id: 2 }),
  mcp.t.read({ id: 3 }),
  mcp.t.read({ id: 4 }),
]);
return [a.v, b.v, c.v, d.v];
";

async fn max_in_flight(source: &str, options: &ExecuteOptions) -> (usize, Value) {
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let options = ExecuteOptions {
        annotations: host.annotations(),
        ..options.clone()
    };
    let report = run(&p, host.clone(), &options).await;
    assert_ok(&report);
    assert_eq!(host.calls_to("t:read").len(), 4);
    assert_eq!(host.in_flight(), 0);
    (host.max_in_flight(), report.result)
}

#[tokio::test(flavor = "multi_thread")]
async fn sequential_reads_overlap_only_with_speculation() {
    let expected = json!([10, 20, 30, 40]);
    let ahead = max_in_flight(SEQUENTIAL, &ExecuteOptions::default()).await;
    assert_eq!(ahead, (4, expected.clone()));
    let as_written = ExecuteOptions {
        speculate: false,
        ..ExecuteOptions::default()
    };
    assert_eq!(max_in_flight(SEQUENTIAL, &as_written).await, (1, expected));
}

#[tokio::test(flavor = "multi_thread")]
async fn promise_all_overlaps_with_or_without_speculation() {
    let expected = json!([10, 20, 30, 40]);
    for speculate in [true, false] {
        let options = ExecuteOptions {
            speculate,
            ..ExecuteOptions::default()
        };
        let (n, result) = max_in_flight(PARALLEL, &options).await;
        assert_eq!(n, 4, "speculate {speculate}");
        assert_eq!(result, expected);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_is_a_barrier_for_reads_on_both_sides() {
    let source = "
const a = await mcp.t.read({ id: 1 });
const b = await mcp.t.read({ id: 2 });
await mcp.t.write({ id: 3 });
const c = await mcp.t.read({ id: 4 });
const d = await mcp.t.read({ id: 5 });
return [a.v, b.v, c.v, d.v];
";
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([10, 20, 40, 50]));
    let calls = host.calls();
    assert_eq!(calls.len(), 5);
    let write = &host.calls_to("t:write")[0];
    let by_id = |id: i64| {
        calls
            .iter()
            .find(|c| c.tool == "t:read" && c.arguments["id"] == id)
            .unwrap_or_else(|| panic!("no read {id}"))
            .clone()
    };
    for c in calls.iter().filter(|c| c.tool != "t:write") {
        assert!(!c.overlaps(write), "{c:?} overlaps the write {write:?}");
    }
    for id in [1, 2] {
        assert!(
            by_id(id).end <= write.start,
            "read {id} must end before the write"
        );
    }
    for id in [4, 5] {
        assert!(
            by_id(id).start >= write.end,
            "read {id} must start after the write"
        );
    }
    // Reads on the same side of the barrier still overlap (speculation).
    assert!(by_id(1).overlaps(&by_id(2)));
    assert!(by_id(4).overlaps(&by_id(5)));
    assert_eq!(host.max_in_flight(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_keep_their_program_order() {
    let source = "
await mcp.t.write({ id: 1 });
const a = await mcp.t.read({ id: 2 });
await mcp.t.write({ id: 3 });
await mcp.t.write({ id: 4 });
return a.v;
";
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    let order: Vec<Value> = host
        .calls()
        .iter()
        .map(|c| c.arguments["id"].clone())
        .collect();
    assert_eq!(order, vec![json!(1), json!(2), json!(3), json!(4)]);
    let calls = host.calls();
    for pair in calls.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "{:?} then {:?}",
            pair[0],
            pair[1]
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn write_then_read_sees_the_written_value() {
    let source = r#"
const before = await mcp.kv.get({ key: "k" });
await mcp.kv.put({ key: "k", value: 2 });
const after = await mcp.kv.get({ key: "k" });
const other = await mcp.kv.get({ key: "other" });
return { before, after, other };
"#;
    for speculate in [true, false] {
        let options = ExecuteOptions {
            speculate,
            ..ExecuteOptions::default()
        };
        // Latency on the reads so that a read moved across the write would see the new value
        // (the first) or the old one (the second).
        let host = FakeHost::new()
            .tool(
                "kv:put",
                ToolSpec::new(Behavior::KvPut)
                    .destructive(false)
                    .latency_ms(30),
            )
            .tool(
                "kv:get",
                ToolSpec::new(Behavior::KvGet).read_only().latency_ms(30),
            )
            .into_arc();
        host.set("k", json!(1));
        host.set("other", json!("o"));
        let p = program(source, &host.catalog());
        let options = ExecuteOptions {
            annotations: host.annotations(),
            ..options
        };
        let report = run(&p, host.clone(), &options).await;
        assert_ok(&report);
        assert_eq!(
            report.result,
            json!({"before": 1, "after": 2, "other": "o"}),
            "speculate {speculate}"
        );
        assert_eq!(host.stored("k"), Some(json!(2)));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_starts_when_its_own_dependencies_are_done() {
    // A (slow) -> B, and C (another server) -> code -> D: D does not wait for A's "layer".
    let source = "
const a = await mcp.slow.a({ id: 1 });
const b = await mcp.fast.b({ from: a.id });
const c = await mcp.other.c({ id: 2 });
const ids = [c.id, c.id + 1].map((x) => x * 2);
const d = await mcp.other.d({ from: c.id, ids });
return [b.from, d.from, d.ids];
";
    let echo = |a: &Value| Ok(a.clone());
    let host = FakeHost::new()
        .tool(
            "slow:a",
            ToolSpec::compute(echo).read_only().latency_ms(400),
        )
        .tool("fast:b", ToolSpec::compute(echo).read_only().latency_ms(20))
        .tool(
            "other:c",
            ToolSpec::compute(echo).read_only().latency_ms(20),
        )
        .tool(
            "other:d",
            ToolSpec::compute(echo).read_only().latency_ms(20),
        )
        .into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([1, 2, [4, 6]]));
    let one = |t: &str| host.calls_to(t).remove(0);
    let (a, b, d) = (one("slow:a"), one("fast:b"), one("other:d"));
    assert!(d.end < a.end, "d must not wait for a: d={d:?} a={a:?}");
    assert!(b.start >= a.end, "b reads a");
    // The program took d (and c) from speculation; its `ids` were computed ahead of it.
    let d_end = (report.trace.iter())
        .find(|e| e.event == "tool_end" && e.tool == "other:d")
        .unwrap();
    assert_eq!(d_end.speculative, Some(true));
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_started_ahead_reach_their_server_in_the_programs_order() {
    // B reads A's result; C and D do not, but go to B's server after it, as Node sends them:
    // they start ahead only once B is sent. E, on a server of its own, does not wait.
    let source = "
const a = await mcp.slow.a({ id: 1 });
const b = await mcp.fast.b({ from: a.id });
const c = await mcp.fast.c({ id: 2 });
const d = await mcp.fast.d({ id: 3 });
const e = await mcp.other.e({ id: 4 });
return [b.from, c.id, d.id, e.id];
";
    let echo = |a: &Value| Ok(a.clone());
    let host = FakeHost::new()
        .tool(
            "slow:a",
            ToolSpec::compute(echo).read_only().latency_ms(300),
        )
        .tool("fast:b", ToolSpec::compute(echo).read_only().latency_ms(20))
        .tool("fast:c", ToolSpec::compute(echo).read_only().latency_ms(20))
        .tool("fast:d", ToolSpec::compute(echo).read_only().latency_ms(20))
        .tool(
            "other:e",
            ToolSpec::compute(echo).read_only().latency_ms(20),
        )
        .into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([1, 2, 3, 4]));
    let one = |t: &str| host.calls_to(t).remove(0);
    let (a, b, c, d, e) = (
        one("slow:a"),
        one("fast:b"),
        one("fast:c"),
        one("fast:d"),
        one("other:e"),
    );
    assert!(
        b.start <= c.start && c.start <= d.start,
        "{b:?} {c:?} {d:?}"
    );
    assert!(e.end < a.end, "e must not wait for a: e={e:?} a={a:?}");
    let s = report.speculation.unwrap();
    assert_eq!(s.wasted, 0, "{s:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_started_ahead_wait_for_the_calls_of_local_functions_before_them() {
    // `tidy()` calls the server X is read from: X goes after it, as in Node.
    let source = "
async function tidy(id) {
  await mcp.fast.b({ from: id });
}
const a = await mcp.slow.a({ id: 1 });
await tidy(a.id);
const x = await mcp.fast.x({ id: 2 });
return x.id;
";
    let echo = |a: &Value| Ok(a.clone());
    let host = FakeHost::new()
        .tool(
            "slow:a",
            ToolSpec::compute(echo).read_only().latency_ms(200),
        )
        .tool("fast:b", ToolSpec::compute(echo).read_only().latency_ms(20))
        .tool("fast:x", ToolSpec::compute(echo).read_only().latency_ms(20))
        .into_arc();
    let p = program(source, &host.catalog());
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!(2));
    let one = |t: &str| host.calls_to(t).remove(0);
    let (b, x) = (one("fast:b"), one("fast:x"));
    assert!(b.start <= x.start, "{b:?} {x:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn results_flow_into_later_arguments() {
    let source = r#"
const u = await mcp.t.user({ id: args.id });
const tags = u.tags.map((t) => t.toUpperCase());
const o = await mcp.t.orders({ userId: u.id, label: `user-${u.name}`, tags, first: u.tags[0], nested: { n: u.n + 1 } });
return { count: o.count, label: o.label };
"#;
    let host = FakeHost::new()
        .tool(
            "t:user",
            ToolSpec::compute(|a| {
                Ok(json!({"id": a["id"], "name": "ada", "tags": ["x", "y"], "n": 41}))
            })
            .read_only(),
        )
        .tool(
            "t:orders",
            ToolSpec::compute(|a| {
                Ok(json!({"count": a["tags"].as_array().map_or(0, Vec::len), "label": a["label"]}))
            })
            .read_only(),
        )
        .into_arc();
    let p = program(source, &host.catalog());
    for speculate in [true, false] {
        host.reset();
        let options = ExecuteOptions {
            args: json!({"id": 7}),
            speculate,
            ..host.options()
        };
        let report = run(&p, host.clone(), &options).await;
        assert_ok(&report);
        assert_eq!(report.result, json!({"count": 2, "label": "user-ada"}));
        let orders = host.calls_to("t:orders");
        assert_eq!(
            orders[0].arguments,
            json!({"userId": 7, "label": "user-ada", "tags": ["X", "Y"], "first": "x", "nested": {"n": 42}}),
            "speculate {speculate}"
        );
        assert_eq!(host.calls_to("t:user")[0].arguments, json!({"id": 7}));
        assert!(host.calls_to("t:user")[0].end <= orders[0].start);
    }
}

/// Node sends a program's concurrent calls in the order it makes them; so does pml, whatever
/// order the runtime starts their tasks in: twelve writes of one `Promise.all` (each answer
/// slower or faster at random) reach the server in the array's order, run after run.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_calls_reach_the_server_in_the_programs_order() {
    const SOURCE: &str = "
const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
await Promise.all(keys.map((key, i) => mcp.kv.put({ key, value: i })));
const read = await Promise.all([mcp.t.read({ id: 1 }), mcp.kv.get({ key: 'k3' }), mcp.t.read({ id: 2 })]);
return read.length;
";
    for seed in 0..8 {
        let host = host().jitter(seed, 5).into_arc();
        let p = program(SOURCE, &host.catalog());
        let report = run(&p, host.clone(), &host.options()).await;
        assert_ok(&report);
        let keys: Vec<String> = host
            .calls_to("kv:put")
            .iter()
            .map(|c| c.arguments["key"].as_str().unwrap_or_default().to_owned())
            .collect();
        let expected: Vec<String> = (0..12).map(|i| format!("k{i}")).collect();
        assert_eq!(keys, expected, "seed {seed}");
        let reads: Vec<i64> = (host.calls_to("t:read").iter())
            .map(|c| c.arguments["id"].as_i64().unwrap_or_default())
            .collect();
        assert_eq!(reads, [1, 2], "seed {seed}");
    }
}

/// A host for the order tests: `slow:a` (100 ms), `fast:r` (20 ms), both echoing their
/// arguments, and `fast:missing`, which fails: all read-only.
fn order_host() -> std::sync::Arc<FakeHost> {
    let echo = |a: &Value| Ok(a.clone());
    FakeHost::new()
        .tool(
            "slow:a",
            ToolSpec::compute(echo).read_only().latency_ms(100),
        )
        .tool("fast:r", ToolSpec::compute(echo).read_only().latency_ms(20))
        .tool(
            "fast:missing",
            ToolSpec::new(Behavior::Fail(pml_executor::ToolFailure::new("missing")))
                .read_only()
                .latency_ms(20),
        )
        .into_arc()
}

/// Runs each program with and without speculation: the same result, and server `fast`
/// receives the same calls in the same order.
async fn fast_receives_what_it_receives_without_speculation(programs: &[&str]) {
    // The calls to `fast`, in the order the server received them.
    let order = |host: &FakeHost| {
        let mut calls: Vec<_> = (host.calls().into_iter())
            .filter(|c| c.tool.starts_with("fast:"))
            .collect();
        calls.sort_by_key(|c| c.start);
        calls
            .into_iter()
            .map(|c| format!("{} {}", c.tool, c.arguments))
            .collect::<Vec<_>>()
    };
    for source in programs {
        let (plain_host, fast_host) = (order_host(), order_host());
        let p = program(source, &plain_host.catalog());
        let plain_options = ExecuteOptions {
            speculate: false,
            ..plain_host.options()
        };
        let plain = run(&p, plain_host.clone(), &plain_options).await;
        let fast = run(&p, fast_host.clone(), &fast_host.options()).await;
        assert_ok(&plain);
        assert_eq!(plain.result, fast.result, "{source}");
        assert_eq!(order(&plain_host), order(&fast_host), "{source}");
    }
}

/// What a call of a local function starts ahead keeps its server's order, as Node sends it:
/// after the calls to that server before the call (in a branch, a loop, a `try` the program
/// decides on as it goes), and, inside the function, after its calls before it (in a `try`)
/// and in the order of each iteration of its loops.
#[tokio::test(flavor = "multi_thread")]
async fn reads_in_local_functions_keep_their_servers_order() {
    fast_receives_what_it_receives_without_speculation(&[
        "async function load(id) { return (await mcp.fast.r({ id })).id; }\nif (args.v ?? true) await mcp.fast.r({ id: 1 });\nreturn await load(2);",
        "async function load(id) {\n  try { await mcp.fast.missing({ id: 1 }); } catch {}\n  return (await mcp.fast.r({ id })).id;\n}\nreturn await load(2);",
        "async function load(id) { return (await mcp.fast.r({ id })).id; }\nconst l = await mcp.slow.a({ ids: [1, 2] });\nfor (const i of l.ids) await mcp.fast.r({ id: i });\nreturn await load(3);",
        "async function pair(ids) {\n  for (const id of ids) {\n    await mcp.fast.r({ id });\n    await mcp.fast.r({ id: id + 10 });\n  }\n  return ids.length;\n}\nreturn await pair([1, 2]);",
        "let i = 0;\nwhile (i < 2) { await mcp.fast.r({ id: i }); i++; }\nasync function load(id) { return (await mcp.fast.r({ id })).id; }\nreturn await load(5);",
        "async function load(id) { return (await mcp.fast.r({ id })).id; }\ntry { await mcp.fast.missing({ id: 0 }); } catch {}\nreturn [await load(1), await load(2)];",
    ])
    .await;
}

/// A function the program calls where the structure does not say (a method of an object or
/// a class, a function passed as a callback) sends its server its calls before a later read
/// of the program, as in Node: no read to that server is started ahead of it.
#[tokio::test(flavor = "multi_thread")]
async fn reads_after_methods_and_callbacks_that_call_their_server_wait() {
    fast_receives_what_it_receives_without_speculation(&[
        "const repo = {\n  async get(id) { return (await mcp.fast.r({ id })).id; },\n};\nawait mcp.slow.a({ id: 0 });\nconst one = await repo.get(1);\nreturn [one, (await mcp.fast.r({ id: 2 })).id];",
        "class Repo {\n  async get(id) { return (await mcp.fast.r({ id })).id; }\n}\nconst repo = new Repo();\nawait mcp.slow.a({ id: 0 });\nconst one = await repo.get(1);\nreturn [one, (await mcp.fast.r({ id: 2 })).id];",
        "const load = async (id) => (await mcp.fast.r({ id })).id;\nawait mcp.slow.a({ id: 0 });\nconst all = await Promise.all([1, 3].map(load));\nreturn [all, (await mcp.fast.r({ id: 2 })).id];",
    ])
    .await;
}

/// A program that changes its globals (a built-in's method, a property of `globalThis`, a
/// prototype, through another name too) computes its arguments with them: nothing computed
/// ahead of it, in a context with the globals as they were, reaches the server (it sent
/// `fast:r {"id":"v1"}` where the program sends `"v42"`).
#[tokio::test(flavor = "multi_thread")]
async fn reads_of_a_program_that_changes_its_globals_are_not_computed_ahead() {
    fast_receives_what_it_receives_without_speculation(&[
        "Math.round = (x) => 42;\nawait mcp.slow.a({ id: 0 });\nreturn (await mcp.fast.r({ id: \"v\" + Math.round(1.2) })).id;",
        "const M = Math;\nM.max = () => 7;\nawait mcp.slow.a({ id: 0 });\nreturn (await mcp.fast.r({ id: \"m\" + Math.max(1, 2) })).id;",
        "(globalThis as any).B = \"y\";\nawait mcp.slow.a({ id: 0 });\nreturn (await mcp.fast.r({ id: \"\" + (globalThis as any).B })).id;",
        "String.prototype.trim = function () { return \"t\"; };\nawait mcp.slow.a({ id: 0 });\nreturn (await mcp.fast.r({ id: \" a \".trim() })).id;",
        "Object.assign(Math, { floor: () => 0 });\nawait mcp.slow.a({ id: 0 });\nconst n = Math.floor(args.x ?? 3.5);\nreturn (await mcp.fast.r({ id: n })).id;",
    ])
    .await;
}

/// A generator's call runs none of its body: its reads are made as what consumes it asks, so
/// none is started ahead (the second `yield`'s read was, though the program asks once).
#[tokio::test(flavor = "multi_thread")]
async fn reads_in_generators_wait_for_what_consumes_them() {
    fast_receives_what_it_receives_without_speculation(&[
        "async function* g() {\n  yield (await mcp.fast.r({ id: 1 })).id;\n  yield (await mcp.fast.r({ id: 2 })).id;\n}\nconst it = g();\nreturn (await it.next()).value;",
        "async function* g(ids) {\n  for (const id of ids) yield (await mcp.fast.r({ id })).id;\n}\nconst out = [];\nfor await (const v of g([1, 2, 3])) { out.push(v); break; }\nreturn out;",
        "const g = async function* () {\n  yield (await mcp.fast.r({ id: 1 })).id;\n  yield (await mcp.fast.r({ id: 2 })).id;\n};\nawait mcp.slow.a({ id: 0 });\nconst it = g();\nconst first = (await it.next()).value;\nreturn [first, (await mcp.fast.r({ id: 3 })).id];",
    ])
    .await;
}

/// A callback of `Promise.all(literal.map(...))` that calls itself by its name runs more
/// times than the list has elements: the run goes on and traces them (it stopped, the trace
/// dropped as forged: a report for an element the unrolled fork has no node for).
#[tokio::test(flavor = "multi_thread")]
async fn a_fork_callback_that_calls_itself_runs_as_written() {
    fast_receives_what_it_receives_without_speculation(&[
        "const seen = [];\nawait Promise.all([1, 2].map(async function go(id) {\n  seen.push((await mcp.fast.r({ id })).id);\n  if (id === 1) await go(3);\n}));\nreturn seen.sort();",
    ])
    .await;
    let host = order_host();
    let p = program(
        "await Promise.all([1, 2].map(async function go(id) {\n  await mcp.fast.r({ id });\n  if (id === 1) await go(3);\n}));\nreturn 'done';",
        &host.catalog(),
    );
    let out = run(&p, host.clone(), &host.options()).await;
    assert_ok(&out);
    let traced = (out.trace.iter())
        .filter(|e| e.event == "tool_end" && e.task_id.is_some())
        .count();
    assert_eq!(traced, 3, "{:?}", out.trace);
}

/// A call the structure has no node for (in a computed key, a `for` initializer, a pattern's
/// default) runs as written: no read is started ahead of it (the later read reached the
/// server first).
#[tokio::test(flavor = "multi_thread")]
async fn reads_wait_for_calls_the_structure_does_not_model() {
    fast_receives_what_it_receives_without_speculation(&[
        "await mcp.slow.a({ id: 0 });\nconst o = { [(await mcp.fast.r({ id: \"k\" })).id]: 1 };\nconst v = await mcp.fast.r({ id: \"v\" });\nreturn [o, v.id];",
        "await mcp.slow.a({ id: 0 });\nconst out = [];\nfor (let i = 0, f = await mcp.fast.r({ id: \"f\" }); i < 1; i++) out.push(f.id);\nreturn [out, (await mcp.fast.r({ id: \"v\" })).id];",
        "await mcp.slow.a({ id: 0 });\nconst [a, b = (await mcp.fast.r({ id: \"d\" })).id] = [1];\nreturn [a, b, (await mcp.fast.r({ id: \"v\" })).id];",
    ])
    .await;
}

/// A regular expression's `exec` and `test` change its `lastIndex`: a constant holding one is
/// no constant, and what reads it is the program's to compute (`alpha0` was sent ahead where
/// the program sends `beta10`).
#[tokio::test(flavor = "multi_thread")]
async fn reads_over_a_regular_expressions_state_are_not_computed_ahead() {
    fast_receives_what_it_receives_without_speculation(&[
        "const re = /\\w+/g;\nconst s = \"alpha beta gamma\";\nre.exec(s);\nawait mcp.slow.a({ id: 0 });\nreturn (await mcp.fast.r({ id: re.exec(s)[0] + re.lastIndex })).id;",
        "const re = /a/g;\nconst first = re.test(\"aa\");\nawait mcp.slow.a({ id: 0 });\nreturn (await mcp.fast.r({ id: String(re.test(\"aa\")) + re.lastIndex })).id;",
    ])
    .await;
}
