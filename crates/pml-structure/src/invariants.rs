//! Invariants every [`StaticStructure`] satisfies, whatever the input: the property tests
//! (`tests/it/props.rs`) and the fuzz targets (`fuzz/`) check every structure against them.

use std::collections::{HashMap, HashSet};

use crate::diagnostics;
use crate::model::{
    collides_with_ids, ArgumentValue, Arguments, EdgeKind, Key, LeafKind, Leaves, NodeKind, Scope,
    Severity, StaticStructure,
};

/// 1-based line and character column of a byte offset.
fn line_col(code: &str, offset: usize) -> (usize, usize) {
    let before = &code[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Check the structure built from `code`; `Err` says which invariant broke.
pub fn check_invariants(code: &str, s: &StaticStructure) -> Result<(), String> {
    // Diagnostics: positions inside the input; never `internal-error` (a caught panic).
    let lines: Vec<&str> = code.split('\n').collect();
    for d in &s.diagnostics {
        let (Some(line), Some(column)) = (d.line, d.column) else {
            return Err(format!("diagnostic without a position: {d:?}"));
        };
        if line < 1 || line > lines.len() {
            return Err(format!(
                "diagnostic line {} outside 1..={}: {d:?}",
                line,
                lines.len()
            ));
        }
        let width = lines[line - 1].chars().count();
        if column < 1 || column > width + 1 {
            return Err(format!(
                "diagnostic column {} outside 1..={}: {d:?}",
                column,
                width + 1
            ));
        }
        if d.code == diagnostics::INTERNAL {
            return Err(format!(
                "internal error (a panic in the worker thread?): {d:?}"
            ));
        }
    }
    if s.has_errors() && !(s.nodes.is_empty() && s.edges.is_empty()) {
        return Err("error diagnostics but a non-empty structure".into());
    }
    if s.diagnostics.iter().any(|d| d.severity == Severity::Error) != s.has_errors() {
        return Err("has_errors disagrees with the diagnostics".into());
    }

    // Node ids: unique, prefix of their kind, numbered 1, 2, 3... per kind in node order.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut counters: HashMap<NodeKind, usize> = HashMap::new();
    for (i, n) in s.nodes.iter().enumerate() {
        if index.insert(n.id.as_str(), i).is_some() {
            return Err(format!("duplicate node id {}", n.id));
        }
        let next = counters.entry(n.kind).or_insert(0);
        *next += 1;
        let expected = format!("{}{}", n.kind.prefix(), next);
        if n.id != expected {
            return Err(format!(
                "node {i} is {} but {:?} number {} should be {expected}",
                n.id, n.kind, next
            ));
        }
        // Span: inside the input, on char boundaries, line/column of its start.
        let sp = n.span;
        if sp.start > sp.end || sp.end > code.len() {
            return Err(format!("{}: span {sp:?} outside 0..={}", n.id, code.len()));
        }
        if !code.is_char_boundary(sp.start) || !code.is_char_boundary(sp.end) {
            return Err(format!("{}: span {sp:?} not on char boundaries", n.id));
        }
        if (sp.line, sp.column) != line_col(code, sp.start) {
            return Err(format!(
                "{}: span {sp:?} but its start is at {:?}",
                n.id,
                line_col(code, sp.start)
            ));
        }
        // Kind-specific fields.
        let ok = match n.kind {
            NodeKind::Task => n.tool.is_some(),
            NodeKind::Decision => n.condition.is_some(),
            NodeKind::Capability => n.capability_id.is_some(),
            NodeKind::Loop => n.loop_kind.is_some() && n.code.is_some(),
            NodeKind::Fork | NodeKind::Join => true,
            NodeKind::Function => n.code.is_some(),
            NodeKind::Call => n.function.as_deref().is_some_and(|f| {
                index
                    .get(f)
                    .is_some_and(|&j| j < i && s.nodes[j].kind == NodeKind::Function)
            }),
        };
        if !ok {
            return Err(format!("{}: missing the fields of a {:?}", n.id, n.kind));
        }
    }

    // Edges: known endpoints, no self-loops, control edges forward, no duplicates.
    let mut has_incoming = vec![false; s.nodes.len()];
    let mut seen = HashSet::new();
    for e in &s.edges {
        let (Some(&from), Some(&to)) = (index.get(e.from.as_str()), index.get(e.to.as_str()))
        else {
            return Err(format!("edge {e:?} names a missing node"));
        };
        if from == to {
            return Err(format!("self-loop {e:?}"));
        }
        if !seen.insert((&e.from, &e.to, e.kind, &e.outcome)) {
            return Err(format!("duplicate edge {e:?}"));
        }
        match e.kind {
            EdgeKind::Sequence | EdgeKind::Conditional => {
                if s.nodes[to].kind == NodeKind::Function {
                    return Err(format!("control edge into a function: {e:?}"));
                }
                if from >= to {
                    return Err(format!("backward control edge {e:?}"));
                }
                if (e.kind == EdgeKind::Conditional) != e.outcome.is_some() {
                    return Err(format!(
                        "outcome must be set exactly on conditional edges: {e:?}"
                    ));
                }
                if e.outcome.is_some() && s.nodes[from].kind != NodeKind::Decision {
                    return Err(format!("conditional edge from a non-decision: {e:?}"));
                }
                if e.coverage.is_some() {
                    return Err(format!("coverage on a control edge: {e:?}"));
                }
                has_incoming[to] = true;
            }
            EdgeKind::Provides => {
                if from >= to || e.coverage.is_none() || e.outcome.is_some() {
                    return Err(format!("bad provides edge {e:?}"));
                }
                if !s.nodes[from].is_mcp() || !s.nodes[to].is_mcp() {
                    return Err(format!("provides edge between non-MCP nodes {e:?}"));
                }
            }
        }
    }

    // Scopes name an earlier node of the right kind; every node but the first is reachable
    // (functions are not part of the control flow: their calls link to them).
    // The control flow starts at the first node outside every function and scope (a function
    // declared first, and its body, come before it).
    let first = (s.nodes.iter()).position(|n| n.kind != NodeKind::Function && n.scope.is_none());
    for (i, n) in s.nodes.iter().enumerate() {
        if let Some(scope) = &n.scope {
            let (id, kind) = match scope {
                Scope::Decision { id, .. } => (id, NodeKind::Decision),
                Scope::Fork { id } => (id, NodeKind::Fork),
                Scope::Loop { id } => (id, NodeKind::Loop),
                Scope::Function { id } => (id, NodeKind::Function),
            };
            match index.get(id.as_str()) {
                Some(&j) if j < i && s.nodes[j].kind == kind => {}
                _ => return Err(format!("{}: bad scope {scope:?}", n.id)),
            }
        } else if Some(i) != first && !has_incoming[i] && n.kind != NodeKind::Function {
            return Err(format!(
                "{} is unreachable: no incoming edge and no scope",
                n.id
            ));
        }
    }

    // Variable bindings point into existing nodes.
    for (name, path) in &s.variable_bindings {
        let root = path.split(['.', '[']).next().unwrap_or("");
        if !index.contains_key(root) {
            return Err(format!(
                "variable `{name}` bound to `{path}`: no node {root}"
            ));
        }
    }

    // Each text's element marks are exactly where it shows `[*]` (the program's own `[*]`
    // written escaped): what later stages read instead of the text.
    for n in &s.nodes {
        if let Some(condition) = &n.condition {
            marks_agree(&n.id, condition, &n.condition_leaves, &n.reads)?;
        }
        if let Some(args) = &n.arguments {
            arguments_marks_agree(&n.id, args)?;
        }
    }
    if let Some(result) = &s.result {
        value_marks_agree("the result", result)?;
    }
    Ok(())
}

fn marks_agree(at: &str, text: &str, leaves: &Leaves, reads: &[String]) -> Result<(), String> {
    if leaves.elements() != Leaves::found_in(text) {
        return Err(format!("{at}: `{text}` has element marks at {leaves:?}"));
    }
    // Results: node ids the text reads, where it shows them; every node it reads is one.
    let mut results = Vec::new();
    for leaf in leaves.all() {
        if let LeafKind::Result { len } = leaf.kind {
            let id = text.get(leaf.at as usize..(leaf.at + len) as usize);
            match id {
                Some(id) if collides_with_ids(id) && reads.iter().any(|r| r == id) => {
                    results.push(id)
                }
                _ => return Err(format!("{at}: `{text}` has a result at {leaf:?}")),
            }
        }
    }
    match (reads.iter()).find(|r| collides_with_ids(r) && !results.contains(&r.as_str())) {
        Some(read) => Err(format!("{at}: `{text}` reads {read} but has no leaf of it")),
        None => Ok(()),
    }
}

fn arguments_marks_agree(at: &str, args: &Arguments) -> Result<(), String> {
    for (key, value) in args {
        if let Key::Computed(c) = key {
            marks_agree(at, &c.expression, &c.leaves, &c.reads)?;
        }
        value_marks_agree(at, value)?;
    }
    Ok(())
}

fn value_marks_agree(at: &str, value: &ArgumentValue) -> Result<(), String> {
    match value {
        ArgumentValue::Reference {
            expression,
            leaves,
            reads,
            ..
        } => marks_agree(at, expression, leaves, reads),
        ArgumentValue::Object { properties } => arguments_marks_agree(at, properties),
        ArgumentValue::Array { items } => items.iter().try_for_each(|v| value_marks_agree(at, v)),
        ArgumentValue::Literal { .. } | ArgumentValue::Parameter { .. } => Ok(()),
    }
}
