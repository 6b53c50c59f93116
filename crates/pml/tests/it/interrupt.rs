//! Ctrl-C (SIGINT) and SIGTERM during `pml run`: no new call starts, the call in flight is
//! cancelled after a short grace, the servers are stopped, the scratch folder is removed
//! (unless `--keep-scratch`), the report so far is printed (`ok: false`, `error:
//! "interrupted"`), exit status 130.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The processes (other than this test's) whose environment has `TMPDIR=tmp`: `pml` and the
/// servers it started.
fn processes_under(tmp: &Path) -> Vec<u32> {
    let marker = format!("TMPDIR={}", tmp.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.contains(") Z ");
        if !zombie && environ.split(|b| *b == 0).any(|v| v == marker.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// A program whose second call takes 30 s, in a new folder (also the `TMPDIR` of the run).
fn slow_program() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("slow.js");
    std::fs::write(
        &program,
        "await mcp.filesystem.write_file({ path: args.root + \"/a.txt\", content: \"a\" });\n\
         const r = await mcp.everything[\"trigger-long-running-operation\"]({ duration: 30, steps: 3 });\n\
         await mcp.filesystem.write_file({ path: args.root + \"/b.txt\", content: \"b\" });\n\
         return r;\n",
    )
    .unwrap();
    (tmp, program)
}

/// A tmux server of the test's own, with one session `pml` (160x40) running `line` in `sh`: a
/// terminal for pml. Killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(name: &str, line: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "pml",
            "-x",
            "160",
            "-y",
            "40",
            "sh",
            "-c",
            line,
        ]);
        assert!(
            started.status.success(),
            "{}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// Waits until the program's first call has written `a.txt` into the scratch folder under
/// `tmp`, and a moment more: the second call is in flight.
fn wait_for_the_slow_call(tmp: &Path) {
    let started = Instant::now();
    let written = || {
        std::fs::read_dir(tmp)
            .unwrap()
            .flatten()
            .any(|e| e.path().join("root/a.txt").exists())
    };
    while !written() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
}

/// Runs the slow program, signals `pml` once its second call is in flight, and returns what
/// it printed.
fn interrupted_run(
    signal: i32,
    extra: &[&str],
) -> (i32, Value, String, tempfile::TempDir, Duration) {
    let (tmp, program) = slow_program();
    let child = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["run", program.to_str().unwrap(), "--no-store"])
        .args(extra)
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The servers run in process groups of their own, which a terminal's Ctrl-C does not
    // reach: only pml gets the signal.
    wait_for_the_slow_call(tmp.path());
    // SAFETY: kill(2) on the child we spawned.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let signalled = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), report, stderr, tmp, took)
}

#[test]
fn ctrl_c_mid_run_reports_cleans_up_and_exits_130() {
    let (code, report, stderr, tmp, took) = interrupted_run(libc::SIGINT, &[]);
    assert_eq!(code, 130, "{stderr}\n{report}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(report["ok"], false);
    assert_eq!(report["error"], "interrupted");
    let ends: Vec<(&str, &Value)> = (report["trace"].as_array().unwrap().iter())
        .filter(|e| e["event"] == "tool_end")
        .map(|e| (e["tool"].as_str().unwrap(), &e["success"]))
        .collect();
    assert_eq!(
        ends,
        [
            ("filesystem:write_file", &Value::Bool(true)),
            (
                "everything:trigger-long-running-operation",
                &Value::Bool(false)
            ),
        ],
        "{report}"
    );
    // The cancelled call went out: it is part of what the run did.
    assert_eq!(
        report["executedPath"],
        serde_json::json!([
            "filesystem:write_file",
            "everything:trigger-long-running-operation"
        ])
    );
    assert!(stderr.contains("pml: interrupted"), "{stderr}");
    // No scratch folder, no server left.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "slow.js")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert_eq!(processes_under(tmp.path()), Vec::<u32>::new());
}

#[test]
fn sigterm_exits_143_and_keep_scratch_says_where() {
    let (code, report, stderr, tmp, _) = interrupted_run(libc::SIGTERM, &["--keep-scratch"]);
    assert_eq!(code, 143, "{stderr}");
    assert_eq!(report["error"], "interrupted");
    let kept = stderr
        .lines()
        .find_map(|l| l.strip_prefix("pml: the scratch folder is kept: "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let kept = Path::new(kept);
    assert!(kept.starts_with(tmp.path()), "{kept:?}");
    // What the run did before the interrupt, and nothing after it.
    assert_eq!(
        std::fs::read_to_string(kept.join("root/a.txt")).unwrap(),
        "a"
    );
    assert!(!kept.join("root/b.txt").exists());
    assert_eq!(processes_under(tmp.path()), Vec::<u32>::new());
}

/// Ctrl-C typed on a real terminal (a tmux pane): the same as SIGINT from `kill`.
#[test]
fn ctrl_c_typed_in_a_terminal() {
    let (tmp, program) = slow_program();
    let dir = tmp.path().display().to_string();
    // The shell survives the Ctrl-C (its trap) to write pml's exit status.
    let line = format!(
        "trap 'true' INT; cd '{dir}' && TMPDIR='{dir}' '{}' run '{}' --no-store --json > out.json 2> err.txt; echo $? > status",
        env!("CARGO_BIN_EXE_pml"),
        program.display()
    );
    let tmux = Tmux::start("pml-test", &line);
    wait_for_the_slow_call(tmp.path());
    tmux.run(&["send-keys", "-t", "pml", "C-c"]);
    let status = tmp.path().join("status");
    let waited = Instant::now();
    while !status.exists() && waited.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(tmux);
    let err = std::fs::read_to_string(tmp.path().join("err.txt")).unwrap_or_default();
    assert_eq!(
        std::fs::read_to_string(&status).unwrap_or_default().trim(),
        "130",
        "{err}"
    );
    assert!(
        waited.elapsed() < Duration::from_secs(5),
        "{:?}",
        waited.elapsed()
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("out.json")).unwrap())
            .unwrap();
    assert_eq!(report["error"], "interrupted");
    // The cancelled call went out: it is part of what the run did.
    assert_eq!(
        report["executedPath"],
        serde_json::json!([
            "filesystem:write_file",
            "everything:trigger-long-running-operation"
        ])
    );
    assert_eq!(processes_under(tmp.path()), Vec::<u32>::new());
    let scratch = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("pml-run-"))
        .count();
    assert_eq!(scratch, 0);
}

/// Ctrl-C while `--approve prompt` waits for an answer: the question is answered no at once,
/// nothing runs, pml ends (it does not wait for the unread answer).
#[test]
fn ctrl_c_at_the_approval_prompt() {
    use std::io::Read;
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("write.js");
    std::fs::write(
        &program,
        "await mcp.filesystem.write_file({ path: args.root + \"/w.txt\", content: \"w\" });\nreturn 1;\n",
    )
    .unwrap();
    let perms = tmp.path().join("perms.json");
    std::fs::write(
        &perms,
        r#"{"permissions": {"filesystem:write_file": "hil"}}"#,
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pml"))
        .args([
            "run",
            program.to_str().unwrap(),
            "--no-store",
            "--approve",
            "prompt",
        ])
        .arg("--permissions")
        .arg(&perms)
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // stdin stays open: the question waits.
    let _stdin = child.stdin.take();
    let mut stderr = child.stderr.take().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let reader = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let started = Instant::now();
    while !seen.lock().unwrap().contains("run it? [y/N]")
        && started.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the child we spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let signalled = Instant::now();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "{:?}",
        signalled.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{}", seen.lock().unwrap());
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["error"], "the run was not approved");
    assert_eq!(report["executedPath"], serde_json::json!([]));
    assert_eq!(processes_under(tmp.path()), Vec::<u32>::new());
}

/// A run interrupted with a store to record it can be resumed: its scratch folder is kept (pml
/// says for which command), `runs list` shows it interrupted, and the resume finishes the
/// program on the files it left, then removes the folder.
#[test]
fn an_interrupted_run_keeps_its_scratch_for_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("steps.js");
    std::fs::write(
        &program,
        "await mcp.filesystem.write_file({ path: args.root + \"/a.txt\", content: \"a\" });\n\
         await mcp.everything[\"trigger-long-running-operation\"]({ duration: 3, steps: 1 });\n\
         await mcp.filesystem.write_file({ path: args.root + \"/b.txt\", content: \"b\" });\n\
         return (await mcp.filesystem.read_text_file({ path: args.root + \"/a.txt\" })).content;\n",
    )
    .unwrap();
    let store = tmp.path().join("store.sqlite");
    let pml = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pml"));
        command
            .args(args)
            .env("TMPDIR", tmp.path())
            .env("PML_STORE", &store)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let child = pml(&["run", program.to_str().unwrap()]).spawn().unwrap();
    wait_for_the_slow_call(tmp.path());
    // SAFETY: kill(2) on the child we spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let line = (stderr.lines())
        .find_map(|l| l.strip_prefix("pml: the scratch folder is kept for `pml run "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let (command, kept) = line.split_once("`: ").unwrap();
    let id = command.rsplit(' ').next().unwrap().to_owned();
    assert!(Path::new(kept).join("root/a.txt").exists(), "{kept}");
    let listed = pml(&["runs", "list"]).output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed
            .lines()
            .any(|l| l.contains(&id) && l.contains("interrupted")),
        "{listed}"
    );
    let resumed = pml(&["run", program.to_str().unwrap(), "--resume", &id])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&resumed.stdout).unwrap_or(Value::Null);
    assert_eq!(
        report["result"],
        "a",
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(!Path::new(kept).exists(), "{kept}");
    assert_eq!(processes_under(tmp.path()), Vec::<u32>::new());
}

/// On a terminal, a run that may make a call that needs a human asks once, with the plan,
/// before anything runs (no `--approve` given); the plan says computed arguments with the
/// program's names and where they come from. Answered no, nothing is written.
#[test]
fn on_a_terminal_destructive_calls_are_asked_about_first() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().display().to_string();
    let program = tmp.path().join("copy.js");
    std::fs::write(
        &program,
        "const file = await mcp.filesystem.read_text_file({ path: args.root + \"/a.txt\" });\n\
         await mcp.filesystem.write_file({ path: args.root + \"/b.txt\", content: file.content });\n\
         return \"copied\";\n",
    )
    .unwrap();
    std::fs::create_dir(tmp.path().join("copy")).unwrap();
    std::fs::write(tmp.path().join("copy/a.txt"), "a").unwrap();
    let line = format!(
        "cd '{dir}' && TMPDIR='{dir}' '{}' run '{}' --no-store > out.json; echo $? > status",
        env!("CARGO_BIN_EXE_pml"),
        program.display()
    );
    let tmux = Tmux::start("pml-ask", &line);
    let screen = || {
        String::from_utf8_lossy(&tmux.run(&["capture-pane", "-p", "-t", "pml"]).stdout).into_owned()
    };
    let waited = Instant::now();
    while !screen().contains("[y/N]") && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let asked = screen();
    tmux.run(&["send-keys", "-t", "pml", "n", "Enter"]);
    let status = tmp.path().join("status");
    let waited = Instant::now();
    while !status.exists() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(tmux);
    assert!(asked.contains("filesystem:write_file"), "{asked}");
    assert!(
        asked.contains("\"content\": <file.content, from filesystem:read_text_file at 1:20>"),
        "{asked}"
    );
    assert_eq!(
        std::fs::read_to_string(&status).unwrap_or_default().trim(),
        "1",
        "{asked}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("out.json")).unwrap())
            .unwrap();
    assert_eq!(report["ok"], false, "{report}");
    // Nothing ran: not even the read before the write.
    assert_eq!(report["executedPath"], serde_json::json!([]), "{report}");
}
