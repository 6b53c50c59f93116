//! `pml run` and `pml::run` against the real reference servers (the default config): the
//! examples, write ordering, failures and exit statuses, approvals, traces, no leftover
//! processes, and the equivalence of runs with and without speculation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pml::run::{run_file, ApproveMode, RunOptions};
use pml_executor::RunReport;
use serde_json::{json, Value};

use super::pml;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(format!("{name}.ts"))
}

fn run(file: &Path, options: RunOptions) -> RunReport {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(run_file(file, &options))
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .report
}

/// A scratch program file (its data folder, if any, beside it).
struct TempProgram {
    dir: PathBuf,
    file: PathBuf,
}

impl TempProgram {
    fn new(tag: &str, name: &str, source: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("pml-run-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(name);
        std::fs::write(&file, source).unwrap();
        TempProgram { dir, file }
    }

    fn data(&self, path: &str, content: &str) -> &Self {
        let stem = self.file.file_stem().unwrap();
        let target = self.dir.join(stem).join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, content).unwrap();
        self
    }

    fn path(&self) -> &str {
        self.file.to_str().unwrap()
    }
}

impl Drop for TempProgram {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn examples_give_their_results() {
    let r = run(&example("etl-files"), RunOptions::default());
    assert!(r.ok, "{:?}", r.error);
    traced(&r);
    assert_eq!(
        r.result,
        json!({"written": 3, "names": ["Ada Lovelace", "Alan Turing", "Grace Hopper"], "reportHasSize": true})
    );
    let ops: Vec<&str> = (r.trace.iter())
        .filter(|e| e.event == "tool_end")
        .map(|e| &*e.tool)
        .collect();
    assert!(
        ops.contains(&"code:filter") && ops.contains(&"code:sort"),
        "{ops:?}"
    );

    let r = run(&example("knowledge-graph"), RunOptions::default());
    assert!(r.ok, "{:?}", r.error);
    traced(&r);
    assert_eq!(r.result["created"], 4);
    assert_eq!(r.result["people"], 3);
    assert_eq!(
        r.result["relations"],
        json!(["Ada programmed Analytical Engine", "Grace admired Ada"])
    );

    let r = run(&example("parallel-reads"), RunOptions::default());
    assert!(r.ok, "{:?}", r.error);
    traced(&r);
    assert_eq!(
        r.result,
        json!({"files": 4, "lines": [4, 4, 4, 4], "first": "# notes a"})
    );

    let r = run(&example("branches"), RunOptions::default());
    assert!(r.ok, "{:?}", r.error);
    traced(&r);
    assert_eq!(
        r.result,
        json!({"mode": "summary", "big": ["alpha", "gamma"]})
    );
    // Only the taken branches ran.
    let calls: Vec<&str> = r.calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(
        calls
            .iter()
            .filter(|t| **t == "memory:create_entities")
            .count(),
        1
    );
    assert_eq!(
        r.calls
            .iter()
            .filter(|c| c.tool == "everything:echo")
            .count(),
        1
    );
    let echo = r
        .calls
        .iter()
        .find(|c| c.tool == "everything:echo")
        .unwrap();
    assert_eq!(echo.arguments, json!({"message": "big rows: alpha,gamma"}));

    let r = run(&example("directory-loop"), RunOptions::default());
    assert!(r.ok, "{:?}", r.error);
    traced(&r);
    assert_eq!(r.result["todos"], 6);
    // The loop's calls are traced one by one.
    let reads = r
        .executed_path
        .iter()
        .filter(|t| *t == "filesystem:read_text_file")
        .count();
    assert_eq!(reads, 4);
}

/// Every operation of the run is traced under its node of the structure.
#[track_caller]
fn traced(r: &RunReport) {
    if let Some(e) = r.trace.iter().find(|e| e.task_id.is_none()) {
        panic!("an event without a node: {e:?}");
    }
}

#[test]
fn writes_and_reads_keep_program_order() {
    let p = TempProgram::new(
        "order",
        "order.js",
        r#"
const before = await mcp.filesystem.read_text_file({ path: args.root + "/note.txt" });
await mcp.filesystem.write_file({ path: args.root + "/note.txt", content: "second" });
const after = await mcp.filesystem.read_text_file({ path: args.root + "/note.txt" });
const listing = await mcp.filesystem.list_directory({ path: args.root });
return { before: before.content, after: after.content, listing: listing.content };
"#,
    );
    p.data("note.txt", "first");
    for speculate in [true, false] {
        let r = run(
            &p.file,
            RunOptions {
                speculate,
                ..Default::default()
            },
        );
        assert!(r.ok, "{:?}", r.error);
        assert_eq!(
            r.result,
            json!({"before": "first", "after": "second", "listing": "[FILE] note.txt"})
        );
        // No call overlaps the write.
        let span = |id: &str| {
            let start = r
                .trace
                .iter()
                .find(|e| e.task_id.as_deref() == Some(id) && e.event == "tool_start");
            let end = r
                .trace
                .iter()
                .find(|e| e.task_id.as_deref() == Some(id) && e.event == "tool_end");
            (start.unwrap().ts_ms, end.unwrap().ts_ms)
        };
        let write = span("n2");
        for other in ["n1", "n3", "n4"] {
            let (s, e) = span(other);
            assert!(e <= write.0 || s >= write.1, "{other} overlaps the write");
        }
    }
}

#[test]
fn sequential_reads_stay_sequential_without_speculation() {
    let r = run(
        &example("parallel-reads"),
        RunOptions {
            speculate: false,
            ..Default::default()
        },
    );
    assert!(r.ok, "{:?}", r.error);
    let mcp: Vec<_> = r
        .trace
        .iter()
        .filter(|e| !e.tool.starts_with("code:"))
        .collect();
    // After the Promise.all pair, each awaited read starts after the previous call ended.
    let ends = |id: &str| {
        mcp.iter()
            .find(|e| e.task_id.as_deref() == Some(id) && e.event == "tool_end")
            .unwrap()
            .ts_ms
    };
    let starts = |id: &str| {
        mcp.iter()
            .find(|e| e.task_id.as_deref() == Some(id) && e.event == "tool_start")
            .unwrap()
            .ts_ms
    };
    assert!(starts("n3") >= ends("n1").max(ends("n2")));
    assert!(starts("n4") >= ends("n3"));
    assert!(starts("n5") >= ends("n4"));
}

#[test]
fn failing_programs_exit_1_and_name_task_tool_and_cause() {
    let p = TempProgram::new(
        "fail",
        "fail.ts",
        r#"const f = await mcp.filesystem.read_text_file({ path: args.root + "/missing.txt" });
await mcp.memory.create_entities({ entities: [{ name: "never", entityType: "x", observations: [] }] });
return f.content;
"#,
    );
    let (code, stdout, stderr) = pml(&["run", p.path()]);
    assert_eq!(code, 1, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["ok"], false);
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains("n1") && error.contains("filesystem:read_text_file"),
        "{error}"
    );
    assert!(
        error.contains("ENOENT") || error.contains("no such file"),
        "{error}"
    );
    assert!(stderr.contains(error), "{stderr}");
    // The write after the failure never ran.
    assert_eq!(v["executedPath"], json!(["filesystem:read_text_file"]));

    // Without speculation, the same.
    let (code, stdout, _) = pml(&["run", p.path(), "--no-speculate"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains("n1")
            && error.contains("filesystem:read_text_file")
            && error.contains("ENOENT"),
        "{error}"
    );
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    // TypeScript that cannot run as JavaScript is an error of the program (exit 1).
    let p = TempProgram::new(
        "bad",
        "bad.ts",
        "class Color {\n  accessor red = 1;\n}\nreturn 1;\n",
    );
    let (code, _, stderr) = pml(&["run", p.path()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("bad.ts:2:3") && stderr.contains("accessor"),
        "{stderr}"
    );

    let (code, _, stderr) = pml(&["run", p.path(), "--args", "[1]"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--args must be a JSON object"), "{stderr}");

    let (code, _, stderr) = pml(&["run", "/no/such/file.ts"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/no/such/file.ts"), "{stderr}");

    let config = TempProgram::new("badcfg", "config.json", r#"{"mcpServers": {"x": {}}}"#);
    let ok = TempProgram::new("okprog", "ok.js", "return 1;");
    let (code, _, stderr) = pml(&["run", ok.path(), "--mcp-config", config.path()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("config.json") && stderr.contains("mcpServers.x"),
        "{stderr}"
    );

    // A syntax error is an error of the program (exit 1, as for every command), with its
    // position; nothing starts.
    let syntax = TempProgram::new("syntax", "s.js", "const x = ;\n");
    let (code, _, stderr) = pml(&["run", syntax.path()]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr,
        format!("{}:1:11: expression expected\n", syntax.path())
    );
}

#[test]
fn approvals_gate_side_effects() {
    let p = TempProgram::new(
        "approve",
        "approve.js",
        r#"const g = await mcp.memory.read_graph({});
await mcp.memory.create_entities({ entities: [{ name: "a", entityType: "x", observations: [] }] });
return g.entities.length;
"#,
    );
    let perms = TempProgram::new(
        "perms",
        "perms.json",
        r#"{"permissions": {"memory:create_*": "hil"}}"#,
    );
    let (code, stdout, _) = pml(&[
        "run",
        p.path(),
        "--approve",
        "deny",
        "--permissions",
        perms.path(),
    ]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert!(v["error"].as_str().unwrap().contains("not approved"), "{v}");
    // The denied call is traced as failed, but was never sent.
    assert_eq!(
        v["executedPath"],
        json!(["memory:read_graph", "memory:create_entities"])
    );

    let (code, stdout, _) = pml(&[
        "run",
        p.path(),
        "--approve",
        "auto",
        "--permissions",
        perms.path(),
    ]);
    assert_eq!(code, 0, "{stdout}");

    // Read-only tools never ask, whatever the answer would be.
    let reader = TempProgram::new(
        "reader",
        "reader.js",
        "return (await mcp.memory.read_graph({})).entities;",
    );
    let (code, stdout, _) = pml(&["run", reader.path(), "--approve", "deny"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn trace_out_appends_json_lines() {
    let p = TempProgram::new(
        "trace",
        "t.js",
        r#"return await mcp.everything.echo({ message: "hi" });"#,
    );
    let out = p.dir.join("trace.jsonl");
    let mut run_ids = Vec::new();
    for _ in 0..2 {
        let (code, stdout, _) = pml(&["run", p.path(), "--trace-out", out.to_str().unwrap()]);
        assert_eq!(code, 0);
        let v = serde_json::from_str::<Value>(&stdout).unwrap();
        assert_eq!(v["result"], "Echo: hi");
        run_ids.push(v["runId"].clone());
    }
    let text = std::fs::read_to_string(&out).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 4);
    assert_eq!(events[0]["event"], "tool_start");
    assert_eq!(events[1]["event"], "tool_end");
    assert_eq!(events[1]["tool"], "everything:echo");
    assert_eq!(events[1]["success"], true);
    // Each line says which run it is from: the id the run's JSON gave.
    assert!(run_ids[0].is_string() && run_ids[0] != run_ids[1]);
    let ids: Vec<&Value> = events.iter().map(|e| &e["runId"]).collect();
    assert_eq!(ids, [&run_ids[0], &run_ids[0], &run_ids[1], &run_ids[1]]);
}

#[test]
fn lone_surrogates_print_as_javascript_writes_them() {
    // `--args` read, the result, the trace and the stored run all keep a lone surrogate,
    // written `\udXXX` as `JSON.stringify` writes it; the console writes U+FFFD, as Node.
    let p = TempProgram::new(
        "surrogates",
        "s.js",
        r#"const cut = "😀".slice(0, 1) + args.s;
console.log(cut);
const echoed = await mcp.everything.echo({ message: cut });
return { cut, echoed, n: cut.length };"#,
    );
    let out = p.dir.join("trace.jsonl");
    let (code, stdout, stderr) = pml(&[
        "run",
        p.path(),
        "--args",
        r#"{"s": "x\udc00"}"#,
        "--trace-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(r#""result":{"cut":"\ud83dx\udc00","echoed":"Echo: \ud83dx\udc00","n":3}"#),
        "{stdout}"
    );
    assert!(stderr.contains("\u{FFFD}x\u{FFFD}"), "{stderr}");
    let trace = std::fs::read_to_string(&out).unwrap();
    assert!(!trace.contains('\u{FDD0}'), "{trace}");
    let run: Value = serde_json::from_str(&pml_jstext::from_js_json(&stdout)).unwrap();
    assert_eq!(run["result"]["cut"], "\u{FDD0}d83dx\u{FDD0}dc00");
    let id = run["runId"].as_str().unwrap();
    let (code, shown, stderr) = pml(&["runs", "show", id, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(shown.contains(r#""cut": "\ud83dx\udc00""#), "{shown}");
}

#[test]
fn no_server_outlives_a_run() {
    let p = TempProgram::new(
        "procs",
        "procs.js",
        r#"await mcp.everything.echo({ message: "x" });
await mcp.memory.read_graph({});
return (await mcp.filesystem.list_directory({ path: args.root })).content;"#,
    );
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["run", p.path()])
        .env("PML_STORE", super::test_store())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let status = child.wait_with_output().unwrap().status;
    assert!(status.success());
    // The default config's servers run with the scratch folder `pml-run-<pid>-...` in their
    // command lines.
    let marker = format!("pml-run-{pid}-");
    let leftovers: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let cmdline = std::fs::read(e.ok()?.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline.contains(&marker).then_some(cmdline)
        })
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

/// The calls of a run as a multiset, each run's scratch folder written `<root>`.
fn call_multiset(r: &RunReport) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for c in &r.calls {
        let mut text = format!("{} {}", c.tool, c.arguments);
        while let Some(start) = text.find("/pml-run-") {
            let end = text[start..]
                .find("/root")
                .map_or(text.len(), |e| start + e + 5);
            text.replace_range(start..end, "<root>");
        }
        *out.entry(text).or_default() += 1;
    }
    out
}

/// As written == with speculation, against the real servers: same outcome, same result,
/// same MCP calls, on the examples and the `example-*` fixtures. (Every fixture is checked the
/// same way against a deterministic in-process host in `equivalence.rs`.)
#[test]
fn speculation_agrees_with_the_program_on_real_servers() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| {
            d.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("example-")
        })
        .map(|d| d.join("input.ts"))
        .collect();
    files.sort();
    for name in [
        "etl-files",
        "knowledge-graph",
        "parallel-reads",
        "branches",
        "directory-loop",
    ] {
        files.push(example(name));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (mut ok_runs, mut served) = (0, 0);
    for file in &files {
        let go = |options: RunOptions| runtime.block_on(run_file(file, &options)).unwrap().report;
        let ahead = go(RunOptions::default());
        let plain = go(RunOptions {
            speculate: false,
            ..Default::default()
        });
        let f = file.display();
        assert_eq!(
            ahead.ok, plain.ok,
            "{f}: {:?} / {:?}",
            ahead.error, plain.error
        );
        if plain.ok {
            assert_eq!(ahead.result, plain.result, "{f}: result");
            assert_eq!(call_multiset(&ahead), call_multiset(&plain), "{f}: calls");
        } else {
            let tool = |r: &RunReport| r.error.as_ref().and_then(|e| e.tool.clone());
            assert_eq!(
                tool(&ahead),
                tool(&plain),
                "{f}: {:?} / {:?}",
                ahead.error,
                plain.error
            );
        }
        ok_runs += usize::from(plain.ok);
        served += ahead.speculation.map_or(0, |s| s.served);
    }
    assert!(ok_runs >= 5, "only {ok_runs} programs succeeded");
    assert!(served >= 5, "speculation served only {served} calls");
}

#[test]
fn args_reach_the_program() {
    let p = TempProgram::new(
        "args",
        "args.js",
        r#"const e = await mcp.everything.echo({ message: args.greeting + ", " + args.who.name });
return { e, n: args.n * 2 };"#,
    );
    let r = run(
        &p.file,
        RunOptions {
            args: json!({"greeting": "hello", "who": {"name": "ada"}, "n": 21}),
            approve: ApproveMode::Auto,
            ..Default::default()
        },
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.result, json!({"e": "Echo: hello, ada", "n": 42}));
}

#[test]
fn hostile_programs_end_with_clear_errors() {
    let cases = [
        (
            "loop.js",
            "while (true) {}",
            "the program's own JavaScript exceeded 300 ms, its limit (time waiting for tools not counted; --code-timeout-ms raises it)",
        ),
        (
            "task.js",
            "const xs = [1, 2].map(x => { while (true) {} });\nreturn xs;",
            "exceeded 300 ms",
        ),
        (
            "bomb.js",
            "const a = []; while (true) a.push('x'.repeat(1 << 24));",
            "ran out of memory (limit 256 MiB)",
        ),
        (
            "small-bomb.js",
            "const a = []; while (true) a.push('x'.repeat(1000));",
            "ran out of memory (limit 256 MiB)",
        ),
        (
            "deep.js",
            "const f = n => f(n + 1) + 1; return f(0);",
            "stack",
        ),
        (
            "io.js",
            "return require('fs').readFileSync('/etc/passwd', 'utf8');",
            "require is not defined",
        ),
        ("proc.js", "return process.env;", "process is not defined"),
        (
            "fetch.js",
            "return await fetch('http://example.org');",
            "fetch is not defined",
        ),
        (
            "eval.js",
            "return eval('require')('fs');",
            "require is not defined",
        ),
    ];
    for (name, source, expected) in cases {
        let p = TempProgram::new(&format!("hostile-{name}"), name, source);
        // The memory bomb needs time to fill 256 MiB (seconds in a debug build); a runaway
        // recursion, to fill the 8 MiB stack through the probes of each call (and unwind).
        let limit = if name.ends_with("bomb.js") {
            "20000"
        } else if name == "deep.js" {
            "5000"
        } else {
            "300"
        };
        let (code, stdout, stderr) = pml(&["run", p.path(), "--code-timeout-ms", limit]);
        assert_eq!(code, 1, "{name}: {stdout} {stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let error = v["error"].as_str().unwrap();
        assert!(
            error.to_lowercase().contains(&expected.to_lowercase()),
            "{name}: {error}"
        );
    }
}

/// `pml run --approve prompt` of `program` with `answers` on stdin: the report and stderr.
fn prompted(program: &str, perms: &str, answers: &str) -> (Value, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pml"))
        .env("PML_STORE", super::test_store())
        .args([
            "run",
            program,
            "--approve",
            "prompt",
            "--permissions",
            perms,
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answers.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (report, stderr)
}

#[test]
fn approve_prompt_asks_on_the_terminal() {
    let p = TempProgram::new(
        "prompt",
        "prompt.js",
        r#"await mcp.memory.create_entities({ entities: [{ name: "p", entityType: "x", observations: [] }] });
return (await mcp.memory.read_graph({})).entities.map(e => e.name);"#,
    );
    let perms = TempProgram::new(
        "prompt-perms",
        "perms.json",
        r#"{"permissions": {"memory:create_*": "hil"}}"#,
    );
    for (answer, ok) in [("y\n", true), ("n\n", false), ("", false)] {
        let (v, stderr) = prompted(p.path(), perms.path(), answer);
        assert!(
            stderr.starts_with(
                "pml: the program may make these calls, which need approval:\n  n1 memory:create_entities {\"entities\": [{\"name\": \"p\", \"entityType\": \"x\", \"observations\": []}]} (at 1:7)\npml: run it? [y/N] "
            ),
            "{answer:?}: {stderr}"
        );
        assert_eq!(v["ok"], ok, "{answer:?}: {v}");
        if ok {
            assert_eq!(v["result"], json!(["p"]));
        } else {
            // Refused before anything ran.
            assert_eq!(v["error"], "the run was not approved", "{v}");
            assert_eq!(v["executedPath"], json!([]), "{v}");
        }
    }
}

/// The plan is approved once: its calls (in a loop, with arguments computed at run time) run
/// without asking again; a call the plan did not foresee (made where the structure does not
/// see it, in an object's method) is asked about.
#[test]
fn approve_prompt_asks_once_for_the_plan() {
    let p = TempProgram::new(
        "approve-once",
        "once.js",
        r#"const before = await mcp.memory.read_graph({});
for (const name of ["a", "b", "c"]) {
  await mcp.memory.create_entities({ entities: [{ name, entityType: "x", observations: [] }] });
}
const tool = Date.now() > 0 ? "create_entities" : "none";
await mcp.memory[tool]({ entities: [{ name: "d", entityType: "x", observations: [] }] });
return (await mcp.memory.read_graph({})).entities.map(e => e.name);"#,
    );
    let perms = TempProgram::new(
        "approve-once-perms",
        "perms.json",
        r#"{"permissions": {"memory:create_*": "hil"}}"#,
    );
    let (v, stderr) = prompted(p.path(), perms.path(), "y\ny\n");
    assert_eq!(v["ok"], true, "{v}\n{stderr}");
    assert_eq!(v["result"], json!(["a", "b", "c", "d"]));
    assert!(
        stderr.starts_with(
            "pml: the program may make these calls, which need approval:\n  n2 memory:create_entities {\"entities\": [{\"name\": <[\"a\", \"b\", \"c\"][*]>, \"entityType\": \"x\", \"observations\": []}]} (at 3:9)\n      may run (in a branch, a loop or a function: maybe not, maybe several times); after reading with memory:read_graph\npml: run it? [y/N] "
        ),
        "{stderr}"
    );
    // Asked once for the loop's three calls, once more for the one whose tool the plan could
    // not name.
    assert_eq!(stderr.matches("[y/N]").count(), 2, "{stderr}");
    assert!(
        stderr.contains("pml: a call the approved plan does not cover: memory:create_entities"),
        "{stderr}"
    );
    // Refused the second time: the plan's calls ran, the unforeseen one did not.
    let (v, _) = prompted(p.path(), perms.path(), "y\nn\n");
    assert_eq!(v["ok"], false);
    assert!(
        v["error"].as_str().unwrap().contains("was not approved"),
        "{v}"
    );
}

/// A promise the program leaves rejected with no handler ends the run once the turn's jobs
/// have run, as Node 20 ends it, also when it is a local function's (whose settling the
/// instrumented program's probes watch without handling it).
#[test]
fn rejections_no_handler_takes_end_the_run_as_in_node() {
    let p = TempProgram::new(
        "unhandled",
        "unhandled.ts",
        r#"async function check(x: unknown) { if (!x) throw new Error("no x"); return x; }
async function later(x: unknown) { await null; if (!x) throw new Error("later: no x"); return x; }
const out = [await check(1), await later(2)];
try { await later(0); } catch (e) { out.push(e.message); }
const p = later(0);
await null;
await null;
try { await p; } catch (e) { out.push(e.message); }
if (args.drop === "now") check(0);
if (args.drop === "later") later(0);
await new Promise((resolve) => setTimeout(resolve, 0));
const listed = await mcp.filesystem.list_directory({ path: args.root });
return [out, typeof listed.content];
"#,
    );
    let run = |drop: &str| {
        let args = json!({ "drop": drop }).to_string();
        let (code, stdout, stderr) = pml(&["run", p.path(), "--no-store", "--args", &args]);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
        (code, v)
    };
    let (code, v) = run("");
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["result"],
        json!([[1, 2, "later: no x", "later: no x"], "string"])
    );
    for (drop, message) in [("now", "Error: no x"), ("later", "Error: later: no x")] {
        let (code, v) = run(drop);
        assert_eq!(code, 1, "{v}");
        let error = v["error"].as_str().unwrap();
        assert!(error.contains(message), "{drop}: {error}");
        // The run ended before the program's next call.
        assert_eq!(v["executedPath"], json!([]), "{drop}: {v}");
    }
}

/// A name declared twice stops the program before anything runs, with Node's words, at the
/// name in the program's own line and column.
#[test]
fn a_name_declared_twice_fails_before_anything_runs() {
    let p = TempProgram::new(
        "redeclared",
        "redeclared.ts",
        "const r = await mcp.filesystem.list_directory({ path: args.root }); const n = r.content.length; let n = 3;\nreturn n;\n",
    );
    let (code, stdout, stderr) = pml(&["run", p.path(), "--no-store"]);
    assert_eq!(code, 1, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["error"],
        json!("the program does not parse: SyntaxError: Identifier 'n' has already been declared (at 1:101)")
    );
    assert_eq!(v["executedPath"], json!([]));
}

/// A pattern nested in another that meets `undefined` fails with V8's words, in
/// declarations, parameters and callbacks alike, and a parameter's function keeps its length.
#[test]
fn nested_destructurings_say_what_v8_says() {
    let p = TempProgram::new(
        "nested",
        "nested.ts",
        r#"const r: any = { meta: {} };
const out: string[] = [];
try { const { data: { items } } = r; } catch (e) { out.push(e.message); }
try { const { meta: { a }, data: { ...rest } } = r; } catch (e) { out.push(e.message); }
const first = ({ user: { name } }: any) => name;
try { [{}].map(first); } catch (e) { out.push(e.message); }
try { const [{ id }] = [] as any[]; } catch (e) { out.push(e.message); }
try { [[1, 2], null].map(([a, b]: any) => a + b); } catch (e) { out.push(e.message); }
try { const [five] = 5 as any; } catch (e) { out.push(e.message); }
function f({ data: { items } }: any, more: number) { return items; }
return [out, f.length, f({ data: { items: 2 } }, 1)];
"#,
    );
    let (code, stdout, stderr) = pml(&["run", p.path(), "--no-store"]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["result"],
        json!([
            [
                "Cannot read properties of undefined (reading 'items')",
                "Cannot read properties of undefined",
                "Cannot read properties of undefined (reading 'name')",
                "Cannot read properties of undefined (reading 'id')",
                "object null is not iterable (cannot read property Symbol(Symbol.iterator))",
                "5 is not iterable",
            ],
            2,
            2
        ])
    );
}

#[test]
fn exceptions_say_where_they_were_thrown() {
    let p = TempProgram::new(
        "throws",
        "throws.js",
        "const r = await mcp.everything.echo({ message: \"x\" });\nfor (const c of [1]) {}\nconst y = r.nope.deeper;\nreturn y;\n",
    );
    let (code, stdout, stderr) = pml(&["run", p.path()]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains("TypeError") && error.ends_with("(at 3:11)"),
        "{error}"
    );
    assert!(stderr.contains("throws.js"), "{stderr}");
}

/// A limit that stops a run says which limit, where the program was, and the flag that raises
/// it.
#[test]
fn limit_errors_name_the_line_the_limit_and_the_flag() {
    let p = TempProgram::new(
        "limits",
        "limits.js",
        "const out = [];\nfor (let i = 0; i < 10; i++) out.push(await mcp.everything.echo({ message: 'm' + i }));\nreturn out;",
    );
    let r = run(
        &p.file,
        RunOptions {
            max_calls: 3,
            speculate: false,
            ..Default::default()
        },
    );
    assert!(!r.ok);
    assert_eq!(
        r.error.unwrap().message,
        "the run stopped at 2:45: it would make more than 3 tool calls, its limit (--max-calls raises it)"
    );
}

#[test]
fn calls_by_computed_names_in_methods_and_through_tool_values_are_traced_under_their_nodes() {
    // The server and tool names come from `args`; the call in a class method and in an object's
    // method; a tool passed as a value: each runs under a node of its own, its events carrying
    // the tool that ran.
    let program = TempProgram::new(
        "computed",
        "computed.js",
        r#"class Client {
  constructor(server) { this.server = server; }
  async say(message) { return mcp[this.server].echo({ message }); }
}
const tools = { async shout(m) { return await mcp.everything[args.tool]({ message: m + "!" }); } };
const c = new Client(args.server);
const a = await c.say("a");
const b = await tools.shout("b");
const d = await mcp[args.server][args.tool]({ message: "d" });
const e = await Promise.all([{ message: "e" }, { message: "f" }].map(mcp.everything.echo));
return [a, b, d, ...e];
"#,
    );
    let report = run(
        &program.file,
        RunOptions {
            args: json!({"server": "everything", "tool": "echo"}),
            store: None,
            ..RunOptions::default()
        },
    );
    assert!(report.ok, "{:?}", report.error);
    assert_eq!(
        report.result,
        json!(["Echo: a", "Echo: b!", "Echo: d", "Echo: e", "Echo: f"])
    );
    let calls: Vec<(String, String)> = (report.trace.iter())
        .filter(|e| e.event == "tool_end")
        .map(|e| {
            (
                e.task_id.as_deref().unwrap_or_default().to_owned(),
                e.tool.to_string(),
            )
        })
        .collect();
    assert_eq!(calls.len(), 5, "{calls:?}");
    assert!(
        calls
            .iter()
            .all(|(id, tool)| !id.is_empty() && tool == "everything:echo"),
        "{calls:?}"
    );
    let ids: std::collections::BTreeSet<&String> = calls.iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids.len(),
        4,
        "a node each, the tool value's two calls under one: {calls:?}"
    );
}

/// TypeScript that needs generated code (an `enum`, a class with parameter properties) runs as
/// the reference Node runner compiles it (SWC's TypeScript transform), against the real server;
/// a failure is said at the line of the source.
#[test]
fn enums_and_parameter_properties_run_as_node_runs_them() {
    let p = TempProgram::new(
        "compiled",
        "c.ts",
        r#"enum Level { Low = 1, High = 5 }
const enum Dir { Up = "up" }
class Box {
  constructor(public readonly label: string, private n = 2) {}
  twice() { return this.label.repeat(this.n); }
}
const b = new Box(Dir.Up);
const e = await mcp.everything.echo({ message: `${Level.High} ${Level[1]} ${b.twice()}` });
if (args.fail) throw new Error("stop");
return e;"#,
    );
    let (code, stdout, _) = pml(&["run", p.path()]);
    assert_eq!(code, 0, "{stdout}");
    let v = serde_json::from_str::<Value>(&stdout).unwrap();
    assert_eq!(v["result"], "Echo: 5 Low upup");
    let (code, stdout, _) = pml(&["run", p.path(), "--args", r#"{"fail": true}"#]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("stop (at 9:"), "{stdout}");
}
