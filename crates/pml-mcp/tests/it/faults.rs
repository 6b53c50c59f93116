//! Fault injection with `mcp-servers/misbehaving-server.mjs`.

use std::time::{Duration, Instant};

use pml_mcp::{ClientOptions, McpError};
use serde_json::{json, Value};

use crate::support::*;

fn pid_of(value: &Value) -> u32 {
    u32::try_from(value["pid"].as_u64().expect("a pid")).unwrap()
}

#[tokio::test]
async fn values_follow_the_rule() {
    within(30, async {
        let mcp = clients(vec![("bad", misbehaving(&[]))], quick());
        let value = |tool: &'static str, args: Value| {
            let mcp = &mcp;
            async move { mcp.call_value("bad", tool, args).await.unwrap() }
        };
        assert_eq!(
            value("echo", json!({"text": "plain text"})).await,
            json!("plain text")
        );
        assert_eq!(
            value("echo", json!({"text": "[1, 2]"})).await,
            json!([1, 2])
        );
        assert_eq!(
            value("json", json!({"value": {"a": "b"}})).await,
            json!({"a": "b"})
        );
        assert_eq!(
            value("structured", json!({"value": {"s": 1}})).await,
            json!({"s": 1})
        );
        assert_eq!(
            value("multi", json!({})).await,
            json!([{"type": "text", "text": "first"}, {"type": "text", "text": "second"}])
        );
        assert_eq!(value("image", json!({})).await[0]["type"], "image");
        // No arguments at all is allowed.
        assert_eq!(
            mcp.call_value("bad", "multi", Value::Null).await.unwrap()[1]["text"],
            "second"
        );

        let failed = mcp
            .call("bad", "fail", json!({"message": "disk on fire"}))
            .await
            .unwrap();
        assert!(failed.is_error);
        assert_eq!(failed.error_text.as_deref(), Some("disk on fire"));
        assert_eq!(failed.raw["isError"], true);
        let err = mcp
            .call_value("bad", "fail", json!({"message": "disk on fire"}))
            .await
            .unwrap_err();
        assert!(matches!(err, McpError::Tool { .. }));
        assert_eq!(
            err.to_string(),
            "mcp tool `bad.fail` returned an error: disk on fire"
        );

        let tools = mcp.list_tools("bad").await.unwrap();
        let echo = tools.iter().find(|t| t.name == "echo").unwrap();
        assert!(echo.annotations.read_only());
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn a_crashed_server_restarts_at_its_next_use_when_asked_to() {
    within(30, async {
        let options = ClientOptions {
            restart: true,
            ..quick()
        };
        let mcp = clients(vec![("bad", misbehaving(&[]))], options);
        let first = pid_of(&mcp.call_value("bad", "pid", json!({})).await.unwrap());
        // The call that saw the crash fails, saying so.
        let err = mcp
            .call("bad", "crash", json!({"code": 3}))
            .await
            .unwrap_err();
        assert!(matches!(err, McpError::Crashed { .. }), "{err:?}");
        assert_gone(first, Duration::from_secs(2)).await;
        // The next one gets a fresh server.
        let second = pid_of(&mcp.call_value("bad", "pid", json!({})).await.unwrap());
        assert_ne!(first, second);
        assert_eq!(mcp.process_id("bad"), Some(second));
        let echoed = mcp.call_value("bad", "echo", json!({"text": "x"})).await;
        assert!(echoed.is_ok(), "{echoed:?}");
        mcp.shutdown().await;
        assert_gone(second, Duration::from_secs(2)).await;
    })
    .await;
}

#[tokio::test]
async fn crash_mid_call() {
    within(30, async {
        let mcp = clients(vec![("bad", misbehaving(&[]))], quick());
        let pid = pid_of(&mcp.call_value("bad", "pid", json!({})).await.unwrap());
        assert_eq!(mcp.process_id("bad"), Some(pid));
        let t = Instant::now();
        let err = mcp
            .call("bad", "crash", json!({"code": 3}))
            .await
            .unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        assert!(matches!(err, McpError::Crashed { .. }), "{err:?}");
        assert_contains(
            &err.to_string(),
            &[
                "mcp server `bad` crashed during tool `crash`",
                "exit status: 3",
                "server stderr",
                "boom: crashing on purpose",
            ],
        );
        assert_gone(pid, Duration::from_secs(2)).await;
        // The server is not restarted: later calls fail at once, naming their own tool.
        let again = mcp
            .call("bad", "echo", json!({"text": "x"}))
            .await
            .unwrap_err();
        assert_contains(
            &again.to_string(),
            &["crashed during tool `echo`", "exit status: 3"],
        );
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn hang_times_out_and_server_stays_usable() {
    within(30, async {
        let options = ClientOptions {
            call_timeout: Duration::from_millis(700),
            ..quick()
        };
        let mcp = clients(vec![("bad", misbehaving(&[]))], options);
        mcp.start("bad").await.unwrap();
        let t = Instant::now();
        let err = mcp.call("bad", "hang", json!({})).await.unwrap_err();
        let took = t.elapsed();
        assert!(
            took >= Duration::from_millis(700) && took < Duration::from_millis(700 + 1000),
            "took {took:?}"
        );
        assert!(
            matches!(err, McpError::Timeout { after_ms: 700, .. }),
            "{err:?}"
        );
        assert_contains(
            &err.to_string(),
            &[
                "mcp tool `bad.hang` timed out after 700 ms",
                "hanging forever",
            ],
        );
        // A slow tool does not condemn its server.
        assert_eq!(
            mcp.call_value("bad", "echo", json!({"text": "still here"}))
                .await
                .unwrap(),
            "still here"
        );
        let pid = mcp.process_id("bad").unwrap();
        mcp.shutdown().await;
        assert!(!pid_exists(pid));
    })
    .await;
}

#[tokio::test]
async fn garbage_on_stdout_fails_fast() {
    within(30, async {
        // The call timeout is long: the error must come from the garbage, not the clock.
        let mcp = clients(vec![("bad", misbehaving(&[]))], quick());
        mcp.start("bad").await.unwrap();
        let pid = mcp.process_id("bad").unwrap();
        let t = Instant::now();
        let err = mcp.call("bad", "garbage", json!({})).await.unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        assert!(matches!(err, McpError::Protocol { .. }), "{err:?}");
        assert_contains(
            &err.to_string(),
            &[
                "mcp server `bad` broke the protocol during tool `garbage`",
                "not JSON-RPC",
                "this is not json at all",
            ],
        );
        assert_gone(pid, Duration::from_secs(2)).await;
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn malformed_result_and_json_rpc_error() {
    within(30, async {
        let mcp = clients(
            vec![("a", misbehaving(&[])), ("b", misbehaving(&[]))],
            quick(),
        );
        let t = Instant::now();
        let err = mcp.call("a", "bad_result", json!({})).await.unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        assert!(matches!(err, McpError::Protocol { .. }), "{err:?}");
        assert_contains(
            &err.to_string(),
            &["during tool `bad_result`", "not JSON-RPC"],
        );

        let err = mcp.call("b", "rpc_error", json!({})).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "mcp tool `b.rpc_error` failed: json-rpc error -32000: internal failure"
        );
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn slow_start_within_the_limit_works() {
    within(30, async {
        let mcp = clients(vec![("slow", misbehaving(&["--slow-start=800"]))], quick());
        let t = Instant::now();
        let v = mcp
            .call_value("slow", "echo", json!({"text": "late"}))
            .await
            .unwrap();
        assert_eq!(v, "late");
        assert!(t.elapsed() >= Duration::from_millis(800));
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn slow_start_past_the_limit_fails_and_is_remembered() {
    within(30, async {
        let options = ClientOptions {
            start_timeout: Duration::from_millis(600),
            ..quick()
        };
        let mcp = clients(vec![("slow", misbehaving(&["--slow-start=5000"]))], options);
        let t = Instant::now();
        let err = mcp.call("slow", "echo", json!({})).await.unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        assert!(matches!(err, McpError::Initialize { .. }), "{err:?}");
        assert_contains(
            &err.to_string(),
            &[
                "mcp server `slow` failed to initialize (calling tool `echo`)",
                "no answer to `initialize` within 600 ms",
                "[misbehaving] started",
            ],
        );
        let pid = mcp.process_id("slow").unwrap();
        assert!(
            !pid_exists(pid),
            "a server that failed to start must be reaped"
        );
        let t = Instant::now();
        let again = mcp.call("slow", "other", json!({})).await.unwrap_err();
        assert!(
            t.elapsed() < Duration::from_millis(100),
            "the failure is cached"
        );
        assert_contains(
            &again.to_string(),
            &["(calling tool `other`)", "within 600 ms"],
        );
        assert_eq!(mcp.process_id("slow"), Some(pid), "not spawned again");
    })
    .await;
}

#[tokio::test]
async fn never_starts_bad_command() {
    within(30, async {
        let mut config = misbehaving(&[]);
        config.command = "/nonexistent/pml-no-such-server".into();
        let mcp = clients(vec![("ghost", config)], quick());
        let err = mcp.call("ghost", "anything", json!({})).await.unwrap_err();
        assert!(matches!(err, McpError::Spawn { .. }), "{err:?}");
        assert_contains(
            &err.to_string(),
            &[
                "mcp server `ghost` could not be started (calling tool `anything`)",
                "cannot run `/nonexistent/pml-no-such-server`",
                "No such file or directory",
            ],
        );
        assert_eq!(mcp.process_id("ghost"), None);
    })
    .await;
}

#[tokio::test]
async fn exits_during_start_up() {
    within(30, async {
        let mcp = clients(vec![("dead", misbehaving(&["--exit-on-start=7"]))], quick());
        let t = Instant::now();
        let err = mcp.list_tools("dead").await.unwrap_err();
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
        assert_contains(
            &err.to_string(),
            &[
                "mcp server `dead` failed to initialize",
                "exit status: 7",
                "fatal: refusing to start",
            ],
        );
    })
    .await;
}

#[tokio::test]
async fn silent_or_garbage_initialize_times_out_with_the_evidence() {
    within(30, async {
        let options = ClientOptions {
            start_timeout: Duration::from_millis(800),
            ..quick()
        };
        let mcp = clients(
            vec![
                ("silent", misbehaving(&["--silent"])),
                ("noisy", misbehaving(&["--garbage-init"])),
            ],
            options,
        );
        let (silent, noisy) = tokio::join!(mcp.start("silent"), mcp.start("noisy"));
        assert_contains(
            &silent.unwrap_err().to_string(),
            &["`silent` failed to initialize", "within 800 ms"],
        );
        assert_contains(
            &noisy.unwrap_err().to_string(),
            &[
                "`noisy` failed to initialize",
                "[stdout, not JSON-RPC, ignored] <html>garbage</html>",
            ],
        );
        for server in ["silent", "noisy"] {
            assert!(!pid_exists(mcp.process_id(server).unwrap()));
        }
    })
    .await;
}

#[tokio::test]
async fn concurrent_first_calls_spawn_once() {
    within(30, async {
        let mcp = clients(vec![("bad", misbehaving(&["--slow-start=300"]))], quick());
        let (a, b, c) = tokio::join!(
            mcp.call_value("bad", "pid", json!({})),
            mcp.call_value("bad", "pid", json!({})),
            mcp.list_tools("bad"),
        );
        let (a, b) = (pid_of(&a.unwrap()), pid_of(&b.unwrap()));
        assert_eq!(a, b);
        assert!(!c.unwrap().is_empty());
        assert_eq!(mcp.process_id("bad"), Some(a));
        mcp.shutdown().await;
        assert!(!pid_exists(a));
    })
    .await;
}

#[tokio::test]
async fn shutdown_kills_a_stubborn_server_and_its_children() {
    within(30, async {
        let mcp = clients(vec![("stubborn", misbehaving(&["--stubborn"]))], quick());
        let server = pid_of(&mcp.call_value("stubborn", "pid", json!({})).await.unwrap());
        let grandchild = pid_of(
            &mcp.call_value("stubborn", "grandchild", json!({}))
                .await
                .unwrap(),
        );
        assert!(pid_exists(grandchild));
        let t = Instant::now();
        mcp.shutdown().await;
        let took = t.elapsed();
        // grace (stdin closed) + grace (SIGTERM ignored) + SIGKILL.
        assert!(
            took >= Duration::from_millis(1000) && took < Duration::from_secs(3),
            "took {took:?}"
        );
        assert!(!pid_exists(server), "server {server} survived shutdown");
        assert_not_running(grandchild, Duration::from_secs(2)).await;
        let err = mcp.call("stubborn", "echo", json!({})).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "mcp server `stubborn` was shut down (calling tool `echo`)"
        );
    })
    .await;
}

#[tokio::test]
async fn graceful_shutdown_is_quick_and_sweeps_children() {
    within(30, async {
        let mcp = clients(vec![("bad", misbehaving(&[]))], quick());
        let server = pid_of(&mcp.call_value("bad", "pid", json!({})).await.unwrap());
        let grandchild = pid_of(
            &mcp.call_value("bad", "grandchild", json!({}))
                .await
                .unwrap(),
        );
        let t = Instant::now();
        mcp.shutdown().await;
        // The server exits on stdin EOF: no SIGTERM round (2 x 500 ms grace) is needed.
        assert!(
            t.elapsed() < Duration::from_millis(900),
            "took {:?}",
            t.elapsed()
        );
        assert!(!pid_exists(server));
        assert_not_running(grandchild, Duration::from_secs(2)).await;
    })
    .await;
}

#[tokio::test]
async fn drop_kills_everything() {
    within(30, async {
        let mcp = clients(
            vec![
                ("stubborn", misbehaving(&["--stubborn"])),
                ("plain", misbehaving(&[])),
            ],
            quick(),
        );
        let stubborn = pid_of(&mcp.call_value("stubborn", "pid", json!({})).await.unwrap());
        let grandchild = pid_of(
            &mcp.call_value("stubborn", "grandchild", json!({}))
                .await
                .unwrap(),
        );
        let plain = pid_of(&mcp.call_value("plain", "pid", json!({})).await.unwrap());
        drop(mcp);
        assert_gone(stubborn, Duration::from_secs(2)).await;
        assert_gone(plain, Duration::from_secs(2)).await;
        assert_not_running(grandchild, Duration::from_secs(2)).await;
    })
    .await;
}

#[tokio::test]
async fn drop_during_a_call_kills_the_server() {
    within(30, async {
        let mcp = std::sync::Arc::new(clients(vec![("bad", misbehaving(&[]))], quick()));
        mcp.start("bad").await.unwrap();
        let pid = mcp.process_id("bad").unwrap();
        let call = tokio::spawn({
            let mcp = mcp.clone();
            async move { mcp.call("bad", "hang", json!({})).await }
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        call.abort();
        let _ = call.await;
        drop(mcp);
        assert_gone(pid, Duration::from_secs(2)).await;
    })
    .await;
}

#[tokio::test]
async fn unknown_server_and_arguments_that_are_no_object() {
    within(30, async {
        let mcp = clients(vec![("bad", misbehaving(&[]))], quick());
        let err = mcp.call("nope", "t", json!({})).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown mcp server `nope` (calling tool `t`) (configured: bad)"
        );
        // Arguments that are no object are the server's to judge: this one reads no `text`.
        let echoed = mcp.call_value("bad", "echo", json!([1])).await.unwrap();
        assert_eq!(echoed, json!(""));
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn no_tools_capability_lists_nothing() {
    within(30, async {
        let mcp = clients(vec![("bare", misbehaving(&["--no-tools"]))], quick());
        assert!(mcp.list_tools("bare").await.unwrap().is_empty());
        mcp.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn shutdown_during_a_call_ends_the_call() {
    within(30, async {
        let mcp = clients(vec![("bad", misbehaving(&[]))], quick());
        mcp.start("bad").await.unwrap();
        let pid = mcp.process_id("bad").unwrap();
        let t = Instant::now();
        let (call, ()) = tokio::join!(mcp.call("bad", "hang", json!({})), async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            mcp.shutdown().await;
        });
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "took {:?}",
            t.elapsed()
        );
        assert_eq!(
            call.unwrap_err().to_string(),
            "mcp server `bad` was shut down (calling tool `hang`)"
        );
        assert!(!pid_exists(pid));
    })
    .await;
}

/// The runtime goes first (its tasks, and so the child handles, are dropped), then the
/// clients are dropped outside any runtime: no panic, and no server left running.
#[test]
fn runtime_dropped_before_the_clients() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mcp = clients(vec![("stubborn", misbehaving(&["--stubborn"]))], quick());
    let pid = runtime.block_on(async {
        within(30, mcp.call_value("stubborn", "pid", json!({})))
            .await
            .map(|v| pid_of(&v))
            .unwrap()
    });
    drop(runtime);
    drop(mcp);
    let start = Instant::now();
    while pid_exists(pid) && !is_zombie(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "server {pid} still runs"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A call given up before its answer (its future dropped: a cancelled run, a lost race) is
/// cancelled at the server with `notifications/cancelled`, as is one that timed out; a call
/// sent in two steps ([`McpClients::send`], then its outcome) is the same call.
#[tokio::test]
async fn a_call_given_up_is_cancelled_at_the_server() {
    within(30, async {
        let options = ClientOptions {
            call_timeout: Duration::from_millis(500),
            ..quick()
        };
        let mcp = clients(vec![("bad", misbehaving(&[]))], options);
        mcp.start("bad").await.unwrap();
        let dropped = tokio::time::timeout(
            Duration::from_millis(200),
            mcp.call("bad", "hang", json!({})),
        )
        .await;
        assert!(dropped.is_err(), "the hanging call was not given up");
        let timed_out = mcp.send("bad", "hang", json!({})).await.unwrap();
        assert!(matches!(
            timed_out.outcome().await,
            Err(McpError::Timeout { .. })
        ));
        let sent = mcp.send("bad", "echo", json!({"text": "two steps"})).await;
        assert_eq!(sent.unwrap().value().await.unwrap(), "two steps");
        let mut seen = Value::Null;
        for _ in 0..50 {
            // The value rule reads the JSON text as its value.
            seen = mcp.call_value("bad", "cancelled", json!({})).await.unwrap();
            if seen.as_array().is_some_and(|ids| ids.len() == 2) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let ids = seen.as_array().cloned().unwrap_or_default();
        assert_eq!(ids.len(), 2, "cancelled: {seen}");
        assert_ne!(ids[0], ids[1]);
        mcp.shutdown().await;
    })
    .await;
}
