//! pml-view: pictures of a program. The *Definition* view is its static structure (tasks with
//! their tools, decisions with their conditions and outcomes, loops and local functions as
//! boxes around their bodies, forks and joins, capability calls; tools that need a human
//! marked; fused groups of the optimized plan shown as groups). The *Invocation* view is the
//! same picture with what ran laid onto it, for one run or aggregated over many ([`Overlay`]):
//! how often each node ran, its mean duration, failures, speculative and replayed calls, the
//! outcomes taken (with counts), loop iterations; what never ran is greyed.
//!
//! **Input:** a [`StaticStructure`], the fused groups of its physical plan (logical ids per
//! physical task), and optionally an [`Overlay`] built from trace events (the JSON `pml run`
//! prints and the store keeps). **Output:** Mermaid (`flowchart TD`), Graphviz DOT, or one
//! self-contained HTML page (module `html`: inline SVG laid out here, node details on selection;
//! for one run, its [`Timeline`] too).
//!
//! **Invariants:** every node of the structure appears once, every edge once; labels are
//! escaped for the target language (no program text can break out of a label); the output is
//! deterministic (structure order).

mod html;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use pml_structure::{EdgeKind, LoopKind, Node, NodeKind, Scope, StaticStructure};
use pml_trace::{EventKind, TraceEvent};

/// The text formats of a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Mermaid,
    Dot,
    /// One self-contained HTML file (inline SVG, style and script; nothing fetched), whose
    /// nodes show their details when selected.
    Html,
}

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("the trace does not parse: {0}")]
pub struct TraceError(#[from] serde_json::Error);

/// What ran, per node of the program's structure, over one run or several.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    /// Runs laid on.
    pub runs: u64,
    pub nodes: HashMap<String, Ran>,
    /// Decision id -> outcome -> times taken.
    pub outcomes: HashMap<String, BTreeMap<String, u64>>,
    /// Loop id -> iterations run in all (every time the loop ran).
    pub iterations: HashMap<String, u64>,
    /// Runs laid on from their journal ([`Overlay::add_journal`]): they did not finish.
    pub unfinished: u64,
    /// Journaled calls of those runs laid on no node: calls of capabilities the program
    /// called (journaled under their own program's node ids) and calls without a node.
    pub unplaced: u64,
}

/// How far a journaled call got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Journaled {
    /// It answered.
    Done,
    /// It failed.
    Failed,
    /// It went out and no end was written: it may or may not have happened.
    InFlight,
}

/// What one node did in the runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ran {
    /// Times it ended (a call of a local function: times it was called).
    pub count: u64,
    pub failed: u64,
    pub total_ms: f64,
    pub speculative: u64,
    pub replayed: u64,
    /// Of `count`, the ends known from a journal only (no duration).
    pub journaled: u64,
    /// Calls the journal says went out with no end written.
    pub in_flight: u64,
}

/// One row of a run's timeline: an operation that ended (an MCP call, a `code:*` operation, a
/// capability call or an operation inside one), from its start to its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The node of the structure (of the called capability's, with `capability`).
    pub task_id: Option<String>,
    pub tool: String,
    pub iteration: Vec<u32>,
    /// Milliseconds from the run's start: `tsMs - durationMs`, so a read started ahead of
    /// the program starts when it really went out.
    pub start_ms: f64,
    pub end_ms: f64,
    pub failed: bool,
    /// Started ahead of the program (speculation).
    pub speculative: bool,
    /// Started ahead and never taken: the program did not make that call.
    pub wasted: bool,
    /// Answered from the journal of the run this one resumed.
    pub replayed: bool,
    /// Made inside this capability, called by the program.
    pub capability: Option<String>,
}

/// One run's operations in time, one [`Bar`] per operation that ended, by start (the rows of
/// the terminal's timeline that `pml run` prints).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub bars: Vec<Bar>,
}

impl Timeline {
    /// The timeline of one run's trace events (JSON text: an array of events).
    pub fn from_trace(trace: &str) -> Result<Timeline, TraceError> {
        let events: Vec<TraceEvent<'_>> = serde_json::from_str(trace)?;
        let mut bars: Vec<Bar> = (events.iter())
            .filter(|e| e.event == EventKind::ToolEnd)
            .map(|e| {
                let end = e.ts_ms;
                Bar {
                    task_id: e.task_id.as_deref().map(str::to_owned),
                    tool: e.tool.to_string(),
                    iteration: e.iteration.clone(),
                    start_ms: end - e.duration_ms.unwrap_or(0.0),
                    end_ms: end,
                    failed: e.success == Some(false),
                    speculative: e.speculative == Some(true),
                    wasted: e.speculative == Some(true) && e.taken == Some(false),
                    replayed: e.replayed == Some(true),
                    capability: e.capability.as_deref().map(str::to_owned),
                }
            })
            .collect();
        // By start; the trace's order (by end) among equal starts.
        bars.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
        Ok(Timeline { bars })
    }
}

impl Overlay {
    /// Lays one run's trace events (JSON text: an array of events) on.
    pub fn add_trace(&mut self, trace: &str) -> Result<(), TraceError> {
        let events: Vec<TraceEvent<'_>> = serde_json::from_str(trace)?;
        for e in (events.iter()).filter(|e| e.capability.is_none() && e.taken != Some(false)) {
            let Some(id) = e.task_id.as_deref() else {
                continue;
            };
            match e.event {
                EventKind::ToolEnd | EventKind::Call => {
                    let ran = self.nodes.entry(id.to_owned()).or_default();
                    ran.count += 1;
                    ran.failed += u64::from(e.success == Some(false));
                    ran.total_ms += e.duration_ms.unwrap_or(0.0);
                    ran.speculative += u64::from(e.speculative == Some(true));
                    ran.replayed += u64::from(e.replayed == Some(true));
                }
                EventKind::Decision => {
                    if let Some(outcome) = &e.outcome {
                        *self
                            .outcomes
                            .entry(id.to_owned())
                            .or_default()
                            .entry(outcome.to_string())
                            .or_default() += 1;
                    }
                }
                EventKind::Loop | EventKind::Function => {
                    *self.iterations.entry(id.to_owned()).or_default() +=
                        u64::from(e.iterations.unwrap_or(0));
                }
                EventKind::Fork | EventKind::Join => {
                    self.nodes.entry(id.to_owned()).or_default().count += 1;
                }
                EventKind::ToolStart => {}
            }
        }
        self.runs += 1;
        Ok(())
    }

    /// Lays on what the journal of a run that did not finish (killed, or still running)
    /// holds: its calls, in program order, each with its node, its tool and how far it got.
    /// A call counts on its node only where the structure has that node with that tool (the
    /// calls of a capability the program called are journaled under that program's node
    /// ids). Nothing else of such a run is known: not its operations, its decisions, the
    /// times of its calls, nor the answers of reads still waiting to be written.
    pub fn add_journal<'c>(
        &mut self,
        structure: &StaticStructure,
        calls: impl IntoIterator<Item = (Option<&'c str>, &'c str, Journaled)>,
    ) {
        for (node, tool, state) in calls {
            let placed = node.filter(|id| {
                (structure.nodes.iter()).any(|n| n.id == *id && n.tool.as_deref() == Some(tool))
            });
            let Some(id) = placed else {
                self.unplaced += 1;
                continue;
            };
            let ran = self.nodes.entry(id.to_owned()).or_default();
            match state {
                Journaled::InFlight => ran.in_flight += 1,
                Journaled::Done | Journaled::Failed => {
                    ran.count += 1;
                    ran.journaled += 1;
                    ran.failed += u64::from(state == Journaled::Failed);
                }
            }
        }
        self.runs += 1;
        self.unfinished += 1;
    }

    /// Every run laid on is known from its journal only: what is not in it is not known
    /// not to have run.
    fn journal_only(&self) -> bool {
        self.runs > 0 && self.unfinished == self.runs
    }

    /// What to say about runs that did not finish, if any were laid on.
    pub fn unfinished_note(&self) -> Option<String> {
        if self.unfinished == 0 {
            return None;
        }
        let journaled: u64 = self.nodes.values().map(|r| r.journaled + r.in_flight).sum();
        let mut note = match self.unfinished {
            1 => "the run did not finish (killed, or still running)".to_owned(),
            n => format!("{n} runs did not finish (killed, or still running)"),
        };
        let _ = write!(
            note,
            ": {journaled} journaled calls laid on their nodes, with no durations"
        );
        if self.unplaced > 0 {
            let _ = write!(
                note,
                " ({} more of capabilities it called, or without a node)",
                self.unplaced
            );
        }
        note.push_str("; its operations, decisions and reads not yet written are not known");
        Some(note)
    }

    fn ran(&self, node: &Node) -> bool {
        match node.kind {
            NodeKind::Decision => self.outcomes.contains_key(&node.id),
            NodeKind::Loop | NodeKind::Function => {
                self.iterations.get(&node.id).is_some_and(|n| *n > 0)
            }
            _ => self.nodes.get(&node.id).is_some_and(|r| r.count > 0),
        }
    }
}

/// The view of `structure` in `format`: the Definition view, or with `overlay` the
/// Invocation view. `fused`: the logical node ids of each physical task that fuses several.
pub fn render(
    structure: &StaticStructure,
    fused: &[Vec<String>],
    overlay: Option<&Overlay>,
    format: Format,
) -> String {
    render_with(structure, fused, overlay, format, &RenderOptions::default())
}

/// What a view may show besides the structure and the overlay.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions<'a> {
    /// The HTML page's title (the other formats have none).
    pub title: &'a str,
    /// The program text the structure was built from (its spans are byte offsets into it):
    /// decisions are labelled with their own source (`first ? ...`, `if (rows.length > 1) {`)
    /// instead of their condition over node ids (`n2`). Without it, the condition.
    pub source: Option<&'a str>,
    /// One run's timeline, drawn above the HTML page's picture (the other formats have none).
    pub timeline: Option<&'a Timeline>,
}

impl Default for RenderOptions<'_> {
    fn default() -> Self {
        RenderOptions {
            title: "pml view",
            source: None,
            timeline: None,
        }
    }
}

/// [`render`] with `options` (the program's source, the HTML page's title).
pub fn render_with(
    structure: &StaticStructure,
    fused: &[Vec<String>],
    overlay: Option<&Overlay>,
    format: Format,
    options: &RenderOptions<'_>,
) -> String {
    let view = View::new(structure, fused, overlay, options.source);
    match format {
        Format::Mermaid => view.mermaid(),
        Format::Dot => view.dot(),
        Format::Html => view.html(options.title, options.timeline),
    }
}

/// A box drawn around nodes: a loop's or a function's body, or a fused group.
struct Group {
    id: String,
    label: String,
    /// The group it is in (`None`: the top).
    parent: Option<usize>,
    /// Direct members.
    nodes: Vec<usize>,
    children: Vec<usize>,
}

struct View<'a> {
    structure: &'a StaticStructure,
    overlay: Option<&'a Overlay>,
    /// The program text the structure's spans point into.
    source: Option<&'a str>,
    groups: Vec<Group>,
    /// Nodes at the top (in no group).
    top: Vec<usize>,
    top_groups: Vec<usize>,
}

/// How a node looks, whatever the format.
enum Shape {
    Task,
    Decision,
    Point,
    Capability,
}

impl<'a> View<'a> {
    fn new(
        structure: &'a StaticStructure,
        fused: &[Vec<String>],
        overlay: Option<&'a Overlay>,
        source: Option<&'a str>,
    ) -> Self {
        let index: HashMap<&str, usize> = (structure.nodes.iter().enumerate())
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        // The loop or function a node is in: the nearest such scope up its chain.
        let enclosing = |node: &Node| -> Option<usize> {
            let mut scope = node.scope.as_ref();
            let mut guard = 0;
            while let Some(s) = scope {
                let i = *index.get(s.id())?;
                if matches!(s, Scope::Loop { .. } | Scope::Function { .. }) {
                    return Some(i);
                }
                scope = structure.nodes[i].scope.as_ref();
                guard += 1;
                if guard > structure.nodes.len() {
                    return None;
                }
            }
            None
        };
        let mut groups: Vec<Group> = Vec::new();
        let mut group_of_node: HashMap<usize, usize> = HashMap::new();
        // Loops and functions, each a group (its node is the group's label).
        for (i, node) in structure.nodes.iter().enumerate() {
            if matches!(node.kind, NodeKind::Loop | NodeKind::Function) {
                group_of_node.insert(i, groups.len());
                groups.push(Group {
                    id: node.id.clone(),
                    label: group_label(node, overlay),
                    parent: None,
                    nodes: Vec::new(),
                    children: Vec::new(),
                });
            }
        }
        for (i, node) in structure.nodes.iter().enumerate() {
            if let Some(&g) = group_of_node.get(&i) {
                groups[g].parent = enclosing(node).and_then(|p| group_of_node.get(&p).copied());
            }
        }
        // Fused groups: inside the group their members share, when they share one.
        let mut fused_of: HashMap<usize, usize> = HashMap::new();
        for members in fused.iter().filter(|m| m.len() > 1) {
            let indices: Vec<usize> = members
                .iter()
                .filter_map(|m| index.get(m.as_str()).copied())
                .collect();
            let parents: Vec<Option<usize>> = (indices.iter())
                .map(|&i| {
                    enclosing(&structure.nodes[i]).and_then(|p| group_of_node.get(&p).copied())
                })
                .collect();
            if indices.len() < 2 || parents.windows(2).any(|w| w[0] != w[1]) {
                continue;
            }
            let g = groups.len();
            groups.push(Group {
                id: format!("fused_{}", members.join("_")),
                label: format!("fused: {}", members.join(" + ")),
                parent: parents[0],
                nodes: Vec::new(),
                children: Vec::new(),
            });
            for i in indices {
                fused_of.insert(i, g);
            }
        }
        let mut top = Vec::new();
        for (i, node) in structure.nodes.iter().enumerate() {
            if matches!(node.kind, NodeKind::Loop | NodeKind::Function) {
                continue;
            }
            let group = fused_of
                .get(&i)
                .copied()
                .or_else(|| enclosing(node).and_then(|p| group_of_node.get(&p).copied()));
            match group {
                Some(g) => groups[g].nodes.push(i),
                None => top.push(i),
            }
        }
        let mut top_groups = Vec::new();
        for g in 0..groups.len() {
            match groups[g].parent {
                Some(p) => groups[p].children.push(g),
                None => top_groups.push(g),
            }
        }
        View {
            structure,
            overlay,
            source,
            groups,
            top,
            top_groups,
        }
    }

    fn shape(node: &Node) -> Shape {
        match node.kind {
            NodeKind::Decision => Shape::Decision,
            NodeKind::Fork | NodeKind::Join => Shape::Point,
            NodeKind::Capability => Shape::Capability,
            _ => Shape::Task,
        }
    }

    /// What a node is, for its label: a task's tool, a decision's source (or else its
    /// condition), a capability's or function's name.
    fn what(&self, node: &Node) -> String {
        match node.kind {
            NodeKind::Decision => (self.decision_source(node))
                .or_else(|| node.condition.clone())
                .unwrap_or_else(|| "if".into()),
            NodeKind::Fork => "fork".into(),
            NodeKind::Join => "join".into(),
            NodeKind::Capability => {
                format!(
                    "capability {}",
                    node.capability_id.as_deref().unwrap_or("?")
                )
            }
            NodeKind::Call => format!("call {}", node.name.as_deref().unwrap_or("function")),
            _ => node.tool.clone().unwrap_or_default(),
        }
    }

    /// The source of a decision as the program has it: the first line of its text (the
    /// statement or expression that decides), `…` when there is more.
    fn decision_source(&self, node: &Node) -> Option<String> {
        let text = self.decision_text(node)?;
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let first = lines.next()?;
        Some(match lines.next() {
            Some(_) => format!("{first} …"),
            None => first.to_owned(),
        })
    }

    /// A decision's whole text in the source (`None` without the source, or when its span
    /// is not in it).
    fn decision_text(&self, node: &Node) -> Option<&'a str> {
        let text = self.source?.get(node.span.start..node.span.end)?;
        Some(text).filter(|t| !t.trim().is_empty())
    }

    /// The node's label lines: id and what it is, then what ran.
    fn label(&self, node: &Node) -> Vec<String> {
        let mut lines = vec![format!("{} · {}", node.id, shorten(&self.what(node), 60))];
        lines.extend(self.notes(node));
        lines
    }

    /// The lines of a label after its first: approval, what ran.
    fn notes(&self, node: &Node) -> Vec<String> {
        let mut lines = Vec::new();
        if node
            .tool
            .as_ref()
            .is_some_and(|t| self.structure.hil_required_tools.contains(t))
        {
            lines.push("needs approval".into());
        }
        if let Some(overlay) = self.overlay {
            let in_flight = (overlay.nodes.get(&node.id)).map_or(0, |r| r.in_flight);
            if in_flight > 0 {
                lines.push(format!(
                    "in flight {in_flight} (journal): may or may not have happened"
                ));
            }
            if let Some(ran) = overlay.nodes.get(&node.id).filter(|r| r.count > 0) {
                let mut line = format!("ran {}", ran.count);
                let timed = ran.count - ran.journaled;
                if timed > 0
                    && matches!(
                        node.kind,
                        NodeKind::Task | NodeKind::Capability | NodeKind::Call
                    )
                {
                    let _ = write!(line, ", {:.1} ms mean", ran.total_ms / timed as f64);
                }
                if ran.journaled > 0 {
                    let _ = write!(line, ", {} in the journal (no duration)", ran.journaled);
                }
                if ran.failed > 0 {
                    let _ = write!(line, ", {} failed", ran.failed);
                }
                if ran.speculative > 0 {
                    let _ = write!(line, ", {} speculative", ran.speculative);
                }
                if ran.replayed > 0 {
                    let _ = write!(line, ", {} replayed", ran.replayed);
                }
                lines.push(line);
            } else if node.kind == NodeKind::Decision {
                if let Some(outcomes) = overlay.outcomes.get(&node.id) {
                    let taken: Vec<String> =
                        outcomes.iter().map(|(o, n)| format!("{o} {n}")).collect();
                    lines.push(format!("taken: {}", taken.join(", ")));
                }
            } else if overlay.journal_only() && in_flight == 0 {
                lines.push("not in the journal".into());
            } else if !overlay.ran(node) && in_flight == 0 {
                lines.push("did not run".into());
            }
        }
        lines
    }

    /// Whether the overlay says the node never ran (greyed).
    fn greyed(&self, node: &Node) -> bool {
        self.overlay.is_some_and(|o| !o.ran(node))
    }

    fn failed(&self, node: &Node) -> bool {
        (self.overlay)
            .and_then(|o| o.nodes.get(&node.id))
            .is_some_and(|r| r.failed > 0)
    }

    /// The label of a conditional edge, and whether it was never taken.
    fn outcome(&self, from: &str, outcome: &str) -> (String, bool) {
        match self.overlay {
            None => (outcome.to_owned(), false),
            // A journal holds no decisions: which outcomes were taken is not known.
            Some(overlay) if overlay.journal_only() => (outcome.to_owned(), false),
            Some(overlay) => {
                let n = (overlay.outcomes.get(from))
                    .and_then(|o| o.get(outcome))
                    .copied()
                    .unwrap_or(0);
                (format!("{outcome} ×{n}"), n == 0)
            }
        }
    }

    fn mermaid(&self) -> String {
        let mut out = String::new();
        if let Some(note) = self.overlay.and_then(Overlay::unfinished_note) {
            // Front matter: the diagram's title.
            let _ = writeln!(out, "---\ntitle: \"{}\"\n---", note.replace('"', "'"));
        }
        out.push_str("flowchart TD\n");
        for &i in &self.top {
            self.mermaid_node(&mut out, i, 1);
        }
        for &g in &self.top_groups {
            self.mermaid_group(&mut out, g, 1);
        }
        let mut not_taken = Vec::new();
        for (k, edge) in self.structure.edges.iter().enumerate() {
            let (from, to) = (mermaid_id(&edge.from), mermaid_id(&edge.to));
            let _ = match (edge.kind, &edge.outcome) {
                (EdgeKind::Conditional, Some(outcome)) => {
                    let (label, never) = self.outcome(&edge.from, outcome);
                    if never {
                        not_taken.push(k);
                    }
                    writeln!(out, "  {from} -->|\"{}\"| {to}", mermaid_text(&label))
                }
                (EdgeKind::Provides, _) => writeln!(out, "  {from} -.->|provides| {to}"),
                _ => writeln!(out, "  {from} --> {to}"),
            };
        }
        out.push_str(
            "  classDef notrun fill:#f2f2f2,stroke:#bbbbbb,color:#999999,stroke-dasharray:4 3\n",
        );
        out.push_str("  classDef failed fill:#fdecea,stroke:#c62828\n");
        out.push_str("  classDef hil stroke:#e65100,stroke-width:3px\n");
        for node in &self.structure.nodes {
            if matches!(node.kind, NodeKind::Loop | NodeKind::Function) {
                continue;
            }
            let id = mermaid_id(&node.id);
            if self.greyed(node) {
                let _ = writeln!(out, "  class {id} notrun");
            } else if self.failed(node) {
                let _ = writeln!(out, "  class {id} failed");
            } else if node
                .tool
                .as_ref()
                .is_some_and(|t| self.structure.hil_required_tools.contains(t))
            {
                let _ = writeln!(out, "  class {id} hil");
            }
        }
        for k in not_taken {
            let _ = writeln!(out, "  linkStyle {k} stroke:#bbbbbb,stroke-dasharray:4 3");
        }
        out
    }

    fn mermaid_node(&self, out: &mut String, i: usize, depth: usize) {
        let node = &self.structure.nodes[i];
        let text = mermaid_text(&self.label(node).join("\n"));
        let id = mermaid_id(&node.id);
        let pad = "  ".repeat(depth);
        let _ = match Self::shape(node) {
            Shape::Task => writeln!(out, "{pad}{id}[\"{text}\"]"),
            Shape::Decision => writeln!(out, "{pad}{id}{{\"{text}\"}}"),
            Shape::Point => writeln!(out, "{pad}{id}((\"{text}\"))"),
            Shape::Capability => writeln!(out, "{pad}{id}[[\"{text}\"]]"),
        };
    }

    fn mermaid_group(&self, out: &mut String, g: usize, depth: usize) {
        let group = &self.groups[g];
        let pad = "  ".repeat(depth);
        let _ = writeln!(
            out,
            "{pad}subgraph {}[\"{}\"]",
            mermaid_id(&group.id),
            mermaid_text(&group.label)
        );
        for &i in &group.nodes {
            self.mermaid_node(out, i, depth + 1);
        }
        for &c in &group.children {
            self.mermaid_group(out, c, depth + 1);
        }
        let _ = writeln!(out, "{pad}end");
    }

    fn dot(&self) -> String {
        let mut out = String::from(
            "digraph structure {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n",
        );
        if let Some(note) = self.overlay.and_then(Overlay::unfinished_note) {
            let _ = writeln!(
                out,
                "  label=\"{}\"; labelloc=t; fontname=\"Helvetica\"; fontsize=11;",
                dot_text(&note)
            );
        }
        for &i in &self.top {
            self.dot_node(&mut out, i, 1, None);
        }
        for &g in &self.top_groups {
            self.dot_group(&mut out, g, 1);
        }
        for edge in &self.structure.edges {
            let (from, to) = (dot_text(&edge.from), dot_text(&edge.to));
            let _ = match (edge.kind, &edge.outcome) {
                (EdgeKind::Conditional, Some(outcome)) => {
                    let (label, never) = self.outcome(&edge.from, outcome);
                    let style = match never {
                        true => ", style=dashed, color=\"#bbbbbb\", fontcolor=\"#999999\"",
                        false => "",
                    };
                    writeln!(out, "  \"{from}\" -> \"{to}\" [label=\"{}\"{style}];", dot_text(&label))
                }
                (EdgeKind::Provides, _) => writeln!(
                    out,
                    "  \"{from}\" -> \"{to}\" [style=dashed, color=\"#1565c0\", label=\"provides\", constraint=false];"
                ),
                _ => writeln!(out, "  \"{from}\" -> \"{to}\";"),
            };
        }
        out.push_str("}\n");
        out
    }

    /// A node, with `note` as a last line of its label.
    fn dot_node(&self, out: &mut String, i: usize, depth: usize, note: Option<&str>) {
        let node = &self.structure.nodes[i];
        let mut lines = self.label(node);
        lines.extend(note.map(str::to_owned));
        let text = lines
            .iter()
            .map(|l| dot_text(l))
            .collect::<Vec<_>>()
            .join("\\n");
        let shape = match Self::shape(node) {
            Shape::Task => "box",
            Shape::Decision => "diamond",
            Shape::Point => "circle",
            Shape::Capability => "box3d",
        };
        let mut attributes = format!("label=\"{text}\", shape={shape}");
        if self.greyed(node) {
            attributes.push_str(", style=\"rounded,filled,dashed\", fillcolor=\"#f2f2f2\", color=\"#bbbbbb\", fontcolor=\"#999999\"");
        } else if self.failed(node) {
            attributes.push_str(", fillcolor=\"#fdecea\", color=\"#c62828\"");
        } else if self.overlay.is_some() {
            attributes.push_str(", fillcolor=\"#e8f5e9\"");
        }
        if node
            .tool
            .as_ref()
            .is_some_and(|t| self.structure.hil_required_tools.contains(t))
        {
            attributes.push_str(", penwidth=2.5, color=\"#e65100\"");
        }
        let _ = writeln!(
            out,
            "{}\"{}\" [{attributes}];",
            "  ".repeat(depth),
            dot_text(&node.id)
        );
    }

    fn dot_group(&self, out: &mut String, g: usize, depth: usize) {
        let group = &self.groups[g];
        let pad = "  ".repeat(depth);
        let _ = writeln!(out, "{pad}subgraph \"cluster_{}\" {{", dot_text(&group.id));
        let style = match group.id.starts_with("fused_") {
            true => "style=\"dashed,rounded\"; color=\"#6a1b9a\";",
            false => "style=rounded; color=\"#607d8b\";",
        };
        // A box has no label of its own (Graphviz would draw edges into the box across it):
        // a loop's or function's box is labelled by its own node, inside it (what edges into
        // the box point at); a fused group's by a last line of its first member.
        let head = self.structure.nodes.iter().find(|n| n.id == group.id);
        let _ = writeln!(
            out,
            "{pad}  label=\"\"; tooltip=\"{}\"; {style}",
            dot_text(&group.label)
        );
        if let Some(head) = head {
            let greyed = match self.greyed(head) {
                true => ", style=dashed, color=\"#bbbbbb\", fontcolor=\"#999999\"",
                false => "",
            };
            let _ = writeln!(
                out,
                "{pad}  \"{}\" [label=\"{}\", shape=oval{greyed}];",
                dot_text(&head.id),
                dot_text(&group.label)
            );
        }
        for (k, &i) in group.nodes.iter().enumerate() {
            let note = (head.is_none() && k == 0).then_some(group.label.as_str());
            self.dot_node(out, i, depth + 1, note);
        }
        for &c in &group.children {
            self.dot_group(out, c, depth + 1);
        }
        let _ = writeln!(out, "{pad}}}");
    }
}

/// A loop's or function's box label: what it is, and what ran.
fn group_label(node: &Node, overlay: Option<&Overlay>) -> String {
    let what = match node.kind {
        NodeKind::Loop => match node.loop_kind {
            Some(LoopKind::ForOf) => "for…of loop".to_owned(),
            Some(LoopKind::ForIn) => "for…in loop".to_owned(),
            Some(LoopKind::For) => "for loop".to_owned(),
            Some(LoopKind::While) => "while loop".to_owned(),
            Some(LoopKind::DoWhile) => "do…while loop".to_owned(),
            Some(LoopKind::ForEach) => "forEach".to_owned(),
            Some(LoopKind::Callback) => "callback per element".to_owned(),
            None => "loop".to_owned(),
        },
        _ => format!("function {}", node.name.as_deref().unwrap_or("(anonymous)")),
    };
    let mut label = format!("{} · {what}", node.id);
    if let Some(overlay) = overlay {
        let n = overlay.iterations.get(&node.id).copied().unwrap_or(0);
        let unit = match node.kind {
            NodeKind::Loop => "iterations",
            _ => "calls",
        };
        let _ = write!(label, " · {n} {unit} in {} runs", overlay.runs);
    }
    label
}

fn shorten(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// A Mermaid node id: the structure's ids are `[a-z]+[0-9]+`; anything else is made safe.
fn mermaid_id(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Text inside a quoted Mermaid label: quotes and `#` as entity codes, line breaks as `<br>`,
/// angle brackets as entities (labels may render as HTML).
fn mermaid_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '\n' => out.push_str("<br>"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text inside a quoted DOT string.
fn dot_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pml_structure::{build_structure, BuildOptions};

    const PROGRAM: &str = r#"const list = await mcp.fs.list({ path: args.root });
for (const f of list.files) {
  const text = await mcp.fs.read({ path: f });
  if (text.length > 3) await mcp.fs.write({ path: f + ".bak", text: "say \"hi\" # {x}" });
}
return list.files.length;
"#;

    #[test]
    fn the_definition_view_has_every_node_once_and_escapes_labels() {
        let s = build_structure(PROGRAM, &BuildOptions::default()).structure;
        for format in [Format::Mermaid, Format::Dot] {
            let text = render(&s, &[], None, format);
            for node in s.nodes.iter().filter(|n| n.kind != NodeKind::Loop) {
                let defined = match format {
                    Format::Mermaid => format!("{}[\"{} ·", node.id, node.id),
                    Format::Dot => format!("\"{}\" [label=\"{} ·", node.id, node.id),
                    Format::Html => unreachable!("only the text formats here"),
                };
                let shapes = [
                    defined.clone(),
                    defined.replace('[', "{"),
                    defined.replace('[', "(("),
                ];
                let count: usize = shapes
                    .iter()
                    .map(|d| text.matches(d.as_str()).count())
                    .sum();
                assert_eq!(count, 1, "{} in\n{text}", node.id);
            }
            assert!(!text.contains("say \"hi\""), "{text}");
        }
        let mermaid = render(&s, &[], None, Format::Mermaid);
        assert!(
            mermaid.contains("subgraph l1[\"l1 · for…of loop\"]"),
            "{mermaid}"
        );
    }

    #[test]
    fn the_html_page_keeps_program_text_inside_its_labels_and_data() {
        let code = r#"const x = await mcp.fs.read({ path: "</script><script>alert(1)</script>" });
if (x.a < 2 && x.b > "<!--") await mcp.fs.write({ path: "'\"&" });
"#;
        let s = build_structure(code, &BuildOptions::default()).structure;
        let options = RenderOptions {
            title: "<b>title</b>",
            ..RenderOptions::default()
        };
        let html = render_with(&s, &[], None, Format::Html, &options);
        assert_eq!(html.matches("<script").count(), 2, "{html}");
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert!(!html.contains("<b>title"), "{html}");
        assert!(!html.contains("<!--"), "{html}");
        let start = html.find("id=\"nodes\">").unwrap() + "id=\"nodes\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        let nodes: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(
            nodes[0]["arguments"]["path"]["value"],
            "</script><script>alert(1)</script>"
        );
    }

    #[test]
    fn decisions_read_as_their_source_with_their_id_kept() {
        let code = "const first = await mcp.fs.read({ path: \"a\" });\nconst out = first ? await mcp.fs.read({ path: \"b\" }) : null;\nif (out.length >\n  2) await mcp.fs.write({ path: \"c\" });\n";
        let s = build_structure(code, &BuildOptions::default()).structure;
        let ternary = s.nodes.iter().find(|n| n.id == "d1").unwrap();
        assert_eq!(ternary.condition.as_deref(), Some("n1"));
        let options = RenderOptions {
            title: "t",
            source: Some(code),
            timeline: None,
        };
        let dot = render_with(&s, &[], None, Format::Dot, &options);
        assert!(
            dot.contains(
                "\"d1\" [label=\"d1 · first ? await mcp.fs.read({ path: \\\"b\\\" }) : null\", shape=diamond"
            ),
            "{dot}"
        );
        // A decision over several lines: its first line, and `…`.
        assert!(dot.contains("label=\"d2 · if (out.length > …\""), "{dot}");
        let mermaid = render_with(&s, &[], None, Format::Mermaid, &options);
        assert!(
            mermaid
                .contains("d1{\"d1 · first ? await mcp.fs.read({ path: #quot;b#quot; }) : null\"}"),
            "{mermaid}"
        );
        // HTML: the source on the box, the id below it, the whole label as the tooltip, the
        // decision's whole text in the details.
        let html = render_with(&s, &[], None, Format::Html, &options);
        assert!(
            html.contains(
                "<title>d1 · first ? await mcp.fs.read({ path: &quot;b&quot; }) : null</title>"
            ),
            "{html}"
        );
        assert!(
            html.contains(
                ">first ? await mcp.fs.read({ path: …</text><text x=\"40\" y=\"160\" class=\"sub\">d1</text>"
            ),
            "{html}"
        );
        assert!(!html.contains(">d1 · n1<"), "{html}");
        let start = html.find("id=\"nodes\">").unwrap() + "id=\"nodes\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        let nodes: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        let d2 = nodes
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == "d2")
            .unwrap();
        assert_eq!(
            d2["code"],
            "if (out.length >\n  2) await mcp.fs.write({ path: \"c\" });"
        );
        let condition = s
            .nodes
            .iter()
            .find(|n| n.id == "d2")
            .unwrap()
            .condition
            .clone();
        assert_eq!(d2["condition"], serde_json::json!(condition));
        // Without the source, the condition over node ids (as before).
        let plain = render(&s, &[], None, Format::Dot);
        assert!(plain.contains("label=\"d1 · n1\""), "{plain}");
    }

    #[test]
    fn the_html_page_draws_one_runs_timeline() {
        let s = build_structure(PROGRAM, &BuildOptions::default()).structure;
        let trace = serde_json::json!([
            { "event": "tool_start", "taskId": "n1", "tool": "fs:list", "tsMs": 0.0 },
            { "event": "tool_end", "taskId": "n1", "tool": "fs:list", "success": true, "durationMs": 2.0, "tsMs": 2.0, "replayed": true },
            { "event": "tool_end", "taskId": "n2", "tool": "fs:read", "iteration": [0], "success": true, "durationMs": 3.0, "tsMs": 4.0, "speculative": true, "taken": true },
            { "event": "tool_end", "taskId": "n2", "tool": "fs:read", "iteration": [1], "success": false, "durationMs": 1.0, "tsMs": 9.0 },
            { "event": "tool_end", "taskId": "n2", "tool": "fs:read", "iteration": [2], "success": true, "durationMs": 2.0, "tsMs": 6.0, "speculative": true, "taken": false },
            { "event": "tool_end", "taskId": "n1", "tool": "x:y", "capability": "other", "parent": "c1", "success": true, "durationMs": 0.5, "tsMs": 7.5 },
            { "event": "decision", "taskId": "d1", "outcome": "false", "iteration": [0], "tsMs": 4.5 },
        ])
        .to_string();
        let timeline = Timeline::from_trace(&trace).unwrap();
        // One row per operation that ended, by start (tsMs - durationMs).
        let rows: Vec<(Option<&str>, &[u32], f64, f64)> = (timeline.bars.iter())
            .map(|b| {
                (
                    b.task_id.as_deref(),
                    b.iteration.as_slice(),
                    b.start_ms,
                    b.end_ms,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (Some("n1"), &[][..], 0.0, 2.0),
                (Some("n2"), &[0][..], 1.0, 4.0),
                (Some("n2"), &[2][..], 4.0, 6.0),
                (Some("n1"), &[][..], 7.0, 7.5),
                (Some("n2"), &[1][..], 8.0, 9.0),
            ]
        );
        let b = &timeline.bars;
        assert!(b[0].replayed && !b[0].speculative);
        assert!(b[1].speculative && !b[1].wasted);
        assert!(b[2].speculative && b[2].wasted);
        assert_eq!(b[3].capability.as_deref(), Some("other"));
        assert!(b[4].failed);
        let mut overlay = Overlay::default();
        overlay.add_trace(&trace).unwrap();
        let options = RenderOptions {
            title: "t",
            source: Some(PROGRAM),
            timeline: Some(&timeline),
        };
        let html = render_with(&s, &[], Some(&overlay), Format::Html, &options);
        let at = html
            .find("<section class=\"timeline\" id=\"timeline\">")
            .expect("a timeline");
        let section = &html[at..html[at..].find("</section>").unwrap() + at];
        // Rows in order, each with its classes, its tooltip and its node to select (not a
        // called capability's node, which is of another program).
        let classes: Vec<&str> = section
            .match_indices("<g class=\"row")
            .map(|(i, _)| {
                let rest = &section[i + "<g class=\"".len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
        assert_eq!(
            classes,
            [
                "row replayed",
                "row speculative",
                "row speculative wasted",
                "row nested",
                "row failed"
            ]
        );
        let n1 = s.nodes.iter().position(|n| n.id == "n1").unwrap();
        assert!(
            section.contains(&format!("<g class=\"row replayed\" data-node=\"{n1}\" tabindex=\"0\"><title>n1 fs:list: 0.0 ms → 2.0 ms (2.0 ms), from the journal</title>")),
            "{section}"
        );
        assert!(section.contains("<g class=\"row nested\"><title>n1 x:y: 7.0 ms → 7.5 ms (0.5 ms), in capability other</title>"), "{section}");
        assert!(
            section.contains(">n2 fs:read[0] · spec</text>"),
            "{section}"
        );
        assert!(
            section.contains(">n2 fs:read[2] · not taken</text>"),
            "{section}"
        );
        assert!(
            section.contains(">n1 fs:list · journal</text>"),
            "{section}"
        );
        // Bars on one axis: 0 to 9 ms over the chart's width, from the labels' column on.
        assert!(
            section.contains("<rect class=\"bar\" x=\"250.0\" y=\"34\" width=\"120.0\""),
            "{section}"
        );
        assert!(section.contains(">8 ms</text>"), "{section}");
        // Without a timeline (a Definition view, several runs), no section.
        let plain = render_with(&s, &[], None, Format::Html, &RenderOptions::default());
        assert!(!plain.contains("id=\"timeline\""));
    }

    #[test]
    fn the_invocation_view_counts_and_greys() {
        let s = build_structure(PROGRAM, &BuildOptions::default()).structure;
        let trace = serde_json::json!([
            { "event": "tool_end", "taskId": "n1", "tool": "fs:list", "success": true, "durationMs": 2.0, "tsMs": 1.0 },
            { "event": "tool_end", "taskId": "n2", "tool": "fs:read", "success": true, "durationMs": 1.0, "tsMs": 2.0 },
            { "event": "decision", "taskId": "d1", "outcome": "false", "iteration": [0], "tsMs": 3.0 },
            { "event": "loop", "taskId": "l1", "iterations": 1, "tsMs": 4.0 },
            { "event": "tool_end", "taskId": "n9", "tool": "x:y", "capability": "other", "tsMs": 4.0 },
        ])
        .to_string();
        let mut overlay = Overlay::default();
        overlay.add_trace(&trace).unwrap();
        assert!(!overlay.nodes.contains_key("n9"));
        let dot = render(&s, &[], Some(&overlay), Format::Dot);
        assert!(dot.contains("n1 · fs:list\\nran 1, 2.0 ms mean"), "{dot}");
        assert!(
            dot.contains("l1 · for…of loop · 1 iterations in 1 runs"),
            "{dot}"
        );
        assert!(dot.contains("label=\"true ×0\", style=dashed"), "{dot}");
        assert!(dot.contains("d1 · n2.length > 3\\ntaken: false 1"), "{dot}");
        let write = s
            .nodes
            .iter()
            .find(|n| n.tool.as_deref() == Some("fs:write"))
            .unwrap();
        assert!(
            dot.contains(&format!("{} · fs:write\\ndid not run", write.id)),
            "{dot}"
        );
        let mermaid = render(&s, &[], Some(&overlay), Format::Mermaid);
        assert!(
            mermaid.contains(&format!("class {} notrun", write.id)),
            "{mermaid}"
        );
    }

    #[test]
    fn dot_boxes_have_no_label_for_edges_to_cross() {
        let program = "const a = await mcp.fs.read({ path: 'x' });\nconst b = a.content.trim().split(',');\nfor (const f of b) await mcp.fs.read({ path: f });\n";
        let s = build_structure(program, &BuildOptions::default()).structure;
        let code: Vec<String> = (s.nodes.iter().filter(|n| n.is_code()))
            .map(|n| n.id.clone())
            .collect();
        assert_eq!(code.len(), 2, "{code:?}");
        let dot = render(&s, std::slice::from_ref(&code), None, Format::Dot);
        let labels: Vec<&str> = (dot.lines())
            .filter(|l| l.trim_start().starts_with("label="))
            .collect();
        assert_eq!(labels.len(), 2, "a loop's box and a fused one: {dot}");
        assert!(labels.iter().all(|l| l.contains("label=\"\";")), "{dot}");
        // The fused group is named by its first member, the loop by its own node.
        let first = format!("\"{}\" [label=\"", code[0]);
        let line = dot.lines().find(|l| l.contains(&first)).unwrap();
        assert!(
            line.contains(&format!("\\nfused: {} + {}\"", code[0], code[1])),
            "{line}"
        );
    }
}
