//! Fuzz `build_structure`: any UTF-8 input, TypeScript and JavaScript dialects, with and without
//! a tool catalog and permissions. Besides "no panic, no hang, no stack overflow" (libFuzzer's
//! panic hook aborts on a panic in any thread, including the builder's worker thread), every
//! result must satisfy the structure invariants checked in `invariants.rs`, the instrumented
//! program (what `pml run` executes) must parse whenever the program does, and the structure's
//! own JSON writer must write serde_json's bytes.

#![no_main]

mod invariants;

use libfuzzer_sys::fuzz_target;
use pml_structure::{
    build_structure, check_syntax, BuildOptions, Dialect, EdgeKind, Permissions, ToolCatalog,
};

/// A small catalog and policy over tool names the seed corpus uses, so that `provides` edges
/// and `hilRequiredTools` are exercised too.
const TOOLS: &str = r#"{"tools": [
  {"name": "filesystem:read_text_file",
   "inputSchema": {"type": "object", "properties": {"path": {}, "head": {}}, "required": ["path"]},
   "outputSchema": {"type": "object", "properties": {"content": {}, "path": {}}}},
  {"name": "filesystem:write_file",
   "inputSchema": {"type": "object", "properties": {"path": {}, "content": {}}, "required": ["path", "content"]},
   "outputSchema": {"type": "object", "properties": {"ok": {}}}},
  {"name": "filesystem:list_directory",
   "inputSchema": {"type": "object", "properties": {"path": {}}, "required": ["path"]},
   "outputSchema": {"type": "object", "properties": {"entries": {}, "path": {}}}},
  {"name": "memory:create_entities",
   "inputSchema": {"type": "object", "properties": {"entities": {}, "content": {}}},
   "outputSchema": {"type": "object", "properties": {"path": {}}}},
  {"name": "s:t",
   "inputSchema": {"type": "object", "properties": {"a": {}, "p": {}}, "required": ["a"]},
   "outputSchema": {"type": "object", "properties": {"a": {}, "p": {}}}}
]}"#;

const PERMISSIONS: &str = r#"{"permissions": {
  "filesystem:write_file": "hil", "filesystem:*": "auto", "memory:*": "hil", "*:t*": "hil"
}}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(code) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::TypeScript, Dialect::JavaScript] {
        let options = BuildOptions {
            dialect,
            instrument: true,
            ..Default::default()
        };
        let built = build_structure(code, &options);
        let first = built.structure;
        if let Err(why) = invariants::check(code, &first) {
            panic!("invariant violated ({dialect:?}): {why}");
        }
        // Probes only insert code: a program that parses still parses, on the same lines.
        if let Some(instrumented) = &built.instrumented {
            let (errors, _) = check_syntax(&instrumented.source, dialect);
            assert!(
                errors.is_empty(),
                "the instrumented program does not parse ({dialect:?}): {errors:?}\n{}",
                instrumented.source
            );
            assert_eq!(
                instrumented.source.matches('\n').count(),
                code.matches('\n').count(),
                "instrumenting changed the line count"
            );
        }
        if dialect == Dialect::TypeScript {
            let again = build_structure(code, &options).structure;
            let a = serde_json::to_string(&first).expect("serialize");
            let b = serde_json::to_string(&again).expect("serialize");
            assert_eq!(a, b, "not deterministic");
            // What `pml analyze` prints: the structure's own writer, serde_json's bytes.
            assert!(first.to_json() == a.as_bytes(), "to_json differs from serde_json");

            // A catalog and a policy only add `provides` edges and `hilRequiredTools`.
            let options = BuildOptions {
                dialect,
                catalog: Some(ToolCatalog::from_json(TOOLS).expect("catalog")),
                permissions: Some(Permissions::from_json(PERMISSIONS).expect("permissions")),
                instrument: true,
                ..Default::default()
            };
            let mut with = build_structure(code, &options).structure;
            if let Err(why) = invariants::check(code, &with) {
                panic!("invariant violated (with catalog): {why}");
            }
            with.edges.retain(|e| e.kind != EdgeKind::Provides);
            with.hil_required_tools.clear();
            assert_eq!(
                with, first,
                "catalog/permissions changed more than provides/hil"
            );
        }
    }
});
