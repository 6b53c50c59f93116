//! The canonical form of a static structure: the text [`crate::semantic_hash`] hashes.
//! `docs/hash.md` is its specification; keep the two in step (and bump [`VERSION_TAG`] when the
//! form changes).

use std::borrow::Cow;
use std::fmt::Write;

use pml_structure::{ArgumentValue, Arguments, Edge, Key, Node, NodeKind, Scope, StaticStructure};
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;

use crate::parse;
use crate::print::{self, is_ident_name, is_simple_path, quote_str, Printer, Resolve};

/// First line of every canonical form.
pub const VERSION_TAG: &str = "pml-hash/v6";

/// What `[*]` (the builder's "every element", not JavaScript) becomes while parsing.
const EACH: &str = "__pml_each__";

/// Whether texts are parsed and printed canonically or only whitespace-collapsed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parsing {
    Full,
    /// No stack to parse on (the big-stack thread could not be started).
    Degraded,
}

/// Names JavaScript (and the agent sandbox) provides: kept as they are. One list for the
/// whole pipeline: `pml_structure::is_global`.
fn is_global(name: &str) -> bool {
    pml_structure::is_global(name)
}

/// `n1`, `d12`, `l3`, `fn2`, `call4`...: a node id of the builder's numbering.
pub(crate) fn is_node_id(name: &str) -> bool {
    ["n", "d", "c", "f", "j", "l", "fn", "call"]
        .iter()
        .any(|prefix| {
            name.strip_prefix(prefix).is_some_and(|number| {
                !number.is_empty()
                    && !number.starts_with('0')
                    && number.bytes().all(|b| b.is_ascii_digit())
            })
        })
}

/// State shared by everything printed for one structure.
struct Names<'s> {
    structure: &'s StaticStructure,
    parsing: Parsing,
    /// How deep values are printed (unbounded unless degraded: then on a small stack).
    budget: usize,
    /// Free names nothing resolves, numbered `_v0, _v1...` in order of first appearance.
    unknown: HashMap<String, usize>,
    /// Normalised reference and condition texts.
    cache: HashMap<&'s str, String>,
}

/// How a free name is resolved, by the kind of text being printed.
enum Mode<'s, 'a> {
    /// Reference expressions and conditions: bound names are already node ids.
    Expr,
    /// Code of a `code:*` task or a loop: its free names are the keys of its arguments.
    Code {
        arguments: Option<&'s Arguments>,
        used: &'a mut Vec<bool>,
    },
}

struct Resolver<'n, 's, 'a> {
    names: &'n mut Names<'s>,
    mode: Mode<'s, 'a>,
}

impl<'s> Resolve for Resolver<'_, 's, '_> {
    fn free(&mut self, name: &str, out: &mut String) {
        if name == EACH {
            out.push_str(EACH);
            return;
        }
        match &mut self.mode {
            Mode::Expr => {
                if is_node_id(name) || is_global(name) {
                    out.push_str(name);
                    return;
                }
            }
            Mode::Code { arguments, used } => {
                if let Some((i, _, value)) = arguments.and_then(|a| a.get_full(name)) {
                    used[i] = true;
                    self.names.inline_value(value, out);
                    return;
                }
            }
        }
        if let Some(value) = self.names.structure.literal_bindings.get(name) {
            inline_literal(value, self.names.budget, out);
            return;
        }
        if is_global(name) {
            out.push_str(name);
            return;
        }
        let next = self.names.unknown.len();
        let k = *self.names.unknown.entry(name.to_string()).or_insert(next);
        let _ = write!(out, "_v{k}");
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

/// A JSON value in the printer's JavaScript syntax (`{a: 1, "b-c": [true, null]}`), object
/// keys in their order or sorted.
pub(crate) fn js_value(value: &Value, sort_keys: bool, budget: usize, out: &mut String) {
    if budget == 0 {
        out.push_str("<deep>");
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                print::fmt_number(n.as_f64().unwrap_or(f64::NAN), out);
            }
        }
        Value::String(s) => quote_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                js_value(item, sort_keys, budget - 1, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                key_text(k, out);
                out.push_str(": ");
                js_value(v, sort_keys, budget - 1, out);
            }
            out.push('}');
        }
    }
}

/// Where an object member is printed: inside code, or in an argument value.
#[derive(Clone, Copy)]
enum Printed {
    Code,
    Value,
}

fn key_text(key: &str, out: &mut String) {
    if is_ident_name(key) {
        out.push_str(key);
    } else {
        quote_str(key, out);
    }
}

impl<'s> Names<'s> {
    /// A reference expression or condition, normalised (cached per text).
    fn expr_text(&mut self, text: &'s str) -> Cow<'s, str> {
        if is_simple_path(text) {
            let root_end = text.find(['.', '[']).unwrap_or(text.len());
            let root = &text[..root_end];
            if is_node_id(root) || root == "args" {
                return Cow::Borrowed(text);
            }
        }
        if let Some(done) = self.cache.get(text) {
            return Cow::Owned(done.clone());
        }
        let done = self.normalise_expr(text);
        self.cache.insert(text, done.clone());
        Cow::Owned(done)
    }

    fn normalise_expr(&mut self, text: &str) -> String {
        if self.parsing == Parsing::Full {
            let replaced;
            let source = if text.contains("[*]") {
                replaced = text.replace("[*]", &format!("[{EACH}]"));
                replaced.as_str()
            } else {
                text
            };
            if let Some((src, e)) = parse::parse_expression(&[source]) {
                let resolver = Resolver {
                    names: self,
                    mode: Mode::Expr,
                };
                let mut p = Printer::new(&src, resolver);
                p.expr(&e, 1);
                let out = p.out;
                drop(e);
                return if out.contains(EACH) {
                    out.replace(&format!("[{EACH}]"), "[*]")
                } else {
                    out
                };
            }
        }
        let mut out = String::new();
        print::collapse_whitespace(text, &mut out);
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
                let text = self.expr_text(&c.expression);
                match printed {
                    Printed::Code => out.push_str(&text),
                    Printed::Value => quote_str(&text, out),
                }
                out.push_str("]: ");
            }
        }
    }

    /// An argument value where the code of a `code:*` task reads the variable holding it.
    fn inline_value(&mut self, value: &'s ArgumentValue, out: &mut String) {
        match value {
            ArgumentValue::Literal { value, .. } => inline_literal(value, self.budget, out),
            ArgumentValue::Reference { expression, .. } => {
                let text = self.expr_text(expression);
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

    /// Append the code of a `code:*` task with its arguments substituted; the arguments it does
    /// not read come back (they are listed separately).
    fn task_code(
        &mut self,
        code: &str,
        arguments: Option<&'s Arguments>,
        out: &mut String,
    ) -> Vec<&'s ArgumentValue> {
        let mut used = vec![false; arguments.map_or(0, |a| a.len())];
        let mut printed = false;
        if self.parsing == Parsing::Full {
            let chain_link = arguments.is_some_and(|a| a.contains_key("$receiver"));
            let parsed = if chain_link {
                parse::parse_expression(&["$receiver.", code])
                    .or_else(|| parse::parse_expression(&[code]))
            } else {
                parse::parse_expression(&[code])
            };
            if let Some((src, e)) = parsed {
                let resolver = Resolver {
                    names: self,
                    mode: Mode::Code {
                        arguments,
                        used: &mut used,
                    },
                };
                let mut p = Printer::with_buffer(&src, resolver, std::mem::take(out));
                p.expr(&e, 1);
                *out = p.into_buffer();
                printed = true;
            }
        }
        if !printed {
            print::collapse_whitespace(code, out);
        }
        unused(arguments, &used)
    }

    /// Append loop code (a program) normalised, its free names resolved through `arguments`;
    /// the arguments it does not read come back.
    fn loop_code(
        &mut self,
        code: &str,
        arguments: Option<&'s Arguments>,
        out: &mut String,
    ) -> Vec<&'s ArgumentValue> {
        let mut used = vec![false; arguments.map_or(0, |a| a.len())];
        let mut printed = false;
        if self.parsing == Parsing::Full {
            let (src, body) = parse::parse_program(code);
            if let Ok(body) = body {
                let resolver = Resolver {
                    names: self,
                    mode: Mode::Code {
                        arguments,
                        used: &mut used,
                    },
                };
                let mut p = Printer::with_buffer(&src, resolver, std::mem::take(out));
                p.program(&body);
                *out = p.into_buffer();
                printed = true;
            }
        }
        if !printed {
            print::collapse_whitespace(code, out);
        }
        unused(arguments, &used)
    }

    /// Append the code of a local function: one printing for its declaration, arrow and
    /// method forms (see `Printer::function_code`); other code as loop code is.
    fn function_code(&mut self, code: &str, out: &mut String) -> Vec<&'s ArgumentValue> {
        if self.parsing == Parsing::Full {
            // A declaration or an arrow reads as a statement; `function (a) {...}` only as an
            // expression.
            let parsed = match parse::parse_program(code) {
                (src, Ok(body)) => Some((src, Ok(body))),
                _ => parse::parse_expression(&[code]).map(|(src, e)| (src, Err(e))),
            };
            if let Some((src, tree)) = parsed {
                let mut used = Vec::new();
                let resolver = Resolver {
                    names: self,
                    mode: Mode::Code {
                        arguments: None,
                        used: &mut used,
                    },
                };
                let mut p = Printer::with_buffer(&src, resolver, std::mem::take(out));
                // Prints nothing when it is not one function.
                let printed = match &tree {
                    Ok(body) => p.function_code(body),
                    Err(e) => p.function_expr(e),
                };
                *out = p.into_buffer();
                drop(tree);
                if printed {
                    return Vec::new();
                }
            }
        }
        self.loop_code(code, None, out)
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
            ArgumentValue::Reference { expression, .. } => {
                out.push_str("ref ");
                let text = self.expr_text(expression);
                if depth == 0 {
                    out.push_str(&text);
                } else {
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

    fn node(&mut self, n: &'s Node, out: &mut String) {
        out.push_str("node ");
        push_id(&n.id, out);
        out.push(' ');
        out.push_str(kind_name(n.kind));
        out.push('\n');
        if let Some(scope) = &n.scope {
            out.push_str("  scope ");
            match scope {
                Scope::Decision { id, outcome } => {
                    out.push_str("decision ");
                    push_id(id, out);
                    out.push(' ');
                    quote_str(outcome, out);
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
            let text = self.expr_text(c);
            out.push_str(&text);
            out.push('\n');
        }
        if !n.outcomes.is_empty() {
            // A switch's cases, empty ones included: they decide which case a value takes.
            out.push_str("  outcomes");
            for o in &n.outcomes {
                out.push(' ');
                quote_str(o, out);
            }
            out.push('\n');
        }
        if let Some(code) = &n.code {
            // Code of a `code:*` task (an expression) or of a loop (a statement). The keys of the
            // arguments are the program's variable names: only the values count, and those the
            // code reads are substituted into it.
            out.push_str("  code ");
            let unused = if n.kind == NodeKind::Task && n.is_code() {
                self.task_code(code, n.arguments.as_ref(), out)
            } else if n.kind == NodeKind::Function {
                self.function_code(code, out)
            } else {
                self.loop_code(code, n.arguments.as_ref(), out)
            };
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
                    let text = self.expr_text(&c.expression);
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

/// Edges in canonical order: by `from`, `to`, type, outcome, coverage (as strings; absent first).
fn sorted_edges(edges: &[Edge]) -> Vec<&Edge> {
    let mut sorted: Vec<&Edge> = edges.iter().collect();
    sorted.sort_by(|a, b| edge_key(a).cmp(&edge_key(b)));
    sorted
}

type EdgeKey<'e> = (
    &'e str,
    &'e str,
    &'static str,
    Option<&'e str>,
    Option<&'static str>,
);

fn edge_key(e: &Edge) -> EdgeKey<'_> {
    (
        &e.from,
        &e.to,
        edge_kind_name(e.kind),
        e.outcome.as_deref(),
        e.coverage.map(coverage_name),
    )
}

fn edge_line(e: &Edge, out: &mut String) {
    out.push_str("edge ");
    push_id(&e.from, out);
    out.push(' ');
    push_id(&e.to, out);
    out.push(' ');
    out.push_str(edge_kind_name(e.kind));
    if let Some(o) = &e.outcome {
        out.push_str(" outcome ");
        quote_str(o, out);
    }
    if let Some(c) = e.coverage {
        out.push_str(" coverage ");
        out.push_str(coverage_name(c));
    }
    out.push('\n');
}

/// The canonical form (see `docs/hash.md`).
pub(crate) fn canonical_form(structure: &StaticStructure, parsing: Parsing) -> String {
    let mut names = Names {
        structure,
        parsing,
        budget: match parsing {
            Parsing::Full => usize::MAX,
            Parsing::Degraded => 64,
        },
        unknown: HashMap::default(),
        cache: HashMap::default(),
    };
    let mut out = String::with_capacity(64 + structure.nodes.len() * 160);
    out.push_str(VERSION_TAG);
    out.push('\n');
    for n in &structure.nodes {
        names.node(n, &mut out);
    }
    if let Some(result) = &structure.result {
        out.push_str("result ");
        names.arg_value(result, 0, &mut out);
        out.push('\n');
    }
    for e in sorted_edges(&structure.edges) {
        edge_line(e, &mut out);
    }
    out
}
