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

/// The text of a function of the instrumented program maps back to its text as written (what
/// `Function.prototype.toString` shows a program): over every fixture, the whole source, and
/// each line that holds probes, as far as it holds whole code.
#[test]
fn function_texts_map_back_to_the_program() {
    let code = "const load = async (name) => {\n  if (name) { return await mcp.fs.read({ name }); }\n  return [1, 2].map((x) => x + 1);\n};\nfor (const n of args.names) await load(n);\n";
    let i = instrumented(code);
    assert_eq!(i.original_text(code, &i.source), Some(code));
    // The arrow function, as the engine would cut it out of the instrumented source.
    let start = i.source.find("async (name)").unwrap();
    let end = i.source.find("\n};").unwrap() + 2;
    assert_eq!(
        i.original_text(code, &i.source[start..end]),
        Some(&code[code.find("async (name)").unwrap()..code.find("\n};").unwrap() + 2])
    );
    assert_eq!(i.original_text(code, "not in it"), None);
}

/// Nodes whose failure the program may catch are marked `guarded` (not in the JSON).
#[test]
fn nodes_in_try_blocks_and_caught_promises_are_guarded() {
    let code = "const a = await mcp.s.one({});\ntry { await mcp.s.two({}); } catch (e) { await mcp.s.three({}); }\nconst b = await mcp.s.four({}).catch(() => null);\nconst c = await mcp.s.five({}).then((v) => v, () => 0);\nconst d = await Promise.allSettled([mcp.s.six({})]);\nawait mcp.s.seven({});\n";
    let built = build_structure(code, &BuildOptions::default());
    let guarded: Vec<(&str, bool)> = (built.structure.nodes.iter())
        .filter(|n| n.is_mcp())
        .map(|n| (n.tool.as_deref().unwrap(), n.guarded))
        .collect();
    assert_eq!(
        guarded,
        [
            ("s:one", false),
            ("s:two", true),
            ("s:three", true),
            ("s:four", true),
            ("s:five", true),
            ("s:six", true),
            ("s:seven", false),
        ]
    );
}
