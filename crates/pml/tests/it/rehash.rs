//! A store kept under an older version of the semantic hash is re-hashed when pml opens it:
//! capabilities that hash alike now become one with every name, runs follow their program.

use pml_store::{NewCapability, NewRun, RunStart, Store};
use serde_json::{json, Value};

const DECLARATION: &str = "async function load(name: string) {\n  return (await mcp.fs.read({ path: name })).content;\n}\nreturn await load(\"a\");\n";
const ARROW: &str = "const load = async (name: string) => {\n  return (await mcp.fs.read({ path: name })).content;\n};\nreturn await load(\"a\");\n";
const OTHER: &str = "return (await mcp.fs.read({ path: \"b\" })).content.trim();\n";

/// A capability as an older pml saved it: under a hash of that version (`old`).
fn capability(old: &str, name: &str, code: &str) -> NewCapability {
    NewCapability {
        code_hash: old.to_owned(),
        name: name.to_owned(),
        description: None,
        code: code.to_owned(),
        normalized_code: code.to_owned(),
        parameterized_code: code.to_owned(),
        parameters: json!({}),
        parameter_schema: json!({"type": "object"}),
        structure: json!({}),
        tools: vec!["fs:read".into()],
        hil_tools: Vec::new(),
        dependencies: Vec::new(),
    }
}

fn run(hash: &str) -> NewRun {
    NewRun {
        program_hash: Some(hash.to_owned()),
        file: None,
        args: json!({}),
        ok: true,
        result: json!("x"),
        error: None,
        trace: json!([]).to_string(),
        executed_path: json!([]).to_string(),
        decisions: json!([]).to_string(),
        timings: json!({}),
        calls: 1,
        started_at: 1,
        duration_ms: 1,
        trace_context: None,
    }
}

#[test]
fn a_store_of_an_older_hash_is_rehashed_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    rehashed(&dir.path().join("store.sqlite").display().to_string());
    if let Some(url) = crate::postgres::url() {
        rehashed(&crate::postgres::fresh_database(&url));
    }
}

fn rehashed(location: &str) {
    let (a, b, c) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // What an older pml left: three capabilities, two of them one helper in two forms
        // (two hashes then), a run with its start, a run without, a run calling one of them.
        let store = Store::open(location).await.unwrap();
        assert_eq!(store.hash_version().await.unwrap(), "pml-hash/v3");
        store
            .save_capability(&capability(&a, "load_declared", DECLARATION), false)
            .await
            .unwrap();
        store
            .save_capability(&capability(&b, "load_arrow", ARROW), false)
            .await
            .unwrap();
        store
            .save_capability(&capability(&c, "other", OTHER), false)
            .await
            .unwrap();
        let start = |hash: &str, source: &str, called: Value| RunStart {
            program_hash: Some(hash.to_owned()),
            file: Some("p.ts".into()),
            source: source.to_owned(),
            args: json!({}),
            given_args: json!({}),
            resumed_from: None,
            started_at: 1,
            capabilities: called,
        };
        store
            .start_run("a00001", &start(&b, ARROW, json!({})))
            .await
            .unwrap();
        store.record_run(Some("a00001"), &run(&b)).await.unwrap();
        store.record_run(Some("a00002"), &run(&a)).await.unwrap();
        let caller = "return await capabilities.load_arrow({});\n";
        store
            .start_run(
                "a00003",
                &start(&"d".repeat(64), caller, json!({"load_arrow": b})),
            )
            .await
            .unwrap();
        store
            .record_run(Some("a00003"), &run(&"d".repeat(64)))
            .await
            .unwrap();
        store.close().await;

        let store = pml::capability::open_store(location).await.unwrap();
        assert_eq!(store.hash_version().await.unwrap(), pml_hash::VERSION_TAG);
        let helper = pml::capability::program_hash(DECLARATION, pml::Dialect::TypeScript).unwrap();
        assert_eq!(
            pml::capability::program_hash(ARROW, pml::Dialect::TypeScript).as_deref(),
            Some(helper.as_str())
        );
        // One capability for the helper, with both names; the other one re-hashed.
        let list = store.capabilities().await.unwrap();
        assert_eq!(list.len(), 2, "{list:?}");
        let merged = store.capability("load_arrow").await.unwrap();
        assert_eq!(merged.code_hash, helper);
        let mut names = merged.names.clone();
        names.sort();
        assert_eq!(names, vec!["load_arrow", "load_declared"]);
        assert!(merged.structure["nodes"]
            .as_array()
            .is_some_and(|n| !n.is_empty()));
        let other = store.capability("other").await.unwrap();
        assert_eq!(
            Some(other.code_hash.clone()),
            pml::capability::program_hash(OTHER, pml::Dialect::TypeScript)
        );
        // Runs: from their source, or through the capability their hash was.
        assert_eq!(
            store.run("a00001").await.unwrap().program_hash.as_deref(),
            Some(helper.as_str())
        );
        assert_eq!(
            store.run("a00002").await.unwrap().program_hash.as_deref(),
            Some(helper.as_str())
        );
        let (_, called) = store.run_start("a00003").await.unwrap();
        assert_eq!(called.capabilities, json!({"load_arrow": helper}));
        // Saved again under this version: the same capability, one more name.
        let record = pml::capability::prepare(
            DECLARATION,
            &pml::AnalyzeOptions {
                dialect: pml::Dialect::TypeScript,
                ..Default::default()
            },
            "load_again",
            None,
        )
        .unwrap();
        assert_eq!(record.code_hash, helper);
        store.save_capability(&record, false).await.unwrap();
        assert_eq!(store.capabilities().await.unwrap().len(), 2);
        store.close().await;
        // Opened again: nothing left to do.
        let store = Store::open(location).await.unwrap();
        struct Never;
        impl pml_store::Rehasher for Never {
            fn version(&self) -> &str {
                pml_hash::VERSION_TAG
            }
            fn hash(&self, _: &str, _: Option<&str>) -> Option<String> {
                panic!("re-hashed twice")
            }
            fn structure(&self, _: &str) -> Value {
                panic!("re-hashed twice")
            }
        }
        assert_eq!(
            store.rehash(&Never).await.unwrap(),
            pml_store::Rehashed::default()
        );
    });
}
