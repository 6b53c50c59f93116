//! The DAG data shared by the logical and the physical stage (`docs/formats.md`).

use indexmap::IndexMap;
use pml_structure::{ArgumentValue, Arguments, Diagnostic};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A DAG of tasks: logical (one task per operation) or physical (after fusion).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dag {
    pub tasks: Vec<Task>,
    /// Topological layers (task ids), for display: a task's dependencies are in earlier layers.
    pub layers: Vec<Vec<String>>,
    /// `Promise.all` results: join id -> the task whose result is each element, in order
    /// (a task reading `j1` reads the array of these results).
    #[serde(skip_serializing_if = "IndexMap::is_empty", default)]
    pub joins: IndexMap<String, Vec<String>>,
    /// Physical DAGs only: physical task id -> the logical task ids it runs, in order.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub physical_to_logical: Option<IndexMap<String, Vec<String>>>,
    /// The program's result (its final `return`), computed once every task has ended.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<DagResult>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub diagnostics: Vec<Diagnostic>,
}

/// The value a program returns, as a DAG computes it from task results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DagResult {
    /// Like a task argument: a literal, a parameter, or an expression over logical task ids.
    pub value: ArgumentValue,
    /// Task ids whose results it reads (joins expanded).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reads: Vec<String>,
    /// Constants it reads by name.
    #[serde(skip_serializing_if = "IndexMap::is_empty", default)]
    pub literals: IndexMap<String, Value>,
}

impl Dag {
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskType {
    McpTool,
    CodeExecution,
    Capability,
    Loop,
    /// A call of a local function: what the function does runs inside it.
    Call,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    /// `server:tool`, `code:<op>`, `capability:<name>`, `loop:<kind>`, or `function:<name>`
    /// (a call of a local function; its node id when it has no name).
    pub tool: String,
    #[serde(rename = "type")]
    pub kind: TaskType,
    pub depends_on: Vec<String>,
    /// Code tasks: a JavaScript *expression* whose free variables are the keys of `arguments`
    /// (a chain link reads its receiver as `$receiver`). Loops: the loop statement.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub arguments: Option<Arguments>,
    /// All must hold for the task to run (outermost decision first).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub condition: Vec<Condition>,
    /// Constants the task's arguments or code read by name (`literalBindings` it uses).
    #[serde(skip_serializing_if = "IndexMap::is_empty", default)]
    pub literals: IndexMap<String, Value>,
    pub metadata: Metadata,
}

/// "Run only if decision `decisionNodeId` took `requiredOutcome`" (or one of `anyOf`, for a switch
/// case entered by falling through from earlier cases).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    pub decision_node_id: String,
    pub required_outcome: String,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub any_of: Vec<String>,
    /// The decision's condition (an `if` test, a switch discriminant), with bound names replaced
    /// by task ids, to evaluate against earlier results.
    pub expression: String,
    /// The names `expression` reads (task ids, constants, other names), from the structure.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reads: Vec<String>,
    /// `if` (truthiness: outcomes `true`/`false`) or `switch` (outcomes `case:<value>`/`default`).
    pub kind: DecisionKind,
    /// Switches: every case's outcome in source order, to find the case a value selects
    /// (the first strictly equal one, else `default`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub cases: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DecisionKind {
    If,
    Switch,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    /// Code tasks: a pure operation whose code passed validation (no I/O): safe to run without
    /// approval, safe to fail, fusable.
    pub pure: bool,
    /// Sandbox permissions for code tasks (`minimal`: no I/O at all).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub permission_set: Option<String>,
    /// Task ids whose results this task reads (data dependencies, a subset of `dependsOn`'s
    /// closure).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reads: Vec<String>,
    /// MCP tools annotated `readOnlyHint` in the catalog.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub read_only: bool,
    /// Names the task reads that nothing provides: it cannot run as a DAG task.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub unresolved: Vec<String>,
    /// Loops and calls of local functions: the tools (and `code:*` operations) they may run,
    /// through the local functions they call too, in source order, each once.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub contains: Vec<String>,
    /// Physical tasks: the logical tasks fused into this one, in execution order.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub fused_from: Vec<String>,
    /// Physical tasks: which optimizer rule fused it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fusion: Option<String>,
}
