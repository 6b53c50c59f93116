//! `capabilities.NAME(args)`: stored programs called from a program, against the real servers.

use serde_json::{json, Value};

use crate::store::pml_in;

/// Reads the users and keeps the active ones' names, at most `limit` (a literal: saved, it
/// becomes the parameter `limit`, 10 unless the call says otherwise).
const ACTIVE: &str = r#"const file = await mcp.filesystem.read_text_file({ path: args.root + "/users.json" });
const limit = 10;
const names = JSON.parse(file.content).filter((u: any) => u.active).map((u: any) => u.name);
return names.slice(0, limit);
"#;

/// Calls `active` and writes what it got: a capability calling a capability, with a side effect.
const REPORT: &str = r#"const names = await capabilities.active({ limit: args.top });
await mcp.filesystem.write_file({ path: args.root + "/report.txt", content: names.join("\n") });
return names.length;
"#;

const REFUSE: &str = r#"if (args.why) throw new Error("refused: " + args.why);
return "fine";
"#;

const MAIN: &str = r#"const all = await capabilities.active({});
const written = await capabilities.report({ top: 1 });
const report = await mcp.filesystem.read_text_file({ path: args.root + "/report.txt" });
let caught = "";
try {
  await capabilities.refuse({ why: "not today" });
} catch (e) {
  caught = e.message;
}
const fine = await capabilities.refuse({});
return { all, written, report: report.content, caught, fine };
"#;

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_program_calls_stored_capabilities_and_their_trace_is_under_its_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    for (name, code) in [("active", ACTIVE), ("report", REPORT), ("refuse", REFUSE)] {
        let file = write(dir.path(), &format!("{name}.ts"), code);
        let (code, _, err) = pml_in(&store, &["save", &file, "--name", name]);
        assert_eq!(code, 0, "{err}");
    }
    let main = write(dir.path(), "main.ts", MAIN);
    let data = dir.path().join("main");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("users.json"),
        r#"[{"name":"ann","active":true},{"name":"bob","active":false},{"name":"cy","active":true}]"#,
    )
    .unwrap();

    let (code, out, err) = pml_in(&store, &["run", &main]);
    assert_eq!(code, 0, "{err}\n{out}");
    let ran: Value = serde_json::from_str(&out).unwrap();
    // Saved values where the call gives none, the call's where it does; the root folder is
    // the caller's; a throw inside is the caller's to catch, with its message.
    assert_eq!(
        ran["result"],
        json!({
            "all": ["ann", "cy"],
            "written": 1,
            "report": "ann",
            "caught": "refused: not today",
            "fine": "fine",
        })
    );
    let trace = ran["trace"].as_array().unwrap();
    let ends = |tool: &str| -> Vec<&Value> {
        (trace.iter())
            .filter(|e| e["event"] == "tool_end" && e["tool"] == tool)
            .collect()
    };
    // The caller's capability nodes, one per call.
    let calls: Vec<(&str, bool)> = (trace.iter())
        .filter(|e| e["event"] == "tool_end" && e["capability"].is_null())
        .filter_map(|e| Some((e["tool"].as_str()?, e["success"].as_bool()?)))
        .filter(|(tool, _)| tool.starts_with("capability:"))
        .collect();
    assert_eq!(
        calls,
        [
            ("capability:active", true),
            ("capability:report", true),
            ("capability:refuse", false),
            ("capability:refuse", true),
        ]
    );
    // What ran inside, under the node of the call that ran it: `active` twice (once from the
    // program, once from `report`, two levels down), the write once.
    let reads = ends("filesystem:read_text_file");
    let under: Vec<(&str, &str)> = (reads.iter())
        .filter_map(|e| Some((e["capability"].as_str()?, e["parent"].as_str()?)))
        .collect();
    let (c_active, c_report) = (
        node_of(trace, "capability:active"),
        node_of(trace, "capability:report"),
    );
    let inner_active = (trace.iter())
        .find(|e| e["tool"] == "capability:active" && e["capability"] == "report")
        .and_then(|e| e["taskId"].as_str())
        .unwrap();
    assert_eq!(
        under,
        [
            ("active", c_active.as_str()),
            ("active", format!("{c_report}/{inner_active}").as_str()),
        ]
    );
    let writes = ends("filesystem:write_file");
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0]["capability"], "report");
    assert_eq!(writes[0]["parent"], c_report.as_str());
    // The decision inside `refuse`, each time.
    let decisions: Vec<&str> = (trace.iter())
        .filter(|e| e["event"] == "decision" && e["capability"] == "refuse")
        .filter_map(|e| e["outcome"].as_str())
        .collect();
    assert_eq!(decisions, ["true", "false"]);
    // Everything that ran is on the executed path, the capabilities' operations included.
    let path = ran["executedPath"].as_array().unwrap();
    assert_eq!(
        path.iter()
            .filter(|t| *t == "filesystem:write_file")
            .count(),
        1
    );
    assert_eq!(path.iter().filter(|t| *t == "code:filter").count(), 2);

    // A capability's side effects are approved like the caller's: refused, the write does
    // not happen and the call fails, naming the capability.
    let (code, out, _) = pml_in(&store, &["run", &main, "--approve", "deny"]);
    assert_eq!(code, 1);
    let denied: Value = serde_json::from_str(&out).unwrap();
    let error = denied["error"].as_str().unwrap();
    assert!(
        error.contains("(capability:report): in capability report:")
            && error.contains("the call to filesystem:write_file was not approved"),
        "{error}"
    );
}

/// The id of the caller's node calling `tool`.
fn node_of(trace: &[Value], tool: &str) -> String {
    (trace.iter())
        .find(|e| e["tool"] == tool && e["capability"].is_null())
        .and_then(|e| e["taskId"].as_str())
        .unwrap()
        .to_owned()
}

#[test]
fn capability_calls_are_checked_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let save = |name: &str, code: &str| {
        let file = write(dir.path(), &format!("{name}.ts"), code);
        assert_eq!(pml_in(&store, &["save", &file, "--name", name]).0, 0);
    };
    // Each starts with a write: it must not happen.
    let write_first =
        "await mcp.filesystem.write_file({ path: args.root + \"/x.txt\", content: \"x\" });\n";
    let unknown = write(
        dir.path(),
        "unknown.ts",
        &format!("{write_first}return await capabilities.nowhere({{}});\n"),
    );
    let (code, _, err) = pml_in(&store, &["run", &unknown]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "{unknown}:2:14: capabilities.nowhere: there is no capability named `nowhere`"
        )),
        "{err}"
    );

    // Arguments are checked against the capability's parameter schema before anything runs:
    // a name it does not read, a value of the wrong type for a parameter it lifted.
    save("active", ACTIVE);
    save("report", REPORT);
    let misspelt = write(
        dir.path(),
        "misspelt.ts",
        &format!("{write_first}return await capabilities.report({{ topp: 1 }});\n"),
    );
    let (code, _, err) = pml_in(&store, &["run", &misspelt]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "{misspelt}:2:14: capabilities.report: the argument `topp` is not one the capability takes; did you mean `top`?"
        )),
        "{err}"
    );
    let mistyped = write(
        dir.path(),
        "mistyped.ts",
        &format!("{write_first}return await capabilities.active({{ limit: \"ten\" }});\n"),
    );
    let (code, _, err) = pml_in(&store, &["run", &mistyped]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "{mistyped}:2:14: capabilities.active: the argument `limit` is"
        )),
        "{err}"
    );

    save("ping", "return await capabilities.pong({});\n");
    save(
        "pong",
        "const n = 1;\nreturn await capabilities.ping({});\n",
    );
    let cycle = write(
        dir.path(),
        "cycle.ts",
        &format!("{write_first}return await capabilities.ping({{}});\n"),
    );
    let (code, _, err) = pml_in(&store, &["run", &cycle]);
    assert_eq!(code, 1);
    assert!(
        err.contains("capability pong:2:14: capabilities.ping: the capabilities call each other in a cycle (ping -> pong -> ping)"),
        "{err}"
    );
    assert!(err.contains(&format!("(called at {cycle}:2:14)")), "{err}");

    let (code, _, err) = pml_in(&store, &["run", &cycle, "--no-store"]);
    assert_eq!(code, 2);
    assert!(err.contains("needs the capability store"), "{err}");

    // None of them ran: no run was recorded.
    let (_, out, _) = pml_in(&store, &["runs", "--json"]);
    assert_eq!(out.trim(), "[]");
}

/// One step: a write and a move, in the folder the caller names.
const STEP: &str = r#"await mcp.filesystem.write_file({ path: `${args.dir}/step${args.i}.tmp`, content: `step ${args.i}` });
await mcp.filesystem.move_file({ source: `${args.dir}/step${args.i}.tmp`, destination: `${args.dir}/step${args.i}.txt` });
return args.i * 10;
"#;

const STEPS: &str = r#"const seen: number[] = [];
for (let i = 1; i <= 3; i++) {
  const got = await capabilities.step({ i, dir: args.dir });
  const listing = await mcp.filesystem.list_directory({ path: args.dir });
  seen.push(got + listing.content.split("\n").length);
}
return seen;
"#;

#[test]
fn a_run_killed_inside_a_capability_resumes_to_the_same_end() {
    let prepared = || {
        let steps = crate::store::Steps::with(STEPS);
        let step = write(steps.dir.path(), "step.ts", STEP);
        assert_eq!(
            pml_in(&steps.store, &["save", &step, "--name", "step"]).0,
            0
        );
        steps
    };
    let whole = prepared();
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
    let expected: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(expected["result"], json!([11, 22, 33]));
    let files = whole.data();
    assert_eq!(files.len(), 3);
    // Calls are numbered in the order they are made, capability calls included (those are
    // not journaled: what they make is); 3 capability calls and 9 MCP calls.
    let mut killed = 0;
    for n in 1..=12 {
        let steps = prepared();
        let Some(id) = steps.killed_if_reached("PML_FAULT_PAUSE_AFTER_CALL", n) else {
            continue;
        };
        killed += 1;
        let (code, resumed, err) = steps.resume(&id, &[]);
        assert_eq!(code, 0, "killed after call {n}: {err}");
        assert_eq!(
            resumed["result"], expected["result"],
            "killed after call {n}"
        );
        // No completed write ran twice (a second move would fail), none was lost.
        assert_eq!(steps.data(), files, "killed after call {n}");
    }
    assert_eq!(killed, 9);

    // The capability changed since: resuming would run another program.
    let steps = prepared();
    let id = steps
        .killed_if_reached("PML_FAULT_PAUSE_AFTER_CALL", 2)
        .unwrap();
    let changed = write(steps.dir.path(), "step2.ts", &STEP.replace("* 10", "* 100"));
    let (code, _, err) = pml_in(
        &steps.store,
        &["save", &changed, "--name", "step", "--replace"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = steps.resume(&id, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("capabilities.step is not the program it called"),
        "{err}"
    );
}
