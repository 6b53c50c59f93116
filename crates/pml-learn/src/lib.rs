//! pml-learn: what the stored runs teach. The learning graph aggregates run traces into a
//! graph of tools and operations, and, per program (a capability, by its semantic hash), the
//! paths its runs took and the outcomes its decisions had.
//!
//! **Input:** runs as the store keeps them (the program's hash, success, duration, and the
//! JSON text of the trace and decisions: [`Learner::add_run`]), and the stored structures of
//! capabilities for their names and `provides` edges ([`Learner::add_structure`]).
//! **Output:** [`Learned`]: a `petgraph` graph whose nodes are tools (`server:tool`,
//! `code:*`, `capability:*`) with how often each ran, its success rate and mean duration;
//! `sequence` edges (one operation ended, the next one to end was this: observed successions,
//! with counts, the success rate and mean duration of the second) and `provides` edges (a
//! stored structure says one's output feeds the other). Per program: each distinct executed
//! path with its count, success rate and mean run duration, the dominant path, and per
//! decision node how often each outcome was taken. As JSON (`docs/formats.md`) or DOT.
//!
//! **Invariants:** the result depends only on the runs and structures given, not on their
//! order (everything listed is sorted); a trace that does not parse is an error naming the
//! run, never skipped silently. Linear in the size of the traces: one pass, borrowed strings,
//! tools interned.

use std::borrow::Cow;
use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use pml_trace::{Decision, EventKind, TraceEvent};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// A run or a structure that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {message}")]
pub struct LearnError {
    /// Which run or structure (`run 12`, `capability <hash>`).
    pub what: String,
    pub message: String,
}

/// What the graph holds per tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolStats {
    pub tool: String,
    /// How many times it ran (ended), in all runs.
    pub count: u64,
    pub success_rate: f64,
    pub mean_duration_ms: f64,
    #[serde(skip)]
    ok: u64,
    #[serde(skip)]
    total_ms: f64,
}

/// The kind of an edge of the learning graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    /// Observed: the second ended right after the first, in a run.
    Sequence,
    /// Declared: a stored structure has the first's output feed the second.
    Provides,
}

/// What the graph holds per edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EdgeStats {
    #[serde(rename = "type")]
    pub kind: EdgeKind,
    /// `sequence`: times observed; `provides`: structures that declare it.
    pub count: u64,
    /// `sequence`: success rate and mean duration of the second operation, after the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_duration_ms: Option<f64>,
    #[serde(skip)]
    ok: u64,
    #[serde(skip)]
    total_ms: f64,
}

/// One distinct executed path of a program.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PathStats {
    /// The operations in the order they ended.
    pub path: Vec<String>,
    /// Runs that took it.
    pub count: u64,
    pub success_rate: f64,
    /// Mean duration of those runs.
    pub mean_duration_ms: f64,
}

/// How often each outcome of one decision node was taken (every time it was decided, loops
/// included). A decision inside a capability the program called is `NAME/<node id>`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionStats {
    pub task_id: String,
    pub outcomes: BTreeMap<String, u64>,
}

/// What the runs of one program teach.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgramStats {
    /// Its semantic hash (`null`: runs of programs that had none).
    pub program_hash: Option<String>,
    /// Its names, when it is a stored capability.
    pub capability: Vec<String>,
    pub runs: u64,
    pub success_rate: f64,
    pub mean_duration_ms: f64,
    /// Most taken first (then the more successful, the faster, by the path's text).
    pub paths: Vec<PathStats>,
    /// The first of `paths`.
    pub dominant_path: Vec<String>,
    /// By node id.
    pub decisions: Vec<DecisionStats>,
}

/// Accumulates runs and structures; [`Learner::finish`] makes the [`Learned`].
#[derive(Default)]
pub struct Learner {
    graph: DiGraph<ToolStats, EdgeStats>,
    tools: FxHashMap<String, NodeIndex>,
    edges: FxHashMap<(NodeIndex, NodeIndex, EdgeKind), petgraph::graph::EdgeIndex>,
    programs: BTreeMap<Option<String>, Program>,
    names: FxHashMap<String, Vec<String>>,
    runs: u64,
    /// Leave pure JavaScript operations (`code:*`) out: MCP calls (and capability calls)
    /// only, each after the call before it.
    mcp_only: bool,
}

#[derive(Default)]
struct Program {
    runs: u64,
    ok: u64,
    total_ms: f64,
    paths: FxHashMap<Vec<NodeIndex>, (u64, u64, f64)>,
    decisions: BTreeMap<String, BTreeMap<String, u64>>,
}

/// The fields of a stored structure learning reads.
#[derive(Deserialize)]
struct Structure<'a> {
    #[serde(default, borrow)]
    nodes: Vec<StructureNode<'a>>,
    #[serde(default, borrow)]
    edges: Vec<StructureEdge<'a>>,
}

#[derive(Deserialize)]
struct StructureNode<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default, borrow)]
    tool: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "capabilityId")]
    capability_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct StructureEdge<'a> {
    #[serde(borrow)]
    from: Cow<'a, str>,
    #[serde(borrow)]
    to: Cow<'a, str>,
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
}

/// One run of a capability inside another run (`capabilities.NAME(...)`, at any depth): what
/// ran under that call, as a run of its own, so that it counts for the capability as its own
/// runs do.
#[derive(Debug, Clone, PartialEq)]
pub struct CalledRun {
    /// The name it was called by (`capability` of its events).
    pub name: String,
    /// Where it was called: the `parent` of its events (`c2`, `c2[1]`, `c2/c1` through a
    /// capability calling another).
    pub parent: String,
    /// Whether the call succeeded (the caller's `capability:NAME` operation).
    pub ok: bool,
    /// The call's duration.
    pub duration_ms: f64,
    /// Its trace events (JSON array) as its own run's: those under the call, its own level's
    /// without `capability` and `parent`, deeper ones with their `parent` taken from there.
    pub trace: String,
    /// Its decisions (`[{taskId, outcome, iteration, capability?}]`), from its events.
    pub decisions: String,
}

/// The runs of capabilities inside the run whose trace is `trace` (JSON text: an array of
/// events), in the order they first appear; `what` names the run in errors.
pub fn called_runs(what: &str, trace: &str) -> Result<Vec<CalledRun>, LearnError> {
    let error = |e: serde_json::Error| LearnError {
        what: what.to_owned(),
        message: format!("its trace does not parse: {e}"),
    };
    let events: Vec<TraceEvent<'_>> = serde_json::from_str(trace).map_err(error)?;
    // Each (name, parent) once, by first appearance.
    let mut calls: Vec<(&str, &str)> = Vec::new();
    for e in &events {
        if let (Some(name), Some(parent)) = (e.capability.as_deref(), e.parent.as_deref()) {
            if !calls.contains(&(name, parent)) {
                calls.push((name, parent));
            }
        }
    }
    let mut out = Vec::with_capacity(calls.len());
    for (name, parent) in calls {
        let below = format!("{parent}/");
        let mut trace: Vec<TraceEvent<'_>> = Vec::new();
        let mut decisions = Vec::new();
        for e in &events {
            let Some(at) = e.parent.as_deref() else {
                continue;
            };
            let mut e = e.clone();
            if at == parent && e.capability.as_deref() == Some(name) {
                e.capability = None;
                e.parent = None;
            } else if let Some(rest) = at.strip_prefix(&below) {
                e.parent = Some(Cow::Owned(rest.to_owned()));
            } else {
                continue;
            }
            decisions.extend(e.decision());
            trace.push(e);
        }
        // The call itself: the caller's `capability:NAME` operation that ended, at the place
        // `parent` names (its last step: node and iteration; the steps before: the caller's
        // own parent).
        let (caller, site) = match parent.rsplit_once('/') {
            Some((caller, site)) => (Some(caller), site),
            None => (None, parent),
        };
        let tool = format!("capability:{name}");
        let call = events.iter().find(|e| {
            e.event == EventKind::ToolEnd
                && e.tool == tool.as_str()
                && e.parent.as_deref() == caller
                && site_of(e).as_deref() == Some(site)
        });
        let (ok, duration_ms) = match call {
            Some(call) => (call.success != Some(false), call.duration_ms.unwrap_or(0.0)),
            // Not kept (a trace cut at its event limit): what its own events say.
            None => (!trace.iter().any(|e| e.success == Some(false)), 0.0),
        };
        out.push(CalledRun {
            name: name.to_owned(),
            parent: parent.to_owned(),
            ok,
            duration_ms,
            trace: serde_json::to_string(&trace).map_err(error)?,
            decisions: serde_json::to_string(&decisions).map_err(error)?,
        });
    }
    Ok(out)
}

/// The place a capability call's event names as its callees' `parent`: `c2`, `c2[1,0]`, or
/// its tool when it has no node.
fn site_of(e: &TraceEvent<'_>) -> Option<String> {
    let Some(id) = e.task_id.as_deref() else {
        return (!e.tool.is_empty()).then(|| e.tool.to_string());
    };
    let iteration: Vec<String> = e.iteration.iter().map(u32::to_string).collect();
    Some(match iteration.is_empty() {
        true => id.to_owned(),
        false => format!("{id}[{}]", iteration.join(",")),
    })
}

impl Learner {
    pub fn new() -> Self {
        Learner::default()
    }

    /// A learner of MCP calls (and capability calls) only: `code:*` operations are left out
    /// of the graph, the paths and the successions (a call follows the call before it).
    pub fn mcp_only() -> Self {
        Learner {
            mcp_only: true,
            ..Learner::default()
        }
    }

    fn tool(&mut self, tool: &str) -> NodeIndex {
        if let Some(&index) = self.tools.get(tool) {
            return index;
        }
        let index = self.graph.add_node(ToolStats {
            tool: tool.to_owned(),
            ..ToolStats::default()
        });
        self.tools.insert(tool.to_owned(), index);
        index
    }

    fn edge(&mut self, from: NodeIndex, to: NodeIndex, kind: EdgeKind) -> &mut EdgeStats {
        let graph = &mut self.graph;
        let index = *self.edges.entry((from, to, kind)).or_insert_with(|| {
            graph.add_edge(
                from,
                to,
                EdgeStats {
                    kind,
                    count: 0,
                    success_rate: None,
                    mean_duration_ms: None,
                    ok: 0,
                    total_ms: 0.0,
                },
            )
        });
        &mut self.graph[index]
    }

    /// Adds one finished run of the program `program_hash`: its success, duration and the
    /// JSON text of its trace events and decisions (`[{taskId, outcome, iteration}]`), as
    /// `pml run` prints and the store keeps them. `what` names the run in errors.
    pub fn add_run(
        &mut self,
        what: &str,
        program_hash: Option<&str>,
        ok: bool,
        duration_ms: f64,
        trace: &str,
        decisions: &str,
    ) -> Result<(), LearnError> {
        self.add(what, program_hash, ok, duration_ms, trace, decisions, true)
    }

    /// Adds a run of the capability `program_hash` made inside a run already added
    /// ([`called_runs`]) to that program's runs, paths and decisions only: the graph has its
    /// operations already (from the run it was part of), and it is not one more run learned
    /// from.
    pub fn add_called_run(
        &mut self,
        what: &str,
        program_hash: &str,
        called: &CalledRun,
    ) -> Result<(), LearnError> {
        self.add(
            what,
            Some(program_hash),
            called.ok,
            called.duration_ms,
            &called.trace,
            &called.decisions,
            false,
        )
    }

    /// [`Learner::add_run`]; `whole`: into the graph and the count of runs too, else into
    /// the program's statistics only.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        what: &str,
        program_hash: Option<&str>,
        ok: bool,
        duration_ms: f64,
        trace: &str,
        decisions: &str,
        whole: bool,
    ) -> Result<(), LearnError> {
        let error = |e: serde_json::Error| LearnError {
            what: what.to_owned(),
            message: format!("its trace does not parse: {e}"),
        };
        let events: Vec<TraceEvent<'_>> = serde_json::from_str(trace).map_err(error)?;
        let decided: Vec<Decision<'_>> = serde_json::from_str(decisions).map_err(error)?;
        // The operations in the order they ended (the trace is sorted by time): the executed
        // path, and each one after the one before it.
        let mut path: Vec<NodeIndex> = Vec::new();
        for e in (events.iter()).filter(|e| e.event == EventKind::ToolEnd && !e.not_taken()) {
            let tool = &*e.tool;
            if tool.is_empty() {
                continue;
            }
            if self.mcp_only && tool.starts_with("code:") {
                continue;
            }
            let index = self.tool(tool);
            path.push(index);
            if !whole {
                continue;
            }
            let success = e.success.unwrap_or(false);
            let ms = e.duration_ms.unwrap_or(0.0);
            let node = &mut self.graph[index];
            node.count += 1;
            node.ok += u64::from(success);
            node.total_ms += ms;
            if let [.., before, _] = path[..] {
                let edge = self.edge(before, index, EdgeKind::Sequence);
                edge.count += 1;
                edge.ok += u64::from(success);
                edge.total_ms += ms;
            }
        }
        let program = self
            .programs
            .entry(program_hash.map(str::to_owned))
            .or_default();
        program.runs += 1;
        program.ok += u64::from(ok);
        program.total_ms += duration_ms;
        let taken = program.paths.entry(path).or_default();
        taken.0 += 1;
        taken.1 += u64::from(ok);
        taken.2 += duration_ms;
        for d in decided {
            if let (Some(id), Some(outcome)) = (d.task_id, d.outcome) {
                let id = match d.capability {
                    Some(name) => format!("{name}/{id}"),
                    None => id.into_owned(),
                };
                *program
                    .decisions
                    .entry(id)
                    .or_default()
                    .entry(outcome.into_owned())
                    .or_default() += 1;
            }
        }
        self.runs += u64::from(whole);
        Ok(())
    }

    /// Adds the stored structure (JSON text, as `pml analyze` prints it) of the capability
    /// `program_hash` named `names`: its names, and a `provides` edge between the tools of
    /// each `provides` edge of its nodes.
    pub fn add_structure(
        &mut self,
        program_hash: &str,
        names: &[String],
        structure: &str,
    ) -> Result<(), LearnError> {
        let parsed: Structure<'_> = serde_json::from_str(structure).map_err(|e| LearnError {
            what: format!("capability {program_hash}"),
            message: format!("its structure does not parse: {e}"),
        })?;
        self.names.insert(program_hash.to_owned(), names.to_vec());
        let tool_of = |id: &str| {
            let node = parsed.nodes.iter().find(|n| n.id == id)?;
            match (&node.tool, &node.capability_id) {
                (Some(tool), _) => Some(tool.to_string()),
                (None, Some(name)) => Some(format!("capability:{name}")),
                _ => None,
            }
        };
        let mcp_only = self.mcp_only;
        let mut declared: Vec<(String, String)> = (parsed.edges.iter())
            .filter(|e| e.kind == "provides")
            .filter_map(|e| Some((tool_of(&e.from)?, tool_of(&e.to)?)))
            .filter(|(from, to)| {
                !mcp_only || !(from.starts_with("code:") || to.starts_with("code:"))
            })
            .collect();
        // Once per structure.
        declared.sort();
        declared.dedup();
        for (from, to) in declared {
            let (from, to) = (self.tool(&from), self.tool(&to));
            self.edge(from, to, EdgeKind::Provides).count += 1;
        }
        Ok(())
    }

    /// The graph and the programs' statistics.
    pub fn finish(mut self) -> Learned {
        let rate = |ok: u64, n: u64| if n == 0 { 0.0 } else { ok as f64 / n as f64 };
        let mean = |total: f64, n: u64| if n == 0 { 0.0 } else { total / n as f64 };
        for node in self.graph.node_weights_mut() {
            node.success_rate = rate(node.ok, node.count);
            node.mean_duration_ms = mean(node.total_ms, node.count);
        }
        for edge in self.graph.edge_weights_mut() {
            if edge.kind == EdgeKind::Sequence {
                edge.success_rate = Some(rate(edge.ok, edge.count));
                edge.mean_duration_ms = Some(mean(edge.total_ms, edge.count));
            }
        }
        let graph = &self.graph;
        let programs = (self.programs.into_iter())
            .map(|(hash, p)| {
                let mut paths: Vec<PathStats> = (p.paths.into_iter())
                    .map(|(path, (count, ok, total))| PathStats {
                        path: path.iter().map(|&i| graph[i].tool.clone()).collect(),
                        count,
                        success_rate: rate(ok, count),
                        mean_duration_ms: mean(total, count),
                    })
                    .collect();
                paths.sort_by(|a, b| {
                    (b.count.cmp(&a.count))
                        .then(b.success_rate.total_cmp(&a.success_rate))
                        .then(a.mean_duration_ms.total_cmp(&b.mean_duration_ms))
                        .then(a.path.cmp(&b.path))
                });
                ProgramStats {
                    capability: (hash.as_ref())
                        .and_then(|h| self.names.get(h).cloned())
                        .unwrap_or_default(),
                    program_hash: hash,
                    runs: p.runs,
                    success_rate: rate(p.ok, p.runs),
                    mean_duration_ms: mean(p.total_ms, p.runs),
                    dominant_path: paths.first().map(|p| p.path.clone()).unwrap_or_default(),
                    paths,
                    decisions: (p.decisions.into_iter())
                        .map(|(task_id, outcomes)| DecisionStats { task_id, outcomes })
                        .collect(),
                }
            })
            .collect();
        Learned {
            graph: self.graph,
            programs,
            runs: self.runs,
        }
    }
}

/// What the runs taught: the learning graph and the programs' statistics.
pub struct Learned {
    pub graph: DiGraph<ToolStats, EdgeStats>,
    /// By program hash.
    pub programs: Vec<ProgramStats>,
    /// Runs learned from.
    pub runs: u64,
}

/// An edge as listed in JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedEdge<'a> {
    pub from: &'a str,
    pub to: &'a str,
    #[serde(flatten)]
    pub stats: &'a EdgeStats,
}

impl Learned {
    /// The nodes, by tool.
    pub fn nodes(&self) -> Vec<&ToolStats> {
        let mut nodes: Vec<&ToolStats> = self.graph.node_weights().collect();
        nodes.sort_by(|a, b| a.tool.cmp(&b.tool));
        nodes
    }

    /// The edges, by (from, to, type).
    pub fn edges(&self) -> Vec<ListedEdge<'_>> {
        let mut edges: Vec<ListedEdge<'_>> = (self.graph.edge_references())
            .map(|e| ListedEdge {
                from: &self.graph[e.source()].tool,
                to: &self.graph[e.target()].tool,
                stats: e.weight(),
            })
            .collect();
        edges.sort_by(|a, b| (a.from, a.to, a.stats.kind).cmp(&(b.from, b.to, b.stats.kind)));
        edges
    }

    /// `{runs, nodes, edges, programs}` (`docs/formats.md`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "runs": self.runs,
            "nodes": self.nodes(),
            "edges": self.edges(),
            "programs": self.programs,
        })
    }

    /// The graph in Graphviz's DOT: a node per tool (with its count and success rate), a
    /// solid edge per observed succession (labelled with its count), a dashed one per
    /// declared `provides`.
    pub fn to_dot(&self) -> String {
        use petgraph::dot::{Config, Dot};
        let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let edge_attributes =
            |_: &DiGraph<ToolStats, EdgeStats>,
             e: petgraph::graph::EdgeReference<'_, EdgeStats>| {
                let stats = e.weight();
                match stats.kind {
                    EdgeKind::Sequence => format!(
                        "label=\"{} ({:.0}%)\"",
                        stats.count,
                        stats.success_rate.unwrap_or(0.0) * 100.0
                    ),
                    EdgeKind::Provides => "style=dashed label=\"provides\"".to_owned(),
                }
            };
        let node_attributes = |_: &DiGraph<ToolStats, EdgeStats>,
                               (_, n): (NodeIndex, &ToolStats)| {
            format!(
                "label=\"{}\\n{} runs, {:.0}% ok, {:.1} ms\" shape=box",
                quote(&n.tool),
                n.count,
                n.success_rate * 100.0,
                n.mean_duration_ms
            )
        };
        let dot = Dot::with_attr_getters(
            &self.graph,
            &[Config::NodeNoLabel, Config::EdgeNoLabel],
            &edge_attributes,
            &node_attributes,
        );
        format!("{dot:?}")
    }
}

#[cfg(test)]
mod mcp_only_tests {
    use super::*;

    #[test]
    fn pure_operations_can_be_left_out() {
        let trace = r#"[
            {"event": "tool_end", "tool": "fs:read", "success": true, "durationMs": 1.0},
            {"event": "tool_end", "tool": "code:filter", "success": true, "durationMs": 0.1},
            {"event": "tool_end", "tool": "code:map", "success": true, "durationMs": 0.1},
            {"event": "tool_end", "tool": "mem:write", "success": true, "durationMs": 2.0}
        ]"#;
        let mut all = Learner::new();
        all.add_run("r", Some("p"), true, 3.0, trace, "[]").unwrap();
        assert_eq!(all.finish().graph.node_count(), 4);
        let mut calls = Learner::mcp_only();
        calls
            .add_run("r", Some("p"), true, 3.0, trace, "[]")
            .unwrap();
        let learned = calls.finish();
        let tools: Vec<&str> = learned.nodes().iter().map(|n| n.tool.as_str()).collect();
        assert_eq!(tools, ["fs:read", "mem:write"]);
        let edges: Vec<(String, String)> = (learned.graph.edge_indices())
            .map(|e| {
                let (a, b) = learned.graph.edge_endpoints(e).unwrap();
                (learned.graph[a].tool.clone(), learned.graph[b].tool.clone())
            })
            .collect();
        assert_eq!(edges, [("fs:read".to_owned(), "mem:write".to_owned())]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(tool: &str, ok: bool, ms: f64) -> serde_json::Value {
        serde_json::json!({ "event": "tool_end", "tool": tool, "success": ok, "durationMs": ms,
            "preview": "x", "tsMs": 1.0 })
    }

    #[test]
    fn runs_become_counts_paths_and_outcomes_in_any_order() {
        let a = serde_json::json!([
            { "event": "tool_start", "tool": "fs:read", "tsMs": 0.0 },
            end("fs:read", true, 2.0),
            end("code:filter", true, 1.0),
            { "event": "decision", "taskId": "d1", "outcome": "true", "tsMs": 3.0 },
            end("db:write", true, 4.0),
        ])
        .to_string();
        let b = serde_json::json!([end("fs:read", true, 4.0), end("code:filter", false, 3.0)])
            .to_string();
        let decided_a = r#"[{"taskId":"d1","outcome":"true","iteration":[]}]"#;
        let decided_b = r#"[{"taskId":"d1","outcome":"false","iteration":[]}]"#;
        let learn = |order: &[(&str, &str, bool)]| {
            let mut learner = Learner::new();
            for (i, (trace, decided, ok)) in order.iter().enumerate() {
                learner
                    .add_run(&format!("run {i}"), Some("h"), *ok, 10.0, trace, decided)
                    .unwrap();
            }
            learner.finish().to_json()
        };
        let one = learn(&[
            (&a, decided_a, true),
            (&b, decided_b, false),
            (&a, decided_a, true),
        ]);
        let other = learn(&[
            (&b, decided_b, false),
            (&a, decided_a, true),
            (&a, decided_a, true),
        ]);
        assert_eq!(one, other);
        assert_eq!(one["runs"], 3);
        let read = &one["nodes"].as_array().unwrap()[2];
        assert_eq!(read["tool"], "fs:read");
        assert_eq!(
            (read["count"].as_u64(), read["meanDurationMs"].as_f64()),
            (Some(3), Some(8.0 / 3.0))
        );
        let edges = one["edges"].as_array().unwrap();
        let filter_after_read = edges.iter().find(|e| e["from"] == "fs:read").unwrap();
        assert_eq!(filter_after_read["to"], "code:filter");
        assert_eq!(filter_after_read["count"], 3);
        assert_eq!(
            filter_after_read["successRate"].as_f64().unwrap(),
            2.0 / 3.0
        );
        let program = &one["programs"][0];
        assert_eq!(
            program["dominantPath"],
            serde_json::json!(["fs:read", "code:filter", "db:write"])
        );
        assert_eq!(program["paths"][0]["count"], 2);
        assert_eq!(program["paths"][1]["count"], 1);
        assert_eq!(
            program["decisions"],
            serde_json::json!([{ "taskId": "d1", "outcomes": { "false": 1, "true": 2 } }])
        );
    }

    #[test]
    fn capability_runs_inside_a_run_are_runs_of_their_own() {
        // The program calls `gauge` at c1 (it fails) and `outer` at c2[1], which calls
        // `gauge` at its c1.
        let trace = serde_json::json!([
            { "event": "tool_end", "taskId": "n1", "tool": "fs:read", "capability": "gauge", "parent": "c1", "success": true, "durationMs": 1.0, "tsMs": 1.0 },
            { "event": "decision", "taskId": "d1", "outcome": "true", "capability": "gauge", "parent": "c1", "tsMs": 1.5 },
            { "event": "tool_end", "taskId": "c1", "tool": "capability:gauge", "success": false, "durationMs": 2.0, "tsMs": 2.0 },
            { "event": "tool_end", "taskId": "n1", "tool": "fs:read", "capability": "gauge", "parent": "c2[1]/c1", "success": true, "durationMs": 1.0, "tsMs": 4.0 },
            { "event": "decision", "taskId": "d1", "outcome": "false", "capability": "gauge", "parent": "c2[1]/c1", "tsMs": 4.5 },
            { "event": "tool_end", "taskId": "c1", "tool": "capability:gauge", "capability": "outer", "parent": "c2[1]", "success": true, "durationMs": 1.5, "tsMs": 5.0 },
            { "event": "tool_end", "taskId": "c2", "tool": "capability:outer", "iteration": [1], "success": true, "durationMs": 3.0, "tsMs": 5.5 },
        ])
        .to_string();
        let called = called_runs("run 1", &trace).unwrap();
        let seen: Vec<(&str, &str, bool, f64)> = (called.iter())
            .map(|c| (c.name.as_str(), c.parent.as_str(), c.ok, c.duration_ms))
            .collect();
        assert_eq!(
            seen,
            [
                ("gauge", "c1", false, 2.0),
                ("gauge", "c2[1]/c1", true, 1.5),
                ("outer", "c2[1]", true, 3.0),
            ]
        );
        let json = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(
            json(&called[1].trace),
            serde_json::json!([
                { "event": "tool_end", "taskId": "n1", "tool": "fs:read", "success": true, "durationMs": 1.0, "tsMs": 4.0 },
                { "event": "decision", "taskId": "d1", "outcome": "false", "tsMs": 4.5 },
            ])
        );
        assert_eq!(
            json(&called[1].decisions),
            serde_json::json!([{ "taskId": "d1", "outcome": "false", "iteration": [] }])
        );
        // `outer`'s run holds `gauge`'s below it, as a run of `outer` on its own would.
        assert_eq!(
            json(&called[2].decisions),
            serde_json::json!([{ "taskId": "d1", "outcome": "false", "iteration": [], "capability": "gauge" }])
        );
        assert_eq!(json(&called[2].trace).as_array().unwrap().len(), 3);
        assert_eq!(json(&called[2].trace)[0]["parent"], "c1");
        // Counted for the capability: runs, paths, decisions; not again in the graph.
        let mut learner = Learner::new();
        learner
            .add_run("run 1", Some("main"), true, 6.0, &trace, "[]")
            .unwrap();
        for c in called.iter().filter(|c| c.name == "gauge") {
            learner.add_called_run("run 1", "g", c).unwrap();
        }
        let learned = learner.finish().to_json();
        assert_eq!(learned["runs"], 1);
        let read = (learned["nodes"].as_array().unwrap().iter())
            .find(|n| n["tool"] == "fs:read")
            .unwrap();
        assert_eq!(read["count"], 2);
        let gauge = (learned["programs"].as_array().unwrap().iter())
            .find(|p| p["programHash"] == "g")
            .unwrap();
        assert_eq!(gauge["runs"], 2);
        assert_eq!(gauge["successRate"], 0.5);
        assert_eq!(gauge["paths"][0]["path"], serde_json::json!(["fs:read"]));
        assert_eq!(gauge["paths"][0]["count"], 2);
        assert_eq!(
            gauge["decisions"],
            serde_json::json!([{ "taskId": "d1", "outcomes": { "false": 1, "true": 1 } }])
        );
    }

    #[test]
    fn a_trace_that_does_not_parse_is_an_error_naming_the_run() {
        let mut learner = Learner::new();
        let e = learner
            .add_run("run 01ab", None, true, 1.0, "[{", "[]")
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("run 01ab: its trace does not parse"),
            "{e}"
        );
    }

    #[test]
    fn provides_edges_come_from_structures_once_each() {
        let structure = serde_json::json!({
            "nodes": [{ "id": "n1", "tool": "fs:read" }, { "id": "n2", "tool": "code:parse" },
                      { "id": "c1", "capabilityId": "sum" }],
            "edges": [{ "from": "n1", "to": "n2", "type": "provides" },
                      { "from": "n1", "to": "n2", "type": "sequence" },
                      { "from": "n2", "to": "c1", "type": "provides" }],
        })
        .to_string();
        let mut learner = Learner::new();
        learner
            .add_structure("h", &["x".into()], &structure)
            .unwrap();
        learner
            .add_structure("h2", &["y".into()], &structure)
            .unwrap();
        let learned = learner.finish();
        let edges = learned.edges();
        assert_eq!(edges.len(), 2);
        assert_eq!(
            (edges[0].from, edges[0].to, edges[0].stats.count),
            ("code:parse", "capability:sum", 2)
        );
        assert!(learned.to_dot().contains("style=dashed"));
    }
}
