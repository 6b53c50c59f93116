//! Static structure -> logical DAG.
//!
//! **Input:** a [`StaticStructure`](pml_structure::StaticStructure) (what the code *says*).
//! **Output:** a [`Dag`] (what will *run*): one task per executable node (MCP call ->
//! `mcp_tool`, `code:*` -> `code_execution` with its code and purity, capability ->
//! `capability`, loop -> one `loop` task whose body runs inside it), with `dependsOn` (nearest
//! earlier tasks in program order through decisions/forks/joins, plus data reads), `condition`
//! (the decisions and outcomes it needs, with the decision's expression to evaluate), the
//! constants it reads, and topological layers. What an expression reads comes from the
//! structure (`reads` of references and conditions): this crate never reads JavaScript text.
//!
//! **Invariants:** every `dependsOn` names a task of the DAG and the DAG is acyclic (else an
//! `internal-error` diagnostic names the tasks, never a hang); tasks that read names nothing
//! provides are flagged (`metadata.unresolved`, and an `unresolved-name` diagnostic when the
//! program does not declare the name anywhere) instead of failing at run time. No I/O.
//!
//! ```
//! use pml_structure::{build_structure, BuildOptions};
//! let s = build_structure(
//!     "const f = await mcp.fs.read({}); const n = JSON.parse(f.content).length;",
//!     &BuildOptions::default(),
//! ).structure;
//! let dag = pml_dag::to_dag(&s, &Default::default());
//! assert_eq!(dag.tasks[1].tool, "code:JSON.parse");
//! assert_eq!(dag.tasks[1].depends_on, ["n1"]);
//! ```

mod convert;
pub mod diagnostics;
pub mod layers;
mod model;

pub use convert::{code_task, to_dag, DagOptions};
pub use model::{Condition, Dag, DagResult, DecisionKind, Metadata, Task, TaskType};

/// Recompute layers and validate (used by the optimizer after every rule).
pub fn revalidate(dag: &mut Dag) {
    dag.diagnostics.retain(|d| d.code != diagnostics::INTERNAL);
    convert::finish(dag);
}
