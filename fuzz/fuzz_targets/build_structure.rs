//! Fuzz `build_structure`: any UTF-8 input, TypeScript and JavaScript dialects, with and without
//! a tool catalog and permissions. Besides "no panic, no hang, no stack overflow" (libFuzzer's
//! panic hook aborts on a panic in any thread, including the builder's worker thread), every
//! result must satisfy the structure invariants checked in `invariants.rs`.

#![no_main]

mod invariants;

use libfuzzer_sys::fuzz_target;
use pml_structure::{build_structure, BuildOptions, Dialect, EdgeKind, Permissions, ToolCatalog};

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
            ..Default::default()
        };
        let first = build_structure(code, &options).structure;
        if let Err(why) = invariants::check(code, &first) {
            panic!("invariant violated ({dialect:?}): {why}");
        }
        if dialect == Dialect::TypeScript {
            let again = build_structure(code, &options).structure;
            let a = serde_json::to_string(&first).expect("serialize");
            let b = serde_json::to_string(&again).expect("serialize");
            assert_eq!(a, b, "not deterministic");

            // A catalog and a policy only add `provides` edges and `hilRequiredTools`.
            let options = BuildOptions {
                dialect,
                catalog: Some(ToolCatalog::from_json(TOOLS).expect("catalog")),
                permissions: Some(Permissions::from_json(PERMISSIONS).expect("permissions")),
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
