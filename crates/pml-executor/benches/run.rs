//! Costs of the executor against an in-process tool host, each with its baseline measured in
//! the same run:
//!
//! 1. four read-only calls of 1 s each: `Promise.all`, four awaits one after another (with and
//!    without reordering, and in sandbox mode), against a single call (goal: reordered
//!    sequential awaits within 1.3x of one call; without reordering about 4x);
//! 2. scheduler overhead: 1,000 MCP tasks against a zero-latency tool, independent and as a
//!    chain, per task (goal: at most 50 us);
//! 3. one pure code task through `execute` (goal: at most 0.3 ms), against evaluating the same
//!    code with `Sandbox::eval` directly, and with the sandbox created for the run;
//! 4. a chain of 5 pure operations fused into one task vs the same 5 unfused (goal: fused at
//!    least 3x faster).
//!
//! `cargo bench -p pml-executor --bench run` (a plain `main`, `harness = false`).
//! `BENCH_QUICK=1` skips part 1 (about 8 s of waiting).

#[path = "../tests/it/support.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use pml_executor::{execute, AutoApprove, ExecuteOptions, Mode, Program, RunReport};
use pml_sandbox::{CodeTask, Sandbox, SandboxOptions};
use serde_json::{json, Value};
use support::{program, program_unoptimized, FakeHost, ToolSpec};
use tokio::runtime::Runtime;

struct Row {
    name: String,
    value: String,
    ratio: String,
    goal: String,
}

fn row(rows: &mut Vec<Row>, name: &str, value: String, ratio: String, goal: &str) {
    println!("  {name:<58} {value:>12} {ratio:>10}  {goal}");
    rows.push(Row {
        name: name.to_owned(),
        value,
        ratio,
        goal: goal.to_owned(),
    });
}

/// Median wall time of `iterations` runs of `f` (after `warm` unmeasured runs).
fn median(warm: usize, iterations: usize, mut f: impl FnMut()) -> Duration {
    for _ in 0..warm {
        f();
    }
    let mut times: Vec<Duration> = (0..iterations)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn run_once(
    rt: &Runtime,
    p: &Program,
    host: &Arc<FakeHost>,
    sandbox: &Arc<Sandbox>,
    options: &ExecuteOptions,
) -> RunReport {
    let report = rt.block_on(execute(
        p,
        host.clone(),
        Arc::new(AutoApprove),
        sandbox.clone(),
        options,
    ));
    assert!(report.ok, "benchmark program failed: {:?}", report.error);
    report
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn us(d: Duration) -> String {
    format!("{:.1} us", d.as_secs_f64() * 1e6)
}

fn x(r: f64) -> String {
    format!("{r:.2}x")
}

fn latency(rt: &Runtime, sandbox: &Arc<Sandbox>, rows: &mut Vec<Row>) {
    println!("\n1. four read-only calls of 1 s each");
    let host = FakeHost::new()
        .tool(
            "t:read",
            ToolSpec::compute(|a| Ok(json!({"id": a["id"]})))
                .read_only()
                .latency_ms(1000),
        )
        .into_arc();
    let catalog = host.catalog();
    let single = program(
        "const a = await mcp.t.read({ id: 1 });\nreturn a;",
        &catalog,
    );
    let sequential = program(
        "const a = await mcp.t.read({ id: 1 });\nconst b = await mcp.t.read({ id: 2 });\nconst c = await mcp.t.read({ id: 3 });\nconst d = await mcp.t.read({ id: 4 });\nreturn [a, b, c, d];",
        &catalog,
    );
    let parallel = program(
        "const r = await Promise.all([1, 2, 3, 4].map((id) => mcp.t.read({ id })));\nreturn r;",
        &catalog,
    );
    let time = |p: &Program, options: &ExecuteOptions| {
        host.reset();
        let t = Instant::now();
        let report = run_once(rt, p, &host, sandbox, options);
        (t.elapsed(), report.mode)
    };
    let options = host.options();
    let no_reorder = ExecuteOptions {
        reorder: false,
        ..host.options()
    };
    let sandboxed = ExecuteOptions {
        mode: Some(Mode::Sandbox),
        ..host.options()
    };
    let (base, _) = time(&single, &options);
    row(rows, "single call (baseline)", ms(base), x(1.0), "");
    let cases: [(&str, &Program, &ExecuteOptions, &str); 5] = [
        ("Promise.all of 4", &parallel, &options, "<= 1.3x"),
        (
            "4 sequential awaits, reordered",
            &sequential,
            &options,
            "<= 1.3x",
        ),
        (
            "4 sequential awaits, no reordering",
            &sequential,
            &no_reorder,
            "~4x",
        ),
        (
            "4 sequential awaits, sandbox mode (as written)",
            &sequential,
            &sandboxed,
            "~4x",
        ),
        (
            "Promise.all of 4, sandbox mode",
            &parallel,
            &sandboxed,
            "<= 1.3x",
        ),
    ];
    for (name, p, o, goal) in cases {
        let (t, mode) = time(p, o);
        let name = format!("{name} [{mode:?}]");
        row(
            rows,
            &name,
            ms(t),
            x(t.as_secs_f64() / base.as_secs_f64()),
            goal,
        );
    }
}

fn noop_host() -> Arc<FakeHost> {
    FakeHost::new()
        .tool(
            "t:noop",
            ToolSpec::compute(|a| Ok(json!({"i": a["i"]}))).read_only(),
        )
        .into_arc()
}

fn scheduler(rt: &Runtime, sandbox: &Arc<Sandbox>, rows: &mut Vec<Row>) {
    const N: usize = 1000;
    println!("\n2. scheduler overhead: {N} no-op MCP tasks, zero latency");
    let host = noop_host();
    let catalog = host.catalog();
    let independent: String = (0..N)
        .map(|i| format!("const v{i} = await mcp.t.noop({{ i: {i} }});\n"))
        .collect::<String>()
        + &format!("return v{};\n", N - 1);
    let chain: String = std::iter::once("const v0 = await mcp.t.noop({ i: 0 });\n".to_owned())
        .chain((1..N).map(|i| {
            format!(
                "const v{i} = await mcp.t.noop({{ i: {i}, prev: v{}.i }});\n",
                i - 1
            )
        }))
        .collect::<String>()
        + &format!("return v{}.i;\n", N - 1);
    let t = Instant::now();
    let independent = program(&independent, &catalog);
    let chain = program(&chain, &catalog);
    println!("  (building both programs took {})", ms(t.elapsed()));
    assert_eq!(independent.physical.tasks.len(), N);
    assert_eq!(chain.physical.tasks.len(), N);
    let options = host.options();
    let no_reorder = ExecuteOptions {
        reorder: false,
        ..host.options()
    };
    let sandboxed = ExecuteOptions {
        mode: Some(Mode::Sandbox),
        ..host.options()
    };
    let cases: [(&str, &Program, &ExecuteOptions, usize); 4] = [
        (
            "independent, reordered (all at once)",
            &independent,
            &options,
            9,
        ),
        (
            "independent, no reordering (one at a time)",
            &independent,
            &no_reorder,
            9,
        ),
        ("chain (each reads the previous)", &chain, &options, 9),
        (
            "chain, sandbox mode (for comparison)",
            &chain,
            &sandboxed,
            3,
        ),
    ];
    for (name, p, o, iterations) in cases {
        let total = median(1, iterations, || {
            host.reset();
            let report = run_once(rt, p, &host, sandbox, o);
            assert_eq!(report.calls.len(), N);
        });
        let per = total / N as u32;
        let goal = if o.mode.is_none() {
            "<= 50 us/task"
        } else {
            ""
        };
        row(
            rows,
            &format!("{name}: total {}", ms(total)),
            us(per),
            String::new(),
            goal,
        );
    }
    // The floor of the scheduler's design for a task that runs after another: a spawned task
    // that hops to a blocking thread (argument evaluation) and reports on a channel.
    let hops = median(1, 9, || {
        rt.block_on(async {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<usize>();
            for i in 0..N {
                let tx = tx.clone();
                tokio::spawn(async move {
                    let v = tokio::task::spawn_blocking(move || i).await.unwrap();
                    let _ = tx.send(v);
                });
                rx.recv().await.unwrap();
            }
        })
    });
    row(
        rows,
        "reference: spawn + spawn_blocking + channel, one at a time",
        us(hops / N as u32),
        String::new(),
        "",
    );
}

fn code_tasks(rt: &Runtime, sandbox: &Arc<Sandbox>, rows: &mut Vec<Row>) {
    println!("\n3. one pure code task");
    let host = noop_host();
    let catalog = host.catalog();
    let items: Vec<Value> = (0..10).map(|i| json!(i)).collect();
    let options = ExecuteOptions {
        args: json!({ "items": items }),
        ..host.options()
    };
    let one = program(
        "const x = args.items.map((v) => v * 2);\nreturn x;",
        &catalog,
    );
    assert_eq!(one.physical.tasks.len(), 1);
    let floor = {
        let arguments = [("args".to_owned(), options.args.clone())];
        let task = CodeTask {
            task_id: "n1",
            tool: "code:map",
            code: "args.items.map((v) => v * 2)",
            arguments: &arguments,
        };
        median(200, 2000, || {
            sandbox.eval(&task).unwrap();
        })
    };
    row(
        rows,
        "Sandbox::eval of the same code (floor)",
        us(floor),
        x(1.0),
        "",
    );
    let warm = median(200, 2000, || {
        run_once(rt, &one, &host, sandbox, &options);
    });
    row(
        rows,
        "execute(): one code task, warm sandbox",
        us(warm),
        x(warm.as_secs_f64() / floor.as_secs_f64()),
        "<= 0.3 ms",
    );
    let nothing = program("return 1;", &catalog);
    let empty = median(200, 2000, || {
        run_once(rt, &nothing, &host, sandbox, &options);
    });
    row(
        rows,
        "execute(): no task at all (`return 1`)",
        us(empty),
        x(empty.as_secs_f64() / floor.as_secs_f64()),
        "",
    );
    let cold = median(3, 30, || {
        let fresh = Arc::new(Sandbox::new(SandboxOptions::default()).unwrap());
        run_once(rt, &one, &host, &fresh, &options);
    });
    row(
        rows,
        "Sandbox::new + execute(): one code task, cold",
        us(cold),
        x(cold.as_secs_f64() / floor.as_secs_f64()),
        "",
    );

    println!("\n4. a chain of 5 pure operations over 200 rows, fused vs unfused");
    let rows_arg: Vec<Value> = (0..200)
        .map(|i| json!({"name": format!("user{i}"), "active": i % 3 != 0, "score": (i * 37) % 101}))
        .collect();
    let options = ExecuteOptions {
        args: json!({ "items": rows_arg }),
        ..host.options()
    };
    let source = "const top = args.items.filter((u) => u.active).map((u) => ({ name: u.name, score: u.score * 2 })).sort((a, b) => b.score - a.score).slice(0, 10).map((u) => u.name);\nreturn top;";
    let fused = program(source, &catalog);
    let unfused = program_unoptimized(source, &catalog);
    assert_eq!(
        fused.physical.tasks.len(),
        1,
        "the optimizer fuses the chain"
    );
    assert_eq!(unfused.physical.tasks.len(), 5);
    let a = run_once(rt, &fused, &host, sandbox, &options);
    let b = run_once(rt, &unfused, &host, sandbox, &options);
    assert_eq!(a.result, b.result);
    let t_unfused = median(50, 500, || {
        run_once(rt, &unfused, &host, sandbox, &options);
    });
    let t_fused = median(50, 500, || {
        run_once(rt, &fused, &host, sandbox, &options);
    });
    row(
        rows,
        "5 unfused tasks (baseline)",
        us(t_unfused),
        x(1.0),
        "",
    );
    row(
        rows,
        "1 fused task",
        us(t_fused),
        format!(
            "{:.2}x faster",
            t_unfused.as_secs_f64() / t_fused.as_secs_f64()
        ),
        ">= 3x faster",
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sandbox = Arc::new(Sandbox::new(SandboxOptions::default()).unwrap());
    let mut rows = Vec::new();
    let started = Instant::now();
    if std::env::var_os("BENCH_QUICK").is_none() {
        latency(&rt, &sandbox, &mut rows);
    }
    scheduler(&rt, &sandbox, &mut rows);
    code_tasks(&rt, &sandbox, &mut rows);
    println!("\nsummary ({:.1} s)", started.elapsed().as_secs_f64());
    println!("| measurement | value | ratio | goal |\n|---|---:|---:|---|");
    for r in rows {
        println!("| {} | {} | {} | {} |", r.name, r.value, r.ratio, r.goal);
    }
}
