//! Inputs built to break the hasher: it must answer, never panic or overflow the stack.

use indexmap::IndexMap;
use pml_hash::{canonical_form, normalize_code, normalize_variable_names, semantic_hash};
use pml_structure::{ArgumentValue, Arguments, Node, NodeKind, Span, StaticStructure};
use serde_json::Value;

/// Run `f` on a thread with a `kib` KiB stack (a caller with a small stack).
fn on_stack<R: Send>(kib: usize, f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(kib << 10)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

/// A structure with `text` as task code, condition, reference and loop code.
fn structure_with(text: &str) -> StaticStructure {
    let mut code = Node::new("n1".into(), NodeKind::Task, Span::default());
    code.tool = Some("code:map".into());
    code.code = Some(text.into());
    code.arguments = Some(Arguments::from_iter([(
        "x".into(),
        ArgumentValue::reference(text),
    )]));
    let mut decision = Node::new("d1".into(), NodeKind::Decision, Span::default());
    decision.condition = Some(text.into());
    let mut lp = Node::new("l1".into(), NodeKind::Loop, Span::default());
    lp.code = Some(text.into());
    StaticStructure {
        nodes: vec![code, decision, lp],
        ..Default::default()
    }
}

/// Programs at most `n` deep in every way the syntax nests.
fn deep_texts(n: usize) -> Vec<String> {
    vec![
        format!("{}x", "!".repeat(n)),
        format!("{}x", "~".repeat(n)),
        format!("{}X{}", "(".repeat(n), ")".repeat(n)),
        format!("{}{}", "[".repeat(n), "]".repeat(n)),
        format!("{}{}", "{".repeat(n), "}".repeat(n)),
        format!("X{}", ".Y".repeat(n)),
        format!("X{}", "+Y".repeat(n)),
        format!("X{}", "**Y".repeat(n)),
        format!("X{}", "(Y)".repeat(n)),
        format!("{}X", "typeof ".repeat(n)),
        format!("{}X", "await ".repeat(n)),
        format!("{}X()", "new ".repeat(n)),
        format!("{}x", "x=>".repeat(n)),
        format!("{}Y{}", "`${".repeat(n), "}`".repeat(n)),
        format!("{}Y", "A?B:".repeat(n)),
        format!("{}X;", "if(A)".repeat(n)),
        format!("{}X;", "while(A)".repeat(n)),
        format!("{}X;", "for(;;)".repeat(n)),
        format!("{}X{}", "function(){".repeat(n), "}".repeat(n)),
        format!("X{}", "=Y".repeat(n)),
        format!("X{}", ",Y".repeat(n)),
        format!("X{}", "?.Y".repeat(n)),
        format!("{}X{}", "[A,".repeat(n), "]".repeat(n)),
    ]
}

#[test]
fn deep_texts_run_on_a_dedicated_stack() {
    for text in deep_texts(20_000) {
        on_stack(256, || {
            let s = structure_with(&text);
            assert_eq!(semantic_hash(&s).unwrap().len(), 64);
            let _ = normalize_code(&text);
            let n = normalize_variable_names(&text, &IndexMap::new());
            assert!(n.diagnostics.is_empty() || n.code == text);
        });
    }
}

#[test]
fn deep_texts_hash_deterministically_and_by_their_content() {
    let a = structure_with(&format!("{}x", "!".repeat(50_000)));
    let b = structure_with(&format!("{}x", "!".repeat(50_001)));
    assert_eq!(
        semantic_hash(&a).unwrap(),
        semantic_hash(&a.clone()).unwrap()
    );
    assert_ne!(semantic_hash(&a).unwrap(), semantic_hash(&b).unwrap());
}

#[test]
fn nesting_beyond_the_parse_limit_is_hashed_as_text() {
    let depth = pml_hash::MAX_PARSE_DEPTH + 1;
    let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let s = structure_with(&text);
    let form = canonical_form(&s);
    assert!(form.contains(&text));
    assert_eq!(normalize_code(&text), None);
    let n = normalize_variable_names(&text, &IndexMap::new());
    assert_eq!(n.code, text);
    assert_eq!(n.diagnostics[0].code, pml_hash::diagnostics::TOO_DEEP);
}

#[test]
fn deeply_nested_argument_values() {
    // Built and leaked without recursion: dropping them would recurse (the caller's problem).
    let mut value = Value::from(1);
    let mut arg = ArgumentValue::reference("n1");
    for _ in 0..100_000 {
        value = Value::Array(vec![value]);
        arg = ArgumentValue::Array { items: vec![arg] };
    }
    let mut node = Node::new("n2".into(), NodeKind::Task, Span::default());
    node.tool = Some("a:b".into());
    node.arguments = Some(Arguments::from_iter([
        ("v".into(), ArgumentValue::literal(value)),
        ("a".into(), arg),
    ]));
    let s = StaticStructure {
        nodes: vec![node],
        ..Default::default()
    };
    let h = on_stack(256, || semantic_hash(&s).unwrap());
    assert_eq!(h.len(), 64);
    std::mem::forget(s);
}

/// Every line of a canonical form is one of its records.
fn assert_records(form: &str) {
    const RECORDS: &[&str] = &[
        "node ",
        "  scope ",
        "  tool ",
        "  capability ",
        "  loop ",
        "  condition ",
        "  code ",
        "  input ",
        "  arg ",
        "  spread ",
        "edge ",
    ];
    for line in form.lines().skip(1) {
        assert!(
            RECORDS.iter().any(|r| line.starts_with(r)),
            "{line:?} in\n{form}"
        );
    }
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "",
        " ",
        "}",
        "{",
        ")(",
        "\u{0}\u{1}\u{2}",
        "const",
        "/*",
        "`${",
        "\"\\u{110000}\"",
        "'\\ud800'",
        "a\u{2028}b",
        "<div>{x}</div>",
        "@decorator class A {}",
        "import x from 'y'",
        "export const a = 1",
        "}); mcp.evil({",
        "enum E { A, B }",
        "namespace N { }",
        "label: { break label; }",
        "with (a) { b }",
        "yield x",
        "#x in y",
        "tag`a\nb${x}\\n`",
        "String.raw`line\nbreak`",
    ];
    for text in inputs {
        let s = structure_with(text);
        let form = canonical_form(&s);
        assert!(
            form.starts_with(&format!("{}\n", pml_hash::VERSION_TAG)),
            "{text:?}"
        );
        // One record per line: nothing from the input can start a line.
        assert_records(&form);
        let _ = normalize_code(text);
        let n = normalize_variable_names(text, &IndexMap::from([("a".into(), "n1".into())]));
        assert!(!n.code.is_empty() || text.is_empty());
    }
}

#[test]
fn line_breaks_in_names_and_values_stay_inside_their_line() {
    let mut node = Node::new("n1".into(), NodeKind::Task, Span::default());
    node.tool = Some("a:b\nnode n9 task".into());
    node.arguments = Some(Arguments::from_iter([(
        "k\n".into(),
        ArgumentValue::literal(Value::from("v\nedge n1 n2 sequence")),
    )]));
    let s = StaticStructure {
        nodes: vec![node],
        ..Default::default()
    };
    let form = canonical_form(&s);
    assert_eq!(form.lines().count(), 4, "{form}");
    assert_records(&form);
}

#[test]
fn raw_template_text_stays_distinct_and_on_one_line() {
    let escaped = normalize_code("t`a\\nb`").unwrap();
    let broken = normalize_code("t`a\nb`").unwrap();
    assert_ne!(escaped, broken);
    assert!(!broken.contains('\n'));
}
