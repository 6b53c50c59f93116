//! Stable diagnostic codes of the DAG stages.

/// A task reads a name that no task or constant provides (its dependencies are then everything
/// before it in program order).
pub const UNRESOLVED: &str = "unresolved-name";
/// The DAG is inconsistent (a cycle, a dependency on a missing task): a bug, reported not hidden.
pub const INTERNAL: &str = "internal-error";
