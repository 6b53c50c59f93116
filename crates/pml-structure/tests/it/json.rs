//! The structure's compact JSON writer (`StaticStructure::to_json`, what `pml analyze` prints)
//! writes exactly serde_json's bytes, on every fixture (with its tool catalog and permissions).
//! (Generated programs are checked by the property tests; every field and escape by the unit
//! tests of `json.rs`.)

use std::path::Path;

use pml_structure::{build_structure, BuildOptions, Dialect, Permissions, ToolCatalog};

#[test]
fn every_fixture_as_serde_json_writes_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let dir = entry.unwrap().path();
        let (code, dialect) = match std::fs::read_to_string(dir.join("input.ts")) {
            Ok(code) => (code, Dialect::TypeScript),
            Err(_) => match std::fs::read_to_string(dir.join("input.js")) {
                Ok(code) => (code, Dialect::JavaScript),
                Err(_) => continue,
            },
        };
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
        let options = BuildOptions {
            dialect,
            catalog: read("tools.json").map(|t| ToolCatalog::from_json(&t).unwrap()),
            permissions: read("permissions.json").map(|p| Permissions::from_json(&p).unwrap()),
            ..Default::default()
        };
        let s = build_structure(&code, &options).structure;
        let expected = serde_json::to_vec(&s).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&s.to_json()),
            String::from_utf8_lossy(&expected),
            "{dir:?}"
        );
        seen += 1;
    }
    assert!(seen > 90, "{seen}");
}

/// Written to a stream in pieces, a structure far over one piece is the same bytes.
#[test]
fn written_in_pieces_it_is_the_same_text() {
    let step = "const f{i} = await mcp.fs.read({ path: `/d/${args.root}/{i}.txt`, n: {i} });\nif (f{i}.ok) { await mcp.fs.write({ path: \"x\", text: f{i}.text.trim() }); }\n";
    let code: String = (0..600)
        .map(|i| step.replace("{i}", &i.to_string()))
        .collect();
    let s = build_structure(&code, &BuildOptions::default()).structure;
    let whole = s.to_json();
    assert!(whole.len() > 4 * 64 * 1024, "{}", whole.len());
    let mut streamed = Vec::new();
    s.write_json_to(&mut streamed).unwrap();
    assert!(streamed == whole);
    assert!(whole == serde_json::to_vec(&s).unwrap());
}
