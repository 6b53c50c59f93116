//! One compact rendering of a structure and inline expectations (`UPDATE_EXPECT=1` rewrites).

use expect_test::{expect, Expect};
use pml_structure::{
    build_structure, ArgumentValue, BuildOptions, Canonical, ComputedKey, Key, Piece, Scope,
    StaticStructure,
};

/// The `path` argument of each `fs:read` call of `code`, as [`arg`] writes it.
fn read_paths(code: &str) -> Vec<String> {
    let s = build_structure(code, &BuildOptions::default()).structure;
    (s.nodes.iter())
        .filter(|n| n.tool.as_deref() == Some("fs:read"))
        .map(|n| arg(&n.arguments.as_ref().unwrap()["path"]))
        .collect()
}

fn arg(v: &ArgumentValue) -> String {
    match v {
        ArgumentValue::Literal { value, .. } => value.to_string(),
        ArgumentValue::Reference { expression, .. } => format!("ref({expression})"),
        ArgumentValue::Parameter { parameter_name } => format!("param({parameter_name})"),
        ArgumentValue::Object { properties } => format!(
            "{{{}}}",
            properties
                .iter()
                .map(|(k, v)| format!("{k}: {}", arg(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ArgumentValue::Array { items } => {
            format!("[{}]", items.iter().map(arg).collect::<Vec<_>>().join(", "))
        }
    }
}

pub(crate) fn render(s: &StaticStructure) -> String {
    let mut out = String::new();
    for n in &s.nodes {
        out.push_str(&n.id);
        if let Some(t) = &n.tool {
            out.push_str(&format!(" {t}"));
        }
        if let Some(c) = &n.capability_id {
            out.push_str(&format!(" capability:{c}"));
        }
        if let Some(f) = &n.function {
            out.push_str(&format!(" calls:{f}"));
        }
        if let Some(c) = &n.condition {
            out.push_str(&format!(" if({c})"));
        }
        if n.is_code() {
            out.push_str(&format!(" `{}`", n.code.as_deref().unwrap_or("")));
        }
        if let Some(args) = &n.arguments {
            let parts: Vec<String> = args
                .iter()
                .map(|(k, v)| format!("{k}={}", arg(v)))
                .collect();
            if !parts.is_empty() {
                out.push_str(&format!(" {{{}}}", parts.join(", ")));
            }
        }
        match &n.scope {
            Some(Scope::Decision { id, outcome }) => out.push_str(&format!(" @{id}:{outcome}")),
            Some(Scope::Fork { id } | Scope::Loop { id } | Scope::Function { id }) => {
                out.push_str(&format!(" @{id}"))
            }
            None => {}
        }
        out.push('\n');
    }
    let edges: Vec<String> = s
        .edges
        .iter()
        .map(|e| {
            let label = e
                .outcome
                .as_deref()
                .map(|o| format!("[{o}]"))
                .or_else(|| e.coverage.map(|c| format!("<{c:?}>")))
                .unwrap_or_default();
            format!("{}->{}{}", e.from, e.to, label)
        })
        .collect();
    out.push_str(&format!("edges: {}\n", edges.join(" ")));
    if !s.variable_bindings.is_empty() {
        let vb: Vec<String> = s
            .variable_bindings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push_str(&format!("vars: {}\n", vb.join(" ")));
    }
    if !s.literal_bindings.is_empty() {
        let lb: Vec<String> = s
            .literal_bindings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push_str(&format!("literals: {}\n", lb.join(" ")));
    }
    for d in &s.diagnostics {
        out.push_str(&format!(
            "{:?} {} {} [{}]\n",
            d.severity,
            d.place("").trim_start_matches(':').trim_end_matches(':'),
            d.message,
            d.code
        ));
    }
    out
}

fn check(code: &str, expect: Expect) {
    let s = build_structure(code, &BuildOptions::default()).structure;
    expect.assert_eq(&render(&s));
}

#[test]
fn seeds_example_is_four_nodes() {
    check(
        r#"
const users = await mcp.db.query({ table: "users" });
const active = users.filter(u => u.active && u.score > 50);
const names = active.map(u => u.name.toUpperCase());
const sorted = names.sort();
"#,
        expect![[r#"
            n1 db:query {table="users"}
            n2 code:filter `users.filter(u => u.active && u.score > 50)` {users=ref(n1)}
            n3 code:map `active.map(u => u.name.toUpperCase())` {active=ref(n2)}
            n4 code:sort `names.sort()` {names=ref(n3)}
            edges: n1->n2 n2->n3 n3->n4
            vars: users=n1 active=n2 names=n3 sorted=n4
        "#]],
    );
}

#[test]
fn tools_named_like_methods_stay_mcp_calls() {
    check(
        "const r = await mcp.db.find({ id: 1 }); const s = await mcp.kv.map({});",
        expect![[r#"
            n1 db:find {id=1}
            n2 kv:map
            edges: n1->n2
            vars: r=n1 s=n2
        "#]],
    );
}

#[test]
fn inner_await_in_arguments_runs_first() {
    check(
        "await mcp.x.write({ data: await mcp.y.read({}), n: 1 });",
        expect![[r#"
            n1 y:read
            n2 x:write {data=ref(n1), n=1}
            edges: n1->n2
        "#]],
    );
}

#[test]
fn early_return_makes_the_rest_conditional() {
    check(
        r#"
const f = await mcp.fs.stat({ path: args.p });
if (!f.exists) return null;
await mcp.fs.write({ path: args.p, content: "" });
"#,
        expect![[r#"
            n1 fs:stat {path=param(p)}
            d1 if(!n1.exists)
            n2 fs:write {path=param(p), content=""}
            edges: n1->d1 d1->n2[false]
            vars: f=n1
        "#]],
    );
}

#[test]
fn guard_operators_are_decisions() {
    check(
        "const ok = await mcp.a.check({}); ok.fine && await mcp.a.run({}); ok.bad || await mcp.a.fix({});",
        expect![[r#"
            n1 a:check
            d1 if(n1.fine)
            n2 a:run @d1:true
            d2 if(n1.bad)
            n3 a:fix @d2:false
            edges: n1->d1 d1->n2[true] n2->d2 d1->d2[false] d2->n3[false]
            vars: ok=n1
        "#]],
    );
}

#[test]
fn literal_map_unrolls_with_the_parameter_substituted() {
    check(
        r#"const [a, b] = await Promise.all(["a.txt", "b.txt"].map(p => mcp.fs.read({ path: "/d/" + p })));
await mcp.fs.write({ data: a.content });"#,
        expect![[r#"
            f1
            n1 fs:read {path="/d/a.txt"} @f1
            n2 fs:read {path="/d/b.txt"} @f1
            j1
            n3 fs:write {data=ref(n1.content)}
            edges: f1->n1 f1->n2 n1->j1 n2->j1 j1->n3
            vars: a=n1 b=n2
        "#]],
    );
}

#[test]
fn folding_follows_javascript() {
    check(
        r#"
const a = 10, b = 5;
const s = a + b + "px";
const t = "n" + a * 2;
const c = a > b && "yes";
const d = typeof s;
const e = (-a) ** 2 === 100;
const f = 0.1 + 0.2;
const g = [1, 2][1] + { k: 3 }.k;
const h = unknown + 1;
"#,
        expect![[r#"
            n1 code:add `unknown + 1` {unknown=ref(unknown)}
            edges: 
            vars: h=n1
            literals: a=10 b=5 s="15px" t="n20" c="yes" d="string" e=true f=0.30000000000000004 g=5
        "#]],
    );
}

#[test]
fn mutated_constants_are_not_literals() {
    check(
        r#"const xs = []; xs.push(1); const o = { a: 1 }; o.a = 2; const k = [3];
await mcp.s.t({ xs, o, k });"#,
        expect![[r#"
            n1 s:t {xs=ref(xs), o=ref(o), k=[3]}
            edges: 
            literals: k=[3]
        "#]],
    );
}

/// An object changed in place under another name is not a constant either: through a local
/// function's parameter (`+=` too), a helper that passes its parameter on, an object or array
/// holding it, a loop's or a callback's element, a `Map`'s `get`, a method of an object, an
/// instance of a class. A string or a number cannot change in place, wherever it goes.
#[test]
fn constants_changed_under_other_names_are_not_literals() {
    for changes in [
        "function narrow(f) { f.query += \"x\"; } narrow(filter);",
        "const narrow = (f) => { const g = f; g.query = 1; }; narrow(filter);",
        "function fix(f) { f.q = 1; } function pass(f) { fix(f); } pass(filter);",
        "const holder = { filter }; holder.filter.query = 1;",
        "const list = [filter]; list[0].query = 1;",
        "for (const c of [filter]) c.query = 1;",
        "[filter].map((c) => c.query.push(1));",
        "const m = new Map([[\"f\", filter]]); m.get(\"f\").query = 1;",
        "const h = { fix(f) { f.query = 1; } }; h.fix(filter);",
        "class Q { constructor(f) { this.f = f; } } new Q(filter).f.query = 1;",
        "const all = []; all.push(filter); all[0].query = 1;",
        "[filter].slice()[0].query = 1;",
    ] {
        let code = format!(
            "const filter = {{ query: [\"a\"] }}; const word = \"w\"; {changes}\nawait mcp.s.t({{ filter, word }});"
        );
        let s = build_structure(&code, &BuildOptions::default()).structure;
        let args = s
            .nodes
            .iter()
            .find(|n| n.tool.as_deref() == Some("s:t"))
            .unwrap();
        let args = args.arguments.as_ref().unwrap();
        assert!(
            matches!(args["filter"], ArgumentValue::Reference { .. }),
            "{changes}: {:?}",
            args["filter"]
        );
        assert_eq!(
            args["word"],
            ArgumentValue::literal(serde_json::json!("w")),
            "{changes}"
        );
    }
    // A chain over a constant ending in a method that changes its receiver (found in the
    // original's tests: `numbers.filter(..).map(..).sort()`) sorts the chain's new array.
    let code = "const numbers = [5, 3, 8];\nconst r = numbers.filter((n) => n > 2).map((n) => n * 2).sort();\nawait mcp.s.t({ r, numbers });";
    let s = build_structure(code, &BuildOptions::default()).structure;
    assert_eq!(
        s.literal_bindings.get("numbers"),
        Some(&serde_json::json!([5, 3, 8]))
    );
    // Read, compared, given to a tool or to the language's own functions: still a constant.
    let code = r#"const filter = { query: "a" }; console.log(filter); JSON.stringify(filter);
const keys = Object.keys(filter); if ([1].includes(filter)) {}
await mcp.s.a(filter); await mcp.s.t({ filter });"#;
    let s = build_structure(code, &BuildOptions::default()).structure;
    let args = s
        .nodes
        .iter()
        .find(|n| n.tool.as_deref() == Some("s:t"))
        .unwrap();
    assert_eq!(
        args.arguments.as_ref().unwrap()["filter"],
        ArgumentValue::literal(serde_json::json!({ "query": "a" }))
    );
}

/// A result changed in place under another name is marked changed (nothing may be computed
/// ahead from it); one whose elements were copied and the copy changed, or only read, is not.
#[test]
fn results_changed_under_other_names_are_changed() {
    let changed = |body: &str| {
        let code = format!(
            "const c = JSON.parse((await mcp.fs.read({{}})).content);\n{body}\nawait mcp.fs.read2({{ p: c.dir }});"
        );
        let s = build_structure(&code, &BuildOptions::default()).structure;
        let parse = s
            .nodes
            .iter()
            .find(|n| n.tool.as_deref() == Some("code:JSON.parse"));
        parse.unwrap().changed
    };
    for body in [
        "c.files.sort();",
        "const sorted = [c].map((x) => x.files.sort());",
        "[c].forEach((x) => { x.dir = 1; });",
        "const m = new Map([[\"main\", c]]); m.get(\"main\").dir = \"y\";",
        "const files = c.files; files.push(\"z\");",
        "const { files } = c; files.reverse();",
        "const all = [...[c]]; all[0].dir = 2;",
        "const box = { c }; box.c.dir = 3;",
        "c.files.filter((f) => f).sort()[0].dir = 4;",
        "[...c.files].reverse(); c.files.sort();",
    ] {
        assert!(changed(body), "{body}");
    }
    for body in [
        "const files = c.files.slice(); files.shift();",
        "const names = c.files.map((f) => f.name); names.sort();",
        "console.log(c); const n = Object.keys(c).length;",
        // A new array's own order or length changed, in one expression.
        "const top = c.files.filter((f) => f.big).sort((a, b) => a.n - b.n);",
        "[...c.files].reverse(); ({ c }).extra = 1;",
    ] {
        assert!(!changed(body), "{body}");
    }
}

/// `mcp` or a server of it given to a function, kept in an object or a class's field: the
/// tools called through what holds it are out of the structure's sight, and it says so (what
/// turns speculation off). Calling through it, or naming it anew, is no such use.
#[test]
fn mcp_used_as_a_value_is_out_of_sight() {
    let out_of_sight = |code: &str| {
        let s = build_structure(code, &BuildOptions::default()).structure;
        (s.diagnostics.iter())
            .filter(|d| d.code == pml_structure::diagnostics::UNANALYSED_CODE)
            .count()
    };
    for code in [
        "const put = (fs, p) => fs.write_file({ path: p }); await put(mcp.filesystem, \"a\");",
        "class S { constructor() { this.fs = mcp.filesystem; } }\nconst s = new S();",
        "const tools = { m: mcp }; await tools.m.fs.write({});",
        "const fs = mcp.filesystem; const keep = [fs];",
    ] {
        assert_eq!(out_of_sight(code), 1, "{code}");
    }
    for code in [
        "await mcp.fs.read({}); const fs = mcp.fs; await fs.read({});",
        "const { filesystem } = mcp; await filesystem.read({});",
        "const read = mcp.fs.read; await read({});",
        "await mcp[args.s][args.t]({});",
    ] {
        assert_eq!(out_of_sight(code), 0, "{code}");
    }
}

/// The right side of `&&=`, `||=`, `??=` and what follows `?.` run for one outcome only:
/// decisions, as for `&&`, `||` and `??`.
#[test]
fn logical_assignments_and_optional_chains_decide() {
    check(
        r#"
let state = args.state;
state.dirty &&= await mcp.s.flush({});
state.saved ||= await mcp.s.save({});
state.cache ??= await mcp.s.load({});
args.hooks?.onStart(await mcp.s.hook({}));
args.log?.(await mcp.s.line({}));
await mcp.s.after({});
"#,
        expect![[r#"
            d1 if(state.dirty)
            n1 s:flush @d1:true
            d2 if(state.saved)
            n2 s:save @d2:false
            d3 if((state.cache) == null)
            n3 s:load @d3:true
            d4 if((args.hooks) == null)
            n4 s:hook @d4:false
            d5 if((args.log) == null)
            n5 s:line @d5:false
            n6 s:after
            edges: d1->n1[true] n1->d2 d1->d2[false] d2->n2[false] n2->d3 d2->d3[true] d3->n3[true] n3->d4 d3->d4[false] d4->n4[false] n4->d5 d4->d5[true] d5->n5[false] n5->n6 d5->n6[true]
        "#]],
    );
}

/// `__proto__: v` in an object literal sets its prototype: no property of the arguments (what
/// it inherits is not sent), so such an object is JavaScript's to build; a computed
/// `["__proto__"]` or a shorthand is an own property like any other.
#[test]
fn object_literals_that_set_their_prototype_are_built_by_javascript() {
    let s = build_structure(
        r#"await mcp.s.t({ meta: { __proto__: { inherited: true }, own: 1 }, ["__proto__"]: 2 });
await mcp.s.u({ "__proto__": { a: 1 }, b: 2 });
const c = { __proto__: null, d: 3 };
await mcp.s.v({ c });"#,
        &BuildOptions::default(),
    )
    .structure;
    let args = |tool: &str| {
        let node = s
            .nodes
            .iter()
            .find(|n| n.tool.as_deref() == Some(tool))
            .unwrap();
        node.arguments.clone().unwrap()
    };
    let t = args("s:t");
    assert!(
        matches!(t["meta"], ArgumentValue::Reference { .. }),
        "{:?}",
        t["meta"]
    );
    assert_eq!(t["__proto__"], ArgumentValue::literal(serde_json::json!(2)));
    let u = args("s:u");
    assert!(
        u.0.keys()
            .all(|k| !matches!(k, pml_structure::Key::Static(k) if k == "__proto__")),
        "{u:?}"
    );
    assert!(!matches!(args("s:v")["c"], ArgumentValue::Literal { .. }));
}

#[test]
fn switch_fallthrough_and_default() {
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
await mcp.s.after({});
"#,
        expect![[r#"
            d1 if(args.kind)
            n1 s:ab @d1:case:b
            n2 s:c @d1:case:c
            n3 s:d @d1:default
            n4 s:after
            edges: d1->n1[case:a] d1->n1[case:b] n1->n2 d1->n2[case:c] d1->n3[default] n2->n4 n3->n4
        "#]],
    );
}

#[test]
fn loops_scope_their_body() {
    check(
        r#"
const list = await mcp.fs.list({});
for (const e of list.entries) {
  await mcp.fs.read({ path: e.path });
}
list.entries.forEach(async (e) => { await mcp.fs.touch({ path: e.path }); });
"#,
        expect![[r#"
            n1 fs:list
            l1 if(n1.entries) {list=ref(n1)}
            n2 fs:read {path=ref(n1.entries[*].path)} @l1
            l2 if(n1.entries) {list=ref(n1)}
            n3 fs:touch {path=ref(n1.entries[*].path)} @l2
            edges: n1->l1 l1->n2 l1->l2 l2->n3
            vars: list=n1
        "#]],
    );
}

#[test]
fn warnings_for_what_is_not_analysed() {
    check(
        r#"
class Helper { read(p) { return mcp.fs.read({ path: p }); } }
const name = "read";
await mcp.fs[name]({});
await mcp.fs[args.tool]({});
const n = JSON.parse(await fetch("x"));
"#,
        expect![[r#"
            fn1
            n1 fs:read {path=ref(p)} @fn1
            n2 fs:read
            n3 fs:?
            n4 code:JSON.parse `JSON.parse(await fetch("x"))` {fetch=ref(fetch)}
            edges: fn1->n1 n2->n3 n3->n4
            vars: n=n4
            literals: name="read"
            Warning 5:7 `mcp.fs[args.tool]`: the server or tool name is computed at run time, so what this call does is not known statically [dynamic-call]
            Warning 6:11 n4 (code:JSON.parse): code reaches `fetch` (network i/o) at byte 17, so it is not pure [impure-code]
        "#]],
    );
}

#[test]
fn syntax_errors_are_positioned_in_the_users_file() {
    check(
        "const a = 1;\nconst b = ;\n",
        expect![[r#"
            edges: 
            Error 2:11 expression expected [syntax-error]
        "#]],
    );
}

#[test]
fn shorthand_and_destructuring_link_to_nodes() {
    check(
        r#"const { content } = await mcp.fs.read({});
const data = await mcp.db.get({});
await mcp.out.put({ content, data, d: data.rows[0] });"#,
        expect![[r#"
            n1 fs:read
            n2 db:get
            n3 out:put {content=ref(n1.content), data=ref(n2), d=ref(n2.rows[0])}
            edges: n1->n2 n2->n3
            vars: content=n1.content data=n2
        "#]],
    );
}

#[test]
fn capabilities_and_bracket_tool_names() {
    check(
        r#"const s = await capabilities.summarize({ text: "x" }); await mcp.api["fetch-json"]({ url: s.url });"#,
        expect![[r#"
            c1 capability:summarize {text="x"}
            n1 api:fetch-json {url=ref(c1.url)}
            edges: c1->n1
            vars: s=c1
        "#]],
    );
}

#[test]
fn arguments_survive_without_a_node() {
    let s = build_structure(
        "await mcp.a.b({ n: args.x * 2, when: Date.now(), spread: 1, ...args.extra });",
        &BuildOptions::default(),
    )
    .structure;
    let args = s.nodes[0].arguments.as_ref().unwrap();
    // Its printing is kept (it binds looser than a member access); the rest is the text.
    let ArgumentValue::Reference {
        expression,
        reads,
        canonical: Some(printed),
        ..
    } = &args["n"]
    else {
        panic!("{:?}", args["n"]);
    };
    assert_eq!(
        (expression.as_str(), reads.as_slice()),
        ("args.x * 2", &["args".to_string()][..])
    );
    assert_eq!(printed.text, "args.x * 2");
    assert_eq!(args["when"], ArgumentValue::reference("Date.now()"));
    assert_eq!(
        args[&Key::Spread(3)],
        ArgumentValue::Parameter {
            parameter_name: "extra".into()
        }
    );
}

/// Keys are typed: a computed key is a reference to its expression (bound names as node ids,
/// what it reads), one that folds is static, and a static key that looks like a spread or a
/// computed key is a static key.
#[test]
fn computed_keys_are_references_and_static_keys_stay_static() {
    let s = build_structure(
        "const k = await mcp.a.b({});\nconst p = \"x\";\nawait mcp.c.d({ [k.id]: 1, [p + \"y\"]: 2, \"...k\": 3, \"[k]\": 4, ...k.more });",
        &BuildOptions::default(),
    )
    .structure;
    let args = s.nodes[1].arguments.as_ref().unwrap();
    let keys: Vec<&Key> = args.keys().collect();
    assert_eq!(
        keys,
        [
            &Key::Computed(Box::new(ComputedKey {
                at: 0,
                expression: "n1.id".into(),
                reads: vec!["n1".into()],
                canonical: None,
                leaves: pml_structure::Leaves::of_path("n1.id"),
            })),
            &Key::Static("xy".into()),
            &Key::Static("...k".into()),
            &Key::Static("[k]".into()),
            &Key::Spread(4),
        ]
    );
    assert_eq!(args["...k"], ArgumentValue::literal(serde_json::json!(3)));
    // The JSON tells them apart, and reads back as it was.
    let json = serde_json::to_value(args).unwrap();
    assert_eq!(
        json.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["[0]", "xy", "\\...k", "\\[k]", "...4"]
    );
    assert_eq!(
        json["[0]"]["key"],
        serde_json::json!({"type": "reference", "expression": "n1.id", "reads": ["n1"]})
    );
    let back: pml_structure::Arguments = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
    // The key's results are known from the analysis only, not from its JSON.
    let Key::Computed(read) = back.keys().next().unwrap() else {
        panic!("{back:?}");
    };
    assert!(read.leaves.all().is_empty());
    // The name the program gave the result is not in the structure.
    let renamed = build_structure(
        "const other = await mcp.a.b({});\nconst p = \"x\";\nawait mcp.c.d({ [other.id]: 1, [p + \"y\"]: 2, \"...k\": 3, \"[k]\": 4, ...other.more });",
        &BuildOptions::default(),
    )
    .structure;
    assert_eq!(renamed.nodes[1].arguments.as_ref(), Some(args));
}

#[test]
fn labelled_break_continues_after_the_block() {
    // Found by the fuzzer: the call after the block used to be dropped (unreachable).
    check(
        "outer: { await mcp.a.b({}); if (args.x) break outer; await mcp.a.c({}); }\nawait mcp.c.d({});",
        expect![[r#"
            n1 a:b
            d1 if(args.x)
            n2 a:c
            n3 c:d
            edges: n1->d1 d1->n2[false] n2->n3 d1->n3[true]
        "#]],
    );
}

#[test]
fn catch_and_finally_follow_whatever_may_throw() {
    // Found by the fuzzer: after `return` in the block, the handler had no incoming edge.
    check(
        r#"await mcp.a.b({});
try { const x = await mcp.t.one({}); return x; } catch (e) { await mcp.c.d({ e }); } finally { await mcp.f.g({}); }
await mcp.after.h({});"#,
        expect![[r#"
            n1 a:b
            n2 t:one
            n3 c:d {e=ref(e)}
            n4 f:g
            n5 after:h
            edges: n1->n2 n1->n3 n2->n3 n3->n4 n1->n4 n2->n4 n4->n5
            vars: x=n2
        "#]],
    );
}

#[test]
fn breaks_at_the_start_and_in_braced_cases() {
    // Found by proptest: a labelled break before any node lost everything after it, and a
    // braced `case x: { break; }` kept an empty decision.
    check(
        "a: { break a; }\nswitch (args.k) { case \"x\": { break; } }\nawait mcp.a.b({});",
        expect![[r#"
            n1 a:b
            edges: 
        "#]],
    );
}

#[test]
fn local_functions_are_walked_once_and_calls_link_to_them() {
    check(
        r#"
const load = async (n) => (await mcp.fs.read_file({ path: n })).content;
const a = await load("a");
const b = await load(args.b);
await save(a + b);
async function save(text) { await mcp.db.drop_all({ reason: text }); }
return await mcp.db.list({}).then(r => mcp.db.read({ ids: r.ids }));
"#,
        expect![[r#"
            fn1
            fn2
            n1 fs:read_file {path=ref(n)} @fn2
            call1 calls:fn2 {0="a"}
            call2 calls:fn2 {0=param(b)}
            call3 calls:fn1 {0=ref(call1 + call2)}
            n2 db:drop_all {reason=ref(text)} @fn1
            n3 db:list
            fn3
            n4 db:read {ids=ref(n3.ids)} @fn3
            call4 calls:fn3 {0=ref(n3)}
            edges: fn2->n1 call1->call2 call2->call3 fn1->n2 call3->n3 fn3->n4 n3->call4
            vars: a=call1 b=call2
        "#]],
    );
}

#[test]
fn aliases_of_mcp_call_tools_like_mcp() {
    check(
        r#"
const fs = mcp.filesystem;
const { memory, everything: ev } = mcp;
const { read_text_file: read } = mcp.filesystem;
const m = mcp;
await fs.read_text_file({ path: "a" });
await read({ path: "b" });
await memory.read_graph({});
await ev.echo({ message: "x" });
await m.db.query({});
await fs[args.tool]({});
const mcp2 = { fs: { read() {} } };
await mcp2.fs.read({});
"#,
        expect![[r#"
            n1 filesystem:read_text_file {path="a"}
            n2 filesystem:read_text_file {path="b"}
            n3 memory:read_graph
            n4 everything:echo {message="x"}
            n5 db:query
            n6 filesystem:?
            edges: n1->n2 n2->n3 n3->n4 n4->n5 n5->n6
            Warning 11:7 `fs[args.tool]`: the server or tool name is computed at run time, so what this call does is not known statically [dynamic-call]
            Warning 12:7 `mcp2`: pml does not model an object literal with methods or accessors; where the program uses it, the structure refers to it by name [unmodelled-declaration]
        "#]],
    );
}

#[test]
fn functions_that_call_tools_used_as_values_and_recursion_are_said() {
    check(
        r#"
async function walk(dir) {
  const l = await mcp.fs.list({ path: dir });
  for (const d of l.dirs) await walk(d);
}
await walk(args.root);
setTimeout(() => mcp.log.write({}), 10);
const fmt = (u) => u.name.toUpperCase();
return fmt({ name: "x" });
"#,
        expect![[r#"
            fn1
            n1 fs:list {path=ref(dir)} @fn1
            l1 if(n1.dirs) {l=ref(n1), walk=ref(fn1)} @fn1
            call1 calls:fn1 {0=ref(n1.dirs[*])} @l1
            call2 calls:fn1 {0=param(root)}
            fn2
            n2 log:write @fn2
            fn3
            n3 code:toUpperCase `u.name.toUpperCase()` {u=ref(u)} @fn3
            call3 calls:fn3 {0={"name":"x"}}
            edges: fn1->n1 n1->l1 l1->call1 fn2->n2 fn3->n3 call2->call3
            vars: l=n1
            Warning 4:33 `walk` calls itself (directly or through another function): its body is in the structure once [recursion]
            Warning 7:12 fn2: a function used as a value calls MCP tools; its calls are in the structure, but when and how often it runs is up to whoever calls it [function-value]
        "#]],
    );
}

#[test]
fn operations_are_nodes_wherever_they_stand() {
    check(
        r#"
const page = JSON.parse((await mcp.db.read({})).content);
const mean = page.rows.reduce((s, u) => s + u.score, 0) / page.rows.length;
const text = `${page.rows.map((r) => r.name).join(", ")} (${Object.keys(page).length})`;
const maybe = page.rows.length || page.fallback.filter((r) => r.ok);
await mcp.db.write({ line: text.toUpperCase() + "!", mean, maybe });
"#,
        expect![[r#"
            n1 db:read
            n2 code:JSON.parse `JSON.parse(n1.content)` {n1=ref(n1)}
            n3 code:reduce `page.rows.reduce((s, u) => s + u.score, 0)` {page=ref(n2)}
            n4 code:divide `n3 / page.rows.length` {n3=ref(n3), page=ref(n2)}
            n5 code:map `page.rows.map((r) => r.name)` {page=ref(n2)}
            n6 code:join `join(", ")` {$receiver=ref(n5)}
            n7 code:Object.keys `Object.keys(page)` {page=ref(n2)}
            n8 code:or `page.rows.length || page.fallback.filter((r) => r.ok)` {page=ref(n2)}
            n9 code:toUpperCase `text.toUpperCase()` {text=ref(`${n6} (${n7.length})`)}
            n10 db:write {line=ref(n9 + "!"), mean=ref(n4), maybe=ref(n8)}
            edges: n1->n2 n2->n3 n3->n4 n4->n5 n5->n6 n6->n7 n7->n8 n8->n9 n9->n10
            vars: page=n2 mean=n4 maybe=n8
        "#]],
    );
}

#[test]
fn what_references_and_conditions_read_comes_from_the_syntax_tree() {
    let code = r#"
const page = await mcp.db.read({});
const id = Number(page.name.match(/(\d+)/)[1]);
const dir = `${args.root}/${id}`;
if (page.rows.some((d) => d.ok) && limit > 0) {
  await mcp.db.write({ path: dir, n: page.rows.filter((x) => x.v > min).length });
}
"#;
    let s = build_structure(code, &BuildOptions::default()).structure;
    let write = s
        .nodes
        .iter()
        .find(|n| n.tool.as_deref() == Some("db:write"))
        .unwrap();
    let args = write.arguments.as_ref().unwrap();
    // The regex's `\d` is no name; the template reads the parameter root and what `id` reads.
    assert_eq!(args["path"].reads(), ["args", "Number", "n1"]);
    let decision = s.nodes.iter().find(|n| n.condition.is_some()).unwrap();
    // The callback's own parameter `d` is not read from outside.
    assert_eq!(decision.reads, ["n1", "limit"]);
}

#[test]
fn structures_with_functions_first_keep_the_invariants() {
    // Found by fuzzing: the call of an IIFE is the first node of the control flow, after the
    // function and its body.
    for code in [
        "const s = await (async () => {\n  const p = await mcp.a.b({});\n  return p.x;\n})();\nreturn s;",
        "function f() { return mcp.a.b({}); }\nawait f();",
        "const g = async () => { await mcp.a.b({}); };\nif (args.x) await g();",
    ] {
        let s = build_structure(code, &BuildOptions::default()).structure;
        pml_structure::check_invariants(code, &s).unwrap_or_else(|e| panic!("{code}: {e}"));
    }
}

#[test]
fn a_parameter_key_with_a_dot_is_no_parameter_path() {
    // `args["a.b"]` is the key `a.b`, not `args.a.b`: the dotted name would read the wrong
    // value (the approval plan, speculation); it stays the program's expression.
    check(
        r#"await mcp.fs.read({ path: args["a.b"], nested: args.a.b, plain: args["c"] });"#,
        expect![[r#"
            n1 fs:read {path=ref(args["a.b"]), nested=param(a.b), plain=param(c)}
            edges: 
        "#]],
    );
    // Nor when a pattern takes it from `args` (nor an empty key, which would be `args`).
    check(
        r#"const { "a.b": x, c: { "d.e": y, f }, "": z } = args;
const { "g.h": w } = args.i;
await mcp.fs.read({ x, y, f, z, w });"#,
        expect![[r#"
            n1 fs:read {x=ref(args["a.b"]), y=ref(args.c["d.e"]), f=param(c.f), z=ref(args[""]), w=ref(args.i["g.h"])}
            edges: 
        "#]],
    );
}

#[test]
fn class_fields_that_call_tools_are_said_to_be_unwalked() {
    // A static field's initializer runs when the class is defined; its call is in no node,
    // so nothing may be read ahead of the program (speculation is off for it).
    check(
        r#"class Cfg { static ready = mcp.db.write({ k: 1 }); async get() { return mcp.db.read({ k: 1 }); } }
await Cfg.ready;
return await new Cfg().get();"#,
        expect![[r#"
            fn1
            n1 db:read {k=1} @fn1
            edges: fn1->n1
            Warning 1:28 class `Cfg`: `mcp.db.write({ k: 1 })` calls MCP tools where pml cannot tell when it runs; its calls are not in the structure [unanalysed-code]
        "#]],
    );
}

#[test]
fn tool_calls_the_walk_does_not_model_are_said() {
    // Calls in a computed key, a `for` initializer, a pattern's default have no node: said, so
    // nothing is read ahead of the program. One after a `return` is never made: not said.
    check(
        r#"const o = { [await mcp.db.read({ k: 1 })]: 1 };
for (let i = 0, f = await mcp.db.read({ k: 2 }); i < 1; i++) {}
const [a = await mcp.db.read({ k: 3 })] = [];
return o;
await mcp.db.read({ k: 4 });"#,
        expect![[r#"
            l1 if(i < 1)
            edges: 
            Warning 1:7 `o`: pml does not model an `await` of something that is not a tool call; where the program uses it, the structure refers to it by name [unmodelled-declaration]
            Warning 1:20 `mcp.db.read({ k: 1 })` is called where the structure does not model calls (a computed key, a `for` initializer, a pattern's default...): it runs as written, traced under no node, and nothing is read ahead of the program [unanalysed-code]
            Warning 2:27 `mcp.db.read({ k: 2 })` is called where the structure does not model calls (a computed key, a `for` initializer, a pattern's default...): it runs as written, traced under no node, and nothing is read ahead of the program [unanalysed-code]
            Warning 3:18 `mcp.db.read({ k: 3 })` is called where the structure does not model calls (a computed key, a `for` initializer, a pattern's default...): it runs as written, traced under no node, and nothing is read ahead of the program [unanalysed-code]
        "#]],
    );
}

#[test]
fn the_programs_own_brackets_are_escaped_beside_the_element_mark() {
    // `[*]` in a rewritten text is only ever the mark of a loop's element: the program's own
    // (a string, a template, a regular expression, a key) are written `[\*]`, the same value.
    check(
        r#"for (const id of args.ids) {
  await mcp.db.read({ id, tag: "[*]" + id, at: `x[*]${id}`, ok: /[*]/.test(id), m: { "[*]": id } });
}"#,
        expect![[r#"
            l1 if(args.ids)
            n1 db:read {id=ref(args.ids[*]), tag=ref("[\*]" + args.ids[*]), at=ref(`x[\*]${args.ids[*]}`), ok=ref(/[\*]/.test(args.ids[*])), m={[*]: ref(args.ids[*])}} @l1
            edges: l1->n1
        "#]],
    );
}

/// Every text of the structure carries its canonical printing, made from the syntax tree: a
/// node's result is its path, a name of the program a hole (whatever its name: one shaped like
/// a node id is no node's result), a name a code task reads a hole its input is named by.
#[test]
fn texts_carry_their_printings_with_names_as_holes() {
    let s = build_structure(
        "const names = await mcp.fs.list({});\nlet n1 = 0;\nfor (const x of args.xs) n1 += x;\nif (names.slice(n1, 3).length > 0) await mcp.fs.read({ path: names[0] + '/a' });\nconst total = names.reduce((a,  b) => a + b.size, 0);\nreturn total;",
        &BuildOptions::default(),
    )
    .structure;
    let holes = |c: &Canonical| c.holes.iter().map(|h| h.name.clone()).collect::<Vec<_>>();
    let node = |id: &str| s.nodes.iter().find(|n| n.id == id).unwrap();
    let printed = |id: &str, code: bool| {
        let c = node(id).canonical.as_ref().unwrap();
        match code {
            true => c.code.clone().unwrap(),
            false => c.condition.clone().unwrap(),
        }
    };
    // The condition: `names` is `n1`'s result, the program's `n1` a hole (written `n1$`).
    assert_eq!(
        node("d1").condition.as_deref(),
        Some("n1.slice(n1$, 3).length > 0")
    );
    let condition = printed("d1", false);
    assert_eq!(condition.text, "n1.slice(, 3).length > 0");
    assert_eq!(holes(&condition), ["n1$"]);
    assert_eq!(
        condition.pieces().collect::<Vec<_>>(),
        [
            Piece::Text("n1.slice("),
            Piece::Hole("n1$"),
            Piece::Text(", 3).length > 0")
        ]
    );
    // A reference whose text is not its printing carries it; one that is does not.
    let read = s
        .nodes
        .iter()
        .find(|n| n.tool.as_deref() == Some("fs:read"))
        .unwrap();
    let ArgumentValue::Reference { canonical, .. } = &read.arguments.as_ref().unwrap()["path"]
    else {
        panic!("a reference: {:?}", read.arguments);
    };
    let path = canonical.as_ref().map(|c| c.text.as_str());
    assert_eq!(path, Some("n1[0] + \"/a\""));
    // The code task: its free name is a hole named as its input; its callback's own names are
    // renamed, whitespace and formatting gone.
    let reduce = s
        .nodes
        .iter()
        .find(|n| n.tool.as_deref() == Some("code:reduce"))
        .unwrap();
    let code = printed(&reduce.id, true);
    assert_eq!(code.text, ".reduce((_p0, _p1) => _p0 + _p1.size, 0)");
    assert_eq!(holes(&code), ["names"]);
    assert!(reduce.arguments.as_ref().unwrap().contains_key("names"));
    // The loop: its code a statement, its loop variable renamed, a global as it is.
    let code = printed("l1", true);
    assert_eq!(code.text, "for (const _p0 of args.xs) {  += _p0; }");
    assert_eq!(holes(&code), ["n1"]);
}

/// `no_hash` leaves the printings out and nothing else: the JSON is the same for every fixture.
#[test]
fn a_structure_without_printings_is_the_same_structure() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        for (name, dialect) in [
            ("input.ts", pml_structure::Dialect::TypeScript),
            ("input.js", pml_structure::Dialect::JavaScript),
        ] {
            let Ok(code) = std::fs::read_to_string(entry.path().join(name)) else {
                continue;
            };
            let options = BuildOptions {
                dialect,
                ..Default::default()
            };
            let with = build_structure(&code, &options).structure;
            let without = build_structure(
                &code,
                &BuildOptions {
                    no_hash: true,
                    ..options
                },
            )
            .structure;
            let json = |s: &StaticStructure| serde_json::to_string(s).unwrap();
            assert_eq!(json(&with), json(&without), "{}", entry.path().display());
            assert!(without.nodes.iter().all(|n| n.canonical.is_none()));
            seen += 1;
        }
    }
    assert!(seen > 90, "{seen} fixtures");
}

/// An element of an iterable that binds looser than a member access is written with the
/// iterable parenthesised (it read `n1.entries || [][*].path`, the path of `[]`'s element).
#[test]
fn elements_of_a_computed_iterable_are_parenthesised() {
    let paths = read_paths(
        "const listing = await mcp.fs.list({});\nfor (const f of listing.entries || []) {\n  await mcp.fs.read({ path: f.path });\n}\nconst names = (await mcp.fs.list({})).items ?? [];\nfor (const { id } of names) await mcp.fs.read({ path: id });",
    );
    expect![[r#"
        [
            "ref((n1.entries || [])[*].path)",
            "ref(n4[*].id)",
        ]
    "#]]
    .assert_debug_eq(&paths);
}

/// One scope analysis (`canon::scope`) for the printings and for what code reads: a name a
/// nested block declares shadows the outer one in that block only, so the code still reads
/// the outer one elsewhere (it was taken for declared in the whole callback).
#[test]
fn a_block_declaration_shadows_in_its_block_only() {
    let s = build_structure(
        "const items = await mcp.fs.list({});\nconst rows = await mcp.fs.rows({});\nconst total = rows.reduce((acc, x) => { if (x.big) { const items = 1; acc += items; } return acc + items.length; }, 0);\nreturn total;",
        &BuildOptions::default(),
    )
    .structure;
    let reduce = s
        .nodes
        .iter()
        .find(|n| n.tool.as_deref() == Some("code:reduce"))
        .unwrap();
    let args = reduce.arguments.as_ref().unwrap();
    let inputs: Vec<String> = args
        .iter()
        .map(|(k, v)| format!("{k:?} {}", arg(v)))
        .collect();
    expect![[r#"
        [
            "Static(\"rows\") ref(n2)",
            "Static(\"items\") ref(n1)",
        ]
    "#]]
    .assert_debug_eq(&inputs);
}

/// A type assertion stays in the text (TypeScript built as it is): an element or member of it
/// is written with it parenthesised.
#[test]
fn a_type_assertion_is_parenthesised_before_a_member() {
    let paths = read_paths(
        "for (const f of args.files as File[]) await mcp.fs.read({ path: f.path });\nconst es = args.more as File[];\nawait mcp.fs.read({ path: es.length });",
    );
    expect![[r#"
        [
            "ref((args.files as File[])[*].path)",
            "ref((args.more as File[]).length)",
        ]
    "#]]
    .assert_debug_eq(&paths);
}
