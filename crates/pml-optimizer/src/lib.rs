//! Logical DAG -> physical DAG.
//!
//! **Input:** a logical [`Dag`] from `pml-dag`. **Output:** a physical [`Dag`] where chains of
//! pure code tasks run as one sandbox invocation, with `physicalToLogical` mapping every physical
//! task to the logical operations it runs (so traces still show `code:filter`, `code:map`...).
//!
//! Rules are small units, one file each under `rules/`, with a `name()` equal to the file name.
//! The [`optimize`] driver applies each rule until it changes nothing, validates the DAG after
//! every application (acyclic, dependencies exist, every logical task mapped exactly once) and
//! can record the DAG after each rule (`explain`).
//!
//! **Invariants:** never fuses across an MCP call or capability (fused tasks are all pure code),
//! across a decision boundary (same conditions only), impure/unknown/unresolved code, or beyond
//! `max_fused` logical operations; optimizing twice equals optimizing once.
//!
//! ```
//! use pml_structure::{build_structure, BuildOptions};
//! let s = build_structure(
//!     "const u = await mcp.db.q({}); return u.filter(x => x.ok).map(x => x.id).sort();",
//!     &BuildOptions::default(),
//! ).structure;
//! let logical = pml_dag::to_dag(&s, &Default::default());
//! let physical = pml_optimizer::optimize(&logical, &Default::default()).physical;
//! assert_eq!(physical.tasks.len(), 2);
//! assert_eq!(physical.physical_to_logical.unwrap()["n2+n3+n4"], ["n2", "n3", "n4"]);
//! ```

mod codegen;
mod driver;
pub mod rules;

pub use driver::{optimize, OptimizeReturn, OptimizerOptions, Rule, RuleStep};
pub use pml_dag::Dag;
