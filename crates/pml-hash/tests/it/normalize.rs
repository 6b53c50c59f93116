//! `normalize_variable_names` and `normalize_code`: inline expectations (`UPDATE_EXPECT=1`
//! rewrites them).

use expect_test::{expect, Expect};
use indexmap::IndexMap;
use pml_hash::{normalize_code, normalize_variable_names};

use crate::structure;

/// Normalise `code` with the bindings its own structure reports.
fn check(code: &str, expect: Expect) {
    let s = structure(code);
    let n = normalize_variable_names(code, &s.variable_bindings);
    let mut out = n.code.clone();
    out.push_str("\n--\n");
    for (from, to) in &n.renames {
        out.push_str(&format!("{from} -> {to}\n"));
    }
    for d in &n.diagnostics {
        out.push_str(&format!("{:?} {} [{}]\n", d.severity, d.located(), d.code));
    }
    expect.assert_eq(&out);
}

fn bindings(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_seeds_example() {
    check(
        "const result = await mcp.std.psql_query({ query: args.query });\nreturn result;",
        expect![[r#"
            const _n1 = await mcp.std.psql_query({ query: args.query });
            return _n1;
            --
            result -> _n1
        "#]],
    );
}

#[test]
fn strings_comments_keys_and_properties_are_untouched() {
    check(
        r#"// the file: read it
const file = await mcp.fs.read({ path: "file" });
/* file.content */ await mcp.x.y({ file: file.content, name: `file ${file.name}`, n: x.file });"#,
        expect![[r#"
            // the file: read it
            const _n1 = await mcp.fs.read({ path: "file" });
            /* file.content */ await mcp.x.y({ file: _n1.content, name: `file ${_n1.name}`, n: x.file });
            --
            file -> _n1
        "#]],
    );
}

#[test]
fn shadowing_parameters_are_not_renamed() {
    check(
        "const u = await mcp.db.get({}); const names = u.items.map(u => u.name); await mcp.x.y({ u, names });",
        expect![[r#"
            const _n1 = await mcp.db.get({}); const _n2 = _n1.items.map(u => u.name); await mcp.x.y({ u: _n1, names: _n2 });
            --
            u -> _n1
            names -> _n2
        "#]],
    );
}

#[test]
fn destructured_names_get_their_path() {
    check(
        r#"const { content, size: bytes = 0 } = await mcp.fs.read({ path: "a" });
const [first, second] = await Promise.all([mcp.x.y({}), mcp.x.z({})]);
await mcp.api.post({ content, bytes, first, second });"#,
        expect![[r#"
            const { content: _n1_content, size: bytes = 0 } = await mcp.fs.read({ path: "a" });
            const [_n2, _n3] = await Promise.all([mcp.x.y({}), mcp.x.z({})]);
            await mcp.api.post({ content: _n1_content, bytes, first: _n2, second: _n3 });
            --
            content -> _n1_content
            first -> _n2
            second -> _n3
        "#]],
    );
}

#[test]
fn block_scoped_redeclarations_are_separate_variables() {
    // `text` inside the block is bound (n2); the outer `text` is a different variable with the
    // same name: both declarations are `const` statements, both get the binding's new name,
    // each keeps its own uses (the shadowing structure is unchanged).
    let code = "const a = await mcp.x.a({}); { const a = await mcp.x.b({}); await mcp.x.c({ v: a }); } await mcp.x.d({ v: a });";
    let n = normalize_variable_names(code, &bindings(&[("a", "n2")]));
    assert_eq!(
        n.code,
        "const _n2 = await mcp.x.a({}); { const _n2 = await mcp.x.b({}); await mcp.x.c({ v: _n2 }); } await mcp.x.d({ v: _n2 });"
    );
}

#[test]
fn a_taken_name_gets_a_number() {
    let code = "const data = await mcp.x.a({}); const _n1 = 5; return data + _n1;";
    let n = normalize_variable_names(code, &bindings(&[("data", "n1")]));
    assert_eq!(
        n.code,
        "const _n1_2 = await mcp.x.a({}); const _n1 = 5; return _n1_2 + _n1;"
    );
    assert_eq!(n.diagnostics[0].code, pml_hash::diagnostics::NAME_TAKEN);
}

#[test]
fn two_names_for_one_node_stay_distinct() {
    let code = "const a = await mcp.x.a({}); const b = a; return [a, b];";
    let n = normalize_variable_names(code, &bindings(&[("a", "n1"), ("b", "n1")]));
    assert_eq!(
        n.code,
        "const _n1 = await mcp.x.a({}); const _n1_2 = _n1; return [_n1, _n1_2];"
    );
}

#[test]
fn bindings_without_a_declaration_are_reported() {
    let n = normalize_variable_names("return 1;", &bindings(&[("ghost", "n1")]));
    assert_eq!(n.code, "return 1;");
    assert!(n.renames.is_empty());
    assert_eq!(
        n.diagnostics[0].code,
        pml_hash::diagnostics::BINDING_NOT_DECLARED
    );
}

#[test]
fn code_that_does_not_parse_comes_back_unchanged() {
    let code = "const a = await mcp.x.a({});\nconst = 2;";
    let n = normalize_variable_names(code, &bindings(&[("a", "n1")]));
    assert_eq!(n.code, code);
    assert!(n.renames.is_empty());
    assert_eq!(n.diagnostics[0].code, pml_hash::diagnostics::SYNTAX_ERROR);
    assert_eq!(n.diagnostics[0].line, Some(2));
}

#[test]
fn assignments_updates_and_typeof_are_uses() {
    let code = "let a = await mcp.x.a({}); a = a + 1; a++; if (typeof a === 'number') { ({ a } = { a: 2 }); }";
    let n = normalize_variable_names(code, &bindings(&[("a", "n1")]));
    assert_eq!(
        n.code,
        "let _n1 = await mcp.x.a({}); _n1 = _n1 + 1; _n1++; if (typeof _n1 === 'number') { ({ a: _n1 } = { a: 2 }); }"
    );
}

fn printed(code: &str) -> String {
    normalize_code(code).unwrap_or_else(|| "<does not parse>".into())
}

#[test]
fn canonical_printing() {
    let cases = [
        "u => u.active",
        "(x) => (x.active)",
        "users.filter(u => u.active && u.score > 50)",
        "names.map(n => ({ name: n }))",
        "a.n + (b.n * 2)",
        "(a + b) * c",
        "a ** -b",
        "(-a) ** b",
        "a ?? (b || c)",
        "-(-x)",
        "`${args.dir}/${n2[0].name}`",
        "`abc` + 'it\\'s' + \"\\u0041\"",
        "x['file'] + x['a-b'] + x[0]",
        "x?.y.z + (x?.y).z + f?.(1)",
        "new Foo + new (foo())()",
        "({a, b: [c, , d = 1], ...rest}) => a + c + d",
        "0x10 + 1.50 + 1e3 + 1_000",
        "(u: User) => u.active as boolean",
        "_p0 => _p0 + _p1",
        "async function (a, ...b) { return await a(...b); }",
        "function f(x) { 'use strict'; return x; }",
        "for (const e of xs) if (e) continue; else break",
        "let i = 0; do { i++ } while (i < 3); for (let j = 0; j < i; j++) {} label: for (;;) break label;",
        "try { f() } catch ({ message }) { g(message) } finally { h() }",
        "switch (x) { case 1: { const y = 1; } case 2: const z = 2; break; default: z }",
        "({ get a() { return 1 }, set a(v) {}, async *m(p) { yield p }, [k]: 1, 'q-r': 2, 3: 4 })",
        "interface A { x: number } type B = A; const c: B = { x: 1 }; c",
        "class A { m() {} }",
        "x = y = z, a += 1, b ||= 2",
        "!(a && b) ? c : d ? e : f",
        "typeof typeof x + void 0 + delete a.b",
        "a < b == c > d",
    ];
    let mut out = String::new();
    for c in cases {
        out.push_str(&format!("{c}\n  => {}\n", printed(c)));
    }
    expect![[r#"
        u => u.active
          => (_p0) => _p0.active
        (x) => (x.active)
          => (_p0) => _p0.active
        users.filter(u => u.active && u.score > 50)
          => users.filter((_p0) => _p0.active && _p0.score > 50)
        names.map(n => ({ name: n }))
          => names.map((_p0) => ({name: _p0}))
        a.n + (b.n * 2)
          => a.n + b.n * 2
        (a + b) * c
          => (a + b) * c
        a ** -b
          => a ** -b
        (-a) ** b
          => (-a) ** b
        a ?? (b || c)
          => a ?? (b || c)
        -(-x)
          => - -x
        `${args.dir}/${n2[0].name}`
          => `${args.dir}/${n2[0].name}`
        `abc` + 'it\'s' + "\u0041"
          => "abc" + "it's" + "A"
        x['file'] + x['a-b'] + x[0]
          => x.file + x["a-b"] + x[0]
        x?.y.z + (x?.y).z + f?.(1)
          => x?.y.z + (x?.y).z + f?.(1)
        new Foo + new (foo())()
          => new Foo() + new (foo())()
        ({a, b: [c, , d = 1], ...rest}) => a + c + d
          => ({a: _p0, b: [_p1, , _p2 = 1], ..._p3}) => _p0 + _p1 + _p2
        0x10 + 1.50 + 1e3 + 1_000
          => 16 + 1.5 + 1000 + 1000
        (u: User) => u.active as boolean
          => (_p0) => _p0.active
        _p0 => _p0 + _p1
          => (_p0) => _p0 + _p1$
        async function (a, ...b) { return await a(...b); }
          => async function (_p0, ..._p1) { return await _p0(..._p1); }
        function f(x) { 'use strict'; return x; }
          => function _p0(_p1) { "use strict"; return _p1; }
        for (const e of xs) if (e) continue; else break
          => for (const _p0 of xs) { if (_p0) { continue; } else { break; } }
        let i = 0; do { i++ } while (i < 3); for (let j = 0; j < i; j++) {} label: for (;;) break label;
          => let _p0 = 0; do { _p0++; } while (_p0 < 3); for (let _p1 = 0; _p1 < _p0; _p1++) {} _l0: for (;;) { break _l0; }
        try { f() } catch ({ message }) { g(message) } finally { h() }
          => try { f(); } catch ({message: _p0}) { g(_p0); } finally { h(); }
        switch (x) { case 1: { const y = 1; } case 2: const z = 2; break; default: z }
          => switch (x) { case 1: { const _p1 = 1; } case 2: const _p0 = 2; break; default: _p0; }
        ({ get a() { return 1 }, set a(v) {}, async *m(p) { yield p }, [k]: 1, 'q-r': 2, 3: 4 })
          => {get a() { return 1; }, set a(_p0) {}, async *m(_p1) { yield _p1; }, [k]: 1, "q-r": 2, 3: 4}
        interface A { x: number } type B = A; const c: B = { x: 1 }; c
          => const _p0 = {x: 1}; _p0;
        class A { m() {} }
          => class A { m() {} }
        x = y = z, a += 1, b ||= 2
          => x = y = z, a += 1, b ||= 2
        !(a && b) ? c : d ? e : f
          => !(a && b) ? c : d ? e : f
        typeof typeof x + void 0 + delete a.b
          => typeof typeof x + void 0 + delete a.b
        a < b == c > d
          => a < b == c > d
    "#]]
    .assert_eq(&out);
}
