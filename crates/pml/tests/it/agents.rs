//! Realistic agent programs (`tests/agents/*.ts`, each with its data folder and `.args.json`)
//! run through `pml::run` against the real reference servers must give what running them
//! directly in Node gives (`.expected.json`, written by `scripts/oracle.sh` from the Node
//! oracle): the same outcome, the same result (paths of the data folder written `<root>`), the
//! same error message, the same multiset of calls, and, where the program writes to its console
//! (`.console.txt`), the same console output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pml::run::{run_file, RunOptions};
use serde_json::Value;

fn agents() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ts"))
        .collect();
    files.sort();
    files
}

/// A program's `.expected.json`, its strings read as JavaScript reads them (a lone surrogate's
/// `\udXXX` escape as pml text, see `pml_jstext`).
fn expected(file: &Path) -> Value {
    let text = std::fs::read_to_string(file.with_extension("expected.json")).unwrap();
    pml_jstext::parse_js_json(&text).unwrap()
}

/// `value` with every string occurrence of `root` written `<root>`.
fn rooted(value: &Value, root: &str) -> Value {
    pml_jstext::parse(&value.to_string().replace(root, "<root>")).unwrap()
}

fn multiset(tools: impl Iterator<Item = String>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in tools {
        *out.entry(t).or_insert(0) += 1;
    }
    out
}

#[test]
fn agent_programs_give_what_node_gives() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(pml::RUNTIME_STACK)
        .build()
        .unwrap();
    let mut differences = Vec::new();
    let files = agents();
    assert!(files.len() >= 5, "{files:?}");
    for file in &files {
        let expected = expected(file);
        let console = std::fs::read_to_string(file.with_extension("console.txt")).ok();
        let args: Value = std::fs::read_to_string(file.with_extension("args.json"))
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or_else(|_| Value::Object(Default::default()));
        for speculate in [true, false] {
            let options = RunOptions {
                args: args.clone(),
                speculate,
                ..RunOptions::default()
            };
            let out = runtime
                .block_on(run_file(file, &options))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let report = &out.report;
            // The scratch root `pml run` gave the program.
            let root = out.report.calls.iter().find_map(|c| {
                c.arguments
                    .get("path")
                    .and_then(Value::as_str)
                    .and_then(|p| p.find("/root").map(|i| p[..i + 5].to_owned()))
            });
            let name = format!("{} (speculate {speculate})", file.display());
            let mut differ = |what: &str, a: String, b: String| {
                differences.push(format!("{name}: {what}\n  node: {a}\n  pml:  {b}"))
            };
            if expected["ok"] != Value::Bool(report.ok) {
                differ(
                    "ok",
                    expected["ok"].to_string(),
                    format!("{} {:?}", report.ok, report.error),
                );
                continue;
            }
            if report.ok {
                let result = match &root {
                    Some(root) => rooted(&report.result, root),
                    None => report.result.clone(),
                };
                if result != expected["result"] {
                    differ("result", expected["result"].to_string(), result.to_string());
                }
            } else {
                let message = report
                    .error
                    .as_ref()
                    .map(|e| e.message.clone())
                    .unwrap_or_default();
                let want = expected["error"].as_str().unwrap_or_default();
                if !message.contains(want) {
                    differ("error", want.to_owned(), message);
                }
            }
            if let Some(want) = &console {
                let root = root.as_deref().unwrap_or("<root>");
                let printed: String = (report.console.iter())
                    .map(|line| format!("{}\n", line.text.replace(root, "<root>")))
                    .collect();
                if &printed != want {
                    differ("console", want.clone(), printed);
                }
            }
            let want = multiset(
                expected["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap().to_owned()),
            );
            let made = multiset(report.calls.iter().map(|c| c.tool.clone()));
            if want != made {
                differ("calls", format!("{want:?}"), format!("{made:?}"));
            }
            // Every operation is traced under its node: these programs call tools directly,
            // through helpers, callbacks and aliases of `mcp`, never by computed names.
            if let Some(e) = report.trace.iter().find(|e| e.task_id.is_none()) {
                differ("trace", "a node id".into(), format!("{e:?}"));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// Copies the folder `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// What `pml parameterize` makes of each agent program, run with its parameters as `args`,
/// gives what the program gives: parameterizing changes where values come from, never what
/// the program does.
#[test]
fn parameterized_agent_programs_give_what_the_programs_give() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(pml::RUNTIME_STACK)
        .build()
        .unwrap();
    let scratch = std::env::temp_dir().join(format!("pml-parameterized-{}", std::process::id()));
    let mut differences = Vec::new();
    let mut parameterized = 0;
    for file in agents() {
        let expected = expected(&file);
        let mut args: Value = std::fs::read_to_string(file.with_extension("args.json"))
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or_else(|_| Value::Object(Default::default()));
        let source = std::fs::read_to_string(&file).unwrap();
        let out = pml_structure::parameterize(&source, pml_structure::Dialect::TypeScript);
        assert!(
            out.diagnostics.is_empty(),
            "{}: {:?}",
            file.display(),
            out.diagnostics
        );
        if out.parameters.is_empty() {
            continue;
        }
        parameterized += 1;
        for (name, value) in &out.parameters {
            args[name.as_str()] = value.clone();
        }
        let name = file.file_name().unwrap();
        let copy = scratch.join(name);
        std::fs::create_dir_all(&scratch).unwrap();
        std::fs::write(&copy, &out.code).unwrap();
        let data = file.with_extension("");
        if data.is_dir() {
            copy_dir(&data, &copy.with_extension(""));
        }
        let options = RunOptions {
            args,
            ..RunOptions::default()
        };
        let run = runtime
            .block_on(run_file(&copy, &options))
            .unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
        let report = &run.report;
        let root = report.calls.iter().find_map(|c| {
            c.arguments
                .get("path")
                .and_then(Value::as_str)
                .and_then(|p| p.find("/root").map(|i| p[..i + 5].to_owned()))
        });
        let result = match &root {
            Some(root) => rooted(&report.result, root),
            None => report.result.clone(),
        };
        if expected["ok"] != Value::Bool(report.ok) || (report.ok && result != expected["result"]) {
            differences.push(format!(
                "{}: node {} {}, parameterized {} {} {:?}\n{}",
                file.display(),
                expected["ok"],
                expected["result"],
                report.ok,
                result,
                report.error,
                out.code
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        parameterized >= 3,
        "only {parameterized} programs had literals"
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// A config of the reference servers (the filesystem server on `root`) in `dir`, each behind
/// `mcp-servers/logging-proxy.mjs` writing the calls it passes on to `log`.
fn logged_servers(dir: &Path, root: &Path, log: &Path) -> PathBuf {
    let modules = pml::servers::mcp_servers_dir().join("node_modules/@modelcontextprotocol");
    let proxy = pml::servers::mcp_servers_dir().join("logging-proxy.mjs");
    let behind = |server: &str, rest: &[Value]| {
        let mut args = vec![
            serde_json::json!(proxy),
            serde_json::json!(log),
            serde_json::json!("node"),
            serde_json::json!(modules.join(server).join("dist/index.js")),
        ];
        args.extend_from_slice(rest);
        args
    };
    let config = serde_json::json!({ "mcpServers": {
        "filesystem": { "command": "node", "args": behind("server-filesystem", &[serde_json::json!(root)]) },
        "memory": { "command": "node", "args": behind("server-memory", &[]),
            "env": { "MEMORY_FILE_PATH": dir.join("memory.jsonl") } },
        "everything": { "command": "node", "args": behind("server-everything", &[serde_json::json!("stdio")]) },
    } });
    let config_file = dir.join("mcp.json");
    std::fs::write(&config_file, config.to_string()).unwrap();
    config_file
}

/// Node sends a program's calls as it makes them: the twelve writes of one `Promise.all`, then
/// its twelve reads, reach the server in the array's order (files of different sizes, so the
/// answers come back in another order), with speculation and without, run after run.
#[test]
fn concurrent_calls_reach_the_server_in_the_programs_order() {
    const SOURCE: &str = r#"
const dir = args.root + "/out";
await mcp.filesystem.create_directory({ path: dir });
const names = Array.from({ length: 12 }, (_, i) => `f${i}.txt`);
await Promise.all(names.map((n, i) => mcp.filesystem.write_file({ path: `${dir}/${n}`, content: "x".repeat((12 - i) * 5000) })));
const read = await Promise.all(names.map((n) => mcp.filesystem.read_text_file({ path: `${dir}/${n}` })));
return read.map((r) => r.content.length);
"#;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(pml::RUNTIME_STACK)
        .build()
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("concurrent.ts");
    std::fs::write(&program, SOURCE).unwrap();
    for (run, speculate) in [true, false, true].into_iter().enumerate() {
        let dir = tmp.path().join(format!("run{run}"));
        let root = dir.join("root");
        std::fs::create_dir_all(&root).unwrap();
        let root = root.canonicalize().unwrap();
        let log = dir.join("received.jsonl");
        let options = RunOptions {
            args: serde_json::json!({ "root": root.display().to_string() }),
            speculate,
            mcp_config: Some(logged_servers(&dir, &root, &log)),
            ..RunOptions::default()
        };
        let ran = runtime.block_on(run_file(&program, &options)).unwrap();
        assert_eq!(
            ran.report.result,
            serde_json::json!((1..=12).rev().map(|i| i * 5000).collect::<Vec<_>>()),
            "run {run}"
        );
        let received: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(|line| {
                let call: Value = serde_json::from_str(line).unwrap();
                let path = call["arguments"]["path"].as_str().unwrap_or_default();
                let file = path.rsplit('/').next().unwrap_or_default();
                format!("{} {file}", call["name"].as_str().unwrap_or_default())
            })
            .collect();
        let mut expected = vec!["create_directory out".to_owned()];
        for tool in ["write_file", "read_text_file"] {
            expected.extend((0..12).map(|i| format!("{tool} f{i}.txt")));
        }
        assert_eq!(received, expected, "run {run} (speculation {speculate})");
    }
}

/// What the servers receive, behind a logging proxy each (`mcp-servers/logging-proxy.mjs`):
/// with speculation, exactly the calls of the run without it (the program's own calls, which
/// are the direct run's: `agent_programs_give_what_node_gives`), tool and arguments alike, for
/// every agent program and every example.
#[test]
fn the_servers_receive_exactly_the_programs_calls() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(pml::RUNTIME_STACK)
        .build()
        .unwrap();
    let mut differences = Vec::new();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut examples: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ts"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 5, "{examples:?}");
    for file in agents().iter().chain(&examples) {
        let args: Value = std::fs::read_to_string(file.with_extension("args.json"))
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or_else(|_| Value::Object(Default::default()));
        let mut received = Vec::new();
        for speculate in [false, true] {
            let tmp = tempfile::tempdir().unwrap();
            let root = tmp.path().join("root");
            let data = file.with_extension("");
            match data.is_dir() {
                true => copy_dir(&data, &root),
                false => std::fs::create_dir_all(&root).unwrap(),
            }
            let root = root.canonicalize().unwrap();
            let log = tmp.path().join("received.jsonl");
            let config_file = logged_servers(tmp.path(), &root, &log);
            let mut run_args = args.clone();
            run_args["root"] = Value::String(root.display().to_string());
            let options = RunOptions {
                args: run_args,
                speculate,
                mcp_config: Some(config_file),
                ..RunOptions::default()
            };
            runtime
                .block_on(run_file(file, &options))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let root = root.display().to_string();
            let mut calls: Vec<String> =
                (text.lines()).map(|l| l.replace(&root, "<root>")).collect();
            calls.sort();
            received.push(calls);
        }
        assert!(
            !received[0].is_empty(),
            "{}: no call logged",
            file.display()
        );
        if received[0] != received[1] {
            differences.push(format!(
                "{}:\n  without speculation: {:?}\n  with speculation:    {:?}",
                file.display(),
                received[0],
                received[1]
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
