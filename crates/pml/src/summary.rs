//! What the commands print on a terminal: a concise summary for a person (the JSON documents
//! are for machines: piped output, or `--json`). Every function here renders data the stages
//! already computed; nothing is analysed again.

use std::collections::BTreeMap;
use std::fmt::Write;

use pml_structure::{NodeKind, Scope, StaticStructure};
use pml_trace::{EventKind, TraceEvent};

use crate::run::RunOutput;
use crate::Dag;

/// Lines of a result shown before "... more lines".
const RESULT_LINES: usize = 20;
/// Operations of a timeline shown before "... more".
const TIMELINE_LINES: usize = 40;

/// `pml analyze`: what the program calls, its decisions, loops, functions, forks and
/// operations, and the tools that need a human.
pub fn structure(file: &str, s: &StaticStructure) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{file}: {} nodes, {} edges",
        s.nodes.len(),
        s.edges.len()
    );
    let place = |n: &pml_structure::Node| {
        let scope = match &n.scope {
            Some(Scope::Loop { id }) => format!("  in loop {id}"),
            Some(Scope::Decision { id, outcome }) => format!("  when {id} is {outcome}"),
            Some(Scope::Fork { id }) => format!("  in fork {id}"),
            Some(Scope::Function { id }) => format!("  in function {id}"),
            None => String::new(),
        };
        format!("{}:{}{scope}", n.span.line, n.span.column)
    };
    let calls: Vec<_> = s.nodes.iter().filter(|n| n.is_mcp()).collect();
    if !calls.is_empty() {
        let _ = writeln!(out, "MCP calls:");
        for n in calls {
            let tool = n.tool.as_deref().unwrap_or_default();
            let _ = writeln!(out, "  {:<5} {tool:<40} at {}", n.id, place(n));
        }
    }
    let mut operations: BTreeMap<&str, usize> = BTreeMap::new();
    for n in s
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Task && !n.is_mcp())
    {
        *operations
            .entry(n.tool.as_deref().unwrap_or("code"))
            .or_default() += 1;
    }
    if !operations.is_empty() {
        let list: Vec<String> = operations
            .iter()
            .map(|(tool, count)| match count {
                1 => (*tool).to_owned(),
                n => format!("{tool} x{n}"),
            })
            .collect();
        let _ = writeln!(out, "operations: {}", list.join(", "));
    }
    for (kind, title) in [
        (NodeKind::Decision, "decisions"),
        (NodeKind::Loop, "loops"),
        (NodeKind::Function, "functions"),
        (NodeKind::Fork, "forks (Promise.all)"),
        (NodeKind::Capability, "capability calls"),
    ] {
        let nodes: Vec<_> = s.nodes.iter().filter(|n| n.kind == kind).collect();
        if nodes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}:");
        for n in nodes {
            let what = match kind {
                NodeKind::Decision => n.condition.clone().unwrap_or_default(),
                NodeKind::Loop => n.tool.clone().unwrap_or_default(),
                NodeKind::Function => n.name.clone().unwrap_or_default(),
                NodeKind::Capability => n.capability_id.clone().unwrap_or_default(),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  {:<5} {:<40} at {}",
                n.id,
                one_line(&what, 40),
                place(n)
            );
        }
    }
    if !s.hil_required_tools.is_empty() {
        let _ = writeln!(out, "need approval: {}", s.hil_required_tools.join(", "));
    }
    let errors = s
        .diagnostics
        .iter()
        .filter(|d| d.severity == pml_structure::Severity::Error);
    let (errors, warnings) = (errors.count(), s.diagnostics.len());
    if warnings > 0 {
        let _ = writeln!(
            out,
            "diagnostics: {errors} errors, {} warnings (above, on stderr)",
            warnings - errors
        );
    }
    out
}

/// `pml dag`: the tasks layer by layer (those of a layer may run at once), fused groups.
pub fn dag(file: &str, dag: &Dag) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{file}: {} tasks in {} layers",
        dag.tasks.len(),
        dag.layers.len()
    );
    for (i, layer) in dag.layers.iter().enumerate() {
        let tasks: Vec<String> = layer
            .iter()
            .map(|id| match dag.tasks.iter().find(|t| &t.id == id) {
                Some(t) => format!("{id} {}", t.tool),
                None => id.clone(),
            })
            .collect();
        let _ = writeln!(out, "  {:>2}. {}", i + 1, tasks.join("  |  "));
    }
    let fused: Vec<_> = dag
        .tasks
        .iter()
        .filter(|t| !t.metadata.fused_from.is_empty())
        .collect();
    if !fused.is_empty() {
        let _ = writeln!(out, "fused:");
        for t in fused {
            let _ = writeln!(
                out,
                "  {} = {} ({})",
                t.id,
                t.metadata.fused_from.join(" + "),
                t.metadata.fusion.as_deref().unwrap_or("fused")
            );
        }
    }
    out
}

/// `pml run`: the outcome and result, then a timeline of what ran (durations, what ran while
/// something else was running, speculative and replayed calls), decisions and loops.
pub fn run(file: &str, output: &RunOutput) -> String {
    let report = &output.report;
    let mut out = String::new();
    let ops: Vec<&TraceEvent> = report
        .trace
        .iter()
        .filter(|e| e.event == EventKind::ToolEnd)
        .collect();
    let calls = ops.iter().filter(|e| !e.tool.starts_with("code:")).count();
    let status = if report.ok { "ok" } else { "failed" };
    let _ = write!(
        out,
        "{file}: {status} · {}, {} in {:.0} ms (servers started in {:.0} ms)",
        counted(calls, "call"),
        counted(ops.len() - calls, "operation"),
        report.timings.execute_ms,
        output.stages.servers_ms
    );
    if let Some(id) = &output.run_id {
        let _ = write!(out, " · run {}", id.get(..12).unwrap_or(id));
    }
    out.push('\n');
    match &report.error {
        Some(error) => {
            let _ = writeln!(out, "error: {}", error.message);
        }
        None => {
            let text = serde_json::to_string_pretty(&report.result).unwrap_or_default();
            let text = pml_jstext::to_js_json(&text);
            let lines: Vec<&str> = text.lines().collect();
            let _ = writeln!(out, "result:");
            // A cut that would leave one or two lines (a lone `}`) shows them instead.
            let shown = match lines.len() <= RESULT_LINES + 2 {
                true => lines.len(),
                false => RESULT_LINES,
            };
            for line in lines.iter().take(shown) {
                let _ = writeln!(out, "  {line}");
            }
            if lines.len() > shown {
                let _ = writeln!(
                    out,
                    "  ... {} more lines (--json for everything)",
                    lines.len() - RESULT_LINES
                );
            }
        }
    }
    if !ops.is_empty() {
        out.push_str(&timeline(&ops));
    }
    let decisions: Vec<(Option<&str>, String)> = (report.trace.iter())
        .filter(|e| e.event == EventKind::Decision)
        .map(|e| {
            let id = e.task_id.as_deref().unwrap_or("?");
            let said = format!("{id} {}", e.outcome.as_deref().unwrap_or("?"));
            (e.capability.as_deref(), said)
        })
        .collect();
    out.push_str(&grouped("decisions", &decisions));
    let loops: Vec<(Option<&str>, String)> = (report.trace.iter())
        .filter(|e| e.event == EventKind::Loop)
        .map(|e| {
            let id = e.task_id.as_deref().unwrap_or("?");
            let ran = counted(e.iterations.unwrap_or(0) as usize, "time");
            (e.capability.as_deref(), format!("{id} ran {ran}"))
        })
        .collect();
    out.push_str(&grouped("loops", &loops));
    if let Some(s) = &report.speculation {
        let _ = writeln!(
            out,
            "speculation: {} reads started ahead, {} taken, {} wasted",
            s.planned, s.served, s.wasted
        );
    }
    out
}

/// `1 call`, `2 calls`, `0 calls`.
pub fn counted(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// Most items a `decisions:` or `loops:` line lists; the rest are counted.
const GROUP_ITEMS: usize = 12;

/// `label: a, b, c` for the program's items, then one such line per capability that had
/// some (`label in capability NAME: ...`); past [`GROUP_ITEMS`], how many more.
fn grouped(label: &str, items: &[(Option<&str>, String)]) -> String {
    let mut owners: Vec<Option<&str>> = Vec::new();
    for (owner, _) in items {
        if !owners.contains(owner) {
            owners.push(*owner);
        }
    }
    owners.sort_by_key(|o| o.is_some());
    let mut out = String::new();
    for owner in owners {
        let mine: Vec<&str> = (items.iter())
            .filter(|(o, _)| *o == owner)
            .map(|(_, said)| said.as_str())
            .collect();
        let mut line = mine
            .iter()
            .take(GROUP_ITEMS)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if mine.len() > GROUP_ITEMS {
            let _ = write!(line, ", ... {} more", mine.len() - GROUP_ITEMS);
        }
        match owner {
            None => {
                let _ = writeln!(out, "{label}: {line}");
            }
            Some(name) => {
                let _ = writeln!(out, "{label} in capability {name}: {line}");
            }
        }
    }
    out
}

/// One line per operation, by start: when it started, how long it took, node, tool,
/// iteration, what else about it; `‖` when an earlier one was still running.
fn timeline(ops: &[&TraceEvent]) -> String {
    let mut spans: Vec<(f64, f64, &TraceEvent)> = ops
        .iter()
        .map(|e| {
            let took = e.duration_ms.unwrap_or(0.0);
            (e.ts_ms - took, e.ts_ms, *e)
        })
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out =
        String::from("timeline (start ms, duration ms; ‖ ran while another was running):\n");
    let mut latest_end = f64::NEG_INFINITY;
    for (i, (start, end, e)) in spans.iter().enumerate() {
        if i == TIMELINE_LINES {
            let _ = writeln!(out, "  ... {} more (--json for the trace)", spans.len() - i);
            break;
        }
        let parallel = if *start < latest_end - 0.05 {
            "‖"
        } else {
            " "
        };
        latest_end = latest_end.max(*end);
        let iteration = match e.iteration.as_slice() {
            [] => String::new(),
            it => format!(
                "[{}]",
                it.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
            ),
        };
        let mut notes = Vec::new();
        if e.success == Some(false) {
            notes.push(format!(
                "FAILED{}",
                e.error
                    .as_deref()
                    .map(|m| format!(": {}", one_line(m, 60)))
                    .unwrap_or_default()
            ));
        }
        match (e.speculative, e.taken) {
            (Some(true), Some(false)) => notes.push("speculative, not taken".to_owned()),
            (Some(true), _) => notes.push("speculative".to_owned()),
            _ => {}
        }
        if e.replayed == Some(true) {
            notes.push("from the journal".to_owned());
        }
        if let Some(capability) = &e.capability {
            notes.push(format!("in capability {capability}"));
        }
        let id = e.task_id.as_deref().unwrap_or("-");
        let _ = writeln!(
            out,
            "{parallel} {start:>8.1} {:>+8.1}  {id:<5} {}{iteration}  {}",
            end - start,
            e.tool,
            notes.join(", ")
        );
    }
    // Trailing spaces of lines without notes.
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// `text` on one line, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if text.lines().nth(1).is_some() => format!("{line}…"),
        None => line.to_owned(),
    }
}

/// Live progress of a run on a terminal: one status line on stderr, rewritten as calls start
/// and end, erased when the run ends.
#[derive(Default)]
pub struct Progress {
    state: std::sync::Mutex<ProgressState>,
}

#[derive(Default)]
struct ProgressState {
    running: BTreeMap<String, usize>,
    done: usize,
    failed: usize,
    shown: bool,
}

/// Set while pml asks a question on the terminal (an approval): the progress line is not
/// drawn over it.
pub static ASKING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Progress {
    /// Takes one trace event into account and redraws the line.
    pub fn event(&self, e: &TraceEvent) {
        if e.tool.starts_with("code:") || !e.is_operation() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if e.event == EventKind::ToolStart {
            *state.running.entry(e.tool.to_string()).or_default() += 1;
        } else {
            if let Some(n) = state.running.get_mut(&*e.tool) {
                *n -= 1;
                if *n == 0 {
                    state.running.remove(&*e.tool);
                }
            }
            match e.success {
                Some(false) => state.failed += 1,
                _ => state.done += 1,
            }
        }
        let running: Vec<String> = state
            .running
            .iter()
            .map(|(tool, n)| match n {
                1 => tool.clone(),
                n => format!("{tool} x{n}"),
            })
            .collect();
        let line = format!(
            "pml: {} done, {} failed, running: {}",
            state.done,
            state.failed,
            if running.is_empty() {
                "-".to_owned()
            } else {
                one_line(&running.join(", "), 80)
            }
        );
        // Not over a question waiting for its answer (the next event after it redraws).
        if ASKING.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        state.shown = true;
        // Erase the line, then write it again (no newline: the next event rewrites it).
        eprint!("\r\x1b[2K{line}");
    }

    /// Erases the status line.
    pub fn finish(&self) {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.shown {
            eprint!("\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_one_or_many() {
        assert_eq!(counted(1, "call"), "1 call");
        assert_eq!(counted(0, "operation"), "0 operations");
        assert_eq!(counted(3, "time"), "3 times");
    }

    #[test]
    fn decisions_are_grouped_by_capability_and_summarised() {
        let mut items: Vec<(Option<&str>, String)> =
            (1..=14).map(|i| (None, format!("d{i} true"))).collect();
        items.push((Some("archive"), "d1 false".to_owned()));
        let text = grouped("decisions", &items);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].starts_with("decisions: d1 true, d2 true"),
            "{text}"
        );
        assert!(lines[0].ends_with("d12 true, ... 2 more"), "{text}");
        assert_eq!(lines[1], "decisions in capability archive: d1 false");
    }
}
