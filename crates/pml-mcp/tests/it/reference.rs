//! Against the real npm reference servers (`mcp-servers/`, installed on demand).

use std::time::{Duration, Instant};

use pml_mcp::{ClientOptions, McpClients};
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn filesystem_write_read_list() {
    within(60, async {
        let (root, scratch) = (TempDir::new("fs-root"), TempDir::new("fs-scratch"));
        std::fs::write(root.path().join("a.txt"), "from disk\n").unwrap();
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let b = root.path().join("b.txt");
        let b = b.to_str().unwrap();

        let wrote = mcp
            .call(
                "filesystem",
                "write_file",
                json!({"path": b, "content": "hello\nworld"}),
            )
            .await
            .unwrap();
        assert!(!wrote.is_error, "{wrote:?}");
        assert_eq!(std::fs::read_to_string(b).unwrap(), "hello\nworld");

        // structuredContent wins over the text item.
        let read = mcp
            .call_value("filesystem", "read_text_file", json!({"path": b}))
            .await
            .unwrap();
        assert_eq!(read, json!({"content": "hello\nworld"}));

        let listed = mcp
            .call_value("filesystem", "list_directory", json!({"path": root.str()}))
            .await
            .unwrap();
        let listed = listed["content"].as_str().unwrap();
        assert_contains(listed, &["[FILE] a.txt", "[FILE] b.txt"]);

        // Outside the allowed root: an isError result, thrown with its text.
        let denied = mcp
            .call(
                "filesystem",
                "read_text_file",
                json!({"path": "/etc/hostname"}),
            )
            .await
            .unwrap();
        assert!(denied.is_error);
        assert_contains(denied.error_text.as_deref().unwrap(), &["Access denied"]);
        let err = mcp
            .call_value(
                "filesystem",
                "read_text_file",
                json!({"path": "/etc/hostname"}),
            )
            .await
            .unwrap_err();
        assert_contains(
            &err.to_string(),
            &[
                "mcp tool `filesystem.read_text_file` returned an error",
                "Access denied",
            ],
        );

        let pid = mcp.process_id("filesystem").unwrap();
        mcp.shutdown().await;
        assert!(
            !pid_exists(pid),
            "filesystem server {pid} survived shutdown"
        );
    })
    .await;
}

/// Arguments that are no object reach the server as they are, as Node's client sends them, and
/// the call ends with the server's answer (the filesystem server's: a JSON-RPC error).
#[tokio::test]
async fn arguments_that_are_no_object_reach_the_server() {
    within(60, async {
        let (root, scratch) = (TempDir::new("na-root"), TempDir::new("na-scratch"));
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        for (arguments, received) in [
            (json!("a.txt"), "received string"),
            (json!(5), "received number"),
            (json!([1]), "received array"),
            (json!(true), "received boolean"),
        ] {
            let err = mcp
                .call_value("filesystem", "list_allowed_directories", arguments)
                .await
                .unwrap_err();
            match &err {
                pml_mcp::McpError::Rpc { code, message, .. } => {
                    assert_eq!(*code, -32603, "{err}");
                    assert_contains(message, &["expected record", received]);
                }
                other => panic!("not the server's answer: {other}"),
            }
        }
        // The connection is still good.
        let listed = mcp
            .call_value("filesystem", "list_allowed_directories", json!({}))
            .await
            .unwrap();
        assert_contains(
            listed["content"].as_str().unwrap(),
            &["Allowed directories"],
        );
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn list_tools_gives_schemas_and_annotations() {
    within(60, async {
        let (root, scratch) = (TempDir::new("lt-root"), TempDir::new("lt-scratch"));
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let tools = mcp.list_tools("filesystem").await.unwrap();
        let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap();

        let read = tool("read_text_file");
        assert!(read.annotations.read_only(), "{:?}", read.annotations);
        assert_eq!(read.annotations.read_only_hint, Some(true));
        assert!(!read.annotations.destructive());
        assert_eq!(read.input_schema["type"], "object");
        assert!(read.input_schema["properties"]["path"].is_object());
        assert!(read.output_schema.is_some());
        assert!(read.description.as_deref().unwrap_or_default().len() > 10);

        let write = tool("write_file");
        assert!(!write.annotations.read_only());
        assert_eq!(write.annotations.destructive_hint, Some(true));
        assert!(tool("list_directory").annotations.read_only());

        let memory = mcp.list_tools("memory").await.unwrap();
        let read_graph = memory.iter().find(|t| t.name == "read_graph").unwrap();
        assert!(read_graph.annotations.read_only());
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn memory_create_entities_then_read_graph() {
    within(60, async {
        let (root, scratch) = (TempDir::new("mem-root"), TempDir::new("mem-scratch"));
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let created = mcp
            .call_value(
                "memory",
                "create_entities",
                json!({"entities": [
                    {"name": "Ada", "entityType": "person", "observations": ["wrote programs"]},
                    {"name": "Engine", "entityType": "machine", "observations": []}
                ]}),
            )
            .await
            .unwrap();
        assert_eq!(created["entities"][0]["name"], "Ada");

        let graph = mcp
            .call_value("memory", "read_graph", json!({}))
            .await
            .unwrap();
        let names: Vec<&str> = graph["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Ada", "Engine"]);
        assert_eq!(
            graph["entities"][0]["observations"],
            json!(["wrote programs"])
        );
        mcp.shutdown().await;
        let saved = std::fs::read_to_string(scratch.path().join("memory.jsonl")).unwrap();
        assert_contains(&saved, &["\"Ada\""]);
    })
    .await;
}

#[tokio::test]
async fn everything_echo_sum_structured_and_unknown_tool() {
    within(60, async {
        let (root, scratch) = (TempDir::new("ev-root"), TempDir::new("ev-scratch"));
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let tools = mcp.list_tools("everything").await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_contains(
            &names.join(","),
            &["echo", "get-sum", "get-structured-content"],
        );

        // A single text item that is not JSON stays text.
        let echo = mcp
            .call_value("everything", "echo", json!({"message": "hi"}))
            .await
            .unwrap();
        assert_eq!(echo, json!("Echo: hi"));
        let sum = mcp
            .call_value("everything", "get-sum", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum, json!("The sum of 2 and 3 is 5."));

        let weather = mcp
            .call(
                "everything",
                "get-structured-content",
                json!({"location": "Chicago"}),
            )
            .await
            .unwrap();
        assert_eq!(weather.value, weather.raw["structuredContent"]);
        assert!(weather.value["temperature"].is_number());

        let missing = mcp
            .call("everything", "no-such-tool", json!({}))
            .await
            .unwrap();
        assert!(missing.is_error);
        assert_contains(missing.error_text.as_deref().unwrap(), &["no-such-tool"]);
        mcp.shutdown().await;
    })
    .await;
}

type Call = (&'static str, &'static str, serde_json::Value);

async fn timed(mcp: &McpClients, (server, tool, args): Call) -> Duration {
    let t = Instant::now();
    mcp.call_value(server, tool, args).await.unwrap();
    t.elapsed()
}

/// Spawn + initialize + tools/list + first call, one server at a time and the three
/// concurrently, then later calls. Prints the numbers
/// (`cargo test -p pml-mcp --test it latencies -- --nocapture`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latencies_of_first_and_later_calls() {
    within(120, async {
        let (root, scratch) = (TempDir::new("lat-root"), TempDir::new("lat-scratch"));
        std::fs::write(root.path().join("x.txt"), "x").unwrap();
        let x = root.path().join("x.txt").to_string_lossy().into_owned();
        let calls: [Call; 3] = [
            ("filesystem", "read_text_file", json!({"path": x})),
            ("memory", "read_graph", json!({})),
            ("everything", "echo", json!({"message": "m"})),
        ];
        let alone = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let mut one_by_one = Vec::new();
        for call in calls.clone() {
            one_by_one.push((call.0, timed(&alone, call).await));
        }
        let together = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let [a, b, c] = calls.clone();
        let t = Instant::now();
        let (a, b, c) = tokio::join!(timed(&together, a), timed(&together, b), timed(&together, c));
        let all_three = t.elapsed();
        together.shutdown().await;

        let mut later = Vec::new();
        for _ in 0..20 {
            for call in calls.clone() {
                later.push(timed(&alone, call).await);
            }
        }
        later.sort();
        eprintln!("first call (spawn+initialize+tools/list+call), one server at a time: {one_by_one:?}");
        eprintln!("first calls of the three concurrently: {a:?} {b:?} {c:?}, all done after {all_three:?}");
        eprintln!(
            "later calls: min {:?}, median {:?}, max {:?}",
            later[0],
            later[later.len() / 2],
            later[later.len() - 1]
        );
        assert!(later[later.len() / 2] < Duration::from_millis(200));
        let t = Instant::now();
        alone.shutdown().await;
        eprintln!("shutdown of three servers: {:?}", t.elapsed());
    })
    .await;
}

#[tokio::test]
async fn lone_surrogates_reach_the_server_and_come_back() {
    within(60, async {
        let (root, scratch) = (TempDir::new("ls-root"), TempDir::new("ls-scratch"));
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        // pml text (`pml_jstext`): "\ud83d" is U+FDD0 + "d83d", U+FDD0 itself is doubled.
        let message = "ab\u{FDD0}d83d|\u{FDD0}\u{FDD0}|\u{FDD0}de00";
        let echo = mcp
            .call_value("everything", "echo", json!({ "message": message }))
            .await
            .unwrap();
        assert_eq!(echo, json!(format!("Echo: {message}")));

        // The server got a lone surrogate (`\ud83d`, as Node's SDK sends it), not the escape:
        // Node writes it to a file as U+FFFD.
        let path = root.path().join("cut.txt");
        let wrote = mcp
            .call(
                "filesystem",
                "write_file",
                json!({"path": path.to_str().unwrap(), "content": "cut \u{FDD0}d83d|\u{FDD0}\u{FDD0}"}),
            )
            .await
            .unwrap();
        assert!(!wrote.is_error, "{wrote:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "cut \u{FFFD}|\u{FDD0}"
        );
        mcp.shutdown().await;
    })
    .await;
}

/// A tool's result reaches the program as the server wrote it, as in Node: numbers as
/// written (rmcp's model read an annotation's `priority` through an `f32`: 0.3 became
/// 0.30000001192092896), a content item's keys in the server's order.
#[tokio::test]
async fn results_are_kept_as_the_server_wrote_them() {
    within(60, async {
        let (root, scratch) = (TempDir::new("rw-root"), TempDir::new("rw-scratch"));
        let mcp = McpClients::new(reference_config(&root, &scratch), ClientOptions::default());
        let annotated = mcp
            .call_value(
                "everything",
                "get-annotated-message",
                json!({"messageType": "debug", "includeImage": true}),
            )
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_string(&annotated[0]["annotations"]).unwrap(),
            r#"{"audience":["assistant"],"priority":0.3}"#
        );
        let links = mcp
            .call_value("everything", "get-resource-links", json!({"count": 1}))
            .await
            .unwrap();
        // The server's SDK writes a resource link's keys in its schema's order.
        let keys: Vec<&str> = links[1]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["name", "uri", "description", "mimeType", "type"]);
        mcp.shutdown().await;
    })
    .await;
}
