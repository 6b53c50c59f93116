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
    for file in &examples {
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
    for _ in 0..2 {
        let (code, out, err) = pml_in(&store, &["run", file]);
        assert_eq!(code, 0, "{err}");
        let ran: serde_json::Value = serde_json::from_str(&out).unwrap();
        ids.push(ran["runId"].as_str().unwrap().to_owned());
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
    let shot = dir.path().join("view.png");
    let chromium = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg("--window-size=1300,1500")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}#d1", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("cannot run chromium (scripts/test.sh installs it)");
    assert!(chromium.success());
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // A picture, not a blank page (a blank one compresses to a few KiB).
    assert!(png.len() > 20_000, "{} bytes", png.len());
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
