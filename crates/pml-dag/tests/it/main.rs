//! Converter tests on real programs: one compact line per task.

use expect_test::{expect, Expect};
use pml_dag::{to_dag, Dag};
use pml_structure::{build_structure, BuildOptions};

fn render(dag: &Dag) -> String {
    let mut out = String::new();
    for t in &dag.tasks {
        out.push_str(&format!(
            "{} {} <- [{}]",
            t.id,
            t.tool,
            t.depends_on.join(",")
        ));
        if !t.metadata.reads.is_empty() {
            out.push_str(&format!(" reads [{}]", t.metadata.reads.join(",")));
        }
        for c in &t.condition {
            out.push_str(&format!(
                " if {}={}",
                c.decision_node_id, c.required_outcome
            ));
            if !c.any_of.is_empty() {
                out.push_str(&format!("|any[{}]", c.any_of.join(",")));
            }
        }
        if !t.literals.is_empty() {
            let names: Vec<&str> = t.literals.keys().map(String::as_str).collect();
            out.push_str(&format!(" literals [{}]", names.join(",")));
        }
        if t.metadata.pure {
            out.push_str(" pure");
        }
        if !t.metadata.contains.is_empty() {
            out.push_str(&format!(" contains [{}]", t.metadata.contains.join(",")));
        }
        if !t.metadata.unresolved.is_empty() {
            out.push_str(&format!(
                " UNRESOLVED [{}]",
                t.metadata.unresolved.join(",")
            ));
        }
        out.push('\n');
    }
    for (j, els) in &dag.joins {
        out.push_str(&format!("join {j} = [{}]\n", els.join(",")));
    }
    out.push_str(&format!("layers {:?}\n", dag.layers));
    out
}

fn check(code: &str, expect: Expect) {
    let s = build_structure(code, &BuildOptions::default()).structure;
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
    expect.assert_eq(&render(&to_dag(&s, &Default::default())));
}

#[test]
fn decisions_become_conditions_and_branches_rejoin() {
    check(
        r#"
const f = await mcp.fs.stat({ path: args.p });
if (f.exists) {
  const c = await mcp.fs.read({ path: args.p });
  if (c.size > 10) await mcp.log.big({});
} else {
  await mcp.fs.create({ path: args.p });
}
await mcp.log.done({});
"#,
        expect![[r#"
            n1 fs:stat <- []
            n2 fs:read <- [n1] reads [n1] if d1=true
            n3 log:big <- [n1,n2] reads [n1,n2] if d1=true if d2=true
            n4 fs:create <- [n1] reads [n1] if d1=false
            n5 log:done <- [n2,n3,n4]
            layers [["n1"], ["n2", "n4"], ["n3"], ["n5"]]
        "#]],
    );
}

#[test]
fn switch_fallthrough_enters_with_any_of_the_earlier_cases() {
    check(
        r#"
switch (args.kind) {
  case "a":
  case "b":
    await mcp.s.ab({});
  case "c":
    await mcp.s.c({});
    break;
  default:
    await mcp.s.d({});
}
"#,
        expect![[r#"
            n1 s:ab <- [] if d1=case:b|any[case:a,case:b]
            n2 s:c <- [n1] if d1=case:c|any[case:a,case:b,case:c]
            n3 s:d <- [] if d1=default
            layers [["n1", "n3"], ["n2"]]
        "#]],
    );
}

#[test]
fn promise_all_branches_are_independent_and_joins_list_their_elements() {
    check(
        r#"
const LIMIT = 5;
const results = await Promise.all([mcp.a.x({}), mcp.b.y({})]);
const top = results.slice(0, LIMIT);
await mcp.c.z({ top, n: LIMIT + args.k });
"#,
        expect![[r#"
            n1 a:x <- []
            n2 b:y <- []
            n3 code:slice <- [n1,n2] reads [n1,n2] pure
            n4 c:z <- [n1,n2,n3] reads [n3] literals [LIMIT]
            join j1 = [n1,n2]
            layers [["n1", "n2"], ["n3"], ["n4"]]
        "#]],
    );
}

#[test]
fn loops_absorb_their_body_and_unprovided_names_are_flagged() {
    check(
        r#"
const list = await mcp.fs.list({});
const seen = [];
for (const e of list.entries) {
  const info = await mcp.fs.stat({ path: e.path });
  if (info.size > 0) seen.push(e.name);
}
const out = JSON.stringify(seen);
await mcp.fs.write({ content: out });
"#,
        expect![[r#"
            n1 fs:list <- []
            l1 loop:forOf <- [n1] reads [n1] contains [fs:stat] UNRESOLVED [seen]
            n3 code:JSON.stringify <- [l1] pure UNRESOLVED [seen]
            n4 fs:write <- [l1,n3] reads [n3]
            layers [["n1"], ["l1"], ["n3"], ["n4"]]
        "#]],
    );
}

#[test]
fn a_task_depends_on_its_data_and_the_writes_before_it() {
    // Reads (annotated read-only) need only their data and the last write before them: the two
    // first reads share a layer; a write waits for every read since the last write; the read
    // after it waits for it; pure code needs its data only.
    let code = r#"
const a = await mcp.fs.read({ path: "a" });
const b = await mcp.fs.read({ path: "b" });
const both = [a.text, b.text].join("\n");
await mcp.fs.write({ path: "ab", content: both });
const c = await mcp.fs.read({ path: "ab" });
const n = c.text.length;
return n;
"#;
    let catalog = pml_structure::ToolCatalog::from_json(
        r#"{"tools": [{"name": "fs:read", "annotations": {"readOnlyHint": true}},
                      {"name": "fs:write", "annotations": {"readOnlyHint": false}}]}"#,
    )
    .unwrap();
    let options = BuildOptions {
        catalog: Some(catalog.clone()),
        ..Default::default()
    };
    let s = build_structure(code, &options).structure;
    let dag = to_dag(
        &s,
        &pml_dag::DagOptions {
            catalog: Some(catalog),
        },
    );
    expect![[r#"
        n1 fs:read <- []
        n2 fs:read <- []
        n3 code:join <- [n1,n2] reads [n1,n2] pure
        n4 fs:write <- [n1,n2,n3] reads [n3]
        n5 fs:read <- [n4]
        layers [["n1", "n2"], ["n3"], ["n4"], ["n5"]]
    "#]]
    .assert_eq(&render(&dag));
}

/// Ordinary code gives no warning: an accumulator object filled in a loop and a list pushed to
/// are names the program declares (the tasks reading them still depend on everything before
/// them). A name the program never declares (a global it assumes) is still flagged.
#[test]
fn accumulators_are_ordinary_code_and_undeclared_names_are_flagged() {
    let code = r#"
const listing = await mcp.fs.list({ path: args.root });
const counts = {};
const names = [];
for (const line of listing.content.split("\n")) {
  const kind = line.startsWith("[DIR]") ? "dir" : "file";
  counts[kind] = (counts[kind] ?? 0) + 1;
  names.push(line);
}
const total = Object.values(counts).reduce((a, b) => a + b, 0);
return { counts, total, names, extra: settings.extra };
"#;
    let s = build_structure(code, &BuildOptions::default()).structure;
    let dag = to_dag(&s, &Default::default());
    let warnings: Vec<&str> = (dag.diagnostics.iter())
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].starts_with(
            "the program's result reads `settings` which the program does not declare"
        ),
        "{warnings:#?}"
    );
    // The accumulators still order what reads them after the loop.
    let n = dag
        .tasks
        .iter()
        .find(|t| t.tool == "code:Object.values")
        .unwrap();
    assert!(
        n.depends_on.contains(&"l1".to_owned()),
        "{:?}",
        n.depends_on
    );
    assert_eq!(n.metadata.unresolved, ["counts"]);
}
