//! The structure's compact JSON writer (`StaticStructure::to_json`, what `pml analyze` prints)
//! writes exactly serde_json's bytes, on every fixture (with its tool catalog and permissions).
//! (Generated programs are checked by the property tests; every field and escape by the unit
//! tests of `json.rs`.)

use std::path::Path;

use pml_structure::{
    build_structure, ArgumentValue, Arguments, BuildOptions, Dialect, Key, LeafKind, Leaves,
    Permissions, StaticStructure, ToolCatalog,
};

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

/// Where the element marks of `leaves` are.
fn elements(leaves: &Leaves) -> Vec<u32> {
    (leaves.all().iter())
        .filter(|l| l.kind == LeafKind::Element)
        .map(|l| l.at)
        .collect()
}

/// Every text's element marks (`[*]`, where it stands for each element of a collection), as
/// `(where, text, offsets)`.
fn marks(s: &StaticStructure) -> Vec<(String, String, Vec<u32>)> {
    fn value(at: &str, v: &ArgumentValue, out: &mut Vec<(String, String, Vec<u32>)>) {
        match v {
            ArgumentValue::Reference {
                expression, leaves, ..
            } => out.push((at.into(), expression.clone(), elements(leaves))),
            ArgumentValue::Object { properties } => arguments(at, properties, out),
            ArgumentValue::Array { items } => items.iter().for_each(|v| value(at, v, out)),
            _ => {}
        }
    }
    fn arguments(at: &str, args: &Arguments, out: &mut Vec<(String, String, Vec<u32>)>) {
        for (k, v) in args {
            if let Key::Computed(c) = k {
                out.push((at.into(), c.expression.clone(), elements(&c.leaves)));
            }
            value(at, v, out);
        }
    }
    let mut out = Vec::new();
    for n in &s.nodes {
        if let Some(c) = &n.condition {
            out.push((n.id.clone(), c.clone(), elements(&n.condition_leaves)));
        }
        if let Some(args) = &n.arguments {
            arguments(&n.id, args, &mut out);
        }
    }
    if let Some(r) = &s.result {
        value("result", r, &mut out);
    }
    out
}

/// Where texts stand for each element of a collection is not in the JSON: reading a structure
/// back finds it again, the same, for every program of the repository (fixtures, examples,
/// agent programs), and those programs' structures keep the invariants.
#[test]
fn element_marks_read_back_from_json() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut programs = Vec::new();
    for dir in std::fs::read_dir(root.join("fixtures")).unwrap() {
        let dir = dir.unwrap().path();
        programs.extend(["input.ts", "input.js"].map(|f| dir.join(f)));
    }
    for dir in ["examples", "crates/pml/tests/agents"] {
        for file in std::fs::read_dir(root.join(dir)).unwrap() {
            programs.push(file.unwrap().path());
        }
    }
    let (mut seen, mut marked) = (0, 0);
    for path in programs {
        let dialect = match path.extension().and_then(|e| e.to_str()) {
            Some("ts") => Dialect::TypeScript,
            Some("js") => Dialect::JavaScript,
            _ => continue,
        };
        let Ok(code) = std::fs::read_to_string(&path) else {
            continue;
        };
        let options = BuildOptions {
            dialect,
            ..Default::default()
        };
        let s = build_structure(&code, &options).structure;
        pml_structure::check_invariants(&code, &s).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let back = StaticStructure::from_json(serde_json::to_value(&s).unwrap()).unwrap();
        let built = marks(&s);
        assert_eq!(marks(&back), built, "{path:?}");
        seen += 1;
        marked += built.iter().filter(|(_, _, m)| !m.is_empty()).count();
    }
    assert!(seen > 110, "{seen} programs");
    assert!(marked > 30, "{marked} marked texts");
}
