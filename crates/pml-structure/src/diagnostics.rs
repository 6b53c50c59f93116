//! Stable diagnostic codes. Tools and tests match on these, never on message text.

/// The code does not parse; the structure is empty.
pub const SYNTAX_ERROR: &str = "syntax-error";
/// The input nests deeper than the builder accepts; the structure is empty.
pub const TOO_DEEP: &str = "too-deep";
/// `mcp[server][tool]()` or `capabilities[name]()` with a name computed at run time.
pub const DYNAMIC_CALL: &str = "dynamic-call";
/// MCP calls inside a function whose call sites are not analysed.
pub const UNANALYSED_FUNCTION: &str = "unanalysed-function";
/// A `code:*` task whose code reaches I/O or dynamic evaluation (see `pml-pure-ops`).
pub const IMPURE_CODE: &str = "impure-code";
/// The builder failed internally (a bug: it never should); the structure is empty.
pub const INTERNAL: &str = "internal-error";
