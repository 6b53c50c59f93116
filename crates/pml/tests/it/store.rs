//! `pml save` and `pml capabilities` on a SQLite store in a temporary directory.

use std::process::Command;

pub(crate) fn pml_in(store: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(args)
        .env("PML_STORE", store)
        .output()
        .expect("run pml");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const PROGRAM: &str = r#"const file = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
const names = JSON.parse(file.content).filter((u) => u.active).map((u) => u.name);
const load = async (n) => mcp.memory.open_nodes({ names: [n] });
for (const n of names) await load(n);
return names;
"#;

/// The same program: other names (its helper's too), other layout, comments.
const RENAMED: &str = r#"// users
const f = await mcp.filesystem.read_text_file({path: args.root + '/users.json'})
const active = JSON.parse(f.content).filter(x => x.active).map(x => x.name)
const fetchOne = async (who) => mcp.memory.open_nodes({ names: [who] })
for (const who of active) { await fetchOne(who) }
return active
"#;

#[test]
fn saving_the_same_program_twice_adds_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let a = dir.path().join("a.ts");
    let b = dir.path().join("b.ts");
    let c = dir.path().join("c.ts");
    std::fs::write(&a, PROGRAM).unwrap();
    std::fs::write(&b, RENAMED).unwrap();
    std::fs::write(&c, PROGRAM.replace("open_nodes", "delete_entities")).unwrap();
    let save = |file: &std::path::Path, name: &str| {
        let file = file.display().to_string();
        pml_in(&store, &["save", &file, "--name", name, "--json"])
    };

    let (code, out, err) = save(&a, "load_users");
    assert_eq!(code, 0, "{err}");
    let first: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(first["outcome"], "created");
    let (code, out, err) = save(&b, "users");
    assert_eq!(code, 0, "{err}");
    let second: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(second["outcome"], "alias", "{out}");
    assert_eq!(second["codeHash"], first["codeHash"]);
    // Another tool through the helper: another capability.
    let (code, out, err) = save(&c, "drop_users");
    assert_eq!(code, 0, "{err}");
    let third: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(third["outcome"], "created");
    assert_ne!(third["codeHash"], first["codeHash"]);
    // A taken name: exit 1, the reason on stderr.
    let (code, _, err) = save(&c, "users");
    assert_eq!(code, 1);
    assert!(err.contains("--replace"), "{err}");

    let (code, out, _) = pml_in(&store, &["capabilities", "--json"]);
    assert_eq!(code, 0);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    let (code, out, _) = pml_in(&store, &["capabilities", "show", "users", "--json"]);
    assert_eq!(code, 0);
    let shown: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(shown["names"], serde_json::json!(["load_users", "users"]));
    assert_eq!(
        shown["tools"],
        serde_json::json!(["filesystem:read_text_file", "memory:open_nodes"])
    );
    assert_eq!(shown["code"], PROGRAM);
    assert!(shown["structure"]["nodes"].is_array());
    // Readable without --json.
    let (code, out, _) = pml_in(&store, &["capabilities"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("HASH"), "{out}");
    assert!(out.contains("load_users, users"), "{out}");
    let (code, _, err) = pml_in(&store, &["capabilities", "show", "nobody"]);
    assert_eq!(
        (code, err.trim()),
        (1, "pml: no capability named or hashed `nobody`")
    );
}

#[test]
fn a_program_with_errors_is_not_saved() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let bad = dir.path().join("bad.ts");
    std::fs::write(&bad, "await mcp.fs.read({ path: ").unwrap();
    let (code, _, err) = pml_in(&store, &["save", &bad.display().to_string(), "--name", "x"]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.ts:1:"), "{err}");
    let (_, out, _) = pml_in(&store, &["capabilities", "--json"]);
    assert_eq!(out.trim(), "[]");
}

#[test]
fn an_unusable_store_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, "not a database, just some text that is long enough").unwrap();
    let (code, _, err) = pml_in(&junk.display().to_string(), &["capabilities"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a pml store"), "{err}");
    let (code, _, err) = pml_in("postgres://pml@127.0.0.1:1/x", &["capabilities"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot open"), "{err}");
}

#[test]
fn eight_processes_saving_and_running_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let empty = dir.path().join("no-servers.json");
    std::fs::write(&empty, r#"{"mcpServers": {}}"#).unwrap();
    let mut children = Vec::new();
    for p in 0..8 {
        // Each process saves a program of its own and the shared one under its own name.
        let own = dir.path().join(format!("own{p}.ts"));
        std::fs::write(&own, format!("await mcp.fs.read_{p}({{ path: 'x' }});")).unwrap();
        let shared = dir.path().join(format!("shared{p}.ts"));
        std::fs::write(
            &shared,
            format!("// {p}\nawait mcp.fs.stat({{ path: 'y' }});"),
        )
        .unwrap();
        // And runs a program (no servers: its runs are only written to the store).
        let pure = dir.path().join(format!("pure{p}.ts"));
        std::fs::write(&pure, format!("return [{p}, args.n];")).unwrap();
        children.push(
            Command::new(env!("CARGO_BIN_EXE_pml"))
                .args(["run", &pure.display().to_string(), "--args", r#"{"n": 1}"#])
                .args(["--mcp-config", &empty.display().to_string()])
                .env("PML_STORE", &store)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap(),
        );
        for (file, name) in [(own, format!("own{p}")), (shared, format!("shared{p}"))] {
            children.push(
                Command::new(env!("CARGO_BIN_EXE_pml"))
                    .args(["save", &file.display().to_string(), "--name", &name])
                    .env("PML_STORE", &store)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap(),
            );
        }
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (_, out, _) = pml_in(&store, &["capabilities", "--json"]);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 9, "{out}");
    let names: usize = list
        .iter()
        .map(|c| c["names"].as_array().unwrap().len())
        .sum();
    assert_eq!(names, 16);
    let (_, out, _) = pml_in(&store, &["runs", "--json"]);
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 8, "{out}");
    assert!(runs
        .iter()
        .all(|r| r["ok"] == true && r["finished"] == true));
}

/// A program with a decision and a loop, against the reference servers.
const BRANCHY: &str = r#"const listing = await mcp.filesystem.list_directory({ path: args.root });
const files = listing.content.split("\n").filter((l) => l.startsWith("[FILE]"));
let total = 0;
for (const f of files) {
  const text = await mcp.filesystem.read_text_file({ path: args.root + "/" + f.slice(7) });
  total += text.content.length;
}
if (total > 3) {
  return { files: files.length, total };
}
return null;
"#;

#[test]
fn every_run_is_recorded_unless_asked_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let program = dir.path().join("count.ts");
    std::fs::write(&program, BRANCHY).unwrap();
    let data = dir.path().join("count");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("a.txt"), "hello").unwrap();
    std::fs::write(data.join("b.txt"), "world!").unwrap();
    let file = program.display().to_string();

    let (code, out, err) = pml_in(&store, &["run", &file]);
    assert_eq!(code, 0, "{err}");
    let ran: serde_json::Value = serde_json::from_str(&out).unwrap();
    let id = ran["runId"].as_str().expect("runId").to_string();
    assert_eq!(
        ran["result"],
        serde_json::json!({ "files": 2, "total": 11 })
    );

    let (code, out, _) = pml_in(&store, &["runs", "show", &id, "--json"]);
    assert_eq!(code, 0);
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(run["ok"], true);
    assert_eq!(run["result"], ran["result"]);
    assert_eq!(run["calls"], 3);
    assert_eq!(run["trace"], ran["trace"]);
    assert_eq!(run["executedPath"], ran["executedPath"]);
    assert_eq!(
        run["decisions"],
        serde_json::json!([{ "taskId": "d1", "outcome": "true", "iteration": [] }])
    );
    // The program's hash is the one `pml hash` and `pml save` give it.
    let (_, hash, _) = pml_in(&store, &["hash", &file]);
    assert_eq!(run["programHash"], hash.trim());

    // Saved afterwards, the capability owns its earlier runs.
    pml_in(&store, &["save", &file, "--name", "count_bytes"]);
    let (_, out, _) = pml_in(&store, &["runs", "--capability", "count_bytes", "--json"]);
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1);
    assert_eq!(runs[0]["capability"], serde_json::json!(["count_bytes"]));

    let (code, out, _) = pml_in(&store, &["run", &file, "--no-store"]);
    assert_eq!(code, 0);
    assert!(!out.contains("runId"));
    let (_, out, _) = pml_in(&store, &["runs", "--json"]);
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1);
    let (code, out, _) = pml_in(&store, &["runs"]);
    assert_eq!(code, 0);
    assert!(out.contains(&id) && out.contains("count_bytes"), "{out}");
    let (code, _, err) = pml_in(&store, &["runs", "show", "ffffffffffff"]);
    assert_eq!((code, err.trim()), (1, "pml: no run `ffffffffffff`"));
}

/// Five writes and five reads... of the real filesystem server, in a folder of its own: each
/// step writes a file, moves it (a write that fails when repeated: the source is gone) and
/// lists the folder (a read).
const STEPS: &str = r#"const seen: number[] = [];
for (let i = 1; i <= 5; i++) {
  await mcp.filesystem.write_file({ path: `${args.dir}/step${i}.tmp`, content: `step ${i}` });
  await mcp.filesystem.move_file({ source: `${args.dir}/step${i}.tmp`, destination: `${args.dir}/step${i}.txt` });
  const listing = await mcp.filesystem.list_directory({ path: args.dir });
  seen.push(listing.content.split("\n").length);
}
return seen;
"#;

/// The files of folder `dir`, by name, with their text.
pub(crate) fn files_in(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let text = std::fs::read_to_string(e.path()).unwrap();
            (e.file_name().to_string_lossy().into_owned(), text)
        })
        .collect();
    files.sort();
    files
}

/// A program run on the real filesystem server serving a folder of its own (`args.dir`),
/// recorded in a store of its own.
pub(crate) struct Steps {
    pub dir: tempfile::TempDir,
    pub store: String,
    pub program: String,
    pub config: String,
    pub args: String,
}

impl Steps {
    fn new() -> Steps {
        Steps::with(STEPS)
    }

    pub(crate) fn with(program_text: &str) -> Steps {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let data = data.canonicalize().unwrap();
        let program = dir.path().join("steps.ts");
        std::fs::write(&program, program_text).unwrap();
        let server = pml::servers::mcp_servers_dir()
            .join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
        let config = dir.path().join("mcp.json");
        let json = serde_json::json!({ "mcpServers": { "filesystem": {
            "command": "node", "args": [server, data] } } });
        std::fs::write(&config, json.to_string()).unwrap();
        Steps {
            store: dir.path().join("store.sqlite").display().to_string(),
            program: program.display().to_string(),
            config: config.display().to_string(),
            args: serde_json::json!({ "dir": data }).to_string(),
            dir,
        }
    }

    pub(crate) fn data(&self) -> Vec<(String, String)> {
        files_in(&self.dir.path().join("data"))
    }

    /// `pml run` of the program with its config and args, recorded in its store.
    pub(crate) fn run(&self) -> (i32, String, String) {
        pml_in(
            &self.store,
            &[
                "run",
                &self.program,
                "--mcp-config",
                &self.config,
                "--args",
                &self.args,
            ],
        )
    }

    /// `pml run` with a fault that stops it still at `fault` (`PML_FAULT_...=n`), killed
    /// there with SIGKILL; the id of the run, from the store.
    fn killed(&self, fault: &str, n: usize) -> String {
        self.killed_if_reached(fault, n)
            .expect("the run stops at the fault")
    }

    /// [`Steps::killed`], or `None` when the run ended without reaching the fault (call `n`
    /// is not an MCP call).
    pub(crate) fn killed_if_reached(&self, fault: &str, n: usize) -> Option<String> {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_pml"))
            .args(["run", &self.program, "--mcp-config", &self.config])
            .args(["--args", &self.args])
            .env("PML_STORE", &self.store)
            .env(fault, n.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = std::io::BufReader::new(stderr).lines();
        let Some(marker) = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("pml-fault:")))
        else {
            child.wait().unwrap();
            return None;
        };
        let marker = marker.unwrap();
        assert!(marker.ends_with(&format!("call {n}")), "{marker}");
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (_, out, _) = pml_in(&self.store, &["runs", "--json"]);
        let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
        let run = &runs[0];
        assert_eq!(run["finished"], false, "{run}");
        Some(run["id"].as_str().unwrap().to_string())
    }

    pub(crate) fn resume(&self, id: &str, extra: &[&str]) -> (i32, serde_json::Value, String) {
        let mut args = vec![
            "run",
            &self.program,
            "--mcp-config",
            &self.config,
            "--resume",
            id,
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = pml_in(&self.store, &args);
        (code, serde_json::from_str(&out).unwrap_or_default(), err)
    }
}

#[test]
fn a_run_killed_after_any_call_resumes_to_the_same_end() {
    let whole = Steps::new();
    let (code, out, err) = pml_in(
        &whole.store,
        &[
            "run",
            &whole.program,
            "--mcp-config",
            &whole.config,
            "--args",
            &whole.args,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let expected: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(expected["result"], serde_json::json!([1, 2, 3, 4, 5]));
    let files = whole.data();
    assert_eq!(files.len(), 5);
    for n in 1..=15 {
        let steps = Steps::new();
        let id = steps.killed("PML_FAULT_PAUSE_AFTER_CALL", n);
        let (code, resumed, err) = steps.resume(&id, &[]);
        assert_eq!(code, 0, "killed after call {n}: {err}");
        // The same result and the same files: no completed write ran twice (a second
        // move_file would fail), none was lost.
        assert_eq!(
            resumed["result"], expected["result"],
            "killed after call {n}"
        );
        assert_eq!(steps.data(), files, "killed after call {n}");
        let replayed = (resumed["trace"].as_array().unwrap().iter())
            .filter(|e| e["event"] == "tool_end" && e["replayed"] == true)
            .count();
        assert_eq!(replayed, n, "killed after call {n}");
    }
}

#[test]
fn a_call_in_flight_at_the_kill_is_said_and_decided() {
    // Killed inside a write (it answered, its end was not written): it may or may not have
    // happened, so resuming stops and says which, until told what to do.
    let steps = Steps::new();
    let id = steps.killed("PML_FAULT_PAUSE_IN_CALL", 5);
    let (code, _, err) = steps.resume(&id, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("call 5 (filesystem:move_file at node n2")
            && err.contains("--resume-uncertain"),
        "{err}"
    );
    // Skipped: the program's call fails with that reason (and nothing ran twice).
    let (code, out, _) = steps.resume(&id, &["--resume-uncertain", "skip"]);
    assert_eq!(code, 1);
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("may or may not have happened"),
        "{out}"
    );

    // Killed inside a read: run again without asking.
    let steps = Steps::new();
    let id = steps.killed("PML_FAULT_PAUSE_IN_CALL", 6);
    let (code, out, err) = steps.resume(&id, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["result"], serde_json::json!([1, 2, 3, 4, 5]));
}

#[test]
fn resuming_another_program_or_other_args_is_refused() {
    let steps = Steps::new();
    let id = steps.killed("PML_FAULT_PAUSE_AFTER_CALL", 2);
    let (code, _, err) = steps.resume(&id, &["--args", r#"{"dir":"/elsewhere"}"#]);
    assert_eq!(code, 2);
    assert!(err.contains("args"), "{err}");
    std::fs::write(&steps.program, STEPS.replace("i <= 5", "i <= 6")).unwrap();
    let (code, _, err) = steps.resume(&id, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("program is not the one it ran"), "{err}");
    let (code, _, err) = steps.resume("ffffffffffff", &[]);
    assert_eq!((code, err.trim()), (2, "pml: no run `ffffffffffff`"));
}

/// Reads the clock and `Math.random()` between writes that carry what it read.
const READS: &str = r#"const t = Date.now();
const r = Math.random();
await mcp.filesystem.write_file({ path: `${args.dir}/a.txt`, content: `${t} ${r}` });
const t2 = new Date().toISOString();
await mcp.filesystem.write_file({ path: `${args.dir}/b.txt`, content: t2 });
const listing = await mcp.filesystem.list_directory({ path: args.dir });
return { t, r, t2, files: listing.content.split("\n").length };
"#;

#[test]
fn a_resumed_run_reads_the_clock_and_random_values_the_killed_one_read() {
    for n in 1..=3 {
        let steps = Steps::with(READS);
        let id = steps.killed("PML_FAULT_PAUSE_AFTER_CALL", n);
        let (_, out, _) = pml_in(&steps.store, &["runs", "show", &id, "--json"]);
        let killed: serde_json::Value = serde_json::from_str(&out).unwrap();
        let (code, resumed, err) = steps.resume(&id, &[]);
        assert_eq!(code, 0, "killed after call {n}: {err}");
        // Every call the killed run completed is answered from its journal: the program
        // computed the same arguments, from the same clock and random values.
        let replayed = (resumed["trace"].as_array().unwrap().iter())
            .filter(|e| e["event"] == "tool_end" && e["replayed"] == true)
            .count();
        assert_eq!(replayed, n, "killed after call {n}: {resumed}");
        let result = &resumed["result"];
        let files = steps.data();
        let (t, r) = (result["t"].as_f64().unwrap(), result["r"].as_f64().unwrap());
        assert_eq!(files[0], ("a.txt".into(), format!("{t} {r}")), "{killed}");
        assert!(t > 1.7e12 && (0.0..1.0).contains(&r), "{result}");
        if n >= 2 {
            assert_eq!(files[1].1, result["t2"].as_str().unwrap());
        }
        assert_eq!(result["files"], 2);
    }
}

#[test]
fn calls_that_do_not_fit_the_servers_are_refused_before_anything_runs() {
    let steps = Steps::with(
        r#"await mcp.filesystem.write_file({ path: `${args.dir}/first.txt`, content: "x" });
const a = await mcp.filesystem.read_txt_file({ path: `${args.dir}/first.txt` });
const b = await mcp.filesytem.read_text_file({ path: "x" });
const c = await mcp.filesystem.read_text_file({ head: 2 });
const d = await mcp.filesystem.read_text_file({ path: 42, head: "3" });
return [a, b, c, d];
"#,
    );
    let (code, out, err) = pml_in(
        &steps.store,
        &[
            "run",
            &steps.program,
            "--mcp-config",
            &steps.config,
            "--args",
            &steps.args,
        ],
    );
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    let file = &steps.program;
    assert_eq!(
        lines,
        [
            format!("{file}:2:17: mcp.filesystem.read_txt_file: server `filesystem` has no tool `read_txt_file`; did you mean `read_text_file`?"),
            format!("{file}:3:17: mcp.filesytem.read_text_file: no server `filesytem` is configured in {}; did you mean `filesystem`?", steps.config),
            format!("{file}:4:17: mcp.filesystem.read_text_file: the required argument `path` is missing"),
            format!("{file}:5:17: mcp.filesystem.read_text_file: the argument `path` is an integer, the tool takes a string"),
            format!("{file}:5:17: mcp.filesystem.read_text_file: the argument `head` is a string, the tool takes a number"),
        ]
    );
    // Nothing ran: the write before them did not happen, and no run is recorded.
    assert_eq!(steps.data(), []);
    let (_, out, _) = pml_in(&steps.store, &["runs", "--json"]);
    assert_eq!(out.trim(), "[]");
    // Arguments read but not given: a warning, and the run goes on.
    let warned = Steps::with(
        "const listing = await mcp.filesystem.list_directory({ path: args.dir });\nreturn { listing, limit: args.limit };\n",
    );
    let (code, _, err) = pml_in(
        &warned.store,
        &[
            "run",
            &warned.program,
            "--mcp-config",
            &warned.config,
            "--args",
            &warned.args,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "{}:2:1: args.limit is read but not given (--args): it is undefined (a warning)",
            warned.program
        )
    );
}

/// A call that would fail but that the program may not make, or whose failure it catches, does
/// not stop the run: running it directly would go on (the fallback), so pml does, with a
/// warning. Only calls it is certain to make with nothing to catch their failure are refused.
#[test]
fn calls_that_may_not_fit_are_warnings_and_the_program_runs() {
    let steps = Steps::with(
        r#"let text;
try {
  text = (await mcp.filesystem.read_txt_file({ path: `${args.dir}/a.txt` })).content;
} catch (e) {
  text = "fallback";
}
const listed = await mcp.filesystem.list_dir({ path: args.dir }).catch(() => null);
if (args.never) await mcp.filesytem.read_text_file({ path: "x" });
await mcp.filesystem.write_file({ path: `${args.dir}/out.txt`, content: text });
return { text, listed };
"#,
    );
    let (code, out, err) = steps.run();
    assert_eq!(code, 0, "{err}");
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        out["result"],
        serde_json::json!({"text": "fallback", "listed": null})
    );
    assert_eq!(
        steps.data(),
        [("out.txt".to_owned(), "fallback".to_owned())]
    );
    let warnings: Vec<&str> = err.lines().collect();
    assert_eq!(warnings.len(), 3, "{err}");
    assert!(
        (warnings.iter()).all(|w| w.ends_with(
            "(a warning: the program may not make this call, or may catch its failure)"
        )),
        "{err}"
    );
    // The same call outside the `try`: certain, refused, nothing ran.
    let refused = Steps::with(
        "await mcp.filesystem.write_file({ path: `${args.dir}/out.txt`, content: \"x\" });\nreturn await mcp.filesystem.read_txt_file({ path: args.dir });\n",
    );
    let (code, _, err) = refused.run();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("has no tool `read_txt_file`"), "{err}");
    assert!(!err.contains("a warning"), "{err}");
    assert_eq!(refused.data(), []);
}

#[test]
fn a_store_that_cannot_be_used_is_said_plainly_with_a_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("not-a-store.sqlite");
    std::fs::write(
        &bad,
        "this is not a database, only some text long enough to be read",
    )
    .unwrap();
    let file = format!("{}/../../examples/branches.ts", env!("CARGO_MANIFEST_DIR"));
    let (code, _, err) = crate::pml(&["run", &file, "--store", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not a pml store (file is not a database)"),
        "{err}"
    );
    assert!(err.contains("--no-store"), "{err}");
    assert!(!err.contains("error returned from database"), "{err}");
    assert!(!err.contains("code: 26"), "{err}");
}

#[test]
fn a_program_with_an_enum_has_one_hash_for_hash_save_and_run() {
    // Compiled, an enum is code that runs: the hash is of that JavaScript, whichever command
    // computes it.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let program = dir.path().join("levels.ts");
    std::fs::write(
        &program,
        "enum Level { Low = 1, High = 5 }\nconst pick: Level = args.high ? Level.High : Level.Low;\nreturn { pick, name: Level[pick] };\n",
    )
    .unwrap();
    let file = program.display().to_string();
    let (code, out, err) = pml_in(&store, &["run", &file, "--args", r#"{"high":true}"#]);
    assert_eq!(code, 0, "{err}");
    let ran: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        ran["result"],
        serde_json::json!({ "pick": 5, "name": "High" })
    );
    let (_, out, _) = pml_in(
        &store,
        &["runs", "show", ran["runId"].as_str().unwrap(), "--json"],
    );
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (code, hash, err) = pml_in(&store, &["hash", &file]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = pml_in(&store, &["save", &file, "--name", "levels", "--json"]);
    assert_eq!(code, 0, "{err}");
    let saved: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(run["programHash"], hash.trim());
    assert_eq!(saved["codeHash"], hash.trim());
}
