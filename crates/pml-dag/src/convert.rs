//! Static structure -> logical DAG.

use std::collections::{BTreeSet, HashMap, HashSet};

use indexmap::IndexMap;
use pml_structure::{
    ArgumentValue, Arguments, Diagnostic, EdgeKind, Key, Leaves, LoopKind, Node, NodeKind, Scope,
    Severity, StaticStructure, ToolCatalog,
};

use crate::model::{Condition, Dag, DagResult, DecisionKind, Metadata, Task, TaskType};
use crate::{diagnostics, layers};

/// Inputs beyond the structure.
#[derive(Debug, Clone, Default)]
pub struct DagOptions {
    /// Tool schemas and annotations (`readOnlyHint` marks read-only tools).
    pub catalog: Option<ToolCatalog>,
}

struct Index<'s> {
    s: &'s StaticStructure,
    by_id: HashMap<&'s str, usize>,
    preds: Vec<Vec<usize>>,
    /// Outermost enclosing loop or local function (other than the node itself), if any.
    owner: Vec<Option<usize>>,
    /// Loop or function -> the nodes it absorbs, in node order.
    members: HashMap<usize, Vec<usize>>,
    /// Local function -> every node inside it (nested scopes included), in node order.
    inside: HashMap<usize, Vec<usize>>,
}

impl<'s> Index<'s> {
    fn new(s: &'s StaticStructure) -> Self {
        let by_id: HashMap<&str, usize> = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let mut preds = vec![Vec::new(); s.nodes.len()];
        for e in &s.edges {
            if e.kind == EdgeKind::Provides {
                continue;
            }
            if let (Some(&f), Some(&t)) = (by_id.get(e.from.as_str()), by_id.get(e.to.as_str())) {
                if !preds[t].contains(&f) {
                    preds[t].push(f);
                }
            }
        }
        let mut index = Index {
            s,
            by_id,
            preds,
            owner: Vec::new(),
            members: HashMap::new(),
            inside: HashMap::new(),
        };
        index.owner = (0..s.nodes.len())
            .map(|i| index.outermost_owner(i))
            .collect();
        for i in 0..s.nodes.len() {
            let mut at = i;
            for _ in 0..s.nodes.len() {
                let Some(p) = index.scope_parent(at) else {
                    break;
                };
                if s.nodes[p].kind == NodeKind::Function {
                    index.inside.entry(p).or_default().push(i);
                }
                at = p;
            }
        }
        for (i, o) in index.owner.iter().enumerate() {
            if let Some(l) = o {
                index.members.entry(*l).or_default().push(i);
            }
        }
        index
    }

    fn scope_parent(&self, i: usize) -> Option<usize> {
        let id = self.s.nodes[i].scope.as_ref()?.id();
        self.by_id.get(id).copied()
    }

    fn outermost_owner(&self, i: usize) -> Option<usize> {
        let mut found = None;
        let mut at = i;
        let mut guard = 0;
        while let Some(p) = self.scope_parent(at) {
            if matches!(self.s.nodes[p].kind, NodeKind::Loop | NodeKind::Function) {
                found = Some(p);
            }
            at = p;
            guard += 1;
            if guard > self.s.nodes.len() {
                break; // a scope cycle would be a builder bug; never loop forever
            }
        }
        found
    }

    fn executable(&self, i: usize) -> bool {
        matches!(
            self.s.nodes[i].kind,
            NodeKind::Task | NodeKind::Capability | NodeKind::Loop | NodeKind::Call
        ) && self.owner[i].is_none()
    }

    /// The task that stands for node `i` in the DAG: itself, or the loop that absorbs it.
    /// Nodes inside a local function have none: they run in the calls of the function.
    fn task_of(&self, i: usize) -> Option<usize> {
        match self.owner[i] {
            Some(l) if self.s.nodes[l].kind == NodeKind::Loop => Some(l),
            Some(_) => None,
            None if self.executable(i) => Some(i),
            None => None,
        }
    }

    /// The nodes that may run when `nodes` run: themselves and, through calls of local
    /// functions, everything inside the functions called (each function once).
    fn reach(&self, nodes: &[usize]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut called = HashSet::new();
        let mut stack: Vec<usize> = nodes.iter().rev().copied().collect();
        while let Some(j) = stack.pop() {
            out.push(j);
            let n = &self.s.nodes[j];
            if n.kind != NodeKind::Call {
                continue;
            }
            let f = n
                .function
                .as_deref()
                .and_then(|f| self.by_id.get(f))
                .copied();
            if let Some(f) = f.filter(|&f| called.insert(f)) {
                let inner = self.inside.get(&f).into_iter().flatten();
                stack.extend(inner.rev());
            }
        }
        out
    }

    /// The tools (`server:tool`, `code:*`, `capability:*`) among `nodes`, each once, in order.
    fn tools(&self, nodes: &[usize]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for &j in nodes {
            let n = &self.s.nodes[j];
            let tool = match n.kind {
                NodeKind::Capability => n.capability_id.as_ref().map(|c| format!("capability:{c}")),
                NodeKind::Task => n.tool.clone(),
                _ => None,
            };
            if let Some(tool) = tool.filter(|t| !out.contains(t)) {
                out.push(tool);
            }
        }
        out
    }

    /// Going back along the control flow from node `i` (through decisions, forks, joins and
    /// pure code) to the writes that may run last before it: those writes, and the reads met
    /// on the way. Branches not on a path to `i` (the other side of an `if`, a sibling of a
    /// fork) are not met.
    fn since_last_write(
        &self,
        i: usize,
        effects: &[Option<Effect>],
    ) -> (BTreeSet<usize>, BTreeSet<usize>) {
        let (mut writes, mut reads) = (BTreeSet::new(), BTreeSet::new());
        let mut seen = HashSet::new();
        let mut stack: Vec<usize> = self.preds[i].clone();
        while let Some(p) = stack.pop() {
            if !seen.insert(p) {
                continue;
            }
            match self.task_of(p).filter(|&t| t != i) {
                Some(t) => match effects[t] {
                    Some(Effect::Writes) | None => {
                        writes.insert(t);
                        continue;
                    }
                    Some(Effect::Reads) => {
                        reads.insert(t);
                    }
                    Some(Effect::Pure) => {}
                },
                None if self.task_of(p) == Some(i) => continue,
                None => {}
            }
            stack.extend(self.preds[p].iter().copied());
        }
        (writes, reads)
    }

    /// Nearest executable ancestors through decisions, forks and joins.
    fn dependencies(&self, i: usize) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        let mut seen = HashSet::new();
        let mut stack: Vec<usize> = self.preds[i].clone();
        while let Some(p) = stack.pop() {
            if !seen.insert(p) {
                continue;
            }
            match self.task_of(p) {
                Some(t) if t != i => {
                    out.insert(t);
                }
                Some(_) => {}
                None => stack.extend(self.preds[p].iter().copied()),
            }
        }
        out
    }
}

/// Convert a static structure into the logical DAG.
pub fn to_dag(s: &StaticStructure, options: &DagOptions) -> Dag {
    let index = Index::new(s);
    let mut dag = Dag::default();
    // Joins: which task provides each element.
    for (i, n) in s.nodes.iter().enumerate() {
        if n.kind == NodeKind::Join {
            let elements: Vec<String> = index.preds[i]
                .iter()
                .filter_map(|&p| index.task_of(p))
                .map(|t| s.nodes[t].id.clone())
                .collect();
            dag.joins.insert(n.id.clone(), elements);
        }
    }
    let entries = switch_entries(&index);
    // What each task may do to the world, for the write barriers.
    let effects: Vec<Option<Effect>> = (0..s.nodes.len())
        .map(|i| {
            index.executable(i).then(|| {
                effect_of(
                    &base_task(&s.nodes[i], &index, i, options),
                    &s.nodes[i],
                    &index,
                    options,
                )
            })
        })
        .collect();
    for (i, node) in s.nodes.iter().enumerate() {
        if !index.executable(i) {
            continue;
        }
        let mut task = base_task(node, &index, i, options);
        task.condition = conditions(&index, i, &entries);
        let mut read = Reads::default();
        if let Some(args) = &node.arguments {
            read.arguments(args);
        }
        for c in &task.condition {
            // Made from its decision node, which the index has.
            let decision = index.by_id.get(c.decision_node_id.as_str());
            let leaves = decision.map(|&d| &s.nodes[d].condition_leaves);
            read.names(&c.reads, leaves.unwrap_or(&NO_LEAVES));
        }
        if node.condition.is_some() {
            read.names(&node.reads, &node.condition_leaves);
        }
        let Names {
            reads,
            literals,
            unresolved,
        } = names_read(
            &index,
            &dag.joins,
            Some(i),
            read,
            node.kind == NodeKind::Loop,
        );
        task.literals = literals;
        // What the task needs: the data it reads (its conditions' included), and the writes
        // before it: a read waits for the last write before it; a write (or anything that may
        // write) also waits for every read since that one. Pure code needs its data only.
        let mut depends: BTreeSet<usize> = BTreeSet::new();
        for r in &reads {
            if let Some(t) = index.by_id.get(r.as_str()).and_then(|&j| index.task_of(j)) {
                if t != i {
                    depends.insert(t);
                }
            }
        }
        // A name nothing provides (a variable changed in place, in a loop...): whatever came
        // before in program order may have produced it.
        if !unresolved.is_empty() {
            depends.extend(index.dependencies(i));
        }
        let effect = effects[i].unwrap_or(Effect::Writes);
        if effect != Effect::Pure {
            let (writes, reads) = index.since_last_write(i, &effects);
            depends.extend(writes);
            if effect == Effect::Writes {
                depends.extend(reads);
            }
        }
        task.depends_on = depends.iter().map(|&j| s.nodes[j].id.clone()).collect();
        task.metadata.reads = reads.into_iter().collect();
        let unknown = undeclared(s, &unresolved);
        if !unknown.is_empty() {
            dag.diagnostics.push(Diagnostic {
                task: Some(task.id.clone()),
                ..Diagnostic::spanning(
                    Severity::Warning,
                    diagnostics::UNRESOLVED,
                    unresolved_message(&format!("task {} ({})", task.id, task.tool), &unknown),
                    s.nodes[i].span,
                )
            });
        }
        task.metadata.unresolved = unresolved;
        dag.tasks.push(task);
    }
    if let Some(value) = &s.result {
        let mut read = Reads::default();
        read.value(value);
        let Names {
            reads,
            literals,
            unresolved,
        } = names_read(&index, &dag.joins, None, read, false);
        let unknown = undeclared(s, &unresolved);
        if !unknown.is_empty() {
            let message = unresolved_message("the program's result", &unknown);
            dag.diagnostics.push(match s.result_span {
                Some(span) => {
                    Diagnostic::spanning(Severity::Warning, diagnostics::UNRESOLVED, message, span)
                }
                None => Diagnostic {
                    line: None,
                    column: None,
                    ..Diagnostic::at(Severity::Warning, diagnostics::UNRESOLVED, message, (1, 1))
                },
            });
        }
        dag.result = Some(DagResult {
            value: value.clone(),
            reads: reads.into_iter().collect(),
            literals,
        });
    }
    finish(&mut dag);
    dag
}

/// What running a task may do to the world outside the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Pure code: nothing.
    Pure,
    /// Read-only calls (annotated `readOnlyHint`), loops of those.
    Reads,
    /// Anything else: calls not annotated read-only, capabilities, impure code, loops holding
    /// any of those.
    Writes,
}

fn effect_of(task: &Task, node: &Node, index: &Index<'_>, options: &DagOptions) -> Effect {
    let read_only = |tool: &str| {
        (options.catalog.as_ref())
            .and_then(|c| c.get(tool))
            .and_then(|t| t.annotations.as_ref())
            .and_then(|a| a.get("readOnlyHint"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    };
    match task.kind {
        TaskType::CodeExecution if task.metadata.pure => Effect::Pure,
        TaskType::McpTool if task.metadata.read_only => Effect::Reads,
        TaskType::Loop | TaskType::Call => {
            let i = index.by_id.get(node.id.as_str()).copied();
            let own: Vec<usize> = match task.kind {
                TaskType::Loop => i
                    .and_then(|i| index.members.get(&i))
                    .cloned()
                    .unwrap_or_default(),
                _ => i.into_iter().collect(),
            };
            let writes = index.reach(&own).into_iter().any(|j| {
                let m = &index.s.nodes[j];
                match m.kind {
                    NodeKind::Capability => true,
                    NodeKind::Task if m.is_mcp() => !m.tool.as_deref().is_some_and(read_only),
                    NodeKind::Task => !m.tool.as_deref().is_some_and(pml_pure_ops::is_pure),
                    _ => false,
                }
            });
            if writes {
                Effect::Writes
            } else {
                Effect::Reads
            }
        }
        _ => Effect::Writes,
    }
}

/// The names of `unresolved` the program does not declare: those worth a warning. A name it
/// declares (an accumulator changed in place, a loop variable) and `[*]` (each element of a
/// list it computes) are ordinary code; the task still depends on everything before it.
fn undeclared(s: &StaticStructure, unresolved: &[String]) -> Vec<String> {
    (unresolved.iter())
        .filter(|n| *n != Leaves::MARK && !s.declared.contains(n.as_str()))
        .cloned()
        .collect()
}

/// `<who> reads `a`, `b` which ...`
fn unresolved_message(who: &str, names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "{who} reads {} which the program does not declare and no earlier task or constant provides (a global it assumes?): its dependencies are everything before it",
        names.join(", ")
    )
}

/// What some expressions read: task results (joins expanded to their elements), constants, and
/// names nothing provides (`[*]` for a template over unknown elements, outside loops).
struct Names {
    reads: BTreeSet<String>,
    literals: IndexMap<String, serde_json::Value>,
    unresolved: Vec<String>,
}

/// A text that reads no element.
static NO_LEAVES: Leaves = Leaves::none();

/// The names some expressions read (as the structure says), and whether one of them reads
/// `[*]`: one element of a collection whose elements are not known.
#[derive(Default)]
struct Reads<'s> {
    names: Vec<&'s str>,
    each: bool,
}

impl<'s> Reads<'s> {
    fn names(&mut self, names: &'s [String], leaves: &Leaves) {
        for n in names {
            if !self.names.contains(&n.as_str()) {
                self.names.push(n);
            }
        }
        self.each |= leaves.reads_elements();
    }

    /// What the entries read: their values, and their keys computed at run time.
    fn arguments(&mut self, args: &'s Arguments) {
        for (key, value) in args {
            if let Key::Computed(c) = key {
                self.names(&c.reads, &c.leaves);
            }
            self.value(value);
        }
    }

    fn value(&mut self, v: &'s ArgumentValue) {
        match v {
            ArgumentValue::Reference { reads, leaves, .. } => self.names(reads, leaves),
            ArgumentValue::Object { properties } => self.arguments(properties),
            ArgumentValue::Array { items } => items.iter().for_each(|p| self.value(p)),
            ArgumentValue::Literal { .. } | ArgumentValue::Parameter { .. } => {}
        }
    }
}

fn names_read(
    index: &Index<'_>,
    joins: &IndexMap<String, Vec<String>>,
    reader: Option<usize>,
    read: Reads<'_>,
    in_loop: bool,
) -> Names {
    let s = index.s;
    let mut reads = BTreeSet::new();
    let mut literals = IndexMap::new();
    let mut unresolved = Vec::new();
    for name in read.names.iter().map(|n| n.to_string()) {
        if let Some(&j) = index.by_id.get(name.as_str()) {
            match s.nodes[j].kind {
                NodeKind::Join => {
                    for e in joins.get(&name).into_iter().flatten() {
                        reads.insert(e.clone());
                    }
                }
                _ => {
                    if let Some(t) = index.task_of(j) {
                        if Some(t) != reader {
                            reads.insert(s.nodes[t].id.clone());
                        }
                    }
                }
            }
        } else if let Some(v) = s.literal_bindings.get(&name) {
            literals.insert(name, v.clone());
        } else if !pml_structure::is_global(&name) && !unresolved.contains(&name) {
            unresolved.push(name);
        }
    }
    if read.each && !in_loop {
        unresolved.push(Leaves::MARK.to_string());
    }
    Names {
        reads,
        literals,
        unresolved,
    }
}

/// Compute layers and check the DAG (every dependency exists, no cycle).
pub(crate) fn finish(dag: &mut Dag) {
    match layers::layers(&dag.tasks) {
        Ok(l) => dag.layers = l,
        Err(message) => dag.diagnostics.push(Diagnostic {
            line: None,
            column: None,
            ..Diagnostic::at(Severity::Error, diagnostics::INTERNAL, message, (1, 1))
        }),
    }
}

fn loop_kind_name(kind: Option<LoopKind>) -> &'static str {
    match kind {
        Some(LoopKind::ForOf) => "forOf",
        Some(LoopKind::ForIn) => "forIn",
        Some(LoopKind::For) => "for",
        Some(LoopKind::While) => "while",
        Some(LoopKind::DoWhile) => "doWhile",
        Some(LoopKind::ForEach) => "forEach",
        Some(LoopKind::Callback) | None => "callback",
    }
}

/// A code node's task: its code (an expression whose free variables are its arguments' names;
/// a chain link reads its receiver as `$receiver`), and whether it is a pure operation (no I/O:
/// safe to run ahead, safe to fail). `None` for other nodes.
pub fn code_task(node: &Node) -> Option<(String, bool)> {
    if !node.is_code() {
        return None;
    }
    let tool = node.tool.as_deref().unwrap_or_default();
    let source = node.code.clone().unwrap_or_default();
    let pure = pml_pure_ops::is_pure(tool) && node.impure.is_none();
    let chained = (node.arguments.as_ref()).is_some_and(|a| a.contains_key("$receiver"));
    let code = if chained {
        format!("$receiver.{source}")
    } else {
        source
    };
    Some((code, pure))
}

fn base_task(node: &Node, index: &Index<'_>, i: usize, options: &DagOptions) -> Task {
    let mut metadata = Metadata::default();
    let (tool, kind, code) = match node.kind {
        NodeKind::Capability => (
            format!("capability:{}", node.capability_id.as_deref().unwrap_or("")),
            TaskType::Capability,
            None,
        ),
        NodeKind::Call => {
            metadata.contains = index.tools(&index.reach(&[i]));
            let name = node.name.as_deref().or(node.function.as_deref());
            (
                format!("function:{}", name.unwrap_or_default()),
                TaskType::Call,
                None,
            )
        }
        NodeKind::Loop => {
            let members = index.members.get(&i).cloned().unwrap_or_default();
            metadata.contains = index.tools(&index.reach(&members));
            (
                format!("loop:{}", loop_kind_name(node.loop_kind)),
                TaskType::Loop,
                node.code.clone(),
            )
        }
        _ if node.is_code() => {
            let tool = node.tool.clone().unwrap_or_default();
            let (code, pure) = code_task(node).unwrap_or_default();
            metadata.pure = pure;
            metadata.permission_set = Some("minimal".into());
            (tool, TaskType::CodeExecution, Some(code))
        }
        _ => {
            let tool = node.tool.clone().unwrap_or_default();
            metadata.read_only = options
                .catalog
                .as_ref()
                .and_then(|c| c.get(&tool))
                .and_then(|t| t.annotations.as_ref())
                .and_then(|a| a.get("readOnlyHint"))
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            (tool, TaskType::McpTool, None)
        }
    };
    Task {
        id: node.id.clone(),
        tool,
        kind,
        depends_on: Vec::new(),
        code,
        arguments: node.arguments.clone(),
        condition: Vec::new(),
        literals: IndexMap::new(),
        metadata,
    }
}

/// For each (switch decision, case outcome): the outcomes that enter that case, falling through
/// from earlier cases included.
fn switch_entries(index: &Index<'_>) -> HashMap<(usize, String), Vec<String>> {
    let s = index.s;
    let scope_of = |i: usize| match &s.nodes[i].scope {
        Some(Scope::Decision { id, outcome }) => Some((id.clone(), outcome.clone())),
        _ => None,
    };
    let mut entries: HashMap<(usize, String), Vec<String>> = HashMap::new();
    let mut incoming: HashMap<&str, Vec<&pml_structure::Edge>> = HashMap::new();
    for e in &s.edges {
        incoming.entry(e.to.as_str()).or_default().push(e);
    }
    for (i, node) in s.nodes.iter().enumerate() {
        let Some((d, outcome)) = scope_of(i) else {
            continue;
        };
        let Some(&di) = index.by_id.get(d.as_str()) else {
            continue;
        };
        if !(outcome.starts_with("case:") || outcome == "default") {
            continue;
        }
        let key = (di, outcome.clone());
        let mut found: Vec<String> = Vec::new();
        for e in incoming.get(node.id.as_str()).into_iter().flatten() {
            if e.kind == EdgeKind::Conditional && e.from == d {
                if let Some(o) = &e.outcome {
                    found.push(o.clone());
                }
            } else if e.kind == EdgeKind::Sequence {
                if let Some(&f) = index.by_id.get(e.from.as_str()) {
                    if let Some((fd, fo)) = scope_of(f) {
                        if fd == d && fo != outcome {
                            if let Some(prev) = entries.get(&(di, fo.clone())) {
                                found.extend(prev.iter().cloned());
                            }
                        }
                    }
                }
            }
        }
        let slot = entries.entry(key).or_default();
        for o in found {
            if !slot.contains(&o) {
                slot.push(o);
            }
        }
    }
    entries
}

/// The decisions a node's execution depends on, outermost first.
fn conditions(
    index: &Index<'_>,
    i: usize,
    entries: &HashMap<(usize, String), Vec<String>>,
) -> Vec<Condition> {
    let s = index.s;
    let mut out = Vec::new();
    let mut at = i;
    let mut guard = 0;
    while let Some(scope) = &s.nodes[at].scope {
        if let Scope::Decision { id, outcome } = scope {
            if let Some(&d) = index.by_id.get(id.as_str()) {
                let switch = outcome.starts_with("case:") || outcome == "default";
                let any_of = entries
                    .get(&(d, outcome.clone()))
                    .filter(|e| e.len() > 1 || e.first() != Some(outcome))
                    .cloned()
                    .unwrap_or_default();
                out.push(Condition {
                    decision_node_id: id.clone(),
                    required_outcome: outcome.clone(),
                    any_of,
                    expression: s.nodes[d].condition.clone().unwrap_or_default(),
                    reads: s.nodes[d].reads.clone(),
                    kind: if switch {
                        DecisionKind::Switch
                    } else {
                        DecisionKind::If
                    },
                    cases: s.nodes[d].outcomes.clone(),
                });
            }
        }
        match index.scope_parent(at) {
            Some(p) => at = p,
            None => break,
        }
        guard += 1;
        if guard > s.nodes.len() {
            break;
        }
    }
    out.reverse();
    out
}
