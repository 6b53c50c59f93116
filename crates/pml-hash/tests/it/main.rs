//! Integration tests of the semantic hash: canonical forms (`check`), pairs of programs that must
//! hash equal or differ (`pairs`), the same as properties over generated programs (`props`),
//! name normalisation (`normalize`), every fixture (`fixtures`) and hostile inputs (`hostile`).

mod check;
mod fixtures;
mod hostile;
mod normalize;
mod pairs;
mod props;

use pml_structure::{build_structure, BuildOptions, StaticStructure};

/// The structure of `code`, which must be valid.
pub(crate) fn structure(code: &str) -> StaticStructure {
    let s = build_structure(code, &BuildOptions::default()).structure;
    assert!(!s.has_errors(), "{code}\n{:?}", s.diagnostics);
    s
}

pub(crate) fn hash(code: &str) -> String {
    pml_hash::semantic_hash(&structure(code)).unwrap()
}

pub(crate) fn form(code: &str) -> String {
    pml_hash::canonical_form(&structure(code))
}
