//! `cargo xtask bench-run [--quick] [--rounds N] [--part 1|2|3]`: the one execution path,
//! measured (`--part` runs one part alone, for profiling it).
//!
//! 1. Four 1-second read-only calls of the real `everything` server
//!    (`trigger-long-running-operation`, annotated `readOnlyHint`) written eleven ways: (a)
//!    `Promise.all`, (b) four sequential `await`s, (c) four `JSON.stringify(await ...)`, (d) a
//!    `for ... of` over a literal list, (e) a loop over a list computed from an earlier call,
//!    (f) a helper awaited in a loop, (g) a helper over a mapped list, (h) a recursive walk,
//!    (i) a walk over a tree given as an argument, (j) a loop inside a helper, (k) a helper
//!    that computes its call's arguments from its parameter;
//!    each with speculation and without, against one call measured in the same rounds. Goals:
//!    each <= 1.5x one call with speculation, (a) and (b) <= 1.3x.
//! 2. Instrumentation overhead: a pure-heavy program (100k array elements through filter, map,
//!    reduce, sort), instrumented vs its own text without probes. Goal <= 1.3x. And a loop of
//!    100k iterations with an operation and a decision in each (a probe per iteration: its
//!    cost per iteration, no goal).
//! 3. Per-call host overhead: 1,000 sequential calls of an in-process no-op tool (pml's own
//!    cost per call: sandbox round trip, approval check, trace), and 200 sequential `echo`
//!    calls of the real server.
//!
//! Cases run in alternating rounds, so load drift on the machine hits every case alike; each
//! figure is a median. Figures go to stdout and `target/bench/bench-run.json`. Run it in
//! release mode for meaningful pure-code figures: `cargo run --release -p xtask -- bench-run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use pml::run::{run_file, RunOptions};
use pml_executor::{execute, AutoApprove, BoxFuture, ExecuteOptions, ToolFailure, ToolHost, Turn};
use pml_mcp::{ToolAnnotations, ToolInfo};
use pml_sandbox::{Sandbox, SandboxOptions};
use serde_json::{json, Value};

struct Options {
    rounds: usize,
    /// Only this part (1, 2 or 3), or all of them.
    part: Option<u8>,
}

impl Options {
    fn runs(&self, part: u8) -> bool {
        self.part.is_none_or(|p| p == part)
    }
}

fn options(args: &[String]) -> Result<Options> {
    let mut opts = Options {
        rounds: 5,
        part: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => opts.rounds = 2,
            "--rounds" => {
                opts.rounds = it
                    .next()
                    .context("--rounds needs a number")?
                    .parse()
                    .context("--rounds needs a number")?
            }
            "--part" => {
                let part = it.next().and_then(|p| p.parse().ok());
                match part {
                    Some(p @ 1..=3) => opts.part = Some(p),
                    _ => bail!("--part needs 1, 2 or 3"),
                }
            }
            other => bail!("bench-run: unknown argument `{other}`"),
        }
    }
    Ok(opts)
}

const OP: &str = "const OP = \"trigger-long-running-operation\";\n";

/// The programs of part 1: (name, source, goal with speculation).
fn call_programs() -> Vec<(&'static str, String, &'static str)> {
    let call = "mcp.everything[OP]({ duration: 1, steps: 1 })";
    vec![
        ("one call (baseline)", format!("{OP}const r = await {call};\nreturn r;"), ""),
        (
            "(a) Promise.all of 4",
            format!("{OP}const rs = await Promise.all([1, 2, 3, 4].map(() => {call}));\nreturn rs.length;"),
            "<= 1.3x",
        ),
        (
            "(b) 4 sequential awaits",
            format!(
                "{OP}const a = await {call};\nconst b = await {call};\nconst c = await {call};\nconst d = await {call};\nreturn [a, b, c, d].length;"
            ),
            "<= 1.3x",
        ),
        (
            "(c) 4 x JSON.stringify(await ...)",
            format!(
                "{OP}const a = JSON.stringify(await {call});\nconst b = JSON.stringify(await {call});\nconst c = JSON.stringify(await {call});\nconst d = JSON.stringify(await {call});\nreturn a.length + b.length + c.length + d.length;"
            ),
            "<= 1.5x",
        ),
        (
            "(d) for...of over a literal list",
            format!(
                "{OP}const out = [];\nfor (const steps of [1, 1, 1, 1]) {{\n  out.push(await mcp.everything[OP]({{ duration: 1, steps }}));\n}}\nreturn out.length;"
            ),
            "<= 1.5x",
        ),
        (
            "(e) loop over a list from an earlier call",
            format!(
                "{OP}const echoed = await mcp.everything.echo({{ message: \"1,1,1,1\" }});\nconst list = echoed.slice(6).split(\",\").map(Number);\nconst out = [];\nfor (const steps of list) {{\n  out.push(await mcp.everything[OP]({{ duration: 1, steps }}));\n}}\nreturn out.length;"
            ),
            "<= 1.5x",
        ),
        (
            "(f) a helper awaited in a loop",
            format!(
                "{OP}const op = async (steps) => await mcp.everything[OP]({{ duration: 1, steps }});\nconst out = [];\nfor (const steps of [1, 1, 1, 1]) out.push(await op(steps));\nreturn out.length;"
            ),
            "<= 1.5x",
        ),
        (
            "(g) a helper over a mapped list",
            format!(
                "{OP}async function op(steps) {{\n  return await mcp.everything[OP]({{ duration: 1, steps }});\n}}\nconst out = [];\nfor (const steps of [2, 4, 6, 8].map((n) => n / n)) {{\n  out.push(await op(steps));\n}}\nreturn out.length;"
            ),
            "<= 1.5x",
        ),
        (
            "(h) a recursive walk, four levels",
            format!(
                "{OP}async function walk(depth) {{\n  const r = await mcp.everything[OP]({{ duration: 1, steps: 1 }});\n  return depth < 3 ? [r, ...(await walk(depth + 1))] : [r];\n}}\nreturn (await walk(0)).length;"
            ),
            "<= 1.5x",
        ),
        (
            "(i) a walk over a tree given as an argument",
            format!(
                "{OP}async function walk(node) {{\n  const r = await mcp.everything[OP]({{ duration: 1, steps: 1 }});\n  const out = [node.name];\n  for (const child of node.children) out.push(...(await walk(child)));\n  return out;\n}}\nconst tree = {{ name: \"a\", children: [{{ name: \"b\", children: [] }}, {{ name: \"c\", children: [{{ name: \"d\", children: [] }}] }}] }};\nreturn (await walk(tree)).length;"
            ),
            "<= 1.5x",
        ),
        (
            "(j) a loop inside a helper, over its parameter",
            format!(
                "{OP}async function all(list) {{\n  const out = [];\n  for (const steps of list) out.push(await mcp.everything[OP]({{ duration: 1, steps }}));\n  return out;\n}}\nreturn (await all([1, 1, 1, 1])).length;"
            ),
            "<= 1.5x",
        ),
        (
            "(k) a helper computing its call's arguments",
            format!(
                "{OP}async function op(n) {{\n  const steps = n * 2 - 1;\n  return await mcp.everything[OP]({{ duration: 1, steps }});\n}}\nconst out = [];\nfor (const n of [1, 1, 1, 1]) out.push(await op(n));\nreturn out.length;"
            ),
            "<= 1.5x",
        ),
    ]
}

const HEAVY: &str = "const xs = Array.from({ length: 100000 }, (_, i) => i);
const evens = xs.filter((x) => x % 2 === 0);
const squares = evens.map((x) => x * x);
const total = squares.reduce((s, x) => s + x, 0);
const sorted = squares.slice().sort((a, b) => b - a);
const text = JSON.stringify(sorted.slice(0, 10));
return { total, first: sorted[0], text };";

/// 100k iterations, each an operation (`code:modulo`, `code:add`) and a decision: a probe
/// for each, traced (up to the trace's limit).
const LOOP: &str = "let total = 0;
for (let i = 0; i < 100000; i++) {
  if (i % 3 === 0) total += i % 7;
}
return total;";

/// A tool host whose one tool answers at once: pml's own cost per call.
struct Noop;

impl ToolHost for Noop {
    fn call<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        arguments: Value,
        _: Turn,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move { Ok(arguments) })
    }

    fn tools<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Vec<ToolInfo>, String>> {
        Box::pin(async move {
            Ok(vec![ToolInfo {
                name: "noop".into(),
                title: None,
                description: None,
                input_schema: json!({"type": "object"}),
                output_schema: None,
                annotations: ToolAnnotations {
                    read_only_hint: Some(true),
                    ..Default::default()
                },
            }])
        })
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Runs `file` once through `pml run`'s library entry: (execute ms, whole ms, calls served by
/// speculation).
fn run_once(
    rt: &tokio::runtime::Runtime,
    file: &Path,
    speculate: bool,
) -> Result<(f64, f64, usize)> {
    let options = RunOptions {
        speculate,
        ..RunOptions::default()
    };
    let started = Instant::now();
    let out = rt
        .block_on(run_file(file, &options))
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let whole = started.elapsed().as_secs_f64() * 1e3;
    let r = &out.report;
    if !r.ok {
        bail!("{}: the run failed: {:?}", file.display(), r.error);
    }
    let served = r.speculation.map_or(0, |s| s.served);
    Ok((r.timings.execute_ms, whole, served))
}

pub fn run(args: &[String]) -> Result<()> {
    let opts = options(args)?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("the workspace root")?
        .to_path_buf();
    let out_dir = root.join("target").join("bench");
    std::fs::create_dir_all(&out_dir)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "bench-run: {} rounds, load average {}",
        opts.rounds,
        load.split_whitespace().next().unwrap_or("?")
    );
    let mut figures = BTreeMap::new();

    if opts.runs(1) {
        // 1. Four 1-second calls of the real server.
        println!("\n1. four 1-second read-only calls of the real `everything` server (execute ms)");
        let programs = call_programs();
        let mut files: Vec<PathBuf> = Vec::new();
        for (i, (_, source, _)) in programs.iter().enumerate() {
            let file = out_dir.join(format!("bench-run-{i}.js"));
            std::fs::write(&file, source)?;
            files.push(file);
        }
        // (case, speculate) -> execute times; served counts.
        let mut times: BTreeMap<(usize, bool), Vec<f64>> = BTreeMap::new();
        let mut served: BTreeMap<(usize, bool), usize> = BTreeMap::new();
        for _ in 0..opts.rounds {
            for (i, file) in files.iter().enumerate() {
                for speculate in [true, false] {
                    if i == 0 && !speculate {
                        continue;
                    }
                    let (ms, _, s) = run_once(&rt, file, speculate)?;
                    times.entry((i, speculate)).or_default().push(ms);
                    served.insert((i, speculate), s);
                }
            }
        }
        let base = median(times[&(0, true)].clone());
        println!(
            "  {:<58} {:>10} {:>8} {:>9}  goal",
            "case", "median", "ratio", "served"
        );
        for (i, (name, _, goal)) in programs.iter().enumerate() {
            for speculate in [true, false] {
                let Some(t) = times.get(&(i, speculate)) else {
                    continue;
                };
                let m = median(t.clone());
                let label = if speculate || i == 0 {
                    name.to_string()
                } else {
                    format!("{name}, --no-speculate")
                };
                let goal = if speculate { *goal } else { "" };
                println!(
                    "  {label:<58} {m:>8.0} ms {:>7.2}x {:>9}  {goal}",
                    m / base,
                    served[&(i, speculate)]
                );
                figures.insert(
                    label,
                    json!({"median_ms": m, "ratio": m / base, "served": served[&(i, speculate)], "goal": goal}),
                );
            }
        }
    }

    let host: Arc<dyn ToolHost> = Arc::new(Noop);
    let sandbox = Arc::new(Sandbox::new(SandboxOptions::default())?);
    let exec = |p: &pml_executor::Program, options: &ExecuteOptions| {
        let started = Instant::now();
        let report = rt.block_on(execute(
            p,
            host.clone(),
            Arc::new(AutoApprove),
            sandbox.clone(),
            options,
        ));
        (started.elapsed().as_secs_f64() * 1e3, report)
    };
    if opts.runs(2) {
        // 2. Instrumentation overhead on pure code: callbacks over arrays (no probe per
        // element), and a loop whose every iteration reports an operation and a decision.
        for (key, name, code, goal) in [
            (
                "instrumentation",
                "100k elements through filter/map/reduce/sort",
                HEAVY,
                Some(1.3),
            ),
            (
                "instrumentation_loop",
                "a loop of 100k iterations, an operation and a decision in each",
                LOOP,
                None,
            ),
        ] {
            println!("\n2. instrumentation overhead: {name} (execute ms)");
            let program = rt
                .block_on(pml::run::prepare(code, host.clone(), None, true))
                .0;
            let plain = pml_executor::Program {
                instrumented: None,
                ..program.clone()
            };
            let defaults = ExecuteOptions::default();
            let (mut probed, mut unprobed) = (Vec::new(), Vec::new());
            for _ in 0..opts.rounds * 4 {
                let (t, r) = exec(&program, &defaults);
                assert!(r.ok && !r.trace.is_empty(), "{:?}", r.error);
                probed.push(t);
                let (t, r) = exec(&plain, &defaults);
                assert!(r.ok, "{:?}", r.error);
                unprobed.push(t);
            }
            let (p, u) = (median(probed), median(unprobed));
            let said = goal.map_or(String::new(), |g| format!("  goal <= {g}x"));
            println!("  without probes {u:>8.1} ms");
            println!("  instrumented   {p:>8.1} ms {:>7.2}x{said}", p / u);
            figures.insert(
                key.into(),
                json!({"instrumented_ms": p, "plain_ms": u, "ratio": p / u, "goal": goal.map(|g| format!("<= {g}x"))}),
            );
        }
    }

    if opts.runs(3) {
        // 3. Per-call overhead.
        println!("\n3. per-call overhead");
        let n = 1000;
        let calls = format!(
            "let last;\nfor (let i = 0; i < {n}; i++) {{ last = await mcp.t.noop({{ i }}); }}\nreturn last.i;"
        );
        let program = rt
            .block_on(pml::run::prepare(&calls, host.clone(), None, true))
            .0;
        let options = ExecuteOptions {
            speculate: false,
            max_calls: n + 1,
            ..ExecuteOptions::default()
        };
        let mut per = Vec::new();
        for _ in 0..opts.rounds {
            let (t, r) = exec(&program, &options);
            assert!(r.ok && r.calls.len() == n, "{:?}", r.error);
            per.push(t * 1e3 / n as f64);
        }
        let per = median(per);
        println!("  in-process no-op tool, {n} sequential calls: {per:>8.1} us per call");
        figures.insert("per_call_noop_us".into(), json!(per));
        let echo = out_dir.join("bench-run-echo.js");
        std::fs::write(
            &echo,
            "let last;\nfor (let i = 0; i < 200; i++) { last = await mcp.everything.echo({ message: 'x' + i }); }\nreturn last;",
        )?;
        let mut per = Vec::new();
        for _ in 0..opts.rounds {
            let (ms, _, _) = run_once(&rt, &echo, false)?;
            per.push(ms * 1e3 / 200.0);
        }
        let per = median(per);
        println!("  real `everything` echo, 200 sequential calls:  {per:>8.1} us per call");
        figures.insert("per_call_echo_us".into(), json!(per));
    }

    let path = out_dir.join("bench-run.json");
    std::fs::write(&path, serde_json::to_string_pretty(&figures)? + "\n")?;
    println!("\nfigures: {}", path.display());
    Ok(())
}
