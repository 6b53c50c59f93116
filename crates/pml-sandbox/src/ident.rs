//! Which argument names can be bound as parameters of the strict-mode wrapper function.

/// Words that cannot name a parameter in strict-mode code (ES2024 reserved words, strict-mode
/// future reserved words, `eval`/`arguments`, and `await`/`yield` which module code reserves).
const RESERVED: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// `Err(reason)` when `name` cannot be a parameter name; `reason` completes "argument `x` that ...".
///
/// Identifiers are checked with Unicode letters and digits standing for `ID_Start` and
/// `ID_Continue`: a few exotic identifiers (combining marks) are refused, nothing that QuickJS
/// would refuse is accepted.
pub(crate) fn check_parameter_name(name: &str) -> Result<(), &'static str> {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return Err("is empty");
    };
    if !(first == '$' || first == '_' || first.is_alphabetic()) {
        return Err("is not a javascript identifier");
    }
    if !chars
        .all(|c| c == '$' || c == '_' || c == '\u{200C}' || c == '\u{200D}' || c.is_alphanumeric())
    {
        return Err("is not a javascript identifier");
    }
    if RESERVED.contains(&name) {
        return Err("is a reserved word");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_parameter_name as check;

    #[test]
    fn identifiers() {
        for ok in [
            "a",
            "$receiver",
            "n2$file",
            "_x1",
            "données",
            "undefined",
            "of",
            "async",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for bad in ["", "1x", "a-b", "a b", "a.b", "x)", "a\u{0}", "${", "🙂"] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
        for reserved in [
            "class",
            "eval",
            "arguments",
            "let",
            "yield",
            "await",
            "this",
        ] {
            assert_eq!(check(reserved), Err("is a reserved word"), "{reserved}");
        }
    }
}
