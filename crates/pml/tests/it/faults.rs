//! Fault injection through `pml run`: a misbehaving MCP server (`mcp-servers/
//! misbehaving-server.mjs`) that crashes mid-call, hangs, answers garbage, starts slowly or not
//! at all, or reports `isError`. Each failure ends the program with an error naming the server,
//! the tool and the cause, and no process is left behind.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::pml;

struct Setup {
    dir: PathBuf,
}

impl Setup {
    /// A config with the misbehaving server under several names, one per start-up fault.
    fn new(tag: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("pml-faults-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let server = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../mcp-servers/misbehaving-server.mjs")
            .canonicalize()
            .unwrap();
        let server = server.to_str().unwrap();
        let config = serde_json::json!({"mcpServers": {
            "bad": {"command": "node", "args": [server]},
            "slow": {"command": "node", "args": [server, "--slow-start=1500"]},
            "dead": {"command": "node", "args": [server, "--exit-on-start=3"]},
            "stubborn": {"command": "node", "args": [server, "--stubborn"]},
        }});
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        Setup { dir }
    }

    /// Runs `source` with the config; exit status, stdout JSON, stderr.
    fn run(&self, source: &str, extra: &[&str]) -> (i32, Value, String) {
        let file = self.dir.join("program.js");
        std::fs::write(&file, source).unwrap();
        let config = self.dir.join("config.json");
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "--mcp-config",
            config.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = pml(&args);
        let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
        (code, json, stderr)
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn error(v: &Value) -> &str {
    v["error"].as_str().unwrap_or_default()
}

fn alive(pid: u64) -> bool {
    // A zombie is dead for our purposes; anything else in /proc is alive.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.contains(") Z "),
        Err(_) => false,
    }
}

#[test]
fn a_server_crashing_mid_call_fails_the_program_with_its_stderr() {
    let s = Setup::new("crash");
    let (code, v, stderr) = s.run("const x = await mcp.bad.crash({});\nreturn x;", &[]);
    assert_eq!(code, 1, "{stderr}");
    let e = error(&v);
    assert!(e.contains("n1") && e.contains("bad:crash"), "{e}");
    assert!(e.contains("crashed during tool `crash`"), "{e}");
    assert!(
        e.contains("boom: crashing on purpose"),
        "stderr tail missing: {e}"
    );
    assert!(stderr.contains("crashed during tool"), "{stderr}");
}

#[test]
fn a_hanging_call_times_out() {
    let s = Setup::new("hang");
    let started = std::time::Instant::now();
    let (code, v, _) = s.run(
        "await mcp.bad.hang({});\nreturn 1;",
        &["--timeout-ms", "500"],
    );
    assert_eq!(code, 1);
    assert!(
        error(&v).contains("timed out after 500 ms"),
        "{}",
        error(&v)
    );
    assert!(
        started.elapsed().as_secs() < 30,
        "the timeout did not end the run"
    );
}

/// A server stuck in a call that timed out is not waited for: `pml` exits within 0.5 s of the
/// timeout even when the server ignores its stdin closing and SIGTERM.
#[test]
fn a_run_whose_call_timed_out_exits_at_once() {
    let s = Setup::new("stubborn");
    let started = std::time::Instant::now();
    let (code, v, stderr) = s.run(
        "await mcp.stubborn.hang({});\nreturn 1;",
        &["--timeout-ms", "500", "--no-store"],
    );
    let elapsed = started.elapsed().as_secs_f64() * 1e3;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        error(&v).contains("timed out after 500 ms"),
        "{}",
        error(&v)
    );
    let timings = &v["timings"];
    let before_end: f64 = ["analyzeMs", "serversMs", "executeMs"]
        .iter()
        .map(|k| timings[k].as_f64().unwrap())
        .sum();
    assert!(
        elapsed - before_end < 500.0,
        "{:.0} ms after the run ended ({elapsed:.0} ms in all)",
        elapsed - before_end
    );
}

/// What a program catches is what Node's MCP client rejects with (checked against
/// `../shared/node-oracle` on the same server): a JSON-RPC error as `MCP error <code>:
/// <message>`, a server gone mid-call as `Connection closed`, a later call to it as `Not
/// connected`, a call past its time limit as `Request timed out`; the trace keeps pml's
/// account (server, tool, cause).
#[test]
fn a_program_catches_the_errors_node_gives() {
    let s = Setup::new("caught");
    let source = "const out = [];\n\
        try { await mcp.bad.rpc_error({}); } catch (e) { out.push(e.message); }\n\
        try { await mcp.bad.hang({}); } catch (e) { out.push(e.message); }\n\
        try { await mcp.bad.crash({}); } catch (e) { out.push(e.message); }\n\
        try { await mcp.bad.echo({}); } catch (e) { out.push(e.message); }\n\
        return out;";
    let (code, v, stderr) = s.run(source, &["--timeout-ms", "500", "--no-store"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        v["result"],
        serde_json::json!([
            "MCP error -32000: internal failure",
            "MCP error -32001: Request timed out",
            "MCP error -32000: Connection closed",
            "Not connected",
        ])
    );
    let errors: Vec<&str> = v["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["error"].as_str())
        .collect();
    assert!(
        errors[0].contains("bad.rpc_error` failed: json-rpc error -32000"),
        "{errors:?}"
    );
    assert!(errors[1].contains("timed out after 500 ms"), "{errors:?}");
    assert!(
        errors[2].contains("crashed during tool `crash`"),
        "{errors:?}"
    );
}

#[test]
fn garbage_on_stdout_is_a_protocol_error() {
    let s = Setup::new("garbage");
    let (code, v, _) = s.run("await mcp.bad.garbage({});", &[]);
    assert_eq!(code, 1);
    let e = error(&v);
    assert!(
        e.contains("broke the protocol during tool `garbage`"),
        "{e}"
    );
    // (Garbage instead of the `initialize` answer is tolerated as a banner until the start
    // timeout: pml-mcp's own tests cover it with a short timeout.)
}

#[test]
fn servers_that_start_slowly_or_never() {
    let s = Setup::new("start");
    let (code, v, stderr) = s.run("return await mcp.slow.echo({ text: 'late' });", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["result"], "late");

    let (code, v, _) = s.run("return await mcp.dead.echo({ text: 'x' });", &[]);
    assert_eq!(code, 1);
    let e = error(&v);
    assert!(
        e.contains("`dead`") && e.contains("refusing to start"),
        "{e}"
    );

    // Unknown servers are refused before anything runs, named with the configured ones and
    // the config file.
    let (code, _, stderr) = s.run("return await mcp.nowhere.echo({});", &[]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(":1:14: mcp.nowhere.echo: no server `nowhere` is configured in ")
            && stderr.contains(" (configured: "),
        "{stderr}"
    );
}

#[test]
fn is_error_results_throw_the_tools_message() {
    let s = Setup::new("iserror");
    let (code, v, _) = s.run("await mcp.bad.fail({ message: 'disk full' });", &[]);
    assert_eq!(code, 1);
    assert!(error(&v).contains("disk full"), "{}", error(&v));
    // The program sees exactly the text content as the Error's message.
    let (code, v, _) = s.run(
        "try { await mcp.bad.fail({ message: 'disk full' }); } catch (e) { return e.message; }",
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(v["result"], "disk full");
}

#[test]
fn no_process_survives_a_failed_run() {
    let s = Setup::new("procs");
    let (code, v, stderr) = s.run(
        "const a = await mcp.bad.pid({});\nconst b = await mcp.bad.grandchild({});\nconst c = await mcp.bad.fail({ message: JSON.stringify([a.pid, b.pid]) });\nreturn c;",
        &[],
    );
    assert_eq!(code, 1, "{stderr}");
    let e = error(&v);
    let start = e.find('[').unwrap();
    let end = e[start..].find(']').unwrap() + start + 1;
    let pids: Vec<u64> = serde_json::from_str(&e[start..end]).unwrap();
    assert_eq!(pids.len(), 2);
    // SIGKILL to the server's process group is delivered asynchronously: a process may take
    // a moment to be gone after pml has exited.
    for pid in pids {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!alive(pid), "process {pid} survived the run");
    }
}

/// An answer nested deeper than serde_json's 128 levels is read, as Node's client reads it
/// (it was dropped, and the call waited for its timeout, then blamed slowness).
#[test]
fn an_answer_nested_deeper_than_serde_json_reads_is_read() {
    let s = Setup::new("deep");
    let (code, v, stderr) = s.run(
        "let v = 1;\nfor (let i = 0; i < 300; i++) v = [v];\nconst r = await mcp.bad.structured({ value: v });\nlet d = 0;\nfor (let x = r; Array.isArray(x); x = x[0]) d++;\nreturn d;",
        &["--timeout-ms", "20000"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["result"], 300);
}
