//! Speculation: read-only calls started ahead of the program. Every test runs the program as
//! written with and without speculation and compares results and calls; then
//! checks the overlap it buys and the rules it must keep (write barriers, write epochs, races,
//! wrong guesses, failures).

use std::time::{Duration, Instant};

use pml_executor::{ExecuteOptions, RunReport};
use serde_json::{json, Value};

use crate::support::*;

/// `t:read` (read-only, 100 ms) answers `{id, v: id * 10}`; `t:slow` the same in 300 ms;
/// `t:list` (read-only, 100 ms) answers `{ids: [1, 2, 3, 4]}`; `t:write` (100 ms) is a write;
/// `kv:get`/`kv:put` a store (`kv:get` read-only, 50 ms).
fn host() -> FakeHost {
    let read = |a: &Value| Ok(json!({"id": a["id"], "v": a["id"].as_i64().unwrap_or(0) * 10}));
    FakeHost::kv()
        .tool(
            "t:read",
            ToolSpec::compute(read).read_only().latency_ms(100),
        )
        .tool(
            "t:slow",
            ToolSpec::compute(read).read_only().latency_ms(300),
        )
        .tool(
            "t:list",
            ToolSpec::new(Behavior::Value(json!({"ids": [1, 2, 3, 4]})))
                .read_only()
                .latency_ms(100),
        )
        .tool(
            "t:flaky",
            ToolSpec::new(Behavior::Fail(pml_executor::ToolFailure::new("flaky"))).read_only(),
        )
        .tool(
            "t:write",
            ToolSpec::compute(|a| Ok(json!({"written": a["id"]})))
                .destructive(false)
                .latency_ms(100),
        )
}

fn options(host: &FakeHost, speculate: bool) -> ExecuteOptions {
    ExecuteOptions {
        speculate,
        ..host.options().clone()
    }
}

/// Runs `source` with and without speculation on fresh hosts: both reports, after checking
/// they agree on the result and the calls.
async fn both(source: &str) -> (RunReport, RunReport, FakeHost, FakeHost) {
    let (plain_host, fast_host) = (host().into_arc(), host().into_arc());
    let p = program(source, &plain_host.catalog());
    let plain = run(&p, plain_host.clone(), &options(&plain_host, false)).await;
    let fast = run(&p, fast_host.clone(), &options(&fast_host, true)).await;
    assert_eq!(plain.ok, fast.ok, "{:?} / {:?}", plain.error, fast.error);
    assert_eq!(plain.result, fast.result);
    assert_eq!(call_multiset(&plain), call_multiset(&fast));
    // The servers receive exactly the calls the program makes: speculation never shows.
    assert_eq!(received(&plain_host), received(&fast_host));
    assert!(plain.speculation.is_none());
    let unwrap = |h: std::sync::Arc<FakeHost>| {
        std::sync::Arc::try_unwrap(h).unwrap_or_else(|_| panic!("host still shared"))
    };
    (plain, fast, unwrap(plain_host), unwrap(fast_host))
}

#[tokio::test(flavor = "multi_thread")]
async fn sequential_reads_overlap() {
    let source = "
const a = await mcp.t.read({ id: 1 });
const b = await mcp.t.read({ id: 2 });
const c = JSON.stringify(await mcp.t.read({ id: 3 }));
const d = await mcp.t.read({ id: args.four });
return [a.v, b.v, c, d.v];
";
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let opts = ExecuteOptions {
        args: json!({"four": 4}),
        ..options(&host, true)
    };
    let started = Instant::now();
    let report = run(&p, host.clone(), &opts).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([10, 20, r#"{"id":3,"v":30}"#, 40]));
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(host.max_in_flight(), 4);
    let s = report.speculation.unwrap();
    // The program may make its first call before speculation starts it (a loaded machine):
    // then three are served, and none is wasted either way.
    assert!(
        s.served >= 3 && s.wasted == 0 && s.planned == s.served,
        "{s:?}"
    );
    // The calls are the program's own in the trace, marked speculative.
    let ends: Vec<_> = report
        .trace
        .iter()
        .filter(|e| e.event == "tool_end" && !e.tool.starts_with("code:"))
        .collect();
    assert_eq!(ends.len(), 4);
    assert!(ends.iter().all(|e| e.task_id.is_some()));
    let speculative = ends.iter().filter(|e| e.speculative == Some(true)).count();
    assert_eq!(speculative, s.served);
    assert_eq!(host.calls().len(), 4, "no call made twice");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loop_over_a_computed_list_runs_its_reads_together() {
    let source = "
const list = await mcp.t.list({});
const ids = list.ids.filter(i => i % 2 === 0).concat([5]);
const out = [];
for (const id of ids) {
  const r = await mcp.t.read({ id });
  out.push(r.v);
}
return out;
";
    let (plain, fast, plain_host, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([20, 40, 50]));
    assert_eq!(plain_host.max_in_flight(), 1);
    assert_eq!(fast_host.max_in_flight(), 3);
    let s = fast.speculation.unwrap();
    assert_eq!(s.wasted, 0, "{s:?}");
    assert!(s.served >= 2, "{s:?}");
    let iterations: Vec<Vec<u32>> = fast
        .trace
        .iter()
        .filter(|e| e.event == "tool_end" && e.tool == "t:read")
        .map(|e| e.iteration.clone())
        .collect();
    assert_eq!(iterations, [vec![0], vec![1], vec![2]]);
    assert!(fast.timings.execute_ms < plain.timings.execute_ms);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_read_overlaps_a_write_before_it() {
    let source = "
const a = await mcp.t.read({ id: 1 });
await mcp.kv.put({ key: 'k', value: a.v });
const b = await mcp.kv.get({ key: 'k' });
const c = await mcp.t.read({ id: 2 });
return [a.v, b, c.v];
";
    let (_, fast, _, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([10, 10, 20]));
    let calls = fast_host.calls();
    let put = calls.iter().find(|c| c.tool == "kv:put").unwrap();
    for read in calls.iter().filter(|c| c.tool != "kv:put") {
        if read.arguments != json!({"id": 1}) {
            assert!(
                read.start >= put.end,
                "{} started before the write ended",
                read.tool
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_after_a_write_is_not_taken_from_before_it() {
    // The second get reads what the put wrote: a speculative get from before it would be stale.
    let source = "
const before = await mcp.kv.get({ key: 'k' });
await mcp.kv.put({ key: 'k', value: 'new' });
const after = await mcp.kv.get({ key: 'k' });
return [before, after];
";
    let (_, fast, _, _) = both(source).await;
    assert_eq!(fast.result, json!([null, "new"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_read_four_times_is_four_calls() {
    let source = "
const out = [];
for (const i of [1, 1, 1, 1]) out.push((await mcp.t.read({ id: i })).v);
return out;
";
    let (_, fast, _, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([10, 10, 10, 10]));
    assert_eq!(fast_host.calls_to("t:read").len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_race_is_never_speculated() {
    let source = "
const first = await Promise.race([mcp.t.slow({ id: 1 }), mcp.t.read({ id: 2 })]);
const later = await mcp.t.read({ id: 3 });
return [first.id, later.v];
";
    let (_, fast, _, _) = both(source).await;
    assert_eq!(fast.result, json!([2, 30]));
    assert!(fast.speculation.is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn loops_that_break_and_reads_that_fail_cost_no_extra_call() {
    // The guard makes the loop stop early: no read is started for an element the program
    // never reaches. The flaky read fails ahead: the program's call takes that failure (it
    // is not made twice), which it catches.
    let source = "
const list = await mcp.t.list({});
const out = [];
for (const id of list.ids) {
  if (id === 2) break;
  out.push((await mcp.t.read({ id })).v);
}
let caught = null;
try { await mcp.t.flaky({}); } catch (e) { caught = e.message; }
return [out, caught];
";
    let (_, fast, _, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([[10], "flaky"]));
    let s = fast.speculation.unwrap();
    assert_eq!(s.wasted, 0, "{s:?}");
    assert_eq!(s.planned, s.served, "{s:?}");
    assert_eq!(fast_host.calls_to("t:flaky").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_in_a_catch_handler_is_not_started_ahead() {
    // Found by the property test: the handler's read came after the first write in program
    // text, so it became ready when that write finished, and ran while the program, which had
    // not thrown, was already making the next write.
    let source = "
let v = null;
try {
  await mcp.t.write({ id: 1 });
} catch (err) {
  v = await mcp.kv.get({ key: 'a' });
}
await mcp.kv.put({ key: 'a', value: 0 });
return v;
";
    let (_, fast, _, fast_host) = both(source).await;
    assert_eq!(fast.result, json!(null));
    assert!(
        fast_host.calls_to("kv:get").is_empty(),
        "{:?}",
        fast_host.calls()
    );
}

/// Reads the direct run never makes are never started: after an early `return` or `throw`, in
/// a branch not taken, after a `continue` or a `break`, after a loop that may return, after a
/// read or an operation that throws inside a `try`. (`both` checks that the host receives
/// exactly the calls of the run without speculation.)
#[tokio::test(flavor = "multi_thread")]
async fn reads_the_program_may_not_make_are_not_started() {
    let programs = [
        // An early return, taken.
        "const a = await mcp.t.read({ id: 1 });\nif (a.v > 5) return a.v;\nconst b = await mcp.t.read({ id: 2 });\nreturn b.v;",
        // An early throw, taken (the run fails in both).
        "if (!args.ok) throw new Error('not ok');\nconst b = await mcp.t.read({ id: 2 });\nreturn b.v;",
        // The branch not taken.
        "const a = await mcp.t.read({ id: 1 });\nlet v = 0;\nif (a.v < 5) { v = (await mcp.t.read({ id: 3 })).v; } else { v = 1; }\nreturn v;",
        // `continue` skips a read, `break` ends the loop.
        "const out = [];\nfor (const id of [1, 2, 3, 4]) {\n  if (id === 2) continue;\n  if (id === 4) break;\n  out.push((await mcp.t.read({ id })).v);\n}\nreturn out;",
        // A loop that may return: what follows it waits.
        "const list = await mcp.t.list({});\nfor (const id of list.ids) {\n  const r = await mcp.t.read({ id });\n  if (r.v === 20) return r.v;\n}\nconst after = await mcp.t.read({ id: 9 });\nreturn after.v;",
        // A read that fails inside a `try`: the next read there is skipped.
        "let v = 'none';\ntry {\n  await mcp.t.flaky({});\n  v = (await mcp.t.read({ id: 5 })).v;\n} catch (e) {\n  v = e.message;\n}\nreturn v;",
        // An operation that throws inside a `try`.
        "let v = 'none';\ntry {\n  const cfg = JSON.parse('{oops');\n  v = (await mcp.t.read({ id: 6 })).v;\n} catch (e) {\n  v = 'bad json';\n}\nreturn v;",
    ];
    for source in programs {
        let (plain, fast, plain_host, _) = both(source).await;
        assert_eq!(plain.result, fast.result, "{source}");
        let wasted = fast.speculation.map_or(0, |s| s.wasted);
        assert_eq!(wasted, 0, "{source}: {:?}", received(&plain_host));
    }
}

/// A result the program changes in place after it is made (`pop`, `length =`, a property set,
/// a helper that changes its parameter, `shift` on part of a call's answer) is not what the
/// program later reads: nothing is computed ahead from it, so no read it would not make is
/// sent. (`both` checks that the host receives exactly the calls of the run without
/// speculation.)
#[tokio::test(flavor = "multi_thread")]
async fn results_changed_in_place_are_not_read_ahead() {
    let programs = [
        "const list = [1, 2, 3].map((x) => x);\nlist.pop();\nconst out = [];\nfor (const id of list) out.push((await mcp.t.read({ id })).v);\nreturn out;",
        "const list = [1, 2, 3].map((x) => x);\nlist.length = 1;\nconst out = [];\nfor (const id of list) out.push((await mcp.t.read({ id })).v);\nreturn out;",
        "const list = [1, 2, 3].map((x) => x);\nfunction trim(l) {\n  l.splice(1);\n}\ntrim(list);\nconst out = [];\nfor (const id of list) out.push((await mcp.t.read({ id })).v);\nreturn out;",
        "const cfg = JSON.parse('{\"id\": 1}');\ncfg.id = 9;\nreturn (await mcp.t.read({ id: cfg.id })).v;",
        "const list = await mcp.t.list({});\nlist.ids.shift();\nconst out = [];\nfor (const id of list.ids) out.push((await mcp.t.read({ id })).v);\nreturn out;",
        "const rows = (await mcp.t.list({})).ids;\nrows.pop();\nrows.pop();\nconst out = [];\nfor (const id of rows) out.push((await mcp.t.read({ id })).v);\nreturn out;",
        // Elements changed by a loop, or by a callback.
        "const r = await mcp.t.list({});\nconst rows = r.ids.map((id) => ({ id }));\nfor (const row of rows) {\n  row.id = row.id + 10;\n}\nconst out = [];\nfor (const row of rows) out.push((await mcp.t.read({ id: row.id })).v);\nreturn out;",
        "const r = await mcp.t.list({});\nconst rows = r.ids.map((id) => ({ id }));\nrows.forEach((row) => {\n  row.id += 10;\n});\nconst out = [];\nfor (const row of rows) out.push((await mcp.t.read({ id: row.id })).v);\nreturn out;",
        // A helper that passes its parameter to one that changes it; an alias changed.
        "function setId(c) {\n  c.id = 9;\n}\nfunction prepare(x) {\n  setId(x);\n}\nconst cfg = JSON.parse('{\"id\": 1}');\nprepare(cfg);\nreturn (await mcp.t.read({ id: cfg.id })).v;",
        "function f(p) {\n  const q = p;\n  q.id = 9;\n}\nconst cfg = JSON.parse('{\"id\": 1}');\nf(cfg);\nreturn (await mcp.t.read({ id: cfg.id })).v;",
        // The same name holding other constants in two helpers.
        "async function a() {\n  const ids = [1, 2];\n  const out = [];\n  for (const id of ids) out.push((await mcp.t.read({ id })).v);\n  return out;\n}\nasync function b() {\n  const ids = [7, 8];\n  const out = [];\n  for (const id of ids) out.push((await mcp.t.read({ id })).v);\n  return out;\n}\nreturn await a();",
    ];
    for source in programs {
        let (_, fast, plain_host, _) = both(source).await;
        let wasted = fast.speculation.map_or(0, |s| s.wasted);
        assert_eq!(wasted, 0, "{source}: {:?}", received(&plain_host));
    }
    // What is made from such a result afterwards is the program's own value: reads over it
    // still overlap.
    let source = "const list = await mcp.t.list({});\nconst ids = list.ids.slice();\nids.shift();\nconst doubled = ids.map((x) => x * 2);\nconst out = [];\nfor (const id of doubled) out.push((await mcp.t.read({ id })).v);\nreturn out;";
    let (_, fast, _, _) = both(source).await;
    assert_eq!(fast.result, json!([40, 60, 80]));
    let s = fast.speculation.unwrap();
    assert!(s.served >= 2 && s.wasted == 0, "{s:?}");
}

/// What the program changes after the run starts is read ahead from nowhere but the program:
/// parameters it changes, objects changed under another name or by `Object.defineProperty`,
/// a member a loop assigns, a local function's parameter named `args` (not the program's).
#[tokio::test(flavor = "multi_thread")]
async fn values_the_program_changes_are_not_read_ahead() {
    let programs = [
        "await mcp.t.list({});\nargs.id = args.id + 1;\nreturn (await mcp.t.read({ id: args.id })).v;",
        "await mcp.t.list({});\nargs.id++;\nreturn (await mcp.t.read({ id: args.id })).v;",
        "function bump(c) {\n  c.id = c.id + 1;\n}\nawait mcp.t.list({});\nbump(args);\nreturn (await mcp.t.read({ id: args.id })).v;",
        "const o = { id: 1 };\nawait mcp.t.list({});\nconst alias = o;\nalias.id = 4;\nreturn (await mcp.t.read({ id: o.id })).v;",
        "const o = { id: 1 };\nawait mcp.t.list({});\nlet alias;\nalias = o;\nalias.id = 4;\nreturn (await mcp.t.read({ id: o.id })).v;",
        "const o = {};\nawait mcp.t.list({});\nObject.defineProperty(o, \"id\", { value: 6 });\nreturn (await mcp.t.read({ id: o.id })).v;",
        "const o = { id: 0 };\nawait mcp.t.list({});\nconst out = [];\nfor (o.id of [3]) out.push((await mcp.t.read({ id: o.id })).v);\nreturn out;",
        "const o = { id: 0 };\nawait mcp.t.list({});\n[o.id] = [5];\nreturn (await mcp.t.read({ id: o.id })).v;",
        "async function f(args) {\n  return (await mcp.t.read({ id: args.id })).v;\n}\nreturn await f({ id: args.id + 2 });",
    ];
    for source in programs {
        let (plain_host, fast_host) = (host().into_arc(), host().into_arc());
        let p = program(source, &plain_host.catalog());
        let with_args = |h: &FakeHost, speculate| ExecuteOptions {
            args: json!({"id": 1}),
            ..options(h, speculate)
        };
        let plain = run(&p, plain_host.clone(), &with_args(&plain_host, false)).await;
        let fast = run(&p, fast_host.clone(), &with_args(&fast_host, true)).await;
        assert!(plain.ok, "{source}: {:?}", plain.error);
        assert_eq!(plain.result, fast.result, "{source}");
        // No call made from a value the program no longer holds.
        assert_eq!(received(&plain_host), received(&fast_host), "{source}");
        assert_eq!(fast.speculation.map_or(0, |s| s.wasted), 0, "{source}");
    }
}

/// Values JSON does not hold exactly are not computed ahead from their JSON: NaN, the
/// infinities and -0, `undefined` inside an object or an array (a constant, a value computed
/// ahead, what a call passes a local function), a `Date`, a local function, a function's
/// `arguments`. Computed from `null` or `0`, a read started ahead was a call the program does
/// not make (`max null` where the program sends `max -Infinity`).
#[tokio::test(flavor = "multi_thread")]
async fn values_json_does_not_hold_are_not_computed_ahead() {
    let programs = [
        "const max = Math.max(...[]);\nawait mcp.t.list({});\nreturn (await mcp.t.read({ id: `max ${max}` })).v;",
        "const sizes = [];\nawait mcp.t.list({});\nconst avg = sizes.reduce((s, x) => s + x, 0) / sizes.length;\nreturn (await mcp.t.read({ id: `avg ${avg}` })).v;",
        "const o = { a: undefined, b: 1 };\nawait mcp.t.list({});\nreturn (await mcp.t.read({ id: Object.keys(o).length })).v;",
        "const z = -0;\nawait mcp.t.list({});\nreturn (await mcp.t.read({ id: `${1 / z}` })).v;",
        "const f = (x) => x * 2;\nawait mcp.t.list({});\nreturn (await mcp.t.read({ id: typeof f })).v;",
        "const since = new Date(0);\nawait mcp.t.list({});\nreturn (await mcp.t.read({ id: `${since}` })).v;",
        "async function g(names) {\n  return (await mcp.t.read({ id: `${names[1]}` })).v;\n}\nawait mcp.t.list({});\nreturn await g([1, args.missing]);",
        "async function g(a, b) {\n  const n = arguments.length === 2 ? b : 7;\n  return (await mcp.t.read({ id: n })).v;\n}\nawait mcp.t.list({});\nreturn await g(1, 2);",
    ];
    for source in programs {
        let (_, fast, _, _) = both(source).await;
        assert!(fast.ok, "{source}: {:?}", fast.error);
        assert_eq!(fast.speculation.map_or(0, |s| s.wasted), 0, "{source}");
    }
}

/// What is certain is still started ahead: the reads after a decision that cannot end the
/// path, after a `try` that caught, and after a loop that may return once the program is past
/// it overlap.
#[tokio::test(flavor = "multi_thread")]
async fn certain_reads_still_overlap() {
    let source = "
let note = null;
try { await mcp.t.flaky({}); } catch (e) { note = e.message; }
const a = await mcp.t.read({ id: 1 });
const b = await mcp.t.read({ id: 2 });
const c = await mcp.t.read({ id: 3 });
return [note, a.v, b.v, c.v];
";
    let (_, fast, _, fast_host) = both(source).await;
    assert_eq!(fast.result, json!(["flaky", 10, 20, 30]));
    // They overlap (on a loaded machine the program may reach the first one itself first).
    assert!(fast_host.max_in_flight() >= 2, "{:?}", fast.speculation);
    let taken = (fast.trace.iter())
        .filter(|e| e.event == "tool_end" && e.taken == Some(true))
        .count();
    assert!(taken >= 2, "{:?}", fast.trace);
}

/// Speculative calls count against the call limit: with room for three calls, a program
/// making three reads runs, and no fourth call reaches the host.
#[tokio::test(flavor = "multi_thread")]
async fn speculative_calls_count_against_the_limit() {
    let source = "
const a = await mcp.t.read({ id: 1 });
const b = await mcp.t.read({ id: 2 });
const c = await mcp.t.read({ id: 3 });
return [a.v, b.v, c.v];
";
    let host = host().into_arc();
    let p = program(source, &host.catalog());
    let opts = ExecuteOptions {
        max_calls: 3,
        ..options(&host, true)
    };
    let report = run(&p, host.clone(), &opts).await;
    assert_ok(&report);
    assert_eq!(report.result, json!([10, 20, 30]));
    assert_eq!(host.calls().len(), 3);
}

/// Reads inside local functions are started ahead once per call of the function, where each
/// call is certain: a helper awaited in a loop, called one call after another, over a mapped
/// list. Four 100 ms reads take about one.
#[tokio::test(flavor = "multi_thread")]
async fn reads_inside_helpers_overlap() {
    let programs = [
        (
            "const load = async (id) => (await mcp.t.read({ id })).v;\nconst out = [];\nfor (const id of [1, 2, 3, 4]) out.push(await load(id));\nreturn out;",
            json!([10, 20, 30, 40]),
        ),
        (
            "async function load(id) {\n  const r = await mcp.t.read({ id });\n  return r.v;\n}\nconst a = await load(1);\nconst b = await load(2);\nconst c = await load(3);\nconst d = await load(4);\nreturn [a, b, c, d];",
            json!([10, 20, 30, 40]),
        ),
        (
            "const load = async (id) => (await mcp.t.read({ id })).v;\nconst list = await mcp.t.list({});\nconst out = [];\nfor (const id of list.ids.map((x) => x * 2)) {\n  out.push(await load(id));\n}\nreturn out;",
            json!([20, 40, 60, 80]),
        ),
        // Calls alike: as many started as the program makes.
        (
            "const load = async (id) => (await mcp.t.read({ id })).v;\nconst out = [];\nfor (const id of [7, 7, 7, 7]) out.push(await load(id));\nreturn out;",
            json!([70, 70, 70, 70]),
        ),
        // A loop inside the helper, over its parameter.
        (
            "async function loadAll(ids) {\n  const out = [];\n  for (const id of ids) out.push((await mcp.t.read({ id })).v);\n  return out;\n}\nreturn await loadAll([1, 2, 3, 4]);",
            json!([10, 20, 30, 40]),
        ),
        // The read's arguments computed in the helper from its parameters (pure operations
        // of its body), and a decision over such a value.
        (
            "async function load(n) {\n  const id = n * 2 - 1;\n  const r = await mcp.t.read({ id: id + 1 });\n  return r.v;\n}\nconst out = [];\nfor (const n of [1, 2, 3, 4]) out.push(await load(n));\nreturn out;",
            json!([20, 40, 60, 80]),
        ),
        (
            "const base = (await mcp.t.list({})).ids.length;\nasync function load(n) {\n  const skip = n > base + 10;\n  if (skip) return 0;\n  const key = String(n + base).length;\n  return (await mcp.t.read({ id: n * key })).v;\n}\nreturn [await load(1), await load(2), await load(3), await load(4)];",
            json!([10, 20, 30, 40]),
        ),
        // A walk over a tree: a read per node, the children in a loop of the helper.
        (
            "async function walk(node) {\n  const r = await mcp.t.read({ id: node.id });\n  const out = [r.v];\n  for (const child of node.children) out.push(...(await walk(child)));\n  return out;\n}\nreturn await walk({ id: 1, children: [{ id: 2, children: [] }, { id: 3, children: [{ id: 4, children: [] }] }] });",
            json!([10, 20, 30, 40]),
        ),
    ];
    for (source, expected) in programs {
        let (plain, fast, _, fast_host) = both(source).await;
        assert_eq!(fast.result, expected, "{source}");
        assert_eq!(fast_host.calls_to("t:read").len(), 4);
        // They overlap (the first may be the program's own, made before speculation got to
        // it, and on a loaded machine end before the others start).
        assert!(
            fast_host.max_in_flight() >= 3,
            "{source}: {:?}",
            fast.speculation
        );
        let s = fast.speculation.unwrap();
        assert!(s.served >= 3 && s.wasted == 0, "{source}: {s:?}");
        assert!(plain.speculation.is_none());
    }
}

/// A helper that may not make its read (an early return), or whose parameter is assigned
/// before the read, or that is called in a branch not taken: nothing it would not make.
#[tokio::test(flavor = "multi_thread")]
async fn helper_reads_the_program_may_not_make_are_not_started() {
    let programs = [
        "const cache = { 1: 'hit' };\nconst load = async (id) => {\n  if (cache[id]) return cache[id];\n  return (await mcp.t.read({ id })).v;\n};\nreturn [await load(1), await load(2)];",
        "const load = async (id) => {\n  id = id + 100;\n  return (await mcp.t.read({ id })).v;\n};\nreturn [await load(1), await load(2)];",
        "const load = async (id) => (await mcp.t.read({ id })).v;\nconst first = await load(1);\nif (first > 5) return first;\nreturn await load(2);",
        "const load = async (id) => (await mcp.t.read({ id })).v;\nconst out = [];\nfor (const id of [1, 2, 3]) {\n  if (id === 2) break;\n  out.push(await load(id));\n}\nreturn out;",
        // Loops inside the helper: one that breaks, one whose reads depend on the element,
        // one over what the helper computed.
        "async function loadAll(ids) {\n  const out = [];\n  for (const id of ids) {\n    if (id === 3) break;\n    out.push((await mcp.t.read({ id })).v);\n  }\n  return out;\n}\nreturn await loadAll([1, 2, 3, 4]);",
        "async function loadOdd(ids) {\n  const out = [];\n  for (const id of ids) {\n    if (id % 2) out.push((await mcp.t.read({ id })).v);\n  }\n  return out;\n}\nreturn await loadOdd([1, 2, 3, 4]);",
        "async function loadSome(ids) {\n  const out = [];\n  for (const id of ids.filter((x) => x > 2)) out.push((await mcp.t.read({ id })).v);\n  return out;\n}\nreturn await loadSome([1, 2, 3, 4]);",
        // A decision over what the helper computed from its parameter.
        "async function load(n) {\n  const skip = n % 2 === 0;\n  if (skip) return 0;\n  return (await mcp.t.read({ id: n })).v;\n}\nconst out = [];\nfor (const n of [1, 2, 3, 4]) out.push(await load(n));\nreturn out;",
        // A value computed in a loop of the helper, or over what it read.
        "async function load(ids) {\n  const out = [];\n  for (const id of ids) {\n    const next = id + out.length;\n    out.push((await mcp.t.read({ id: next })).v);\n  }\n  return out;\n}\nreturn await load([1, 2, 3]);",
        "async function load(n) {\n  const r = await mcp.t.read({ id: n });\n  const next = r.v > 15 ? n : n + 1;\n  return (await mcp.t.read({ id: next })).v;\n}\nreturn [await load(1), await load(2)];",
        "async function walk(node) {\n  const r = await mcp.t.read({ id: node.id });\n  if (r.v > 15) return [r.v];\n  const out = [r.v];\n  for (const child of node.children) out.push(...(await walk(child)));\n  return out;\n}\nreturn await walk({ id: 1, children: [{ id: 2, children: [{ id: 5, children: [] }] }, { id: 3, children: [] }] });",
    ];
    for source in programs {
        let (_, fast, _, _) = both(source).await;
        let wasted = fast.speculation.map_or(0, |s| s.wasted);
        assert_eq!(wasted, 0, "{source}");
    }
}

/// A recursive helper whose next call depends only on its parameters: every level's read is
/// started ahead (they overlap). One whose next call depends on what it read, or is made in a
/// `try`: only what is certain, nothing the program does not make.
#[tokio::test(flavor = "multi_thread")]
async fn recursive_helpers_are_followed_where_their_parameters_decide() {
    let source = "async function walk(depth) {\n  const r = await mcp.t.read({ id: depth });\n  return depth < 3 ? [r.v, ...(await walk(depth + 1))] : [r.v];\n}\nreturn await walk(0);";
    let (_, fast, _, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([0, 10, 20, 30]));
    assert!(fast_host.max_in_flight() >= 3, "{:?}", fast.speculation);
    assert_eq!(fast.speculation.unwrap().wasted, 0);
    let exact = [
        "async function walk(n) {\n  const r = await mcp.t.read({ id: n });\n  if (r.v < 30) return [r.v, ...(await walk(n + 1))];\n  return [r.v];\n}\nreturn await walk(1);",
        "async function walk(n) {\n  await mcp.t.read({ id: n });\n  if (n > 2) return n;\n  try { return await walk(n + 1); } catch (e) { return -1; }\n}\nreturn await walk(1);",
        "async function walk(n) {\n  await mcp.t.read({ id: n });\n  for (const m of [n + 1]) { if (m < 4) await walk(m); }\n  return n;\n}\nreturn await walk(1);",
    ];
    for source in exact {
        let (_, fast, _, _) = both(source).await;
        let wasted = fast.speculation.map_or(0, |s| s.wasted);
        assert_eq!(wasted, 0, "{source}");
    }
}

/// A helper called in a `catch` handler, or in a `try` after a call that throws: its read is
/// not started ahead (the program does not make it).
#[tokio::test(flavor = "multi_thread")]
async fn helpers_called_where_a_throw_decides_are_not_followed() {
    let programs = [
        "const load = async (id) => (await mcp.t.read({ id })).v;\nlet v = 0;\ntry { v = (await mcp.t.read({ id: 1 })).v; } catch (e) { v = await load(5); }\nreturn v;",
        "const load = async (id) => (await mcp.t.read({ id })).v;\nlet v = 0;\ntry { await mcp.t.flaky({}); v = await load(6); } catch (e) { v = -1; }\nreturn v;",
        "const load = async (id) => { await mcp.t.flaky({}); return (await mcp.t.read({ id })).v; };\nlet v = 0;\ntry { v = await load(7); } catch (e) { v = -1; }\nreturn v;",
    ];
    for source in programs {
        let (_, fast, plain_host, _) = both(source).await;
        let wasted = fast.speculation.map_or(0, |s| s.wasted);
        assert_eq!(wasted, 0, "{source}: {:?}", received(&plain_host));
    }
}

/// After a `try` whose handler ends the path (`return`, `throw`), what follows runs only if
/// nothing in the `try` threw: it waits for that, in the program and in a helper. A handler
/// that falls through leaves what follows certain.
#[tokio::test(flavor = "multi_thread")]
async fn reads_after_a_try_whose_handler_returns_wait_for_it() {
    let programs = [
        "let cfg;\ntry { cfg = await mcp.t.flaky({}); } catch (e) { return 'no config'; }\nconst data = await mcp.t.read({ id: 2 });\nreturn data.v;",
        "let cfg;\ntry { cfg = await mcp.t.flaky({}); } catch (e) { throw new Error('no config'); }\nreturn (await mcp.t.read({ id: 2 })).v;",
        "const load = async (id) => {\n  try { await mcp.t.flaky({}); } catch (e) { return -1; }\n  return (await mcp.t.read({ id })).v;\n};\nreturn await load(3);",
    ];
    for source in programs {
        let (_, fast, plain_host, _) = both(source).await;
        let wasted = fast.speculation.map_or(0, |s| s.wasted);
        assert_eq!(wasted, 0, "{source}: {:?}", received(&plain_host));
    }
}

/// `[*]` written by the program (in a string, a template, a regular expression) is not the
/// builder's "each element" mark: a read over a loop's elements whose arguments hold one is
/// started ahead with what the program sends, so it is taken, and nothing else reaches the
/// host.
#[tokio::test(flavor = "multi_thread")]
async fn the_programs_own_brackets_are_not_the_element_mark() {
    let source = "const out = [];\nfor (const id of [1, 2, 3]) {\n  const r = await mcp.t.read({ id, tag: \"[*]\" + id, pattern: `x[*]${id}`, ok: /[*]/.test(String(id)) });\n  out.push(r.v);\n}\nreturn out;";
    let (plain, fast, plain_host, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([10, 20, 30]));
    assert_eq!(plain.result, fast.result);
    assert_eq!(received(&fast_host), received(&plain_host));
    let s = fast.speculation.unwrap();
    assert!(s.served >= 1 && s.wasted == 0, "{s:?}");
}

/// Arguments with computed keys, spreads of arrays and objects, and a string key that looks
/// like a spread are computed ahead as JavaScript builds them: every read is taken, and the
/// host receives what it receives without speculation.
#[tokio::test(flavor = "multi_thread")]
async fn computed_keys_and_spreads_are_built_as_javascript_builds_them() {
    let source = "const out = [];\nfor (const id of [1, 2, 3]) {\n  const r = await mcp.t.read({ id, [`k${id}`]: id, [id > 2]: 0, ...[id, 0], ...{ extra: id > 1 }, \"...x\": 1, \"[y]\": 2 });\n  out.push(r.v);\n}\nreturn out;";
    let (plain, fast, plain_host, fast_host) = both(source).await;
    assert_eq!(fast.result, json!([10, 20, 30]));
    assert_eq!(plain.result, fast.result);
    assert_eq!(received(&fast_host), received(&plain_host));
    let s = fast.speculation.unwrap();
    assert!(s.served >= 2 && s.wasted == 0, "{s:?}");
}

/// The physical plan runs: the arguments of reads that a chain of pure operations computes
/// are computed ahead in one sandbox call of the task the optimizer fused them into, where
/// the logical plan takes one per operation; the run, and what the host receives, are the
/// same. (The program waits 300 ms on its first read: speculation computes first.)
#[tokio::test(flavor = "multi_thread")]
async fn fused_operations_are_computed_ahead_in_one_call() {
    let source = "const gate = await mcp.t.slow({ id: 0 });\nconst ids = args.ids.filter((x) => x > 1).map((x) => x * 2).slice(0, 3);\nconst out = [gate.v];\nfor (const id of ids) out.push((await mcp.t.read({ id })).v);\nreturn out;";
    let host = host().into_arc();
    let catalog = host.catalog();
    let runs = [
        program(source, &catalog),
        program_unoptimized(source, &catalog),
    ];
    let fused = runs[0].physical.physical_to_logical.as_ref().unwrap();
    assert!(fused.values().any(|l| l.len() == 3), "{fused:?}");
    let mut computed = Vec::new();
    let mut received_by = Vec::new();
    for p in &runs {
        let host = crate::speculation::host().into_arc();
        let opts = ExecuteOptions {
            args: json!({"ids": [1, 2, 3, 4]}),
            ..options(&host, true)
        };
        let report = run(p, host.clone(), &opts).await;
        assert_ok(&report);
        assert_eq!(report.result, json!([0, 40, 60, 80]));
        let s = report.speculation.unwrap();
        assert!(s.served >= 2 && s.wasted == 0, "{s:?}");
        computed.push(s.computed);
        drop(report);
        received_by.push(received(
            &std::sync::Arc::try_unwrap(host).unwrap_or_else(|_| panic!("shared")),
        ));
    }
    assert_eq!(received_by[0], received_by[1]);
    assert_eq!(computed, [1, 3]);
}
