//! Integration tests for `pml-pure-ops`: robustness properties of `validate_pure_code` and the
//! registry as seen through the public API.

use pml_pure_ops::{lookup, operations, validate_pure_code, ImpureCode};
use proptest::prelude::*;

/// Fragments of JavaScript that stress the lexer's modes: quotes, templates, comments, regexes,
/// brackets, escapes, non-ASCII whitespace and identifiers, and forbidden names.
const PIECES: [&str; 32] = [
    "fetch", "`", "${", "}", "{", "/", "'", "\"", "\\", "\n", "/*", "*/", "//", "\u{2028}", "é",
    "(", ")", "[", "]", ".", "?.", "#", "x", "1", ":", ",", "new ", "Function", "import",
    "\\u0066", "\u{A0}", "=>",
];

/// Check what holds for every input: no panic (by returning at all), and a report points at a
/// character boundary inside the code.
fn check_report(code: &str) -> Result<(), ImpureCode> {
    let result = validate_pure_code(code);
    if let Err(err) = &result {
        assert!(err.offset < code.len(), "{code:?}: {err:?}");
        assert!(code.is_char_boundary(err.offset), "{code:?}: {err:?}");
        assert!(!err.reason().is_empty());
    }
    result
}

/// When the code holds no backslash, the report's offset is where the reported name is written.
fn check_report_points_at_name(code: &str) {
    if let Err(err) = check_report(code) {
        let first_word = err.pattern.split([' ', '(', '.']).next().unwrap_or("");
        if !code.contains('\\') {
            assert!(
                code[err.offset..].starts_with(first_word),
                "{code:?}: {err:?}"
            );
        }
    }
}

#[test]
fn every_short_combination_of_pieces_is_handled() {
    let mut code = String::new();
    for a in PIECES {
        for b in PIECES {
            for c in PIECES {
                code.clear();
                code.push_str(a);
                code.push_str(b);
                code.push_str(c);
                check_report_points_at_name(&code);
            }
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 100_000;
    let templates = "`${".repeat(depth) + "fetch";
    assert_eq!(
        validate_pure_code(&templates).map_err(|e| e.offset),
        Err(3 * depth)
    );
    let braces = "{(".repeat(depth) + &")}".repeat(depth);
    assert_eq!(validate_pure_code(&braces), Ok(()));
}

#[test]
fn registry_round_trips_through_the_public_api() {
    for op in operations() {
        assert_eq!(lookup(op.tool), Some(op));
    }
}

fn soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(&PIECES[..]), 0..24)
        .prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(code in any::<String>()) {
        check_report(&code).ok();
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        check_report(&String::from_utf8_lossy(&bytes)).ok();
    }

    #[test]
    fn javascript_like_soup_never_panics(code in soup()) {
        check_report_points_at_name(&code);
    }

    #[test]
    fn a_string_literal_is_pure_whatever_it_holds(text in any::<String>()) {
        // Rust's debug form of a string is also a valid JavaScript double-quoted literal.
        prop_assert_eq!(validate_pure_code(&format!("{text:?}")), Ok(()));
    }

    #[test]
    fn a_line_comment_is_pure_whatever_it_holds(text in "[^\n\r\u{2028}\u{2029}]*") {
        prop_assert_eq!(validate_pure_code(&format!("// {text}")), Ok(()));
    }

    #[test]
    fn a_block_comment_is_pure_whatever_it_holds(text in any::<String>()) {
        prop_assume!(!text.contains("*/"));
        prop_assert_eq!(validate_pure_code(&format!("/* {text} */")), Ok(()));
    }

    #[test]
    fn leading_trivia_only_shifts_the_offset(
        code in soup(),
        trivia in proptest::sample::select(vec![" ", "\n", "/* c */", "// c\n", "\u{A0}", ";"]),
    ) {
        let shifted = validate_pure_code(&format!("{trivia}{code}"));
        let expected = validate_pure_code(&code).map_err(|err| ImpureCode {
            offset: err.offset + trivia.len(),
            ..err
        });
        prop_assert_eq!(shifted, expected);
    }

    #[test]
    fn a_forbidden_call_is_found_after_pure_code(
        prefix in "[a-z]{1,8}",
        name in proptest::sample::select(vec!["fetch", "eval", "require", "setTimeout", "Deno"]),
    ) {
        let code = format!("const {prefix}_ = xs.map(x => x * 2);\n{name}(1)");
        let err = validate_pure_code(&code).unwrap_err();
        prop_assert_eq!(err.pattern, name);
        prop_assert_eq!(err.offset, code.len() - name.len() - 3);
    }
}
