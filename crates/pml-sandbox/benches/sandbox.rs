//! Costs of the sandbox, each with its baseline measured in the same run:
//!
//! 1. a QuickJS runtime + context vs a context on a reused runtime (raw `rquickjs`);
//! 2. one pure code task through [`Sandbox::eval`] (goal: at most 0.3 ms), against the same
//!    expression called again in one long-lived context (the floor: no set-up at all);
//! 3. a chain of 5 operations as one fused task vs as 5 tasks passing JSON (goal: fused at
//!    least 3x faster);
//! 4. how far past a 500 ms limit hostile programs get before the caller has its error.
//!
//! `cargo bench -p pml-sandbox` (a plain `main`, `harness = false`). `BENCH_SECONDS` sets the
//! time per measurement (default 2); `BENCH_SKIP_HOSTILE=1` skips part 4 (about 15 s).

use std::hint::black_box;
use std::time::{Duration, Instant};

use pml_sandbox::{CodeTask, Sandbox, SandboxError, SandboxOptions};
use rquickjs::context::intrinsic;
use rquickjs::{Context, Function, Runtime};
use serde_json::{json, Value};

/// Microseconds per call of `f`: the median of batches, run for at least `min` after a warm-up.
fn micros(min: Duration, mut f: impl FnMut()) -> f64 {
    for _ in 0..50 {
        f();
    }
    let mut batches = Vec::new();
    let start = Instant::now();
    while start.elapsed() < min || batches.len() < 5 {
        let t = Instant::now();
        for _ in 0..20 {
            f();
        }
        batches.push(t.elapsed().as_secs_f64() * 1e6 / 20.0);
    }
    batches.sort_by(f64::total_cmp);
    batches[batches.len() / 2]
}

fn task<'a>(code: &'a str, arguments: &'a [(String, Value)]) -> CodeTask<'a> {
    CodeTask {
        task_id: "n1",
        tool: "code:bench",
        code,
        arguments,
    }
}

fn users(n: usize) -> Value {
    json!((0..n)
        .map(|i| json!({"id": i, "name": format!("user{i}"), "active": i % 3 != 0, "score": (i * 37) % 101}))
        .collect::<Vec<_>>())
}

fn main() {
    let min = Duration::from_secs_f64(
        std::env::var("BENCH_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2.0),
    );

    // 1. Runtime + context vs context alone.
    let runtime_and_context = micros(min, || {
        let rt = Runtime::new().unwrap();
        let ctx = Context::full(&rt).unwrap();
        black_box(&ctx);
    });
    let rt = Runtime::new().unwrap();
    let context_alone = micros(min, || {
        let ctx = Context::full(&rt).unwrap();
        black_box(&ctx);
    });
    type Task = (
        intrinsic::Date,
        intrinsic::RegExp,
        intrinsic::Json,
        intrinsic::MapSet,
        intrinsic::Promise,
    );
    let task_context = micros(min, || {
        let ctx = Context::custom::<Task>(&rt).unwrap();
        black_box(&ctx);
    });
    let runtime_alone = micros(min, || {
        black_box(Runtime::new().unwrap());
    });
    println!("1. set-up (raw rquickjs, created and dropped)");
    println!("   new runtime alone:                       {runtime_alone:>9.1} us");
    println!("   new runtime + full context:              {runtime_and_context:>9.1} us");
    println!("   new full context, reused runtime:        {context_alone:>9.1} us");
    println!("   new task context (sandbox's intrinsics): {task_context:>9.1} us");

    // 2. One pure code task.
    let sandbox = Sandbox::new(SandboxOptions::default()).unwrap();
    let code = "$receiver.map(x => x * 2)";
    let arguments = vec![(
        "$receiver".to_owned(),
        json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    )];
    assert_eq!(
        sandbox.eval(&task(code, &arguments)).unwrap(),
        json!([2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
    );
    let per_task = micros(min, || {
        black_box(sandbox.eval(&task(code, &arguments)).unwrap());
    });
    let ctx = Context::full(&rt).unwrap();
    let floor = ctx.with(|ctx| {
        let f: Function = ctx
            .eval(format!("(function ($receiver) {{ return ({code}); }})"))
            .unwrap();
        let input = serde_json::to_string(&arguments[0].1).unwrap();
        micros(min, || {
            let v: rquickjs::Value = ctx.json_parse(input.as_str()).unwrap();
            let r: rquickjs::Value = f.call((v,)).unwrap();
            let s = ctx.json_stringify(r).unwrap().unwrap().to_string().unwrap();
            black_box(serde_json::from_str::<Value>(&s).unwrap());
        })
    });
    drop(ctx);
    // The worker prepares the next context after each task: a caller that leaves it time for
    // that (here: sleeps 1 ms, as an executor waiting on I/O would) pays only for the task.
    let mut latencies: Vec<f64> = (0..400)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(1));
            let t = Instant::now();
            black_box(sandbox.eval(&task(code, &arguments)).unwrap());
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    let warm = latencies[latencies.len() / 2];
    let mut n = 0u64;
    let uncached = micros(min, || {
        n += 1;
        let code = format!("$receiver.map(x => x * {n})");
        black_box(sandbox.eval(&task(&code, &arguments)).unwrap());
    });
    println!("2. one pure code task `{code}` on 10 numbers");
    println!(
        "   Sandbox::eval back to back (context set-up included): {per_task:>7.1} us  (goal <= 300 us: {})",
        if per_task <= 300.0 { "met" } else { "MISSED" }
    );
    println!("   same, new code each time (no bytecode cache hit):     {uncached:>7.1} us");
    println!("   Sandbox::eval after 1 ms asleep (context prepared):   {warm:>7.1} us (median)");
    println!("   baseline: same call in one reused context, no thread: {floor:>7.1} us");

    // 3. Fused vs unfused chain of 5 operations.
    let steps = [
        ("file", "JSON.parse(file.content)"),
        ("$receiver", "$receiver.filter(u => u.active)"),
        (
            "$receiver",
            "$receiver.map(u => ({ name: u.name, score: u.score }))",
        ),
        ("$receiver", "$receiver.sort((a, b) => b.score - a.score)"),
        ("$receiver", "$receiver.slice(0, 10)"),
    ];
    let file = json!({"content": users(100).to_string()});
    let mut fused = String::from("(() => {\n");
    for (k, (param, step)) in steps.iter().enumerate() {
        let input = if k == 0 {
            "n1$file".to_owned()
        } else {
            format!("n{k}")
        };
        let call = format!("(({param}) => ({step}))({input})");
        if k + 1 == steps.len() {
            fused.push_str(&format!("  return {call};\n"));
        } else {
            fused.push_str(&format!("  const n{} = {call};\n", k + 1));
        }
    }
    fused.push_str("})()");
    let fused_arguments = vec![("n1$file".to_owned(), file.clone())];
    let unfused = || {
        let mut value = file.clone();
        for (param, step) in steps {
            let arguments = [((*param).to_owned(), value)];
            value = sandbox.eval(&task(step, &arguments)).unwrap();
        }
        value
    };
    let expected = unfused();
    assert_eq!(
        sandbox.eval(&task(&fused, &fused_arguments)).unwrap(),
        expected
    );
    let unfused_us = micros(min, || {
        black_box(unfused());
    });
    let fused_us = micros(min, || {
        black_box(sandbox.eval(&task(&fused, &fused_arguments)).unwrap());
    });
    println!("3. chain parse/filter/map/sort/slice over 100 users");
    println!("   5 unfused tasks (JSON between them): {unfused_us:>9.1} us");
    println!(
        "   1 fused task:                        {fused_us:>9.1} us  ({:.1}x faster, goal >= 3x: {})",
        unfused_us / fused_us,
        if unfused_us / fused_us >= 3.0 { "met" } else { "MISSED" }
    );

    if std::env::var("BENCH_SKIP_HOSTILE").is_ok() {
        return;
    }
    // 4. Overshoot past the time limit.
    let limit = Duration::from_millis(500);
    let hostile = Sandbox::new(SandboxOptions {
        time_limit: limit,
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    let big = vec![("big".to_owned(), users(20_000))];
    println!("4. hostile programs, time limit 500 ms, watchdog grace 1000 ms");
    for (name, code) in [
        ("while (true) {}", "(() => { while (true) {} })()"),
        (
            "sort 20k items in a loop",
            "(() => { for (;;) { [...Array(20000).keys()].sort((a, b) => b - a); } })()",
        ),
        (
            "sort 20k items, default comparator",
            "(() => { for (;;) { [...Array(20000).keys()].sort(); } })()",
        ),
        (
            "JSON round trip of 20k objects in a loop",
            "(() => { for (;;) { JSON.parse(JSON.stringify(big)); } })()",
        ),
        (
            "catch out-of-memory and retry",
            "(() => { for (;;) { try { let a = []; for (;;) a.push(new Array(1e6).fill(1)); } catch (e) {} } })()",
        ),
        ("catastrophic regexp", "/(a+)+$/.test('a'.repeat(40) + 'b')"),
        (
            "indexOf over 1e5 items in a loop (never polls)",
            "(() => { const a = new Array(1e5).fill(0); for (;;) a.indexOf(1); })()",
        ),
    ] {
        let abandoned = hostile.abandoned_workers();
        let start = Instant::now();
        let result = hostile.eval(&task(code, &big));
        let took = start.elapsed();
        let how = match &result {
            Err(SandboxError::Timeout { .. }) if hostile.abandoned_workers() > abandoned => {
                "timeout (watchdog, worker abandoned)".to_owned()
            }
            Err(SandboxError::Timeout { .. }) => "timeout (interrupt handler)".to_owned(),
            Err(e) => format!("{e}"),
            Ok(v) => format!("ok {v}"),
        };
        println!(
            "   {name:<48} {:>6.0} ms past the limit: {how}",
            (took.as_secs_f64() - limit.as_secs_f64()) * 1e3
        );
    }
}
