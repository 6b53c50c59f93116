//! The tracing executor: runs an agent program against MCP servers and records what ran.
//!
//! **Input:** a [`Program`]: the JavaScript source (TypeScript types already stripped), its
//! static structure, logical DAG and physical DAG (built from that source); a [`ToolHost`]
//! (real servers: `pml_mcp::McpClients`), an [`Approver`], a [`Sandbox`] and
//! [`ExecuteOptions`].
//! **Output:** a [`RunReport`]: the program's result or the error that ended it (naming the
//! task, the tool and the cause), the mode that ran, the executed path (every operation that
//! ran, failed ones included, in completion order), `tool_start`/`tool_end` trace events per
//! logical operation, the MCP calls made, timings.
//!
//! **Modes** ([`choose_mode`]): *DAG mode* when the static structure covers the program
//! (nothing in `uncovered`, no warnings, every task an MCP call or pure code, the result
//! computable): the scheduler in `dag.rs` runs the physical DAG (module doc there:
//! dependency counting, read-only reordering, write barriers, conditions, failures).
//! Otherwise *sandbox mode* (`program.rs`): the whole program runs in QuickJS as written,
//! with `mcp` a proxy whose calls come to the host; each call is approved and traced the same
//! way, so a loop that ran 4 times shows 4 calls.
//!
//! **Invariants:**
//! - Running through pml gives the result running the program directly would give: DAG mode
//!   only runs programs whose every statement the DAG models exactly (`pml_structure`'s
//!   `uncovered` check is a whitelist); everything else runs as written.
//! - No MCP call moves across a call to a tool not annotated read-only, in either direction.
//! - A call that needs approval ([`ApprovalPolicy`]) runs only after the [`Approver`] said yes;
//!   pure code never asks.
//! - Nothing here panics on program data, and the run ends: code is bounded by the sandbox's
//!   limits, MCP calls by the host's timeouts.

mod approval;
mod dag;
mod host;
mod program;
mod speculate;
mod trace;
mod values;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pml_dag::{Dag, Task, TaskType};
use pml_mcp::ToolAnnotations;
use pml_sandbox::{Sandbox, SandboxError};
use pml_structure::{Instrumented, Severity, StaticStructure};
use serde::Serialize;
use serde_json::Value;

pub use approval::{ApprovalPolicy, Approver, AutoApprove, DenyAll, Recording, SideEffect};
pub use host::{BoxFuture, ToolFailure, ToolHost};
pub use speculate::SpeculationReport;
pub use trace::{preview, TraceEvent, PREVIEW_CHARS};

/// A program ready to run: all stages built from the same (JavaScript) source.
#[derive(Debug, Clone)]
pub struct Program {
    /// The agent code as JavaScript (types stripped, positions kept).
    pub source: String,
    pub structure: StaticStructure,
    pub logical: Dag,
    /// The DAG that runs (the logical one when not optimizing).
    pub physical: Dag,
    /// The source instrumented so that every node reports when it runs (built with
    /// `BuildOptions::instrument`); what sandbox mode runs. Without it sandbox mode runs
    /// `source` and traces only the MCP calls, without node ids.
    pub instrumented: Option<Instrumented>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Dag,
    Sandbox,
}

/// How to run.
#[derive(Clone)]
pub struct ExecuteOptions {
    /// The program's `args`.
    pub args: Value,
    /// Let independent read-only calls overlap even when awaited one after another.
    pub reorder: bool,
    /// Run in this mode whatever [`choose_mode`] says (sandbox mode runs anything; DAG mode
    /// refuses a program it does not cover).
    pub mode: Option<Mode>,
    pub policy: ApprovalPolicy,
    /// Annotations of the tools (`server:tool`), from `tools/list`.
    pub annotations: HashMap<String, ToolAnnotations>,
    /// Wall-clock limit of a sandbox-mode run (default 10 minutes).
    pub run_timeout: Duration,
    /// MCP calls a sandbox-mode run may make (default 1,000).
    pub max_calls: usize,
    /// Start read-only calls ahead of the program (sandbox mode; module `speculate`).
    pub speculate: bool,
    /// Tools (`server:tool`) to treat as read-only besides those annotated `readOnlyHint`.
    pub read_only: Vec<String>,
}

/// Default of [`ExecuteOptions::run_timeout`].
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// Default of [`ExecuteOptions::max_calls`].
pub const DEFAULT_MAX_CALLS: usize = 1000;

impl Default for ExecuteOptions {
    fn default() -> Self {
        ExecuteOptions {
            args: Value::Object(Default::default()),
            reorder: true,
            mode: None,
            policy: ApprovalPolicy::default(),
            annotations: HashMap::new(),
            run_timeout: DEFAULT_RUN_TIMEOUT,
            max_calls: DEFAULT_MAX_CALLS,
            speculate: true,
            read_only: Vec::new(),
        }
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl RunError {
    pub(crate) fn task(message: String, task_id: &str, tool: &str) -> Self {
        RunError {
            message,
            task_id: Some(task_id.to_owned()),
            tool: Some(tool.to_owned()),
        }
    }

    pub(crate) fn internal(message: String) -> Self {
        RunError {
            message,
            task_id: None,
            tool: None,
        }
    }

    pub(crate) fn from_sandbox(e: SandboxError, task: Option<&Task>) -> Self {
        RunError {
            message: e.to_string(),
            task_id: task.map(|t| t.id.clone()),
            tool: task.map(|t| t.tool.clone()),
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// One MCP call the program made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Call {
    pub tool: String,
    pub arguments: Value,
}

/// One line the program wrote with `console.<level>(...)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLine {
    /// `log`, `info`, `warn`, `error` or `debug`.
    pub level: &'static str,
    pub text: String,
    /// Milliseconds since the run started.
    pub ts_ms: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunTimings {
    pub execute_ms: f64,
}

/// What a run did. `ok` is false when the program failed (`error` says why).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    pub ok: bool,
    /// The program's return value (`null` when it returns nothing or failed).
    pub result: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    pub mode: Mode,
    /// Why the program could not run as a DAG (sandbox mode).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mode_reasons: Vec<String>,
    pub executed_path: Vec<String>,
    pub trace: Vec<TraceEvent>,
    /// The MCP calls made, in completion order.
    pub calls: Vec<Call>,
    /// Pure code that failed (safe to fail: the run still fails as the exception would make
    /// it) and tasks not run because of a failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the program wrote to `console`, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<ConsoleLine>,
    /// Read-only calls started ahead of the program: how many, taken, wasted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculation: Option<SpeculationReport>,
    pub timings: RunTimings,
}

/// What both modes run calls and code with (shared handles: cheap to clone into a task).
#[derive(Clone)]
pub(crate) struct Services {
    pub host: Arc<dyn ToolHost>,
    pub approver: Arc<dyn Approver>,
    pub sandbox: Arc<Sandbox>,
    pub tracer: Arc<trace::Tracer>,
    pub policy: ApprovalPolicy,
    pub facts: Arc<ToolFacts>,
}

/// What the executor knows about tools: annotations, and the tool of each logical task.
pub(crate) struct ToolFacts {
    annotations: HashMap<String, ToolAnnotations>,
    logical_tools: HashMap<String, String>,
    /// Tools the user says are read-only.
    read_only: Vec<String>,
}

impl ToolFacts {
    fn read_only(&self, task: &Task) -> bool {
        task.metadata.read_only || self.tool_read_only(&task.tool)
    }

    /// Whether `tool` (`server:tool`) only reads: annotated so, or listed by the user.
    pub(crate) fn tool_read_only(&self, tool: &str) -> bool {
        self.read_only.iter().any(|t| t == tool)
            || self
                .annotations
                .get(tool)
                .is_some_and(ToolAnnotations::read_only)
    }

    fn destructive(&self, tool: &str) -> Option<bool> {
        self.annotations.get(tool).map(ToolAnnotations::destructive)
    }

    fn logical_tool(&self, id: &str) -> Option<String> {
        self.logical_tools.get(id).cloned()
    }
}

/// Which mode the program runs in, and why not as a DAG (`file:line:col`-free messages with
/// `line:col` where known).
pub fn choose_mode(program: &Program) -> (Mode, Vec<String>) {
    let mut reasons: Vec<String> = program
        .structure
        .uncovered
        .iter()
        .map(|u| format!("{}:{}: {}", u.line, u.column, u.message))
        .collect();
    for d in &program.structure.diagnostics {
        reasons.push(format!("{}:{}: {}", d.line, d.column, d.message));
    }
    for d in &program.physical.diagnostics {
        if matches!(d.severity, Severity::Warning | Severity::Error) {
            reasons.push(d.message.clone());
        }
    }
    for t in &program.physical.tasks {
        match t.kind {
            TaskType::Loop | TaskType::Capability => reasons.push(format!(
                "task {} ({}) runs only in the sandbox",
                t.id, t.tool
            )),
            TaskType::CodeExecution if !t.metadata.pure => {
                reasons.push(format!("task {} ({}) is not pure code", t.id, t.tool))
            }
            _ => {}
        }
    }
    if reasons.is_empty() {
        (Mode::Dag, reasons)
    } else {
        (Mode::Sandbox, reasons)
    }
}

/// Runs the program. Never panics on program data; the report says how it went.
pub async fn execute(
    program: &Program,
    host: Arc<dyn ToolHost>,
    approver: Arc<dyn Approver>,
    sandbox: Arc<Sandbox>,
    options: &ExecuteOptions,
) -> RunReport {
    let started = Instant::now();
    let (chosen, reasons) = choose_mode(program);
    let mode = options.mode.unwrap_or(chosen);
    let tracer = Arc::new(trace::Tracer::new(started));
    let facts = Arc::new(ToolFacts {
        annotations: options.annotations.clone(),
        logical_tools: program
            .logical
            .tasks
            .iter()
            .map(|t| (t.id.clone(), t.tool.clone()))
            .collect(),
        read_only: options.read_only.clone(),
    });
    let finish = |result: Result<Value, RunError>,
                  calls: Vec<Call>,
                  warnings: Vec<String>,
                  console: Vec<ConsoleLine>,
                  speculation: Option<SpeculationReport>,
                  tracer: Arc<trace::Tracer>| {
        // Every task has reported before the run ends, so the trace is complete here.
        let (trace, executed_path) = tracer.take();
        let (ok, result, error) = match result {
            Ok(v) => (true, v, None),
            Err(e) => (false, Value::Null, Some(e)),
        };
        RunReport {
            ok,
            result,
            error,
            mode,
            mode_reasons: if mode == Mode::Sandbox {
                reasons.clone()
            } else {
                Vec::new()
            },
            executed_path,
            trace,
            calls,
            warnings,
            console,
            speculation,
            timings: RunTimings {
                execute_ms: started.elapsed().as_secs_f64() * 1e3,
            },
        }
    };
    if program.structure.has_errors() {
        let message = program
            .structure
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
            .unwrap_or_default();
        return finish(
            Err(RunError::internal(message)),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            None,
            tracer,
        );
    }
    if mode == Mode::Dag && chosen != Mode::Dag {
        let message = format!("this program cannot run as a DAG: {}", reasons.join("; "));
        return finish(
            Err(RunError::internal(message)),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            None,
            tracer,
        );
    }
    // The hook sees every side effect the program may have before anything runs.
    let planned = planned_side_effects(program, &facts, &options.policy);
    if !approver.review(&planned).await {
        let message = "the run was not approved".to_owned();
        return finish(
            Err(RunError::internal(message)),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            None,
            tracer,
        );
    }
    let services = Services {
        host,
        approver,
        sandbox,
        tracer: tracer.clone(),
        policy: options.policy.clone(),
        facts,
    };
    match mode {
        Mode::Dag => {
            let cx = dag::Context {
                services,
                args: Arc::new(options.args.clone()),
                reorder: options.reorder,
            };
            let outcome = dag::run(&program.physical, &cx).await;
            drop(cx);
            let calls = outcome
                .calls
                .into_iter()
                .map(|(tool, arguments)| Call { tool, arguments })
                .collect();
            // Say where the failing task is in the program (its first logical operation).
            let result = outcome.result.map_err(|mut e| {
                let node = e
                    .task_id
                    .as_deref()
                    .and_then(|id| id.split('+').next())
                    .and_then(|id| program.structure.node(id));
                if let Some(n) = node {
                    e.message = format!("{} (at {}:{})", e.message, n.span.line, n.span.column);
                }
                e
            });
            finish(result, calls, outcome.warnings, Vec::new(), None, tracer)
        }
        Mode::Sandbox => {
            let limits = program::Limits {
                wall: options.run_timeout,
                calls: options.max_calls,
                // Without reordering, calls run one after another as written.
                speculate: options.speculate && options.reorder,
            };
            let ran = program::run(program, &options.args, services, limits).await;
            finish(
                ran.result,
                ran.calls,
                Vec::new(),
                ran.console,
                ran.speculation,
                tracer,
            )
        }
    }
}

/// Every MCP call the program may make that is not read-only, with whether it needs approval.
fn planned_side_effects(
    program: &Program,
    facts: &ToolFacts,
    policy: &ApprovalPolicy,
) -> Vec<SideEffect> {
    program
        .structure
        .nodes
        .iter()
        .filter(|n| n.is_mcp())
        .filter_map(|n| {
            let tool = n.tool.clone()?;
            let read_only = facts
                .annotations
                .get(&tool)
                .is_some_and(ToolAnnotations::read_only);
            (!read_only).then(|| SideEffect {
                task_id: n.id.clone(),
                needs_approval: policy.needs_approval(&tool, facts.destructive(&tool)),
                tool,
                arguments: None,
            })
        })
        .collect()
}
