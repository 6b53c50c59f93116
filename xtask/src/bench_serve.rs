//! `cargo xtask bench-serve [--quick]`: `pml serve`, measured against the reference servers.
//!
//! 1. One echo through `execute` (`return await mcp.everything.echo(...)`) against the same
//!    echo sent straight to the `everything` server, both from one rmcp client over stdio,
//!    alternating, on warm servers: p50 and p99 of each, and their ratio (goal: within 3x).
//! 2. A program of three reads through `execute` (warm servers) against `pml run` of the same
//!    program (a process that starts the servers, runs and stops them), both recording into a
//!    SQLite store: medians (goal: `execute` 10x faster).
//! 3. Many agents: N clients over streamable HTTP, each making M executes one after another
//!    (a read and an echo each) on one gateway: errors (goal: 0), p50/p99 per execute, and
//!    executes per second.
//! 4. The gateway's memory (`VmRSS` of the `pml serve` process, not its servers): just
//!    started, and idle after the load of 3.
//!
//! Needs the `pml` binary beside the xtask one (`cargo build --release -p pml`, then
//! `cargo run --release -p xtask -- bench-serve`). Figures go to stdout and
//! `target/bench/bench-serve.json`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use pml_mcp::{ClientOptions, McpClients, McpConfig, ServerConfig};
use serde_json::{json, Value};

const THREE_READS: &str = r#"const a = await mcp.filesystem.read_text_file({ path: args.root + "/a.txt" });
const b = await mcp.filesystem.read_text_file({ path: args.root + "/b.txt" });
const c = await mcp.filesystem.read_text_file({ path: args.root + "/c.txt" });
return [a.content, b.content, c.content].join(",");
"#;

const ECHO: &str = r#"return await mcp.everything.echo({ message: "hi" });"#;

const AGENT: &str = r#"const f = await mcp.filesystem.read_text_file({ path: args.root + "/a.txt" });
const e = await mcp.everything.echo({ message: f.content + args.n });
return e;"#;

/// The `p` quantile (0..=1) of `xs`, nearest rank.
fn quantile(xs: &[f64], p: f64) -> f64 {
    let mut xs = xs.to_vec();
    xs.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
    xs[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `pml` binary built beside this xtask.
fn pml_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let pml = exe.with_file_name("pml");
    if !pml.is_file() {
        bail!(
            "{} is missing: build it first (cargo build --release -p pml)",
            pml.display()
        );
    }
    Ok(pml)
}

/// Resident memory of process `pid`, in KiB (`VmRSS`).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub fn run(args: &[String]) -> Result<()> {
    let quick = args.iter().any(|a| a == "--quick");
    let pml = pml_binary()?;
    let work = tempfile_dir()?;
    for (name, text) in [("a.txt", "alpha"), ("b.txt", "beta"), ("c.txt", "gamma")] {
        std::fs::write(work.join(name), text)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(async {
        let echo = echo_figures(&pml, &work, if quick { 100 } else { 500 }).await?;
        let three = three_reads(&pml, &work, if quick { 4 } else { 10 }).await?;
        let (clients, each) = if quick { (8, 10) } else { (32, 50) };
        let load = many_agents(&pml, &work, clients, each).await?;
        Ok::<_, anyhow::Error>(json!({
            "echo": echo,
            "threeReads": three,
            "agents": load,
        }))
    })?;
    let _ = std::fs::remove_dir_all(&work);
    let out = Path::new("target/bench");
    std::fs::create_dir_all(out)?;
    std::fs::write(
        out.join("bench-serve.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("pml-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir.canonicalize()?)
}

/// The reference `everything` server's config, and the gateway's (stdio, store in `work`).
fn configs(pml: &Path, work: &Path) -> Result<McpConfig> {
    let scratch = work.join("scratch");
    std::fs::create_dir_all(&scratch)?;
    let reference = pml::servers::reference_config(work, &scratch)
        .map_err(|e| anyhow::anyhow!("the reference servers: {e}"))?;
    let everything = reference
        .servers
        .get("everything")
        .cloned()
        .context("no everything server")?;
    let gateway = ServerConfig {
        command: pml.display().to_string(),
        args: [
            "serve",
            "--warm",
            "--store",
            &work.join("store.sqlite").display().to_string(),
            "--root",
            &work.display().to_string(),
        ]
        .map(str::to_owned)
        .to_vec(),
        env: Default::default(),
        cwd: Some(work.to_path_buf()),
    };
    let mut config = McpConfig::default();
    config.servers.insert("everything".into(), everything);
    config.servers.insert("gateway".into(), gateway);
    Ok(config)
}

async fn echo_figures(pml: &Path, work: &Path, rounds: usize) -> Result<Value> {
    let clients = McpClients::new(configs(pml, work)?, ClientOptions::default());
    let execute = |code: &str| json!({ "code": code });
    // Warm: both servers started, the gateway's own servers too.
    for _ in 0..20 {
        clients
            .call_value("everything", "echo", json!({"message": "hi"}))
            .await?;
        let out = clients
            .call_value("gateway", "execute", execute(ECHO))
            .await?;
        if out["ok"] != json!(true) {
            bail!("execute failed: {out}");
        }
    }
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        clients
            .call_value("everything", "echo", json!({"message": "hi"}))
            .await?;
        direct.push(ms(t.elapsed()));
        let t = Instant::now();
        clients
            .call_value("gateway", "execute", execute(ECHO))
            .await?;
        through.push(ms(t.elapsed()));
    }
    clients.shutdown().await;
    let figure = |xs: &[f64]| json!({"p50Ms": quantile(xs, 0.5), "p99Ms": quantile(xs, 0.99)});
    let report = json!({
        "rounds": rounds,
        "direct": figure(&direct),
        "execute": figure(&through),
        "ratioP50": quantile(&through, 0.5) / quantile(&direct, 0.5),
        "ratioP99": quantile(&through, 0.99) / quantile(&direct, 0.99),
    });
    eprintln!("echo: {report}");
    Ok(report)
}

async fn three_reads(pml: &Path, work: &Path, rounds: usize) -> Result<Value> {
    // `pml run` of the program, its data folder beside it.
    let program = work.join("three.ts");
    std::fs::write(&program, THREE_READS)?;
    let data = work.join("three");
    std::fs::create_dir_all(&data)?;
    for (name, text) in [("a.txt", "alpha"), ("b.txt", "beta"), ("c.txt", "gamma")] {
        std::fs::write(data.join(name), text)?;
    }
    let store = work.join("run-store.sqlite").display().to_string();
    let mut runs = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let out = tokio::process::Command::new(pml)
            .arg("run")
            .arg(&program)
            .args(["--json", "--store", &store])
            .current_dir(work)
            .output()
            .await?;
        runs.push(ms(t.elapsed()));
        if !out.status.success() {
            bail!("pml run failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    let clients = McpClients::new(configs(pml, work)?, ClientOptions::default());
    let mut executes = Vec::new();
    for i in 0..rounds * 4 + 5 {
        let t = Instant::now();
        let out = clients
            .call_value("gateway", "execute", json!({"code": THREE_READS}))
            .await?;
        if i >= 5 {
            executes.push(ms(t.elapsed()));
        }
        if out["result"] != json!("alpha,beta,gamma") {
            bail!("execute: {out}");
        }
    }
    clients.shutdown().await;
    let report = json!({
        "pmlRunMs": quantile(&runs, 0.5),
        "executeMs": quantile(&executes, 0.5),
        "speedup": quantile(&runs, 0.5) / quantile(&executes, 0.5),
    });
    eprintln!("three reads: {report}");
    Ok(report)
}

/// A `pml serve --http` child: the process and its URL.
async fn http_gateway(pml: &Path, work: &Path) -> Result<(tokio::process::Child, String)> {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(pml)
        .args(["serve", "--http", "127.0.0.1:0", "--store"])
        .arg(work.join("store.sqlite"))
        .arg("--root")
        .arg(work)
        .current_dir(work)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = tokio::io::BufReader::new(child.stderr.take().context("stderr")?).lines();
    let url = loop {
        let Some(line) = lines.next_line().await? else {
            bail!("pml serve --http ended before it listened");
        };
        if let Some(url) = line.strip_prefix("pml serve: listening on ") {
            break url.to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((child, url))
}

async fn many_agents(pml: &Path, work: &Path, clients: usize, each: usize) -> Result<Value> {
    use rmcp::model::CallToolRequestParams;
    use rmcp::ServiceExt;
    let (mut child, url) = http_gateway(pml, work).await?;
    let pid = child.id().context("gateway pid")?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started_kib = rss_kib(pid);
    let url: Arc<str> = url.into();
    let begun = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..clients {
        let url = url.clone();
        tasks.spawn(async move {
            let transport =
                rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string());
            let client = match ().serve(transport).await {
                Ok(client) => client,
                Err(e) => return (Vec::new(), vec![format!("client {c}: {e}")]),
            };
            let (mut times, mut errors) = (Vec::new(), Vec::new());
            for n in 0..each {
                let arguments = json!({"code": AGENT, "args": {"n": n}});
                let params = CallToolRequestParams::new("execute")
                    .with_arguments(arguments.as_object().cloned().unwrap_or_default());
                let t = Instant::now();
                match client.call_tool(params).await {
                    Ok(result) if result.is_error != Some(true) => times.push(ms(t.elapsed())),
                    Ok(result) => errors.push(format!("{:?}", result.structured_content)),
                    Err(e) => errors.push(e.to_string()),
                }
            }
            let _ = client.cancel().await;
            (times, errors)
        });
    }
    let (mut times, mut errors) = (Vec::new(), Vec::new());
    while let Some(joined) = tasks.join_next().await {
        let (t, e) = joined?;
        times.extend(t);
        errors.extend(e);
    }
    let wall = begun.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_kib = rss_kib(pid);
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    for e in errors.iter().take(5) {
        eprintln!("error: {e}");
    }
    let report = json!({
        "clients": clients,
        "executesEach": each,
        "executes": times.len(),
        "errors": errors.len(),
        "p50Ms": if times.is_empty() { 0.0 } else { quantile(&times, 0.5) },
        "p99Ms": if times.is_empty() { 0.0 } else { quantile(&times, 0.99) },
        "perSecond": times.len() as f64 / wall.as_secs_f64(),
        "gatewayRssKiB": {"started": started_kib, "idleAfterLoad": idle_kib},
    });
    eprintln!("agents: {report}");
    Ok(report)
}
