//! The view as one self-contained HTML file: the picture as inline SVG, styled and scripted
//! inline, nothing fetched. Laid out here: nodes in rows by their longest path from the
//! start; each loop, function and fused group in columns of its own over the rows it spans,
//! so that its box encloses its nodes and no other; edges that skip rows routed through the
//! gaps between rows and the lanes between columns, which hold no node. Selecting a node
//! shows its details (kind, tool, where it is, its code or condition, its arguments, what
//! ran) beside the picture; the node data travels as a JSON block the script reads. With one
//! run's [`Timeline`], a Gantt-like chart above the picture: a row per operation, a bar from
//! its start to its end, speculative, wasted, replayed and failed ones marked.

use std::collections::HashMap;
use std::fmt::Write as _;

use pml_structure::{EdgeKind, NodeKind};
use serde_json::json;

use crate::{Shape, Timeline, View};

const WIDTH: f64 = 230.0;
const HEIGHT: f64 = 50.0;
const GAP_X: f64 = 40.0;
const GAP_Y: f64 = 46.0;
const MARGIN: f64 = 30.0;
/// The timeline: the labels' column, the bars' width, a row's height, the axis above.
const LABEL_WIDTH: f64 = 250.0;
const CHART_WIDTH: f64 = 540.0;
const ROW: f64 = 20.0;
const AXIS: f64 = 30.0;
/// Rows drawn at most (a run keeps up to 250,000 events); the rest are counted.
const MAX_BARS: usize = 2_000;

/// `t` with at most three decimals, without trailing zeros (`0.5`, `20`).
fn round(t: f64) -> String {
    let text = format!("{t:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" => "0".to_owned(),
        t => t.to_owned(),
    }
}

impl View<'_> {
    pub(crate) fn html(&self, title: &str, timeline: Option<&Timeline>) -> String {
        let nodes = &self.structure.nodes;
        let index: HashMap<&str, usize> = (nodes.iter().enumerate())
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let layout = self.layout(&index);
        let row = &layout.row;
        let at = |i: usize| layout.at(i);
        let columns = layout.width.max(1) as f64;
        let rows = row.iter().copied().max().map_or(1, |r| r + 1) as f64;
        let (width, height) = (
            2.0 * MARGIN + columns * (WIDTH + GAP_X),
            2.0 * MARGIN + rows * (HEIGHT + GAP_Y),
        );

        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\">"
        );
        svg.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>");
        for (g, x0, y0, x1, y1) in &layout.boxes {
            let group = &self.groups[*g];
            let class = match group.id.starts_with("fused_") {
                true => "group fused",
                false => "group",
            };
            let _ = write!(
                svg,
                "<g class=\"{class}\"><rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" rx=\"10\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
                x1 - x0,
                y1 - y0,
                x0 + 8.0,
                y0 + 12.0,
                escape(&group.label)
            );
        }
        for edge in &self.structure.edges {
            let (Some(&from), Some(&to)) =
                (index.get(edge.from.as_str()), index.get(edge.to.as_str()))
            else {
                continue;
            };
            let ((fx, fy), (tx, ty)) = (at(from), at(to));
            let (x1, y1, x2, y2) = (fx + WIDTH / 2.0, fy + HEIGHT, tx + WIDTH / 2.0, ty);
            let (class, label) = match (edge.kind, &edge.outcome) {
                (EdgeKind::Conditional, Some(outcome)) => {
                    let (label, never) = self.outcome(&edge.from, outcome);
                    (if never { "edge never" } else { "edge" }, Some(label))
                }
                (EdgeKind::Provides, _) => ("edge provides", Some("provides".to_owned())),
                _ => ("edge", None),
            };
            let path = match layout.route(from, to) {
                Some(points) => {
                    let mut path = String::new();
                    for (k, (x, y)) in points.iter().enumerate() {
                        let _ = write!(path, "{}{x},{y}", if k == 0 { "M" } else { " L" });
                    }
                    path
                }
                None => {
                    let mid = (y1 + y2) / 2.0;
                    format!("M{x1},{y1} C{x1},{mid} {x2},{mid} {x2},{}", y2 - 1.0)
                }
            };
            let _ = write!(
                svg,
                "<path class=\"{class}\" d=\"{path}\" marker-end=\"url(#arrow)\"/>"
            );
            // A label just above the node it leads to: one per edge, never on another's.
            if let Some(label) = label {
                let _ = write!(
                    svg,
                    "<text class=\"edge-label\" x=\"{}\" y=\"{}\">{}</text>",
                    x2 + 6.0,
                    y2 - 6.0,
                    escape(&label)
                );
            }
        }
        let mut data = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            let (x, y) = at(i);
            let mut class = String::from("node");
            match Self::shape(node) {
                Shape::Decision => class.push_str(" decision"),
                Shape::Point => class.push_str(" point"),
                Shape::Capability => class.push_str(" capability"),
                Shape::Task => {}
            }
            if matches!(node.kind, NodeKind::Loop | NodeKind::Function) {
                class.push_str(" head");
            }
            if self.greyed(node) {
                class.push_str(" notrun");
            } else if self.failed(node) {
                class.push_str(" failed");
            } else if self.overlay.is_some() {
                class.push_str(" ran");
            }
            if node
                .tool
                .as_ref()
                .is_some_and(|t| self.structure.hil_required_tools.contains(t))
            {
                class.push_str(" hil");
            }
            let lines = match node.kind {
                NodeKind::Loop | NodeKind::Function => vec![crate::group_label(node, self.overlay)],
                // A decision reads as its source; its id goes first on the line below.
                NodeKind::Decision => {
                    let notes = self.notes(node);
                    let below = match notes.is_empty() {
                        true => node.id.clone(),
                        false => format!("{} · {}", node.id, notes.join(" · ")),
                    };
                    vec![self.what(node), below]
                }
                _ => self.label(node),
            };
            // The whole label as the tooltip (the box shows its lines shortened).
            let tooltip = match node.kind {
                NodeKind::Loop | NodeKind::Function => crate::group_label(node, self.overlay),
                _ => {
                    let mut all = vec![format!("{} · {}", node.id, self.what(node))];
                    all.extend(self.notes(node));
                    all.join("\n")
                }
            };
            let _ = write!(
                svg,
                "<g class=\"{class}\" data-node=\"{i}\" tabindex=\"0\"><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" rx=\"{}\"/>",
                escape(&tooltip),
                if matches!(node.kind, NodeKind::Decision) { 22 } else { 8 }
            );
            for (k, line) in lines.iter().take(3).enumerate() {
                let _ = write!(
                    svg,
                    "<text x=\"{}\" y=\"{}\"{}>{}</text>",
                    x + 10.0,
                    y + 19.0 + 15.0 * k as f64,
                    if k == 0 { "" } else { " class=\"sub\"" },
                    escape(&crate::shorten(line, 34))
                );
            }
            svg.push_str("</g>");
            let ran = (self.overlay).and_then(|o| o.nodes.get(&node.id)).map(|r| {
                json!({
                    "times": r.count,
                    "failed": r.failed,
                    "meanMs": match r.count - r.journaled {
                        0 => None,
                        timed => Some(r.total_ms / timed as f64),
                    },
                    "journaled": r.journaled,
                    "inFlight": r.in_flight,
                    "speculative": r.speculative,
                    "replayed": r.replayed,
                })
            });
            data.push(json!({
                "id": node.id,
                "kind": node.kind,
                "tool": node.tool,
                "capability": node.capability_id,
                "at": format!("{}:{}", node.span.line, node.span.column),
                "code": match node.kind {
                    NodeKind::Decision => self.decision_text(node).or(node.condition.as_deref()),
                    _ => node.code.as_deref(),
                },
                "condition": node.condition,
                "arguments": node.arguments,
                "lines": self.label(node),
                "ran": ran,
                "outcomes": self.overlay.and_then(|o| o.outcomes.get(&node.id)),
                "iterations": self.overlay.and_then(|o| o.iterations.get(&node.id)),
            }));
        }
        svg.push_str("</svg>");
        // JSON inside <script>: no `<` (which could close it or open a comment), no `>` or
        // `&`; as JSON escapes, the same strings.
        let data = serde_json::to_string(&data)
            .unwrap_or_else(|_| "[]".into())
            .replace('<', "\\u003c")
            .replace('>', "\\u003e")
            .replace('&', "\\u0026");
        let what = match self.overlay {
            Some(o) if o.unfinished > 0 => format!(
                "Invocation view: {} run(s) laid on the structure; {}",
                o.runs,
                o.unfinished_note().unwrap_or_default()
            ),
            Some(o) => format!("Invocation view: {} run(s) laid on the structure", o.runs),
            None => "Definition view: the static structure".to_owned(),
        };
        let what = escape(&what);
        let timeline = match timeline {
            Some(t) if t.bars.is_empty() => "<section class=\"timeline\" id=\"timeline\"><h2>Timeline</h2><p class=\"hint\">No operation ended in this run's trace.</p></section>".to_owned(),
            Some(t) => format!(
                "<section class=\"timeline\" id=\"timeline\"><h2>Timeline</h2><p class=\"hint\">One row per operation that ended, by start; a bar from its start to its end (ms from the run's start). Select a row for its node.</p>{}</section>",
                self.timeline_svg(t, &index)
            ),
            None => String::new(),
        };
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title><style>{STYLE}</style></head><body><header><h1>{title}</h1><p>{what}. Select a node for its details.</p></header><main><div class=\"views\">{timeline}<div class=\"picture\">{svg}</div></div><aside id=\"details\"><p class=\"hint\">No node selected.</p></aside></main><script type=\"application/json\" id=\"nodes\">{data}</script><script>{SCRIPT}</script></body></html>\n",
            title = escape(title),
        )
    }

    /// The timeline as SVG: a label per row (node, tool, iteration, capability), a bar from
    /// start to end on a common time axis, classes for failed, speculative, wasted and
    /// replayed operations; a row of one of the structure's nodes selects it.
    fn timeline_svg(&self, timeline: &Timeline, index: &HashMap<&str, usize>) -> String {
        let bars = &timeline.bars[..timeline.bars.len().min(MAX_BARS)];
        let from = bars.iter().map(|b| b.start_ms).fold(0.0_f64, f64::min);
        let to = bars.iter().map(|b| b.end_ms).fold(from, f64::max);
        let span = (to - from).max(1e-3);
        let x = |t: f64| LABEL_WIDTH + (t - from) / span * CHART_WIDTH;
        let height = AXIS + ROW * bars.len() as f64 + ROW + 10.0;
        let width = LABEL_WIDTH + CHART_WIDTH + 20.0;
        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\">"
        );
        // The axis: a line and a label every step, the step 1, 2 or 5 times a power of ten.
        let raw = span / 8.0;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * magnitude)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * magnitude);
        let mut tick = (from / step).ceil() * step;
        let mut ticks = 0;
        while tick <= to + step * 1e-9 && ticks < 100 {
            let at = x(tick);
            let _ = write!(
                svg,
                "<line class=\"tick\" x1=\"{at:.1}\" y1=\"{}\" x2=\"{at:.1}\" y2=\"{:.1}\"/><text class=\"axis\" x=\"{at:.1}\" y=\"{}\">{} ms</text>",
                AXIS - 6.0,
                height - 10.0,
                AXIS - 10.0,
                round(tick)
            );
            tick += step;
            ticks += 1;
        }
        for (k, bar) in bars.iter().enumerate() {
            let y = AXIS + ROW * k as f64;
            let mut class = String::from("row");
            for (on, name) in [
                (bar.failed, " failed"),
                (bar.speculative, " speculative"),
                (bar.wasted, " wasted"),
                (bar.replayed, " replayed"),
                (bar.capability.is_some(), " nested"),
            ] {
                if on {
                    class.push_str(name);
                }
            }
            // A row selects its node: one of this structure's, not a called capability's.
            let node = (bar.capability.is_none())
                .then(|| bar.task_id.as_deref().and_then(|id| index.get(id)))
                .flatten();
            let select = match node {
                Some(i) => format!(" data-node=\"{i}\" tabindex=\"0\""),
                None => String::new(),
            };
            let iteration = match bar.iteration.as_slice() {
                [] => String::new(),
                it => format!(
                    "[{}]",
                    it.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                ),
            };
            let mut notes = Vec::new();
            if bar.failed {
                notes.push("failed".to_owned());
            }
            match (bar.speculative, bar.wasted) {
                (true, true) => notes.push("speculative, not taken".to_owned()),
                (true, false) => notes.push("speculative".to_owned()),
                _ => {}
            }
            if bar.replayed {
                notes.push("from the journal".to_owned());
            }
            if let Some(name) = &bar.capability {
                notes.push(format!("in capability {name}"));
            }
            let id = bar.task_id.as_deref().unwrap_or("-");
            let label = format!("{id} {}{iteration}", bar.tool);
            let mut tooltip = format!(
                "{label}: {:.1} ms → {:.1} ms ({:.1} ms)",
                bar.start_ms,
                bar.end_ms,
                bar.end_ms - bar.start_ms
            );
            if !notes.is_empty() {
                let _ = write!(tooltip, ", {}", notes.join(", "));
            }
            let mut shown = crate::shorten(&label, 28);
            let marks: Vec<&str> = [
                (bar.speculative && !bar.wasted, "spec"),
                (bar.wasted, "not taken"),
                (bar.replayed, "journal"),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, m)| *m)
            .collect();
            if !marks.is_empty() {
                let _ = write!(shown, " · {}", marks.join(" · "));
            }
            let (x0, x1) = (x(bar.start_ms), x(bar.end_ms));
            let _ = write!(
                svg,
                "<g class=\"{class}\"{select}><title>{}</title><rect class=\"band\" x=\"0\" y=\"{y}\" width=\"{width}\" height=\"{ROW}\"/><text x=\"{}\" y=\"{}\">{}</text><rect class=\"bar\" x=\"{x0:.1}\" y=\"{}\" width=\"{:.1}\" height=\"{}\" rx=\"2\"/></g>",
                escape(&tooltip),
                if bar.capability.is_some() { 22.0 } else { 8.0 },
                y + 14.0,
                escape(&shown),
                y + 4.0,
                (x1 - x0).max(2.0),
                ROW - 8.0,
            );
        }
        if timeline.bars.len() > bars.len() {
            let _ = write!(
                svg,
                "<text class=\"axis\" x=\"8\" y=\"{}\">… {} more operations (the trace has them all)</text>",
                AXIS + ROW * bars.len() as f64 + 14.0,
                timeline.bars.len() - bars.len()
            );
        }
        svg.push_str("</svg>");
        svg
    }

    /// Every node drawn inside group `g` (its own head, its members, its subgroups').
    /// Where everything goes: rows, columns, and the boxes of the groups.
    fn layout(&self, index: &HashMap<&str, usize>) -> Layout {
        let nodes = &self.structure.nodes;
        // Rows: the longest path from a node without predecessors (bounded: a structure is
        // acyclic, but a picture must not hang if one were not).
        let flow: Vec<(usize, usize)> = (self.structure.edges.iter())
            .filter(|e| e.kind != EdgeKind::Provides)
            .filter_map(|e| Some((*index.get(e.from.as_str())?, *index.get(e.to.as_str())?)))
            .collect();
        let mut row = vec![0usize; nodes.len()];
        for _ in 0..nodes.len().min(10_000) {
            let mut changed = false;
            for &(from, to) in &flow {
                if row[to] < row[from] + 1 && row[from] < nodes.len() {
                    row[to] = row[from] + 1;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Columns: each loop's, function's and fused group's nodes get columns of their own
        // over the rows they span, so that its box encloses its nodes and no other.
        let mut column = vec![0usize; nodes.len()];
        let placed = self.place(None, &row, index);
        for &(i, c) in &placed.columns {
            column[i] = c;
        }
        let mut layout = Layout {
            row,
            column,
            width: placed.width,
            boxes: Vec::new(),
        };
        // Boxes behind their members (outer boxes first: they are drawn larger).
        let mut boxes: Vec<(usize, f64, f64, f64, f64)> = Vec::new();
        for g in 0..self.groups.len() {
            let members = self.members(g, index);
            if members.is_empty() {
                continue;
            }
            let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
            for &i in &members {
                let (x, y) = layout.at(i);
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x + WIDTH);
                y1 = y1.max(y + HEIGHT);
            }
            let depth = self.depth(g) as f64;
            let pad = 14.0 - 3.0 * depth.min(3.0);
            boxes.push((g, x0 - pad, y0 - pad - 12.0, x1 + pad, y1 + pad));
        }
        boxes.sort_by_key(|b| self.depth(b.0));
        layout.boxes = boxes;
        layout
    }

    /// Columns for the nodes of `block` (a group, or the top when `None`), from 0: its loose
    /// nodes (a group's head among them) and its groups are placed in order of their first
    /// row, each at the first columns free over all the rows it spans; a group takes its
    /// whole width over its rows, so nothing else is drawn inside its box.
    fn place(&self, block: Option<usize>, row: &[usize], index: &HashMap<&str, usize>) -> Placed {
        enum Item {
            Node(usize),
            Group(Placed),
        }
        let (loose, children) = match block {
            Some(g) => {
                let group = &self.groups[g];
                let mut loose = group.nodes.clone();
                loose.extend(index.get(group.id.as_str()).copied());
                (loose, group.children.clone())
            }
            None => (self.top.clone(), self.top_groups.clone()),
        };
        // (first row, last row, first node, item)
        let mut items: Vec<(usize, usize, usize, Item)> = Vec::new();
        for i in loose {
            items.push((row[i], row[i], i, Item::Node(i)));
        }
        for c in children {
            let members = self.members(c, index);
            let (Some(&first), Some(&last), Some(&lead)) = (
                members.iter().map(|&i| &row[i]).min(),
                members.iter().map(|&i| &row[i]).max(),
                members.iter().min(),
            ) else {
                continue;
            };
            items.push((
                first,
                last,
                lead,
                Item::Group(self.place(Some(c), row, index)),
            ));
        }
        items.sort_by_key(|&(first, _, lead, _)| (first, lead));
        // Which columns are taken, row by row.
        let mut taken: HashMap<usize, Vec<bool>> = HashMap::new();
        let mut placed = Placed::default();
        for (first, last, _, item) in items {
            let width = match &item {
                Item::Node(_) => 1,
                Item::Group(p) => p.width.max(1),
            };
            let free = |c: usize, taken: &HashMap<usize, Vec<bool>>| {
                (first..=last).all(|r| {
                    taken.get(&r).is_none_or(|cols| {
                        (c..c + width).all(|k| !cols.get(k).copied().unwrap_or(false))
                    })
                })
            };
            let mut at = 0;
            while !free(at, &taken) {
                at += 1;
            }
            for r in first..=last {
                let cols = taken.entry(r).or_default();
                if cols.len() < at + width {
                    cols.resize(at + width, false);
                }
                cols[at..at + width].iter_mut().for_each(|t| *t = true);
            }
            placed.width = placed.width.max(at + width);
            match item {
                Item::Node(i) => placed.columns.push((i, at)),
                Item::Group(p) => {
                    (placed.columns).extend(p.columns.into_iter().map(|(i, c)| (i, at + c)))
                }
            }
        }
        placed
    }

    fn members(&self, g: usize, index: &HashMap<&str, usize>) -> Vec<usize> {
        let group = &self.groups[g];
        let mut out: Vec<usize> = group.nodes.clone();
        if let Some(&head) = index.get(group.id.as_str()) {
            out.push(head);
        }
        for &c in &group.children {
            out.extend(self.members(c, index));
        }
        out
    }

    fn depth(&self, mut g: usize) -> usize {
        let mut depth = 0;
        while let Some(p) = self.groups[g].parent {
            g = p;
            depth += 1;
            if depth > self.groups.len() {
                break;
            }
        }
        depth
    }
}

/// The picture's geometry: each node's row and column, the columns in all, and each group's
/// box `(group, x0, y0, x1, y1)`, outer boxes first (they are drawn behind).
struct Layout {
    row: Vec<usize>,
    column: Vec<usize>,
    width: usize,
    boxes: Vec<(usize, f64, f64, f64, f64)>,
}

impl Layout {
    /// The way of an edge that skips rows, as the points of a polyline: down into the gap
    /// below its start, along it to the lane between two columns beside its end, down the
    /// lane to the gap above its end, and into its end (gaps and lanes hold no node). `None`
    /// for an edge to the next row, drawn as a curve through the gap between the two.
    fn route(&self, from: usize, to: usize) -> Option<Vec<(f64, f64)>> {
        if self.row[to] == self.row[from] + 1 {
            return None;
        }
        let ((fx, fy), (tx, ty)) = (self.at(from), self.at(to));
        let (x1, y1, x2, y2) = (fx + WIDTH / 2.0, fy + HEIGHT, tx + WIDTH / 2.0, ty);
        let lane = match self.column[from] < self.column[to] {
            true => tx - GAP_X / 2.0,
            false => tx + WIDTH + GAP_X / 2.0,
        };
        let (below, above) = (y1 + GAP_Y / 3.0, y2 - GAP_Y / 3.0);
        Some(vec![
            (x1, y1),
            (x1, below),
            (lane, below),
            (lane, above),
            (x2, above),
            (x2, y2 - 1.0),
        ])
    }

    /// The top left corner of node `i`.
    fn at(&self, i: usize) -> (f64, f64) {
        (
            MARGIN + self.column[i] as f64 * (WIDTH + GAP_X),
            MARGIN + self.row[i] as f64 * (HEIGHT + GAP_Y),
        )
    }
}

/// Where [`View::place`] put a block's nodes: (node, column from the block's first), and how
/// many columns it takes.
#[derive(Default)]
struct Placed {
    columns: Vec<(usize, usize)>,
    width: usize,
}

/// Text for HTML (element content and attribute values).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body{margin:0;font:14px/1.4 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#222;background:#fafafa}
header{padding:12px 20px;border-bottom:1px solid #ddd;background:#fff}
h1{font-size:18px;margin:0 0 4px}header p{margin:0;color:#555}
main{display:flex;align-items:flex-start;gap:16px;padding:16px}
.picture{flex:1;overflow:auto;background:#fff;border:1px solid #ddd;border-radius:8px}
aside{width:360px;flex:none;background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 16px;position:sticky;top:16px;max-height:90vh;overflow:auto}
aside h2{font-size:16px;margin:0 0 8px}aside pre{background:#f4f4f4;padding:8px;border-radius:6px;white-space:pre-wrap;word-break:break-word;font-size:12px}
aside dt{font-weight:600;margin-top:6px}aside dd{margin:0 0 0 8px}.hint{color:#777}
svg text{font-size:12px;fill:#222;pointer-events:none}svg text.sub{fill:#555;font-size:11px}
.node rect{fill:#fff;stroke:#546e7a;stroke-width:1.2}.node{cursor:pointer}
.node:hover rect,.node:focus rect,.node.selected rect{stroke:#1565c0;stroke-width:2.5}
.node.decision rect{fill:#fff8e1}.node.capability rect{stroke-width:2.5;stroke-dasharray:2 2}
.node.point rect{fill:#eceff1}.node.head rect{fill:#eef3f6}
.node.ran rect{fill:#e8f5e9}.node.failed rect{fill:#fdecea;stroke:#c62828}
.node.notrun rect{fill:#f2f2f2;stroke:#bbb;stroke-dasharray:4 3}.node.notrun text{fill:#999}
.node.hil rect{stroke:#e65100;stroke-width:3}
.group rect{fill:none;stroke:#90a4ae;stroke-width:1.2}.group.fused rect{stroke:#6a1b9a;stroke-dasharray:6 4}
.group text{font-size:11px;fill:#607d8b}
.edge{fill:none;stroke:#555;stroke-width:1.2}.edge.never{stroke:#bbb;stroke-dasharray:4 3}
.edge.provides{stroke:#1565c0;stroke-dasharray:5 4}.edge-label{font-size:11px;fill:#444}
.views{flex:1;min-width:0;display:flex;flex-direction:column;gap:16px}.views .picture{flex:none}
.timeline{background:#fff;border:1px solid #ddd;border-radius:8px;padding:8px 12px;overflow:auto;outline:none}
.timeline svg{width:100%;max-width:810px;height:auto}
.timeline h2{font-size:16px;margin:4px 0}.timeline p{margin:0 0 6px}
.timeline .tick{stroke:#e0e0e0}.timeline text.axis{font-size:10px;fill:#777;text-anchor:middle}
.row .band{fill:transparent}.row:nth-of-type(even) .band{fill:#f7f7f7}.row[data-node]{cursor:pointer}
.row[data-node]:hover .band,.row.selected .band{fill:#e3f2fd}
.row .bar{fill:#66bb6a;stroke:#2e7d32;stroke-width:1}.row.nested text{fill:#555}
.row.failed .bar{fill:#ef9a9a;stroke:#c62828}.row.speculative .bar{fill:#64b5f6;stroke:#1565c0}
.row.wasted .bar{fill:none;stroke:#90a4ae;stroke-dasharray:3 2}.row.wasted text{fill:#999}
.row.replayed .bar{fill:#ce93d8;stroke:#6a1b9a}
";

const SCRIPT: &str = r#"
(function () {
  var nodes = JSON.parse(document.getElementById('nodes').textContent);
  var aside = document.getElementById('details');
  function el(tag, text) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; }
  function show(i) {
    var n = nodes[i];
    document.querySelectorAll('.node.selected, .row.selected').forEach(function (g) { g.classList.remove('selected'); });
    document.querySelectorAll('.node[data-node="' + i + '"], .row[data-node="' + i + '"]').forEach(function (g) { g.classList.add('selected'); });
    aside.textContent = '';
    aside.appendChild(el('h2', n.id + ' · ' + (n.tool || n.capability || n.kind)));
    var dl = el('dl');
    function row(k, v) { if (v === null || v === undefined) return; dl.appendChild(el('dt', k)); dl.appendChild(el('dd', v)); }
    row('kind', n.kind);
    row('at (line:column)', n.at);
    row('condition (over node ids)', n.condition);
    n.lines.slice(1).forEach(function (l) { row('run', l); });
    if (n.ran) {
      row('times', String(n.ran.times));
      if (n.ran.meanMs !== null) row('mean duration', n.ran.meanMs.toFixed(2) + ' ms');
      if (n.ran.journaled) row('in the journal (no duration)', String(n.ran.journaled));
      if (n.ran.inFlight) row('in flight (may or may not have happened)', String(n.ran.inFlight));
      if (n.ran.failed) row('failed', String(n.ran.failed));
      if (n.ran.speculative) row('speculative', String(n.ran.speculative));
      if (n.ran.replayed) row('replayed', String(n.ran.replayed));
    }
    if (n.outcomes) row('outcomes taken', Object.keys(n.outcomes).map(function (k) { return k + ' ×' + n.outcomes[k]; }).join(', '));
    if (n.iterations !== null && n.iterations !== undefined) row('iterations', String(n.iterations));
    aside.appendChild(dl);
    if (n.code) { aside.appendChild(el('h3', 'code')); aside.appendChild(el('pre', n.code)); }
    if (n.arguments) { aside.appendChild(el('h3', 'arguments')); aside.appendChild(el('pre', JSON.stringify(n.arguments, null, 2))); }
  }
  document.querySelectorAll('.node, .row[data-node]').forEach(function (g) {
    var i = Number(g.getAttribute('data-node'));
    g.addEventListener('click', function () { show(i); });
    g.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') show(i); });
  });
  if (location.hash.length > 1) {
    var wanted = decodeURIComponent(location.hash.slice(1));
    nodes.forEach(function (n, i) { if (n.id === wanted) show(i); });
  }
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use pml_structure::{build_structure, BuildOptions};

    /// Loops, helpers, branches and a fused chain side by side: the shapes whose boxes used to
    /// enclose other nodes (members placed by order in their row, boxes around them).
    const PROGRAM: &str = r#"async function load(name) {
  const text = await mcp.fs.read({ path: name });
  return text.content.trim().split("\n");
}
const index = await mcp.fs.list({ path: args.root });
const first = await load(index.files[0]);
for (const f of index.files) {
  const lines = await load(f);
  if (lines.length > 3) await mcp.fs.write({ path: f + ".bak", text: lines.join("\n") });
}
const extra = await mcp.fs.read({ path: "extra" });
for (const line of first) {
  await mcp.memory.add({ text: line });
}
const words = extra.content.split(" ").map((w) => w.toUpperCase()).filter((w) => w.length > 2);
if (words.length > 0) {
  const added = await mcp.memory.add({ text: words.join(",") });
  await mcp.memory.add({ text: added.id });
} else {
  await mcp.memory.add({ text: "none" });
}
await mcp.memory.add({ text: "done" });
return words.length;
"#;

    fn overlaps(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
        a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
    }

    fn inside(inner: (f64, f64, f64, f64), outer: (f64, f64, f64, f64)) -> bool {
        outer.0 <= inner.0 && outer.1 <= inner.1 && inner.2 <= outer.2 && inner.3 <= outer.3
    }

    #[test]
    fn boxes_hold_their_own_nodes_and_routed_edges_cross_none() {
        let s = build_structure(PROGRAM, &BuildOptions::default()).structure;
        let code: Vec<String> = (s.nodes.iter())
            .filter(|n| n.is_code() && n.scope.is_none())
            .map(|n| n.id.clone())
            .take(2)
            .collect();
        assert_eq!(code.len(), 2, "two code tasks at the top to fuse");
        let fused = vec![code];
        let view = View::new(&s, &fused, None, Some(PROGRAM));
        assert!(
            view.groups.len() >= 4,
            "two loops, a function, a fused pair"
        );
        let index: HashMap<&str, usize> = (s.nodes.iter().enumerate())
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let layout = view.layout(&index);
        let rect = |i: usize| {
            let (x, y) = layout.at(i);
            (x, y, x + WIDTH, y + HEIGHT)
        };
        for a in 0..s.nodes.len() {
            for b in a + 1..s.nodes.len() {
                assert!(!overlaps(rect(a), rect(b)), "{a} and {b} overlap");
            }
        }
        for &(g, x0, y0, x1, y1) in &layout.boxes {
            let members = view.members(g, &index);
            for i in 0..s.nodes.len() {
                let mine = members.contains(&i);
                assert_eq!(
                    overlaps(rect(i), (x0, y0, x1, y1)),
                    mine,
                    "box {} and node {}",
                    view.groups[g].id,
                    s.nodes[i].id
                );
            }
            // Another box is inside it (a group of its own) or apart from it.
            for &(h, a0, b0, a1, b1) in &layout.boxes {
                if h == g {
                    continue;
                }
                let (outer, inner) = ((x0, y0, x1, y1), (a0, b0, a1, b1));
                let nested = (view.groups[h].parent == Some(g)) || view.depth(h) > view.depth(g);
                assert!(
                    !overlaps(outer, inner)
                        || (nested && inside(inner, outer))
                        || inside(outer, inner),
                    "boxes {} and {} cross",
                    view.groups[g].id,
                    view.groups[h].id
                );
            }
        }
        let mut routed = 0;
        for e in &s.edges {
            let (from, to) = (index[e.from.as_str()], index[e.to.as_str()]);
            let Some(points) = layout.route(from, to) else {
                continue;
            };
            routed += 1;
            for w in points.windows(2) {
                let ((ax, ay), (bx, by)) = (w[0], w[1]);
                let segment = (ax.min(bx), ay.min(by), ax.max(bx) + 0.5, ay.max(by) + 0.5);
                for i in (0..s.nodes.len()).filter(|&i| i != from && i != to) {
                    assert!(
                        !overlaps(segment, rect(i)),
                        "edge {} -> {} crosses {}",
                        e.from,
                        e.to,
                        s.nodes[i].id
                    );
                }
            }
        }
        assert!(routed > 0, "an edge skips rows");
    }
}
