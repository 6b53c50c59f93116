//! `cargo xtask bench [--quick]`: is `pml analyze` fast and small enough? (See `docs/benchmarks.md`.)
//!
//! Input: two agent programs from [`crate::gen`] with the same seed, ~360 KB ("1x") and four times that ("4x"),
//! written to `target/bench/`. Output: a table on stdout, `target/bench/report.json`, and a non-zero exit naming
//! every goal that was missed. Every ratio compares figures measured in the same run, on the same machine.
//!
//! What is measured:
//! - `pml analyze FILE --timings` as a whole process (spawn to exit: wall clock, and CPU time from `wait4(2)`;
//!   medians of N runs), on both programs. `--timings` makes pml print one JSON line on stderr with `parse_ms`
//!   (the SWC parse; from 64 KiB on, in two halves on two threads) and `structure_ms` (everything else of
//!   building the structure); the bench reads it after every run.
//! - `pml check FILE --timings` right after, as many runs: its `parse_ms` is the bare SWC parse of the whole
//!   text on one thread, the reference of the structure-cost goal `(parse_ms + structure_ms) / bare parse`.
//! - the peak resident set size of each of those processes, also from `wait4(2)`. The runs are spawned by a
//!   fresh, small helper process (this same binary, `bench --measure`), because Linux carries the spawner's own
//!   high-water mark into a spawned child's `ru_maxrss`.
//! - `node bench/swc-parse.mjs FILE` (`@swc/core` `parseSync`: in-process median, wall and CPU, and Node's peak
//!   RSS), the baseline a JS-hosted builder pays before it walks one node.
//!
//! The goals are judged on wall-clock time (the definition) unless `--cpu` is given; both clocks are
//! always reported. The bench builds nothing unless the release `pml` binary is missing (or `--build` is given);
//! it warns when the binary is older than the sources, and when the machine is busy.

use std::ffi::OsString;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use anyhow::{anyhow, bail, Context as _};
use serde_json::{json, Value};

use crate::gen;

/// Size of the "1x" program, in bytes.
const BASE_BYTES: usize = 360_000;
/// Goal: Node `parseSync` / `pml analyze` whole process, on 1x.
const SPEEDUP_MIN: f64 = 10.0;
/// Goal: `(parse_ms + structure_ms)` of `pml analyze` / the bare parse (`pml check`), on 1x.
const STRUCTURE_RATIO_MAX: f64 = 1.5;
/// Goal: `pml analyze` whole process, 4x / 1x.
const GROWTH_MAX: f64 = 5.0;
/// Goal: peak RSS of `pml analyze` on 4x, in KiB (100 MiB).
const RSS_LIMIT_KB: u64 = 100 * 1024;

const USAGE: &str = "usage: cargo xtask bench [--quick] [--runs N] [--cpu] [--seed S] [--bytes N] \
                     [--pml PATH] [--build] [--skip-node]";

struct Options {
    quick: bool,
    runs: usize,
    /// Judge the time goals on CPU time instead of wall-clock time.
    cpu: bool,
    seed: u64,
    bytes: usize,
    pml: Option<PathBuf>,
    build: bool,
    skip_node: bool,
}

/// `cargo xtask bench ...`; `args` are the words after `bench`.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    if args.first().map(String::as_str) == Some("--measure") {
        return measure_helper(&args[1..]);
    }
    let opts = parse_options(args)?;
    bench(&opts, args.len())
}

fn parse_options(args: &[String]) -> anyhow::Result<Options> {
    let mut opts = Options {
        quick: false,
        runs: 0,
        cpu: false,
        seed: gen::DEFAULT_SEED,
        bytes: BASE_BYTES,
        pml: None,
        build: false,
        skip_node: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .with_context(|| format!("bench: {name} needs a value ({USAGE})"))
        };
        match arg.as_str() {
            "--quick" => opts.quick = true,
            "--cpu" => opts.cpu = true,
            "--build" => opts.build = true,
            "--skip-node" => opts.skip_node = true,
            "--runs" => {
                let v = value("--runs")?;
                opts.runs = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .with_context(|| format!("bench: bad --runs `{v}`"))?;
            }
            "--seed" => {
                let v = value("--seed")?;
                opts.seed = v
                    .parse()
                    .with_context(|| format!("bench: bad --seed `{v}`"))?;
            }
            "--bytes" => {
                let v = value("--bytes")?;
                opts.bytes = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .with_context(|| format!("bench: bad --bytes `{v}`"))?;
            }
            "--pml" => opts.pml = Some(PathBuf::from(value("--pml")?)),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("bench: unknown argument `{other}` ({USAGE})"),
        }
    }
    if opts.runs == 0 {
        opts.runs = if opts.quick { 5 } else { 15 };
    }
    Ok(opts)
}

// ---------------------------------------------------------------------------------------------------------------
// Paths and the pml binary

/// The workspace root: the folder holding `bench/swc-parse.mjs` and `xtask/`.
fn workspace_root() -> anyhow::Result<PathBuf> {
    let is_root = |p: &Path| p.join("bench/swc-parse.mjs").is_file() && p.join("xtask").is_dir();
    if let Some(parent) = Path::new(env!("CARGO_MANIFEST_DIR")).parent() {
        if is_root(parent) {
            return Ok(parent.to_path_buf());
        }
    }
    let cwd = std::env::current_dir()?;
    cwd.ancestors()
        .find(|p| is_root(p))
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            anyhow!(
            "bench: cannot find the workspace root (a folder with bench/swc-parse.mjs) above {}",
            cwd.display()
        )
        })
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn ensure_pml(root: &Path, opts: &Options) -> anyhow::Result<PathBuf> {
    if let Some(p) = &opts.pml {
        anyhow::ensure!(p.is_file(), "bench: --pml {} does not exist", p.display());
        return Ok(p.clone());
    }
    let exe = target_dir(root)
        .join("release")
        .join(format!("pml{}", std::env::consts::EXE_SUFFIX));
    if opts.build || !exe.is_file() {
        eprintln!("bench: cargo build --release -p pml");
        let status = Command::new(cargo())
            .args(["build", "--release", "-p", "pml"])
            .current_dir(root)
            .status()
            .context("bench: cannot run cargo")?;
        anyhow::ensure!(
            status.success(),
            "bench: `cargo build --release -p pml` failed ({status})"
        );
        anyhow::ensure!(
            exe.is_file(),
            "bench: `cargo build --release -p pml` did not produce {}",
            exe.display()
        );
    } else if let Some(newer) = newer_source(root, &exe) {
        eprintln!(
            "bench: warning: {} is older than {}; rerun with --build to bench the current sources",
            exe.display(),
            newer.display()
        );
    }
    Ok(exe)
}

/// A source file under `crates/` (or `Cargo.lock`) modified after `exe`, if any.
fn newer_source(root: &Path, exe: &Path) -> Option<PathBuf> {
    let built = std::fs::metadata(exe).and_then(|m| m.modified()).ok()?;
    let mut stack = vec![root.join("crates")];
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    let mut consider = |path: PathBuf| {
        if let Ok(t) = std::fs::metadata(&path).and_then(|m| m.modified()) {
            if t > built && newest.as_ref().is_none_or(|(n, _)| t > *n) {
                newest = Some((t, path));
            }
        }
    };
    consider(root.join("Cargo.lock"));
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                || path.file_name().is_some_and(|n| n == "Cargo.toml")
            {
                consider(path);
            }
        }
    }
    newest.map(|(_, p)| p)
}

/// The 1-minute load average (Linux only).
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

// ---------------------------------------------------------------------------------------------------------------
// The measuring helper: `bench --measure RUNS -- PROGRAM ARGS...`

/// Runs `PROGRAM ARGS...` RUNS times, stdout to /dev/null, and prints one JSON object:
/// `{"runs": [{"wall_ms", "cpu_ms", "max_rss_kb", "code", "stderr"}...], "helper_peak_rss_kb"}`.
/// `helper_peak_rss_kb` is the floor under every `max_rss_kb` (see the module doc).
fn measure_helper(args: &[String]) -> anyhow::Result<()> {
    let (runs, program, rest) = match args {
        [runs, sep, program, rest @ ..] if sep == "--" => (
            runs.parse::<usize>().context("bench --measure: bad RUNS")?,
            program,
            rest,
        ),
        _ => bail!("usage: bench --measure RUNS -- PROGRAM ARGS..."),
    };
    let mut out = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let mut child = Command::new(program)
            .args(rest)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("bench --measure: cannot run {program}"))?;
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            pipe.read_to_string(&mut stderr)?;
        }
        let usage = wait_with_rusage(child)?;
        let wall_ms = start.elapsed().as_secs_f64() * 1e3;
        out.push(json!({
            "wall_ms": wall_ms,
            "cpu_ms": usage.cpu_ms,
            "max_rss_kb": usage.max_rss_kb,
            "code": usage.code,
            "stderr": stderr,
        }));
    }
    println!(
        "{}",
        json!({ "runs": out, "helper_peak_rss_kb": own_peak_rss_kb() })
    );
    Ok(())
}

/// What `wait4(2)` says about a finished child.
struct ChildUsage {
    /// Exit code; `None` if killed by a signal.
    code: Option<i32>,
    /// User + system CPU time, all threads.
    cpu_ms: Option<f64>,
    /// Peak resident set size, KiB.
    max_rss_kb: Option<u64>,
}

#[cfg(unix)]
fn wait_with_rusage(child: std::process::Child) -> anyhow::Result<ChildUsage> {
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain old data, all-zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own unreaped child; `status` and `usage` are valid for writes. After this the
        // `Child` handle is only dropped, never waited on again.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(anyhow!("bench: wait4({pid}) failed: {err}"));
        }
    }
    drop(child);
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    Ok(ChildUsage {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        cpu_ms: Some(ms(usage.ru_utime) + ms(usage.ru_stime)),
        max_rss_kb: Some(maxrss_kb(usage.ru_maxrss)),
    })
}

#[cfg(not(unix))]
fn wait_with_rusage(mut child: std::process::Child) -> anyhow::Result<ChildUsage> {
    Ok(ChildUsage {
        code: child.wait()?.code(),
        cpu_ms: None,
        max_rss_kb: None,
    })
}

/// The peak RSS of this process's own memory, KiB: the floor under its children's `ru_maxrss`.
///
/// On Linux that is `VmHWM`, not `getrusage(RUSAGE_SELF)`: the latter also carries the high-water mark of the
/// process that spawned this one, which is exactly what the helper is there to leave behind.
#[cfg(unix)]
fn own_peak_rss_kb() -> Option<u64> {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        let hwm = status.lines().find_map(|l| l.strip_prefix("VmHWM:"));
        return hwm.and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
    }
    // SAFETY: as above.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for writes.
    (unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0)
        .then(|| maxrss_kb(usage.ru_maxrss))
}

#[cfg(not(unix))]
fn own_peak_rss_kb() -> Option<u64> {
    None
}

/// `ru_maxrss` is in KiB on Linux and in bytes on macOS.
#[cfg(unix)]
fn maxrss_kb(raw: libc::c_long) -> u64 {
    let raw = raw.max(0) as u64;
    if cfg!(target_os = "macos") {
        raw / 1024
    } else {
        raw
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The bench

struct Program {
    label: &'static str,
    path: PathBuf,
    stats: gen::ProgramStats,
}

/// `pml analyze` on one program: one entry per timed run.
#[derive(Default)]
struct PmlFigures {
    wall_ms: Vec<f64>,
    cpu_ms: Vec<f64>,
    parse_ms: Vec<f64>,
    structure_ms: Vec<f64>,
    total_ms: Vec<f64>,
    /// `parse_ms` of `pml check --timings`: the bare, one-thread SWC parse of the whole text.
    bare_parse_ms: Vec<f64>,
    /// `(parse_ms + structure_ms) / median(bare_parse_ms)`, per `pml analyze` run.
    structure_ratio: Vec<f64>,
    max_rss_kb: Vec<u64>,
    helper_peak_rss_kb: Option<u64>,
    /// From the checked run: size of the JSON on stdout, nodes, MCP task nodes.
    output_bytes: usize,
    nodes: Option<usize>,
    mcp_tasks: Option<usize>,
}

impl PmlFigures {
    /// Add the runs of another round on the same program.
    fn absorb(&mut self, round: PmlFigures) {
        self.wall_ms.extend(round.wall_ms);
        self.cpu_ms.extend(round.cpu_ms);
        self.parse_ms.extend(round.parse_ms);
        self.structure_ms.extend(round.structure_ms);
        self.total_ms.extend(round.total_ms);
        self.bare_parse_ms.extend(round.bare_parse_ms);
        self.max_rss_kb.extend(round.max_rss_kb);
        self.helper_peak_rss_kb = self.helper_peak_rss_kb.max(round.helper_peak_rss_kb);
        self.output_bytes = round.output_bytes;
        self.nodes = round.nodes;
        self.mcp_tasks = round.mcp_tasks;
    }

    /// Once every round is in: the structure cost of each run against the median bare parse.
    fn finish(&mut self) {
        let bare_parse = median(&self.bare_parse_ms);
        self.structure_ratio = self
            .parse_ms
            .iter()
            .zip(&self.structure_ms)
            .map(|(p, s)| (p + s) / bare_parse)
            .collect();
    }
}

/// `node bench/swc-parse.mjs` on one program.
struct NodeFigures {
    wall_ms: Option<f64>,
    cpu_ms: Option<f64>,
    max_rss_kb: Option<u64>,
    raw: Value,
}

/// Wall-clock or CPU time: the two readings of every time figure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clock {
    Wall,
    Cpu,
}

impl Clock {
    fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::Cpu => "CPU",
        }
    }

    fn pml(self, f: &PmlFigures) -> f64 {
        median(match self {
            Clock::Wall => &f.wall_ms,
            Clock::Cpu => &f.cpu_ms,
        })
    }

    fn node(self, f: Option<&NodeFigures>) -> Option<f64> {
        f.and_then(|f| match self {
            Clock::Wall => f.wall_ms,
            Clock::Cpu => f.cpu_ms,
        })
    }
}

fn bench(opts: &Options, own_args: usize) -> anyhow::Result<()> {
    let root = workspace_root()?;
    let out_dir = target_dir(&root).join("bench");
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("bench: cannot create {}", out_dir.display()))?;
    let load_before = load_average();

    // 1. The programs.
    let mut programs = Vec::new();
    for (label, factor) in [("1x", 1), ("4x", 4)] {
        let text = gen::generate(opts.bytes * factor, opts.seed);
        let path = out_dir.join(format!("agent-{label}.ts"));
        std::fs::write(&path, &text)
            .with_context(|| format!("bench: cannot write {}", path.display()))?;
        programs.push(Program {
            label,
            path,
            stats: gen::stats(&text),
        });
    }

    // 2. pml analyze, whole process.
    let pml = ensure_pml(&root, opts)?;
    let warmup = if opts.quick { 1 } else { 2 };
    // In rounds over both programs (each round: analyze, then its reference `pml check`), so
    // that a change of load on the machine during the bench shifts every figure alike instead
    // of landing in one program's or one command's runs.
    let rounds = opts.runs.clamp(1, 5);
    let mut pml_figures: Vec<PmlFigures> = programs.iter().map(|_| PmlFigures::default()).collect();
    for round in 0..rounds {
        let count = opts.runs / rounds + usize::from(round < opts.runs % rounds);
        let warm = if round == 0 { warmup } else { 0 };
        for (p, f) in programs.iter().zip(&mut pml_figures) {
            eprintln!(
                "bench: pml analyze + pml check {} (round {}/{rounds}, {count} runs)",
                p.path.display(),
                round + 1
            );
            f.absorb(measure_pml(&pml, &p.path, warm, count, own_args)?);
        }
    }
    for f in &mut pml_figures {
        f.finish();
    }

    // 3. Node + @swc/core parseSync.
    let mut node_figures: Vec<Option<NodeFigures>> = vec![None, None];
    if !opts.skip_node {
        ensure_node_modules(&root)?;
        let iterations = if opts.quick { [5, 3] } else { [20, 8] };
        for (i, p) in programs.iter().enumerate() {
            eprintln!(
                "bench: node bench/swc-parse.mjs {} {}",
                p.path.display(),
                iterations[i]
            );
            node_figures[i] = Some(run_node(&root, &p.path, iterations[i])?);
        }
    }
    let load_after = load_average();

    // 4. Goals.
    let clock = if opts.cpu { Clock::Cpu } else { Clock::Wall };
    let [one, four] = [&pml_figures[0], &pml_figures[1]];
    let speedup = |c: Clock, i: usize| {
        c.node(node_figures[i].as_ref())
            .map(|n| n / c.pml(&pml_figures[i]))
    };
    let growth = |c: Clock| c.pml(four) / c.pml(one);
    let goals = vec![
        Goal {
            name: format!(
                "speed: node @swc/core parseSync / pml analyze whole process, 1x, {}",
                clock.name()
            ),
            value: speedup(clock, 0),
            limit: SPEEDUP_MIN,
            at_least: true,
            unit: "x",
        },
        Goal {
            name: "structure cost: (parse_ms + structure_ms) / bare parse, 1x".into(),
            value: Some(median(&one.structure_ratio)),
            limit: STRUCTURE_RATIO_MAX,
            at_least: false,
            unit: "x",
        },
        Goal {
            name: format!(
                "scaling: pml analyze whole process 4x / 1x, {}",
                clock.name()
            ),
            value: Some(growth(clock)),
            limit: GROWTH_MAX,
            at_least: false,
            unit: "x",
        },
        Goal {
            name: "memory: pml analyze peak RSS, 4x".into(),
            value: peak(&four.max_rss_kb).map(|kb| kb as f64 / 1024.0),
            limit: RSS_LIMIT_KB as f64 / 1024.0,
            at_least: false,
            unit: " MiB",
        },
    ];

    // 5. Table and report.
    print_table(&programs, &pml, opts, &pml_figures, &node_figures, &goals);
    let busy = [load_before, load_after]
        .into_iter()
        .flatten()
        .fold(None, |m: Option<f64>, l| Some(m.map_or(l, |m| m.max(l))))
        .filter(|l| *l > cpus() as f64 * 0.75);
    if let Some(load) = busy {
        println!(
            "\nwarning: load average {load:.1} on {} cpus: wall-clock figures are inflated and noisy{}",
            cpus(),
            if opts.cpu { "" } else { "; --cpu judges the time goals on CPU time" }
        );
    }

    let pml_json = |f: &PmlFigures| {
        json!({
            "wall_ms": summary(&f.wall_ms),
            "cpu_ms": summary(&f.cpu_ms),
            "parse_ms": summary(&f.parse_ms),
            "structure_ms": summary(&f.structure_ms),
            "bare_parse_ms": summary(&f.bare_parse_ms),
            "total_ms": summary(&f.total_ms),
            "structure_ratio": summary(&f.structure_ratio),
            "max_rss_kb": {
                "peak": peak(&f.max_rss_kb),
                "median": median_u64(&f.max_rss_kb),
                "all": f.max_rss_kb,
            },
            "helper_peak_rss_kb": f.helper_peak_rss_kb,
            "output_bytes": f.output_bytes,
            "nodes": f.nodes,
            "mcp_tasks": f.mcp_tasks,
        })
    };
    let program_json = |p: &Program| {
        json!({
            "file": p.path.display().to_string(),
            "bytes": p.stats.bytes,
            "lines": p.stats.lines,
            "mcp_calls": p.stats.mcp_calls,
        })
    };
    let node_json = |i: usize| node_figures[i].as_ref().map(|f| f.raw.clone());
    let ratios = |c: Clock| {
        json!({
            "node_over_pml_1x": speedup(c, 0),
            "node_over_pml_4x": speedup(c, 1),
            "pml_growth_4x_over_1x": growth(c),
            "node_growth_4x_over_1x": c.node(node_figures[1].as_ref())
                .zip(c.node(node_figures[0].as_ref()))
                .map(|(b, a)| b / a),
        })
    };
    let report = json!({
        "seed": opts.seed,
        "quick": opts.quick,
        "runs": opts.runs,
        "warmup": warmup,
        "goal_clock": clock.name(),
        "cpus": cpus(),
        "load_average": { "before": load_before, "after": load_after },
        "os": std::env::consts::OS,
        "pml": pml.display().to_string(),
        "programs": { "1x": program_json(&programs[0]), "4x": program_json(&programs[1]) },
        "pml_analyze": { "1x": pml_json(one), "4x": pml_json(four) },
        "node_swc_parse": { "1x": node_json(0), "4x": node_json(1) },
        "ratios": {
            "wall": ratios(Clock::Wall),
            "cpu": ratios(Clock::Cpu),
            "structure_ratio_1x": median(&one.structure_ratio),
            "structure_ratio_4x": median(&four.structure_ratio),
            "parse_growth_4x_over_1x": median(&four.parse_ms) / median(&one.parse_ms),
            "structure_growth_4x_over_1x": median(&four.structure_ms) / median(&one.structure_ms),
        },
        "goals": goals.iter().map(Goal::to_json).collect::<Vec<_>>(),
    });
    let report_path = out_dir.join("report.json");
    std::fs::write(&report_path, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("bench: cannot write {}", report_path.display()))?;
    println!("\nreport: {}", report_path.display());

    let missed: Vec<&str> = goals
        .iter()
        .filter(|g| g.met() == Some(false))
        .map(|g| g.name.as_str())
        .collect();
    let unmeasured: Vec<&str> = goals
        .iter()
        .filter(|g| g.met().is_none())
        .map(|g| g.name.as_str())
        .collect();
    if !missed.is_empty() {
        bail!("bench: goal(s) missed: {}", missed.join("; "));
    }
    if !unmeasured.is_empty() && !opts.skip_node {
        bail!("bench: goal(s) not measured: {}", unmeasured.join("; "));
    }
    Ok(())
}

/// Checks one `pml analyze` run for correctness, then measures `warmup + runs` runs through the helper.
fn measure_pml(
    pml: &Path,
    file: &Path,
    warmup: usize,
    runs: usize,
    own_args: usize,
) -> anyhow::Result<PmlFigures> {
    // A run whose output we keep: pml must succeed and print JSON.
    let out = Command::new(pml)
        .arg("analyze")
        .arg(file)
        .arg("--timings")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("bench: cannot run {}", pml.display()))?;
    if !out.status.success() {
        bail!(
            "bench: `{} analyze {}` failed ({}): {}",
            pml.display(),
            file.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let structure: Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "bench: `pml analyze {}` did not print one JSON value on stdout",
            file.display()
        )
    })?;
    timings(&String::from_utf8_lossy(&out.stderr))
        .with_context(|| format!("bench: pml analyze {}", file.display()))?;
    let nodes = structure["nodes"].as_array();

    // The helper re-runs this binary with the same argv prefix (e.g. `xtask bench`), then `--measure ...`.
    let argv: Vec<OsString> = std::env::args_os().collect();
    let prefix = &argv[1..argv.len().saturating_sub(own_args).max(1)];
    let exe = std::env::current_exe().context("bench: cannot find the xtask executable")?;
    // `count` timed runs of `pml COMMAND FILE --timings` after `warmup` untimed ones.
    let measure =
        |command: &str, warmup: usize, count: usize| -> anyhow::Result<(Vec<Value>, Value)> {
            let helper = Command::new(&exe)
                .args(prefix)
                .arg("--measure")
                .arg((warmup + count).to_string())
                .arg("--")
                .arg(pml)
                .arg(command)
                .arg(file)
                .arg("--timings")
                .stderr(Stdio::inherit())
                .output()
                .context("bench: cannot run the measuring helper")?;
            anyhow::ensure!(
                helper.status.success(),
                "bench: the measuring helper failed ({})",
                helper.status
            );
            let v: Value = serde_json::from_slice(&helper.stdout)
                .context("bench: bad output from the measuring helper")?;
            let runs = v["runs"]
                .as_array()
                .into_iter()
                .flatten()
                .skip(warmup)
                .cloned()
                .collect();
            Ok((runs, v["helper_peak_rss_kb"].clone()))
        };
    let (analyze_runs, helper_rss) = measure("analyze", warmup, runs)?;
    // Its reference, right after: the bare parse of the same text on one thread.
    let (bare_runs, _) = measure("check", warmup, runs)?;

    let mut f = PmlFigures {
        helper_peak_rss_kb: helper_rss.as_u64(),
        output_bytes: out.stdout.len(),
        nodes: nodes.map(Vec::len),
        mcp_tasks: nodes.map(|ns| {
            ns.iter()
                .filter(|n| n["type"] == "task")
                .filter(|n| n["tool"].as_str().is_some_and(|t| !t.starts_with("code:")))
                .count()
        }),
        ..PmlFigures::default()
    };
    for r in &analyze_runs {
        let stderr = r["stderr"].as_str().unwrap_or_default();
        if r["code"].as_i64() != Some(0) {
            bail!(
                "bench: `pml analyze {}` failed during the timed runs: {}",
                file.display(),
                stderr.trim()
            );
        }
        let t = timings(stderr)?;
        f.wall_ms.push(r["wall_ms"].as_f64().unwrap_or(f64::NAN));
        f.cpu_ms.push(r["cpu_ms"].as_f64().unwrap_or(f64::NAN));
        f.parse_ms.push(t.parse_ms);
        f.structure_ms.push(t.structure_ms);
        f.total_ms
            .push(t.total_ms.unwrap_or(t.parse_ms + t.structure_ms));
        if let Some(kb) = r["max_rss_kb"].as_u64() {
            f.max_rss_kb.push(kb);
        }
    }
    for r in &bare_runs {
        let stderr = r["stderr"].as_str().unwrap_or_default();
        if r["code"].as_i64() != Some(0) {
            bail!(
                "bench: `pml check {}` failed during the timed runs: {}",
                file.display(),
                stderr.trim()
            );
        }
        f.bare_parse_ms.push(parse_timing(stderr)?);
    }
    anyhow::ensure!(
        f.wall_ms.len() == runs,
        "bench: the measuring helper returned {} runs, expected {runs}",
        f.wall_ms.len()
    );
    Ok(f)
}

struct Timings {
    parse_ms: f64,
    structure_ms: f64,
    total_ms: Option<f64>,
}

/// The last JSON line on pml's stderr that has `parse_ms` and `structure_ms` (at the top or under `timings`).
fn timings(stderr: &str) -> anyhow::Result<Timings> {
    for line in stderr.lines().rev() {
        let Ok(mut v) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        if v.get("timings").is_some_and(Value::is_object) {
            v = v["timings"].take();
        }
        if let (Some(parse_ms), Some(structure_ms)) =
            (v["parse_ms"].as_f64(), v["structure_ms"].as_f64())
        {
            return Ok(Timings {
                parse_ms,
                structure_ms,
                total_ms: v["total_ms"].as_f64(),
            });
        }
    }
    bail!(
        "`pml analyze --timings` printed no JSON line with `parse_ms` and `structure_ms` on stderr \
         (got: {:?})",
        stderr.chars().take(300).collect::<String>()
    )
}

/// `parse_ms` from the last JSON line of `pml check --timings` on stderr.
fn parse_timing(stderr: &str) -> anyhow::Result<f64> {
    stderr
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
        .find_map(|v| v["parse_ms"].as_f64())
        .ok_or_else(|| {
            anyhow!(
                "`pml check --timings` printed no JSON line with `parse_ms` on stderr (got: {:?})",
                stderr.chars().take(300).collect::<String>()
            )
        })
}

fn ensure_node_modules(root: &Path) -> anyhow::Result<()> {
    if root
        .join("bench/node_modules/@swc/core/package.json")
        .is_file()
    {
        return Ok(());
    }
    eprintln!("bench: npm ci --prefix bench");
    let status = Command::new("npm")
        .args(["ci", "--prefix", "bench", "--no-audit", "--no-fund"])
        .current_dir(root)
        .status()
        .context(
            "bench: cannot run npm (Node.js and npm are needed for the baseline; or pass --skip-node)",
        )?;
    anyhow::ensure!(
        status.success(),
        "bench: `npm ci --prefix bench` failed ({status})"
    );
    Ok(())
}

fn run_node(root: &Path, file: &Path, iterations: usize) -> anyhow::Result<NodeFigures> {
    let out = Command::new("node")
        .arg(root.join("bench/swc-parse.mjs"))
        .arg(file)
        .arg(iterations.to_string())
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .context("bench: cannot run node (or pass --skip-node)")?;
    if !out.status.success() {
        bail!(
            "bench: `node bench/swc-parse.mjs {}` failed ({}): {}",
            file.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let raw: Value = serde_json::from_slice(&out.stdout)
        .context("bench: bad output from bench/swc-parse.mjs")?;
    Ok(NodeFigures {
        wall_ms: raw["median_ms"].as_f64(),
        cpu_ms: raw["median_cpu_ms"].as_f64(),
        max_rss_kb: raw["max_rss_kb"].as_u64(),
        raw,
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Goals, statistics, printing

struct Goal {
    name: String,
    value: Option<f64>,
    limit: f64,
    at_least: bool,
    unit: &'static str,
}

impl Goal {
    fn met(&self) -> Option<bool> {
        let v = self.value.filter(|v| v.is_finite())?;
        Some(if self.at_least {
            v >= self.limit
        } else {
            v <= self.limit
        })
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "value": self.value,
            "limit": self.limit,
            "op": if self.at_least { ">=" } else { "<=" },
            "met": self.met(),
        })
    }
}

fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn median_u64(xs: &[u64]) -> Option<u64> {
    let mut v = xs.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

fn peak(xs: &[u64]) -> Option<u64> {
    xs.iter().copied().max()
}

fn summary(xs: &[f64]) -> Value {
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    json!({ "median": median(xs), "min": min, "max": max, "all": xs })
}

fn fmt_ms(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.1} ms"),
        _ => "-".into(),
    }
}

fn fmt_ratio(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.2}x"),
        _ => "-".into(),
    }
}

fn fmt_mib(kb: Option<u64>) -> String {
    kb.map_or("-".into(), |kb| format!("{:.1} MiB", kb as f64 / 1024.0))
}

fn print_table(
    programs: &[Program],
    pml: &Path,
    opts: &Options,
    pml_figures: &[PmlFigures],
    node_figures: &[Option<NodeFigures>],
    goals: &[Goal],
) {
    println!(
        "\npml bench: {} (seed {}, median of {} runs{}, {} cpus)\n",
        pml.display(),
        opts.seed,
        opts.runs,
        if opts.quick { ", --quick" } else { "" },
        cpus()
    );
    println!(
        "{:<8} {:>12} {:>8} {:>10} {:>10}",
        "program", "bytes", "lines", "MCP calls", "MCP tasks"
    );
    for (p, f) in programs.iter().zip(pml_figures) {
        let tasks = f.mcp_tasks.map_or("-".into(), |n| n.to_string());
        println!(
            "{:<8} {:>12} {:>8} {:>10} {:>10}",
            p.label, p.stats.bytes, p.stats.lines, p.stats.mcp_calls, tasks
        );
    }

    let both = |get: &dyn Fn(usize) -> Option<f64>| [get(0), get(1)];
    let growth = |v: [Option<f64>; 2]| fmt_ratio(v[0].zip(v[1]).map(|(a, b)| b / a));
    let row = |name: &str, a: String, b: String, g: String| {
        println!("{name:<44} {a:>12} {b:>12} {g:>10}")
    };
    let ms_row = |name: &str, v: [Option<f64>; 2]| row(name, fmt_ms(v[0]), fmt_ms(v[1]), growth(v));
    let of = |get: fn(&PmlFigures) -> &Vec<f64>| both(&|i| Some(median(get(&pml_figures[i]))));

    println!("\n{:<44} {:>12} {:>12} {:>10}", "", "1x", "4x", "4x/1x");
    for clock in [Clock::Wall, Clock::Cpu] {
        let v = both(&|i| Some(clock.pml(&pml_figures[i])));
        ms_row(&format!("pml analyze, whole process, {}", clock.name()), v);
    }
    ms_row(
        "  parse_ms (SWC parse inside pml analyze)",
        of(|f| &f.parse_ms),
    );
    ms_row(
        "  structure_ms (structure from the AST)",
        of(|f| &f.structure_ms),
    );
    ms_row(
        "bare parse (pml check: one thread)",
        of(|f| &f.bare_parse_ms),
    );
    let ratio = of(|f| &f.structure_ratio);
    row(
        "  (parse + structure) / bare parse",
        fmt_ratio(ratio[0]),
        fmt_ratio(ratio[1]),
        String::new(),
    );
    let rss = [
        peak(&pml_figures[0].max_rss_kb),
        peak(&pml_figures[1].max_rss_kb),
    ];
    row(
        "  peak RSS",
        fmt_mib(rss[0]),
        fmt_mib(rss[1]),
        growth([rss[0].map(|k| k as f64), rss[1].map(|k| k as f64)]),
    );
    for clock in [Clock::Wall, Clock::Cpu] {
        let v = both(&|i| clock.node(node_figures[i].as_ref()));
        ms_row(&format!("node @swc/core parseSync, {}", clock.name()), v);
    }
    let node_rss = both(&|i| {
        node_figures[i]
            .as_ref()
            .and_then(|f| f.max_rss_kb)
            .map(|k| k as f64)
    });
    row(
        "  node peak RSS",
        fmt_mib(node_rss[0].map(|k| k as u64)),
        fmt_mib(node_rss[1].map(|k| k as u64)),
        String::new(),
    );
    for clock in [Clock::Wall, Clock::Cpu] {
        let v = both(&|i| {
            clock
                .node(node_figures[i].as_ref())
                .map(|n| n / clock.pml(&pml_figures[i]))
        });
        let name = format!("node parseSync / pml analyze, {}", clock.name());
        row(&name, fmt_ratio(v[0]), fmt_ratio(v[1]), String::new());
    }

    println!("\ngoals");
    for g in goals {
        let mark = match g.met() {
            Some(true) => "ok  ",
            Some(false) => "MISS",
            None => "n/a ",
        };
        let value = g
            .value
            .filter(|v| v.is_finite())
            .map_or("-".into(), |v| format!("{v:.2}{}", g.unit));
        let op = if g.at_least { ">=" } else { "<=" };
        println!(
            "  [{mark}] {:<68} {value:>11}  (goal {op} {}{})",
            g.name, g.limit, g.unit
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_line() {
        let t =
            timings("warning: x\n{\"parse_ms\": 4.5, \"structure_ms\": 1.5, \"total_ms\": 7}\n")
                .unwrap();
        assert_eq!(
            (t.parse_ms, t.structure_ms, t.total_ms),
            (4.5, 1.5, Some(7.0))
        );
        assert!(timings("{\"parse_ms\": 1}").is_err());
        let t = timings("{\"timings\": {\"parse_ms\": 2, \"structure_ms\": 1}}").unwrap();
        assert_eq!((t.parse_ms, t.structure_ms, t.total_ms), (2.0, 1.0, None));
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn goals() {
        let goal = |value, limit, at_least| Goal {
            name: String::new(),
            value,
            limit,
            at_least,
            unit: "x",
        };
        assert_eq!(goal(Some(10.0), 10.0, true).met(), Some(true));
        assert_eq!(goal(Some(1.6), 1.5, false).met(), Some(false));
        assert_eq!(goal(None, 1.5, false).met(), None);
        assert_eq!(goal(Some(f64::NAN), 1.5, false).met(), None);
    }
}
