//! `cargo xtask bench-dag`: what fusion saves and what the DAG stages cost.
//!
//! For every fixture and for a generated ~360 KB program: code tasks in the logical DAG vs code
//! tasks in the physical DAG (each one is a sandbox invocation at run time), and the median
//! time of `to_dag` and `optimize` per logical task. Run it with `--release` numbers in mind:
//! `cargo xtask` builds xtask in the dev profile with optimised dependencies.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;

struct Row {
    name: String,
    logical_code: usize,
    physical_code: usize,
    logical_tasks: usize,
    dag_us: f64,
    optimize_us: f64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn measure(name: String, code: &str, runs: usize) -> Option<Row> {
    let s = pml::analyze(code, &Default::default()).structure;
    if s.has_errors() {
        return None;
    }
    let mut dag_times = Vec::new();
    let mut opt_times = Vec::new();
    let mut logical = pml::to_dag(&s, &Default::default());
    let mut physical = pml::optimize(&logical, &Default::default()).physical;
    for _ in 0..runs {
        let t = Instant::now();
        logical = pml::to_dag(&s, &Default::default());
        dag_times.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        physical = pml::optimize(&logical, &Default::default()).physical;
        opt_times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let code_tasks = |d: &pml::Dag| {
        d.tasks
            .iter()
            .filter(|t| t.kind == pml_dag::TaskType::CodeExecution)
            .count()
    };
    Some(Row {
        name,
        logical_code: code_tasks(&logical),
        physical_code: code_tasks(&physical),
        logical_tasks: logical.tasks.len(),
        dag_us: median(dag_times),
        optimize_us: median(opt_times),
    })
}

pub fn run(args: &[String]) -> Result<()> {
    let quick = args.iter().any(|a| a == "--quick");
    let runs = if quick { 3 } else { 15 };
    let mut rows = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    for fx in crate::pipeline::discover(&root)? {
        let code = pml::read_source(&fx.input)?;
        let name = fx
            .dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        rows.extend(measure(name, &code, runs));
    }
    let fixtures: Vec<&Row> = rows.iter().collect();
    let sum = |f: fn(&Row) -> usize| fixtures.iter().map(|r| f(r)).sum::<usize>();
    let (fl, fp) = (sum(|r| r.logical_code), sum(|r| r.physical_code));
    let generated = crate::gen::generate(360 * 1024, crate::gen::DEFAULT_SEED);
    let big = measure("generated-360KB".into(), &generated, runs.min(5))
        .ok_or_else(|| anyhow::anyhow!("the generated program does not parse"))?;
    println!(
        "{:<34} {:>8} {:>9} {:>7} {:>12} {:>12}",
        "program", "code(L)", "code(P)", "tasks", "to_dag us", "optimize us"
    );
    for r in rows.iter().filter(|r| r.logical_code != r.physical_code) {
        println!(
            "{:<34} {:>8} {:>9} {:>7} {:>12.1} {:>12.1}",
            r.name, r.logical_code, r.physical_code, r.logical_tasks, r.dag_us, r.optimize_us
        );
    }
    println!(
        "{:<34} {:>8} {:>9} {:>7} {:>12.1} {:>12.1}",
        big.name,
        big.logical_code,
        big.physical_code,
        big.logical_tasks,
        big.dag_us,
        big.optimize_us
    );
    println!(
        "fixtures ({} programs): {fl} code tasks -> {fp} sandbox invocations ({:.0}% saved)",
        fixtures.len(),
        100.0 * (fl - fp) as f64 / fl.max(1) as f64
    );
    println!(
        "generated: {} -> {} code tasks ({:.0}% saved); to_dag {:.2} us/task, optimize {:.2} us/task",
        big.logical_code,
        big.physical_code,
        100.0 * (big.logical_code - big.physical_code) as f64 / big.logical_code.max(1) as f64,
        big.dag_us / big.logical_tasks.max(1) as f64,
        big.optimize_us / big.logical_tasks.max(1) as f64
    );
    Ok(())
}
