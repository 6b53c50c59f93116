//! What the structure says to speculation before anything runs: the fused tasks of the
//! physical plan, the loops and local functions around a node, the helpers whose reads follow
//! their calls, what is known ahead ([`Known`]), the decisions a node depends on
//! ([`ControlDeps`]), arguments at one element of a loop, and the canonical JSON by which calls
//! are matched.

use std::collections::{HashMap, HashSet};

use pml_structure::{
    ArgumentValue, Arguments, Key, Leaves, LoopKind, NodeKind, ProbeKind, Scope, StaticStructure,
};
use serde_json::Value;

use super::{Computable, Each, Helper, HelperRead, NestedCall, Target, Yields};
use crate::Program;

/// The plan's pure operations (`ops`, those the `targets` need) as the physical DAG runs them:
/// the operations of a task it fuses are computed in one sandbox call of that task's code (a
/// chain gives its last operation's value, siblings each one's), the others one by one. A
/// fused task is used only when the plan needs every operation it runs (each passed the
/// plan's checks) and nothing of the plan reads a chain's inner values.
pub(super) fn physical_plan(
    program: &Program,
    targets: &[Target],
    ops: Vec<Computable>,
) -> Vec<Computable> {
    let Some(map) = &program.physical.physical_to_logical else {
        return ops;
    };
    let owner: HashMap<&str, &str> = (map.iter())
        .filter(|(_, members)| members.len() > 1)
        .flat_map(|(p, members)| members.iter().map(move |m| (m.as_str(), p.as_str())))
        .collect();
    if owner.is_empty() {
        return ops;
    }
    let needed: HashSet<&str> = ops.iter().map(|c| c.id.as_str()).collect();
    // What the plan reads: the targets' inputs, and the inputs of each operation (inside a
    // fused task or not: a chain's own links are checked below).
    let read_by_targets: HashSet<&str> = (targets.iter())
        .flat_map(|t| t.reads.iter().map(String::as_str))
        .collect();
    let fused = |p: &str| -> Option<Computable> {
        let members = map.get(p)?;
        let task = program.physical.task(p)?;
        let (code, arguments) = (
            task.code.clone()?,
            task.arguments.clone().unwrap_or_default(),
        );
        if task.kind != pml_dag::TaskType::CodeExecution || !task.metadata.pure {
            return None;
        }
        if !members.iter().all(|m| needed.contains(m.as_str())) {
            return None;
        }
        let inside = |id: &str| members.iter().any(|m| m == id);
        let yields = match task.metadata.fusion.as_deref() {
            Some("fork_join_fusion") => Yields::Each(members.clone()),
            _ => {
                let (last, inner) = members.split_last()?;
                // An inner value read from outside the chain (by a target, or by an
                // operation of the plan outside this task) is not what the chain returns.
                let outside_reads = (ops.iter())
                    .filter(|c| !inside(&c.id))
                    .flat_map(|c| c.reads.iter().map(String::as_str));
                let read_inner = |id: &str| inner.iter().any(|m| m == id);
                if read_by_targets.iter().any(|r| read_inner(r))
                    || outside_reads.into_iter().any(read_inner)
                {
                    return None;
                }
                Yields::One(last.clone())
            }
        };
        let mut reads: Vec<String> = Vec::new();
        for r in (ops.iter())
            .filter(|c| inside(&c.id))
            .flat_map(|c| c.reads.iter())
        {
            if !inside(r) && !reads.contains(r) {
                reads.push(r.clone());
            }
        }
        Some(Computable {
            id: p.to_owned(),
            tool: task.tool.clone(),
            code,
            arguments,
            reads,
            yields,
        })
    };
    let mut used: HashMap<&str, bool> = HashMap::new();
    let mut out = Vec::new();
    for c in ops.iter() {
        let Some(&p) = owner.get(c.id.as_str()) else {
            out.push(c.clone());
            continue;
        };
        let taken = match used.get(p) {
            Some(&taken) => taken,
            None => {
                let made = fused(p);
                let taken = made.is_some();
                out.extend(made);
                used.insert(p, taken);
                taken
            }
        };
        if !taken {
            out.push(c.clone());
        }
    }
    out
}

/// The loops around node `id`, innermost first.
pub(super) fn enclosing_loops(structure: &StaticStructure, id: &str) -> Vec<String> {
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

/// The local functions with plain parameters, what each reads and which others it calls,
/// directly in its body (`speculable`: a call node that may be started ahead).
///
/// A read is followed only where it keeps its server's order, as Node sends them: every call
/// to its server before it in the body (in a `try`, a branch, a loop) is a read followed too,
/// started before it, no call of a local function that reaches that server comes before it,
/// and no other call to that server shares its loop (their iterations would interleave).
pub(super) fn helpers(
    structure: &StaticStructure,
    instrumented: &pml_structure::Instrumented,
    deps: &ControlDeps<'_>,
    speculable: &dyn Fn(&pml_structure::Node) -> bool,
    servers_of: &HashMap<String, HashSet<String>>,
) -> HashMap<String, Helper> {
    // `??` guards: their outcome is not their condition's truthiness.
    let nullish: HashSet<&str> = (instrumented.probes.iter())
        .filter(|p| p.kind == ProbeKind::Nullish)
        .flat_map(|p| p.nodes.iter().map(String::as_str))
        .collect();
    let places = Places::of(structure);
    let mut out = HashMap::new();
    for f in structure
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Function)
    {
        let body = places
            .body
            .get(f.id.as_str())
            .map_or(&[][..], Vec::as_slice);
        let Some(params) = f.params.clone() else {
            continue;
        };
        let directly = |n: &pml_structure::Node| body_each(structure, &f.id, n);
        let mut known = Known {
            structure,
            function: &f.id,
            ops: Vec::new(),
            outside: Vec::new(),
        };
        // A node of this body after a `try` of it whose handler may end the path: not certain.
        let after_exit = |n: &pml_structure::Node| {
            (body.iter()).any(|m| m.throw_exits && m.span.start < n.span.start)
        };
        // What a node there depends on: decisions of this body over what the parameters hold
        // and what is known ahead of a call (`None`: something else).
        let conditions = |n: &pml_structure::Node, known: &mut Known<'_>| {
            let mut out = Vec::new();
            for (d, outcomes) in deps.of(&n.id) {
                let d = structure.node(&d)?;
                let inside = directly(d).is_some();
                let simple = d.outcomes.is_empty() && !nullish.contains(d.id.as_str());
                if !inside || !simple || !known.all(&d.reads) {
                    return None;
                }
                out.push((d.condition.clone()?, d.reads.clone(), outcomes));
            }
            Some(out)
        };
        let mut reads = Vec::new();
        for n in (structure.nodes.iter()).filter(|n| n.is_mcp() && speculable(n) && !after_exit(n))
        {
            let Some(each) = directly(n) else {
                continue;
            };
            let Some(arguments) = n.arguments.clone() else {
                continue;
            };
            let Some((server, tool)) = n.tool.as_deref().map(crate::host::split_tool) else {
                continue;
            };
            // Only parameters, `args`, constants, results outside local functions and pure
            // operations of the body over those.
            let argument_reads: Vec<String> = (arguments.values())
                .flat_map(|v| v.reads().into_iter().map(str::to_owned))
                .collect();
            if !known.all(&argument_reads) {
                continue;
            }
            let Some(conditions) = conditions(n, &mut known) else {
                continue;
            };
            reads.push(HelperRead {
                node: n.id.clone(),
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments,
                conditions,
                each,
            });
        }
        let mut calls = Vec::new();
        for n in (structure.nodes.iter()).filter(|n| n.kind == NodeKind::Call && !after_exit(n)) {
            let Some(each) = directly(n) else {
                continue;
            };
            let Some(function) = n.function.clone() else {
                continue;
            };
            let arguments = n.arguments.clone().unwrap_or_default();
            let argument_reads: Vec<String> = (arguments.values())
                .flat_map(|v| v.reads().into_iter().map(str::to_owned))
                .collect();
            let spread = arguments.has_spread();
            if spread || !known.all(&argument_reads) {
                continue;
            }
            let Some(conditions) = conditions(n, &mut known) else {
                continue;
            };
            calls.push(NestedCall {
                call: n.id.clone(),
                function,
                arguments,
                conditions,
                each,
            });
        }
        let reads = in_server_order(body, &places, reads, servers_of);
        // Whether following it starts every call its body makes to a server (the local
        // functions it calls aside: see below).
        let (mut tool_calls, mut function_calls) = (0, 0);
        for n in body {
            if n.is_mcp() {
                tool_calls += 1;
            } else if n.kind == NodeKind::Call {
                function_calls += 1;
            }
        }
        let complete = tool_calls == reads.len() && function_calls == calls.len();
        out.insert(
            f.id.clone(),
            Helper {
                complete,
                params,
                reads,
                calls,
                ops: known.ops,
                outside: known.outside,
            },
        );
    }
    // And so are the local functions it calls, which calls of itself are not (as if each
    // call of it were followed: at a recursion, the program's own calls come first).
    let mut changed = true;
    while changed {
        changed = false;
        let incomplete: Vec<String> = (out.iter())
            .filter(|(id, h)| {
                h.complete
                    && h.calls.iter().any(|c| {
                        c.function == **id || !out.get(&c.function).is_some_and(|h| h.complete)
                    })
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in incomplete {
            if let Some(h) = out.get_mut(&id) {
                h.complete = false;
                changed = true;
            }
        }
    }
    out
}

/// In the body of local function `function`, outside any `try`, in no fork or other function
/// of it and in one `for ... of` loop of it at most, over what the parameters hold, that no
/// iteration leaves early (branches are fine: their conditions are checked against the
/// parameters): `Some(each)`, there, in that loop if any.
fn body_each(structure: &StaticStructure, function: &str, n: &pml_structure::Node) -> Option<Each> {
    if n.guarded {
        return None;
    }
    let mut each = None;
    let mut at = n.scope.clone();
    for _ in 0..structure.nodes.len() {
        match at? {
            Scope::Function { id } => return (id == function).then_some(each),
            Scope::Decision { id, .. } => at = structure.node(&id)?.scope.clone(),
            Scope::Loop { id } => {
                let l = structure.node(&id)?;
                let over_params = !l.reads.iter().any(|r| structure.node(r).is_some());
                let for_of = l.loop_kind == Some(LoopKind::ForOf);
                if each.is_some() || l.leaves || l.guarded || !for_of || !over_params {
                    return None;
                }
                each = Some((l.condition.clone()?, l.reads.clone()));
                at = l.scope.clone();
            }
            Scope::Fork { .. } => return None,
        }
    }
    None
}

/// What a call of a local function can know ahead of its body: what the body's reads, calls
/// and decisions read, gathered while [`helpers`] looks at them.
struct Known<'s> {
    structure: &'s StaticStructure,
    function: &'s str,
    /// The pure operations of the body (in no loop of it) over values known ahead, each after
    /// those it reads.
    ops: Vec<Computable>,
    /// The results outside local functions they read.
    outside: Vec<String>,
}

impl Known<'_> {
    /// Whether every name of `reads` is known ahead of a call (then what they need is added to
    /// `ops` and `outside`; else nothing is). Names that are no node are: parameters, `args`,
    /// constants.
    fn all(&mut self, reads: &[String]) -> bool {
        let (ops, outside) = (self.ops.len(), self.outside.len());
        let ok = reads.iter().all(|r| self.node(r, 0));
        if !ok {
            self.ops.truncate(ops);
            self.outside.truncate(outside);
        }
        ok
    }

    /// Node `id` (a name that is no node is known): a result outside local functions not
    /// changed in place, or a pure operation of the body in no loop of it over known values.
    fn node(&mut self, id: &str, depth: usize) -> bool {
        let structure = self.structure;
        let Some(n) = structure.node(id) else {
            return true;
        };
        if n.changed || depth > structure.nodes.len() {
            return false;
        }
        if !in_function(structure, id) {
            if !self.outside.iter().any(|o| o == id) {
                self.outside.push(id.to_owned());
            }
            return true;
        }
        if self.ops.iter().any(|o| o.id == id) {
            return true;
        }
        if body_each(structure, self.function, n) != Some(None) {
            return false;
        }
        // Inside local functions, the logical DAG has no tasks: the node's own.
        let Some((code, true)) = pml_dag::code_task(n) else {
            return false;
        };
        // No arguments: it reads nothing but `args` and constants.
        let arguments = n.arguments.clone().unwrap_or_default();
        let reads: Vec<String> = (arguments.values())
            .flat_map(|a| a.reads())
            .filter(|r| structure.node(r).is_some())
            .map(str::to_owned)
            .collect();
        if !reads.iter().all(|r| self.node(r, depth + 1)) {
            return false;
        }
        self.ops.push(Computable {
            id: n.id.clone(),
            tool: n.tool.clone().unwrap_or_default(),
            code,
            arguments,
            reads,
            yields: Yields::One(n.id.clone()),
        });
        true
    }
}

/// Control dependence over the structure's edges: a node depends on decision `d` when only
/// some of `d`'s outcomes lead to it (it is inside one branch, or after a branch that ends the
/// path: `if (!x) return;`).
pub(super) struct ControlDeps<'s> {
    /// Per decision: its outcomes, each with the nodes its edges lead to (transitively).
    reach: Vec<(&'s str, Vec<Leads<'s>>)>,
}

/// An outcome of a decision and the nodes it leads to.
pub(super) type Leads<'s> = (String, HashSet<&'s str>);

impl<'s> ControlDeps<'s> {
    pub(super) fn new(structure: &'s StaticStructure) -> Self {
        // Every node's successors (whatever the outcome), and where each outcome of a decision
        // leads first.
        let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut first: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
        for edge in &structure.edges {
            if edge.kind == pml_structure::EdgeKind::Provides {
                continue;
            }
            if let (pml_structure::EdgeKind::Conditional, Some(outcome)) =
                (edge.kind, &edge.outcome)
            {
                (first.entry((edge.from.as_str(), outcome.as_str())))
                    .or_default()
                    .push(edge.to.as_str());
            }
            (next.entry(edge.from.as_str()))
                .or_default()
                .push(edge.to.as_str());
        }
        let mut reach = Vec::new();
        for d in structure
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Decision)
        {
            // Every outcome it may take, those that lead nowhere included.
            let mut outcomes: Vec<String> = match d.outcomes.is_empty() {
                true => vec!["true".into(), "false".into()],
                false => d.outcomes.clone(),
            };
            if !d.outcomes.is_empty() && !outcomes.iter().any(|o| o == "default") {
                outcomes.push("default".into());
            }
            let mut per = Vec::new();
            for outcome in outcomes {
                let mut seen: HashSet<&str> = HashSet::new();
                let mut todo: Vec<&str> = (first.get(&(d.id.as_str(), outcome.as_str())))
                    .into_iter()
                    .flatten()
                    .copied()
                    .collect();
                while let Some(id) = todo.pop() {
                    if seen.insert(id) {
                        todo.extend(next.get(id).into_iter().flatten().copied());
                    }
                }
                per.push((outcome, seen));
            }
            reach.push((d.id.as_str(), per));
        }
        ControlDeps { reach }
    }

    /// The decisions `id` depends on, each with the outcomes that lead to it.
    pub(super) fn of(&self, id: &str) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for (d, per) in &self.reach {
            let leading: Vec<String> = (per.iter())
                .filter(|(_, nodes)| nodes.contains(id))
                .map(|(o, _)| o.clone())
                .collect();
            if !leading.is_empty() && leading.len() < per.len() {
                out.push(((*d).to_owned(), leading));
            }
        }
        out
    }
}

/// Whether node `id` is inside a `Promise.all` (a fork), at any depth.
pub(super) fn in_fork(structure: &StaticStructure, id: &str) -> bool {
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

/// Where each node is, from one walk over the scopes (a walk per node and question would
/// search the nodes by id at each step: quadratic, and per local function).
struct Places<'s> {
    /// Local function id -> the nodes directly in its body.
    body: HashMap<&'s str, Vec<&'s pml_structure::Node>>,
    /// Node id -> the outermost loop around it in the function it is directly in.
    outer_loop: HashMap<&'s str, &'s str>,
}

impl<'s> Places<'s> {
    fn of(structure: &'s StaticStructure) -> Self {
        let by_id: HashMap<&str, &pml_structure::Node> =
            structure.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
        let mut places = Places {
            body: HashMap::new(),
            outer_loop: HashMap::new(),
        };
        for n in &structure.nodes {
            let mut outer = None;
            let mut at = n.scope.as_ref();
            // Scopes only point outwards: a chain ends.
            for _ in 0..structure.nodes.len() {
                match at {
                    None => break,
                    Some(Scope::Function { id }) => {
                        places.body.entry(id.as_str()).or_default().push(n);
                        if let Some(l) = outer {
                            places.outer_loop.insert(n.id.as_str(), l);
                        }
                        break;
                    }
                    Some(scope) => {
                        if let Scope::Loop { id } = scope {
                            outer = Some(id.as_str());
                        }
                        at = by_id.get(scope.id()).and_then(|m| m.scope.as_ref());
                    }
                }
            }
        }
        places
    }
}

/// The reads of a function's body (its nodes: `body`) that keep their server's order when
/// started ahead, in the order they start (see [`helpers`]).
fn in_server_order(
    body: &[&pml_structure::Node],
    places: &Places<'_>,
    reads: Vec<HelperRead>,
    servers_of: &HashMap<String, HashSet<String>>,
) -> Vec<HelperRead> {
    let reaches = |servers: &[&str], server: &str| {
        servers.contains(&server) || servers.contains(&pml_structure::DYNAMIC_NAME)
    };
    // Every call of the body to a server, or of a local function reaching servers: (node,
    // where, the servers, the loop of the body it is in).
    let calls: Vec<(&str, usize, Vec<&str>, Option<&str>)> = (body.iter())
        .filter_map(|n| {
            let servers: Vec<&str> = match (n.kind, n.tool.as_deref()) {
                (NodeKind::Call, _) => (n.function.as_ref())
                    .and_then(|callee| servers_of.get(callee))
                    .map(|s| s.iter().map(String::as_str).collect())?,
                (_, Some(tool)) if n.is_mcp() => vec![crate::host::split_tool(tool).0],
                _ => return None,
            };
            // The outermost: calls in one loop of the body take turns in each iteration.
            let own_loop = places.outer_loop.get(n.id.as_str()).copied();
            Some((n.id.as_str(), n.span.start, servers, own_loop))
        })
        .collect();
    let mut kept: Vec<HelperRead> = Vec::new();
    for read in reads {
        let Some(&(_, at, _, ref own_loop)) = calls.iter().find(|c| c.0 == read.node) else {
            continue;
        };
        let keeps_order = calls.iter().all(|(id, other_at, servers, other_loop)| {
            if *id == read.node || !reaches(servers, &read.server) {
                return true;
            }
            let shares_loop = own_loop.is_some() && other_loop == own_loop;
            let before = *other_at < at;
            // Before it, a read followed (and so started) before it; in its loop, none.
            !shares_loop && (!before || kept.iter().any(|k| k.node == *id))
        });
        if keeps_order {
            kept.push(read);
        }
    }
    kept
}

/// Whether node `id` is inside a local function, at any depth.
pub(super) fn in_function(structure: &StaticStructure, id: &str) -> bool {
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

pub(super) fn in_loop(structure: &StaticStructure, id: &str) -> bool {
    !enclosing_loops(structure, id).is_empty()
}

/// The arguments at `element` of their loop (unchanged outside one).
pub(super) fn at_element_all(arguments: &Arguments, element: Option<usize>) -> Arguments {
    match element {
        None => arguments.clone(),
        Some(i) => (arguments.iter())
            .map(|(k, v)| (key_at_element(k, i), at_element(v, i)))
            .collect(),
    }
}

/// A computed key at element `i` of its loop (see [`at_element`]).
fn key_at_element(key: &Key, i: usize) -> Key {
    match key {
        Key::Computed(c) => Key::Computed(Box::new(pml_structure::ComputedKey {
            at: c.at,
            expression: c.leaves.at_index(&c.expression, i),
            reads: c.reads.clone(),
            canonical: None,
            leaves: Leaves::none(),
        })),
        other => other.clone(),
    }
}

/// The argument at element `i` of its loop: where it stands for each element of a collection
/// (`xs[*]`, as the builder marks it), element `i` (`xs[i]`).
pub(super) fn at_element(value: &ArgumentValue, i: usize) -> ArgumentValue {
    match value {
        ArgumentValue::Reference {
            expression,
            reads,
            leaves,
            ..
        } => ArgumentValue::reference_reading(leaves.at_index(expression, i), reads.clone()),
        ArgumentValue::Object { properties } => ArgumentValue::Object {
            properties: (properties.iter())
                .map(|(k, v)| (key_at_element(k, i), at_element(v, i)))
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
    pub(super) fn sorted(value: &Value) -> Value {
        match value {
            // A number is a double: `1e16` from the program and `10000000000000000` from a
            // result or a literal are one value, written one way.
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                    Value::from(f as i64)
                }
                Some(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
                None => Value::Number(n.clone()),
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
        // Integers past 2^53, as the exact integer a literal holds and as the double the
        // program computes.
        assert_eq!(
            canonical(&json!({"x": 10_000_000_000_000_000u64, "y": -(1i64 << 60)})),
            canonical(&json!({"x": 1e16, "y": -1.152921504606847e18}))
        );
    }
}
