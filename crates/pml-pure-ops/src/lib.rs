//! The registry of pure JavaScript operations, and what code tasks may not reach.
//!
//! The structure builder meets plain JavaScript between tool calls (`xs.filter(..)`,
//! `Object.keys(o)`, `a + b`) and turns each recognised operation into a pseudo-tool
//! `code:<op>` in the DAG. This crate says which operations exist and how call sites map to them.
//!
//! - **Input:** a method name (`"filter"`), a namespace and method (`"Math"`, `"max"`), a binary
//!   operator as written in source (`"==="`), a pseudo-tool id (`"code:filter"`), or a free name
//!   of a code task.
//! - **Output:** the matching [`Operation`] (tool id, [`Category`], purity, whether it mutates its
//!   receiver), or for [`forbidden`] whether referencing the name reaches outside pure
//!   computation (`fetch`, `eval`, timers, module loading, `process`, runtime and global
//!   objects); [`ImpureCode`] is such a reach, which the structure builder finds on the syntax
//!   tree.
//!
//! **Invariants:**
//! - [`operations`] is a fixed table in a stable order; every tool id is unique, starts with
//!   `code:`, and [`lookup`] finds it again. Every operation is pure; only `sort`, `reverse` and
//!   `Object.assign` mutate their receiver.
//! - Each call site maps to at most one operation: methods shared by arrays and strings
//!   (`includes`, `slice`, ...) are registered once, as array operations. Non-deterministic calls
//!   such as `Math.random` are not operations.
//! - No dependencies, no I/O.
//!
//! ```
//! use pml_pure_ops::{binary_operation, is_pure, method_operation, static_operation};
//! use pml_pure_ops::{forbidden, Category};
//!
//! let filter = method_operation("filter").unwrap();
//! assert_eq!((filter.tool, filter.category), ("code:filter", Category::Array));
//! assert_eq!(static_operation("Object", "keys").unwrap().tool, "code:Object.keys");
//! assert_eq!(static_operation("Math", "random"), None);
//! assert_eq!(binary_operation("===").unwrap().tool, "code:strictEqual");
//! assert!(is_pure("code:JSON.parse") && !is_pure("github:create_issue"));
//!
//! assert_eq!(forbidden("fetch"), Some("fetch"));
//! assert_eq!(forbidden("x"), None);
//! ```

mod registry;
mod validate;

pub use registry::{
    binary_operation, is_pure, lookup, method_operation, operations, static_operation, Category,
    Operation, TOOL_PREFIX,
};
pub use validate::{forbidden, ImpureCode};
