//! The tracing executor: runs an agent program against MCP servers and records what ran.
//!
//! **Input:** a [`Program`]: the JavaScript source (TypeScript types already stripped), its
//! static structure, logical and physical DAG, and the source instrumented with probes (all
//! built from that source); a [`ToolHost`] (real servers: `pml_mcp::McpClients`), an
//! [`Approver`], a [`Sandbox`] and [`ExecuteOptions`].
//! **Output:** a [`RunReport`]: the program's result or the error that ended it (naming the
//! node, the tool, the cause and where), the executed path (every logical operation that ran,
//! MCP calls and `code:*` operations, failed ones included, in completion order), trace events
//! under the structure's node ids, the MCP calls made, `console` output, what speculation did,
//! timings.
//!
//! **One path** (`program.rs`): the program runs whole, as written, in QuickJS, so its result,
//! exceptions, `try`/`catch`, loops, helpers and early returns are its own. It runs
//! instrumented (`pml_structure`'s `instrument` module): every node of the structure reports
//! when it runs, and the trace is laid onto the structure. Its `mcp` calls come to the host,
//! which approves, traces and runs them. **Speculation** (`speculate/`) makes it fast:
//! read-only calls start as soon as their arguments are known, ahead of the program, which
//! takes them when it makes the same call. **Capabilities** (`capability.rs`):
//! `capabilities.NAME(args)` runs a stored program ([`CapabilityProgram`], resolved by the
//! caller) as a nested run, traced under the caller's node.
//!
//! **Invariants:**
//! - Running through pml gives the result running the program directly would give: the
//!   program itself runs; probes only observe; a speculative call is taken only when the
//!   program makes the same read in the same write epoch, else it is wasted, never seen.
//! - No read overlaps a write that comes before it in program order; nothing that is not
//!   read-only is ever speculated.
//! - A call that needs approval ([`ApprovalPolicy`]) runs only after the [`Approver`] said yes;
//!   pure code never asks.
//! - Nothing here panics on program data, and the run ends: JavaScript is bounded by the
//!   sandbox's limits, MCP calls by the host's timeouts, the run by its wall-clock limit and
//!   call cap.

mod approval;
mod capability;
mod host;
mod journal;
mod order;
mod program;
mod speculate;
mod trace;
mod values;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pml_dag::Dag;
use pml_mcp::ToolAnnotations;
use pml_sandbox::Sandbox;
use pml_structure::{Diagnostic, Instrumented, Severity, StaticStructure};
use serde::Serialize;
use serde_json::Value;

pub use approval::{
    ApprovalPolicy, ApprovedPlan, Approver, AutoApprove, DenyAll, Recording, SideEffect, COMPUTED,
};
pub use capability::CapabilityProgram;
pub use host::{BoxFuture, ToolFailure, ToolHost, Turn};
pub use journal::{Journal, JournalCall, Replay};
pub use pml_sandbox::Unrepeatable;
pub use pml_trace::{EventKind, TraceEvent};
pub use speculate::SpeculationReport;
pub use trace::{preview, Observer, MAX_EVENTS, PREVIEW_CHARS};

/// A program ready to run: all stages built from the same (JavaScript) source.
#[derive(Debug, Clone)]
pub struct Program {
    /// The agent code as JavaScript (types stripped, positions kept).
    pub source: String,
    pub structure: StaticStructure,
    pub logical: Dag,
    /// The optimized plan (the logical DAG when not optimizing).
    pub physical: Dag,
    /// The source instrumented so that every node reports when it runs (built with
    /// `BuildOptions::instrument`): what runs. Without it `source` runs, and the trace has
    /// the MCP calls only, without node ids.
    pub instrumented: Option<Instrumented>,
}

/// How to run.
#[derive(Clone)]
pub struct ExecuteOptions {
    /// The program's `args`.
    pub args: Value,
    pub policy: ApprovalPolicy,
    /// Annotations of the tools (`server:tool`), from `tools/list`.
    pub annotations: HashMap<String, ToolAnnotations>,
    /// Wall-clock limit of a run (default 10 minutes).
    pub run_timeout: Duration,
    /// MCP calls a run may make (default 1,000).
    pub max_calls: usize,
    /// Start read-only calls ahead of the program (module `speculate`).
    pub speculate: bool,
    /// Tools (`server:tool`) to treat as read-only besides those annotated `readOnlyHint`.
    pub read_only: Vec<String>,
    /// Where the program's calls are written as they happen, and a resumed run answered from.
    pub journal: Option<Arc<dyn Journal>>,
    /// The capabilities `capabilities.<name>(...)` may call, by every name it uses, and those
    /// they call in turn (module `capability`).
    pub capabilities: HashMap<String, Arc<CapabilityProgram>>,
    /// Names of the program's `args` that capability calls get too, unless they give their own
    /// (e.g. `root`, the folder the default config's filesystem server serves).
    pub inherited_args: Vec<String>,
    /// Turns `true` to interrupt the run (Ctrl-C): no new call starts, calls in flight get
    /// [`INTERRUPT_GRACE`] to finish and are then cancelled, and the run ends with the error
    /// [`INTERRUPTED`] and the trace so far.
    pub interrupt: Option<tokio::sync::watch::Receiver<bool>>,
    /// Told of each trace event as it happens (live progress); the report has them all anyway.
    pub on_event: Option<trace::Observer>,
}

/// The error message of an interrupted run.
pub const INTERRUPTED: &str = "interrupted";
/// What a call gets when the instrumentation reported something no probe reports (the run
/// ends: [`RunReport::error`] says what).
pub(crate) const INVALID: &str = "the run stopped: its instrumentation cannot be trusted";
/// How long calls in flight may still take once a run is interrupted.
pub const INTERRUPT_GRACE: Duration = Duration::from_millis(1000);

/// Default of [`ExecuteOptions::run_timeout`].
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// Default of [`ExecuteOptions::max_calls`].
pub const DEFAULT_MAX_CALLS: usize = 1000;

impl Default for ExecuteOptions {
    fn default() -> Self {
        ExecuteOptions {
            args: Value::Object(Default::default()),
            policy: ApprovalPolicy::default(),
            annotations: HashMap::new(),
            run_timeout: DEFAULT_RUN_TIMEOUT,
            max_calls: DEFAULT_MAX_CALLS,
            speculate: true,
            read_only: Vec::new(),
            journal: None,
            capabilities: HashMap::new(),
            inherited_args: Vec::new(),
            interrupt: None,
            on_event: None,
        }
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub message: String,
    /// The node of the structure where it failed (a call, or the operation that threw).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl RunError {
    pub(crate) fn internal(message: String) -> Self {
        RunError {
            message,
            task_id: None,
            tool: None,
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

/// What a run keeps of its program's `console` output at most (the text of its lines); the
/// lines past it are counted in a last line.
pub const MAX_CONSOLE_BYTES: usize = 1 << 20;

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

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    pub executed_path: Vec<String>,
    pub trace: Vec<TraceEvent<'static>>,
    /// Trace events past [`MAX_EVENTS`], not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_events: u64,
    /// The MCP calls the program made, in completion order.
    pub calls: Vec<Call>,
    /// What the program wrote to `console`, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<ConsoleLine>,
    /// Read-only calls started ahead of the program: how many, taken, wasted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculation: Option<SpeculationReport>,
    pub timings: RunTimings,
}

/// What a run calls and computes with (shared handles: cheap to clone into a task).
#[derive(Clone)]
pub(crate) struct Services {
    pub host: Arc<dyn ToolHost>,
    pub approver: Arc<dyn Approver>,
    pub sandbox: Arc<Sandbox>,
    pub tracer: Arc<trace::Tracer>,
    pub policy: ApprovalPolicy,
    pub facts: Arc<ToolFacts>,
    pub journal: Option<Arc<dyn Journal>>,
    /// Calls made so far by the run and the capabilities it called (one count, one limit, one
    /// numbering of the journal).
    pub made: Arc<std::sync::atomic::AtomicUsize>,
    /// The order in which the run's calls (its capabilities' and its speculation's too) go
    /// to each server: the order they were made in.
    pub order: Arc<order::Order>,
    pub capabilities: Arc<capability::Capabilities>,
    /// In a capability's run: its name (`outer/inner` when nested), which prefixes its node
    /// ids where approvals name them.
    pub scope: Option<Arc<str>>,
    /// [`ExecuteOptions::interrupt`].
    pub interrupt: Option<tokio::sync::watch::Receiver<bool>>,
}

/// What the executor knows about tools.
pub(crate) struct ToolFacts {
    annotations: HashMap<String, ToolAnnotations>,
    /// Tools the user says are read-only.
    read_only: Vec<String>,
}

impl ToolFacts {
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
    let tracer = Arc::new(trace::Tracer::new(started).observed(options.on_event.clone()));
    let facts = Arc::new(ToolFacts {
        annotations: options.annotations.clone(),
        read_only: options.read_only.clone(),
    });
    let finish = |ran: program::Ran, tracer: Arc<trace::Tracer>| {
        // Every call and probe has reported before the run ends: the trace is complete here.
        let (trace, executed_path, dropped_events) = tracer.take();
        let (ok, result, error) = match ran.result {
            Ok(v) => (true, v, None),
            Err(e) => (false, Value::Null, Some(e)),
        };
        RunReport {
            ok,
            result,
            error,
            executed_path,
            trace,
            dropped_events,
            calls: ran.calls,
            console: ran.console,
            speculation: ran.speculation,
            timings: RunTimings {
                execute_ms: started.elapsed().as_secs_f64() * 1e3,
            },
        }
    };
    let refused = |message: String| program::Ran::failed(RunError::internal(message));
    if program.structure.has_errors() {
        let message = (program.structure.diagnostics.iter())
            .find(|d| d.severity == Severity::Error)
            .map(Diagnostic::located)
            .unwrap_or_default();
        return finish(refused(message), tracer);
    }
    // The program's parameters as it reads them: an integer beyond 2^53 is the nearest double
    // (what a read started ahead or the approval plan holds must be what the program sends).
    let mut args = options.args.clone();
    pml_jstext::js_numbers_of(&mut args);
    // The hook sees every side effect the program may have before anything runs, the
    // capabilities' it calls included.
    let mut planned = planned_side_effects(program, &facts, &options.policy, None, &args);
    for (name, capability) in capability::distinct(&options.capabilities) {
        planned.extend(planned_side_effects(
            &capability.program,
            &facts,
            &options.policy,
            Some(name),
            // Its args are what the caller computes.
            &Value::Null,
        ));
    }
    if !approver.review(&planned).await {
        return finish(refused("the run was not approved".to_owned()), tracer);
    }
    let services = Services {
        host,
        approver,
        sandbox,
        tracer: tracer.clone(),
        policy: options.policy.clone(),
        facts,
        journal: options.journal.clone(),
        made: Arc::default(),
        order: Arc::default(),
        capabilities: Arc::new(capability::Capabilities::new(
            &options.capabilities,
            &options.inherited_args,
            &args,
        )),
        scope: None,
        interrupt: options.interrupt.clone(),
    };
    let limits = program::Limits {
        wall: options.run_timeout,
        calls: options.max_calls,
        speculate: options.speculate,
    };
    let ran = program::run(program, &args, services, limits).await;
    finish(ran, tracer)
}

/// Every MCP call the program may make that is not read-only, with whether it needs approval
/// (in a capability: its node ids prefixed with `<name>/`).
fn planned_side_effects(
    program: &Program,
    facts: &ToolFacts,
    policy: &ApprovalPolicy,
    capability: Option<&str>,
    args: &Value,
) -> Vec<SideEffect> {
    let structure = &program.structure;
    let mut reads: Vec<String> = Vec::new();
    let mut planned = Vec::new();
    // A tool used as a value (a task without arguments) is no planned call: the calls made
    // through it, any number, with any arguments, are each asked about when made.
    for n in (structure.nodes.iter()).filter(|n| n.is_mcp() && n.arguments.is_some()) {
        let Some(tool) = n.tool.clone() else { continue };
        if facts.tool_read_only(&tool) {
            if !reads.contains(&tool) {
                reads.push(tool);
            }
            continue;
        }
        let arguments = (n.arguments.as_ref()).map(|a| planned_object(a, args, structure));
        planned.push(SideEffect {
            task_id: match capability {
                Some(name) => format!("{name}/{}", n.id),
                None => n.id.clone(),
            },
            needs_approval: policy.needs_approval(&tool, facts.destructive(&tool)),
            tool,
            arguments,
            may_run: may_run(structure, n),
            line: Some(n.span.line),
            column: Some(n.span.column),
            reads_before: reads.clone(),
        });
    }
    planned
}

/// Arguments as far as they are known before the run (see [`planned_value`]): a static key as
/// it is, a spread `...N` (its place), a computed key `[expression]`, said for people.
fn planned_object(
    arguments: &pml_structure::Arguments,
    args: &Value,
    structure: &pml_structure::StaticStructure,
) -> Value {
    use pml_structure::Key;
    Value::Object(
        (arguments.iter())
            .map(|(k, v)| {
                let key = match k {
                    Key::Static(name) => name.clone(),
                    Key::Spread(_) => k.json_text().into_owned(),
                    Key::Computed(c) => {
                        format!(
                            "[{}]",
                            readable(&c.expression, &c.reads, &c.leaves, structure)
                        )
                    }
                };
                (key, planned_value(v, args, structure))
            })
            .collect(),
    )
}

/// An argument as far as it is known before the run: literals, `args.x` as given; the rest
/// `{"$computed": what}`, said for people (see [`readable`]).
fn planned_value(
    value: &pml_structure::ArgumentValue,
    args: &Value,
    structure: &pml_structure::StaticStructure,
) -> Value {
    use pml_structure::ArgumentValue as A;
    let computed = |what: String| serde_json::json!({ approval::COMPUTED: what });
    match value {
        A::Literal { value, .. } => value.clone(),
        A::Parameter { parameter_name } => {
            let mut keys = A::parameter_keys(parameter_name);
            let found = keys.try_fold(args, |v, key| v.get(key));
            match found {
                Some(v) => v.clone(),
                None => computed(format!("args.{parameter_name}")),
            }
        }
        A::Reference {
            expression,
            reads,
            leaves,
            ..
        } => computed(readable(expression, reads, leaves, structure)),
        A::Object { properties } => planned_object(properties, args, structure),
        A::Array { items } => Value::Array(
            (items.iter())
                .map(|v| planned_value(v, args, structure))
                .collect(),
        ),
    }
}

/// A computed argument's expression as people read it: each node it reads by the program's
/// name for it when one holds it (`file.content`), else as the result it is (`(the result of
/// filesystem:read_text_file at 3:15)`), then where the named ones come from: `file.content,
/// from filesystem:read_text_file at 3:15`.
fn readable(
    expression: &str,
    reads: &[String],
    leaves: &pml_structure::Leaves,
    structure: &pml_structure::StaticStructure,
) -> String {
    let mut said: HashMap<&str, String> = HashMap::new();
    let mut sources = Vec::new();
    for id in reads {
        let Some(node) = structure.node(id) else {
            continue;
        };
        let Some(tool) = &node.tool else {
            continue;
        };
        let at = format!("at {}:{}", node.span.line, node.span.column);
        let name = (structure.variable_bindings.iter()).find_map(|(n, v)| (v == id).then_some(n));
        let replacement = match name {
            Some(name) => {
                sources.push(format!("{tool} {at}"));
                name.clone()
            }
            None if node.is_mcp() => format!("(the result of {tool} {at})"),
            None => format!("(the value of {tool} {at})"),
        };
        said.insert(id.as_str(), replacement);
    }
    let text = leaves.with_results(expression, |id| said.get(id).map(String::as_str));
    match sources.is_empty() {
        true => text,
        false => format!("{text}, from {}", sources.join(", ")),
    }
}

/// Whether node `n` is in a branch, a loop or a local function (it may run several times, or
/// not at all).
fn may_run(structure: &pml_structure::StaticStructure, n: &pml_structure::Node) -> bool {
    use pml_structure::Scope;
    let mut scope = n.scope.as_ref();
    // Scopes only point outwards: a chain ends.
    for _ in 0..structure.nodes.len() {
        match scope {
            None => return false,
            Some(Scope::Fork { id }) => scope = structure.node(id).and_then(|p| p.scope.as_ref()),
            Some(_) => return true,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn computed_arguments_are_said_with_the_programs_names() {
        let code = "const file = await mcp.fs.read({ path: 'a' });\nawait mcp.fs.write({ path: 'b', content: file.content, size: (await mcp.fs.stat({ path: 'a' })).size + file.n1, note: file.content + ' n1' });";
        let structure =
            pml_structure::build_structure(code, &pml_structure::BuildOptions::default()).structure;
        let write = (structure.nodes.iter())
            .find(|n| n.tool.as_deref() == Some("fs:write"))
            .unwrap();
        let args = serde_json::json!({});
        let said = |key: &str| {
            super::planned_value(&write.arguments.as_ref().unwrap()[key], &args, &structure)
        };
        assert_eq!(
            said("content"),
            serde_json::json!({"$computed": "file.content, from fs:read at 1:20"})
        );
        assert_eq!(
            said("size"),
            serde_json::json!({"$computed": "(the result of fs:stat at 2:69).size + file.n1, from fs:read at 1:20"})
        );
        // Not inside a string.
        assert_eq!(
            said("note"),
            serde_json::json!({"$computed": "file.content + ' n1', from fs:read at 1:20"})
        );
    }
}
