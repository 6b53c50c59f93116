//! DAG mode: the scheduler over the physical DAG.
//!
//! Every task waits for a count of the tasks it needs; when the count reaches zero it starts
//! at once (no lock-step layers). What a task needs:
//! - without reordering: its `dependsOn` (the program's order of awaits);
//! - with reordering (the default): a read-only MCP call or a pure code task needs only the
//!   tasks whose results it reads (conditions included) and the last *barrier* before it; a
//!   barrier (an MCP call not annotated read-only) needs every task before it in program
//!   order. So independent read-only calls overlap even when awaited one after another, and
//!   no MCP call moves across a write.
//!
//! A task whose conditions do not hold is skipped (and not traced). A task that fails ends
//! the run with an error (as the uncaught exception would): tasks that need it are not run,
//! no MCP call later in program order than the failure starts, work already running or
//! independent pure work finishes.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use indexmap::IndexMap;
use pml_dag::{Dag, Task, TaskType};
use pml_sandbox::Sandbox;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::approval::SideEffect;
use crate::host::split_tool;
use crate::trace::Op;
use crate::values::{Reader, Results, Values};
use crate::{RunError, Services};

/// What the scheduler needs besides the DAG.
pub(crate) struct Context {
    pub services: Services,
    pub args: Arc<Value>,
    pub reorder: bool,
}

/// How the DAG run ended.
pub(crate) struct DagOutcome {
    pub result: Result<Value, RunError>,
    /// Every MCP call made: tool and arguments.
    pub calls: Vec<(String, Value)>,
    /// Failed pure tasks and the tasks not run because of a failure.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Waiting,
    Running,
    Done,
    /// Its conditions did not hold.
    Skipped,
    Failed,
    /// Not run: something it needs failed or was not run, or an earlier task failed.
    Cancelled,
}

enum Finished {
    /// Logical id -> value (`None`: `undefined`).
    Done(Vec<(String, Option<Value>)>),
    Skipped,
    Failed(RunError),
}

pub(crate) async fn run(dag: &Dag, cx: &Context) -> DagOutcome {
    let tasks = &dag.tasks;
    let n = tasks.len();
    let position: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    let needs = needs(dag, &position, cx);
    let mut waiting: Vec<usize> = needs.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, list) in needs.iter().enumerate() {
        for &j in list {
            dependents[j].push(i);
        }
    }
    let mut status = vec![Status::Waiting; n];
    let mut ready: VecDeque<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut results: Results = HashMap::new();
    let mut calls: Vec<(String, Value)> = Vec::new();
    let mut first_failure: Option<(usize, RunError)> = None;
    let mut warnings: Vec<String> = Vec::new();
    let mut cancelled: Vec<String> = Vec::new();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(usize, Finished, Option<Value>)>();
    let mut running = 0usize;

    loop {
        while let Some(i) = ready.pop_front() {
            let task = &tasks[i];
            let blocked = needs[i]
                .iter()
                .any(|&j| matches!(status[j], Status::Failed | Status::Cancelled));
            let after_failure = first_failure
                .as_ref()
                .is_some_and(|(f, _)| i > *f && task.kind != TaskType::CodeExecution);
            if blocked || after_failure {
                status[i] = Status::Cancelled;
                cancelled.push(format!("{} ({})", task.id, task.tool));
                release(i, &dependents, &mut waiting, &mut ready);
                continue;
            }
            status[i] = Status::Running;
            running += 1;
            let snapshot = snapshot(task, dag, &results, cx);
            let job = Job {
                task: task.clone(),
                logical: logical_ids(dag, task),
                values: snapshot,
            };
            let tx = done_tx.clone();
            let cx = cx.services.clone();
            tokio::spawn(async move {
                let (finished, call_args) = job.run(&cx).await;
                let _ = tx.send((i, finished, call_args));
            });
        }
        if running == 0 {
            break;
        }
        let Some((i, finished, call_args)) = done_rx.recv().await else {
            break;
        };
        running -= 1;
        if let Some(a) = call_args {
            calls.push((tasks[i].tool.clone(), a));
        }
        status[i] = match finished {
            Finished::Done(values) => {
                results.extend(values);
                Status::Done
            }
            Finished::Skipped => Status::Skipped,
            Finished::Failed(error) => {
                if tasks[i].kind == TaskType::CodeExecution {
                    warnings.push(format!(
                        "pure code failed (safe to fail, nothing it did needs undoing): {error}"
                    ));
                }
                if first_failure.as_ref().is_none_or(|(f, _)| i < *f) {
                    first_failure = Some((i, error));
                }
                Status::Failed
            }
        };
        release(i, &dependents, &mut waiting, &mut ready);
    }

    if !cancelled.is_empty() {
        warnings.push(format!("not run after a failure: {}", cancelled.join(", ")));
    }
    if let Some((_, error)) = first_failure {
        return DagOutcome {
            result: Err(error),
            calls,
            warnings,
        };
    }
    let result = match &dag.result {
        None => Ok(Value::Null),
        Some(r) => {
            let mut texts = Vec::new();
            crate::values::expressions(&r.value, &mut texts);
            let values = owned_values(texts, dag, &results, cx, r.literals.clone());
            let sandbox = cx.services.sandbox.clone();
            let value = r.value.clone();
            let evaluate = move || {
                let reader = Reader {
                    task_id: "result",
                    tool: "return",
                };
                values.view().argument(&value, &sandbox, &reader)
            };
            // A result made of literals and paths needs no sandbox (and no blocking thread).
            let evaluated = if crate::values::is_simple(&r.value) {
                evaluate()
            } else {
                blocking(evaluate).await
            };
            evaluated
                .map(|v| crate::values::js_numbers(v.unwrap_or(Value::Null)))
                .map_err(|e| RunError::from_sandbox(e, None))
        }
    };
    DagOutcome {
        result,
        calls,
        warnings,
    }
}

fn release(
    i: usize,
    dependents: &[Vec<usize>],
    waiting: &mut [usize],
    ready: &mut VecDeque<usize>,
) {
    for &d in &dependents[i] {
        waiting[d] -= 1;
        if waiting[d] == 0 {
            ready.push_back(d);
        }
    }
}

/// The logical ids a physical task runs, in order.
fn logical_ids(dag: &Dag, task: &Task) -> Vec<String> {
    dag.physical_to_logical
        .as_ref()
        .and_then(|m| m.get(&task.id))
        .cloned()
        .unwrap_or_else(|| vec![task.id.clone()])
}

/// What each task waits for (indices into `dag.tasks`), per the module doc.
fn needs(dag: &Dag, position: &HashMap<&str, usize>, cx: &Context) -> Vec<Vec<usize>> {
    let index = |ids: &[String]| -> Vec<usize> {
        let mut v: Vec<usize> = ids
            .iter()
            .filter_map(|id| position.get(id.as_str()).copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if !cx.reorder {
        return dag.tasks.iter().map(|t| index(&t.depends_on)).collect();
    }
    let deps: Vec<Vec<usize>> = dag.tasks.iter().map(|t| index(&t.depends_on)).collect();
    let ancestors = Ancestors::of(&deps);
    let mut out = Vec::with_capacity(dag.tasks.len());
    // The barriers no later barrier waits for yet: every later MCP call waits for them.
    let mut frontier: Vec<usize> = Vec::new();
    for (i, t) in dag.tasks.iter().enumerate() {
        let free = t.kind == TaskType::CodeExecution
            || (t.kind == TaskType::McpTool && cx.services.facts.read_only(t));
        let mut list = if free {
            let mut v = index(&t.metadata.reads);
            if t.kind == TaskType::McpTool {
                v.extend(frontier.iter().copied());
            }
            v
        } else {
            // A barrier waits for every earlier task the program runs before it (not for
            // its siblings in a `Promise.all`, which the program runs alongside it), and for
            // the barriers before it.
            let from = frontier.iter().copied().min().unwrap_or(0);
            let mut v: Vec<usize> = (from..i).filter(|&j| ancestors.is(j, i)).collect();
            v.extend(deps[i].iter().copied());
            v.extend(frontier.iter().copied().filter(|&b| ancestors.is(b, i)));
            frontier.retain(|&b| !ancestors.is(b, i));
            frontier.push(i);
            v
        };
        list.sort_unstable();
        list.dedup();
        list.retain(|&j| j != i);
        out.push(list);
    }
    out
}

/// "Does the program run task `a` before task `b`": `a` reaches `b` through `dependsOn`.
/// Bit sets for up to [`Ancestors::EXACT`] tasks; beyond that every earlier task counts (a
/// safe over-approximation: it only orders sibling writes).
struct Ancestors {
    words: usize,
    bits: Vec<u64>,
}

impl Ancestors {
    const EXACT: usize = 8192;

    fn of(deps: &[Vec<usize>]) -> Self {
        let n = deps.len();
        if n > Self::EXACT {
            return Ancestors {
                words: 0,
                bits: Vec::new(),
            };
        }
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        for (i, list) in deps.iter().enumerate() {
            for &d in list.iter().filter(|&&d| d < i) {
                bits[i * words + d / 64] |= 1 << (d % 64);
                let (before, row) = bits.split_at_mut(i * words);
                for w in 0..words {
                    row[w] |= before[d * words + w];
                }
            }
        }
        Ancestors { words, bits }
    }

    fn is(&self, a: usize, b: usize) -> bool {
        if self.words == 0 {
            return a < b;
        }
        self.bits[b * self.words + a / 64] & (1 << (a % 64)) != 0
    }
}

/// The values a task reads, copied out of the run's results so the task can run on its own.
fn snapshot(task: &Task, dag: &Dag, results: &Results, cx: &Context) -> OwnedValues {
    let mut texts: Vec<&str> = Vec::new();
    if let Some(code) = &task.code {
        texts.push(code);
    }
    if let Some(args) = &task.arguments {
        for v in args.values() {
            crate::values::expressions(v, &mut texts);
        }
    }
    for c in &task.condition {
        texts.push(&c.expression);
    }
    owned_values(texts, dag, results, cx, task.literals.clone())
}

fn owned_values(
    texts: Vec<&str>,
    dag: &Dag,
    results: &Results,
    cx: &Context,
    literals: IndexMap<String, Value>,
) -> OwnedValues {
    let mut own = HashMap::new();
    let mut joins = IndexMap::new();
    for text in texts {
        for name in pml_dag::expr::free_names(text) {
            if let Some(v) = results.get(&name) {
                own.insert(name, v.clone());
            } else if let Some(elements) = dag.joins.get(&name) {
                for e in elements {
                    if let Some(v) = results.get(e) {
                        own.insert(e.clone(), v.clone());
                    }
                }
                joins.insert(name, elements.clone());
            }
        }
    }
    OwnedValues {
        args: cx.args.clone(),
        results: own,
        joins,
        literals,
    }
}

/// [`Values`] with owned data, to move into a task.
pub(crate) struct OwnedValues {
    args: Arc<Value>,
    results: Results,
    joins: IndexMap<String, Vec<String>>,
    literals: IndexMap<String, Value>,
}

impl OwnedValues {
    fn view(&self) -> Values<'_> {
        Values {
            args: &self.args,
            results: &self.results,
            joins: &self.joins,
            literals: &self.literals,
        }
    }
}

struct Job {
    task: Task,
    logical: Vec<String>,
    values: OwnedValues,
}

impl Job {
    /// Runs the task: conditions, arguments, approval, the call or the code; traces it.
    /// Also returns the arguments of an MCP call that was made.
    async fn run(self, cx: &Services) -> (Finished, Option<Value>) {
        let Job {
            task,
            logical,
            values,
        } = self;
        let task = Arc::new(task);
        let values = Arc::new(values);
        match task.kind {
            TaskType::McpTool => {
                let prepare = {
                    let (task, values, sandbox) =
                        (task.clone(), values.clone(), cx.sandbox.clone());
                    move || {
                        let view = values.view();
                        let reader = Reader {
                            task_id: &task.id,
                            tool: &task.tool,
                        };
                        if !view.conditions_hold(&task.condition, &sandbox, &reader)? {
                            return Ok(None);
                        }
                        let empty = IndexMap::new();
                        let properties = task.arguments.as_ref().unwrap_or(&empty);
                        let args = view.object(properties, &sandbox, &reader)?;
                        Ok(Some(Value::Object(args)))
                    }
                };
                // Literals and paths are read right here; anything else may need the sandbox,
                // which blocks, so it runs on a blocking thread.
                let simple = task.condition.is_empty()
                    && task
                        .arguments
                        .as_ref()
                        .is_none_or(|a| a.values().all(crate::values::is_simple));
                let prepared = if simple {
                    prepare()
                } else {
                    blocking(prepare).await
                };
                let arguments = match prepared {
                    Ok(Some(a)) => crate::values::js_numbers(a),
                    Ok(None) => return (Finished::Skipped, None),
                    Err(e) => {
                        return (
                            Finished::Failed(RunError::from_sandbox(e, Some(&task))),
                            None,
                        )
                    }
                };
                let (server, tool) = split_tool(&task.tool);
                let op = Op {
                    task_id: Some(&task.id),
                    tool: &task.tool,
                    ..Op::default()
                };
                let destructive = cx.facts.destructive(&task.tool);
                if cx.policy.needs_approval(&task.tool, destructive) {
                    let effect = SideEffect {
                        task_id: task.id.clone(),
                        tool: task.tool.clone(),
                        arguments: Some(arguments.clone()),
                        needs_approval: true,
                    };
                    if !cx.approver.approve(&effect).await {
                        let message = format!(
                            "task {} ({}): the call was not approved",
                            task.id, task.tool
                        );
                        let since = cx.tracer.start(&op);
                        cx.tracer.end(&op, since, Err(&message));
                        return (
                            Finished::Failed(RunError::task(message, &task.id, &task.tool)),
                            None,
                        );
                    }
                }
                let since = cx.tracer.start(&op);
                let outcome = cx.host.call(server, tool, arguments.clone()).await;
                match outcome {
                    Ok(value) => {
                        cx.tracer.end(&op, since, Ok(Some(&value)));
                        (
                            Finished::Done(vec![(task.id.clone(), Some(value))]),
                            Some(arguments),
                        )
                    }
                    Err(failure) => {
                        let message =
                            format!("task {} ({}): {}", task.id, task.tool, failure.detail);
                        cx.tracer.end(&op, since, Err(&failure.detail));
                        (
                            Finished::Failed(RunError::task(message, &task.id, &task.tool)),
                            Some(arguments),
                        )
                    }
                }
            }
            TaskType::CodeExecution => {
                let physical = (logical.len() > 1).then(|| task.id.clone());
                let tools: Vec<String> = logical
                    .iter()
                    .map(|id| {
                        cx.facts
                            .logical_tool(id)
                            .unwrap_or_else(|| task.tool.clone())
                    })
                    .collect();
                let tracer = cx.tracer.clone();
                let sandbox = cx.sandbox.clone();
                let t = task.clone();
                let result = blocking(move || {
                    let view = values.view();
                    let reader = Reader {
                        task_id: &t.id,
                        tool: &t.tool,
                    };
                    if !view.conditions_hold(&t.condition, &sandbox, &reader)? {
                        return Ok(None);
                    }
                    let starts: Vec<f64> = logical
                        .iter()
                        .zip(&tools)
                        .map(|(id, tool)| {
                            tracer.start(&Op {
                                task_id: Some(id),
                                physical_task_id: physical.as_deref(),
                                tool,
                                ..Op::default()
                            })
                        })
                        .collect();
                    let outcome = code_task(&t, &view, &sandbox, &reader);
                    let outputs: Result<Vec<(String, Option<Value>)>, String> = match &outcome {
                        Ok(value) => Ok(split_outputs(&t, &logical, value.clone())),
                        Err(e) => Err(e.to_string()),
                    };
                    for ((id, tool), since) in logical.iter().zip(&tools).zip(starts) {
                        let op = Op {
                            task_id: Some(id),
                            physical_task_id: physical.as_deref(),
                            tool,
                            ..Op::default()
                        };
                        match &outputs {
                            Ok(values) => {
                                let v = values
                                    .iter()
                                    .find(|(l, _)| l == id)
                                    .and_then(|(_, v)| v.as_ref());
                                tracer.end(&op, since, Ok(v));
                            }
                            Err(e) => tracer.end(&op, since, Err(e)),
                        }
                    }
                    match (outputs, outcome) {
                        (Ok(values), _) => Ok(Some(values)),
                        (Err(_), Err(e)) => Err(e),
                        (Err(e), Ok(_)) => Err(crate::values::internal(e)),
                    }
                })
                .await;
                match result {
                    Ok(Some(values)) => (Finished::Done(values), None),
                    Ok(None) => (Finished::Skipped, None),
                    Err(e) => (
                        Finished::Failed(RunError::from_sandbox(e, Some(&task))),
                        None,
                    ),
                }
            }
            TaskType::Capability | TaskType::Loop => (
                Finished::Failed(RunError::task(
                    format!(
                        "task {} ({}) cannot run as a DAG task (sandbox mode runs it)",
                        task.id, task.tool
                    ),
                    &task.id,
                    &task.tool,
                )),
                None,
            ),
        }
    }
}

/// Runs a code task: its arguments evaluated, then its code in the sandbox.
fn code_task(
    task: &Task,
    view: &Values<'_>,
    sandbox: &Sandbox,
    reader: &Reader<'_>,
) -> Result<Option<Value>, pml_sandbox::SandboxError> {
    let mut arguments: Vec<(String, Option<Value>)> = Vec::new();
    if let Some(args) = &task.arguments {
        for (name, value) in args {
            arguments.push((name.clone(), view.argument(value, sandbox, reader)?));
        }
    }
    let code = task.code.as_deref().unwrap_or("undefined");
    // The code's other names (constants, `args`, results by task id) are bound by `eval`.
    view.eval(code, arguments, sandbox, reader)
}

/// The logical results inside a physical task's value: the last step's for a fused chain,
/// one member per step for a fused sibling group (a missing member is `undefined`).
fn split_outputs(
    task: &Task,
    logical: &[String],
    value: Option<Value>,
) -> Vec<(String, Option<Value>)> {
    match task.metadata.fusion.as_deref() {
        Some("fork_join_fusion") => {
            let mut map = match value {
                Some(Value::Object(map)) => map,
                _ => Default::default(),
            };
            logical
                .iter()
                .map(|id| (id.clone(), map.remove(id)))
                .collect()
        }
        _ => match logical.last() {
            Some(last) => vec![(last.clone(), value)],
            None => Vec::new(),
        },
    }
}

/// Runs blocking work (the sandbox) off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, pml_sandbox::SandboxError> + Send + 'static,
) -> Result<T, pml_sandbox::SandboxError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(crate::values::internal(format!("a task stopped: {e}"))),
    }
}
