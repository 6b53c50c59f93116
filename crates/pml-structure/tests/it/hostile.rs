//! Inputs built to break the builder: it must answer (structure or diagnostics), never panic,
//! overflow the stack or take quadratic time.

use pml_structure::{build_structure, diagnostics, BuildOptions, Dialect, Severity};

fn build(code: &str) -> pml_structure::StaticStructure {
    build_structure(code, &BuildOptions::default()).structure
}

#[test]
fn twenty_thousand_nested_parentheses() {
    let code = format!(
        "const x = {}args.a{};\nawait mcp.s.t({{ x }});",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    let s = build(&code);
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
    assert_eq!(s.nodes.len(), 1);
}

/// Function and loop nodes each hold their whole text, so nesting copies a program's text once
/// per level: `function f(){` nested 10,000 deep in 140 KB took 4 GB to hash. Past 32 times
/// the program's size the walk stops and the structure is refused; 40 levels around a whole
/// program still build.
#[test]
fn deeply_nested_functions_and_loops_are_refused_before_they_copy_their_texts() {
    for code in [
        format!("{}{}", "function f(){".repeat(3_000), "}".repeat(3_000)),
        format!("{};", "for(;;) ".repeat(3_000)),
        format!("{};", "while (args.x) ".repeat(3_000)),
        format!(
            "{}await mcp.s.t({{}});{}",
            "args.xs.forEach(async (x) => { ".repeat(3_000),
            "});".repeat(3_000)
        ),
    ] {
        let started = std::time::Instant::now();
        let s = build_structure(&code, &BuildOptions::default()).structure;
        assert!(s.nodes.is_empty(), "{}", &code[..40]);
        let d = &s.diagnostics[0];
        assert_eq!(
            (d.severity, d.code.as_str()),
            (Severity::Error, diagnostics::TOO_DEEP),
            "{}",
            &code[..40]
        );
        assert!(started.elapsed().as_secs() < 30, "{}", &code[..40]);
    }
    let code = format!(
        "{}await mcp.s.t({{}});{}",
        "for (const x of args.xs) { ".repeat(20),
        "}".repeat(20)
    );
    let s = build(&code);
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
}

#[test]
fn five_thousand_nested_ifs() {
    let mut code = String::new();
    for i in 0..5_000 {
        code.push_str(&format!("if (args.a{i}) {{\n"));
    }
    code.push_str("await mcp.s.t({});\n");
    code.push_str(&"}\n".repeat(5_000));
    let s = build(&code);
    assert!(!s.has_errors());
    assert_eq!(s.nodes.len(), 5_001);
    assert_eq!(s.nodes.last().unwrap().id, "n1");
}

#[test]
fn fifty_thousand_nested_ternaries_are_linear() {
    // Used to take over a minute (scope lookups and column counting were per level).
    let code = format!("x = {}b{};", "a ? ".repeat(50_000), " : c".repeat(50_000));
    let s = build(&code);
    assert!(!s.has_errors());
}

#[test]
fn ten_megabyte_string_literal() {
    let code = format!(
        "const s = \"{}\";\nawait mcp.s.t({{ s }});",
        "a".repeat(10 << 20)
    );
    let s = build(&code);
    assert!(!s.has_errors());
    assert_eq!(s.nodes.len(), 1);
}

#[test]
fn nesting_beyond_the_limit_is_refused_with_a_diagnostic() {
    let depth = pml_structure::MAX_NESTING + 1;
    let code = format!("x = {}1{};", "[".repeat(depth), "]".repeat(depth));
    let s = build(&code);
    assert_eq!(s.diagnostics.len(), 1);
    assert_eq!(s.diagnostics[0].code, diagnostics::TOO_DEEP);
    assert_eq!(s.diagnostics[0].severity, Severity::Error);
}

#[test]
fn deep_literal_arrays_are_not_folded_into_deep_json() {
    let code = format!("const x = {}1{};", "[".repeat(90_000), "]".repeat(90_000));
    let s = build(&code);
    assert!(!s.has_errors());
    assert!(s.literal_bindings.is_empty());
    // Serialising must not recurse 90,000 levels.
    serde_json::to_string(&s).unwrap();
}

/// A large program is parsed in two halves on two threads: deep nesting in the second half is
/// parsed (and walked, and checked for coverage) on the helper thread, whose stack must hold it
/// like the main one; the result is what one thread builds.
#[test]
fn deep_nesting_in_the_half_parsed_by_the_helper_thread() {
    let calls = "await mcp.s.t({});\n".repeat(10_000);
    let deep = format!("const x = {}1{};\n", "[".repeat(60_000), "]".repeat(60_000));
    let code = format!("{calls}{deep}await mcp.s.u({{}});\n");
    // The cut falls among the calls, so the deep statement is in the second half.
    assert!(calls.len() > code.len() / 2 && code.len() > 128 * 1024);
    let two = build(&code);
    assert!(!two.has_errors(), "{:?}", two.diagnostics);
    assert_eq!(two.nodes.len(), 10_001);
    let one = build_structure(
        &code,
        &BuildOptions {
            one_thread: true,
            ..Default::default()
        },
    )
    .structure;
    assert_eq!(
        serde_json::to_string(&one).unwrap(),
        serde_json::to_string(&two).unwrap()
    );
}

#[test]
fn binary_garbage_and_lone_surrogate_escapes() {
    let bytes: Vec<u8> = (0..50_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    for dialect in [Dialect::TypeScript, Dialect::JavaScript] {
        let s = build_structure(
            &text,
            &BuildOptions {
                dialect,
                ..Default::default()
            },
        )
        .structure;
        assert!(s.has_errors());
        assert!(s.nodes.is_empty());
    }
    let s = build(r#"await mcp.s.t({ x: "\uD800" });"#);
    assert!(!s.has_errors());
}

#[test]
fn code_that_closes_the_wrapper_is_an_error() {
    let s = build("await mcp.a.b({}); } function evil() {");
    assert!(s.has_errors());
    assert!(s.nodes.is_empty());
}

#[test]
fn positions_on_non_ascii_lines_count_characters() {
    let s = build("const é = \"ü\"; const x = ;");
    assert_eq!(s.diagnostics[0].line, Some(1));
    assert_eq!(s.diagnostics[0].column, Some(26));
}

#[test]
fn typescript_backtracking_patterns_are_refused_quickly() {
    // Each of these took SWC's TypeScript parser more than 10 s at 24 repetitions (exponential).
    for pattern in ["<a>(", "(<a>", "f(<a>", "f<("] {
        let code = format!("x = {};", pattern.repeat(24));
        let started = std::time::Instant::now();
        let s = build(&code);
        assert!(s.has_errors(), "{pattern}");
        assert_eq!(s.diagnostics[0].code, diagnostics::TOO_DEEP, "{pattern}");
        // Not a timing goal: a guard against hanging (the budget is generous for debug builds).
        assert!(started.elapsed().as_secs() < 30, "{pattern}");
    }
    // Found by fuzzing `parameterize`: 11 levels, 174 bytes, 1.2 s to parse at the old limit.
    let fuzzed = "yp<( s2rinfsufc=fp<(rinfsufc=fp<((striclassnufc=fp<(rinfsufc=fp<((striclassnfsugp<((striclassnufc=fp<(rinfsufc=fp<((striclassnfsugc=(st=<(ayp=fp<((striclassnfsufsort(<(\"p*yar";
    let started = std::time::Instant::now();
    let s = build(fuzzed);
    assert_eq!(s.diagnostics[0].code, diagnostics::TOO_DEEP);
    assert!(started.elapsed().as_secs() < 30);
    // Ordinary comparisons and generics in nested calls are fine.
    let s = build("const r = f(a < b, g(c < d, h<number>(e < f)));");
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
}

#[test]
fn doubling_constants_stop_folding_at_the_size_limit() {
    // Found by the fuzzer: 40 doublings of a string is a terabyte.
    let mut code = String::from("const a0 = \"xx\";\n");
    for i in 1..40 {
        code.push_str(&format!("const a{i} = a{} + a{};\n", i - 1, i - 1));
    }
    code.push_str("const arr0 = [1, 2];\n");
    for i in 1..40 {
        code.push_str(&format!("const arr{i} = [arr{}, arr{}];\n", i - 1, i - 1));
    }
    let s = build(&code);
    assert!(!s.has_errors());
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.len() < 1 << 20, "{} bytes", json.len());
}

#[test]
fn parameterize_survives_deep_nesting() {
    // Found by the fuzzer: parameterize parsed on the caller's stack and overflowed.
    let code = format!("const x = {}1{};", "(".repeat(20_000), ")".repeat(20_000));
    let ret = pml_structure::parameterize(&code, Dialect::TypeScript);
    assert!(ret.diagnostics.is_empty(), "{:?}", ret.diagnostics);
    assert_eq!(ret.code, code);
}

#[test]
fn deep_nesting_inside_a_code_template_is_parsed_on_enough_stack() {
    // Found by the fuzzer: the code inside a string is parsed with a stack sized per byte of
    // it; 6 KiB/byte was not enough for `((((...` in a build with larger frames.
    for inner in ["((((", "(async (a = ("] {
        let depth = 7_000 / inner.len();
        let nested = format!(
            "{}1{}",
            inner.repeat(depth),
            ")".repeat(depth * inner.matches('(').count())
        );
        let template =
            format!("async (page) => {{ await page.goto('https://x.y'); return {nested}; }}");
        let code = format!("await mcp.playwright.run({{ code: `{template}` }});");
        let ret = pml_structure::parameterize(&code, Dialect::TypeScript);
        assert!(ret.diagnostics.is_empty(), "{:?}", ret.diagnostics);
        let s = build(&code);
        assert!(!s.has_errors(), "{:?}", s.diagnostics);
    }
}

#[test]
fn unbracketed_nesting_is_bounded_by_the_operator_limit() {
    // Found by the fuzzer: 20,000,000 `!` overflowed even the 4 GiB stack (no brackets).
    let code = format!(
        "const x = {}a;",
        "!".repeat(pml_structure::MAX_OPERATORS + 1)
    );
    let s = build(&code);
    assert_eq!(s.diagnostics[0].code, diagnostics::TOO_DEEP);
    let code = format!("x = {}b{};", "a ? ".repeat(600_000), " : c".repeat(600_000));
    assert_eq!(build(&code).diagnostics[0].code, diagnostics::TOO_DEEP);
}

#[test]
fn deep_guard_chains_and_wide_promise_all_stay_linear() {
    // Found by the fuzzer: `a && (a && (... mcp ...))` re-scanned the right side per level,
    // and joining a 40,000-branch Promise.all compared every incoming path with every other.
    let code = format!(
        "{}await mcp.a.b({{}}){};",
        "a && (".repeat(20_000),
        ")".repeat(20_000)
    );
    let s = build(&code);
    assert!(!s.has_errors());
    assert_eq!(s.nodes.iter().filter(|n| n.is_mcp()).count(), 1);
    let items: Vec<String> = (0..20_000)
        .map(|i| format!("mcp.fs.read({{ n: {i} }})"))
        .collect();
    let code = format!("await Promise.all([{}]);", items.join(","));
    let s = build(&code);
    assert!(!s.has_errors());
    assert_eq!(s.nodes.len(), 20_002);
}

#[test]
fn statements_that_make_no_node_do_not_multiply_the_paths_between_two_calls() {
    // A `try` whose block and handler make no node reaches what follows by both: the paths
    // pending were kept twice, so each such statement doubled them (25 of them took 3 GiB).
    // Every form that joins paths, each 200 times between two calls: one edge between them.
    let forms = [
        "try { v = f(1); } catch (e) { g(e); }",
        "try { v = f(1); } catch { } finally { h(); }",
        "try { v = f(1); } finally { }",
        "a: { if (v) break a; g(); }",
        "switch (v) { case 1: g(); break; case 2: default: h(); }",
        "if (v) { g(); } else { h(); }",
        "v = v ? f(1) : g(2);",
        "for (const x of xs) { if (x) continue; g(x); }",
    ];
    for form in forms {
        let code = format!(
            "let v;\nconst a = await mcp.s.a({{}});\n{}await mcp.s.b({{ a }});\n",
            format!("{form}\n").repeat(200)
        );
        let s = build(&code);
        assert!(!s.has_errors(), "{form}: {:?}", s.diagnostics);
        let calls: Vec<&str> = (s.nodes.iter())
            .filter(|n| n.is_mcp())
            .map(|n| n.id.as_str())
            .collect();
        assert_eq!(calls.len(), 2, "{form}");
        let into_b = s.edges.iter().filter(|e| e.to == calls[1]).count();
        assert!(
            (1..=3).contains(&into_b),
            "{form}: {into_b} edges into the second call"
        );
    }
}
