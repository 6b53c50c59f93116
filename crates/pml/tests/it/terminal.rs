//! The commands on a terminal (a pseudo-terminal from `script`): summaries for a person and
//! live progress, where piped output (and `--json`) is the JSON document.

use std::process::Command;

/// Runs `pml args` in a pseudo-terminal: exit status and what the terminal showed (stdout
/// and stderr together, `\r\n` as `\n`).
fn on_terminal(args: &[&str]) -> (i32, String) {
    let mut line = String::from(env!("CARGO_BIN_EXE_pml"));
    for arg in args {
        line.push(' ');
        line.push_str(&format!("'{}'", arg.replace('\'', r"'\''")));
    }
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env("PML_STORE", super::test_store())
        .output()
        .expect("script (util-linux) runs the command in a pseudo-terminal");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
    )
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}.ts", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_shows_a_summary_and_progress_on_a_terminal() {
    let file = example("branches");
    let (code, shown) = on_terminal(&["run", &file]);
    assert_eq!(code, 0, "{shown}");
    // Progress: a status line rewritten in place, erased before the summary.
    assert!(
        shown.contains("\r\x1b[2Kpml: 1 done, 0 failed, running: "),
        "{shown}"
    );
    let summary = shown.rsplit("\r\x1b[2K").next().unwrap();
    assert!(summary.starts_with(&format!("{file}: ok · ")), "{summary}");
    assert!(
        summary.contains("\nresult:\n  {\n    \"mode\": \"summary\","),
        "{summary}"
    );
    assert!(
        summary.contains("\ntimeline (start ms, duration ms; ‖ ran while another was running):\n"),
        "{summary}"
    );
    assert!(
        summary.contains("n1    filesystem:read_text_file"),
        "{summary}"
    );
    assert!(summary.contains("\ndecisions: d1 "), "{summary}");
    assert!(!summary.contains("\"executedPath\""), "{summary}");

    // `--json` on a terminal, and piped: the JSON document, no progress.
    let (code, shown) = on_terminal(&["run", &file, "--json"]);
    assert_eq!(code, 0);
    let json = shown.trim_start_matches(|c| c != '{');
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(v["ok"], true);
    let (code, stdout, stderr) = super::pml(&["run", &file]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("{\"ok\":true,"), "{stdout}");
    assert!(!stderr.contains("done,"), "{stderr}");
}

#[test]
fn analyze_and_dag_summarise_on_a_terminal() {
    let file = example("etl-files");
    let (code, shown) = on_terminal(&["analyze", &file]);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.starts_with(&format!(
            "{file}: 12 nodes, 11 edges\nMCP calls:\n  n1    filesystem:read_text_file                at 6:25\n"
        )),
        "{shown}"
    );
    assert!(
        shown.contains("\noperations: code:JSON.parse x2, "),
        "{shown}"
    );
    let (code, shown) = on_terminal(&["dag", &file, "--optimized"]);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.starts_with(&format!("{file}: 10 tasks in ")),
        "{shown}"
    );
    assert!(
        shown.contains("\n   1. n1 filesystem:read_text_file\n"),
        "{shown}"
    );
    assert!(
        shown.contains("\nfused:\n  n4+n5 = n4 + n5 (sequential_fusion)\n"),
        "{shown}"
    );
    // `--json` / `--pretty`: the document.
    let (_, shown) = on_terminal(&["analyze", &file, "--json"]);
    assert!(shown.starts_with("{\n  \"nodes\": ["), "{shown}");
}

#[test]
fn a_program_without_a_data_folder_is_told_it_runs_on_an_empty_root() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("lonely.ts");
    std::fs::write(
        &program,
        "const l = await mcp.filesystem.list_directory({ path: args.root }); return l;",
    )
    .unwrap();
    let (code, shown) = on_terminal(&["run", program.to_str().unwrap(), "--no-store"]);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("has no data folder beside it (") && shown.contains("lonely/)"),
        "{shown}"
    );
    // With one, nothing is said.
    std::fs::create_dir(dir.path().join("lonely")).unwrap();
    let (_, shown) = on_terminal(&["run", program.to_str().unwrap(), "--no-store"]);
    assert!(!shown.contains("no data folder"), "{shown}");
}

#[test]
fn the_timeline_draws_reads_started_ahead_from_their_own_start() {
    // Two reads awaited one after the other: speculation starts both at once, and the
    // timeline shows the second running while the first still was. The first reads 2 MB, so
    // that it is still running when the second starts however loaded the machine is (with a
    // short first read, a busy machine let the program reach the second call itself).
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("two");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("a.txt"), "one".repeat((2 << 20) / 3)).unwrap();
    std::fs::write(data.join("b.txt"), "two").unwrap();
    let program = dir.path().join("two.ts");
    std::fs::write(
        &program,
        "const a = await mcp.filesystem.read_text_file({ path: args.root + \"/a.txt\" });\nconst b = await mcp.filesystem.read_text_file({ path: args.root + \"/b.txt\" });\nreturn a.content.length + b.content;\n",
    )
    .unwrap();
    let (code, shown) = on_terminal(&["run", program.to_str().unwrap(), "--no-store"]);
    assert_eq!(code, 0, "{shown}");
    let second = shown
        .lines()
        .find(|l| l.contains(" n2 ") && l.contains("filesystem:read_text_file"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(
        second.starts_with('‖') && second.contains("speculative"),
        "{shown}"
    );
}
