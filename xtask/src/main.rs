//! Project automation: `cargo xtask <task>`.
//!
//! - `run-pipeline FILE|DIR [--check | --bless]`: run every pipeline stage on a program and print
//!   each stage's output, or check/rewrite the golden files of a fixture tree.
//! - `bench [--quick]`: the structure-builder benchmark (see `docs/benchmarks.md`).
//! - `bench-dag [--quick]`: code tasks logical -> physical, DAG/optimizer time per task.
//! - `bench-run [--quick] [--rounds N]`: the one execution path: speculation against the real
//!   `everything` server, instrumentation overhead, per-call overhead.
//! - `bench-store [--quick]`: the capability store: save throughput (SQLite, and PostgreSQL
//!   under `scripts/with-postgres.sh`), the cost of recording a run.
//! - `bench-serve [--quick]`: `pml serve`: an echo through `execute` against the server
//!   straight, `execute` against `pml run`, many agents over HTTP, the gateway's memory.
//! - `gen --bytes N [--seed S] [--out FILE]`: generate a synthetic agent program.

use std::process::ExitCode;

mod bench;
mod bench_dag;
mod bench_run;
mod bench_serve;
mod bench_store;
mod gen;
mod layout;
mod pipeline;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        eprintln!("usage: cargo xtask <run-pipeline|bench|gen> ...");
        return ExitCode::from(2);
    };
    let result = match task.as_str() {
        "run-pipeline" => pipeline::run(rest),
        "bench" => bench::run(rest).map(|()| ExitCode::SUCCESS),
        "bench-dag" => bench_dag::run(rest).map(|()| ExitCode::SUCCESS),
        "bench-run" => bench_run::run(rest).map(|()| ExitCode::SUCCESS),
        "bench-store" => bench_store::run(rest).map(|()| ExitCode::SUCCESS),
        "bench-serve" => bench_serve::run(rest).map(|()| ExitCode::SUCCESS),
        "gen" => gen::run(rest).map(|()| ExitCode::SUCCESS),
        other => Err(anyhow::anyhow!(
            "unknown task `{other}` (expected run-pipeline, bench or gen)"
        )),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::from(2)
        }
    }
}
