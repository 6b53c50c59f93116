//! The store against real databases: SQLite always, PostgreSQL when `PML_TEST_POSTGRES_URL`
//! names a server (`scripts/with-postgres.sh` starts a throwaway cluster and sets it; the
//! README's test command runs the tests under it). Each test gets a fresh database.

use pml_store::{NewCapability, SaveOutcome, Store, StoreError};
use serde_json::json;
use sqlx::Connection;

/// Fresh, empty store locations: a SQLite file, and a new PostgreSQL database when a server
/// is given. The directory lives as long as the returned guard.
async fn locations() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut out = vec![dir.path().join("store.sqlite").display().to_string()];
    if let Some(url) = postgres_url() {
        out.push(fresh_postgres_database(&url).await);
    }
    (dir, out)
}

fn postgres_url() -> Option<String> {
    match std::env::var("PML_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            if std::env::var_os("PML_REQUIRE_POSTGRES").is_some() {
                panic!("PML_REQUIRE_POSTGRES is set but PML_TEST_POSTGRES_URL is not");
            }
            None
        }
    }
}

/// `CREATE DATABASE` a new database on the server of `url`; its URL.
async fn fresh_postgres_database(url: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "pml_test_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    let mut admin = sqlx::PgConnection::connect(url)
        .await
        .expect("connect to PostgreSQL");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .unwrap();
    admin.close().await.unwrap();
    // Replace the database of `url` (the path segment before any `?`).
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let authority_end = base
        .find("://")
        .map(|i| i + 3)
        .and_then(|start| base[start..].find('/').map(|j| start + j))
        .unwrap_or(base.len());
    let mut out = format!("{}/{name}", &base[..authority_end]);
    if !query.is_empty() {
        out.push('?');
        out.push_str(query);
    }
    out
}

fn capability(hash: &str, name: &str, tools: &[&str]) -> NewCapability {
    NewCapability {
        code_hash: hash.to_string(),
        name: name.to_string(),
        description: Some(format!("{name} does things")),
        code: format!("await mcp.fs.read({{ path: '{name}' }});"),
        normalized_code: "await mcp.fs.read({ path: 'x' });".into(),
        parameterized_code: "await mcp.fs.read({ path: args.path });".into(),
        parameters: json!({ "path": name }),
        parameter_schema: json!({ "type": "object", "properties": { "path": { "type": "string" } } }),
        structure: json!({ "nodes": [], "edges": [] }),
        tools: tools.iter().map(|t| t.to_string()).collect(),
        hil_tools: vec![],
        dependencies: vec!["helper".into()],
    }
}

fn hash(n: u8) -> String {
    format!("{:02x}", n).repeat(32)
}

#[tokio::test]
async fn a_program_is_stored_once_under_all_its_names() {
    let (_dir, locations) = locations().await;
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        let first = capability(&hash(1), "load_users", &["fs:read"]);
        let saved = store.save_capability(&first, false).await.unwrap();
        assert_eq!(saved.outcome, SaveOutcome::Created, "{location}");
        // The same program (same hash) under another name: one capability, two names.
        let again = NewCapability {
            name: "users".into(),
            ..first.clone()
        };
        let saved = store.save_capability(&again, false).await.unwrap();
        assert_eq!(
            saved.outcome,
            SaveOutcome::Alias {
                names: vec!["load_users".into()]
            }
        );
        let saved = store.save_capability(&again, false).await.unwrap();
        assert_eq!(saved.outcome, SaveOutcome::Unchanged);
        let list = store.capabilities().await.unwrap();
        assert_eq!(list.len(), 1, "{location}: {list:?}");
        assert_eq!(list[0].names, ["load_users", "users"]);
        // Everything saved comes back, by name, by hash and by the start of the hash.
        let stored = store.capability("users").await.unwrap();
        assert_eq!(stored.code_hash, hash(1));
        assert_eq!(stored.code, first.code);
        assert_eq!(stored.normalized_code, first.normalized_code);
        assert_eq!(stored.parameterized_code, first.parameterized_code);
        assert_eq!(stored.parameters, first.parameters);
        assert_eq!(stored.parameter_schema, first.parameter_schema);
        assert_eq!(stored.structure, first.structure);
        assert_eq!(stored.tools, first.tools);
        assert_eq!(stored.dependencies, first.dependencies);
        assert_eq!(stored.description, first.description);
        assert_eq!(store.capability(&hash(1)).await.unwrap(), stored);
        assert_eq!(store.capability(&hash(1)[..8]).await.unwrap(), stored);
        store.close().await;
    }
}

#[tokio::test]
async fn a_name_points_to_one_capability() {
    let (_dir, locations) = locations().await;
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        let reads = capability(&hash(1), "sync", &["fs:read"]);
        let drops = capability(&hash(2), "sync", &["db:drop_all"]);
        store.save_capability(&reads, false).await.unwrap();
        // Another program under a taken name: refused, nothing stored.
        match store.save_capability(&drops, false).await {
            Err(StoreError::NameTaken { name, code_hash }) => {
                assert_eq!((name.as_str(), code_hash), ("sync", hash(1)))
            }
            other => panic!("{location}: {other:?}"),
        }
        assert_eq!(store.capabilities().await.unwrap().len(), 1);
        // Moved on request: the old capability stays, reachable by hash.
        let saved = store.save_capability(&drops, true).await.unwrap();
        assert_eq!(saved.outcome, SaveOutcome::Moved { previous: hash(1) });
        assert_eq!(store.capability("sync").await.unwrap().code_hash, hash(2));
        assert!(store.capability(&hash(1)).await.unwrap().names.is_empty());
        assert!(matches!(
            store.capability("nothing").await,
            Err(StoreError::NotFound(_))
        ));
        store.close().await;
    }
}

#[tokio::test]
async fn removing_the_last_name_removes_the_capability() {
    let (_dir, locations) = locations().await;
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        let c = capability(&hash(3), "a", &["fs:read"]);
        store.save_capability(&c, false).await.unwrap();
        let b = NewCapability {
            name: "b".into(),
            ..c.clone()
        };
        store.save_capability(&b, false).await.unwrap();
        let removed = store.remove_capability("a").await.unwrap();
        assert!(!removed.capability_removed);
        assert_eq!(store.capability(&hash(3)).await.unwrap().names, ["b"]);
        let removed = store.remove_capability("b").await.unwrap();
        assert!(removed.capability_removed);
        assert!(store.capabilities().await.unwrap().is_empty());
        // By hash: the capability and every name.
        store.save_capability(&c, false).await.unwrap();
        store.save_capability(&b, false).await.unwrap();
        let removed = store.remove_capability(&hash(3)).await.unwrap();
        assert_eq!(removed.names, ["a", "b"]);
        assert!(store.capabilities().await.unwrap().is_empty());
        store.close().await;
    }
}

#[tokio::test]
async fn writers_at_once_lose_nothing() {
    let (_dir, locations) = locations().await;
    for location in locations {
        // Eight stores (eight pools, as eight processes would have), each saving 10
        // capabilities, half of them the same programs under other names.
        let mut tasks = Vec::new();
        for w in 0..8u8 {
            let location = location.clone();
            tasks.push(tokio::spawn(async move {
                let store = Store::open(&location).await.unwrap();
                for i in 0..10u8 {
                    let h = if i % 2 == 0 {
                        hash(i)
                    } else {
                        hash(100 + w * 10 + i)
                    };
                    let c = capability(&h, &format!("w{w}_{i}"), &["fs:read"]);
                    store.save_capability(&c, false).await.unwrap();
                }
                store.close().await;
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let store = Store::open(&location).await.unwrap();
        let list = store.capabilities().await.unwrap();
        // 5 shared programs + 8 writers x 5 own ones; 80 names.
        assert_eq!(list.len(), 45, "{location}");
        assert_eq!(list.iter().map(|c| c.names.len()).sum::<usize>(), 80);
        store.close().await;
    }
}

#[tokio::test]
async fn a_store_of_version_3_is_migrated_and_its_runs_still_resume() {
    use pml_store::RunStart;
    let dir = tempfile::tempdir().unwrap();
    let location = dir.path().join("store.sqlite").display().to_string();
    let store = Store::open(&location).await.unwrap();
    let id = pml_store::new_run_id();
    let start = RunStart {
        program_hash: None,
        file: None,
        source: "return 1;".into(),
        args: json!({}),
        given_args: json!({}),
        resumed_from: None,
        started_at: 1,
        capabilities: json!({}),
    };
    store.start_run(&id, &start).await.unwrap();
    store.close().await;
    // As version 3 left it: no `capabilities` column, nor the tables of version 5.
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{location}"))
        .await
        .unwrap();
    for statement in [
        "ALTER TABLE pml_run_starts DROP COLUMN capabilities",
        "DROP TABLE pml_run_results",
        "DROP TABLE pml_approvals",
        "ALTER TABLE pml_runs DROP COLUMN trace_context",
        "UPDATE pml_meta SET value = '3' WHERE key = 'schema_version'",
    ] {
        sqlx::query(statement).execute(&mut conn).await.unwrap();
    }
    conn.close().await.unwrap();
    let store = Store::open(&location).await.unwrap();
    let (_, found) = store.run_start(&id).await.unwrap();
    assert_eq!(found.capabilities, serde_json::Value::Null);
    assert_eq!(found.source, start.source);
    let again = pml_store::new_run_id();
    store.start_run(&again, &start).await.unwrap();
    assert_eq!(store.run_start(&again).await.unwrap().1, start);
    store.close().await;
}

#[tokio::test]
async fn a_newer_or_broken_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    let location = path.display().to_string();
    let store = Store::open(&location).await.unwrap();
    store.close().await;
    // A later pml wrote schema version 99.
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{location}"))
        .await
        .unwrap();
    sqlx::query("UPDATE pml_meta SET value = '99' WHERE key = 'schema_version'")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    match Store::open(&location).await {
        Err(StoreError::NewerSchema { found: 99, .. }) => {}
        other => panic!("{:?}", other.err()),
    }
    // Not a database at all.
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(
        &junk,
        "this is not a database, it is a text file of some length",
    )
    .unwrap();
    match Store::open(&junk.display().to_string()).await {
        Err(e @ StoreError::Corrupt { .. }) => assert!(e.to_string().contains("junk.sqlite")),
        other => panic!("{:?}", other.err()),
    }
    // Nothing listens there.
    match Store::open("postgres://pml@127.0.0.1:1/none").await {
        Err(e @ StoreError::Unreachable { .. }) => assert!(e.to_string().contains("127.0.0.1:1")),
        other => panic!("{:?}", other.err()),
    }
    match Store::open("mysql://localhost/x").await {
        Err(StoreError::Unreachable { .. }) => {}
        other => panic!("{:?}", other.err()),
    }
}

#[tokio::test]
async fn reopening_keeps_everything() {
    let (_dir, locations) = locations().await;
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        store
            .save_capability(&capability(&hash(7), "keep", &["a:b"]), false)
            .await
            .unwrap();
        store.close().await;
        let store = Store::open(&location).await.unwrap();
        assert_eq!(store.capability("keep").await.unwrap().tools, ["a:b"]);
        store.close().await;
    }
}

fn run_of(program: &str, ok: bool, result: serde_json::Value) -> pml_store::NewRun {
    pml_store::NewRun {
        trace_context: None,
        program_hash: Some(program.to_string()),
        file: Some("p.ts".into()),
        args: json!({ "n": 1 }),
        ok,
        result,
        error: (!ok).then(|| "boom".to_string()),
        trace:
            json!([{ "event": "tool_end", "taskId": "n1", "tool": "fs:read", "durationMs": 1.5 }])
                .to_string(),
        executed_path: json!(["fs:read"]).to_string(),
        decisions: json!([{ "taskId": "d1", "outcome": "true", "iteration": [] }]).to_string(),
        timings: json!({ "executeMs": 2.0 }),
        calls: 1,
        started_at: 1_795_591_320_000,
        duration_ms: 3,
    }
}

#[tokio::test]
async fn runs_are_kept_whole() {
    let (_dir, locations) = locations().await;
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        store
            .save_capability(&capability(&hash(5), "five", &["fs:read"]), false)
            .await
            .unwrap();
        let first = run_of(&hash(5), true, json!({ "rows": [1, 2, 3] }));
        let id = store.record_run(None, &first).await.unwrap();
        let other = store
            .record_run(None, &run_of(&hash(6), false, json!(null)))
            .await
            .unwrap();
        assert!(other > id, "ids sort by time: {id} {other}");
        let run = store.run(&id).await.unwrap();
        assert_eq!(run.capability, ["five"], "{location}");
        assert_eq!(
            (
                &run.args,
                &run.result,
                &run.trace,
                &run.decisions,
                &run.executed_path
            ),
            (
                &first.args,
                &first.result,
                &serde_json::from_str(&first.trace).unwrap(),
                &serde_json::from_str(&first.decisions).unwrap(),
                &serde_json::from_str(&first.executed_path).unwrap()
            )
        );
        assert!(run.ok && !run.result_truncated && run.error.is_none());
        assert_eq!(store.run(&id[..18]).await.unwrap().id, id);
        let all = store.runs(None, 10).await.unwrap();
        assert_eq!(all.iter().map(|r| &r.id).collect::<Vec<_>>(), [&other, &id]);
        let five = store.runs(Some(&hash(5)), 10).await.unwrap();
        assert_eq!(five.len(), 1);
        assert_eq!(store.runs(None, 1).await.unwrap().len(), 1);
        assert!(matches!(
            store.run("0000000000").await,
            Err(StoreError::NoRun(_))
        ));
        // A big result is kept as the start of its JSON text.
        let big = json!({ "text": "x".repeat(pml_store::RESULT_PREVIEW_BYTES * 2) });
        let id = store
            .record_run(None, &run_of(&hash(5), true, big))
            .await
            .unwrap();
        let run = store.run(&id).await.unwrap();
        assert!(run.result_truncated);
        let preview = run.result.as_str().unwrap();
        assert!(preview.starts_with("{\"text\":\"xxx"), "{location}");
        assert_eq!(preview.len(), pml_store::RESULT_PREVIEW_BYTES);
        store.close().await;
    }
}

/// Numbers come back as the very same floats (a resumed run replays `Math.random()` values
/// and results bit for bit; serde_json's default parse is off by one ulp for some).
#[tokio::test]
async fn journaled_numbers_come_back_bit_for_bit() {
    use pml_store::{CallState, JournalEntry, RunStart};
    let (_dir, locations) = locations().await;
    let tricky: [f64; 4] = [
        0.119_550_282_737_505_45,
        0.1 + 0.2,
        1e-310,
        1.797_693_134_862_315_7e308,
    ];
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        let id = pml_store::new_run_id();
        let start = RunStart {
            program_hash: None,
            file: None,
            source: "return Math.random();".into(),
            args: json!({}),
            given_args: json!({}),
            resumed_from: None,
            started_at: 1,
            capabilities: json!({}),
        };
        store.start_run(&id, &start).await.unwrap();
        let entries: Vec<JournalEntry> = (tricky.iter().enumerate())
            .map(|(i, x)| JournalEntry {
                seq: i as i64 + 1,
                node: None,
                iteration: Vec::new(),
                tool: "Math.random".into(),
                arguments: serde_json::Value::Null,
                state: CallState::Done,
                result: Some(json!(x)),
                error: None,
            })
            .collect();
        store.journal_write(&id, &entries).await.unwrap();
        let back = store.journal(&id).await.unwrap();
        let floats: Vec<u64> = (back.iter())
            .map(|e| e.result.as_ref().unwrap().as_f64().unwrap().to_bits())
            .collect();
        let expected: Vec<u64> = tricky.iter().map(|x| x.to_bits()).collect();
        assert_eq!(floats, expected, "{location}");
        store.close().await;
    }
}

#[tokio::test]
async fn a_run_is_written_as_it_goes() {
    use pml_store::{CallState, JournalEntry, RunStart};
    let (_dir, locations) = locations().await;
    for location in locations {
        let store = Store::open(&location).await.unwrap();
        let id = pml_store::new_run_id();
        let start = RunStart {
            program_hash: Some(hash(9)),
            file: Some("p.ts".into()),
            source: "await mcp.fs.write({ path: 'a' });".into(),
            args: json!({ "root": "/tmp/x" }),
            given_args: json!({}),
            resumed_from: None,
            started_at: 1,
            capabilities: json!({ "ping": hash(3) }),
        };
        store.start_run(&id, &start).await.unwrap();
        let call = |seq: i64, state: CallState| JournalEntry {
            seq,
            node: Some(format!("n{seq}")),
            iteration: vec![0, seq as u32],
            tool: "fs:write".into(),
            arguments: json!({ "path": format!("f{seq}") }),
            state,
            result: (state == CallState::Done).then(|| json!({ "content": "ok" })),
            error: (state == CallState::Failed).then(|| ("no".to_string(), "no: why".to_string())),
        };
        // Call 1 starts, then ends along with call 2's start; call 2 fails; 3 stays in flight.
        store
            .journal_write(&id, &[call(1, CallState::Started)])
            .await
            .unwrap();
        store
            .journal_write(
                &id,
                &[call(1, CallState::Done), call(2, CallState::Started)],
            )
            .await
            .unwrap();
        store
            .journal_write(&id, &[call(2, CallState::Failed)])
            .await
            .unwrap();
        store
            .journal_write(&id, &[call(3, CallState::Started)])
            .await
            .unwrap();
        let journal = store.journal(&id).await.unwrap();
        assert_eq!(
            journal,
            [
                call(1, CallState::Done),
                call(2, CallState::Failed),
                call(3, CallState::Started)
            ],
            "{location}"
        );
        // Not finished: listed as such, shown from its start and journal.
        let listed = store.runs(None, 5).await.unwrap();
        assert_eq!(
            (listed[0].id.as_str(), listed[0].finished),
            (id.as_str(), false)
        );
        assert_eq!(listed[0].calls, 3);
        let shown = store.run(&id).await.unwrap();
        assert!(!shown.finished);
        assert_eq!(shown.journal, journal);
        assert_eq!(
            store.run_start(&id).await.unwrap(),
            (id.clone(), start.clone())
        );
        // Finished under the same id.
        store
            .record_run(Some(&id), &run_of(&hash(9), true, json!(1)))
            .await
            .unwrap();
        let shown = store.run(&id).await.unwrap();
        assert!(shown.finished && shown.ok);
        assert_eq!(shown.journal.len(), 3);
        assert_eq!(store.runs(None, 5).await.unwrap().len(), 1);
        store.close().await;
    }
}
