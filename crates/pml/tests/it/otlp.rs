//! `pml run --otlp URL`: the run's spans, received as OTLP/HTTP JSON on a local port.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::store::pml_in;

/// Accepts OTLP/HTTP requests until `done` says so (or 30 s pass): their JSON bodies.
pub(crate) fn receive(listener: TcpListener, done: std::sync::mpsc::Receiver<()>) -> Vec<Value> {
    listener.set_nonblocking(true).unwrap();
    let mut bodies = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let (stream, _) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(_) => {
                if done.try_recv().is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        stream.set_nonblocking(false).unwrap();
        let mut reader = BufReader::new(stream);
        let mut length = 0;
        let mut line = String::new();
        let mut path = String::new();
        while reader.read_line(&mut line).unwrap() > 0 {
            if path.is_empty() {
                path = line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
            line.clear();
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        assert_eq!(path, "/v1/traces");
        bodies.push(serde_json::from_slice(&body).unwrap());
        let mut stream = reader.into_inner();
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
            .unwrap();
    }
    bodies
}

fn attribute<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    (span["attributes"].as_array()?.iter())
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

#[test]
fn a_run_is_exported_as_spans_nested_under_the_run_and_its_capability_calls() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let helper = dir.path().join("size.ts");
    std::fs::write(
        &helper,
        "const f = await mcp.filesystem.read_text_file({ path: args.root + \"/\" + args.name });\nreturn f.content.length;\n",
    )
    .unwrap();
    assert_eq!(
        pml_in(
            &store,
            &["save", &helper.display().to_string(), "--name", "size"]
        )
        .0,
        0
    );
    let program = dir.path().join("sizes.ts");
    std::fs::write(
        &program,
        "const sizes = [];\nfor (const name of [\"a.txt\", \"b.txt\"]) sizes.push(await capabilities.size({ name }));\nreturn sizes;\n",
    )
    .unwrap();
    let data = dir.path().join("sizes");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("a.txt"), "hello").unwrap();
    std::fs::write(data.join("b.txt"), "world!").unwrap();

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, done) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || receive(listener, done));
    let (code, out, err) = pml_in(
        &store,
        &["run", &program.display().to_string(), "--otlp", &url],
    );
    stop.send(()).unwrap();
    let bodies = server.join().unwrap();
    assert_eq!(code, 0, "{err}");
    let ran: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(ran["result"], serde_json::json!([5, 6]));
    assert!(!err.contains("not exported"), "{err}");

    let spans: Vec<&Value> = (bodies.iter())
        .flat_map(|b| b["resourceSpans"].as_array().unwrap())
        .flat_map(|r| r["scopeSpans"].as_array().unwrap())
        .flat_map(|s| s["spans"].as_array().unwrap())
        .collect();
    let run = spans
        .iter()
        .find(|s| s["name"].as_str().unwrap().starts_with("pml run "))
        .expect("a run span");
    let run_id = run["spanId"].as_str().unwrap();
    assert_eq!(run["parentSpanId"].as_str().unwrap_or_default(), "");
    // Two capability calls under the run, each with its read under it.
    let calls: Vec<&&Value> = (spans.iter())
        .filter(|s| s["name"] == "execute_tool capability:size")
        .collect();
    assert_eq!(calls.len(), 2);
    for call in &calls {
        assert_eq!(call["parentSpanId"], run_id);
        assert_eq!(call["traceId"], run["traceId"]);
    }
    let reads: Vec<&&Value> = (spans.iter())
        .filter(|s| s["name"] == "execute_tool filesystem:read_text_file")
        .collect();
    assert_eq!(reads.len(), 2);
    let mut parents: Vec<&str> = reads
        .iter()
        .map(|r| r["parentSpanId"].as_str().unwrap())
        .collect();
    let mut call_ids: Vec<&str> = calls
        .iter()
        .map(|c| c["spanId"].as_str().unwrap())
        .collect();
    parents.sort();
    call_ids.sort();
    assert_eq!(parents, call_ids);
    let read = reads[0];
    assert_eq!(
        attribute(read, "gen_ai.tool.name").unwrap()["stringValue"],
        "filesystem:read_text_file"
    );
    assert_eq!(
        attribute(read, "mcp.method.name").unwrap()["stringValue"],
        "tools/call"
    );
    assert_eq!(
        attribute(read, "pml.capability").unwrap()["stringValue"],
        "size"
    );
    assert_eq!(attribute(read, "pml.node_id").unwrap()["stringValue"], "n1");
    assert_eq!(
        attribute(calls[0], "pml.iteration").unwrap()["arrayValue"]["values"][0]["intValue"],
        "0"
    );
    // Without --otlp nothing is sent, even with the standard variable pointing at a collector.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, done) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || receive(listener, done));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pml"))
        .args(["run", &program.display().to_string()])
        .env("PML_STORE", &store)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .output()
        .unwrap();
    stop.send(()).unwrap();
    assert!(out.status.success());
    assert!(server.join().unwrap().is_empty());
}
