//! `pml serve` driven by the official TypeScript SDK client (`tests/serve/client.mjs`) over
//! stdio, against the reference servers: what an agent sees.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A TypeScript SDK client connected to a `pml serve` it spawned.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Arc<(Mutex<HashMap<u64, Value>>, Condvar)>,
    next: u64,
    /// The store the gateway records into.
    store: String,
}

const SERVERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../mcp-servers");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/serve/client.mjs");

impl Client {
    /// `pml serve` with `args`, its filesystem server rooted in `root`, a store of its own.
    fn start(root: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Client {
        let store = root.join("store.sqlite").display().to_string();
        Client::on_store(root, &store, args, env)
    }

    /// `pml serve` with `args` on `store`, its filesystem server rooted in `root`.
    fn on_store(
        root: &std::path::Path,
        store: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Client {
        let mut command = Command::new("node");
        command
            .arg(SCRIPT)
            .arg(env!("CARGO_BIN_EXE_pml"))
            .args(["serve", "--store", store, "--root"])
            .arg(root)
            .args(args);
        Client::spawn(command, root, store, env)
    }

    /// `pml serve --mcp-config config --approve auto` (a store in `root`).
    fn with_config(root: &std::path::Path, config: &std::path::Path) -> Client {
        let store = root.join("store.sqlite").display().to_string();
        let mut command = Command::new("node");
        command
            .arg(SCRIPT)
            .arg(env!("CARGO_BIN_EXE_pml"))
            .args([
                "serve",
                "--approve",
                "auto",
                "--store",
                &store,
                "--mcp-config",
            ])
            .arg(config);
        Client::spawn(command, root, &store, &[])
    }

    /// A client of the gateway at `url` (streamable HTTP), with `token`.
    fn http(url: &str, token: Option<&str>, root: &std::path::Path) -> Client {
        let mut command = Command::new("node");
        command.arg(SCRIPT).args(["--url", url]).args(token);
        Client::spawn(command, root, "", &[])
    }

    fn spawn(
        mut command: Command,
        root: &std::path::Path,
        store: &str,
        env: &[(&str, &str)],
    ) -> Client {
        command
            .env("PML_MCP_SERVERS", SERVERS)
            .env_remove("PML_STORE")
            .envs(env.iter().copied())
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().expect("node runs the client");
        let stdout = child.stdout.take().unwrap();
        let answers: Arc<(Mutex<HashMap<u64, Value>>, Condvar)> = Arc::default();
        let filled = answers.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // (Strings as pml text: a lone surrogate the client wrote as `\udXXX`.)
                let Ok(answer) = pml_jstext::parse_js_json(&line) else {
                    panic!("the client wrote {line}");
                };
                let id = answer["id"].as_u64().unwrap();
                filled.0.lock().unwrap().insert(id, answer);
                filled.1.notify_all();
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            answers,
            next: 0,
            store: store.to_owned(),
        }
    }

    /// Sends `request` (`op` and its fields); its id.
    fn send(&mut self, mut request: Value) -> u64 {
        self.next += 1;
        request["id"] = json!(self.next);
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        self.next
    }

    /// The answer to request `id`: `{id, result}` or `{id, error}`.
    fn wait(&self, id: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        let (answers, arrived) = &*self.answers;
        let mut answers = answers.lock().unwrap();
        loop {
            if let Some(answer) = answers.remove(&id) {
                return answer;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no answer to request {id} within 120 s");
            answers = arrived.wait_timeout(answers, left).unwrap().0;
        }
    }

    /// Whether request `id` has its answer already.
    fn answered(&self, id: u64) -> bool {
        self.answers.0.lock().unwrap().contains_key(&id)
    }

    fn ask(&mut self, request: Value) -> Value {
        let id = self.send(request);
        self.wait(id)
    }

    /// Calls tool `name`: its result (`structuredContent`, `isError`...).
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self.ask(json!({"op": "callTool", "name": name, "arguments": arguments}));
        assert!(answer.get("error").is_none(), "{name}: {answer}");
        answer["result"].clone()
    }

    /// `execute {code, args}`'s structured answer, and whether it is an error.
    fn execute(&mut self, code: &str, args: Value) -> (Value, bool) {
        let result = self.call("execute", json!({"code": code, "args": args}));
        (
            result["structuredContent"].clone(),
            result["isError"] == json!(true),
        )
    }

    /// Closes the client's side (EOF to the gateway) and waits for the client to exit.
    fn close(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the client did not exit after its stdin closed");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// The processes whose command line holds `needle`, by pid (from /proc).
fn processes_with(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(needle) {
                out.push(pid);
            }
        }
    }
    out
}

/// The children of process `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("users.json"),
        r#"[{"name":"ada","active":true},{"name":"bob","active":false}]"#,
    )
    .unwrap();
    dir
}

#[test]
fn an_agent_lists_executes_searches_and_reuses_capabilities() {
    let dir = folder();
    let mut client = Client::start(dir.path(), &[], &[]);
    agent_scenario(&mut client);
    client.close();
}

#[test]
fn the_same_agent_over_streamable_http() {
    let dir = folder();
    let gateway = HttpGateway::start(dir.path(), &["--http", "127.0.0.1:0"]);
    let mut client = Client::http(&gateway.url, None, dir.path());
    agent_scenario(&mut client);
    client.close();
    assert_eq!(gateway.stop(), Some(0));
}

/// What an agent does with a gateway whose filesystem server serves [`folder`]: list the
/// tools, run programs (fine, failing, not starting), find tools, save, find and reuse
/// capabilities, read resources.
fn agent_scenario(client: &mut Client) {
    let listed = client.ask(json!({"op": "listTools"}));
    let names: Vec<&str> = (listed["result"]["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in [
        "execute",
        "search_tools",
        "describe_tools",
        "save_capability",
        "search_capabilities",
        "run_capability",
        "approve",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let description = listed["result"]["tools"][0]["description"]
        .as_str()
        .unwrap();
    assert!(description.contains("read_text_file"), "{description}");

    // A program that reads, computes and returns.
    let program = r#"
        const file = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
        const names = JSON.parse(file.content).filter(u => u.active).map(u => u.name);
        console.log("found", names.length);
        return { names, greeting: args.greeting };"#;
    let (out, failed) = client.execute(program, json!({"greeting": "hi"}));
    assert!(!failed, "{out}");
    assert_eq!(out["ok"], json!(true));
    assert_eq!(out["result"], json!({"names": ["ada"], "greeting": "hi"}));
    assert_eq!(out["calls"], json!(1));
    assert_eq!(out["console"], json!(["found 1"]));
    let run_id = out["runId"].as_str().unwrap().to_owned();

    // The client reads what Node would have written: a lone surrogate as the program's own
    // string, numbers as JavaScript writes them, in the structured content and its text.
    let answer = client.call(
        "execute",
        json!({"code": r#"const s = "x\ud83dy"; return { s, n: s.length, tiny: 0.000005, big: 1e20 };"#}),
    );
    assert_eq!(
        answer["structuredContent"]["result"],
        json!({"s": "x\u{FDD0}d83dy", "n": 3, "tiny": 0.000005, "big": 1e20})
    );
    let text = answer["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(
            r#""result":{"s":"x\ud83dy","n":3,"tiny":0.000005,"big":100000000000000000000}"#
        ),
        "{text}"
    );

    // A client that asks for progress hears of each call done.
    let answer = client.ask(json!({
        "op": "callTool",
        "name": "execute",
        "arguments": {"code": "for (const m of ['a', 'b', 'c']) await mcp.everything.echo({ message: m }); return 3;"},
        "progress": true,
    }));
    // (The SDK client keeps those it gets before the answer; `progress_comes_before_the_answer`
    // checks on the wire that all three come before it.)
    let progress = (answer["result"]["progress"].as_array())
        .cloned()
        .unwrap_or_default();
    assert!(!progress.is_empty(), "{answer}");
    assert_eq!(progress[0]["message"], json!("everything:echo done"));

    // One program leaves nothing for the next (they run one after the other, the second in
    // the sandbox the first gave back).
    let (out, _) = client.execute(
        "globalThis.leaked = 42; Object.prototype.polluted = 'yes'; Array.prototype.map = () => 'hijacked'; return 1;",
        json!({}),
    );
    assert_eq!(out["result"], json!(1), "{out}");
    let (out, _) = client.execute(
        "return [typeof globalThis.leaked, ({}).polluted ?? 'clean', [1, 2].map(x => x * 2)];",
        json!({}),
    );
    assert_eq!(
        out["result"],
        json!(["undefined", "clean", [2, 4]]),
        "{out}"
    );

    // A program that throws: the error, where, and the run kept.
    let (out, failed) = client.execute("const x = 1;\nthrow new Error(\"boom\");", json!({}));
    assert!(failed);
    assert_eq!(out["ok"], json!(false));
    assert!(
        out["error"].as_str().unwrap().contains("boom (at 2:1"),
        "{out}"
    );
    assert!(out["runId"].is_string());

    // A program that does not parse, and one that calls a tool no server has.
    let (out, failed) = client.execute("return (1 +;", json!({}));
    assert!(failed);
    assert!(
        out["error"].as_str().unwrap().starts_with("execute:1:"),
        "{out}"
    );
    let (out, failed) = client.execute("return await mcp.filesystem.no_such_tool({});", json!({}));
    assert!(failed);
    assert!(
        out["problems"][0]
            .as_str()
            .unwrap()
            .contains("no_such_tool"),
        "{out}"
    );

    // Finding tools.
    let found = client.call("search_tools", json!({"query": "write a file", "limit": 3}));
    let top = &found["structuredContent"]["tools"][0];
    assert_eq!(top["name"], json!("filesystem:write_file"), "{found}");
    assert!(top["signature"]
        .as_str()
        .unwrap()
        .contains("write_file(args: {"));
    let described = client.call(
        "describe_tools",
        json!({"names": ["filesystem:read_text_file", "nowhere:nothing"]}),
    );
    let described = &described["structuredContent"];
    assert!(described["tools"][0]["declaration"]
        .as_str()
        .unwrap()
        .contains("read_text_file(args: {"));
    assert_eq!(described["unknown"], json!(["nowhere:nothing"]));

    // What a program says past 64 KiB is cut in the answer, kept whole in the run.
    let (out, failed) = client.execute(
        "for (let i = 0; i < 20000; i++) console.log(`line ${i}`);\nreturn 'x'.repeat(100000);",
        json!({}),
    );
    assert!(!failed, "{out}");
    assert_eq!(out["resultTruncated"]["bytes"], json!(100_002));
    assert_eq!(out["consoleTruncated"]["lines"], json!(20_000));
    let shown = out["consoleTruncated"]["shown"].as_u64().unwrap() as usize;
    let console = out["console"].as_array().unwrap();
    assert_eq!(console.len(), shown + 1);
    assert_eq!(console[shown - 1], json!(format!("line {}", shown - 1)));
    assert!(
        console[shown].as_str().unwrap().starts_with(&format!(
            "[pml] {} more console lines not shown",
            20_000 - shown
        )),
        "{}",
        console[shown]
    );
    let (out, failed) = client.execute("throw new Error('e'.repeat(200000));", json!({}));
    assert!(failed);
    let error = out["error"].as_str().unwrap();
    assert!(
        error.len() < 70_000 && error.contains("bytes in all: pml://runs/"),
        "{}",
        &error[error.len() - 100..]
    );

    // Capabilities: saved once by meaning, found, run, and called from a program.
    let code = r#"const file = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
return JSON.parse(file.content).length;"#;
    let saved = client.call(
        "save_capability",
        json!({"code": code, "name": "count_users", "description": "How many users there are"}),
    );
    assert_eq!(
        saved["structuredContent"]["outcome"],
        json!("created"),
        "{saved}"
    );
    // The same program, its variable renamed and reformatted.
    let renamed = r#"const users =
    await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
return JSON.parse(users.content).length;"#;
    let alias = client.call(
        "save_capability",
        json!({"code": renamed, "name": "user_count"}),
    );
    assert_eq!(
        alias["structuredContent"]["outcome"],
        json!("alias"),
        "{alias}"
    );
    let ran = client.call("run_capability", json!({"name": "user_count"}));
    assert_eq!(ran["structuredContent"]["result"], json!(2), "{ran}");
    // Arguments the capability does not take are refused, as in a program, and nothing runs
    // (not a run with the saved defaults).
    let refused = client.call(
        "run_capability",
        json!({"name": "user_count", "args": {"rooot": "/elsewhere"}}),
    );
    assert_eq!(refused["isError"], json!(true), "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"],
        json!("capability `user_count`: the argument `rooot` is not one the capability takes; did you mean `root`?; nothing ran"),
    );
    let (out, failed) = client.execute(
        "const n = await capabilities.count_users({}); return n * 10;",
        json!({}),
    );
    assert!(!failed, "{out}");
    assert_eq!(out["result"], json!(20));
    let searched = client.call("search_capabilities", json!({"query": "users"}));
    let first = &searched["structuredContent"]["capabilities"][0];
    assert_eq!(
        first["names"],
        json!(["count_users", "user_count"]),
        "{searched}"
    );
    // Its run through `run_capability`, and its call inside the execute.
    assert_eq!(first["runs"], json!(2), "{searched}");
    assert_eq!(first["successRate"].as_f64(), Some(1.0));

    // Resources: the declarations, a capability, a run.
    let types = client.ask(json!({"op": "readResource", "uri": "pml://types/mcp.d.ts"}));
    let text = types["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("declare const mcp") && text.contains("count_users("),
        "{types}"
    );
    let run = client.ask(json!({"op": "readResource", "uri": format!("pml://runs/{run_id}")}));
    let run: Value =
        serde_json::from_str(run["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(run["result"]["names"], json!(["ada"]));
}

#[test]
fn sixteen_executes_at_once_on_warm_servers_then_nothing_is_left() {
    let dir = folder();
    for i in 0..16 {
        std::fs::write(dir.path().join(format!("n{i}.txt")), format!("{}", i * i)).unwrap();
    }
    let mut client = Client::start(dir.path(), &["--max-concurrent", "4"], &[]);
    let program = r#"
        const f = await mcp.filesystem.read_text_file({ path: `${args.root}/n${args.i}.txt` });
        const echoed = await mcp.everything.echo({ message: f.content });
        return { i: args.i, square: Number(f.content), echoed: echoed };"#;
    let ids: Vec<(u64, u64)> = (0..16)
        .map(|i| {
            let id = client.send(json!({
                "op": "callTool",
                "name": "execute",
                "arguments": {"code": program, "args": {"i": i}},
            }));
            (i, id)
        })
        .collect();
    for (i, id) in ids {
        let answer = client.wait(id);
        let out = &answer["result"]["structuredContent"];
        assert_eq!(out["ok"], json!(true), "execute {i}: {answer}");
        assert_eq!(out["result"]["i"], json!(i));
        assert_eq!(out["result"]["square"], json!(i * i));
    }
    // One process per server used (filesystem, everything), started once for all of them.
    let gateway = processes_with(&client.store);
    let gateway: Vec<u32> = gateway
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "pml")
        })
        .collect();
    assert_eq!(gateway.len(), 1, "one gateway: {gateway:?}");
    let servers = children_of(gateway[0]);
    assert_eq!(servers.len(), 2, "warm servers: {servers:?}");
    client.close();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline
        && servers
            .iter()
            .any(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in servers {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            stat.is_empty() || stat.contains(") Z"),
            "server {pid} outlived the gateway"
        );
    }
}

#[test]
fn a_cancelled_execute_stops_and_the_next_one_runs() {
    let dir = folder();
    let mut client = Client::start(dir.path(), &[], &[]);
    let long = r#"
        await mcp.everything["trigger-long-running-operation"]({ duration: 30, steps: 30 });
        return "finished";"#;
    let started = Instant::now();
    let answer = client.ask(json!({
        "op": "callTool",
        "name": "execute",
        "arguments": {"code": long},
        "progress": true,
        "cancelAfterMs": 2500,
    }));
    assert!(answer["error"].is_string(), "cancelled: {answer}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let (out, failed) = client.execute(
        "return await mcp.everything.echo({ message: 'still here' });",
        json!({}),
    );
    assert!(!failed, "{out}");
    assert!(
        out["result"].to_string().contains("Echo: still here"),
        "{out}"
    );
    // The cancelled run is kept, interrupted.
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut runs = pml_store_runs(&client.store);
    while Instant::now() < deadline && !runs.iter().any(|r| r.contains("interrupted")) {
        std::thread::sleep(Duration::from_millis(200));
        runs = pml_store_runs(&client.store);
    }
    assert!(runs.iter().any(|r| r.contains("interrupted")), "{runs:?}");
    client.close();
}

/// The errors of the runs in `store` (via `pml runs --json`).
fn pml_store_runs(store: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["runs", "--json", "--store", store])
        .output()
        .unwrap();
    let runs: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (runs.as_array().into_iter().flatten())
        .map(|r| r.to_string())
        .collect()
}

#[test]
fn approvals_through_elicitation_or_a_paused_run() {
    let write = r#"
        await mcp.filesystem.write_file({ path: args.root + "/out.txt", content: "written" });
        return "done";"#;
    // The client approves when asked.
    let dir = folder();
    let mut client = Client::start(dir.path(), &[], &[("PML_TEST_ELICIT", "approve")]);
    let answer =
        client.ask(json!({"op": "callTool", "name": "execute", "arguments": {"code": write}}));
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        json!("done"),
        "{answer}"
    );
    assert!(
        answer["elicited"][0]
            .as_str()
            .unwrap()
            .contains("filesystem:write_file"),
        "{answer}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "written"
    );
    client.close();

    // The client denies: nothing is written.
    let dir = folder();
    let mut client = Client::start(dir.path(), &[], &[("PML_TEST_ELICIT", "deny")]);
    let (out, failed) = client.execute(write, json!({}));
    assert!(failed, "{out}");
    assert!(!dir.path().join("out.txt").exists());
    client.close();

    // The client cannot be asked: the run pauses; `approve` runs it, once.
    let dir = folder();
    let mut client = Client::start(dir.path(), &[], &[]);
    let (out, failed) = client.execute(write, json!({}));
    assert!(!failed, "{out}");
    assert_eq!(out["status"], json!("paused"), "{out}");
    assert_eq!(out["plan"][0]["tool"], json!("filesystem:write_file"));
    assert!(!dir.path().join("out.txt").exists());
    let run_id = out["runId"].as_str().unwrap().to_owned();
    let approved = client.call("approve", json!({"runId": run_id, "decision": "approve"}));
    assert_eq!(
        approved["structuredContent"]["result"],
        json!("done"),
        "{approved}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "written"
    );
    let again = client.call("approve", json!({"runId": run_id, "decision": "approve"}));
    assert_eq!(again["isError"], json!(true));
    assert!(again["structuredContent"]["error"]
        .as_str()
        .unwrap()
        .contains("approved already"));
    client.close();
}

/// A `pml serve --http` on its own: the process and the URL it listens on.
struct HttpGateway {
    child: Child,
    url: String,
}

impl HttpGateway {
    fn start(root: &std::path::Path, args: &[&str]) -> HttpGateway {
        let store = root.join("store.sqlite");
        let mut child = Command::new(env!("CARGO_BIN_EXE_pml"))
            .args(["serve", "--store"])
            .arg(&store)
            .arg("--root")
            .arg(root)
            .args(args)
            .env_remove("PML_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let url = loop {
            line.clear();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "pml serve --http ended"
            );
            if let Some(url) = line.trim().strip_prefix("pml serve: listening on ") {
                break url.to_owned();
            }
        };
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::stderr()));
        HttpGateway { child, url }
    }

    /// The status line of a raw POST of `body` with `headers` to the endpoint.
    fn post(&self, headers: &[&str], body: &str) -> String {
        let head = self.request("POST", headers, body);
        head.lines().next().unwrap_or("").to_owned()
    }

    /// The head (status line and headers, lowercase) of a raw `method` request.
    fn request(&self, method: &str, headers: &[&str], body: &str) -> String {
        use std::io::Read;
        let address = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for header in headers {
            request.push_str(header);
            request.push_str("\r\n");
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let head = answer.split("\r\n\r\n").next().unwrap_or("");
        head.to_lowercase()
    }

    /// SIGTERM, and its exit status.
    fn stop(mut self) -> Option<i32> {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for HttpGateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

#[test]
fn streamable_http_with_a_token_and_origin_checks() {
    // Beyond the loopback interface, not without a token.
    let out = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args([
            "serve",
            "--no-store",
            "--http",
            "0.0.0.0:0",
            "--mcp-config",
            "/dev/null",
        ])
        .env_remove("PML_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a bearer token"));

    let dir = folder();
    let gateway = HttpGateway::start(
        dir.path(),
        &[
            "--http",
            "127.0.0.1:0",
            "--token",
            "s3cret",
            "--allow-origin",
            "https://app.example.com",
        ],
    );
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    assert!(gateway.post(&[], initialize).contains(" 401 "), "no token");
    assert!(
        gateway
            .post(&["Authorization: Bearer wrong"], initialize)
            .contains(" 401 "),
        "a wrong token"
    );
    let evil = gateway.post(
        &[
            "Authorization: Bearer s3cret",
            "Origin: http://evil.example",
        ],
        initialize,
    );
    assert!(evil.contains(" 403 "), "a foreign origin: {evil}");
    let fine = gateway.post(
        &[
            "Authorization: Bearer s3cret",
            "Origin: http://localhost:3000",
        ],
        initialize,
    );
    assert!(fine.contains(" 200 "), "{fine}");
    // A page of an allowed origin can use it from a browser: its preflight (which carries no
    // token) is answered, and the answers say it may read them and the session's id.
    let preflight = gateway.request(
        "OPTIONS",
        &[
            "Origin: https://app.example.com",
            "Access-Control-Request-Method: POST",
            "Access-Control-Request-Headers: authorization, content-type, mcp-protocol-version",
        ],
        "",
    );
    assert!(
        preflight.starts_with("http/1.1 200")
            && preflight.contains("access-control-allow-origin: https://app.example.com")
            && preflight.contains("mcp-protocol-version"),
        "{preflight}"
    );
    let foreign = gateway.request(
        "OPTIONS",
        &[
            "Origin: http://evil.example",
            "Access-Control-Request-Method: POST",
        ],
        "",
    );
    assert!(
        !foreign.contains("access-control-allow-origin"),
        "{foreign}"
    );
    let answered = gateway.request(
        "POST",
        &[
            "Authorization: Bearer s3cret",
            "Origin: https://app.example.com",
        ],
        initialize,
    );
    assert!(
        answered.starts_with("http/1.1 200")
            && answered.contains("access-control-allow-origin: https://app.example.com")
            && answered.contains("access-control-expose-headers: mcp-session-id"),
        "{answered}"
    );
    // The scheme's case is not the token's.
    for header in [
        "Authorization: bearer s3cret",
        "Authorization: BEARER s3cret",
    ] {
        let told = gateway.post(&[header], initialize);
        assert!(told.contains(" 200 "), "{header}: {told}");
    }
    assert!(
        gateway
            .post(&["Authorization: Bearer S3CRET"], initialize)
            .contains(" 401 "),
        "the token's case"
    );

    // The TypeScript SDK over HTTP: two clients, one set of servers.
    let mut first = Client::http(&gateway.url, Some("s3cret"), dir.path());
    let mut second = Client::http(&gateway.url, Some("s3cret"), dir.path());
    let program = r#"
        const f = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
        return JSON.parse(f.content).length;"#;
    let (out, failed) = first.execute(program, json!({}));
    assert!(!failed, "{out}");
    assert_eq!(out["result"], json!(2));
    let (out, failed) = second.execute(program, json!({}));
    assert!(!failed, "{out}");
    assert_eq!(out["result"], json!(2));
    let found = second.call("search_tools", json!({"query": "echo"}));
    assert_eq!(
        found["structuredContent"]["tools"][0]["name"],
        json!("everything:echo")
    );
    first.close();
    second.close();
    let servers = children_of(gateway.child.id());
    assert_eq!(gateway.stop(), Some(0));
    for pid in servers {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            stat.is_empty() || stat.contains(") Z"),
            "server {pid} outlived the gateway"
        );
    }
}

#[test]
fn two_gateways_on_one_postgres_store_behave_as_one() {
    let Some(url) = crate::postgres::url() else {
        return;
    };
    let store = crate::postgres::fresh_database(&url);
    let dir = folder();
    let mut a = Client::on_store(dir.path(), &store, &[], &[]);
    let mut b = Client::on_store(dir.path(), &store, &[], &[]);
    // Saved through one, found and run through the other.
    let code = r#"const f = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
return JSON.parse(f.content).filter(u => u.active).length;"#;
    let saved = a.call(
        "save_capability",
        json!({"code": code, "name": "active_users"}),
    );
    assert_eq!(
        saved["structuredContent"]["outcome"],
        json!("created"),
        "{saved}"
    );
    let found = b.call("search_capabilities", json!({"query": "active"}));
    assert_eq!(
        found["structuredContent"]["capabilities"][0]["name"],
        json!("active_users")
    );
    let ran = b.call("run_capability", json!({"name": "active_users"}));
    assert_eq!(ran["structuredContent"]["result"], json!(1), "{ran}");
    let (out, failed) = a.execute("return await capabilities.active_users({}) + 1;", json!({}));
    assert!(!failed, "{out}");
    assert_eq!(out["result"], json!(2));
    // Paused through one, approved through the other, once.
    let write = r#"await mcp.filesystem.write_file({ path: args.root + "/out.txt", content: "from a" });
return "written";"#;
    let (out, _) = a.execute(write, json!({}));
    assert_eq!(out["status"], json!("paused"), "{out}");
    let run_id = out["runId"].as_str().unwrap().to_owned();
    let first = b.send(json!({"op": "callTool", "name": "approve", "arguments": {"runId": run_id, "decision": "approve"}}));
    let second = a.send(json!({"op": "callTool", "name": "approve", "arguments": {"runId": run_id, "decision": "approve"}}));
    let answers = [b.wait(first), a.wait(second)];
    let done: Vec<&Value> = answers
        .iter()
        .filter(|a| a["result"]["structuredContent"]["result"] == json!("written"))
        .collect();
    assert_eq!(done.len(), 1, "approved once: {answers:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "from a"
    );
    // Every execute of both is a run of the one store, and learning covers them all.
    let (out, _) = b.execute("return 40 + 2;", json!({}));
    let id = out["runId"].as_str().unwrap().to_owned();
    let seen = a.ask(json!({"op": "readResource", "uri": format!("pml://runs/{id}")}));
    assert!(
        seen["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("42"),
        "{seen}"
    );
    let learned = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["learn", "--json", "--store", &store])
        .output()
        .unwrap();
    let learned: Value = serde_json::from_slice(&learned.stdout).unwrap();
    let runs = learned["runs"].as_u64().unwrap_or(0);
    assert!(runs >= 5, "learning covers both gateways' runs: {learned}");
    a.close();
    b.close();
}

#[test]
fn pml_itself_drives_a_gateway_through_rmcp() {
    // `pml run`'s MCP client (rmcp) with `pml serve` as its only downstream server.
    let dir = folder();
    let config = dir.path().join("gateway.json");
    let config_text = json!({"mcpServers": {"gateway": {
        "command": env!("CARGO_BIN_EXE_pml"),
        "args": ["serve", "--no-store", "--root", dir.path()],
    }}});
    std::fs::write(&config, config_text.to_string()).unwrap();
    let program = dir.path().join("outer.ts");
    std::fs::write(
        &program,
        r#"const inner = `const f = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
return JSON.parse(f.content).map(u => u.name);`;
const ran = await mcp.gateway.execute({ code: inner });
const found = await mcp.gateway.search_tools({ query: "list directory", limit: 1 });
const failed = await mcp.gateway.execute({ code: "throw new Error('inner')" }).catch(e => String(e));
return { names: ran.result, ok: ran.ok, tool: found.tools[0].name, failed };"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pml"))
        .arg("run")
        .arg(&program)
        .arg("--mcp-config")
        .arg(&config)
        .arg("--no-store")
        .env("PML_MCP_SERVERS", SERVERS)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&out.stderr));
    });
    assert_eq!(report["ok"], json!(true), "{report}");
    assert_eq!(report["result"]["names"], json!(["ada", "bob"]));
    assert_eq!(report["result"]["ok"], json!(true));
    assert_eq!(report["result"]["tool"], json!("filesystem:list_directory"));
    assert!(
        report["result"]["failed"]
            .as_str()
            .unwrap()
            .contains("inner"),
        "{report}"
    );
}

#[test]
fn a_project_config_that_declares_the_gateway_does_not_start_it_again() {
    // The `.mcp.json` an agent client reads to start `pml serve` is also the one the gateway
    // reads for its own servers: it leaves itself out (here: nothing else, so the reference
    // servers serve).
    let dir = folder();
    let config = json!({"mcpServers": {"pml": {"command": "pml", "args": ["serve"]}}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let mut client = Client::start(dir.path(), &[], &[]);
    let (out, failed) = client.execute(
        "const l = await mcp.filesystem.list_directory({ path: args.root }); return l.content.includes('users.json');",
        json!({}),
    );
    assert!(!failed, "{out}");
    assert_eq!(out["result"], json!(true));
    client.close();
}

#[test]
fn a_run_continues_the_clients_trace() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (done, finished) = std::sync::mpsc::channel();
    let collector = std::thread::spawn(move || crate::otlp::receive(listener, finished));
    let dir = folder();
    let mut client = Client::start(dir.path(), &["--otlp", &url], &[]);
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    let traceparent = format!("00-{trace}-{parent}-01");
    let answer = client.ask(json!({
        "op": "callTool",
        "name": "execute",
        "arguments": {"code": "return await mcp.everything.echo({ message: 'traced' });"},
        "meta": {"traceparent": traceparent, "tracestate": "vendor=x"},
    }));
    let out = &answer["result"]["structuredContent"];
    assert_eq!(out["ok"], json!(true), "{answer}");
    let id = out["runId"].as_str().unwrap().to_owned();
    let run = client.ask(json!({"op": "readResource", "uri": format!("pml://runs/{id}")}));
    let run: Value =
        serde_json::from_str(run["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        run["traceContext"],
        json!({"traceparent": traceparent, "tracestate": "vendor=x"})
    );
    // The spans are sent after the answer.
    std::thread::sleep(Duration::from_secs(2));
    client.close();
    done.send(()).unwrap();
    let bodies = collector.join().unwrap();
    let spans: Vec<&Value> = bodies
        .iter()
        .flat_map(|b| b["resourceSpans"].as_array().into_iter().flatten())
        .flat_map(|r| r["scopeSpans"].as_array().into_iter().flatten())
        .flat_map(|s| s["spans"].as_array().into_iter().flatten())
        .collect();
    let run_span = spans
        .iter()
        .find(|s| s["name"] == json!("pml run execute"))
        .unwrap_or_else(|| panic!("no run span in {bodies:?}"));
    assert_eq!(run_span["traceId"].as_str().unwrap().to_lowercase(), trace);
    assert_eq!(
        run_span["parentSpanId"].as_str().unwrap().to_lowercase(),
        parent
    );
    let call = spans
        .iter()
        .find(|s| s["name"] == json!("execute_tool everything:echo"))
        .expect("the call's span");
    assert_eq!(call["parentSpanId"], run_span["spanId"]);
}

#[test]
fn a_crashed_server_fails_the_program_that_saw_it_and_the_next_gets_a_fresh_one() {
    let dir = folder();
    let config = dir.path().join("bad.json");
    let script = format!("{SERVERS}/misbehaving-server.mjs");
    let text = json!({"mcpServers": {"bad": {"command": "node", "args": [script]}}});
    std::fs::write(&config, text.to_string()).unwrap();
    let mut client = Client::with_config(dir.path(), &config);
    let (first, failed) = client.execute("return await mcp.bad.pid({});", json!({}));
    assert!(!failed, "{first}");
    let (out, failed) = client.execute(
        "await mcp.bad.crash({ code: 3 }); return 'unreachable';",
        json!({}),
    );
    assert!(failed, "{out}");
    assert!(out["error"].as_str().unwrap().contains("crashed"), "{out}");
    let (second, failed) = client.execute("return await mcp.bad.pid({});", json!({}));
    assert!(!failed, "{second}");
    assert_ne!(first["result"], second["result"], "a fresh server");
    client.close();
}

#[test]
fn capabilities_as_tools_of_their_own() {
    let dir = folder();
    let mut client = Client::start(dir.path(), &["--capabilities-as-tools"], &[]);
    let names = |listed: &Value| -> Vec<String> {
        (listed["result"]["tools"].as_array().into_iter().flatten())
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let before = client.ask(json!({"op": "listTools"}));
    assert!(!names(&before).iter().any(|n| n.starts_with("cap_")));
    let code = r#"const f = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
return JSON.parse(f.content).length;"#;
    client.call(
        "save_capability",
        json!({"code": code, "name": "count:users", "description": "How many users"}),
    );
    // The notification is sent before the save answers; the next answer counts it.
    let after = client.ask(json!({"op": "listTools"}));
    assert!(after["listChanged"].as_u64().unwrap() >= 1, "{after}");
    assert!(
        names(&after).contains(&"cap_count_users".to_owned()),
        "{after}"
    );
    let ran = client.call("cap_count_users", json!({}));
    assert_eq!(ran["structuredContent"]["result"], json!(2), "{ran}");
    client.close();
}

#[test]
fn capabilities_saved_through_another_gateway_are_announced() {
    // Two gateways on one store: what the second saves, the first's clients are told of
    // (`tools/list_changed`) and find among its tools, within a few polls.
    let dir = folder();
    let store = dir.path().join("store.sqlite").display().to_string();
    let mut watching = Client::on_store(dir.path(), &store, &["--capabilities-as-tools"], &[]);
    let mut saving = Client::on_store(dir.path(), &store, &[], &[]);
    let first = watching.ask(json!({"op": "listTools"}));
    let told = first["listChanged"].as_u64().unwrap();
    let code = "return await mcp.everything.echo({ message: args.m });";
    let saved = saving.call("save_capability", json!({"code": code, "name": "say"}));
    assert_eq!(
        saved["structuredContent"]["outcome"],
        json!("created"),
        "{saved}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let listed = watching.ask(json!({"op": "listTools"}));
        let named = (listed["result"]["tools"].as_array().into_iter().flatten())
            .any(|t| t["name"] == json!("cap_say"));
        if listed["listChanged"].as_u64().unwrap() > told && named {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never announced: {listed}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    saving.close();
    watching.close();
}

#[test]
fn a_runaway_program_does_not_hold_up_the_others() {
    let dir = folder();
    let mut client = Client::start(dir.path(), &["--code-timeout-ms", "8000"], &[]);
    let runaway = client.send(json!({
        "op": "callTool",
        "name": "execute",
        "arguments": {"code": "let n = 0; while (true) { n++; } return n;"},
    }));
    std::thread::sleep(Duration::from_millis(200));
    let (out, failed) = client.execute(
        "return await mcp.everything.echo({ message: 'meanwhile' });",
        json!({}),
    );
    assert!(!failed, "{out}");
    // Answered while the loop still runs (it runs until its 8 s limit).
    assert!(!client.answered(runaway), "the loop ended first");
    let answer = client.wait(runaway);
    let out = &answer["result"]["structuredContent"];
    assert_eq!(out["ok"], json!(false), "{answer}");
    assert!(out["error"].as_str().unwrap().contains("time"), "{answer}");
    client.close();
}

#[test]
fn progress_comes_before_the_answer() {
    // Raw JSON-RPC on the gateway's stdio: every progress notification of a call is written
    // before its answer, numbered 1, 2, 3.
    let dir = folder();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["serve", "--no-store", "--root"])
        .arg(dir.path())
        .current_dir(dir.path())
        .env("PML_MCP_SERVERS", SERVERS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = gateway.stdin.take().unwrap();
    let mut lines = BufReader::new(gateway.stdout.take().unwrap()).lines();
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    );
    let initialized = lines.next().unwrap().unwrap();
    assert!(initialized.contains("\"id\":0"), "{initialized}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "execute",
        "arguments": {"code": "for (const m of ['a', 'b', 'c']) await mcp.everything.echo({ message: m }); return 3;"},
        "_meta": {"progressToken": "p1"}}}),
    );
    let mut progress = Vec::new();
    loop {
        let line = lines.next().expect("an answer").unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == json!("notifications/progress") {
            assert_eq!(message["params"]["progressToken"], json!("p1"));
            progress.push(message["params"]["progress"].as_f64().unwrap());
            continue;
        }
        assert_eq!(message["id"], json!(1), "{line}");
        break;
    }
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    drop(stdin);
    let _ = gateway.wait();
}

/// Requests whose params do not fit their method get JSON-RPC's invalid params (-32602) saying
/// why, a method no one knows method not found (-32601), as a raw client sees them on stdio.
/// A `pml serve` on stdio given `lines` as a raw client writes them (after `initialize`): the
/// answers with an id above 1, by id, once `count` have come.
fn raw_answers(lines: &[&str], count: usize) -> std::collections::BTreeMap<u64, Value> {
    let dir = folder();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["serve", "--no-store", "--root"])
        .arg(dir.path())
        .env("PML_MCP_SERVERS", SERVERS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = gateway.stdin.take().unwrap();
    let opening = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ];
    for line in opening.iter().chain(lines) {
        writeln!(stdin, "{line}").unwrap();
    }
    let mut answers = std::collections::BTreeMap::new();
    for line in BufReader::new(gateway.stdout.take().unwrap()).lines() {
        let answer: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if let Some(id) = answer["id"].as_u64().filter(|&id| id > 1) {
            answers.insert(id, answer);
        }
        if answers.len() == count {
            break;
        }
    }
    drop(stdin);
    let _ = gateway.kill();
    let _ = gateway.wait();
    answers
}

#[test]
fn malformed_requests_get_json_rpc_codes() {
    let answers = raw_answers(
        &[
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":"return 1"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/nonsense","params":{}}"#,
        ],
        4,
    );
    let answers: std::collections::BTreeMap<u64, Value> = (answers.into_iter())
        .map(|(id, a)| (id, a["error"].clone()))
        .collect();
    let code = |id: u64| answers[&id]["code"].as_i64();
    assert_eq!(
        [code(2), code(3), code(4), code(5)],
        [Some(-32602), Some(-32602), Some(-32602), Some(-32601)],
        "{answers:?}"
    );
    assert_eq!(
        answers[&3]["message"],
        json!("tools/call: invalid params: missing field `name`")
    );
}

/// A lone surrogate a JavaScript client writes (`\ud800`, as `JSON.stringify` writes one)
/// reaches the program as that code unit: the request was dropped (serde_json refuses the
/// escape) and the client waited for ever.
#[test]
fn a_lone_surrogate_in_a_request_reaches_the_program() {
    let answers = raw_answers(
        &[
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\ud800"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute","arguments":{"code":"const s = \"a\ud800b\";\nreturn [s.length, s.charCodeAt(1), args.t.length];","args":{"t":"\udc00"}}}}"#,
        ],
        2,
    );
    assert_eq!(answers[&2]["result"], json!({}));
    assert_eq!(
        answers[&3]["result"]["structuredContent"]["result"],
        json!([3, 0xd800, 1]),
        "{:?}",
        answers[&3]
    );
}
