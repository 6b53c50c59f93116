//! `pml runs diff A B`: two recorded runs of the real filesystem server compared.

use serde_json::{json, Value};

use crate::store::{pml_in, Steps};

/// A decision on `args.mode`, a write in one branch only, and a read whose path comes from
/// `args.name`.
const PROGRAM: &str = r#"const listing = await mcp.filesystem.list_directory({ path: args.dir });
if (args.mode === "write") {
  await mcp.filesystem.write_file({ path: `${args.dir}/out.txt`, content: "written" });
}
const text = await mcp.filesystem.read_text_file({ path: `${args.dir}/${args.name}` });
return { mode: args.mode, text: text.content };
"#;

/// Another program against the same server: another read where PROGRAM reads a file.
const OTHER: &str = r#"const listing = await mcp.filesystem.list_directory({ path: args.dir });
const info = await mcp.filesystem.get_file_info({ path: `${args.dir}/${args.name}` });
return { mode: args.mode, text: "info" };
"#;

/// The program's world, with `a.txt` and `b.txt` in its data folder.
fn world(program: &str) -> (Steps, String) {
    let steps = Steps::with(program);
    let data = steps.dir.path().join("data").canonicalize().unwrap();
    std::fs::write(data.join("a.txt"), "alpha").unwrap();
    std::fs::write(data.join("b.txt"), "beta").unwrap();
    (steps, data.display().to_string())
}

/// `pml run FILE --args ARGS` in `steps`' world: the run's id.
fn run(steps: &Steps, program: &str, args: &Value) -> String {
    let args = args.to_string();
    let (code, out, err) = pml_in(
        &steps.store,
        &[
            "run",
            program,
            "--mcp-config",
            &steps.config,
            "--args",
            &args,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let ran: Value = serde_json::from_str(&out).unwrap();
    ran["runId"].as_str().expect("runId").to_string()
}

/// `pml runs diff A B --json`: exit status and the document.
fn diff_json(steps: &Steps, a: &str, b: &str) -> (i32, Value) {
    let (code, out, err) = pml_in(&steps.store, &["runs", "diff", a, b, "--json"]);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, doc)
}

fn of_kind<'d>(doc: &'d Value, kind: &str) -> Vec<&'d Value> {
    (doc["differences"].as_array().unwrap().iter())
        .filter(|d| d["kind"] == kind)
        .collect()
}

#[test]
fn two_runs_taking_different_branches_show_the_decision_the_call_and_the_argument() {
    let (steps, dir) = world(PROGRAM);
    let a = run(
        &steps,
        &steps.program,
        &json!({ "dir": dir, "mode": "read", "name": "a.txt" }),
    );
    let b = run(
        &steps,
        &steps.program,
        &json!({ "dir": dir, "mode": "write", "name": "b.txt" }),
    );

    let (code, doc) = diff_json(&steps, &a, &b);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(doc["same"], false);
    assert_eq!(
        (doc["sameProgram"].clone(), doc["comparedBy"].clone()),
        (json!(true), json!("nodes"))
    );
    assert_eq!(
        (doc["a"]["id"].as_str(), doc["b"]["id"].as_str()),
        (Some(&*a), Some(&*b))
    );
    // The decision, with each run's outcome; it is where they diverge (the list and the read
    // come before it, and only the read's arguments differ, after it).
    let decisions = of_kind(&doc, "decision");
    assert_eq!(decisions.len(), 1, "{doc:#}");
    assert_eq!(decisions[0]["a"], "false");
    assert_eq!(decisions[0]["b"], "true");
    assert_eq!(decisions[0]["iteration"], json!([]));
    assert_eq!(doc["firstDivergence"], *decisions[0], "{doc:#}");
    assert_eq!(doc["differences"][0], *decisions[0]);
    // The write, made in B only, with its arguments.
    let calls = of_kind(&doc, "call");
    assert_eq!(calls.len(), 1, "{doc:#}");
    assert_eq!(calls[0]["a"], Value::Null);
    assert_eq!(calls[0]["b"]["tool"], "filesystem:write_file");
    assert_eq!(calls[0]["b"]["arguments"]["content"], "written");
    // The read, made by both at the same node, with another path; the listing's arguments
    // are the same and not listed.
    let arguments = of_kind(&doc, "arguments");
    assert_eq!(arguments.len(), 1, "{doc:#}");
    assert_eq!(arguments[0]["a"]["tool"], "filesystem:read_text_file");
    assert_eq!(arguments[0]["a"]["node"], arguments[0]["b"]["node"]);
    assert_eq!(
        arguments[0]["paths"],
        json!([{ "path": "$.path", "a": format!("{dir}/a.txt"), "b": format!("{dir}/b.txt") }])
    );
    // And the results.
    let results = of_kind(&doc, "result");
    assert_eq!(results.len(), 1, "{doc:#}");
    let paths: Vec<&str> = (results[0]["paths"].as_array().unwrap().iter())
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["$.mode", "$.text"]);
    assert_eq!(doc["differences"].as_array().unwrap().len(), 4, "{doc:#}");

    // For people: the same, in words.
    let (code, text, err) = pml_in(&steps.store, &["runs", "diff", &a, &b]);
    assert_eq!(code, 1, "{err}");
    let node = decisions[0]["taskId"].as_str().unwrap();
    assert!(text.contains("same program"), "{text}");
    assert!(
        text.contains(&format!(
            "first divergence:\n    decision {node}: A false, B true"
        )),
        "{text}"
    );
    assert!(
        text.contains("filesystem:write_file") && text.contains("only in B"),
        "{text}"
    );
    assert!(
        text.contains(&format!("$.path: \"{dir}/a.txt\" -> \"{dir}/b.txt\"")),
        "{text}"
    );
}

#[test]
fn two_runs_of_the_same_program_and_args_are_the_same() {
    let (steps, dir) = world(PROGRAM);
    let args = json!({ "dir": dir, "mode": "read", "name": "a.txt" });
    let a = run(&steps, &steps.program, &args);
    let b = run(&steps, &steps.program, &args);
    let (code, doc) = diff_json(&steps, &a, &b);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["same"], true);
    assert_eq!(doc["differences"], json!([]));
    assert_eq!(doc["firstDivergence"], Value::Null);
    let (code, text, _) = pml_in(&steps.store, &["runs", "diff", &a, &b]);
    assert_eq!(code, 0);
    assert!(text.contains("the runs are the same"), "{text}");
    // A run compared with itself, by the start of its id.
    let (code, doc) = diff_json(&steps, &a[..16], &a);
    assert_eq!((code, doc["same"].clone()), (0, json!(true)));
}

#[test]
fn runs_of_different_programs_are_compared_by_tool_sequence() {
    let (steps, dir) = world(PROGRAM);
    let other = steps.dir.path().join("other.ts");
    std::fs::write(&other, OTHER).unwrap();
    let other = other.display().to_string();
    // The same args: A's decision is not compared (B has no node ids in common with A).
    let args = json!({ "dir": dir, "mode": "write", "name": "a.txt" });
    let a = run(&steps, &steps.program, &args);
    let b = run(&steps, &other, &args);
    let (code, doc) = diff_json(&steps, &a, &b);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(
        (doc["sameProgram"].clone(), doc["comparedBy"].clone()),
        (json!(false), json!("tools"))
    );
    assert_ne!(doc["a"]["programHash"], doc["b"]["programHash"]);
    assert!(of_kind(&doc, "decision").is_empty(), "{doc:#}");
    // The listing is in both (same tool, same arguments): not a difference. A's write and
    // read are A's only, B's file info B's only.
    let mut only: Vec<(bool, &str)> = (of_kind(&doc, "call").into_iter())
        .map(|c| match c["a"].is_null() {
            true => (false, c["b"]["tool"].as_str().unwrap()),
            false => (true, c["a"]["tool"].as_str().unwrap()),
        })
        .collect();
    only.sort();
    assert_eq!(
        only,
        [
            (false, "filesystem:get_file_info"),
            (true, "filesystem:read_text_file"),
            (true, "filesystem:write_file"),
        ],
        "{doc:#}"
    );
    assert!(of_kind(&doc, "arguments").is_empty(), "{doc:#}");
    let (_, text, _) = pml_in(&steps.store, &["runs", "diff", &a, &b]);
    assert!(
        text.contains("different programs") && text.contains("tool sequence only"),
        "{text}"
    );
}

#[test]
fn runs_that_cannot_be_compared_exit_2_saying_why() {
    let (mut steps, dir) = world(PROGRAM);
    let a = run(
        &steps,
        &steps.program,
        &json!({ "dir": dir, "mode": "read", "name": "a.txt" }),
    );
    let (code, out, err) = pml_in(&steps.store, &["runs", "diff", &a, "ffffffffffff"]);
    assert_eq!(
        (code, out.as_str(), err.trim()),
        (2, "", "pml: no run `ffffffffffff`")
    );
    let (code, _, err) = pml_in(&steps.store, &["runs", "diff", "nothex", &a, "--json"]);
    assert_eq!((code, err.trim()), (2, "pml: no run `nothex`"));
    // Killed after its write: a journal, no trace.
    steps.args = json!({ "dir": dir, "mode": "write", "name": "a.txt" }).to_string();
    let killed = steps
        .killed_if_reached("PML_FAULT_PAUSE_AFTER_CALL", 2)
        .expect("the run stops after its write");
    let (code, out, err) = pml_in(&steps.store, &["runs", "diff", &a, &killed]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains(&format!("run {killed} did not finish")),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // A store that is not one.
    let junk = steps.dir.path().join("junk.sqlite");
    std::fs::write(&junk, "not a database, just some text that is long enough").unwrap();
    let (code, _, err) = pml_in(&junk.display().to_string(), &["runs", "diff", &a, &a]);
    assert_eq!(code, 2);
    assert!(err.contains("not a pml store"), "{err}");
}
