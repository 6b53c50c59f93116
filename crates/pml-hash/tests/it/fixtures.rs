//! Over every fixture program: renaming bound names (`normalize_variable_names`) and reprinting
//! the whole program canonically (`normalize_code`) keep the hash; normalising is idempotent.

use std::path::{Path, PathBuf};

use pml_hash::{normalize_code, normalize_variable_names, semantic_hash};
use pml_structure::{build_structure, BuildOptions, Severity};

/// `(name, code)` of every fixture that builds without errors.
fn programs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/ next to the crates")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        for input in ["input.ts", "input.js"] {
            if let Ok(code) = std::fs::read_to_string(d.join(input)) {
                let s = build_structure(&code, &BuildOptions::default()).structure;
                if !s.has_errors() {
                    let name = d.file_name().unwrap().to_string_lossy().into_owned();
                    out.push((name, code));
                }
            }
        }
    }
    assert!(
        out.len() > 50,
        "expected the fixture suite, found {}",
        out.len()
    );
    out
}

fn build(code: &str) -> pml_structure::StaticStructure {
    build_structure(code, &BuildOptions::default()).structure
}

#[test]
fn renaming_bound_names_keeps_the_hash_and_is_idempotent() {
    let mut failures = Vec::new();
    for (name, code) in programs() {
        let s = build(&code);
        let n = normalize_variable_names(&code, &s.variable_bindings);
        if n.diagnostics.iter().any(|d| d.severity == Severity::Error) {
            failures.push(format!("{name}: {:?}", n.diagnostics));
            continue;
        }
        let renamed = build(&n.code);
        if renamed.has_errors() {
            failures.push(format!("{name}: renamed code does not build:\n{}", n.code));
            continue;
        }
        if semantic_hash(&renamed).unwrap() != semantic_hash(&s).unwrap() {
            failures.push(format!(
                "{name}: hash changed by renaming\n{}\n---\n{}",
                pml_hash::canonical_form(&s),
                pml_hash::canonical_form(&renamed)
            ));
        }
        let again = normalize_variable_names(&n.code, &renamed.variable_bindings);
        if again.code != n.code {
            failures.push(format!(
                "{name}: not idempotent:\n{}\n---\n{}",
                n.code, again.code
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn reprinting_the_program_canonically_keeps_the_hash() {
    let mut failures = Vec::new();
    for (name, code) in programs() {
        let Some(printed) = normalize_code(&code) else {
            failures.push(format!("{name}: does not print"));
            continue;
        };
        let reprinted = build(&printed);
        if reprinted.has_errors() {
            failures.push(format!(
                "{name}: printed code does not build: {:?}\n{printed}",
                reprinted.diagnostics
            ));
            continue;
        }
        let s = build(&code);
        if semantic_hash(&reprinted).unwrap() != semantic_hash(&s).unwrap() {
            failures.push(format!(
                "{name}: hash changed by reprinting\n{printed}\n{}\n---\n{}",
                pml_hash::canonical_form(&s),
                pml_hash::canonical_form(&reprinted)
            ));
        }
        // Printing is a fixed point.
        if normalize_code(&printed).as_deref() != Some(printed.as_str()) {
            failures.push(format!(
                "{name}: printing twice differs from once:\n{printed}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
