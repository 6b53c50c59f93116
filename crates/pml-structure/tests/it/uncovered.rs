//! `uncovered`: what the structure does not model exactly, so the executor runs the program as
//! written (sandbox mode) instead of as a DAG.

use pml_structure::{build_structure, BuildOptions};

fn gaps(code: &str) -> Vec<String> {
    build_structure(code, &BuildOptions::default())
        .structure
        .uncovered
        .into_iter()
        .map(|u| format!("{}:{} {}", u.line, u.column, u.message))
        .collect()
}

fn covered(code: &str) {
    assert_eq!(gaps(code), Vec::<String>::new(), "{code}");
}

fn uncovered(code: &str, expected: &str) {
    let found = gaps(code);
    assert!(
        found.iter().any(|g| g.contains(expected)),
        "{code}\nexpected a gap containing {expected:?}, found {found:?}"
    );
}

#[test]
fn straight_line_programs_are_covered() {
    covered(
        "const f = await mcp.fs.read({ path: args.p });\n\
         const rows = JSON.parse(f.content).filter(r => r.ok).map(r => ({ ...r, n: r.n + 1 }));\n\
         const [a, b] = await Promise.all([mcp.x.y({}), mcp.x.z({ rows })]);\n\
         const { content, size: s } = await mcp.fs.info({});\n\
         if (rows.length > 2) { await mcp.m.w({ rows }); } else if (a.k) { await mcp.m.v({}); }\n\
         switch (b.kind) { case 'x': await mcp.m.u({}); break; case 2: default: await mcp.m.t({}); }\n\
         const total = rows.reduce((acc, r) => { acc.sum += r.n; return acc; }, { sum: 0 });\n\
         return { total, content, s, label: `n=${rows.length}` };",
    );
}

#[test]
fn control_flow_the_dag_does_not_model() {
    uncovered(
        "for (const x of [1]) { await mcp.a.b({ x }); }",
        "1:1 a loop",
    );
    uncovered(
        "try { await mcp.a.b({}); } catch (e) {}",
        "a `try` statement",
    );
    uncovered(
        "if (args.x) return 1;\nreturn 2;",
        "1:13 a `return` before the end",
    );
    uncovered("function f() {}\nreturn 1;", "a function declaration");
    uncovered("throw new Error('x');", "a `throw` statement");
    uncovered("var x = 1;\nreturn x;", "a `var` declaration");
}

#[test]
fn calls_that_run_only_sometimes_or_inside_computations() {
    uncovered(
        "const x = args.a ? await mcp.a.b({}) : 1;",
        "runs only sometimes",
    );
    uncovered(
        "const x = args.a && await mcp.a.b({});",
        "runs only sometimes",
    );
    uncovered(
        "const x = [1].map(async v => await mcp.a.b({ v }));",
        "runs only sometimes",
    );
    uncovered("mcp.a.b({});", "without `await`");
    uncovered(
        "const x = JSON.parse((await mcp.a.b({})).content);",
        "inside a computation",
    );
    uncovered(
        "const r = await Promise.allSettled([mcp.a.b({})]);",
        "allSettled",
    );
    uncovered("const r = await capabilities.c({});", "a capability call");
    uncovered(
        "const r = await fetchIt();",
        "an `await` of something other",
    );
    uncovered(
        "const [a, b] = await mcp.a.list({});",
        "array destructuring",
    );
    // An MCP call in another call's arguments is a node of its own: covered.
    covered("await mcp.a.b({ x: await mcp.a.c({}) });");
    covered("const [a] = await Promise.all([1, 2].map(n => mcp.a.b({ n })));");
}

#[test]
fn mutation_of_named_values() {
    // Read again after the change: the DAG's copies would differ from the one JS value.
    uncovered(
        "const xs = await mcp.a.b({});\nconst s = xs.sort();\nreturn xs;",
        "`.sort()` changes `xs`",
    );
    // A value shared with another name: the other name sees the change in JavaScript.
    uncovered(
        "const xs = await mcp.a.b({});\nconst ys = xs;\nys.sort();\nreturn xs;",
        "`.sort()` changes `ys`",
    );
    uncovered("let n = 1;\nn = 2;\nreturn n;", "an assignment changes `n`");
    uncovered("let n = 1;\nn++;\nreturn n;", "`++`/`--` changes `n`");
    uncovered(
        "const o = {};\no.a = await mcp.a.b({});\nreturn o;",
        "an assignment changes `o`",
    );
    // A fresh value nobody reads afterwards: sorting a copy is the same.
    covered(
        "const r = await mcp.a.b({});\nconst xs = r.map(x => x);\nconst top = xs.sort().slice(0, 3);\nreturn top;",
    );
    covered("const names = await mcp.a.b({});\nconst sorted = names.sort();\nreturn sorted;");
    // Callback locals change freely.
    covered("const r = await mcp.a.b({});\nreturn r.rows.reduce((m, x) => { m[x.k] = x; return m; }, {});");
}

#[test]
fn names_that_would_be_read_as_something_else() {
    uncovered("const n1 = 5;\nreturn n1;", "looks like a task id");
    uncovered(
        "const $receiver = 5;\nreturn $receiver;",
        "looks like a task id",
    );
    uncovered(
        "switch (args.k) { case '1': break; }",
        "reads like a number",
    );
}
