//! Pairs of programs: equal hashes for programs that differ only in names or presentation,
//! different hashes for a single change of meaning.

use crate::{form, hash};

#[track_caller]
fn same(a: &str, b: &str) {
    assert_eq!(
        hash(a),
        hash(b),
        "expected equal hashes; canonical forms:\n{}\n---\n{}",
        form(a),
        form(b)
    );
}

#[track_caller]
fn differ(a: &str, b: &str) {
    assert_ne!(
        hash(a),
        hash(b),
        "expected different hashes; canonical form:\n{}",
        form(a)
    );
}

const BASE: &str = r#"
const users = await mcp.db.query({ table: "users", limit: 10 });
const active = users.rows.filter(u => u.active && u.score > 50);
if (active.length > 0) {
  await mcp.mail.send({ to: args.to, body: JSON.stringify(active) });
} else {
  await mcp.log.write({ message: "nothing to send" });
}
"#;

// ----- invariance --------------------------------------------------------------------------

#[test]
fn the_seeds_example_hashes_equal() {
    same(
        "const result = await mcp.std.psql_query({ query: args.query });\nreturn result;",
        "const data = await mcp.std.psql_query({ query: args.query });\nreturn data;",
    );
}

#[test]
fn renamed_variables_and_callback_parameters() {
    same(
        BASE,
        r#"
const people = await mcp.db.query({ table: "users", limit: 10 });
const keep = people.rows.filter(p => p.active && p.score > 50);
if (keep.length > 0) {
  await mcp.mail.send({ to: args.to, body: JSON.stringify(keep) });
} else {
  await mcp.log.write({ message: "nothing to send" });
}
"#,
    );
}

#[test]
fn callback_parameter_spelling() {
    same(
        "const r = await mcp.a.b({}); return r.items.filter(u => u.active);",
        "const r = await mcp.a.b({}); return r.items.filter((x) => x.active);",
    );
    same(
        "const r = await mcp.a.b({}); return r.items.map(({ id, name }) => id + name);",
        "const r = await mcp.a.b({}); return r.items.map(({ id: k, name: v }) => k + v);",
    );
}

#[test]
fn shorthand_properties() {
    same(
        "const data = await mcp.a.read({}); await mcp.a.write({ data });",
        "const result = await mcp.a.read({}); await mcp.a.write({ data: result });",
    );
    same(
        "const data = await mcp.a.read({}); const s = JSON.stringify({ data });",
        "const got = await mcp.a.read({}); const s = JSON.stringify({ data: got });",
    );
}

#[test]
fn object_destructuring() {
    same(
        r#"const { content } = await mcp.fs.read({ path: "a" }); await mcp.x.y({ text: content });"#,
        r#"const { content: body } = await mcp.fs.read({ path: "a" }); await mcp.x.y({ text: body });"#,
    );
}

#[test]
fn array_destructuring_of_promise_all() {
    same(
        "const [a, b] = await Promise.all([mcp.x.y({}), mcp.x.z({})]); await mcp.m.n({ a: a.v, b: b.v });",
        "const [first, second] = await Promise.all([mcp.x.y({}), mcp.x.z({})]); await mcp.m.n({ a: first.v, b: second.v });",
    );
}

#[test]
fn loop_variables_and_mutated_lets() {
    same(
        "const l = await mcp.fs.list({}); for (const e of l.entries) { await mcp.fs.stat({ path: e.path }); }",
        "const dir = await mcp.fs.list({}); for (const entry of dir.entries) { await mcp.fs.stat({ path: entry.path }); }",
    );
    same(
        "let n = args.count; while (n > 0) { await mcp.a.tick({ left: n }); n--; }",
        "let remaining = args.count; while (remaining > 0) { await mcp.a.tick({ left: remaining }); remaining--; }",
    );
}

#[test]
fn literal_binding_names() {
    same(
        "const limit = 5; const r = await mcp.a.b({ n: limit }); if (r.count > limit) { await mcp.a.c({}); }",
        "const max = 5; const r = await mcp.a.b({ n: max }); if (r.count > max) { await mcp.a.c({}); }",
    );
}

#[test]
fn formatting_and_comments() {
    same(
        BASE,
        r#"// fetch the users
const users = await mcp.db.query({table: "users", limit: 10})
const active = users.rows.filter(
  u => /* only the active ones */ u.active &&
    u.score > 50, // high scores
)
if (active.length > 0) await mcp.mail.send({
    to: args.to,
    body: JSON.stringify(active),
  })
else {
  /* fallback */ await mcp.log.write({ message: "nothing to send" })
}"#,
    );
}

#[test]
fn quote_style() {
    same(BASE, &BASE.replace('"', "'"));
    same(
        BASE,
        &BASE.replace("\"nothing to send\"", "`nothing to send`"),
    );
    same(
        r#"const r = await mcp.fs.list({}); return r.entries.filter(e => e.type === "file");"#,
        "const r = await mcp.fs.list({}); return r.entries.filter(e => e.type === 'file');",
    );
}

#[test]
fn trailing_commas() {
    same(
        BASE,
        &BASE
            .replace("limit: 10 }", "limit: 10, }")
            .replace("JSON.stringify(active) }", "JSON.stringify(active,), }"),
    );
}

#[test]
fn redundant_parentheses() {
    same(
        BASE,
        &BASE
            .replace(
                "u => u.active && u.score > 50",
                "(u) => ((u.active) && (u.score > 50))",
            )
            .replace("if (active.length > 0)", "if (((active.length) > 0))"),
    );
}

#[test]
fn member_access_spelling() {
    same(
        r#"const r = await mcp.a.b({}); return r.items.map(i => i["name"]);"#,
        "const r = await mcp.a.b({}); return r.items.map(i => i.name);",
    );
}

// ----- sensitivity -------------------------------------------------------------------------

#[test]
fn the_tool() {
    differ(BASE, &BASE.replace("mcp.db.query", "mcp.db.find"));
    differ(BASE, &BASE.replace("mcp.mail.send", "mcp.email.send"));
}

#[test]
fn an_argument_value() {
    differ(BASE, &BASE.replace("limit: 10", "limit: 11"));
    differ(BASE, &BASE.replace("\"users\"", "\"accounts\""));
    differ(BASE, &BASE.replace("nothing to send", "nothing to send!"));
}

#[test]
fn an_argument_name() {
    differ(BASE, &BASE.replace("limit: 10", "max: 10"));
}

#[test]
fn the_source_of_an_argument() {
    let literal = r#"const r = await mcp.a.b({}); await mcp.a.c({ path: "x" });"#;
    let parameter = "const r = await mcp.a.b({}); await mcp.a.c({ path: args.x });";
    let result = "const r = await mcp.a.b({}); await mcp.a.c({ path: r.x });";
    differ(literal, parameter);
    differ(literal, result);
    differ(parameter, result);
    differ(BASE, &BASE.replace("to: args.to", "to: args.from"));
}

#[test]
fn which_result_is_passed() {
    differ(
        "const [a, b] = await Promise.all([mcp.x.y({}), mcp.x.z({})]); await mcp.m.n({ p: a, q: b });",
        "const [a, b] = await Promise.all([mcp.x.y({}), mcp.x.z({})]); await mcp.m.n({ p: b, q: a });",
    );
    differ(
        r#"const f = await mcp.fs.read({ path: "a" }); await mcp.x.y({ text: f.content });"#,
        r#"const f = await mcp.fs.read({ path: "a" }); await mcp.x.y({ text: f.text });"#,
    );
}

#[test]
fn a_condition() {
    differ(
        BASE,
        &BASE.replace("active.length > 0", "active.length >= 0"),
    );
    differ(
        BASE,
        &BASE.replace("active.length > 0", "active.length > 1"),
    );
    differ(
        "const limit = 5; const r = await mcp.a.b({}); if (r.count > limit) { await mcp.a.c({}); }",
        "const limit = 6; const r = await mcp.a.b({}); if (r.count > limit) { await mcp.a.c({}); }",
    );
}

#[test]
fn callback_logic() {
    // The original hash ignored code: these two capabilities collided.
    differ(
        "const r = await mcp.a.b({}); return r.items.filter(u => u.active);",
        "const r = await mcp.a.b({}); return r.items.filter(u => !u.active);",
    );
    differ(
        BASE,
        &BASE.replace("u.active && u.score", "u.active || u.score"),
    );
    differ(BASE, &BASE.replace("u.score > 50", "u.score > 51"));
    differ(
        r#"const r = await mcp.a.b({}); return r.line.split(",");"#,
        r#"const r = await mcp.a.b({}); return r.line.split(";");"#,
    );
}

#[test]
fn the_branch_a_call_sits_in() {
    differ(
        "const r = await mcp.a.check({}); if (r.ok) { await mcp.a.run({}); } else { await mcp.a.log({}); }",
        "const r = await mcp.a.check({}); if (r.ok) { await mcp.a.log({}); } else { await mcp.a.run({}); }",
    );
    differ(
        "const r = await mcp.a.check({}); if (r.ok) { await mcp.a.run({}); }",
        "const r = await mcp.a.check({}); if (r.ok) { } else { await mcp.a.run({}); }",
    );
    differ(
        "const r = await mcp.a.check({}); if (r.ok) { await mcp.a.run({}); } await mcp.a.end({});",
        "const r = await mcp.a.check({}); if (r.ok) { await mcp.a.run({}); await mcp.a.end({}); }",
    );
}

#[test]
fn the_order_of_calls() {
    differ(
        "await mcp.a.one({}); await mcp.a.two({});",
        "await mcp.a.two({}); await mcp.a.one({});",
    );
}

#[test]
fn logic_inside_a_loop() {
    differ(
        "let n = args.count; while (n > 0) { await mcp.a.tick({}); n--; }",
        "let n = args.count; while (n > 0) { await mcp.a.tick({}); n -= 2; }",
    );
}

#[test]
fn arguments_built_in_constants_count() {
    // A template bound to a `const`, then passed: the path differs, so does the hash.
    differ(
        "const dir = `${args.root}/src`;\nawait mcp.fs.list_directory({ path: dir });",
        "const dir = `${args.root}/secrets`;\nawait mcp.fs.list_directory({ path: dir });",
    );
    differ(
        "const dir = args.root;\nawait mcp.fs.list_directory({ path: dir });",
        "const dir = args.home;\nawait mcp.fs.list_directory({ path: dir });",
    );
    differ(
        "const { a } = args;\nconst xs = [...(await mcp.db.q({})).rows, a];\nawait mcp.db.put({ xs });",
        "const { b } = args;\nconst xs = [...(await mcp.db.q({})).rows, b];\nawait mcp.db.put({ xs });",
    );
    // The name of the constant is the program's choice.
    same(
        "const dir = `${args.root}/src`;\nawait mcp.fs.list_directory({ path: dir });",
        "const folder = `${args.root}/src`;\nawait mcp.fs.list_directory({ path: folder });",
    );
    // A parameter under another name is that parameter.
    same(
        "const dir = args.root;\nawait mcp.fs.list_directory({ path: dir });",
        "await mcp.fs.list_directory({ path: args.root });",
    );
    // A `let` never assigned again is a constant.
    differ(
        "let dir = `${args.root}/src`;\nawait mcp.fs.list_directory({ path: dir });",
        "let dir = `${args.root}/secrets`;\nawait mcp.fs.list_directory({ path: dir });",
    );
    same(
        "let dir = `${args.root}/src`;\nawait mcp.fs.list_directory({ path: dir });",
        "const dir = `${args.root}/src`;\nawait mcp.fs.list_directory({ path: dir });",
    );
}

#[test]
fn what_a_helper_calls_counts() {
    differ(
        "const load = async (n) => mcp.db.read({ id: n });\nawait load(1);",
        "const load = async (n) => mcp.db.drop_all({ id: n });\nawait load(1);",
    );
    differ(
        "const load = async (n) => mcp.db.read({ id: n });\nawait load(1);",
        "const load = async (n) => mcp.db.read({ id: n });\nawait load(2);",
    );
    same(
        "const load = async (n) => mcp.db.read({ id: n });\nawait load(1);",
        "const fetchRow = async (rowId) => mcp.db.read({ id: rowId });\nawait fetchRow(1);",
    );
    differ(
        "await mcp.db.list({}).then(r => mcp.db.read({ ids: r.ids }));",
        "await mcp.db.list({}).then(r => mcp.db.remove({ ids: r.ids }));",
    );
}

#[test]
fn methods_that_call_tools_hash_by_meaning() {
    let a = "class A {\n  async load(name) {\n    const f = await mcp.fs.read({ path: name });\n    return f.content.trim();\n  }\n}\nreturn await new A().load(\"x\");\n";
    let renamed = "class A {\n  async load(p) {\n    const file = await mcp.fs.read({path: p}); // read\n    return file.content.trim();\n  }\n}\nreturn await new A().load(\"x\");\n";
    let changed = "class A {\n  async load(p) {\n    const file = await mcp.fs.read({path: p});\n    return file.content.trimEnd();\n  }\n}\nreturn await new A().load(\"x\");\n";
    same(a, renamed);
    differ(a, changed);
    let object = "const api = { async load(name) { return (await mcp.fs.read({ path: name })).content; } };\nreturn api.load(\"x\");\n";
    let object_renamed = "const api = {\n  async load(n) {\n    return (await mcp.fs.read({ path: n })).content;\n  },\n};\nreturn api.load(\"x\");\n";
    let getter =
        "const api = { get load() { return mcp.fs.read({ path: \"x\" }); } };\nreturn api.load;\n";
    same(object, object_renamed);
    differ(object, getter);
}

#[test]
fn a_helper_hashes_alike_as_a_declaration_an_arrow_or_a_function_expression() {
    let declaration = "async function load(name) {\n  return (await mcp.fs.read({ path: name })).content;\n}\nconst a = await load(\"a\");\nreturn await load(a);\n";
    let arrow = "const load = async (name) => {\n  return (await mcp.fs.read({ path: name })).content;\n};\nconst a = await load(\"a\");\nreturn await load(a);\n";
    let concise = "const load = async (p) => (await mcp.fs.read({ path: p })).content;\nconst a = await load(\"a\");\nreturn await load(a);\n";
    let expression = "const load = async function (n) {\n  return (await mcp.fs.read({ path: n })).content;\n};\nconst a = await load(\"a\");\nreturn await load(a);\n";
    same(declaration, arrow);
    same(declaration, concise);
    same(declaration, expression);
    let other = "async function load(name) {\n  return (await mcp.fs.read({ path: name })).content.trim();\n}\nconst a = await load(\"a\");\nreturn await load(a);\n";
    differ(declaration, other);
}

#[test]
fn an_arrow_reading_this_or_arguments_is_no_function() {
    // `arguments` of an arrow is the enclosing function's: as a function it would be its own.
    let arrow = "const n = (a) => arguments.length;\nreturn await mcp.fs.read({ path: String(n(1, 2)) });\n";
    let function = "function n(a) { return arguments.length; }\nreturn await mcp.fs.read({ path: String(n(1, 2)) });\n";
    differ(arrow, function);
    let helper_arrow = "const load = async (n) => (await mcp.fs.read({ path: n + this.root })).content;\nreturn await load(\"a\");\n";
    let helper_function = "async function load(n) { return (await mcp.fs.read({ path: n + this.root })).content; }\nreturn await load(\"a\");\n";
    differ(helper_arrow, helper_function);
}

/// A name of the program with the form of a node id is not that node's result (by
/// construction: the structure writes it `n1$`): `names.slice(n1, 3)` over a variable `n1`
/// and `names.slice(names, 3)` differ, whatever kind of binding `n1` is; renaming such a name
/// changes nothing.
#[test]
fn names_shaped_like_node_ids_are_not_node_results() {
    let over = |name: &str, read: &str| {
        format!(
            "const names = await mcp.fs.list({{}});\nlet {name} = 0;\nfor (const x of args.xs) {name} += x;\nreturn names.slice({read}, 3);\n"
        )
    };
    differ(&over("n1", "n1"), &over("n1", "names"));
    differ(&over("d1", "d1"), &over("d1", "names"));
    same(&over("n1", "n1"), &over("count", "count"));
    // A parameter of a helper, and a constant.
    differ(
        "const names = await mcp.fs.list({});\nfunction pick(n1) { return names.slice(n1, 3); }\nreturn pick(args.k);",
        "const names = await mcp.fs.list({});\nfunction pick(n1) { return names.slice(names, 3); }\nreturn pick(args.k);",
    );
    same(
        "const names = await mcp.fs.list({});\nconst n1 = 2;\nreturn names.slice(n1, 3);",
        "const names = await mcp.fs.list({});\nconst start = 2;\nreturn names.slice(start, 3);",
    );
}

/// Keys are typed: a computed key counts as its expression (renaming the variable it reads
/// changes nothing, reading another value does), a string key that looks like a spread is a
/// key, and where a spread stands among the keys counts.
#[test]
fn computed_keys_and_spreads_are_keys_of_their_own() {
    let keyed = |name: &str, key: &str| {
        format!("const {name} = await mcp.a.b({{}});\nawait mcp.c.d({{ [{key}]: 1, x: 2 }});\n")
    };
    same(&keyed("k", "k.id"), &keyed("row", "row.id"));
    differ(&keyed("k", "k.id"), &keyed("k", "k.name"));
    differ(&keyed("k", "k.id"), &keyed("k", "args.id"));
    // A computed key that folds is the key it folds to.
    same(
        "await mcp.c.d({ [\"a\" + 1]: 1 });",
        "await mcp.c.d({ a1: 1 });",
    );
    // `"...k": 1` is a key; `...k` spreads `k`.
    differ(
        "const k = await mcp.a.b({});\nawait mcp.c.d({ \"...k\": k });",
        "const k = await mcp.a.b({});\nawait mcp.c.d({ ...k });",
    );
    // What overrides what.
    differ(
        "const k = await mcp.a.b({});\nawait mcp.c.d({ x: 1, ...k });",
        "const k = await mcp.a.b({});\nawait mcp.c.d({ ...k, x: 1 });",
    );
}

/// Found in review of the builder's printings (hash v7): a name standing for an expression
/// binds as that expression does; a key's line separator is not whitespace to collapse; a
/// constant read in a function's code counts as its value whatever its name.
#[test]
fn printings_keep_precedence_separators_and_constants() {
    differ(
        "const a = await mcp.s.get({});\nconst t = a.ok ? a.x : a.y;\nconst u = t;\nawait mcp.s.put({ v: u + 1 });",
        "const a = await mcp.s.get({});\nawait mcp.s.put({ v: a.ok ? a.x : a.y + 1 });",
    );
    same(
        "const a = await mcp.s.get({});\nconst t = a.ok ? a.x : a.y;\nconst u = t;\nawait mcp.s.put({ v: u + 1 });",
        "const a = await mcp.s.get({});\nawait mcp.s.put({ v: (a.ok ? a.x : a.y) + 1 });",
    );
    differ(
        "const a = await mcp.s.get({});\nconst v = a[\"x\\u2028y\"];\nawait mcp.s.put({ v });",
        "const a = await mcp.s.get({});\nconst v = a[\"x y\"];\nawait mcp.s.put({ v });",
    );
    let constant = |name: &str| {
        format!("const {name} = 5;\nasync function f() {{ await mcp.s.t({{ v: {name} }}); }}\nawait f();")
    };
    same(&constant("k"), &constant("n1"));
    differ(
        &constant("k"),
        "const k = 6;\nasync function f() { await mcp.s.t({ v: k }); }\nawait f();",
    );
}

/// Statement labels are the program's names: renaming them changes nothing, which loop a
/// `break` leaves does.
#[test]
fn labels_count_by_place_not_name() {
    let nested = |outer: &str, inner: &str, target: &str| {
        format!(
            "const xs = await mcp.fs.list({{}});\nlet n = 0;\n{outer}: for (const x of xs) {{\n  {inner}: for (const y of x.items) {{\n    if (y.stop) break {target};\n    n += y.size;\n  }}\n  await mcp.fs.read({{ path: x.path }});\n}}\nreturn n;"
        )
    };
    same(&nested("outer", "inner", "outer"), &nested("a", "b", "a"));
    differ(
        &nested("outer", "inner", "outer"),
        &nested("outer", "inner", "inner"),
    );
}

/// A switch case that is no constant counts by its printing: renaming the variable it reads
/// changes nothing (its outcome's text, `case:` + the program's name, did), reading another
/// value does.
#[test]
fn switch_cases_count_by_their_printing() {
    let program = |name: &str, case: &str| {
        format!(
            "let {name} = args.first;\nfor (const x of args.xs) {name} = x;\nconst r = await mcp.fs.read({{ path: \"a\" }});\nswitch (r.kind) {{\n  case {case}:\n    await mcp.fs.write({{ path: \"b\" }});\n    break;\n  case \"other\":\n    await mcp.fs.write({{ path: \"c\" }});\n}}\n"
        )
    };
    same(&program("wanted", "wanted"), &program("target", "target"));
    differ(
        &program("wanted", "wanted"),
        &program("wanted", "args.first"),
    );
}

/// Statements that make no node (hash v8, found running the original's test programs): what a
/// branch returns or throws, what the program assigns or changes in place, what it logs, a
/// `let`'s first value. Two programs differing there are two capabilities; renaming and
/// reformatting them still changes nothing.
#[test]
fn what_statements_without_nodes_do_counts() {
    let read = "const r = await mcp.s.t({});\n";
    let pairs: &[(&str, &str)] = &[
        (
            "if (!r.ok) return \"a\";\nreturn r.v;",
            "if (!r.ok) return \"b\";\nreturn r.v;",
        ),
        (
            "if (!r.ok) throw new Error(\"a\");\nreturn r.v;",
            "if (!r.ok) throw new Error(\"b\");\nreturn r.v;",
        ),
        (
            "try { return r.a; } catch { return null; }",
            "try { return r.b; } catch { return null; }",
        ),
        (
            "let s = \"x\";\nif (r.ok) { s = \"y\"; }\nawait mcp.s.u({ s });",
            "let s = \"x\";\nif (r.ok) { s = \"z\"; }\nawait mcp.s.u({ s });",
        ),
        (
            "let s = \"x\";\nif (r.ok) { s = \"y\"; }\nawait mcp.s.u({ s });",
            "let s = \"w\";\nif (r.ok) { s = \"y\"; }\nawait mcp.s.u({ s });",
        ),
        (
            "const out = [];\nif (r.ok) out.push(1);\nreturn out;",
            "const out = [];\nif (r.ok) out.push(2);\nreturn out;",
        ),
        (
            "const o = { a: 1 };\no.a = r.x;\nreturn o;",
            "const o = { a: 1 };\no.a = r.y;\nreturn o;",
        ),
        ("delete r.a;\nreturn r;", "delete r.b;\nreturn r;"),
        (
            "console.log(\"a\");\nreturn r;",
            "console.log(\"b\");\nreturn r;",
        ),
        (
            "switch (r.k) { case 1: return \"a\"; default: return \"b\"; }",
            "switch (r.k) { case 1: return \"c\"; default: return \"b\"; }",
        ),
        (
            "let s;\ntry { s = r.a.b; } catch { s = 1; }\nreturn s;",
            "let s;\ntry { s = r.a.b; } catch { s = 2; }\nreturn s;",
        ),
        // Which name a call reads.
        (
            "let s = \"x\";\nlet t = \"w\";\ns = s + t;\nawait mcp.s.u({ s });",
            "let s = \"x\";\nlet t = \"w\";\nt = s + t;\nawait mcp.s.u({ s: t });",
        ),
    ];
    for (a, b) in pairs {
        differ(&format!("{read}{a}"), &format!("{read}{b}"));
    }
    same(
        "const r = await mcp.s.t({});\nif (!r.ok) return \"a\";\nlet s = \"x\";\nif (r.n) { s = \"y\"; }\nreturn s + r.v;",
        "const res = await mcp.s.t({});\nif (!res.ok) {\n  return 'a';\n}\nlet msg = 'x';\nif (res.n) msg = 'y';\nreturn msg + res.v;",
    );
}

/// A program in which the structure holds nothing (no node, no effect, no result) is hashed
/// by its own canonical printing (the original's `hashCode` tests: `const x = 1;` and
/// `const x = 2;` differ), still blind to names and presentation.
#[test]
fn programs_the_structure_holds_nothing_of_count_as_printed() {
    differ("const x = 1;", "const x = 2;");
    same("const x = 1;", "const   y = 1 // one\n");
    differ("const a = 1;", "const b = 2;");
}
