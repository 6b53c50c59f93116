//! The core equivalence property: a program gives the same outcome, result, calls, store and
//! order of writes run as written (no speculation), with speculation, and with speculation
//! against a host whose latencies are random.

use std::sync::Arc;

use pml_executor::{ExecuteOptions, RunReport};
use serde_json::{json, Value};

use crate::support::*;

/// A deterministic host: every answer is computed from the arguments.
pub fn world() -> FakeHost {
    let rows = json!([
        {"name": "ada", "active": true, "score": 3},
        {"name": "bob", "active": false, "score": 9},
        {"name": "cy", "active": true, "score": 5}
    ]);
    FakeHost::kv()
        .tool("t:ro", ToolSpec::new(Behavior::Echo).read_only())
        .tool("t:w", ToolSpec::new(Behavior::Echo).destructive(false))
        .tool(
            "t:fail",
            ToolSpec::new(Behavior::Fail(pml_executor::ToolFailure::new("no such thing")))
                .read_only(),
        )
        .tool(
            "t:user",
            ToolSpec::compute(|a| {
                let id = a["id"].as_i64().unwrap_or(0);
                Ok(json!({"id": id, "name": format!("user{id}"), "count": id * 2, "tags": ["a", "b"]}))
            })
            .read_only(),
        )
        .tool(
            "fs:read",
            ToolSpec::compute(move |a| {
                let path = a["path"].as_str().unwrap_or("");
                let content = if path.ends_with(".json") {
                    rows.to_string()
                } else {
                    format!("contents of {path}")
                };
                Ok(json!({"path": path, "content": content}))
            })
            .read_only(),
        )
        .tool(
            "fs:info",
            ToolSpec::compute(|a| {
                let path = a["path"].as_str().unwrap_or("");
                Ok(json!({"size": path.len(), "modified": format!("2024-01-0{}", path.len() % 9 + 1)}))
            })
            .read_only(),
        )
        .tool(
            "fs:list",
            ToolSpec::compute(|a| Ok(json!([format!("{}/x.md", a["path"].as_str().unwrap_or("")), "y.md"])))
                .read_only(),
        )
        .tool(
            "fs:write",
            ToolSpec::compute(|a| Ok(json!({"wrote": a["path"], "bytes": a["content"].to_string().len()})))
                .destructive(false),
        )
}

/// What a run did, for comparison.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub ok: bool,
    pub result: Value,
    pub calls: Vec<(String, String)>,
    /// The kv store after the run.
    pub store: Vec<(String, Value)>,
    /// The `kv:put` and `t:w`/`fs:write` calls (writes) in the order they started.
    pub writes: Vec<(String, String)>,
}

pub async fn outcome(
    program: &pml_executor::Program,
    options: &ExecuteOptions,
    host: FakeHost,
) -> (Outcome, RunReport) {
    let host = Arc::new(host);
    let options = ExecuteOptions {
        annotations: host.annotations(),
        ..options.clone()
    };
    let report = run(program, host.clone(), &options).await;
    let store = ["a", "b", "c", "k", "x", "active", "out"]
        .iter()
        .filter_map(|k| host.stored(k).map(|v| (k.to_string(), v)))
        .collect();
    let writes = host
        .calls()
        .into_iter()
        .filter(|c| matches!(c.tool.as_str(), "kv:put" | "t:w" | "fs:write" | "kv:del"))
        .map(|c| (c.tool, c.arguments.to_string()))
        .collect();
    (
        Outcome {
            ok: report.ok,
            result: report.result.clone(),
            calls: call_multiset(&report),
            store,
            writes,
        },
        report,
    )
}

/// Runs `source` as written (no speculation), with speculation, and with speculation
/// against random latencies (seeded by `name`), and asserts the same outcome.
pub async fn equivalent(name: &str, source: &str, args: Value) -> Outcome {
    let catalog = world().catalog();
    let p = program(source, &catalog);
    let as_written = ExecuteOptions {
        args,
        speculate: false,
        ..ExecuteOptions::default()
    };
    let ahead = ExecuteOptions {
        speculate: true,
        ..as_written.clone()
    };
    let (plain, plain_report) = outcome(&p, &as_written, world()).await;
    let (fast, fast_report) = outcome(&p, &ahead, world()).await;
    let seed = name
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b.into()));
    let (jittered, _) = outcome(&p, &ahead, world().jitter(seed, 15)).await;
    assert_eq!(
        plain, fast,
        "{name}: as written vs with speculation\n{:?} / {:?}",
        plain_report.error, fast_report.error
    );
    assert_eq!(
        plain, jittered,
        "{name}: as written vs speculation, random latencies"
    );
    plain
}

const PROGRAMS: &[(&str, &str, &str)] = &[
    (
        "chain",
        r#"
const a = await mcp.t.ro({ n: 1 });
const b = await mcp.t.ro({ prev: a.args.n, tool: a.tool });
const c = await mcp.t.w({ x: b.args.prev + 1 });
return c;
"#,
        "{}",
    ),
    (
        "branch",
        r#"
const u = await mcp.t.user({ id: args.id });
if (u.count > 4) {
  await mcp.t.w({ big: u.name });
} else if (u.count > 2) {
  await mcp.t.w({ medium: u.name });
} else {
  await mcp.t.ro({ small: u.name });
}
return u.name;
"#,
        r#"{"id": 2}"#,
    ),
    (
        "promise-all",
        r#"
const [a, b, c] = await Promise.all([
  mcp.t.user({ id: 1 }),
  mcp.t.user({ id: 2 }),
  mcp.fs.read({ path: "notes.txt" }),
]);
return [a.name, b.count, c.content];
"#,
        "{}",
    ),
    (
        "destructuring",
        r#"
const { content } = await mcp.fs.read({ path: "a.txt" });
const { size, modified: mtime } = await mcp.fs.info({ path: "a.txt" });
const [list, other] = await Promise.all([mcp.fs.list({ path: "docs" }), mcp.fs.info({ path: "b" })]);
const { 0: first, 1: second } = list;
await mcp.t.w({ content, size, mtime, first, second, other });
return { content, first, size };
"#,
        "{}",
    ),
    (
        "template-literals",
        r#"
const u = await mcp.t.user({ id: 3 });
await mcp.fs.write({ path: `${args.root}/out-${u.id}.txt`, content: `hello ${u.name}, you have ${u.count} items` });
return `${u.name}!`;
"#,
        r#"{"root": "/tmp/r"}"#,
    ),
    (
        "spreads",
        r#"
const defaults = { encoding: "utf-8", overwrite: false };
const meta = await mcp.fs.info({ path: args.path });
await mcp.fs.write({ ...defaults, path: args.path, content: "x" });
await mcp.t.w({ ...meta, ...args.extra, source: "pml" });
return meta;
"#,
        r#"{"path": "p.txt", "extra": {"k": 1, "size": 99}}"#,
    ),
    (
        "literal-map-unrolled",
        r#"
const files = await Promise.all(["a.txt", "b.txt", "c.txt"].map((p) => mcp.fs.read({ path: p })));
return files.map((f) => f.content);
"#,
        "{}",
    ),
    (
        "switch",
        r#"
const u = await mcp.t.user({ id: args.id });
switch (u.name) {
  case "user1":
    await mcp.t.w({ one: true });
  case "user2":
    await mcp.t.w({ two: true });
    break;
  case "user3":
    await mcp.t.ro({ three: true });
    break;
  default:
    await mcp.t.w({ other: u.name });
}
return u.id;
"#,
        r#"{"id": 1}"#,
    ),
    (
        "constants",
        r#"
const LIMIT = 10;
const PREFIX = "user-";
const NAMES = ["a", "b"];
const CONFIG = { depth: 2, tags: NAMES };
const r = await mcp.t.ro({ limit: LIMIT * 2, prefix: PREFIX + "x", names: NAMES, config: CONFIG });
return { limit: r.args.limit, LIMIT, names: NAMES };
"#,
        "{}",
    ),
    (
        "args-parameters",
        r#"
const r = await mcp.t.ro({ id: args.id, deep: args.opts.deep, all: args });
await mcp.t.w({ again: args.opts });
return [r.args.deep, args.id];
"#,
        r#"{"id": 5, "opts": {"deep": [1, 2, {"x": "y"}]}}"#,
    ),
    (
        "nested-objects",
        r#"
const r = await mcp.t.ro({ a: { b: { c: [1, { d: args.x }] } }, list: [args.x, "y", null, true, -1.5] });
const s = await mcp.t.ro({ from: r.args.a.b.c[1], len: r.args.list.length });
return { d: r.args.a.b.c[1].d, s: s.args };
"#,
        r#"{"x": "deep"}"#,
    ),
    (
        "etl",
        r#"
const f = await mcp.fs.read({ path: "data/users.json" });
const rows = JSON.parse(f.content);
const active = rows.filter((r) => r.active).map((r) => r.name).sort();
await mcp.kv.put({ key: "active", value: active });
const back = await mcp.kv.get({ key: "active" });
return { count: active.length, back };
"#,
        "{}",
    ),
    (
        "kv-write-read",
        r#"
const before = await mcp.kv.get({ key: "a" });
await mcp.kv.put({ key: "a", value: args.v });
const a = await mcp.kv.get({ key: "a" });
await mcp.kv.put({ key: "b", value: a });
const b = await mcp.kv.get({ key: "b" });
await mcp.kv.put({ key: "a", value: "second" });
const c = await mcp.kv.get({ key: "a" });
return [before, a, b, c];
"#,
        r#"{"v": 41}"#,
    ),
    (
        "intermediate-used-twice",
        r#"
const f = await mcp.fs.read({ path: "rows.json" });
const rows = JSON.parse(f.content);
const names = rows.map((r) => r.name);
const upper = names.map((n) => n.toUpperCase());
const total = rows.reduce((s, r) => s + r.score, 0);
await mcp.fs.write({ path: "summary.txt", content: JSON.stringify({ n: rows.length, names, upper, total }) });
return { upper, total };
"#,
        "{}",
    ),
    (
        "sibling-pure-ops",
        r#"
const f = await mcp.fs.read({ path: "rows.json" });
const rows = JSON.parse(f.content);
const names = rows.map((r) => r.name);
const best = rows.filter((r) => r.score > 4);
const count = rows.length;
await mcp.kv.put({ key: "out", value: { names, best, count } });
return { names, best: best.map((r) => r.name), count };
"#,
        "{}",
    ),
    (
        "nested-if-with-writes",
        r#"
const a = await mcp.kv.get({ key: "a" });
const u = await mcp.t.user({ id: args.id });
if (u.id > 1) {
  await mcp.kv.put({ key: "a", value: u.name });
  if (u.count === 6) {
    const again = await mcp.kv.get({ key: "a" });
    await mcp.kv.put({ key: "c", value: again });
  }
} else {
  await mcp.kv.put({ key: "b", value: a });
}
const last = await mcp.kv.get({ key: "c" });
return { a, last };
"#,
        r#"{"id": 3}"#,
    ),
    (
        "no-arguments-and-no-return",
        r#"
const r = await mcp.t.ro();
await mcp.t.w({ got: r.args });
"#,
        "{}",
    ),
    (
        "computed-result",
        r#"
const a = await mcp.t.user({ id: 2 });
const b = await mcp.t.user({ id: a.count });
return { sum: a.count + b.count, max: Math.max(a.count, b.count), label: a.name.toUpperCase() + "/" + b.name, tags: a.tags.concat(b.tags) };
"#,
        "{}",
    ),
    (
        "mixed-promise-all",
        r#"
const [u, info] = await Promise.all([mcp.t.user({ id: 4 }), mcp.fs.info({ path: "x.txt" })]);
await mcp.kv.put({ key: "k", value: u.name });
const [k, again] = await Promise.all([mcp.kv.get({ key: "k" }), mcp.fs.info({ path: "x.txt" })]);
return { k, same: info.size === again.size };
"#,
        "{}",
    ),
    (
        "branch-on-promise-all",
        r#"
const [a, b] = await Promise.all([mcp.t.user({ id: 1 }), mcp.t.user({ id: args.id })]);
if (a.count + b.count > 5) {
  await mcp.t.w({ big: true, names: [a.name, b.name] });
} else {
  await mcp.t.w({ big: false });
}
return a.name;
"#,
        r#"{"id": 2}"#,
    ),
    (
        "branch-on-fused-code",
        r#"
const f = await mcp.fs.read({ path: "r.json" });
const n = JSON.parse(f.content).filter((r) => r.active).length;
if (n > 1) {
  await mcp.kv.put({ key: "k", value: n });
}
return n;
"#,
        "{}",
    ),
    (
        "undefined-members-and-strings",
        r#"
const u = await mcp.t.user({ id: 1 });
await mcp.t.w({ a: u.nothing, b: [u.nothing], c: `${args.missing}-${u.tags}-${u}`, d: "q\"\n\u00e9" });
return { a: u.nothing, b: u.id, c: u.nothing === undefined };
"#,
        "{}",
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn speculation_changes_no_outcome() {
    for (name, source, args) in PROGRAMS {
        let args: Value = serde_json::from_str(args).unwrap();
        let outcome = equivalent(name, source, args).await;
        assert!(outcome.ok, "{name} failed: {outcome:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn spread_of_a_result_inside_an_expression() {
    // Spreads of results: a DAG that re-read them from text once got them wrong (`...n1` taken
    // for a property access); the program running as written cannot.
    let cases = [
        (
            "array spread in the result",
            "const a = await mcp.t.user({ id: 2 });
const b = await mcp.t.user({ id: 3 });
return [...a.tags, ...b.tags];",
        ),
        (
            "object spread in the result",
            "const a = await mcp.t.user({ id: 2 });
return { ...a, extra: 1 };",
        ),
        (
            "array spread in an argument",
            "const a = await mcp.t.user({ id: 2 });
const b = await mcp.t.user({ id: 3 });
const c = await mcp.t.ro({ tags: [...a.tags, ...b.tags] });
return c.args;",
        ),
        (
            "object spread nested in an argument",
            "const a = await mcp.t.user({ id: 2 });
await mcp.t.w({ obj: { ...a, z: 1 } });
return 1;",
        ),
    ];
    let mut failures = Vec::new();
    for (name, source) in cases {
        let outcome = std::panic::AssertUnwindSafe(equivalent(name, source, json!({})));
        if let Err(e) = futures_catch(outcome).await {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs a future on its own task and turns its panic into an error message.
async fn futures_catch<F: std::future::Future + Send + 'static>(f: F) -> Result<F::Output, String>
where
    F::Output: Send + 'static,
{
    tokio::spawn(f).await.map_err(|e| {
        let p = e.into_panic();
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn numbers_reach_tools_as_javascript_would_send_them() {
    // An `args` value `2.0`, or a tool result `{"price": 10.0}` (what Python servers emit for
    // floats), reaches the next tool as JavaScript sends it: `2`, `10`; a literal
    // `12345678901234567890` as `12345678901234567000`.
    let source = r#"
const item = await mcp.t.price({ id: args.id });
await mcp.t.w({ price: item.price, qty: args.qty, big: 12345678901234567890 });
return { price: item.price, qty: args.qty };
"#;
    let mut catalog = world().catalog();
    catalog.insert(pml_structure::ToolSchema {
        name: "t:price".into(),
        description: None,
        input_schema: None,
        output_schema: None,
        annotations: Some(json!({"readOnlyHint": true})),
    });
    let p = program(source, &catalog);
    for speculate in [true, false] {
        let price: Value = serde_json::from_str(r#"{"price": 10.0}"#).unwrap();
        let host = world()
            .tool("t:price", ToolSpec::new(Behavior::Value(price)).read_only())
            .into_arc();
        let options = ExecuteOptions {
            args: serde_json::from_str(r#"{"id": 1, "qty": 2.0}"#).unwrap(),
            annotations: host.annotations(),
            speculate,
            ..ExecuteOptions::default()
        };
        let report = run(&p, host.clone(), &options).await;
        assert_ok(&report);
        // As the MCP client writes it on the wire.
        let sent = host.calls_to("t:w")[0].arguments.to_string();
        let sent = pml_jstext::to_js_json(&sent);
        assert_eq!(sent, r#"{"price":10,"qty":2,"big":12345678901234567000}"#);
        assert_eq!(report.result, json!({"price": 10, "qty": 2}));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn branches_take_the_same_way_for_every_input() {
    let (_, branch, _) = PROGRAMS.iter().find(|p| p.0 == "branch").unwrap();
    let (_, switch, _) = PROGRAMS.iter().find(|p| p.0 == "switch").unwrap();
    let (_, nested, _) = PROGRAMS
        .iter()
        .find(|p| p.0 == "nested-if-with-writes")
        .unwrap();
    for id in 0..5 {
        for source in [branch, switch, nested] {
            equivalent(&format!("id {id}"), source, json!({ "id": id })).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_program_fails_the_same_way_with_or_without_speculation() {
    let source = r#"
const f = await mcp.fs.read({ path: args.path });
const rows = JSON.parse(f.content);
await mcp.kv.put({ key: "out", value: rows.length });
return rows.length;
"#;
    let good = equivalent("json", source, json!({"path": "rows.json"})).await;
    assert_eq!(good.result, json!(3));
    let bad = equivalent("not json", source, json!({"path": "rows.txt"})).await;
    assert!(!bad.ok);
    assert!(bad.writes.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loop_is_traced_per_iteration() {
    let host = world().into_arc();
    let p = program(
        "const xs = await mcp.fs.list({ path: \"d\" });\nfor (const x of xs) { await mcp.fs.read({ path: x }); }\nreturn xs.length;",
        &host.catalog(),
    );
    // As written: one traced call per iteration.
    let report = run(&p, host.clone(), &host.options()).await;
    assert_ok(&report);
    assert_eq!(report.result, json!(2));
    assert_eq!(report.executed_path, ["fs:list", "fs:read", "fs:read"]);
    // Each call is traced under its node, the loop's calls with their iteration (started
    // ahead together, at times taken on their own tasks: in either order).
    let mut ids: Vec<(&str, Vec<u32>)> = report
        .trace
        .iter()
        .filter(|e| e.event == "tool_start")
        .map(|e| (e.task_id.as_deref().unwrap_or("?"), e.iteration.clone()))
        .collect();
    ids[1..].sort();
    assert_eq!(ids, [("n1", vec![]), ("n2", vec![0]), ("n2", vec![1])]);
    let loops: Vec<(&str, Option<u32>)> = report
        .trace
        .iter()
        .filter(|e| e.event == "loop")
        .map(|e| (e.task_id.as_deref().unwrap_or("?"), e.iterations))
        .collect();
    assert_eq!(loops, [("l1", Some(2))]);
    // Started ahead together, they may reach the host in either order.
    let mut reads: Vec<String> = host
        .calls_to("fs:read")
        .into_iter()
        .map(|c| c.arguments.to_string())
        .collect();
    reads.sort();
    assert_eq!(reads, [r#"{"path":"d/x.md"}"#, r#"{"path":"y.md"}"#]);
}

/// Programs whose syntax is easy to break by inserting probes: each gives the same outcome
/// instrumented (with and without speculation) as its own text without probes.
#[tokio::test(flavor = "multi_thread")]
async fn probes_change_nothing_the_program_computes() {
    let programs = [
        // ASI: a statement starting a line right after one without a semicolon.
        "const a = await mcp.t.user({ id: 1 })\nconst n = [a.count, 2].map(x => x * 2)\nreturn n",
        // Labels, break/continue out of nested loops with calls and operations inside.
        "const out = []\nouter: for (const i of [1, 2, 3]) {\n  for (const j of [1, 2]) {\n    if (j === 2 && i === 2) continue outer;\n    if (i === 3) break outer;\n    const u = await mcp.t.user({ id: i * j });\n    out.push(u.name.toUpperCase());\n  }\n}\nreturn out;",
        // Arrow bodies: expression, object literal, block; callbacks of a fork.
        "const rs = await Promise.all([1, 2].map(async (id) => ({ u: await mcp.t.user({ id }) })));\nconst names = rs.map(r => r.u.name).filter(n => n.endsWith('1'));\nreturn names;",
        // A regex, a template, optional chaining, nullish coalescing, comma operator, `new`.
        "const u = await mcp.t.user({ id: 2 });\nconst m = `id=${u.id}`.match(/id=(\\d+)/);\nconst x = (0, u.missing?.deep ?? 'none');\nconst d = new Date(0).toISOString();\nreturn [m.index, m[1], x, d];",
        // switch with fallthrough and a default in the middle; a ternary and && guards.
        "const u = await mcp.t.user({ id: args.id });\nlet s = '';\nswitch (u.count) { case 2: s += 'two'; default: s += 'd'; case 4: s += 'four'; break; case 6: s += 'six'; }\nconst t = u.count > 3 ? await mcp.t.ro({ big: true }) : null;\nu.count > 1 && await mcp.t.w({ s });\nreturn [s, t === null];",
        // try/catch/finally around a failing call, a helper function, an early return.
        "async function get(id) { return (await mcp.t.user({ id })).name; }\nlet r;\ntry { r = await mcp.kv.get({}); } catch (e) { r = 'caught ' + e.message; } finally { r += '!'; }\nif (args.id > 1) return [r, await get(args.id)];\nreturn r;",
        // Getters, classes, spread, destructuring with defaults, a do-while and a while.
        "class C { constructor(v) { this.v = v; } get twice() { return this.v * 2; } }\nconst { count = 0, none = 'dflt' } = await mcp.t.user({ id: 3 });\nlet i = 0; do { i++; } while (i < count);\nlet k = 0; while (k < 2) { await mcp.t.ro({ k }); k++; }\nreturn [new C(i).twice, none, ...[1, 2], { ...{ a: 1 }, b: 2 }];",
        // Array holes, sort with a comparator, reduce, JSON round trip, for-in.
        "const xs = [3, , 1];\nconst sorted = xs.filter(x => x !== undefined).sort((a, b) => a - b);\nconst total = sorted.reduce((s, x) => s + x, 0) / sorted.length;\nconst o = JSON.parse(JSON.stringify({ a: 1, b: [2] }));\nconst keys = [];\nfor (const k in o) keys.push(k);\nreturn [sorted, total, keys, xs.length];",
    ];
    let catalog = world().catalog();
    for source in programs {
        let probed = program(source, &catalog);
        assert!(probed.instrumented.is_some(), "{source}");
        let plain = pml_executor::Program {
            instrumented: None,
            ..probed.clone()
        };
        for id in [1, 2] {
            let args = json!({ "id": id });
            let as_is = ExecuteOptions {
                args: args.clone(),
                speculate: false,
                ..ExecuteOptions::default()
            };
            let (reference, reference_report) = outcome(&plain, &as_is, world()).await;
            let (with_probes, report) = outcome(&probed, &as_is, world()).await;
            assert_eq!(
                reference, with_probes,
                "{source}\n{:?} / {:?}",
                reference_report.error, report.error
            );
            let ahead = ExecuteOptions {
                speculate: true,
                ..as_is.clone()
            };
            let (fast, _) = outcome(&probed, &ahead, world().jitter(id, 10)).await;
            assert_eq!(reference, fast, "{source}: with speculation");
            // Every trace event of the instrumented run names its node.
            assert!(
                report
                    .trace
                    .iter()
                    .all(|e| e.task_id.is_some() || e.line.is_some()),
                "{source}: {:?}",
                report.trace
            );
        }
    }
}
