//! Speculation: read-only calls started ahead of the program, taken when the program makes
//! the same call.
//!
//! **Plan.** A *target* is an MCP call node of the structure whose tool is read-only (annotated
//! `readOnlyHint`, or in [`crate::ExecuteOptions::read_only`]) and needs no approval, that the
//! program awaits directly (`await mcp.s.t(...)`: it cannot tell when the call completed, only
//! that it did), not in a `catch` handler (it runs only after a throw), not in a `Promise.all`
//! (the program starts those together anyway), outside any loop or directly in a `for ... of`
//! loop (one call per element of the iterable). Nothing is speculated in a program that races promises, keeps a call
//! un-awaited, or may call tools where the structure cannot see (a local function, a computed
//! name, a capability): there, when a call completes could change what it computes.
//!
//! **When.** A target starts as soon as (1) its arguments can be computed: from `args`,
//! literals and the values known so far: results of the program's calls, values of the
//! operations the arguments read (reported by the instrumented program, or computed here
//! first, in a side sandbox context, from the pure operations of the logical DAG whose inputs
//! are known); for a loop, once its iterable is known, one call per element; (2) the program
//! has taken the branch it is in (each decision around it reported that outcome); (3) every
//! call that is not read-only and comes before it in program order (or shares its loop) has
//! finished, at most once (not inside a loop); (4) no call that is not read-only is running.
//!
//! **Taking.** When the program makes a read-only call, it takes a speculative call with the
//! same tool and the same arguments (canonical JSON) if the program has made no call that is
//! not read-only since that speculative call started (the *write epoch*); a speculative call
//! serves one program call at most; one that failed serves none (the program calls afresh).
//! So a wrong guess costs one unused read and is never visible in the result. Speculative
//! calls nobody took are counted as wasted and never traced.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use pml_structure::{ArgumentValue, LoopKind, NodeKind, ProbeKind, Scope, StaticStructure};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::values::{Reader, Results, Values};
use crate::{Program, Services, ToolFailure};

/// What speculation did in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeculationReport {
    /// Speculative calls started.
    pub planned: usize,
    /// Taken by a call of the program.
    pub served: usize,
    /// Not taken (or failed): reads made for nothing.
    pub wasted: usize,
}

/// Most speculative calls running at once.
const IN_FLIGHT: usize = 32;
/// Most speculative calls per loop.
const PER_LOOP: usize = 256;

/// One call node that may be speculated.
struct Target {
    node: String,
    server: String,
    tool: String,
    arguments: IndexMap<String, ArgumentValue>,
    /// The `for ... of` loop the call is directly in: its id, iterable expression, and the
    /// names that expression reads.
    each: Option<(String, String, Vec<String>)>,
    /// Write nodes that must have finished first.
    after: Vec<String>,
    /// Node ids the arguments (and the iterable) read.
    reads: Vec<String>,
    /// Where the call is in the program (byte offset).
    at: usize,
    /// The decisions around it and the outcome that leads to it.
    branches: Vec<(String, String)>,
}

/// A pure operation of the logical DAG whose value a target needs, computed ahead of the
/// program when its inputs are known.
struct Computable {
    id: String,
    tool: String,
    code: String,
    arguments: IndexMap<String, ArgumentValue>,
    reads: Vec<String>,
}

/// A speculative call.
struct Entry {
    epoch: u64,
    call: JoinHandle<Result<Value, ToolFailure>>,
}

#[derive(Default)]
struct State {
    values: Results,
    /// Write calls the program has made (bumped when one starts).
    epoch: u64,
    writes_running: usize,
    /// Write nodes that finished (successfully).
    finished: HashSet<String>,
    /// Decision id -> the outcome the program took (decisions outside loops).
    decided: HashMap<String, String>,
    /// Nodes (with where they are) whose speculative call failed: until the program's own
    /// call to them succeeds, nothing after them is speculated (the program is likely to stop
    /// there).
    failed: HashMap<String, usize>,
    /// (node, element) already started, by speculation or by the program.
    started: HashSet<(String, Option<usize>)>,
    /// Targets with nothing left to start (every element of a loop's).
    done: HashSet<String>,
    /// (tool, canonical arguments) -> speculative calls not taken yet.
    entries: HashMap<(String, String), Vec<Entry>>,
    running: usize,
    report: SpeculationReport,
    over: bool,
}

/// The speculation of one run (see the module doc).
pub(crate) struct Speculation {
    targets: Vec<Target>,
    computable: Vec<Computable>,
    state: Mutex<State>,
    wake: Notify,
    services: Services,
    args: Value,
    literals: IndexMap<String, Value>,
    /// Probes of the operations whose values the targets read.
    wanted: Vec<u32>,
    /// Probe number -> node id, for those.
    wanted_nodes: HashMap<u32, String>,
}

impl Speculation {
    /// The plan for `program`, or `None` when nothing may be speculated.
    pub(crate) fn plan(
        program: &Program,
        services: &Services,
        args: &Value,
        read_only: &dyn Fn(&str) -> bool,
    ) -> Option<Arc<Speculation>> {
        let instrumented = program.instrumented.as_ref()?;
        let structure = &program.structure;
        let hidden = structure.diagnostics.iter().any(|d| {
            d.code == pml_structure::diagnostics::UNANALYSED_FUNCTION
                || d.code == pml_structure::diagnostics::DYNAMIC_CALL
        });
        let calls: Vec<_> = (instrumented.probes.iter())
            .filter(|p| p.kind == ProbeKind::Call)
            .collect();
        let unawaited = calls.iter().any(|p| {
            !p.awaited
                && p.nodes.iter().any(|id| {
                    structure
                        .node(id)
                        .is_some_and(|n| !matches!(n.scope, Some(Scope::Fork { .. })))
                })
        });
        let capabilities = structure
            .nodes
            .iter()
            .any(|n| n.kind == NodeKind::Capability);
        if hidden || unawaited || capabilities || instrumented.observes_timing {
            return None;
        }
        // Awaited calls that run whenever the program gets there (not only after a throw).
        let awaited: HashSet<&str> = (calls.iter())
            .filter(|p| p.awaited && !p.guarded)
            .flat_map(|p| p.nodes.iter().map(String::as_str))
            .collect();
        let writes: Vec<&pml_structure::Node> = (structure.nodes.iter())
            .filter(|n| n.kind == NodeKind::Capability || n.is_mcp())
            .filter(|n| !n.tool.as_deref().is_some_and(read_only))
            .collect();
        // A write inside a local function happens wherever the function is called, which its
        // position in the text does not tell.
        if writes.iter().any(|w| in_function(structure, &w.id)) {
            return None;
        }
        let mut targets = Vec::new();
        for node in structure.nodes.iter().filter(|n| n.is_mcp()) {
            let Some(tool) = node.tool.as_deref() else {
                continue;
            };
            let approval = services
                .policy
                .needs_approval(tool, services.facts.destructive(tool));
            // Calls of a fork run together anyway: the program starts them all at once.
            let in_fork = in_fork(structure, &node.id);
            // A call inside a local function runs once per call of it, with its arguments.
            let in_function = in_function(structure, &node.id);
            if !read_only(tool)
                || approval
                || !awaited.contains(node.id.as_str())
                || in_fork
                || in_function
            {
                continue;
            }
            let loops = enclosing_loops(structure, &node.id);
            let Some(branches) = branches(structure, &node.id) else {
                continue;
            };
            let each = match loops.as_slice() {
                [] => None,
                [l] => {
                    let l = structure.node(l)?;
                    match (l.loop_kind, &l.condition) {
                        (Some(LoopKind::ForOf), Some(iterable)) => {
                            Some((l.id.clone(), iterable.clone(), l.reads.clone()))
                        }
                        _ => continue,
                    }
                }
                _ => continue,
            };
            // Writes before it in the program, or in its loop, must have finished, once.
            let mut after = Vec::new();
            let mut blocked = false;
            for w in &writes {
                let shares_loop = enclosing_loops(structure, &w.id)
                    .iter()
                    .any(|l| loops.contains(l));
                if shares_loop || (w.span.start < node.span.start && in_loop(structure, &w.id)) {
                    blocked = true;
                    break;
                }
                if w.span.start < node.span.start {
                    after.push(w.id.clone());
                }
            }
            if blocked {
                continue;
            }
            let Some(arguments) = node.arguments.clone() else {
                continue;
            };
            let mut reads: Vec<String> = Vec::new();
            let iterable = each
                .iter()
                .flat_map(|(_, _, r)| r.iter().map(String::as_str));
            let names = arguments.values().flat_map(|v| v.reads()).chain(iterable);
            for name in names {
                if structure.node(name).is_some() && !reads.iter().any(|r| r == name) {
                    reads.push(name.to_owned());
                }
            }
            let (server, tool) = crate::host::split_tool(tool);
            targets.push(Target {
                node: node.id.clone(),
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments,
                each,
                after,
                reads,
                at: node.span.start,
                branches,
            });
        }
        if targets.is_empty() {
            return None;
        }
        // The pure operations the targets read, and those these read, transitively.
        let mut read: HashSet<&str> = (targets.iter())
            .flat_map(|t| t.reads.iter().map(String::as_str))
            .collect();
        let mut computable = Vec::new();
        let mut queue: Vec<&str> = read.iter().copied().collect();
        while let Some(id) = queue.pop() {
            let Some(task) = program.logical.task(id) else {
                continue;
            };
            let (Some(code), Some(arguments)) = (&task.code, &task.arguments) else {
                continue;
            };
            if task.kind != pml_dag::TaskType::CodeExecution || !task.metadata.pure {
                continue;
            }
            let reads = task.metadata.reads.clone();
            for r in &reads {
                if let Some(r) = structure.node(r) {
                    if read.insert(r.id.as_str()) {
                        queue.push(r.id.as_str());
                    }
                }
            }
            computable.push(Computable {
                id: task.id.clone(),
                tool: task.tool.clone(),
                code: code.clone(),
                arguments: arguments.clone(),
                reads,
            });
        }
        // Their values also come from the program's probes, whichever is first.
        let mut wanted = Vec::new();
        let mut wanted_nodes = HashMap::new();
        for (i, probe) in instrumented.probes.iter().enumerate() {
            if probe.kind != ProbeKind::Operation {
                continue;
            }
            if let [id] = probe.nodes.as_slice() {
                if read.contains(id.as_str()) {
                    let k = i as u32 + 1;
                    wanted.push(k);
                    wanted_nodes.insert(k, id.clone());
                }
            }
        }
        Some(Arc::new(Speculation {
            targets,
            computable,
            state: Mutex::new(State::default()),
            wake: Notify::new(),
            services: services.clone(),
            args: args.clone(),
            literals: structure.literal_bindings.clone(),
            wanted,
            wanted_nodes,
        }))
    }

    /// Probes whose values the program should report.
    pub(crate) fn wanted(&self) -> &[u32] {
        &self.wanted
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts what can start now, and again each time the program gets further, until
    /// [`Speculation::finish`].
    pub(crate) fn drive(self: &Arc<Self>) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                let notified = this.wake.notified();
                let scan = this.clone();
                if tokio::task::spawn_blocking(move || scan.scan())
                    .await
                    .is_err()
                {
                    return;
                }
                if this.lock().over {
                    return;
                }
                notified.await;
            }
        })
    }

    /// One pass over the targets: starts every one that is ready.
    fn scan(self: &Arc<Self>) {
        let (values, epoch) = {
            let state = self.lock();
            if state.over || state.writes_running > 0 || state.running >= IN_FLIGHT {
                return;
            }
            // Nothing to do (most wakes of a long run): no copy of the values either.
            if !self.targets.iter().any(|t| Self::may_start(t, &state)) {
                return;
            }
            (state.values.clone(), state.epoch)
        };
        let values = self.compute(values);
        {
            // Keep what was computed for the next scans.
            let mut state = self.lock();
            for (id, value) in &values {
                if !state.values.contains_key(id) {
                    state.values.insert(id.clone(), value.clone());
                }
            }
        }
        let joins = IndexMap::new();
        let known = Values {
            args: &self.args,
            results: &values,
            joins: &joins,
            literals: &self.literals,
        };
        for target in &self.targets {
            {
                let state = self.lock();
                let read = target.reads.iter().all(|n| values.contains_key(n));
                if !read || !Self::may_start(target, &state) {
                    continue;
                }
            }
            let reader = Reader {
                task_id: &target.node,
                tool: &target.tool,
            };
            let elements: Vec<Option<usize>> = match &target.each {
                None => vec![None],
                Some((_, iterable, names)) => {
                    match known.expression(iterable, names, &self.services.sandbox, &reader) {
                        Ok(Some(Value::Array(items))) => {
                            (0..items.len().min(PER_LOOP)).map(Some).collect()
                        }
                        _ => continue,
                    }
                }
            };
            let mut all_started = true;
            for element in elements {
                let key = (target.node.clone(), element);
                if self.lock().started.contains(&key) {
                    continue;
                }
                all_started = false;
                let arguments = match element {
                    None => target.arguments.clone(),
                    Some(i) => (target.arguments.iter())
                        .map(|(k, v)| (k.clone(), at_element(v, i)))
                        .collect(),
                };
                let Ok(arguments) = known.object(&arguments, &self.services.sandbox, &reader)
                else {
                    continue;
                };
                let arguments = Value::Object(arguments);
                let mut state = self.lock();
                // The program may have moved on meanwhile.
                if state.over
                    || state.epoch != epoch
                    || state.writes_running > 0
                    || state.running >= IN_FLIGHT
                {
                    return;
                }
                if !state.started.insert(key) {
                    continue;
                }
                let tool = format!("{}:{}", target.server, target.tool);
                let host = self.services.host.clone();
                let (server, name) = (target.server.clone(), target.tool.clone());
                let sent = arguments.clone();
                let this = self.clone();
                let (node, at) = (target.node.clone(), target.at);
                let call = tokio::spawn(async move {
                    let outcome = host.call(&server, &name, sent).await;
                    let mut state = this.lock();
                    state.running -= 1;
                    match &outcome {
                        Err(_) => {
                            state.failed.insert(node, at);
                        }
                        // A guess for what reads it, until the program's own answer comes (a
                        // wrong guess only makes reads nobody takes).
                        Ok(value) if element.is_none() => {
                            state
                                .values
                                .entry(node)
                                .or_insert_with(|| Some(value.clone()));
                        }
                        Ok(_) => {}
                    }
                    drop(state);
                    this.wake.notify_one();
                    outcome
                });
                state.running += 1;
                state.report.planned += 1;
                state
                    .entries
                    .entry((tool, canonical(&arguments)))
                    .or_default()
                    .push(Entry { epoch, call });
            }
            if all_started {
                self.lock().done.insert(target.node.clone());
            }
        }
    }

    /// Whether `target` may start now, but for its data: not done, the writes before it
    /// finished, its branch taken, no failed read before it.
    fn may_start(target: &Target, state: &State) -> bool {
        !state.done.contains(&target.node)
            && target.after.iter().all(|w| state.finished.contains(w))
            && !state.failed.values().any(|at| *at < target.at)
            && (target.branches.iter()).all(|(d, outcome)| state.decided.get(d) == Some(outcome))
    }

    /// Computes the pure operations whose inputs are known and whose values are not (in a
    /// side sandbox context): `values` with theirs added.
    fn compute(&self, mut values: Results) -> Results {
        let joins = IndexMap::new();
        loop {
            let mut progress = false;
            for c in &self.computable {
                if values.contains_key(&c.id) || !c.reads.iter().all(|r| values.contains_key(r)) {
                    continue;
                }
                let known = Values {
                    args: &self.args,
                    results: &values,
                    joins: &joins,
                    literals: &self.literals,
                };
                let reader = Reader {
                    task_id: &c.id,
                    tool: &c.tool,
                };
                let mut given = Vec::with_capacity(c.arguments.len());
                let mut ok = true;
                for (name, argument) in &c.arguments {
                    match known.argument(argument, &self.services.sandbox, &reader) {
                        Ok(v) => given.push((name.clone(), v)),
                        Err(_) => ok = false,
                    }
                }
                let value = match ok {
                    true => known.code(&c.code, given, &self.services.sandbox, &reader),
                    false => continue,
                };
                if let Ok(value) = value {
                    values.insert(c.id.clone(), value);
                    progress = true;
                }
            }
            if !progress {
                return values;
            }
        }
    }

    /// The program took `outcome` at decision `id` (outside loops).
    pub(crate) fn decided(&self, id: &str, iteration: &[u32], outcome: &str) {
        if !iteration.is_empty() {
            return;
        }
        self.lock()
            .decided
            .insert(id.to_owned(), outcome.to_owned());
        self.wake.notify_one();
    }

    /// The program makes a call to `tool` (`node`, at `element` of its loop when directly in
    /// one): a speculative call to take, if any. A call that is not read-only opens a new
    /// write epoch.
    pub(crate) fn before_call(
        &self,
        tool: &str,
        read_only: bool,
        arguments: &Value,
        node: Option<(&str, Option<usize>)>,
    ) -> Option<JoinHandle<Result<Value, ToolFailure>>> {
        let mut state = self.lock();
        if let Some((node, element)) = node {
            state.started.insert((node.to_owned(), element));
        }
        if !read_only {
            state.epoch += 1;
            state.writes_running += 1;
            return None;
        }
        let epoch = state.epoch;
        let key = (tool.to_owned(), canonical(arguments));
        let entries = state.entries.get_mut(&key)?;
        let i = entries.iter().position(|e| e.epoch == epoch)?;
        let entry = entries.swap_remove(i);
        Some(entry.call)
    }

    /// A speculative call was taken: `served` when it answered, else the program calls afresh.
    pub(crate) fn taken(&self, served: bool) {
        let mut state = self.lock();
        if served {
            state.report.served += 1;
        } else {
            state.report.wasted += 1;
        }
    }

    /// The program's call to `node` ended: `Err` when it failed, else its result when the
    /// call is outside loops.
    pub(crate) fn after_call(
        &self,
        node: Option<&str>,
        read_only: bool,
        outcome: Result<Option<&Value>, ()>,
    ) {
        let mut state = self.lock();
        if !read_only {
            state.writes_running = state.writes_running.saturating_sub(1);
        }
        if let (Some(node), Ok(value)) = (node, outcome) {
            if !read_only {
                state.finished.insert(node.to_owned());
            }
            state.failed.remove(node);
            if let Some(value) = value {
                state.values.insert(node.to_owned(), Some(value.clone()));
            }
        }
        drop(state);
        self.wake.notify_one();
    }

    /// An operation's value the program reported (probe `k`, outside loops).
    pub(crate) fn value(&self, k: u32, iteration: &[u32], value: Value) {
        let Some(node) = self.wanted_nodes.get(&k) else {
            return;
        };
        if !iteration.is_empty() {
            return;
        }
        self.lock().values.insert(node.clone(), Some(value));
        self.wake.notify_one();
    }

    /// Ends speculation: calls nobody took are dropped (and counted as wasted).
    pub(crate) async fn finish(&self) -> SpeculationReport {
        let left: Vec<Entry> = {
            let mut state = self.lock();
            state.over = true;
            let left: Vec<Entry> = state.entries.drain().flat_map(|(_, v)| v).collect();
            state.report.wasted += left.len();
            left
        };
        self.wake.notify_one();
        // Calls nobody took are cancelled, and gone (with what they hold) before the run ends.
        for entry in left {
            entry.call.abort();
            let _ = entry.call.await;
        }
        self.lock().report
    }
}

/// The loops around node `id`, innermost first.
fn enclosing_loops(structure: &StaticStructure, id: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = structure.node(id).and_then(|n| n.scope.clone());
    // Scopes only point outwards: a chain ends.
    for _ in 0..structure.nodes.len() {
        let Some(scope) = at else { break };
        let id = match scope {
            Scope::Loop { id } => {
                out.push(id.clone());
                id
            }
            Scope::Decision { id, .. } | Scope::Fork { id } | Scope::Function { id } => id,
        };
        at = structure.node(&id).and_then(|n| n.scope.clone());
    }
    out
}

/// The decisions around node `id` with the outcome leading to it, outermost last; `None` when
/// one of them is inside a loop (its outcome changes per iteration).
fn branches(structure: &StaticStructure, id: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut at = structure.node(id).and_then(|n| n.scope.clone());
    for _ in 0..structure.nodes.len() {
        let Some(scope) = at else { break };
        let id = match scope {
            Scope::Decision { id, outcome } => {
                if in_loop(structure, &id) {
                    return None;
                }
                out.push((id.clone(), outcome));
                id
            }
            Scope::Loop { id } | Scope::Fork { id } | Scope::Function { id } => id,
        };
        at = structure.node(&id).and_then(|n| n.scope.clone());
    }
    Some(out)
}

/// Whether node `id` is inside a `Promise.all` (a fork), at any depth.
fn in_fork(structure: &StaticStructure, id: &str) -> bool {
    let mut at = structure.node(id).and_then(|n| n.scope.clone());
    for _ in 0..structure.nodes.len() {
        let Some(scope) = at else { break };
        let id = match scope {
            Scope::Fork { .. } => return true,
            Scope::Decision { id, .. } | Scope::Loop { id } | Scope::Function { id } => id,
        };
        at = structure.node(&id).and_then(|n| n.scope.clone());
    }
    false
}

/// Whether node `id` is inside a local function, at any depth.
fn in_function(structure: &StaticStructure, id: &str) -> bool {
    let mut at = structure.node(id).and_then(|n| n.scope.clone());
    for _ in 0..structure.nodes.len() {
        let Some(scope) = at else { break };
        if let Scope::Function { .. } = scope {
            return true;
        }
        at = structure.node(scope.id()).and_then(|n| n.scope.clone());
    }
    false
}

fn in_loop(structure: &StaticStructure, id: &str) -> bool {
    !enclosing_loops(structure, id).is_empty()
}

/// The argument at element `i` of its loop: the element template `xs[*]` becomes `xs[i]`.
fn at_element(value: &ArgumentValue, i: usize) -> ArgumentValue {
    match value {
        // `[*]` is the builder's mark for "each element".
        ArgumentValue::Reference { expression, reads } => ArgumentValue::reference_reading(
            expression.replace("[*]", &format!("[{i}]")),
            reads.clone(),
        ),
        ArgumentValue::Object { properties } => ArgumentValue::Object {
            properties: (properties.iter())
                .map(|(k, v)| (k.clone(), at_element(v, i)))
                .collect(),
        },
        ArgumentValue::Array { items } => ArgumentValue::Array {
            items: items.iter().map(|v| at_element(v, i)).collect(),
        },
        other => other.clone(),
    }
}

/// JSON text with object keys sorted and numbers as JavaScript writes them (`2.0` is `2`):
/// equal for values a program sends alike, whatever the key order.
pub(crate) fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Number(n) if !(n.is_i64() || n.is_u64()) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                    Value::from(f as i64)
                }
                _ => Value::Number(n.clone()),
            },
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::canonical;
    use serde_json::json;

    #[test]
    fn canonical_json_ignores_key_order_and_float_spelling() {
        assert_eq!(
            canonical(&json!({"b": 1, "a": [2.0, {"d": 3, "c": 1.5}]})),
            canonical(&json!({"a": [2, {"c": 1.5, "d": 3}], "b": 1.0}))
        );
        assert_ne!(canonical(&json!({"a": 1})), canonical(&json!({"a": "1"})));
    }
}
