//! Canonical forms of a few programs (`UPDATE_EXPECT=1` rewrites them), and the worked example
//! of `docs/hash.md`, which must be what the code produces.

use expect_test::{expect, Expect};

use crate::{form, hash};

fn check(code: &str, expect: Expect) {
    expect.assert_eq(&form(code));
}

#[test]
fn tasks_arguments_and_edges() {
    check(
        r#"
const file = await mcp.filesystem.read_text_file({ path: args.root + '/users.json' });
const users = JSON.parse(file.content).filter(u => u.active);
await mcp.memory.create_entities({ entities: users.map(u => ({ name: u.name })), dryRun: false });
"#,
        expect![[r#"
            pml-hash/v8
            node n1 task
              tool "filesystem:read_text_file"
              arg "path" ref args.root + "/users.json"
            node n2 task
              tool "code:JSON.parse"
              code JSON.parse(n1.content)
            node n3 task
              tool "code:filter"
              code n2.filter((_p0) => _p0.active)
            node n4 task
              tool "code:map"
              code n3.map((_p0) => ({name: _p0.name}))
            node n5 task
              tool "memory:create_entities"
              arg "dryRun" lit false
              arg "entities" ref n4
            edge n1 n2 sequence
            edge n2 n3 sequence
            edge n3 n4 sequence
            edge n4 n5 sequence
        "#]],
    );
}

#[test]
fn decisions_scopes_and_outcomes() {
    check(
        r#"
const ok = await mcp.a.check({ level: 2 });
if (ok.fine && ok.count > 3) {
  await mcp.a.run({ mode: "fast" });
} else {
  await mcp.a.fix({ tries: [1, 2, { n: -1 }] });
}
"#,
        expect![[r#"
            pml-hash/v8
            node n1 task
              tool "a:check"
              arg "level" lit 2
            node d1 decision
              condition n1.fine && n1.count > 3
            node n2 task
              scope decision d1 "true"
              tool "a:run"
              arg "mode" lit "fast"
            node n3 task
              scope decision d1 "false"
              tool "a:fix"
              arg "tries" lit [1, 2, {n: -1}]
            edge d1 n2 conditional outcome "true"
            edge d1 n3 conditional outcome "false"
            edge n1 d1 sequence
        "#]],
    );
}

#[test]
fn loops_forks_and_names_nothing_resolves() {
    check(
        r#"
const listing = await mcp.fs.list({ path: args.dir });
const seen = [];
for (const entry of listing.entries) {
  const info = await mcp.fs.stat({ path: `${args.dir}/${entry.name}` });
  seen.push(info.size);
}
const [a, b] = await Promise.all([mcp.x.one({}), mcp.x.two({})]);
return JSON.stringify({ seen, a, b });
"#,
        expect![[r#"
            pml-hash/v8
            node n1 task
              tool "fs:list"
              arg "path" param "dir"
            effect
              code const _v0 = [];
            node l1 loop
              loop forOf
              condition n1.entries
              code for (const _p0 of n1.entries) { const _p1 = await mcp.fs.stat({path: `${args.dir}/${_p0.name}`}); _v0.push(_p1.size); }
            node n2 task
              scope loop l1
              tool "fs:stat"
              arg "path" ref `${args.dir}/${n1.entries[*].name}`
            node f1 fork
            node n3 task
              scope fork f1
              tool "x:one"
            node n4 task
              scope fork f1
              tool "x:two"
            node j1 join
            node n5 task
              tool "code:JSON.stringify"
              code JSON.stringify({seen: _v0, a: n3, b: n4})
            result ref n5
            edge f1 n3 sequence
            edge f1 n4 sequence
            edge j1 n5 sequence
            edge l1 f1 sequence
            edge l1 n2 sequence
            edge n1 l1 sequence
            edge n3 j1 sequence
            edge n4 j1 sequence
        "#]],
    );
}

#[test]
fn the_hash_is_64_lowercase_hex_digits() {
    let h = hash("await mcp.a.b({});");
    assert_eq!(h.len(), 64);
    assert!(h
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert!(form("await mcp.a.b({});").starts_with("pml-hash/v8\n"));
}

#[test]
fn the_empty_structure_has_a_hash() {
    let s = pml_structure::StaticStructure::default();
    assert_eq!(pml_hash::canonical_form(&s), "pml-hash/v8\n");
    assert_eq!(pml_hash::semantic_hash(&s).unwrap().len(), 64);
}

/// The text of the first fenced block after `marker` in `doc`.
fn block_after<'d>(doc: &'d str, marker: &str) -> &'d str {
    let at = doc
        .find(marker)
        .unwrap_or_else(|| panic!("docs/hash.md lacks {marker}"));
    let rest = &doc[at..];
    let open = rest.find("```").expect("a fenced block after the marker");
    let body_start = open + rest[open..].find('\n').expect("fence line") + 1;
    let close = body_start + rest[body_start..].find("\n```").expect("closing fence");
    &rest[body_start..=close]
}

#[test]
fn the_worked_example_of_the_docs_is_true() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/hash.md");
    let doc = std::fs::read_to_string(&path).expect("docs/hash.md");
    let program = block_after(&doc, "<!-- example:program -->");
    let expected = block_after(&doc, "<!-- example:form -->");
    let s = crate::structure(program);
    assert_eq!(pml_hash::canonical_form(&s), expected);
    let digest = block_after(&doc, "<!-- example:hash -->");
    assert_eq!(pml_hash::semantic_hash(&s).unwrap(), digest.trim());
}

#[test]
fn what_a_program_returns_counts() {
    let base = "const f = await mcp.fs.read({ path: 'a' });\nconst g = await mcp.fs.read({ path: 'b' });\n";
    let a =
        pml_hash::semantic_hash(&crate::structure(&format!("{base}return f.content;"))).unwrap();
    let b =
        pml_hash::semantic_hash(&crate::structure(&format!("{base}return g.content;"))).unwrap();
    let none = pml_hash::semantic_hash(&crate::structure(base)).unwrap();
    let renamed = pml_hash::semantic_hash(&crate::structure(
        "const x = await mcp.fs.read({ path: 'a' });\nconst y = await mcp.fs.read({ path: 'b' });\nreturn x.content;",
    )).unwrap();
    assert_ne!(a, b);
    assert_ne!(a, none);
    assert_eq!(a, renamed);
}

#[test]
fn an_empty_switch_case_counts() {
    let with = "const r = await mcp.a.b({});\nswitch (r.kind) { case 'x': break; default: await mcp.a.c({}); }";
    let without = "const r = await mcp.a.b({});\nswitch (r.kind) { default: await mcp.a.c({}); }";
    assert_ne!(
        pml_hash::semantic_hash(&crate::structure(with)).unwrap(),
        pml_hash::semantic_hash(&crate::structure(without)).unwrap()
    );
}

#[test]
fn a_program_with_errors_has_no_hash() {
    let options = pml_structure::BuildOptions::default();
    let s = pml_structure::build_structure("const x = await mcp.a.b({;", &options).structure;
    let e = pml_hash::semantic_hash(&s).unwrap_err();
    assert_eq!(e.errors[0].code, "syntax-error");
    assert!(e
        .to_string()
        .starts_with("a program with errors has no hash (1:"));
    // Warnings are no errors.
    let s = crate::structure("const t = makeToken(); await mcp.a.b({ t });");
    assert!(pml_hash::semantic_hash(&s).is_ok());
}
