//! Stable codes of the diagnostics [`crate::normalize_variable_names`] reports (it is
//! `pml-structure`'s, which reads JavaScript).

pub use pml_structure::diagnostics::{BINDING_NOT_DECLARED, NAME_TAKEN, SYNTAX_ERROR, TOO_DEEP};
