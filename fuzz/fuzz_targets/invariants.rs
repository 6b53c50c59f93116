//! The structure invariants live in `pml-structure` (`check_invariants`), shared with the
//! property tests.

pub use pml_structure::check_invariants as check;
