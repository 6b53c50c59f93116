//! `parameterize`: the original system's literal parameterization (`transformLiteralsToArgs`,
//! its tests re-expressed here), with shadowing, conflicts and the parameters' schema.

use pml_structure::{parameterize, Dialect, ParameterizeReturn};
use serde_json::{json, Value};

fn p(code: &str) -> ParameterizeReturn {
    let out = parameterize(code, Dialect::TypeScript);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    // The rewritten program still parses.
    let again = parameterize(&out.code, Dialect::TypeScript);
    assert!(again.diagnostics.is_empty(), "{}", out.code);
    out
}

fn property(out: &ParameterizeReturn, name: &str) -> Value {
    out.schema["properties"][name].clone()
}

#[test]
fn a_constant_becomes_a_parameter_and_its_declaration_goes() {
    let out = p("const token = \"sk-secret-123\";\nawait mcp.api.call({ auth: token });");
    assert_eq!(out.code, "await mcp.api.call({ auth: args.token });");
    assert_eq!(out.parameters["token"], json!("sk-secret-123"));
    assert_eq!(property(&out, "token")["type"], "string");
}

#[test]
fn several_constants_with_their_types() {
    let out = p("const apiKey = \"key-123\";\nconst limit = 100;\nconst ratio = 0.5;\nawait mcp.api.search({ key: apiKey, max: limit, r: ratio });");
    assert_eq!(
        out.code,
        "await mcp.api.search({ key: args.apiKey, max: args.limit, r: args.ratio });"
    );
    assert_eq!(property(&out, "apiKey")["type"], "string");
    assert_eq!(property(&out, "limit")["type"], "integer");
    assert_eq!(property(&out, "limit")["examples"], json!([100]));
    assert_eq!(property(&out, "ratio")["type"], "number");
}

#[test]
fn arrays_multi_line_ones_included() {
    let out = p("const numbers = [1, 2, 3];\nconst result = numbers.filter(n => n > 1);");
    assert_eq!(out.code, "const result = args.numbers.filter(n => n > 1);");
    assert_eq!(
        property(&out, "numbers"),
        json!({"type": "array", "items": {"type": "number"}})
    );

    let out = p("const items = [\n  { name: \"first\", value: 1 },\n  { name: \"second\", value: 2 }\n];\nfor (const item of items) {\n  await mcp.api.process({ data: item });\n}");
    assert!(
        out.code.starts_with("for (const item of args.items)"),
        "{}",
        out.code
    );
    assert_eq!(out.parameters["items"][1]["name"], json!("second"));
    assert_eq!(property(&out, "items")["type"], "array");
}

#[test]
fn nothing_to_parameterize_leaves_the_code_as_it_is() {
    let code = "await mcp.api.call({ data: args.existing });";
    let out = p(code);
    assert_eq!(out.code, code);
    assert!(out.parameters.is_empty());
    // What it reads of `args` is in the schema: read without asking whether it is there,
    // required; nothing says its type.
    assert_eq!(out.schema["properties"], json!({"existing": {}}));
    assert_eq!(out.schema["required"], json!(["existing"]));
}

/// What the uses of a name say of it (the original's `schema_inferrer_test.ts`, and more): its
/// type, and whether it is required (read without asking whether it is there).
#[test]
fn the_schema_says_what_the_uses_of_args_say() {
    for (code, properties, required) in [
        ("const t = args.config.timeout;", json!({"config": {"type": "object"}}), json!(["config"])),
        ("const t = args.a.b.c.d.e;", json!({"a": {"type": "object"}}), json!(["a"])),
        ("if (args.debug === true) { console.log(1); }", json!({"debug": {"type": "boolean"}}), json!(["debug"])),
        ("if (args.count > 0) { console.log(1); }", json!({"count": {"type": "number"}}), json!(["count"])),
        ("const n = args.items.length;", json!({"items": {"type": "array"}}), json!(["items"])),
        ("const l = args.name.toLowerCase();", json!({"name": {"type": "string"}}), json!(["name"])),
        ("const v = args?.optional;", json!({"optional": {}}), json!([])),
        ("const v = args.required;", json!({"required": {}}), json!(["required"])),
        ("const t = args.config?.timeout;", json!({"config": {"type": "object"}}), json!([])),
        (
            "const r = args.count > 0 && args.name.toUpperCase() && args.enabled === true;",
            json!({"count": {"type": "number"}, "name": {"type": "string"}, "enabled": {"type": "boolean"}}),
            json!(["count", "name", "enabled"]),
        ),
        // Asking whether it is there makes it optional.
        (
            "const r = args.root ?? '/w';\nconst n = Number(args.limit) || 5;\nif (!args.dry) {}\nconst t = typeof args.t;\nconst k = 'k' in args;\nconst { d = 1 } = args;",
            json!({"root": {}, "limit": {}, "dry": {}, "t": {}, "k": {}, "d": {}}),
            json!([]),
        ),
        // Iterated, an array; `length` beside a string method, a string; uses that disagree,
        // nothing.
        (
            "for (const f of args.files) {}\nconst s = args.s.length + args.s.trim().length;\nconst m = args.m * 2 + args.m.toUpperCase().length;",
            json!({"files": {"type": "array"}, "s": {"type": "string"}, "m": {}}),
            json!(["files", "s", "m"]),
        ),
    ] {
        let out = p(code);
        assert_eq!(out.schema["properties"], properties, "{code}");
        assert_eq!(out.schema["required"], required, "{code}");
    }
}

/// The schema lists every name the program reads of `args`, lifted literals first, and is
/// closed to other names when the program reads `args` by name only.
#[test]
fn the_schema_lists_what_the_program_reads_of_args() {
    let out = p("const { root, depth: d = 2 } = args;\nconst limit = args.limit ?? 3;\nconst r = await mcp.fs.list({ path: root + args[\"sub\"], mode: \"fast\" });\nreturn { r, d, limit, again: args?.limit };");
    let properties: Vec<&String> = out.schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["mode", "root", "depth", "limit", "sub"]);
    // `depth` has a default, `limit` a fallback and an optional read: not required.
    assert_eq!(out.schema["required"], json!(["mode", "root", "sub"]));
    assert_eq!(out.schema["additionalProperties"], json!(false));
    // `args` passed on whole (or spread, or read by a computed name) may read any name.
    for code in [
        "await mcp.fs.list({ path: args.root, all: args });",
        "const o = { ...args };\nreturn [o.root, args.root];",
        "const k = 'root';\nreturn [args[k], args.root];",
        "const { root, ...rest } = args;\nreturn [root, rest];",
    ] {
        let out = p(code);
        assert!(out.schema.get("additionalProperties").is_none(), "{code}");
        assert!(out.schema["properties"].get("root").is_some(), "{code}");
    }
}

#[test]
fn existing_parameters_are_kept_and_never_reused_for_another_value() {
    let out = p("const extra = \"value\";\nawait mcp.api.call({ existing: args.param, new: extra, param: \"x\" });");
    assert_eq!(
        out.code,
        "await mcp.api.call({ existing: args.param, new: args.extra, param: args.param2 });"
    );
}

#[test]
fn the_schema_requires_every_parameter_and_gives_booleans_a_default() {
    let out = p("const token = \"abc\";\nconst debug = true;\nawait mcp.api.call({ auth: token, verbose: debug });");
    assert_eq!(out.schema["required"], json!(["token", "debug"]));
    assert_eq!(
        property(&out, "debug"),
        json!({"type": "boolean", "default": true})
    );
    assert_eq!(out.schema["type"], "object");
    assert_eq!(
        out.schema["$schema"],
        "http://json-schema.org/draft-07/schema#"
    );
}

#[test]
fn code_that_does_not_parse_is_left_alone_with_diagnostics() {
    let code = "const x = {{{ // invalid";
    let out = parameterize(code, Dialect::TypeScript);
    assert_eq!(out.code, code);
    assert!(out.parameters.is_empty());
    assert_eq!(out.diagnostics[0].code, "syntax-error");
}

#[test]
fn values_are_kept_as_examples() {
    let out = p("const path = \"/api/users\";\nawait mcp.http.get({ url: path });");
    assert_eq!(out.parameters["path"], json!("/api/users"));
    assert_eq!(property(&out, "path")["examples"], json!(["/api/users"]));
    // Long strings are no examples.
    let long = "x".repeat(120);
    let out = p(&format!("await mcp.http.post({{ body: \"{long}\" }});"));
    assert_eq!(property(&out, "body"), json!({"type": "string"}));
}

#[test]
fn inline_literals_of_mcp_calls_are_discovered() {
    let out = p("await mcp.db.query({ host: \"localhost\", query: \"SELECT 1\" });");
    assert_eq!(
        out.code,
        "await mcp.db.query({ host: args.host, query: args.query });"
    );
    let out = p("await mcp.db.connect({ port: 5432, timeout: 30 });");
    assert_eq!(property(&out, "port")["type"], "integer");
    let out = p("await mcp.std.psql_query({\n  host: \"localhost\",\n  port: 5432,\n  database: \"casys\",\n  user: \"casys\",\n  password: \"changeme\",\n  query: \"SELECT * FROM users\"\n});");
    assert!(!out.code.contains("changeme"));
    assert_eq!(out.parameters.len(), 6);
    assert_eq!(out.parameters["user"], json!("casys"));
    // Several calls: each property once per value; the same name with another value is
    // another parameter.
    let out = p("const r1 = await mcp.std.cap_rename({ name: \"old:name\", newName: \"new:name\" });\nconst r2 = await mcp.fs.read_file({ path: \"/tmp/test.txt\" });\nconst r3 = await mcp.fs.read_file({ path: \"/tmp/other.txt\" });\nconst r4 = await mcp.fs.read_file({ path: \"/tmp/test.txt\" });");
    assert_eq!(
        out.parameters.keys().collect::<Vec<_>>(),
        ["name", "newName", "path", "path2"]
    );
    assert!(out
        .code
        .ends_with("r4 = await mcp.fs.read_file({ path: args.path });"));
}

#[test]
fn templates_that_are_not_code_are_one_parameter_and_code_templates_are_parameterized_inside() {
    let out = p("const result = await mcp.postgres.query({\n  query: `SELECT * FROM users WHERE id = 1`\n});");
    assert_eq!(
        out.parameters["query"],
        json!("SELECT * FROM users WHERE id = 1")
    );
    let out = p("await mcp.playwright.browser_run_code({\n  code: `async (page) => {\n    await page.goto('http://localhost:8081/dashboard');\n    return texts.slice(0, 100).join(' | ');\n  }`\n});");
    assert_eq!(
        out.parameters["url"],
        json!("http://localhost:8081/dashboard")
    );
    assert!(
        out.code.contains("page.goto('${args.url}')"),
        "{}",
        out.code
    );
    assert_eq!(out.parameters["separator"], json!(" | "));
}

#[test]
fn shadowed_names_are_left_alone() {
    // Loop variables (for-of, for-in, for), callback and function parameters, catch bindings.
    let out = p("const file = \"README.md\";\nconst files = [\"a.txt\", \"b.txt\"];\nawait mcp.fs.read({ path: file });\nfor (const file of files) {\n  await mcp.fs.read({ path: file });\n}\nawait mcp.fs.write({ target: file });");
    assert_eq!(
        out.code,
        "await mcp.fs.read({ path: args.file });\nfor (const file of args.files) {\n  await mcp.fs.read({ path: file });\n}\nawait mcp.fs.write({ target: args.file });"
    );
    let out = p("const key = \"defaultKey\";\nconst obj = { a: 1, b: 2 };\nfor (const key in obj) {\n  console.log(key, obj[key]);\n}");
    assert!(
        out.code.contains("console.log(key, args.obj[key])"),
        "{}",
        out.code
    );
    let out = p("const i = 10;\nfor (let i = 0; i < 5; i++) {\n  await mcp.log.write({ index: i });\n}\nconst last = i;");
    assert!(
        out.code.contains("for (let i = 0; i < 5; i++)"),
        "{}",
        out.code
    );
    assert!(out.code.contains("index: i }"), "{}", out.code);
    assert!(out.code.ends_with("const last = args.i;"), "{}", out.code);
    let out = p("const item = \"default\";\nconst items = [\"a\", \"b\"];\nconst results = items.map(item => item.toUpperCase());");
    assert_eq!(
        out.code,
        "const results = args.items.map(item => item.toUpperCase());"
    );
    let out = p("const data = \"outer\";\nfunction process(data) {\n  return data.trim();\n}\nconst result = process(data);");
    assert!(out.code.contains("return data.trim();"), "{}", out.code);
    assert!(out.code.ends_with("process(args.data);"), "{}", out.code);
    let out = p("const error = \"default error\";\ntry {\n  throw new Error(\"test\");\n} catch (error) {\n  console.log(error.message);\n}");
    assert!(
        out.code.contains("console.log(error.message)"),
        "{}",
        out.code
    );
}

#[test]
fn constants_assigned_again_stay_and_fail_as_they_did() {
    // `total += n` throws in the program: as a parameter it would not (or read nothing).
    let out = p("const total = 0;\nfor (const n of [1]) total += n;\nawait mcp.a.b({ total });");
    assert!(out.code.starts_with("const total = 0;"), "{}", out.code);
    let out = p("const seen = 0;\nseen++;\nconst [first] = [1];\n[first] = [2];");
    assert!(out.code.starts_with("const seen = 0;"), "{}", out.code);
    assert!(out.parameters.is_empty(), "{:?}", out.parameters);
    // Another name that only looks the same is no write to it.
    let out = p("const i = 10;\nfor (let i = 0; i < 2; i++) {}\nconst last = i;");
    assert!(out.code.ends_with("const last = args.i;"), "{}", out.code);
}

#[test]
fn constants_changed_in_place_or_holding_code_stay() {
    let out = p("const xs = [1];\nxs.push(2);\nawait mcp.a.b({ xs });");
    assert!(out.code.starts_with("const xs = [1];"), "{}", out.code);
    let out = p("const shorthand = \"v\";\nawait mcp.a.b({ shorthand });");
    assert_eq!(out.code, "await mcp.a.b({ shorthand: args.shorthand });");
}
