//! The equivalence property on every fixture: the program as written, without probes ==
//! instrumented == instrumented with speculation (same outcome, same result, same multiset of
//! MCP calls), against a deterministic in-process host that answers any tool (so every fixture
//! can run).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use pml_executor::{
    execute, AutoApprove, BoxFuture, ExecuteOptions, RunReport, ToolFailure, ToolHost, Turn,
};
use pml_mcp::{ToolAnnotations, ToolInfo};
use pml_sandbox::{Sandbox, SandboxOptions};
use serde_json::{json, Value};

/// The engine's words that the probes of an instrumented program may refine (after the
/// error's name and `: `).
const REFINED: &[&str] = &[
    ": not a function",
    ": Cannot convert undefined or null to object",
    ": value is not iterable",
];

/// Answers every call from its tool and arguments alone. Tools named like reads are
/// annotated read-only, so speculation is exercised. Keeps what it received (speculative calls
/// included): what a logging proxy in front of a server would see.
#[derive(Default)]
struct Deterministic {
    received: std::sync::Mutex<Vec<String>>,
}

impl Deterministic {
    /// What it received, `tool arguments` each, sorted.
    fn received(&self) -> Vec<String> {
        let mut out = self.received.lock().unwrap().clone();
        out.sort();
        out
    }
}

fn reads(tool: &str) -> bool {
    ["read", "get", "list", "search", "query", "fetch", "find"]
        .iter()
        .any(|p| tool.starts_with(p))
}

impl ToolHost for Deterministic {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
        turn: Turn,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            (self.received.lock().unwrap())
                .push(format!("{server}:{tool} {}", untimed(&arguments)));
            drop(turn);
            if tool.contains("fail") {
                return Err(ToolFailure::new(format!(
                    "{server}.{tool} failed on purpose"
                )));
            }
            let rows = json!([
                {"id": 1, "name": "ada", "value": 3, "active": true, "status": "done", "tags": ["x"]},
                {"id": 2, "name": "bob", "value": 1, "active": false, "status": "queued", "tags": []},
                {"id": 3, "name": "cy", "value": 5, "active": true, "status": "done", "tags": ["y", "z"]},
            ]);
            Ok(json!({
                "tool": format!("{server}:{tool}"),
                "arguments": arguments,
                "content": rows.to_string(),
                "rows": rows,
                "entries": rows,
                "items": rows,
                "entities": rows,
                "status": "done",
                "count": 3,
                "ok": true,
            }))
        })
    }

    fn tools<'a>(&'a self, _server: &'a str) -> BoxFuture<'a, Result<Vec<ToolInfo>, String>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

fn annotations(
    program: &pml_executor::Program,
) -> std::collections::HashMap<String, ToolAnnotations> {
    program
        .structure
        .nodes
        .iter()
        .filter_map(|n| n.tool.clone())
        .filter(|t| !t.starts_with("code:"))
        .map(|t| {
            let read_only = reads(t.split_once(':').map_or("", |(_, tool)| tool));
            let annotations = ToolAnnotations {
                read_only_hint: Some(read_only),
                ..Default::default()
            };
            (t, annotations)
        })
        .collect()
}

/// Clock readings (`Date.now()`) differ between runs: every number past 2001 in
/// milliseconds reads as `"<time>"`.
fn untimed(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.as_f64().is_some_and(|f| f > 1e12) => json!("<time>"),
        Value::Array(a) => Value::Array(a.iter().map(untimed).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), untimed(v))).collect()),
        other => other.clone(),
    }
}

fn calls(r: &RunReport) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for c in &r.calls {
        *out.entry(format!("{} {}", c.tool, untimed(&c.arguments)))
            .or_default() += 1;
    }
    out
}

#[test]
fn every_fixture_gives_the_same_outcome_with_or_without_speculation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut inputs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| {
            let dir = e.unwrap().path();
            ["input.ts", "input.js"]
                .iter()
                .map(|n| dir.join(n))
                .find(|p| p.is_file())
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 80, "found {} fixtures", inputs.len());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sandbox = Arc::new(Sandbox::new(SandboxOptions::default()).unwrap());
    let host: Arc<dyn ToolHost> = Arc::new(Deterministic::default());
    let (mut compared, mut ok) = (0, 0);
    for input in &inputs {
        let source = std::fs::read_to_string(input).unwrap();
        let Ok(js) = pml::run::javascript_of(input, &source) else {
            continue;
        };
        let program = runtime
            .block_on(pml::run::prepare(&js, host.clone(), None, true))
            .0;
        if program.structure.has_errors() {
            continue;
        }
        let options = |speculate: bool| ExecuteOptions {
            args: json!({"root": "/data", "path": "/data/a.txt", "query": "q", "limit": 2,
                         "jobId": 7, "userId": 1, "id": 1, "name": "n", "url": "https://example.org"}),
            speculate,
            annotations: annotations(&program),
            ..Default::default()
        };
        // Each run on a host of its own: what the servers received, run by run.
        let go = |program: &pml_executor::Program, options: ExecuteOptions| {
            let host = Arc::new(Deterministic::default());
            let report = runtime.block_on(execute(
                program,
                host.clone(),
                Arc::new(AutoApprove),
                sandbox.clone(),
                &options,
            ));
            (report, host.received())
        };
        compared += 1;
        // The reference: the program's own text, no probes, no speculation.
        let plain = pml_executor::Program {
            instrumented: None,
            ..program.clone()
        };
        let (in_sandbox, received) = go(&plain, options(false));
        let (probed, probed_received) = go(&program, options(false));
        let (ahead, ahead_received) = go(&program, options(true));
        let f = input.display();
        // The servers receive exactly the calls of the program as written.
        assert_eq!(probed_received, received, "{f}: instrumented: received");
        assert_eq!(ahead_received, received, "{f}: with speculation: received");
        for (name, other) in [("instrumented", &probed), ("with speculation", &ahead)] {
            assert_eq!(
                other.ok, in_sandbox.ok,
                "{f}: {name}: {:?} / sandbox: {:?}",
                other.error, in_sandbox.error
            );
            if in_sandbox.ok {
                assert_eq!(
                    untimed(&other.result),
                    untimed(&in_sandbox.result),
                    "{f}: {name} result"
                );
                assert_eq!(calls(other), calls(&in_sandbox), "{f}: {name} calls");
            } else {
                // Both failed the same way: on the same tool, or with the same exception.
                let cause = |r: &RunReport| {
                    let e = r.error.as_ref().unwrap();
                    match e.message.split_once(" threw: ") {
                        Some((_, js)) => {
                            // Without the position: a task's start vs the throwing expression.
                            let first = js.lines().next().unwrap_or("");
                            first
                                .rsplit_once(" (at ")
                                .map_or(first, |(m, _)| m)
                                .to_owned()
                        }
                        _ => e.tool.clone().unwrap_or_default(),
                    }
                };
                let (a, b) = (cause(other), cause(&in_sandbox));
                // The probes know more than the engine at some places: where the program as
                // written gets the engine's generic words, the instrumented one may get V8's
                // own (`Cannot read properties of undefined (reading 'items')` for a nested
                // pattern), of the same kind of error.
                let refined = REFINED.iter().any(|generic| {
                    b.strip_suffix(generic)
                        .is_some_and(|kind| !kind.is_empty() && a.starts_with(kind))
                });
                let same = a == b || refined || (b.is_empty() && a.is_empty());
                assert!(
                    same,
                    "{f}: {name}: {:?} / {:?}",
                    other.error, in_sandbox.error
                );
            }
        }
        ok += usize::from(ahead.ok);
    }
    assert!(compared >= 75, "only {compared} fixtures ran");
    assert!(ok >= 40, "only {ok} runs succeeded");
}
