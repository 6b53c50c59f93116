//! Stable diagnostic codes. Tools and tests match on these, never on message text.

/// The code does not parse; the structure is empty.
pub const SYNTAX_ERROR: &str = "syntax-error";
/// The input nests deeper than the builder accepts; the structure is empty.
pub const TOO_DEEP: &str = "too-deep";
/// `mcp[server][tool]()` or `capabilities[name]()` with a name computed at run time.
pub const DYNAMIC_CALL: &str = "dynamic-call";
/// Code that calls tools where the builder does not walk it (a class field's initializer, a
/// computed member key, what a class extends): its calls are not in the structure, so
/// nothing may be read ahead of the program.
pub const UNANALYSED_CODE: &str = "unanalysed-code";
/// A function that calls tools used as a value (passed to another function, returned,
/// stored): its body is walked once, but when and how often it runs is not known statically.
pub const FUNCTION_VALUE: &str = "function-value";
/// A `const` whose initializer holds a construct the builder does not model (a call of an
/// unknown function, `new` of a class...): uses of the name are references to the name.
pub const UNMODELLED_DECLARATION: &str = "unmodelled-declaration";
/// A local function that calls itself (directly or through others): its body is in the
/// structure once.
pub const RECURSION: &str = "recursion";
/// A `code:*` task whose code reaches I/O or dynamic evaluation (see `pml-pure-ops`).
pub const IMPURE_CODE: &str = "impure-code";
/// [`crate::normalize_variable_names`]: a binding's new name (`_n1`) is already used in the
/// program: a numbered one is used instead.
pub const NAME_TAKEN: &str = "name-taken";
/// [`crate::normalize_variable_names`]: a binding's name has no `const`/`let`/`var`
/// declaration in the program: nothing renamed.
pub const BINDING_NOT_DECLARED: &str = "binding-not-declared";
/// TypeScript that cannot run as JavaScript: it needs code generated that pml does not make
/// (decorators, `accessor` fields, `import =`, `export =`).
pub const UNSUPPORTED_TYPESCRIPT: &str = "unsupported-typescript";
/// The builder failed internally (a bug: it never should); the structure is empty.
pub const INTERNAL: &str = "internal-error";

/// The error for input the safety scan refused at byte `offset`, with its line and column.
pub(crate) fn refused(
    code: &str,
    lines: &crate::parse::LineIndex,
    offset: usize,
    message: String,
) -> crate::Diagnostic {
    crate::Diagnostic::at(
        crate::Severity::Error,
        TOO_DEEP,
        message,
        lines.line_col(code, offset),
    )
}

/// The error for work that could not finish (no thread to be had, or a panic): `doing` is
/// what it was doing (`"analysing"`).
pub(crate) fn internal(doing: &str) -> crate::Diagnostic {
    crate::Diagnostic::at(
        crate::Severity::Error,
        INTERNAL,
        format!("internal error while {doing} this input (please report it)"),
        (1, 1),
    )
}
