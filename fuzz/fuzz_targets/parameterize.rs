//! Fuzz `parameterize`: any UTF-8 input, both dialects. No panic, hang or stack overflow;
//! diagnostics point inside the input; on a syntax error the code comes back unchanged; a
//! program that parses is rewritten into one that still parses; deterministic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pml_structure::{parameterize, Dialect};

fuzz_target!(|data: &[u8]| {
    let Ok(code) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::TypeScript, Dialect::JavaScript] {
        let out = parameterize(code, dialect);
        let lines: Vec<&str> = code.split('\n').collect();
        for d in &out.diagnostics {
            let (Some(line), Some(column)) = (d.line, d.column) else {
                panic!("diagnostic without a place: {d:?}");
            };
            assert!(
                line >= 1 && line <= lines.len(),
                "diagnostic line outside the input: {d:?}"
            );
            let width = lines[line - 1].chars().count();
            assert!(
                column >= 1 && column <= width + 1,
                "diagnostic column outside its line: {d:?}"
            );
        }
        if !out.diagnostics.is_empty() {
            assert_eq!(out.code, code, "code changed despite diagnostics");
            assert!(out.parameters.is_empty(), "parameters despite diagnostics");
            continue;
        }
        if out.parameters.is_empty() {
            assert_eq!(out.code, code, "code changed without parameters");
        } else {
            let again = parameterize(&out.code, dialect);
            assert!(
                again.diagnostics.is_empty(),
                "parameterized code no longer parses: {:?}\n{}",
                again.diagnostics,
                out.code
            );
        }
        assert_eq!(parameterize(code, dialect), out, "not deterministic");
    }
});
