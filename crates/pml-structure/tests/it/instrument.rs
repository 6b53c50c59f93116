//! The instrumented program: probes around every node, nothing else changed. (Each fixture's
//! `instrumented.js` golden shows the whole output; these check the properties.)

use pml_structure::{build_structure, BuildOptions, Instrumented, ProbeKind};

fn instrumented(code: &str) -> Instrumented {
    let options = BuildOptions {
        instrument: true,
        ..Default::default()
    };
    build_structure(code, &options)
        .instrumented
        .expect("instrumented")
}

/// The program text is the instrumented text with the inserted code taken out: only
/// insertions, no newline among them. (And every fixture's structure keeps the invariants.)
#[test]
fn only_insertions_and_lines_are_kept() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(code) = std::fs::read_to_string(dir.join("input.ts")) else {
            continue;
        };
        let options = BuildOptions {
            instrument: true,
            ..Default::default()
        };
        let built = build_structure(&code, &options);
        // Every fixture's structure keeps the invariants the fuzz targets check.
        if let Err(e) = pml_structure::check_invariants(&code, &built.structure) {
            panic!("{dir:?}: {e}");
        }
        let Some(i) = built.instrumented else {
            continue;
        };
        seen += 1;
        assert_eq!(i.source.lines().count(), code.lines().count(), "{dir:?}");
        // Every program character is there, in order.
        let mut rest = i.source.chars();
        for c in code.chars() {
            assert!(rest.any(|d| d == c), "{dir:?}: {c:?} lost");
        }
        assert!(!code.contains(&i.namespace), "{dir:?}");
    }
    assert!(seen > 70, "{seen}");
}

#[test]
fn every_node_but_joins_of_nothing_has_a_probe() {
    let code = r#"
const listing = await mcp.fs.list({ path: args.root });
const names = listing.entries.filter(e => e.file).map(e => e.name);
for (const n of names) {
  if (n.endsWith(".json")) await mcp.fs.read({ path: n });
}
const [a, b] = await Promise.all([mcp.fs.read({ path: "a" }), mcp.fs.read({ path: "b" })]);
const total = a.size + b.size;
switch (args.mode) { case "x": await mcp.log.write({ total }); }
return total;
"#;
    let s = build_structure(code, &BuildOptions::default()).structure;
    let i = instrumented(code);
    let mut probed: Vec<&str> = i
        .probes
        .iter()
        .flat_map(|p| p.nodes.iter().map(String::as_str))
        .collect();
    probed.sort();
    probed.dedup();
    let mut ids: Vec<&str> = s.nodes.iter().map(|n| n.id.as_str()).collect();
    ids.sort();
    assert_eq!(probed, ids);
    let kinds: Vec<ProbeKind> = i.probes.iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&ProbeKind::Switch) && kinds.contains(&ProbeKind::Loop));
}

#[test]
fn an_unrolled_callback_picks_its_node_by_element() {
    let code =
        r#"const r = await Promise.all(["a", "b", "c"].map(p => mcp.fs.read({ path: p })));"#;
    let i = instrumented(code);
    let call = i.probes.iter().find(|p| p.kind == ProbeKind::Call).unwrap();
    assert_eq!(call.nodes, ["n1", "n2", "n3"]);
    assert_eq!(call.node(&[1]), Some("n2"));
    assert_eq!(call.node(&[7]), None);
    let repeat = i
        .probes
        .iter()
        .find(|p| p.kind == ProbeKind::ForkCallback)
        .unwrap();
    assert_eq!(repeat.nodes, ["f1"]);
}

#[test]
fn rolled_back_nodes_take_their_probes_along() {
    // An `if` whose branches hold no node is no decision: no probe either.
    let code = "let x = 0;\nif (args.a) { x = 1; }\nconst r = await mcp.s.t({ x });";
    let i = instrumented(code);
    assert_eq!(i.probes.len(), 1);
    assert!(!i.source.contains(".d("), "{}", i.source);
}

#[test]
fn instrumentation_is_off_unless_asked_for() {
    let ret = build_structure("await mcp.s.t({});", &BuildOptions::default());
    assert!(ret.instrumented.is_none());
}
