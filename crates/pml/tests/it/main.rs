//! The `pml` command as scripts use it: stdout JSON, stderr diagnostics, exit statuses.

mod agents;
mod analysis;
mod capabilities;
mod diff;
mod equivalence;
mod faults;
mod interrupt;
mod kills;
mod learn;
mod otlp;
mod postgres;
mod rehash;
mod replay;
mod run;
mod serve;
mod servers;
mod store;
mod terminal;
mod view;

use std::process::Command;

/// The store every test's `pml run` records into (not the user's): one SQLite file for all
/// tests, which the store shares safely between processes.
fn test_store() -> String {
    format!("{}/store.sqlite", env!("CARGO_TARGET_TMPDIR"))
}

fn pml(args: &[&str]) -> (i32, String, String) {
    pml_with(None, &[], args)
}

/// `pml args` (in `dir` when given, with `env` added): exit status, stdout, stderr.
fn pml_with(
    dir: Option<&std::path::Path>,
    env: &[(&str, &str)],
    args: &[&str],
) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pml"));
    command.args(args).env("PML_STORE", test_store());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command.envs(env.iter().copied());
    let out = command.output().expect("run pml");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fixture(name: &str) -> String {
    format!(
        "{}/../../fixtures/{name}/input.ts",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn analyze_prints_one_json_object() {
    let (code, stdout, _) = pml(&["analyze", &fixture("example-mission"), "--timings"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for key in [
        "nodes",
        "edges",
        "variableBindings",
        "literalBindings",
        "hilRequiredTools",
        "diagnostics",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
}

#[test]
fn timings_are_one_json_line_on_stderr() {
    let (_, _, stderr) = pml(&["analyze", &fixture("example-mission"), "--timings"]);
    let line = stderr.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for key in ["parse_ms", "structure_ms", "scan_ms", "walk_ms", "total_ms"] {
        assert!(v[key].as_f64().is_some_and(|ms| ms >= 0.0), "{key}: {line}");
    }
    // The scan and the walk are parts of the structure's time.
    let ms = |key: &str| v[key].as_f64().unwrap();
    assert!(
        ms("scan_ms") + ms("walk_ms") <= ms("structure_ms") + 1e-6,
        "{line}"
    );
}

#[test]
fn syntax_errors_exit_1_with_file_line_column() {
    let path = fixture("bad-unterminated-string");
    let (code, stdout, stderr) = pml(&["analyze", &path]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["nodes"].as_array().unwrap().len(), 0);
    assert!(stderr.starts_with(&format!("{path}:4:58: ")), "{stderr}");
    for cmd in ["dag", "hash", "normalize"] {
        assert_eq!(pml(&[cmd, &path]).0, 1, "{cmd}");
    }
}

#[test]
fn check_reports_syntax_only_with_the_analyze_exit_codes() {
    let (code, stdout, stderr) = pml(&["check", &fixture("example-mission"), "--timings"]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let mut lines = stderr.lines();
    let v: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    // No server config here: said, not silently skipped.
    assert!(
        lines
            .next()
            .unwrap()
            .contains("its calls were not checked against any server"),
        "{stderr}"
    );
    assert!(
        v["parse_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{stderr}"
    );

    let path = fixture("bad-unterminated-string");
    let (code, _, stderr) = pml(&["check", &path]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with(&format!("{path}:4:58: ")), "{stderr}");
    // Every syntax error, whether the calls are checked too or not.
    let config = std::env::temp_dir().join(format!("pml-check-{}.json", std::process::id()));
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    let (code, _, checked) = pml(&["check", &path, "--mcp-config", config.to_str().unwrap()]);
    assert_eq!((code, checked.as_str()), (1, stderr.as_str()));
    assert_eq!(stderr.lines().count(), 2, "{stderr}");

    // The same refusal as analyze for what the parser must not see.
    let dir = std::env::temp_dir().join(format!("pml-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let deep = dir.join("deep.js");
    std::fs::write(&deep, "(".repeat(pml_structure::MAX_NESTING + 1)).unwrap();
    let (code, _, stderr) = pml(&["check", deep.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("brackets nest deeper"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);

    assert_eq!(pml(&["check", "/nonexistent/x.ts"]).0, 2);
}

#[test]
fn input_and_usage_errors_exit_2() {
    let (code, _, stderr) = pml(&["analyze", "/nonexistent/x.ts"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("/nonexistent/x.ts: cannot read"),
        "{stderr}"
    );
    let dir = std::env::temp_dir().join(format!("pml-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binary = dir.join("bin.ts");
    std::fs::write(&binary, [0x61, 0xff, 0xfe]).unwrap();
    let (code, _, stderr) = pml(&["analyze", binary.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("not UTF-8 text (invalid byte at offset 1)"),
        "{stderr}"
    );
    let bad_catalog = dir.join("tools.json");
    std::fs::write(&bad_catalog, "{\"tools\": [").unwrap();
    let (code, _, stderr) = pml(&[
        "analyze",
        &fixture("example-mission"),
        "--tools",
        bad_catalog.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("tools.json"), "{stderr}");
    assert_eq!(pml(&["analyze"]).0, 2);
    assert_eq!(pml(&["frobnicate"]).0, 2);
    // A flag that means nothing without another is a usage error, not silently ignored.
    let (code, _, stderr) = pml(&["dag", "--explain", &fixture("example-mission")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--optimized"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dag_diagnostics_say_where() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("unresolved.ts");
    std::fs::write(
        &file,
        "const r = await mcp.filesystem.list_directory({ path: args.root });\nreturn missing.foo;\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let (code, _, stderr) = pml(&["dag", file]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "{file}:2:1: warning: the program's result reads `missing` which the program does not declare and no earlier task or constant provides (a global it assumes?): its dependencies are everything before it [unresolved-name]\n"
        )
    );
}

#[test]
fn dag_hash_and_normalize() {
    let path = fixture("example-mission");
    let (code, stdout, _) = pml(&["dag", &path, "--optimized"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["physicalToLogical"]["n2+n3+n4"],
        serde_json::json!(["n2", "n3", "n4"])
    );
    let (code, stdout, _) = pml(&["hash", &path]);
    assert_eq!(code, 0);
    let hash = stdout.trim();
    assert_eq!(hash.len(), 64);
    assert!(hash
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    let (code, stdout, _) = pml(&["normalize", &path]);
    assert_eq!(code, 0);
    assert!(stdout.contains("const _n1 = await mcp.filesystem.read_text_file"));
}

#[test]
fn the_release_binary_carries_no_debug_info() {
    // `cargo build --release` and `cargo install` build with the workspace's release profile.
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml")).unwrap();
    let release = manifest
        .split("[profile.release]")
        .nth(1)
        .expect("a release profile")
        .split("\n[")
        .next()
        .unwrap();
    let setting = |key: &str| {
        release.lines().map(str::trim).find_map(|l| {
            l.strip_prefix(key)
                .map(|v| v.trim_start_matches([' ', '=']).trim().to_owned())
        })
    };
    assert_eq!(setting("debug").as_deref(), Some("false"), "{release}");
    assert_eq!(
        setting("strip").as_deref(),
        Some("\"debuginfo\""),
        "{release}"
    );
}

/// Output nobody reads any more (`pml runs --json | head -c 600`) ends pml quietly with the
/// status of a process `SIGPIPE` killed, and output a full disk refused with a message and
/// status 2: never a panic, never a success with the output lost.
#[test]
fn stdout_that_cannot_be_written_ends_pml_without_a_panic() {
    use std::process::Stdio;
    for args in [
        vec!["hash", "FILE"],
        vec!["normalize", "FILE"],
        vec!["analyze", "FILE"],
        vec!["view", "FILE"],
    ] {
        let args: Vec<String> = (args.iter())
            .map(|a| match *a {
                "FILE" => fixture("example-mission"),
                a => a.to_owned(),
            })
            .collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_pml"))
            .args(&args)
            .env("PML_STORE", test_store())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before pml writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        let full = Command::new(env!("CARGO_BIN_EXE_pml"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&full.stderr);
        assert_eq!(full.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to stdout"),
            "{args:?}: {stderr}"
        );
    }
}

/// A program file is read up to 16 MiB: a file that does not end (`/dev/zero`) or a bigger one
/// is refused before it costs memory (exit 2, saying so).
#[test]
fn program_files_over_the_limit_are_refused() {
    let (code, _, stderr) = pml(&["hash", "/dev/zero"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("larger than 16777216 bytes"), "{stderr}");
}
