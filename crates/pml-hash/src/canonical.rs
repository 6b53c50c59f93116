//! The canonical form of a static structure: the text [`crate::semantic_hash`] hashes.
//! `docs/hash.md` is its specification; keep the two in step (and bump [`VERSION_TAG`] when the
//! form changes).

use std::fmt::Write;

use pml_structure::{
    is_global, is_ident_name, is_simple_path, js_value, key_text, quote_str, ArgumentValue,
    Arguments, Canonical, Edge, Effect, Key, Node, NodeKind, Piece, Scope, StaticStructure,
};
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;

/// First line of every canonical form.
pub const VERSION_TAG: &str = "pml-hash/v8";

/// State shared by everything printed for one structure.
struct Names<'s> {
    structure: &'s StaticStructure,
    /// How deep values are printed (unbounded unless no large stack could be had).
    budget: usize,
    /// Free names nothing resolves, numbered `_v0, _v1...` in order of first appearance.
    unknown: HashMap<std::borrow::Cow<'s, str>, usize>,
    /// Switch outcomes whose case is no constant (`case:` + its text), as they count:
    /// `case:` + the case's printing with its holes filled, by decision and outcome.
    outcomes: HashMap<(&'s str, &'s str), String>,
}

/// What the holes of a printing are, by the kind of text.
enum Mode<'s, 'a> {
    /// Reference expressions and conditions: node results are already written as paths.
    Expr,
    /// Code of a `code:*` task, a loop or a function: its free names are the keys of its
    /// arguments (a function has none).
    Code {
        arguments: Option<&'s Arguments>,
        used: &'a mut Vec<bool>,
    },
}

/// A text without a printing: as it is (the builder's paths), or with its whitespace runs
/// collapsed when it spans lines (a structure the builder did not make), so that every record
/// of the form stays on its line.
fn one_line(text: &str, out: &mut String) {
    match text.contains(['\n', '\r']) {
        true => pml_structure::collapse_whitespace(text, out),
        false => out.push_str(text),
    }
}

/// `text` as an operand: as is when it is a plain path, else parenthesised.
fn push_operand(text: &str, out: &mut String) {
    if is_simple_path(text) {
        out.push_str(text);
    } else {
        out.push('(');
        out.push_str(text);
        out.push(')');
    }
}

fn inline_literal(value: &Value, budget: usize, out: &mut String) {
    let negative = matches!(value, Value::Number(n) if n.as_f64().is_some_and(|f| f < 0.0));
    if negative {
        out.push('(');
    }
    js_value(value, false, budget, out);
    if negative {
        out.push(')');
    }
}

/// Where an object member is printed: inside code, or in an argument value.
#[derive(Clone, Copy)]
enum Printed {
    Code,
    Value,
}

impl<'s> Names<'s> {
    /// A printing with its holes filled: in code, a hole an argument names is that argument's
    /// value; else a literal binding's value, a global as it is, or `_v0, _v1...`.
    fn fill(&mut self, printed: &'s Canonical, mode: &mut Mode<'s, '_>, out: &mut String) {
        for piece in printed.pieces() {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Hole(name) => self.hole(name, mode, out),
            }
        }
    }

    fn hole(&mut self, name: &'s str, mode: &mut Mode<'s, '_>, out: &mut String) {
        if let Mode::Code { arguments, used } = mode {
            if let Some((i, _, value)) = arguments.and_then(|a| a.get_full(name)) {
                used[i] = true;
                self.inline_value(value, out);
                return;
            }
        }
        // Code names its inputs as the program does; everything else (literal bindings,
        // references) as the structure reads a name (`n1$` for a name shaped like a node id):
        // one spelling, so that a name counts alike wherever it is read.
        let name = pml_structure::escape_name(name);
        if let Some(value) = self.structure.literal_bindings.get(name.as_ref()) {
            inline_literal(value, self.budget, out);
            return;
        }
        if is_global(&name) {
            out.push_str(&name);
            return;
        }
        let next = self.unknown.len();
        let k = *self.unknown.entry(name).or_insert(next);
        let _ = write!(out, "_v{k}");
    }

    /// A reference expression or condition: its printing (or its text, a path the builder
    /// wrote, when it has none).
    fn expr_text(&mut self, text: &'s str, printed: Option<&'s Canonical>, out: &mut String) {
        match printed {
            Some(printed) => self.fill(printed, &mut Mode::Expr, out),
            None => one_line(text, out),
        }
    }

    /// [`Self::expr_text`] into a string of its own.
    fn expr_string(&mut self, text: &'s str, printed: Option<&'s Canonical>) -> String {
        let mut out = String::new();
        self.expr_text(text, printed, &mut out);
        out
    }

    /// The key of an object member and what follows it: `key: `, `...`, `[expr]: `; in code
    /// a key is bare when it can be and an expression as it is, in a value both are strings.
    fn member_key(&mut self, key: &'s Key, printed: Printed, out: &mut String) {
        match key {
            Key::Static(name) => {
                match printed {
                    Printed::Code => key_text(name, out),
                    Printed::Value => quote_str(name, out),
                }
                out.push_str(": ");
            }
            Key::Spread(_) => out.push_str("..."),
            Key::Computed(c) => {
                out.push('[');
                match printed {
                    Printed::Code => self.expr_text(&c.expression, c.canonical.as_deref(), out),
                    Printed::Value => {
                        let text = self.expr_string(&c.expression, c.canonical.as_deref());
                        quote_str(&text, out)
                    }
                }
                out.push_str("]: ");
            }
        }
    }

    /// An argument value where the code of a `code:*` task reads the variable holding it.
    fn inline_value(&mut self, value: &'s ArgumentValue, out: &mut String) {
        match value {
            ArgumentValue::Literal { value, .. } => inline_literal(value, self.budget, out),
            ArgumentValue::Reference {
                expression,
                canonical,
                ..
            } => {
                let text = self.expr_string(expression, canonical.as_deref());
                push_operand(&text, out);
            }
            ArgumentValue::Parameter { parameter_name } => {
                let mut text = String::from("args.");
                text.push_str(parameter_name);
                push_operand(&text, out);
            }
            ArgumentValue::Object { properties } => {
                out.push('{');
                for (i, (k, v)) in properties.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.member_key(k, Printed::Code, out);
                    self.inline_value(v, out);
                }
                out.push('}');
            }
            ArgumentValue::Array { items } => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.inline_value(v, out);
                }
                out.push(']');
            }
        }
    }

    /// Append the code of a `code:*` task, a loop or a function, its holes filled (the
    /// arguments it reads substituted); the arguments it does not read come back (they are
    /// listed separately).
    fn code(
        &mut self,
        code: &'s str,
        printed: Option<&'s Canonical>,
        arguments: Option<&'s Arguments>,
        out: &mut String,
    ) -> Vec<&'s ArgumentValue> {
        let mut used = vec![false; arguments.map_or(0, |a| a.len())];
        match printed {
            Some(printed) => {
                let mut mode = Mode::Code {
                    arguments,
                    used: &mut used,
                };
                self.fill(printed, &mut mode, out);
            }
            // A structure the builder did not make: the code as it is, on one line.
            None => one_line(code, out),
        }
        unused(arguments, &used)
    }

    /// An argument value: `lit <value>`, `ref <expression>`, `param "<name>"`,
    /// `obj {"<key>": <value>, ...}` or `arr [<value>, ...]`. Inside `obj`/`arr` (`nested`) an
    /// expression is written as a string, so every value is delimited on its line.
    fn arg_value(&mut self, value: &'s ArgumentValue, depth: usize, out: &mut String) {
        if depth > self.budget {
            out.push_str("<deep>");
            return;
        }
        match value {
            ArgumentValue::Literal { value, .. } => {
                out.push_str("lit ");
                js_value(value, true, self.budget, out);
            }
            ArgumentValue::Reference {
                expression,
                canonical,
                ..
            } => {
                out.push_str("ref ");
                if depth == 0 {
                    self.expr_text(expression, canonical.as_deref(), out);
                } else {
                    let text = self.expr_string(expression, canonical.as_deref());
                    quote_str(&text, out);
                }
            }
            ArgumentValue::Parameter { parameter_name } => {
                out.push_str("param ");
                quote_str(parameter_name, out);
            }
            ArgumentValue::Object { properties } => {
                out.push_str("obj {");
                for (i, (k, v)) in ordered(properties).into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.member_key(k, Printed::Value, out);
                    self.arg_value(v, depth + 1, out);
                }
                out.push('}');
            }
            ArgumentValue::Array { items } => {
                out.push_str("arr [");
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.arg_value(v, depth + 1, out);
                }
                out.push(']');
            }
        }
    }

    /// An outcome of decision `id` as it counts (see [`Names::outcomes`]).
    fn outcome<'o>(&'o self, id: &'o str, outcome: &'o str) -> &'o str {
        self.outcomes
            .get(&(id, outcome))
            .map_or(outcome, String::as_str)
    }

    fn node(&mut self, n: &'s Node, out: &mut String) {
        out.push_str("node ");
        push_id(&n.id, out);
        out.push(' ');
        out.push_str(kind_name(n.kind));
        out.push('\n');
        if let Some(scope) = &n.scope {
            self.scope(scope, out);
        }
        if let Some(tool) = &n.tool {
            out.push_str("  tool ");
            quote_str(tool, out);
            out.push('\n');
        }
        if let Some(c) = &n.capability_id {
            out.push_str("  capability ");
            quote_str(c, out);
            out.push('\n');
        }
        if let Some(f) = &n.function {
            // Which local function a call calls (its name is the program's choice: not hashed).
            out.push_str("  calls ");
            push_id(f, out);
            out.push('\n');
        }
        if let Some(k) = n.loop_kind {
            out.push_str("  loop ");
            out.push_str(&loop_kind_name(k));
            out.push('\n');
        }
        if let Some(c) = &n.condition {
            out.push_str("  condition ");
            let printed = n.canonical.as_ref().and_then(|p| p.condition.as_ref());
            self.expr_text(c, printed, out);
            out.push('\n');
        }
        if !n.outcomes.is_empty() {
            // A switch's cases, empty ones included: they decide which case a value takes.
            out.push_str("  outcomes");
            let printed = n.canonical.as_ref().map(|c| c.outcomes.as_slice());
            for (i, o) in n.outcomes.iter().enumerate() {
                if let Some(Some(case)) = printed.and_then(|p| p.get(i)) {
                    let mut text = String::from("case:");
                    self.fill(case, &mut Mode::Expr, &mut text);
                    self.outcomes.insert((&n.id, o), text);
                }
                out.push(' ');
                quote_str(self.outcome(&n.id, o), out);
            }
            out.push('\n');
        }
        if let Some(code) = &n.code {
            // Code of a `code:*` task (an expression) or of a loop (a statement). The keys of the
            // arguments are the program's variable names: only the values count, and those the
            // code reads are substituted into it.
            out.push_str("  code ");
            let printed = n.canonical.as_ref().and_then(|p| p.code.as_ref());
            let arguments = match n.kind {
                NodeKind::Function => None,
                _ => n.arguments.as_ref(),
            };
            let unused = self.code(code, printed, arguments, out);
            out.push('\n');
            for v in unused {
                out.push_str("  input ");
                self.arg_value(v, 0, out);
                out.push('\n');
            }
            return;
        }
        if let Some(arguments) = &n.arguments {
            self.arguments(arguments, out);
        }
    }

    /// `  scope ...` of a node or an effect.
    fn scope(&self, scope: &Scope, out: &mut String) {
        out.push_str("  scope ");
        match scope {
            Scope::Decision { id, outcome } => {
                out.push_str("decision ");
                push_id(id, out);
                out.push(' ');
                quote_str(self.outcome(id, outcome), out);
            }
            Scope::Fork { id } => {
                out.push_str("fork ");
                push_id(id, out);
            }
            Scope::Loop { id } => {
                out.push_str("loop ");
                push_id(id, out);
            }
            Scope::Function { id } => {
                out.push_str("function ");
                push_id(id, out);
            }
        }
        out.push('\n');
    }

    /// A statement that made no node: `effect`, its scope, its printing (holes filled as a
    /// reference's are).
    fn effect(&mut self, e: &'s Effect, out: &mut String) {
        out.push_str("effect\n");
        if let Some(scope) = &e.scope {
            self.scope(scope, out);
        }
        out.push_str("  code ");
        self.fill(&e.code, &mut Mode::Expr, out);
        out.push('\n');
    }

    /// The arguments of a task or capability, one line each (`arg "<name>" <value>`, or
    /// `spread <value>`).
    fn arguments(&mut self, map: &'s Arguments, out: &mut String) {
        for (k, v) in ordered(map) {
            match k {
                Key::Static(name) => {
                    out.push_str("  arg ");
                    quote_str(name, out);
                    out.push(' ');
                }
                Key::Spread(_) => out.push_str("  spread "),
                Key::Computed(c) => {
                    out.push_str("  computed ");
                    let text = self.expr_string(&c.expression, c.canonical.as_deref());
                    quote_str(&text, out);
                    out.push(' ');
                }
            }
            self.arg_value(v, 0, out);
            out.push('\n');
        }
    }
}

/// Named arguments or object properties sorted by name, unless a spread or a computed key is
/// among them: then in their order, which decides what overrides what.
fn ordered(map: &Arguments) -> Vec<(&Key, &ArgumentValue)> {
    let mut entries: Vec<(&Key, &ArgumentValue)> = map.iter().collect();
    if !map.has_spread() && !map.has_computed() {
        entries.sort_by(|a, b| a.0.as_static().cmp(&b.0.as_static()));
    }
    entries
}

/// The arguments whose `used` flag is false, in order.
fn unused<'s>(arguments: Option<&'s Arguments>, used: &[bool]) -> Vec<&'s ArgumentValue> {
    arguments
        .into_iter()
        .flat_map(|a| a.values())
        .zip(used)
        .filter(|(_, u)| !**u)
        .map(|(v, _)| v)
        .collect()
}

/// Node ids as they are when they are plain words (always, for the builder's), else quoted.
fn push_id(id: &str, out: &mut String) {
    if is_ident_name(id) {
        out.push_str(id);
    } else {
        quote_str(id, out);
    }
}

fn kind_name(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Task => "task",
        NodeKind::Decision => "decision",
        NodeKind::Capability => "capability",
        NodeKind::Fork => "fork",
        NodeKind::Join => "join",
        NodeKind::Loop => "loop",
        NodeKind::Function => "function",
        NodeKind::Call => "call",
    }
}

fn loop_kind_name(k: pml_structure::LoopKind) -> String {
    // The JSON spelling (`forOf`, `doWhile`...).
    match serde_json::to_value(k) {
        Ok(Value::String(s)) => s,
        _ => format!("{k:?}"),
    }
}

fn edge_kind_name(k: pml_structure::EdgeKind) -> &'static str {
    match k {
        pml_structure::EdgeKind::Sequence => "sequence",
        pml_structure::EdgeKind::Conditional => "conditional",
        pml_structure::EdgeKind::Provides => "provides",
    }
}

fn coverage_name(c: pml_structure::Coverage) -> &'static str {
    match c {
        pml_structure::Coverage::Strict => "strict",
        pml_structure::Coverage::Partial => "partial",
        pml_structure::Coverage::Optional => "optional",
    }
}

/// Edges in canonical order: by `from`, `to`, type, outcome (as it counts), coverage (as
/// strings; absent first).
fn sorted_edges<'e>(edges: &'e [Edge], names: &'e Names<'_>) -> Vec<EdgeKey<'e>> {
    let mut sorted: Vec<EdgeKey<'e>> = edges.iter().map(|e| edge_key(e, names)).collect();
    sorted.sort();
    sorted
}

type EdgeKey<'e> = (
    &'e str,
    &'e str,
    &'static str,
    Option<&'e str>,
    Option<&'static str>,
);

fn edge_key<'e>(e: &'e Edge, names: &'e Names<'_>) -> EdgeKey<'e> {
    (
        &e.from,
        &e.to,
        edge_kind_name(e.kind),
        e.outcome.as_deref().map(|o| names.outcome(&e.from, o)),
        e.coverage.map(coverage_name),
    )
}

fn edge_line((from, to, kind, outcome, coverage): EdgeKey<'_>, out: &mut String) {
    out.push_str("edge ");
    push_id(from, out);
    out.push(' ');
    push_id(to, out);
    out.push(' ');
    out.push_str(kind);
    if let Some(o) = outcome {
        out.push_str(" outcome ");
        quote_str(o, out);
    }
    if let Some(c) = coverage {
        out.push_str(" coverage ");
        out.push_str(c);
    }
    out.push('\n');
}

/// The canonical form (see `docs/hash.md`); values nested deeper than `budget` print
/// `<deep>`.
pub(crate) fn canonical_form(structure: &StaticStructure, budget: usize) -> String {
    let mut names = Names {
        structure,
        budget,
        unknown: HashMap::default(),
        outcomes: HashMap::default(),
    };
    let mut out = String::with_capacity(64 + structure.nodes.len() * 160);
    out.push_str(VERSION_TAG);
    out.push('\n');
    let mut effects = structure.effects.iter().peekable();
    for (i, n) in structure.nodes.iter().enumerate() {
        while let Some(e) = effects.next_if(|e| e.after <= i) {
            names.effect(e, &mut out);
        }
        names.node(n, &mut out);
    }
    for e in effects {
        names.effect(e, &mut out);
    }
    if let Some(result) = &structure.result {
        out.push_str("result ");
        names.arg_value(result, 0, &mut out);
        out.push('\n');
    }
    for e in sorted_edges(&structure.edges, &names) {
        edge_line(e, &mut out);
    }
    out
}
