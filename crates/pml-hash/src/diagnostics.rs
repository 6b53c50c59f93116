//! Stable codes of the diagnostics [`crate::normalize_variable_names`] reports.

/// The program does not parse (it is returned unchanged).
pub const SYNTAX_ERROR: &str = "syntax-error";
/// A binding's new name (`_n1`) is already used in the program: a numbered one is used instead.
pub const NAME_TAKEN: &str = "name-taken";
/// A binding's name has no `const`/`let`/`var` declaration in the program: nothing renamed.
pub const BINDING_NOT_DECLARED: &str = "binding-not-declared";
/// The program nests too deeply to be analysed (it is returned unchanged).
pub const TOO_DEEP: &str = "too-deep";
