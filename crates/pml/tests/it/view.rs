//! `pml view`: Definition and Invocation views of the examples, checked by Graphviz.

use std::process::{Command, Stdio};

use crate::store::pml_in;

/// `dot -Tsvg` accepts `text` (Graphviz comes with the test set-up: scripts/test.sh).
fn dot_accepts(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut dot = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run Graphviz's dot (scripts/test.sh installs it): {e}"))?;
    dot.stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = dot.wait_with_output().unwrap();
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

/// A screenshot of the HTML page `page` in headless Chromium (from the distribution:
/// scripts/test.sh installs it), `node` selected: checks it is a picture, not a blank page.
fn screenshot(page: &std::path::Path, node: &str) {
    let shot = page.with_extension("png");
    let chromium = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg("--window-size=1300,1500")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}#{node}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("cannot run chromium (scripts/test.sh installs it)");
    assert!(chromium.success(), "{}", page.display());
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // A picture, not a blank page (a blank one compresses to a few KiB).
    assert!(
        png.len() > 20_000,
        "{}: {} bytes",
        page.display(),
        png.len()
    );
}

fn examples() -> Vec<String> {
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ts"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files
}

#[test]
fn the_definition_view_of_every_example_renders() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let examples = examples();
    assert!(examples.len() >= 5);
    for (i, file) in examples.iter().enumerate() {
        let (code, dot, err) = pml_in(&store, &["view", file, "--format", "dot"]);
        assert_eq!(code, 0, "{file}: {err}");
        dot_accepts(&dot).unwrap_or_else(|e| panic!("{file}: dot refused it: {e}\n{dot}"));
        let (code, mermaid, err) = pml_in(&store, &["view", file]);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
        let opened = mermaid
            .lines()
            .filter(|l| l.trim_start().starts_with("subgraph "))
            .count();
        let closed = mermaid.lines().filter(|l| l.trim() == "end").count();
        assert_eq!(opened, closed, "{file}:\n{mermaid}");
        let page = dir.path().join(format!("example-{i}.html"));
        let (code, _, err) = pml_in(
            &store,
            &[
                "view",
                file,
                "--format",
                "html",
                "-o",
                &page.display().to_string(),
            ],
        );
        assert_eq!(code, 0, "{file}: {err}");
        screenshot(&page, "n1");
    }
    // No store needed for a file's definition; a name that is neither a file nor stored: 1.
    let (code, _, err) = pml_in(&store, &["view", "no_such_capability"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("no capability named or hashed `no_such_capability`"),
        "{err}"
    );
}

#[test]
fn the_invocation_view_lays_runs_on_the_definition() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let examples = examples();
    let file = examples
        .iter()
        .find(|f| f.ends_with("/branches.ts"))
        .unwrap();
    let mut ids = Vec::new();
    let mut traces = Vec::new();
    for _ in 0..2 {
        let (code, out, err) = pml_in(&store, &["run", file]);
        assert_eq!(code, 0, "{err}");
        let ran: serde_json::Value = serde_json::from_str(&out).unwrap();
        ids.push(ran["runId"].as_str().unwrap().to_owned());
        traces.push(ran["trace"].as_array().unwrap().clone());
    }
    let (code, one, err) = pml_in(&store, &["view", file, "--run", &ids[0], "--format", "dot"]);
    assert_eq!(code, 0, "{err}");
    dot_accepts(&one).unwrap();
    assert!(
        one.contains("n1 · filesystem:read_text_file\\nran 1, "),
        "{one}"
    );
    // A branch not taken: its edge dashed grey, its nodes "did not run".
    assert!(one.contains(" ×0\", style=dashed"), "{one}");
    assert!(one.contains("did not run"), "{one}");
    let (code, all, err) = pml_in(&store, &["view", file, "--runs", "--format", "dot"]);
    assert_eq!(code, 0, "{err}");
    dot_accepts(&all).unwrap();
    assert!(
        all.contains("n1 · filesystem:read_text_file\\nran 2, "),
        "{all}"
    );
    // As one self-contained HTML page, screenshotted in headless Chromium.
    let page = dir.path().join("view.html");
    let (code, _, err) = pml_in(
        &store,
        &[
            "view",
            file,
            "--runs",
            "--format",
            "html",
            "-o",
            &page.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    for outside in ["http:", "https:", "<link", " src=", "@import"] {
        assert!(
            !html.contains(outside),
            "the page reaches outside: {outside}"
        );
    }
    assert!(
        html.contains("n1 · filesystem:read_text_file</text>"),
        "{html}"
    );
    screenshot(&page, "d1");
    // Aggregated over runs there is no timeline: it is one run's.
    assert!(!html.contains("id=\"timeline\""), "{html}");
    // One run's page has its timeline beside the picture: a row per operation that ended,
    // by start, the reads started ahead marked. Of a run that has one: whether a read is
    // started ahead of the program depends on timing (a loaded machine may run the program
    // to it first), so others are made, in a store of their own (the counts above are of
    // two runs), until one has.
    let speculated = |trace: &[serde_json::Value]| {
        (trace.iter()).any(|e| e["event"] == "tool_end" && e["speculative"] == true)
    };
    let timed_store = dir.path().join("timeline.sqlite").display().to_string();
    let (timed_store, run_id, trace) = match (0..2).find(|&i| speculated(&traces[i])) {
        Some(i) => (store.clone(), ids[i].clone(), traces[i].clone()),
        None => (1..=8)
            .map(|_| {
                let (code, out, err) = pml_in(&timed_store, &["run", file]);
                assert_eq!(code, 0, "{err}");
                let ran: serde_json::Value = serde_json::from_str(&out).unwrap();
                let id = ran["runId"].as_str().unwrap().to_owned();
                (
                    timed_store.clone(),
                    id,
                    ran["trace"].as_array().unwrap().clone(),
                )
            })
            .find(|(_, _, trace)| speculated(trace))
            .expect("a run with a read started ahead in 10"),
    };
    let page = dir.path().join("run.html");
    let (code, _, err) = pml_in(
        &timed_store,
        &[
            "view",
            file,
            "--run",
            &run_id,
            "--format",
            "html",
            "-o",
            &page.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html
        .find("<section class=\"timeline\" id=\"timeline\">")
        .expect("a timeline");
    let section = &html[at..at + html[at..].find("</section>").unwrap()];
    let mut ends: Vec<(f64, String)> = (trace.iter())
        .filter(|e| e["event"] == "tool_end")
        .map(|e| {
            let end = e["tsMs"].as_f64().unwrap();
            let start = end - e["durationMs"].as_f64().unwrap_or(0.0);
            let label = format!(
                "{} {}",
                e["taskId"].as_str().unwrap_or("-"),
                e["tool"].as_str().unwrap()
            );
            (start, label)
        })
        .collect();
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let rows: Vec<&str> = section
        .split("<g class=\"row")
        .skip(1)
        .map(|row| {
            let title = &row[row.find("<title>").unwrap() + "<title>".len()..];
            &title[..title.find(": ").unwrap()]
        })
        .collect();
    let expected: Vec<&str> = ends.iter().map(|(_, label)| label.as_str()).collect();
    assert_eq!(rows, expected, "{section}");
    let speculative = (trace.iter())
        .filter(|e| e["event"] == "tool_end" && e["speculative"] == true)
        .count();
    assert!(speculative > 0);
    assert_eq!(
        section.matches("<g class=\"row speculative").count(),
        speculative,
        "{section}"
    );
    screenshot(&page, "timeline");
    // Saved, the capability has the same views by name, written to a file.
    assert_eq!(pml_in(&store, &["save", file, "--name", "branches"]).0, 0);
    let out = dir.path().join("view.mmd");
    let (code, _, err) = pml_in(
        &store,
        &[
            "view",
            "branches",
            "--runs",
            "-o",
            &out.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let mermaid = std::fs::read_to_string(&out).unwrap();
    assert!(
        mermaid.contains("n1[\"n1 · filesystem:read_text_file<br>ran 2, "),
        "{mermaid}"
    );
}

/// Every Mermaid view, of the examples (their runs laid on too) and of every fixture, parses
/// with Mermaid's own parser (`crates/pml/tests/mermaid`, installed by scripts/test.sh).
#[test]
fn the_mermaid_views_parse_with_mermaid() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let checker = format!("{root}/crates/pml/tests/mermaid");
    assert!(
        std::path::Path::new(&format!("{checker}/node_modules/mermaid")).is_dir(),
        "Mermaid is not installed: npm ci --prefix {checker} (scripts/test.sh does)"
    );
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let mut programs = examples();
    for entry in std::fs::read_dir(format!("{root}/fixtures")).unwrap() {
        let fixture = entry.unwrap().path();
        for input in ["input.ts", "input.js"] {
            if fixture.join(input).is_file() {
                programs.push(fixture.join(input).display().to_string());
            }
        }
    }
    let mut files = Vec::new();
    for (i, program) in programs.iter().enumerate() {
        // A fixture with syntax errors has no structure to draw.
        if pml_in(&store, &["check", program]).0 == 1 {
            continue;
        }
        let (code, mermaid, err) = pml_in(&store, &["view", program]);
        assert_eq!(code, 0, "{program}: {err}");
        let file = dir.path().join(format!("{i}.mmd"));
        std::fs::write(&file, mermaid).unwrap();
        files.push(file.display().to_string());
    }
    assert!(files.len() > 90, "{}", files.len());
    let branches = programs
        .iter()
        .find(|f| f.ends_with("/branches.ts"))
        .unwrap();
    assert_eq!(pml_in(&store, &["run", branches]).0, 0);
    let (code, mermaid, err) = pml_in(&store, &["view", branches, "--runs"]);
    assert_eq!(code, 0, "{err}");
    let file = dir.path().join("branches-runs.mmd");
    std::fs::write(&file, mermaid).unwrap();
    files.push(file.display().to_string());
    let out = Command::new("node")
        .arg(format!("{checker}/check.mjs"))
        .args(&files)
        .output()
        .expect("run node");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        report
            .lines()
            .filter(|l| !l.ends_with(": ok"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(
        report.lines().filter(|l| l.ends_with(": ok")).count(),
        files.len()
    );
}

/// A decision reads as the program wrote it (`if (big.length > 1) { …`), not as its condition
/// over node ids (`n12.length > 1`), in every format; the HTML page keeps the id below it.
#[test]
fn decisions_are_labelled_with_their_source() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let examples = examples();
    let file = examples
        .iter()
        .find(|f| f.ends_with("/branches.ts"))
        .unwrap();
    let (code, dot, err) = pml_in(&store, &["view", file, "--format", "dot"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        dot.contains("\"d1\" [label=\"d1 · switch (config.mode) { …\", shape=diamond"),
        "{dot}"
    );
    assert!(
        dot.contains("\"d2\" [label=\"d2 · if (big.length > 1) { …\", shape=diamond"),
        "{dot}"
    );
    let (code, mermaid, err) = pml_in(&store, &["view", file]);
    assert_eq!(code, 0, "{err}");
    assert!(
        mermaid.contains("d2{\"d2 · if (big.length #gt; 1) { …\"}"),
        "{mermaid}"
    );
    let (code, html, err) = pml_in(&store, &["view", file, "--format", "html"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        html.contains(">if (big.length &gt; 1) { …</text>"),
        "{html}"
    );
    assert!(html.contains(" class=\"sub\">d2</text>"), "{html}");
    assert!(!html.contains(">d2 · n12"), "{html}");
}

/// A run killed with SIGKILL has no trace, only its journal: its completed calls are laid on
/// their nodes (no durations), what the journal does not hold is said to be unknown, not "did
/// not run", and the view says the run did not finish.
#[test]
fn a_killed_run_shows_what_its_journal_holds() {
    let steps = crate::store::Steps::with(
        r#"const listing = await mcp.filesystem.list_directory({ path: args.dir });
await mcp.filesystem.write_file({ path: args.dir + "/a.txt", content: listing.content });
await mcp.filesystem.write_file({ path: args.dir + "/b.txt", content: "b" });
if (listing.content.length >= 0) {
  await mcp.filesystem.write_file({ path: args.dir + "/c.txt", content: "c" });
}
return 1;
"#,
    );
    // Killed once its third call (the second write) is written as done.
    let id = steps
        .killed_if_reached("PML_FAULT_PAUSE_AFTER_CALL", 3)
        .expect("the run stops after its third call");
    let (code, dot, err) = pml_in(
        &steps.store,
        &["view", &steps.program, "--run", &id, "--format", "dot"],
    );
    assert_eq!(code, 0, "{err}");
    dot_accepts(&dot).unwrap();
    assert!(dot.contains("  label=\"the run did not finish (killed, or still running): 3 journaled calls laid on their nodes, with no durations; "), "{dot}");
    let label = |tool: &str| -> Vec<String> {
        (dot.lines())
            .filter(|l| l.contains(&format!(" · {tool}\\n")))
            .map(|l| {
                let from = l.find("\\n").unwrap() + 2;
                l[from..from + l[from..].find('"').unwrap()].to_owned()
            })
            .collect()
    };
    assert_eq!(
        label("filesystem:list_directory"),
        ["ran 1, 1 in the journal (no duration)"]
    );
    assert_eq!(
        label("filesystem:write_file"),
        [
            "ran 1, 1 in the journal (no duration)",
            "ran 1, 1 in the journal (no duration)",
            "not in the journal"
        ]
    );
    assert!(!dot.contains("did not run"), "{dot}");
    // Its decisions are not journaled: no outcome counted, none drawn as never taken.
    assert!(dot.contains("[label=\"true\"];"), "{dot}");
    assert!(!dot.contains('×'), "{dot}");
    let (code, html, err) = pml_in(
        &steps.store,
        &["view", &steps.program, "--run", &id, "--format", "html"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(html.contains("(did not finish)</h1>"), "{html}");
    assert!(
        html.contains("; the run did not finish (killed, or still running)"),
        "{html}"
    );
    let (code, mermaid, err) = pml_in(&steps.store, &["view", &steps.program, "--run", &id]);
    assert_eq!(code, 0, "{err}");
    assert!(
        mermaid.starts_with("---\ntitle: \"the run did not finish"),
        "{mermaid}"
    );
}
