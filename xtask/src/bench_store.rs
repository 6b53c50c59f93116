//! `cargo xtask bench-store [--quick]`: the capability store, measured.
//!
//! 1. Save throughput: capabilities per second saved one after another into one open store
//!    (each its own write transaction), records computed once from `examples/etl-files.ts`
//!    with distinct hashes and names. SQLite always; PostgreSQL when `PML_TEST_POSTGRES_URL`
//!    names a server (`scripts/with-postgres.sh cargo xtask bench-store`).
//! 2. The cost of recording a run, as `pml run` pays it: real runs of a program making 20
//!    calls of the reference `memory` server, recorded, and their `storeMs`: how long the run
//!    waited for the store (opening it, hashing the program and writing its start beyond the
//!    servers' start, which they overlap; the journal writes its calls waited for; writing the
//!    run and closing the store, which checkpoints SQLite's write-ahead log, beyond the
//!    servers' stop). Goal: <= 5 ms (median). Beside it, the medians of the whole recorded and
//!    unrecorded runs, alternating (their difference is blurred by the servers' start).
//!
//!    Then durable journal writes: the ms a call that is not read-only waits for the journal
//!    (median over runs of 10 idempotent writes of the filesystem server, each followed by a
//!    read). Goal on SQLite: <= 2 ms per call.
//!
//! 3. Resume overhead: the same run resumed from its whole journal (every call answered from
//!    it) against the run made live without a store.
//!
//! 4. Learning: `pml learn` over 10,000 stored runs (the 20-call run's record), from opening
//!    the store to the learned graph. Goal: under a second.
//!
//! Figures are medians; they go to stdout and `target/bench/bench-store.json`. Build in
//! release mode: `cargo run --release -p xtask -- bench-store`.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use pml::run::{run_file, RunOptions};
use pml_store::{NewCapability, Store};
use serde_json::json;

const TWENTY_CALLS: &str = r#"// 20 calls of the memory server: 10 writes, 10 reads.
const made = [];
for (let i = 0; i < 10; i++) {
  await mcp.memory.create_entities({ entities: [{ name: `e${i}`, entityType: "bench", observations: [`n${i}`] }] });
  const found = await mcp.memory.open_nodes({ names: [`e${i}`] });
  made.push(found.entities.length);
}
return made;
"#;

/// 10 idempotent writes of the filesystem server, each followed by a read of what it wrote.
const TEN_WRITES: &str = r#"const seen = [];
for (let i = 0; i < 10; i++) {
  await mcp.filesystem.write_file({ path: `${args.dir}/f${i}.txt`, content: `${i} ${seen.length}` });
  const back = await mcp.filesystem.read_text_file({ path: `${args.dir}/f${i}.txt` });
  seen.push(back.content);
}
return seen;
"#;

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

pub fn run(args: &[String]) -> Result<()> {
    let quick = match args {
        [] => false,
        [q] if q == "--quick" => true,
        other => anyhow::bail!("bench-store: unknown arguments {other:?}"),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("the workspace root")?
        .to_path_buf();
    let out_dir = root.join("target").join("bench");
    std::fs::create_dir_all(&out_dir)?;
    let scratch = out_dir.join("bench-store");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let saves = if quick { 200 } else { 1000 };
    let records = if quick { 21 } else { 101 };

    // 1. Save throughput.
    let example = root.join("examples").join("etl-files.ts");
    let code = std::fs::read_to_string(&example)?;
    let options = pml::AnalyzeOptions::default();
    let base = pml::capability::prepare(&code, &options, "etl", None)
        .map_err(|d| anyhow::anyhow!("{example:?} has errors: {d:?}"))?;
    let mut throughput = serde_json::Map::new();
    let mut locations = vec![("sqlite", scratch.join("save.sqlite").display().to_string())];
    match std::env::var("PML_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => locations.push(("postgres", url)),
        _ => {
            println!("save throughput, postgres: not measured (run under scripts/with-postgres.sh)")
        }
    }
    for (backend, location) in locations {
        let per_second = rt.block_on(async {
            let store = Store::open(&location).await?;
            let run = format!("{:x}", std::process::id());
            let started = Instant::now();
            for i in 0..saves {
                let new = NewCapability {
                    code_hash: format!("{}{run}{i:08x}", &base.code_hash[..40]),
                    name: format!("etl_{run}_{i}"),
                    ..base.clone()
                };
                store.save_capability(&new, false).await?;
            }
            let seconds = started.elapsed().as_secs_f64();
            store.close().await;
            Ok::<_, anyhow::Error>(saves as f64 / seconds)
        })?;
        println!("save throughput, {backend}: {per_second:.0} capabilities/s ({saves} saves)");
        throughput.insert(backend.into(), json!(per_second));
    }

    // 2. Recording a run: what a recorded run adds to an unrecorded one, store operation by
    // store operation, with the real journal of a real run.
    let program = scratch.join("twenty-calls.ts");
    std::fs::write(&program, TWENTY_CALLS)?;
    let location = scratch.join("runs.sqlite").display().to_string();
    // The memory server with its file in the bench's folder (resuming reuses what it holds).
    let server = pml::servers::mcp_servers_dir()
        .join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    let config = scratch.join("mcp.json");
    let memory = scratch.join("memory.jsonl");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "memory": { "command": "node", "args": [server],
            "env": { "MEMORY_FILE_PATH": memory } } } })
        .to_string(),
    )?;
    let base = RunOptions {
        mcp_config: Some(config),
        ..RunOptions::default()
    };
    let options = RunOptions {
        store: Some(location.clone()),
        ..base.clone()
    };
    let output = rt
        .block_on(run_file(&program, &options))
        .context("the 20-call run")?;
    anyhow::ensure!(
        output.report.ok,
        "the 20-call run failed: {:?}",
        output.report.error
    );
    let first = output.run_id.clone().context("the run was not recorded")?;
    let calls = rt
        .block_on(async {
            let store = Store::open(&location).await?;
            let journal = store.journal(&first).await?;
            store.close().await;
            Ok::<_, anyhow::Error>(journal)
        })?
        .len();
    // Recorded runs and runs with `--no-store`, alternating: what the recorded runs waited
    // for the store (their `storeMs`: the goal), and the difference of the whole runs' wall
    // clock (a check of it, blurred by the servers' start).
    let mut waited = Vec::new();
    let (mut recorded_ms, mut unrecorded_ms) = (Vec::new(), Vec::new());
    for _ in 0..records {
        let started = Instant::now();
        let out = rt.block_on(run_file(&program, &options))?;
        anyhow::ensure!(
            out.report.ok && out.run_id.is_some(),
            "a recorded run failed"
        );
        recorded_ms.push(started.elapsed().as_secs_f64() * 1e3);
        waited.push(out.stages.store_ms.context("no storeMs")?);
        let started = Instant::now();
        let out = rt.block_on(run_file(&program, &base))?;
        anyhow::ensure!(out.report.ok, "an unrecorded run failed");
        unrecorded_ms.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let total = median(&mut waited);
    let (recorded_ms, unrecorded_ms) = (median(&mut recorded_ms), median(&mut unrecorded_ms));
    println!(
        "recording a run of {calls} calls: the run waited {total:.2} ms for the store (median of {records}) - goal <= 5 ms: {}",
        if total <= 5.0 { "met" } else { "MISSED" }
    );
    println!(
        "  whole runs: recorded {recorded_ms:.1} ms, unrecorded {unrecorded_ms:.1} ms (medians; the servers' start included)"
    );
    // 2b. Durable writes: what the journal makes each call that is not read-only wait for
    // (everything journaled before it and its start committed before it goes out, its end
    // before the program sees it), with idempotent writes of the filesystem server between
    // reads, on SQLite and (under `scripts/with-postgres.sh`) PostgreSQL.
    let files = scratch.join("files");
    std::fs::create_dir_all(&files)?;
    let writes_program = scratch.join("ten-writes.ts");
    std::fs::write(&writes_program, TEN_WRITES)?;
    let fs_server = pml::servers::mcp_servers_dir()
        .join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let fs_config = scratch.join("fs.json");
    std::fs::write(
        &fs_config,
        json!({ "mcpServers": { "filesystem": { "command": "node",
            "args": [fs_server, files.canonicalize()?] } } })
        .to_string(),
    )?;
    let mut durable = serde_json::Map::new();
    let mut durable_locations = vec![(
        "sqlite",
        scratch.join("durable.sqlite").display().to_string(),
    )];
    if let Ok(url) = std::env::var("PML_TEST_POSTGRES_URL") {
        if !url.is_empty() {
            durable_locations.push(("postgres", url));
        }
    }
    let mut sqlite_per_write = f64::NAN;
    for (backend, location) in durable_locations {
        let options = RunOptions {
            mcp_config: Some(fs_config.clone()),
            store: Some(location),
            args: json!({ "dir": files.canonicalize()? }),
            ..RunOptions::default()
        };
        let mut per_write = Vec::new();
        for _ in 0..records {
            let out = rt.block_on(run_file(&writes_program, &options))?;
            anyhow::ensure!(
                out.report.ok,
                "the ten-writes run failed: {:?}",
                out.report.error
            );
            per_write.push(out.stages.journal_ms.context("no journalMs")? / 10.0);
        }
        let per_write = median(&mut per_write);
        println!(
            "durable journal writes, {backend}: {per_write:.3} ms per call that is not read-only (median of {records} runs of 10 writes and 10 reads){}",
            match backend {
                "sqlite" => format!(
                    " - goal <= 2 ms: {}",
                    if per_write <= 2.0 { "met" } else { "MISSED" }
                ),
                _ => String::new(),
            }
        );
        if backend == "sqlite" {
            sqlite_per_write = per_write;
        }
        durable.insert(backend.into(), json!(per_write));
    }
    // 3. Resume: the same 20-call run resumed from a complete journal (every call answered
    // from it) against running it live without a store, in alternating rounds.
    let rounds = if quick { 3 } else { 9 };
    let (mut live, mut resumed) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        let out = rt.block_on(run_file(&program, &base))?;
        anyhow::ensure!(out.report.ok, "live run failed");
        live.push(started.elapsed().as_secs_f64() * 1e3);
        let options = RunOptions {
            store: Some(location.clone()),
            resume: Some(pml::run::ResumeOptions {
                run_id: first.clone(),
                uncertain: None,
                args_given: false,
            }),
            ..base.clone()
        };
        let started = Instant::now();
        let out = rt.block_on(run_file(&program, &options))?;
        anyhow::ensure!(out.report.ok, "resumed run failed: {:?}", out.report.error);
        resumed.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let (live, resumed) = (median(&mut live), median(&mut resumed));
    println!(
        "resume: a 20-call run resumed from its whole journal {resumed:.1} ms, run live without a store {live:.1} ms ({:.2}x; both start the servers; median of {rounds})",
        resumed / live
    );
    // 4. Learning over 10,000 stored runs (the 20-call run's record, each a run of its own)
    // in a store of their own: the store read and the learning, as `pml learn` does them.
    let learn_location = scratch.join("learn.sqlite").display().to_string();
    let stored = 10_000;
    let record = pml::capability::run_record(
        pml::capability::program_hash(TWENTY_CALLS, pml::Dialect::TypeScript),
        Some("twenty-calls.ts"),
        &json!({}),
        &output,
        0,
        0,
    );
    let learn_rounds = if quick { 3 } else { 5 };
    let (filled_ms, mut learn_ms, learned_runs) = rt.block_on(async {
        let store = Store::open(&learn_location).await?;
        let filled = Instant::now();
        for i in 0..stored {
            let run = pml_store::NewRun {
                trace_context: None,
                started_at: i,
                duration_ms: 400 + i % 50,
                ..record.clone()
            };
            store.record_run(None, &run).await?;
        }
        let filled_ms = filled.elapsed().as_secs_f64() * 1e3;
        store.close().await;
        let mut times = Vec::new();
        let mut runs = 0;
        for _ in 0..learn_rounds {
            let started = Instant::now();
            let store = Store::open(&learn_location).await?;
            let learned = pml::learn::learn(&store, None).await?;
            store.close().await;
            times.push(started.elapsed().as_secs_f64() * 1e3);
            runs = learned.runs;
        }
        Ok::<_, anyhow::Error>((filled_ms, times, runs))
    })?;
    anyhow::ensure!(
        learned_runs == stored as u64,
        "learned from {learned_runs} runs"
    );
    let learn = median(&mut learn_ms);
    let trace_bytes = serde_json::to_string(&record.trace)?.len();
    println!(
        "learning over {stored} stored runs ({trace_bytes} bytes of trace each; stored in {:.1} s): {learn:.0} ms (median of {learn_rounds}) - goal < 1000 ms: {}",
        filled_ms / 1e3,
        if learn < 1000.0 { "met" } else { "MISSED" }
    );
    let report = json!({
        "learnMs": learn,
        "learnRuns": stored,
        "resumeMs": resumed,
        "liveMs": live,
        "saveThroughputPerSecond": throughput,
        "saves": saves,
        "recordRunMs": total,
        "recordedRunMs": recorded_ms,
        "unrecordedRunMs": unrecorded_ms,
        "recordCalls": calls,
        "durableWriteMsPerCall": durable,
        "records": records,
    });
    std::fs::write(
        out_dir.join("bench-store.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    anyhow::ensure!(
        learn < 1000.0,
        "bench-store: learning over {stored} runs took {learn:.0} ms (goal < 1 s)"
    );
    anyhow::ensure!(
        sqlite_per_write <= 2.0,
        "bench-store: durable journal writes took {sqlite_per_write:.3} ms per call (goal <= 2 ms)"
    );
    anyhow::ensure!(
        total <= 5.0,
        "bench-store: recording a run took {total:.2} ms (goal <= 5 ms)"
    );
    Ok(())
}
