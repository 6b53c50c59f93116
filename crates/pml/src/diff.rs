//! `pml runs diff A B`: where two recorded runs went different ways.
//!
//! **Input:** two finished runs as the store keeps them (`pml_store::Run`: decisions, journal,
//! trace, result, error) and their whole results.
//! **Output:** a [`RunDiff`]: every difference, the first point of divergence first, as JSON
//! (`docs/formats.md`, `pml runs diff`) or as text for people.
//!
//! Runs of the same program (equal program hashes) are compared node by node: decisions by
//! (capability, decision id, iteration), calls by (node, iteration, tool), loops by (loop id,
//! iteration); each key's k-th occurrence meets the other run's k-th. Runs of different
//! programs share no node ids: their calls are aligned by tool sequence only (a longest common
//! subsequence of the tools called, in program order), and decisions and loops are not
//! compared. The program's reads of the clock and of `Math.random()` are not compared (they
//! differ from run to run by nature). Within a run, decisions, calls and loops are ordered by
//! their trace times; a difference is placed at the earlier of its places in the two runs, so
//! the first difference is where the runs diverge.
//!
//! **Invariant:** deterministic: the same two stored runs always give the same document.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use pml_store::{CallState, JournalEntry, Run};
use pml_trace::{Decision, EventKind, TraceEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// At most this many differing paths are listed per value (the rest are counted).
const MAX_PATHS: usize = 50;

/// Above this many cells (calls of one run times calls of the other), tool sequences are
/// aligned position by position instead of by a longest common subsequence.
const MAX_ALIGN_CELLS: usize = 16_000_000;

/// Two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDiff {
    pub a: RunRef,
    pub b: RunRef,
    /// Both runs are of the program with the same semantic hash.
    pub same_program: bool,
    /// How their steps were matched.
    pub compared_by: ComparedBy,
    /// No difference found.
    pub same: bool,
    /// The first difference: where the runs diverge (`differences[0]`).
    pub first_divergence: Option<Difference>,
    /// Every difference, in the order the runs met them.
    pub differences: Vec<Difference>,
}

/// Which run a side is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRef {
    pub id: String,
    pub program_hash: Option<String>,
    pub capability: Vec<String>,
    pub file: Option<String>,
    pub args: Value,
    pub ok: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ComparedBy {
    /// Node ids (same program).
    Nodes,
    /// The sequence of tools called (different programs).
    Tools,
}

/// One difference between the runs. `a` and `b` are what each run did (absent: it did not).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Difference {
    /// A decision taken with different outcomes, or taken in one run only.
    #[serde(rename_all = "camelCase")]
    Decision {
        task_id: String,
        iteration: Vec<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        capability: Option<String>,
        a: Option<String>,
        b: Option<String>,
    },
    /// A call made in one run only (with its arguments).
    Call {
        a: Option<CallRef>,
        b: Option<CallRef>,
    },
    /// The same call made with different arguments.
    Arguments {
        a: CallRef,
        b: CallRef,
        paths: Vec<PathDiff>,
        #[serde(skip_serializing_if = "is_zero")]
        omitted: usize,
    },
    /// The same call answered in one run and failed (or never ended) in the other.
    Outcome { a: CallRef, b: CallRef },
    /// A loop whose body ran a different number of times (or that ran in one run only).
    #[serde(rename_all = "camelCase")]
    Loop {
        task_id: String,
        iteration: Vec<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        capability: Option<String>,
        a: Option<u64>,
        b: Option<u64>,
    },
    /// The runs' results differ (both succeeded).
    Result {
        paths: Vec<PathDiff>,
        #[serde(skip_serializing_if = "is_zero")]
        omitted: usize,
    },
    /// One run failed, or both failed with different errors.
    Error {
        a: Option<String>,
        b: Option<String>,
    },
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A call of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRef {
    /// Its place among the run's calls (journal order, from 1).
    pub seq: i64,
    pub node: Option<String>,
    pub iteration: Vec<u32>,
    pub tool: String,
    /// `done`, `failed`, or `started` (no end written).
    pub state: CallState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its arguments (for a call made in one run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// A place where two values differ: `$` is the whole value, `$.path`, `$.names[0]`...
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathDiff {
    pub path: String,
    /// Absent: the place does not exist in that value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<Value>,
}

/// A run's steps, each with its place in the run (by trace time).
struct Steps<'r> {
    decisions: Vec<(Key, Cow<'r, str>, usize)>,
    calls: Vec<(&'r JournalEntry, usize)>,
    loops: Vec<(Key, u64, usize)>,
}

/// A decision's or loop's identity: capability, node id, iteration, occurrence.
type Key = (Option<String>, String, Vec<u32>, usize);

/// Compare finished runs `a` and `b`, whose whole results are `a_result` and `b_result`.
pub fn diff(a: &Run, a_result: &Value, b: &Run, b_result: &Value) -> RunDiff {
    let same_program = a.program_hash.is_some() && a.program_hash == b.program_hash;
    let (sa, sb) = (steps(a), steps(b));
    // Each difference with its place: the earlier of its places in the two runs.
    let mut found: Vec<(usize, Difference)> = Vec::new();
    let compared_by = match same_program {
        true => {
            compare_by_nodes(&sa, &sb, &mut found);
            ComparedBy::Nodes
        }
        false => {
            compare_by_tools(&sa, &sb, &mut found);
            ComparedBy::Tools
        }
    };
    match (&a.error, &b.error) {
        (None, None) => {
            let (paths, omitted) = value_diff(a_result, b_result);
            if !paths.is_empty() {
                found.push((usize::MAX, Difference::Result { paths, omitted }));
            }
        }
        (ea, eb) if ea != eb => found.push((
            usize::MAX,
            Difference::Error {
                a: ea.clone(),
                b: eb.clone(),
            },
        )),
        _ => {}
    }
    // Stable: equal places keep the order they were found in.
    found.sort_by_key(|(place, _)| *place);
    let differences: Vec<Difference> = found.into_iter().map(|(_, d)| d).collect();
    RunDiff {
        a: run_ref(a),
        b: run_ref(b),
        same_program,
        compared_by,
        same: differences.is_empty(),
        first_divergence: differences.first().cloned(),
        differences,
    }
}

fn run_ref(r: &Run) -> RunRef {
    RunRef {
        id: r.id.clone(),
        program_hash: r.program_hash.clone(),
        capability: r.capability.clone(),
        file: r.file.clone(),
        args: r.args.clone(),
        ok: r.ok,
    }
}

/// The occurrence number of `key` in `seen` (0 the first time), counting it.
fn occurrence<K: std::hash::Hash + Eq>(seen: &mut HashMap<K, usize>, key: K) -> usize {
    let n = seen.entry(key).or_insert(0);
    *n += 1;
    *n - 1
}

/// The run's decisions, calls and loops, each placed by its time in the trace.
fn steps(r: &Run) -> Steps<'_> {
    // Events the trace holds (one that does not read as an event is left out, as a trace
    // that is not an array is).
    let events: Vec<TraceEvent<'_>> = (r.trace.as_array().into_iter().flatten())
        .filter_map(|e| TraceEvent::deserialize(e).ok())
        .collect();
    // The trace times of decisions, call ends and loop ends, by identity and occurrence.
    let mut decision_at: HashMap<Key, f64> = HashMap::new();
    let mut call_at: HashMap<(Option<String>, Vec<u32>, String, usize), f64> = HashMap::new();
    let mut loops: Vec<(Key, u64, f64)> = Vec::new();
    let (mut seen_d, mut seen_c, mut seen_l) = (HashMap::new(), HashMap::new(), HashMap::new());
    for e in events {
        let ts = e.ts_ms;
        let task = e.task_id.as_deref().map(str::to_string);
        let iteration = e.iteration.clone();
        let capability = e.capability.as_deref().map(str::to_string);
        match e.event {
            EventKind::Decision => {
                let id = (capability, task.unwrap_or_default(), iteration);
                let k = occurrence(&mut seen_d, id.clone());
                decision_at.insert((id.0, id.1, id.2, k), ts);
            }
            EventKind::ToolEnd => {
                // A speculated call the program did not take was not the program's.
                if e.not_taken() || e.tool.is_empty() {
                    continue;
                }
                let id = (task, iteration, e.tool.into_owned());
                let k = occurrence(&mut seen_c, id.clone());
                call_at.entry((id.0, id.1, id.2, k)).or_insert(ts);
            }
            EventKind::Loop => {
                let id = (capability, task.unwrap_or_default(), iteration);
                let k = occurrence(&mut seen_l, id.clone());
                let n = u64::from(e.iterations.unwrap_or(0));
                loops.push(((id.0, id.1, id.2, k), n, ts));
            }
            _ => {}
        }
    }
    // Decisions as recorded, in the order taken.
    let mut decisions: Vec<(Key, Cow<'_, str>, f64)> = Vec::new();
    let mut seen = HashMap::new();
    let decided = (r.decisions.as_array().into_iter().flatten())
        .filter_map(|d| Decision::deserialize(d).ok());
    for d in decided {
        let id = (
            d.capability.as_deref().map(str::to_string),
            d.task_id.as_deref().unwrap_or_default().to_string(),
            d.iteration,
        );
        let k = occurrence(&mut seen, id.clone());
        let key = (id.0, id.1, id.2, k);
        let ts = decision_at.get(&key).copied().unwrap_or(f64::INFINITY);
        decisions.push((key, d.outcome.unwrap_or_default(), ts));
    }
    // Calls as journaled, in program order (not the clock and random reads).
    let mut calls: Vec<(&JournalEntry, f64)> = Vec::new();
    let mut seen = HashMap::new();
    for c in r.journal.iter().filter(|c| c.seq < pml::READ_SEQ_BASE) {
        let id = (c.node.clone(), c.iteration.clone(), c.tool.clone());
        let k = occurrence(&mut seen, id.clone());
        let ts = (call_at.get(&(id.0, id.1, id.2, k)).copied()).unwrap_or(f64::INFINITY);
        calls.push((c, ts));
    }
    // Places: all steps by time; at equal times decisions, then calls, then loops, each in
    // their own order.
    let mut all: Vec<(f64, u8, usize)> = Vec::new();
    all.extend(decisions.iter().enumerate().map(|(i, d)| (d.2, 0, i)));
    all.extend(calls.iter().enumerate().map(|(i, c)| (c.1, 1, i)));
    all.extend(loops.iter().enumerate().map(|(i, l)| (l.2, 2, i)));
    all.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut place = [
        vec![0; decisions.len()],
        vec![0; calls.len()],
        vec![0; loops.len()],
    ];
    for (p, (_, kind, i)) in all.into_iter().enumerate() {
        place[usize::from(kind)][i] = p;
    }
    Steps {
        decisions: (decisions.into_iter().zip(&place[0]))
            .map(|((k, o, _), p)| (k, o, *p))
            .collect(),
        calls: (calls.into_iter().zip(&place[1]))
            .map(|((c, _), p)| (c, *p))
            .collect(),
        loops: (loops.into_iter().zip(&place[2]))
            .map(|((k, n, _), p)| (k, n, *p))
            .collect(),
    }
}

fn call_ref(c: &JournalEntry, with_arguments: bool) -> CallRef {
    CallRef {
        seq: c.seq,
        node: c.node.clone(),
        iteration: c.iteration.clone(),
        tool: c.tool.clone(),
        state: c.state,
        error: c.error.as_ref().map(|(message, _)| message.clone()),
        arguments: with_arguments.then(|| c.arguments.clone()),
    }
}

/// The differences between two calls made by both runs (arguments, outcome).
fn compare_calls(
    (ca, pa): (&JournalEntry, usize),
    (cb, pb): (&JournalEntry, usize),
    found: &mut Vec<(usize, Difference)>,
) {
    let place = pa.min(pb);
    let (paths, omitted) = value_diff(&ca.arguments, &cb.arguments);
    if !paths.is_empty() {
        let d = Difference::Arguments {
            a: call_ref(ca, false),
            b: call_ref(cb, false),
            paths,
            omitted,
        };
        found.push((place, d));
    }
    let error = |c: &JournalEntry| c.error.as_ref().map(|(m, _)| m.clone());
    if ca.state != cb.state || error(ca) != error(cb) {
        let d = Difference::Outcome {
            a: call_ref(ca, false),
            b: call_ref(cb, false),
        };
        found.push((place, d));
    }
}

/// A call's identity: node, iteration, tool, occurrence.
type CallKey = (Option<String>, Vec<u32>, String, usize);

/// A run's calls with their identities.
fn keyed<'r>(s: &Steps<'r>) -> Vec<(CallKey, (&'r JournalEntry, usize))> {
    let mut seen = HashMap::new();
    (s.calls.iter())
        .map(|&(c, p)| {
            let id = (c.node.clone(), c.iteration.clone(), c.tool.clone());
            let k = occurrence(&mut seen, id.clone());
            ((id.0, id.1, id.2, k), (c, p))
        })
        .collect()
}

fn compare_by_nodes(sa: &Steps<'_>, sb: &Steps<'_>, found: &mut Vec<(usize, Difference)>) {
    // Decisions.
    let outcomes_b: HashMap<&Key, (&str, usize)> = sb
        .decisions
        .iter()
        .map(|(k, o, p)| (k, (&**o, *p)))
        .collect();
    let keys_a: HashMap<&Key, ()> = sa.decisions.iter().map(|(k, ..)| (k, ())).collect();
    let decision = |k: &Key, a: Option<&str>, b: Option<&str>| Difference::Decision {
        task_id: k.1.clone(),
        iteration: k.2.clone(),
        capability: k.0.clone(),
        a: a.map(str::to_string),
        b: b.map(str::to_string),
    };
    for (k, oa, pa) in &sa.decisions {
        match outcomes_b.get(k) {
            Some((ob, _)) if *ob == &**oa => {}
            Some((ob, pb)) => found.push(((*pa).min(*pb), decision(k, Some(oa), Some(ob)))),
            None => found.push((*pa, decision(k, Some(oa), None))),
        }
    }
    for (k, ob, pb) in &sb.decisions {
        if !keys_a.contains_key(k) {
            found.push((*pb, decision(k, None, Some(ob))));
        }
    }
    // Calls: by node, iteration, tool and occurrence.
    let (calls_a, calls_b) = (keyed(sa), keyed(sb));
    let by_key_b: HashMap<_, _> = calls_b.iter().map(|(k, c)| (k, *c)).collect();
    let by_key_a: HashMap<_, _> = calls_a.iter().map(|(k, c)| (k, *c)).collect();
    for (k, (ca, pa)) in &calls_a {
        match by_key_b.get(k) {
            Some(&b) => compare_calls((*ca, *pa), b, found),
            None => found.push((
                *pa,
                Difference::Call {
                    a: Some(call_ref(ca, true)),
                    b: None,
                },
            )),
        }
    }
    for (k, (cb, pb)) in &calls_b {
        if !by_key_a.contains_key(k) {
            let d = Difference::Call {
                a: None,
                b: Some(call_ref(cb, true)),
            };
            found.push((*pb, d));
        }
    }
    // Loops.
    let loops_b: HashMap<&Key, (u64, usize)> =
        sb.loops.iter().map(|(k, n, p)| (k, (*n, *p))).collect();
    let loop_keys_a: HashMap<&Key, ()> = sa.loops.iter().map(|(k, ..)| (k, ())).collect();
    let looped = |k: &Key, a: Option<u64>, b: Option<u64>| Difference::Loop {
        task_id: k.1.clone(),
        iteration: k.2.clone(),
        capability: k.0.clone(),
        a,
        b,
    };
    for (k, na, pa) in &sa.loops {
        match loops_b.get(k) {
            Some((nb, _)) if nb == na => {}
            Some((nb, pb)) => found.push(((*pa).min(*pb), looped(k, Some(*na), Some(*nb)))),
            None => found.push((*pa, looped(k, Some(*na), None))),
        }
    }
    for (k, nb, pb) in &sb.loops {
        if !loop_keys_a.contains_key(k) {
            found.push((*pb, looped(k, None, Some(*nb))));
        }
    }
}

/// Calls aligned by a longest common subsequence of their tools (position by position when
/// the runs are too long for it).
fn compare_by_tools(sa: &Steps<'_>, sb: &Steps<'_>, found: &mut Vec<(usize, Difference)>) {
    let (a, b) = (&sa.calls, &sb.calls);
    let (n, m) = (a.len(), b.len());
    // Pairs (i, j) of matched calls, in order.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    if n.saturating_mul(m) <= MAX_ALIGN_CELLS {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let width = m + 1;
        let mut lcs = vec![0u32; (n + 1) * width];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i * width + j] = match a[i].0.tool == b[j].0.tool {
                    true => lcs[(i + 1) * width + j + 1] + 1,
                    false => lcs[(i + 1) * width + j].max(lcs[i * width + j + 1]),
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n && j < m {
            if a[i].0.tool == b[j].0.tool {
                pairs.push((i, j));
                (i, j) = (i + 1, j + 1);
            } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
                i += 1;
            } else {
                j += 1;
            }
        }
    } else {
        pairs.extend(
            (0..n.min(m))
                .filter(|&i| a[i].0.tool == b[i].0.tool)
                .map(|i| (i, i)),
        );
    }
    let mut matched_a = vec![false; n];
    let mut matched_b = vec![false; m];
    for &(i, j) in &pairs {
        (matched_a[i], matched_b[j]) = (true, true);
        compare_calls(a[i], b[j], found);
    }
    for &(c, p) in a
        .iter()
        .zip(&matched_a)
        .filter(|(_, m)| !**m)
        .map(|(x, _)| x)
    {
        let d = Difference::Call {
            a: Some(call_ref(c, true)),
            b: None,
        };
        found.push((p, d));
    }
    for &(c, p) in b
        .iter()
        .zip(&matched_b)
        .filter(|(_, m)| !**m)
        .map(|(x, _)| x)
    {
        let d = Difference::Call {
            a: None,
            b: Some(call_ref(c, true)),
        };
        found.push((p, d));
    }
}

/// Where two JSON values differ: at most [`MAX_PATHS`] places, and how many more.
fn value_diff(a: &Value, b: &Value) -> (Vec<PathDiff>, usize) {
    let mut paths = Vec::new();
    let mut omitted = 0;
    walk("$".to_string(), Some(a), Some(b), &mut paths, &mut omitted);
    (paths, omitted)
}

fn walk(
    path: String,
    a: Option<&Value>,
    b: Option<&Value>,
    out: &mut Vec<PathDiff>,
    omitted: &mut usize,
) {
    if a == b {
        return;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for key in keys {
                walk(member(&path, key), x.get(key), y.get(key), out, omitted);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                walk(format!("{path}[{i}]"), x.get(i), y.get(i), out, omitted);
            }
        }
        _ if out.len() >= MAX_PATHS => *omitted += 1,
        _ => out.push(PathDiff {
            path,
            a: a.cloned(),
            b: b.cloned(),
        }),
    }
}

/// `path.key`, or `path["key"]` when the key is not a plain name.
fn member(path: &str, key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    match plain {
        true => format!("{path}.{key}"),
        false => format!("{path}[{}]", Value::String(key.to_string())),
    }
}

/// A value on one line, cut at `max` characters.
fn short(v: &Value, max: usize) -> String {
    let text = pml_jstext::to_js_json(&v.to_string()).into_owned();
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

fn iteration_text(iteration: &[u32]) -> String {
    match iteration.is_empty() {
        true => String::new(),
        false => {
            let i: Vec<String> = iteration.iter().map(u32::to_string).collect();
            format!(" [{}]", i.join(", "))
        }
    }
}

fn within(capability: &Option<String>) -> String {
    match capability {
        Some(name) => format!(" (in capability {name})"),
        None => String::new(),
    }
}

fn call_text(c: &CallRef) -> String {
    format!(
        "call {} {}{} (#{})",
        c.node.as_deref().unwrap_or("(no node)"),
        c.tool,
        iteration_text(&c.iteration),
        c.seq
    )
}

/// B's place among its calls, when it is not A's.
fn other_seq(a: &CallRef, b: &CallRef) -> String {
    match a.seq == b.seq {
        true => String::new(),
        false => format!(" (B's #{})", b.seq),
    }
}

fn state_text(c: &CallRef) -> String {
    match (c.state, &c.error) {
        (CallState::Done, _) => "answered".into(),
        (CallState::Failed, Some(e)) => format!("failed: {}", first_line(e, 160)),
        (CallState::Failed, None) => "failed".into(),
        (CallState::Started, _) => "never ended".into(),
    }
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

fn paths_text(out: &mut String, paths: &[PathDiff], omitted: usize) {
    let side = |v: &Option<Value>| match v {
        Some(v) => short(v, 80),
        None => "(absent)".into(),
    };
    for p in paths {
        let _ = writeln!(out, "      {}: {} -> {}", p.path, side(&p.a), side(&p.b));
    }
    if omitted > 0 {
        let _ = writeln!(out, "      ... and {omitted} more");
    }
}

/// One difference, for people (lines indented by four spaces).
fn difference_text(out: &mut String, d: &Difference) {
    let outcome = |o: &Option<String>| o.clone().unwrap_or_else(|| "(not taken)".into());
    match d {
        Difference::Decision {
            task_id,
            iteration,
            capability,
            a,
            b,
        } => {
            let _ = writeln!(
                out,
                "    decision {task_id}{}{}: A {}, B {}",
                iteration_text(iteration),
                within(capability),
                outcome(a),
                outcome(b)
            );
        }
        Difference::Call { a, b } => {
            let (which, c) = match (a, b) {
                (Some(c), _) => ("A", c),
                (None, Some(c)) => ("B", c),
                (None, None) => return,
            };
            let _ = writeln!(
                out,
                "    {} only in {which}: {}",
                call_text(c),
                c.arguments
                    .as_ref()
                    .map(|v| short(v, 160))
                    .unwrap_or_default()
            );
        }
        Difference::Arguments {
            a,
            b,
            paths,
            omitted,
        } => {
            let _ = match a.node == b.node && a.iteration == b.iteration {
                true => writeln!(
                    out,
                    "    {}: arguments differ (A -> B){}",
                    call_text(a),
                    other_seq(a, b)
                ),
                false => writeln!(
                    out,
                    "    A's {} and B's {}: arguments differ (A -> B)",
                    call_text(a),
                    call_text(b)
                ),
            };
            paths_text(out, paths, *omitted);
        }
        Difference::Outcome { a, b } => {
            let _ = writeln!(
                out,
                "    {}: A {}, B {}{}",
                call_text(a),
                state_text(a),
                state_text(b),
                other_seq(a, b)
            );
        }
        Difference::Loop {
            task_id,
            iteration,
            capability,
            a,
            b,
        } => {
            let times = |n: &Option<u64>| match n {
                Some(n) => format!("{n} times"),
                None => "not at all".into(),
            };
            let _ = writeln!(
                out,
                "    loop {task_id}{}{}: ran A {}, B {}",
                iteration_text(iteration),
                within(capability),
                times(a),
                times(b)
            );
        }
        Difference::Result { paths, omitted } => {
            let _ = writeln!(out, "    results differ (A -> B)");
            paths_text(out, paths, *omitted);
        }
        Difference::Error { a, b } => {
            let side = |e: &Option<String>| match e {
                Some(e) => format!("failed: {}", first_line(e, 160)),
                None => "succeeded".into(),
            };
            let _ = writeln!(out, "    outcome: A {}, B {}", side(a), side(b));
        }
    }
}

/// The report for people.
pub fn describe(d: &RunDiff) -> String {
    let mut out = String::new();
    for (name, r) in [("A", &d.a), ("B", &d.b)] {
        let program = match (r.capability.first(), &r.file) {
            (Some(c), _) => format!("capability {c}"),
            (None, Some(f)) => f.clone(),
            (None, None) => "-".into(),
        };
        let _ = writeln!(
            out,
            "{name}  {}  {program}  args {}",
            r.id,
            short(&r.args, 120)
        );
    }
    let _ = match (d.same_program, &d.a.program_hash, &d.b.program_hash) {
        (true, Some(hash), _) => writeln!(out, "same program ({hash}): compared node by node"),
        (_, Some(ha), Some(hb)) => writeln!(
            out,
            "different programs ({ha} and {hb}): calls compared by tool sequence only; decisions and loops not compared"
        ),
        _ => writeln!(
            out,
            "a run's program hash is not known: calls compared by tool sequence only; decisions and loops not compared"
        ),
    };
    let Some(first) = &d.first_divergence else {
        let _ = writeln!(
            out,
            "the runs are the same: same decisions, calls, arguments, loops and result"
        );
        return out;
    };
    let _ = writeln!(out, "\nfirst divergence:");
    difference_text(&mut out, first);
    let _ = writeln!(out, "\nall {} differences:", d.differences.len());
    for diff in &d.differences {
        difference_text(&mut out, diff);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(
        seq: i64,
        node: &str,
        iteration: Vec<u32>,
        tool: &str,
        arguments: Value,
    ) -> JournalEntry {
        JournalEntry {
            seq,
            node: Some(node.into()),
            iteration,
            tool: tool.into(),
            arguments,
            state: CallState::Done,
            result: Some(json!({})),
            error: None,
        }
    }

    fn run(
        id: &str,
        hash: &str,
        decisions: Value,
        trace: Value,
        journal: Vec<JournalEntry>,
    ) -> Run {
        Run {
            id: id.into(),
            finished: true,
            resumed_from: None,
            journal,
            program_hash: Some(hash.into()),
            capability: Vec::new(),
            file: Some("p.ts".into()),
            args: json!({}),
            ok: true,
            result: json!(null),
            result_truncated: false,
            error: None,
            trace,
            executed_path: json!([]),
            decisions,
            timings: json!({}),
            calls: 0,
            started_at: 0,
            duration_ms: 1,
            trace_context: None,
        }
    }

    #[test]
    fn differences_come_in_the_order_the_runs_met_them() {
        let trace = |outcome: &str, tool: &str| {
            json!([
                {"event": "tool_end", "taskId": "n1", "tool": "fs:list", "tsMs": 1.0},
                {"event": "decision", "taskId": "d1", "outcome": outcome, "tsMs": 2.0},
                {"event": "tool_end", "taskId": "n2", "tool": tool, "tsMs": 3.0},
                {"event": "loop", "taskId": "l1", "iterations": if outcome == "true" { 2 } else { 3 }, "tsMs": 4.0},
            ])
        };
        let a = run(
            "a",
            "h",
            json!([{"taskId": "d1", "outcome": "true", "iteration": []}]),
            trace("true", "fs:read"),
            vec![
                entry(
                    1,
                    "n1",
                    vec![],
                    "fs:list",
                    json!({"path": "/x", "depth": 1}),
                ),
                entry(2, "n2", vec![], "fs:read", json!({})),
            ],
        );
        let b = run(
            "b",
            "h",
            json!([{"taskId": "d1", "outcome": "false", "iteration": []}]),
            trace("false", "fs:write"),
            vec![
                entry(
                    1,
                    "n1",
                    vec![],
                    "fs:list",
                    json!({"path": "/y", "depth": 1}),
                ),
                entry(2, "n2", vec![], "fs:write", json!({})),
            ],
        );
        let d = diff(&a, &json!(1), &b, &json!(2));
        let kinds: Vec<String> = (d.differences.iter())
            .map(|d| {
                serde_json::to_value(d).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            ["arguments", "decision", "call", "call", "loop", "result"],
            "{d:#?}"
        );
        let Difference::Arguments { paths, .. } = &d.differences[0] else {
            unreachable!()
        };
        assert_eq!(
            paths,
            &[PathDiff {
                path: "$.path".into(),
                a: Some(json!("/x")),
                b: Some(json!("/y"))
            }]
        );
        assert_eq!(d.first_divergence.as_ref(), d.differences.first());
        let text = describe(&d);
        assert!(text.contains("decision d1: A true, B false"), "{text}");
        assert!(text.contains("call n2 fs:read (#2) only in A"), "{text}");
        assert!(text.contains("$.path: \"/x\" -> \"/y\""), "{text}");
        assert!(text.contains("loop l1: ran A 2 times, B 3 times"), "{text}");
    }

    #[test]
    fn different_programs_are_aligned_by_tools() {
        let a = run(
            "a",
            "h1",
            json!([{"taskId": "d1", "outcome": "true", "iteration": []}]),
            json!([]),
            vec![
                entry(1, "n1", vec![], "fs:list", json!({"p": 1})),
                entry(2, "n2", vec![], "fs:read", json!({"p": 2})),
            ],
        );
        let b = run(
            "b",
            "h2",
            json!([{"taskId": "d1", "outcome": "false", "iteration": []}]),
            json!([]),
            vec![
                entry(1, "n7", vec![], "fs:stat", json!({})),
                entry(2, "n8", vec![], "fs:list", json!({"p": 1})),
                entry(3, "n9", vec![], "fs:read", json!({"p": 3})),
            ],
        );
        let d = diff(&a, &json!(null), &b, &json!(null));
        assert_eq!(d.compared_by, ComparedBy::Tools);
        assert!(!d.same_program);
        // No decision compared; fs:stat only in B; fs:read's argument differs.
        assert_eq!(d.differences.len(), 2, "{d:#?}");
        assert!(
            matches!(&d.differences[0], Difference::Call { a: None, b: Some(c) } if c.tool == "fs:stat")
        );
        assert!(
            matches!(&d.differences[1], Difference::Arguments { paths, .. } if paths[0].path == "$.p")
        );
    }

    #[test]
    fn identical_runs_are_the_same() {
        let journal = vec![entry(1, "n1", vec![0], "fs:read", json!({"path": "a"}))];
        let a = run("a", "h", json!([]), json!([]), journal.clone());
        let b = run("b", "h", json!([]), json!([]), journal);
        let d = diff(&a, &json!([1]), &b, &json!([1]));
        assert!(d.same && d.differences.is_empty() && d.first_divergence.is_none());
        assert!(describe(&d).contains("the runs are the same"));
    }

    #[test]
    fn paths_name_members_and_elements() {
        let (paths, omitted) = value_diff(
            &json!({"a b": 1, "xs": [1, 2], "same": true}),
            &json!({"a b": 2, "xs": [1], "new": null, "same": true}),
        );
        let names: Vec<&str> = paths.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(names, ["$[\"a b\"]", "$.xs[1]", "$.new"]);
        assert_eq!((paths[1].b.clone(), omitted), (None, 0));
    }
}
