//! The walk from SWC's syntax tree to the static structure.
//!
//! One pass over the statements in evaluation order. Control flow is tracked with a *frontier*:
//! the nodes (with the decision outcome, if any) that the next node must follow. A new node gets
//! one edge from every pending entry and becomes the frontier. Branches start from their decision,
//! and re-join by merging their frontiers; `return`/`throw`/`break`/`continue` end a path.

use std::sync::mpsc::Receiver;

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use indexmap::IndexMap;
use serde_json::Value;
use swc_common::{Span as SwcSpan, Spanned};
use swc_ecma_ast::{
    ArrowExpr, ArrowFunctionBody, BinaryOp, CallExpr, Callee, Decl, Expr, ExprOrSpread, ForHead,
    Lit, MemberExpr, MemberProp, ObjectPatProp, Pat, Prop, PropOrSpread, Stmt, VarDeclKind,
    VarDeclOrExpr,
};

use crate::diagnostics;
use crate::fold::{self, Env, JsValue};
use crate::instrument::{Body, Instrumented, ProbeKind, Recorder, Site, Taken};
use crate::model::{
    path_root, ArgumentValue, Arguments, Canonical, ComputedKey, Diagnostic, Edge, EdgeKind, Key,
    Leaves, LoopKind, Node, NodeCanonical, NodeKind, Scope, Severity, Span, StaticStructure,
};
use crate::mutations;
use crate::parse::LineIndex;
use crate::rewrite::{
    self, contains_agent_call, free_variables, free_variables_at, CodeOf, FunctionOf, LoopOf,
};

mod expressions;
mod functions;
mod statements;

/// What a name is bound to at some point of the program.
#[derive(Debug, Clone)]
pub(crate) enum Binding {
    /// The result of a node, or a path into it: `n1`, `n1.content`, `j1[0]`.
    Node(String),
    /// A value known statically (a `const` literal, or an unrolled `map` element).
    Literal(JsValue),
    /// The parameter of an unrolled `map` callback: one element of a literal array.
    Element(JsValue),
    /// The element parameter of a `map` over a collection whose items are not known: `n1[*]`,
    /// and the names the collection's expression reads.
    Template(Written),
    /// Declared here, value unknown (a `let`, a parameter, a loop variable): hides outer bindings.
    Opaque,
    /// A local function: the id of its node.
    Function(String),
    /// The `mcp` object under another name (`const m = mcp`).
    Mcp,
    /// One of its servers (`const fs = mcp.filesystem`, `const { filesystem } = mcp`).
    McpServer(String),
    /// One of its tools (`const read = mcp.filesystem.read_text_file`).
    McpTool(String, String),
    /// A `const` whose value is an expression the builder models but that is no node's result
    /// (a template, a parameter, an operator over results and constants...): the expression,
    /// with bound names replaced (parenthesised unless it is one operand), and the parameter
    /// when it is one (`const dir = args.root`).
    Expr {
        value: Written,
        param: Option<String>,
    },
}

/// An expression as the structure writes it: its text with bound names replaced by the node
/// results they hold, the names it reads, and its canonical printing (`None`: the text is a
/// path the builder wrote, its own canonical printing).
#[derive(Debug, Clone)]
pub(crate) struct Written {
    pub(crate) text: String,
    pub(crate) reads: Vec<String>,
    pub(crate) canonical: Option<Box<Canonical>>,
    /// How tight the text binds: looser than a member access, it is parenthesised before a
    /// member or `[*]` is appended (`(n1.items || [])[*]`).
    pub(crate) prec: u8,
    /// Where the text stands for each element of a collection (its `[*]` marks).
    pub(crate) leaves: Leaves,
}

impl Written {
    /// A path the builder wrote (`n1.content`), reading its root.
    pub(crate) fn path(path: String) -> Self {
        let reads = vec![path_root(&path).to_owned()];
        Written {
            leaves: Leaves::of_path(&path),
            text: path,
            reads,
            canonical: None,
            prec: crate::canon::PRIMARY,
        }
    }

    /// The text as the object of a member access, and its marks there.
    fn object(&self) -> (std::borrow::Cow<'_, str>, Leaves) {
        match self.prec < crate::canon::CALL {
            true => (
                std::borrow::Cow::Owned(concat(&["(", &self.text, ")"])),
                self.leaves.shifted(1),
            ),
            false => (std::borrow::Cow::Borrowed(&self.text), self.leaves.clone()),
        }
    }

    /// The text in parentheses (it then binds as one operand).
    pub(crate) fn parenthesise(&mut self) {
        self.text = concat(&["(", &self.text, ")"]);
        self.leaves = self.leaves.shifted(1);
        self.prec = crate::canon::PRIMARY;
    }

    /// A reference to what it computes.
    pub(crate) fn reference(&self) -> ArgumentValue {
        ArgumentValue::reference_printed(
            self.text.clone(),
            self.reads.clone(),
            self.canonical.clone(),
            self.leaves.clone(),
        )
    }

    /// Its member `key` (`[0]`, `name`, `"a-b"`): see [`member_path`].
    pub(crate) fn member(&self, key: &str) -> Self {
        let (object, leaves) = self.object();
        Written {
            text: member_path(&object, key),
            reads: self.reads.clone(),
            canonical: self.canonical.as_ref().map(|c| Box::new(c.member(key))),
            prec: crate::canon::CALL,
            leaves,
        }
    }

    /// Each of its elements: the mark `[*]` after it.
    pub(crate) fn each(&self) -> Self {
        let (object, mut leaves) = self.object();
        leaves.push_element(object.len());
        Written {
            text: concat(&[&object, Leaves::MARK]),
            reads: self.reads.clone(),
            canonical: (self.canonical.as_ref()).map(|c| Box::new(c.member(Leaves::MARK))),
            prec: crate::canon::CALL,
            leaves,
        }
    }
}

/// How tight the text [`rewrite::rewrite`] writes for `e` binds: a node's result is a path; a
/// name standing for an expression binds as that expression's text.
fn written_prec(b: &Builder<'_>, e: &Expr) -> u8 {
    let span = e.span();
    if b.node_spans.contains_key(&(span.lo.0, span.hi.0)) {
        return crate::canon::PRIMARY;
    }
    match crate::canon::strip(e) {
        // Parentheses the program wrote are in the text.
        _ if matches!(e, Expr::Paren(_)) => crate::canon::PRIMARY,
        // So is a type assertion (TypeScript built as it is), which binds loosely.
        _ if has_type_assertion(e) => crate::canon::SEQ,
        Expr::Ident(id) => match b.lookup(&id.sym) {
            Some(Binding::Template(v) | Binding::Expr { value: v, .. }) => v.prec,
            _ => crate::canon::PRIMARY,
        },
        inner => crate::canon::prec_of(inner),
    }
}

/// Whether `e` is, under its parentheses, a TypeScript `as`/`satisfies`/`<T>` assertion: its
/// text keeps the assertion, which binds looser than a member access.
pub(crate) fn has_type_assertion(mut e: &Expr) -> bool {
    loop {
        e = match e {
            Expr::Paren(p) => &p.expr,
            Expr::TsNonNull(t) => &t.expr,
            Expr::TsAs(_)
            | Expr::TsSatisfies(_)
            | Expr::TsTypeAssertion(_)
            | Expr::TsConstAssertion(_) => return true,
            _ => return false,
        }
    }
}

/// Where an expression sits, which decides which operations become nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// The whole right-hand side of a statement (`const x = ...`, `return ...`, `x = ...`,
    /// an expression statement): code operations and statement-level operators become nodes.
    Statement,
    /// An argument value of an MCP call or an element of `Promise.all`: code operations become
    /// nodes (so the call's arguments are references to results), operators stay expressions.
    Argument,
    /// Anywhere else (conditions, operands, callbacks' surroundings): only MCP and capability
    /// calls become nodes; code is part of the enclosing expression.
    Nested,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Pending {
    from: String,
    outcome: Option<String>,
}

/// Adds to `frontier` the paths of `more` it does not hold yet. Paths meet without a node
/// between them (a `try` whose block and handler make none reaches what follows by both):
/// kept twice, each such statement would double the frontier.
fn merge(frontier: &mut Vec<Pending>, more: impl IntoIterator<Item = Pending>) {
    frontier.extend(more);
    dedup_paths(frontier);
}

/// Keeps the first of the paths `frontier` holds more than once. Sorting keeps this
/// O(k log k) for long frontiers (a join of many branches; paths that skip nodes, which every
/// `try` in a row keeps).
fn dedup_paths(frontier: &mut Vec<Pending>) {
    if frontier.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..frontier.len()).collect();
    order.sort_by(|&a, &b| frontier[a].cmp(&frontier[b]).then(a.cmp(&b)));
    let mut keep = vec![true; frontier.len()];
    for w in order.windows(2) {
        if frontier[w[0]] == frontier[w[1]] {
            keep[w[1]] = false;
        }
    }
    let mut k = keep.into_iter();
    frontier.retain(|_| k.next().unwrap_or(true));
}

/// What evaluating an expression produced.
#[derive(Debug, Clone, Default)]
struct Out {
    /// The expression's value is (a path into) this node's result.
    value: Option<String>,
    /// For array literals and `Promise.all`: the value of each element.
    elements: Option<Vec<Option<String>>>,
}

impl Out {
    fn value(value: String) -> Self {
        Out {
            value: Some(value),
            elements: None,
        }
    }
}

/// Where a `break` goes: loops absorb their breaks (what follows a loop follows the loop node);
/// a switch or a labelled block collects the paths that leave it.
struct BreakTarget {
    label: Option<String>,
    /// True for loops and switches (the targets of an unlabelled `break`).
    breakable: bool,
    exits: Option<Vec<Pending>>,
    /// How many `break`s reached this target (a break at the very start has no pending edge
    /// but still leads out).
    taken: usize,
}

/// A point to roll back to (used for forks that turn out to hold nothing).
struct Checkpoint {
    nodes: usize,
    edges: usize,
    counters: [usize; 8],
    frontier: Vec<Pending>,
    effects: usize,
}

pub(crate) struct Builder<'a> {
    pub(crate) src: &'a str,
    /// Subtract from a `BytePos` to get an offset into `src`.
    pub(crate) base: u32,
    lines: &'a LineIndex,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    counters: [usize; 8],
    frontier: Vec<Pending>,
    /// False after `return`/`throw`/`break`/`continue` until paths merge again.
    live: bool,
    /// The value of the program's own `return` statement (a direct statement of the program).
    result: Option<ArgumentValue>,
    result_span: Option<Span>,
    scopes: Vec<Scope>,
    /// Lexical environment: each name's stack of bindings (innermost last), and per scope the
    /// names it declared, so entering/leaving a scope and looking up a name are O(1) whatever
    /// the nesting depth.
    env: HashMap<String, Vec<(usize, Binding)>>,
    env_scopes: Vec<Vec<String>>,
    /// Names whose value is changed after declaration (`x.push(..)`, `x.a = ..`): never folded.
    mutated: Mutated,
    /// Spans (lo, hi) of expressions whose value is a node's result, for rewriting.
    pub(crate) node_spans: HashMap<(u32, u32), String>,
    /// Whether the texts get their canonical printings (see [`crate::BuildOptions::no_hash`]).
    pub(crate) printing: bool,
    /// Sub-expression span -> whether it calls a tool (see `calls_tools`).
    agent_call_memo: HashMap<(u32, u32), bool>,
    /// Frontiers collected at `break` for each enclosing switch (None for loops).
    breaks: Vec<BreakTarget>,
    variable_bindings: IndexMap<String, String>,
    literal_bindings: IndexMap<String, Value>,
    diagnostics: Vec<Diagnostic>,
    /// Where each node sits, for the instrumented program (off unless asked for).
    probes: Recorder,
    /// The loop nodes (indices) whose statements are being walked, innermost last.
    loops: Vec<usize>,
    /// Spans (lo, hi) of expressions directly under `await`.
    awaited: FxHashSet<(u32, u32)>,
    /// Names that call tools when called: local functions that do, aliases of `mcp`.
    agents: rewrite::AgentNames,
    /// Function declarations hoisted to the start of their block: span (lo, hi) -> node index.
    hoisted: HashMap<(u32, u32), usize>,
    /// Local functions by id: the names the program binds them to.
    named_functions: HashMap<String, Vec<String>>,
    /// The generator functions' nodes (by index): their bodies run when their iterators are
    /// consumed, where the structure does not say.
    generators: rustc_hash::FxHashSet<usize>,
    /// Statements the walk did not reach (`(lo, hi)` of each run of them): no path runs them.
    unreached: Vec<(u32, u32)>,
    /// The function nodes (indices) whose bodies are being walked, innermost last.
    functions: Vec<usize>,
    /// Nodes whose result may be changed in place (ids, see [`Node::changed`]): set in
    /// `finish`.
    changed_nodes: FxHashSet<String>,
    /// Local functions (node ids) that change a parameter in place (through an alias of it,
    /// or by passing it to one that does, too).
    param_changers: rustc_hash::FxHashSet<String>,
    /// Each local function's parameter names (node id -> names its patterns declare).
    function_params: rustc_hash::FxHashMap<String, Vec<String>>,
    /// Spans of expressions whose value is a node's result, in the order they were walked: an
    /// operation takes those among its operands (see [`Builder::code_node`]).
    results: Vec<(u32, u32)>,
    /// `try` blocks and `catch` handlers being walked (their nodes are [`Node::guarded`]).
    guarded: usize,
    /// How many paths ended so far (`return`, `throw`, `break`, `continue`).
    ends: usize,
    /// Statements that made no node, printed (see [`crate::Effect`]; only when printing).
    effects: Vec<crate::Effect>,
    /// The bytes of program text the function and loop nodes may still copy (each holds its
    /// whole text: nested `n` deep, a text is copied `n` times), and where the walk stopped
    /// when they ran out (the structure is then refused: see [`Builder::copies`]).
    copy_budget: usize,
    too_deep: Option<SwcSpan>,
}

/// The text function and loop nodes may copy, in multiples of the program's own size (plus
/// [`COPY_SLACK`]): a program whose functions and loops nest 32 deep around the whole of it.
/// Real programs copy a few times their size; `function f(){` nested 10,000 deep in 140 KB
/// copied 700 MB.
const COPY_FACTOR: usize = 32;
const COPY_SLACK: usize = 1 << 20;

impl Env for Builder<'_> {
    fn literal(&self, name: &str) -> Option<JsValue> {
        match self.lookup(name)? {
            Binding::Literal(v) | Binding::Element(v) => Some(v.clone()),
            _ => None,
        }
    }
}

/// Names the program changes in place (a constant bound to one is not folded) or assigns
/// again (a `let` assigned again is not bound to its initializer).
enum Mutated {
    /// Not computed yet: [`Builder::program`] computes them.
    Unknown,
    /// Being computed on another thread.
    Coming(Receiver<mutations::Mutations>),
    Known(Box<mutations::Mutations>),
}

impl<'a> Builder<'a> {
    pub(crate) fn new(src: &'a str, base: u32, lines: &'a LineIndex) -> Self {
        // Agent code runs at about one node (and one edge, one remembered span) per 100 bytes
        // (the benchmark program: 95 per node, 80 per edge). Sized up front with room to spare,
        // large programs skip the regrowth copies of these big tables.
        let expected = src.len() / 64;
        Builder {
            src,
            base,
            lines,
            nodes: Vec::with_capacity(expected),
            edges: Vec::with_capacity(expected),
            counters: [0; 8],
            frontier: Vec::new(),
            live: true,
            result: None,
            result_span: None,
            scopes: Vec::new(),
            // One name per ~250 bytes of agent code (the benchmark program: ~1,400 at 1x).
            env: HashMap::with_capacity_and_hasher(src.len() / 256, Default::default()),
            env_scopes: vec![Vec::new()],
            mutated: Mutated::Unknown,
            node_spans: HashMap::with_capacity_and_hasher(expected, Default::default()),
            printing: true,
            breaks: Vec::new(),
            agent_call_memo: HashMap::default(),
            variable_bindings: IndexMap::new(),
            literal_bindings: IndexMap::new(),
            diagnostics: Vec::new(),
            probes: Recorder::new(false),
            loops: Vec::new(),
            awaited: FxHashSet::default(),
            agents: rewrite::AgentNames::default(),
            hoisted: HashMap::default(),
            named_functions: HashMap::default(),
            generators: Default::default(),
            unreached: Vec::new(),
            functions: Vec::new(),
            param_changers: Default::default(),
            changed_nodes: FxHashSet::default(),
            function_params: Default::default(),
            results: Vec::new(),
            guarded: 0,
            ends: 0,
            effects: Vec::new(),
            copy_budget: COPY_FACTOR
                .saturating_mul(src.len())
                .saturating_add(COPY_SLACK),
            too_deep: None,
        }
    }

    /// Also record where each node sits, for [`Builder::finish_instrumented`].
    pub(crate) fn instrument(&mut self, secret: Option<u64>) {
        self.probes = Recorder::new(true);
        self.probes.secret = secret;
    }

    /// The structure and, when [`Builder::instrument`] was called, the instrumented program.
    /// Guards, in the instrumented program, the value of every object destructuring of `body`
    /// (see [`Recorder::guard`]).
    pub(crate) fn guard_destructurings(&mut self, body: &[Stmt]) {
        if self.probes.on() {
            // One walk finds them all.
            let guards = crate::culprit::guards(body);
            for (span, words) in guards.values {
                let value = self.offsets(span);
                self.probes.guard(value, &words);
            }
            for (span, key) in guards.searches {
                let object = self.offsets(span);
                self.probes.guard_in(object, &key);
            }
            for span in guards.spreads {
                let value = self.offsets(span);
                self.probes.spread(value);
            }
            for (end, kind, key) in guards.nested {
                let (end, _) = self.offsets(swc_common::Span::new(
                    swc_common::BytePos(end),
                    swc_common::BytePos(end),
                ));
                self.probes.guard_nested(end, kind, &key);
            }
        }
    }

    /// Sets [`crate::Node::escapes_from`] on the functions whose calls the structure does not
    /// all model: those bound to no name (methods, callbacks) or to one the program reads as
    /// a value, and generators (their bodies run as their iterators are consumed).
    fn mark_escaping_functions(&mut self) {
        if self.mutations().is_none() {
            return;
        }
        let Mutated::Known(m) = &self.mutated else {
            return;
        };
        let values = &m.values;
        let read_as_value = |name: &str| values.contains(&swc_atoms::Atom::from(name));
        let named = &self.named_functions;
        let generators = &self.generators;
        let escaping: Vec<usize> = (self.nodes.iter().enumerate())
            .filter(|(_, n)| n.kind == NodeKind::Function)
            .filter(|(i, n)| match named.get(&n.id) {
                _ if generators.contains(i) => true,
                Some(names) => names.iter().any(|name| read_as_value(name)),
                None => true,
            })
            .map(|(i, _)| i)
            .collect();
        if escaping.is_empty() {
            return;
        }
        let hoisted: rustc_hash::FxHashSet<usize> = self.hoisted.values().copied().collect();
        let at: HashMap<&str, usize> = (self.nodes.iter().enumerate())
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let mut from = Vec::with_capacity(escaping.len());
        for &i in &escaping {
            let node = &self.nodes[i];
            let mut start = if hoisted.contains(&i) {
                0
            } else {
                node.span.start
            };
            let mut scope = node.scope.as_ref();
            for _ in 0..self.nodes.len() {
                let Some(s) = scope else { break };
                match s {
                    Scope::Function { .. } => {
                        start = 0;
                        break;
                    }
                    Scope::Loop { id } => {
                        if let Some(&l) = at.get(id.as_str()) {
                            start = start.min(self.nodes[l].span.start);
                        }
                    }
                    _ => {}
                }
                scope = at.get(s.id()).and_then(|&j| self.nodes[j].scope.as_ref());
            }
            from.push(start);
        }
        for (i, start) in escaping.into_iter().zip(from) {
            self.nodes[i].escapes_from = Some(start);
        }
    }

    pub(crate) fn finish_instrumented(mut self) -> (StaticStructure, Option<Instrumented>) {
        let probes = std::mem::take(&mut self.probes);
        let ids: Vec<&str> = self.nodes.iter().map(|n| n.id.as_str()).collect();
        let instrumented = probes.finish(self.src, &ids);
        (self.finish(), instrumented)
    }

    /// Whether a function or loop node may copy the text at `span`; when the budget runs out
    /// the walk stops there, and the structure is refused (`too-deep`).
    pub(super) fn copies(&mut self, span: SwcSpan) -> bool {
        if self.too_deep.is_some() {
            return false;
        }
        let len = span.hi.0.saturating_sub(span.lo.0) as usize;
        match self.copy_budget.checked_sub(len) {
            Some(left) => {
                self.copy_budget = left;
                true
            }
            None => {
                self.too_deep = Some(span);
                false
            }
        }
    }

    pub(crate) fn finish(mut self) -> StaticStructure {
        if let Some(span) = self.too_deep {
            let at = self.span(span);
            let message = format!(
                "functions and loops nest so deep that their texts would be more than {COPY_FACTOR} times the program's; refusing to analyse"
            );
            return StaticStructure {
                diagnostics: vec![Diagnostic::at(
                    Severity::Error,
                    diagnostics::TOO_DEEP,
                    message,
                    (at.line, at.column),
                )],
                ..Default::default()
            };
        }
        // `mcp` used as a value where the walk did not see it (a class's constructor).
        if let Some(span) = self.mutations().and_then(|m| m.mcp_value) {
            let at = self.span(span);
            let told = (self.diagnostics.iter()).any(|d| {
                d.code == diagnostics::UNANALYSED_CODE
                    && (d.span.as_ref()).is_some_and(|s| s.start <= at.start && at.end <= s.end)
            });
            if !told {
                self.tools_out_of_sight(span);
            }
        }
        self.mark_escaping_functions();
        // A function that passes its parameter to one that changes it changes it too.
        loop {
            let mut grew: Vec<String> = Vec::new();
            for c in self.nodes.iter().filter(|c| c.kind == NodeKind::Call) {
                let changer =
                    (c.function.as_ref()).is_some_and(|f| self.param_changers.contains(f));
                let Some(outer) = self.function_around(c) else {
                    continue;
                };
                if !changer
                    || self.param_changers.contains(outer)
                    || grew.iter().any(|g| g == outer)
                {
                    continue;
                }
                let params = self.function_params.get(outer);
                let passes = (c.arguments.iter().flat_map(|a| a.values()))
                    .flat_map(|a| a.reads())
                    .any(|r| params.is_some_and(|p| p.iter().any(|p| p == r)));
                if passes {
                    grew.push(outer.to_owned());
                }
            }
            if grew.is_empty() {
                break;
            }
            self.param_changers.extend(grew);
        }
        // Calls of tools the walk made no node for (in a computed key, a `for` initializer, a
        // pattern's default): they run as written, traced under no node, and speculation must
        // not start reads around them (the servers would receive calls out of the program's
        // order).
        let tool_calls = (self.mutations()).map_or_else(Vec::new, |m| m.tool_calls.clone());
        if !tool_calls.is_empty() {
            let made: rustc_hash::FxHashSet<(usize, usize)> = (self.nodes.iter())
                .filter(|n| n.tool.is_some())
                .map(|n| (n.span.start, n.span.end))
                .collect();
            let within = |(lo, hi): (u32, u32), (from, to): (u32, u32)| from <= lo && hi <= to;
            for (lo, hi) in tool_calls {
                let span = SwcSpan::new(swc_common::BytePos(lo), swc_common::BytePos(hi));
                let at = self.offsets(span);
                // Never made; or said already (a class's field, a computed name).
                let unreached = self.unreached.iter().any(|&r| within((lo, hi), r));
                let told = (self.diagnostics.iter()).any(|d| {
                    matches!(
                        d.code.as_str(),
                        diagnostics::UNANALYSED_CODE | diagnostics::DYNAMIC_CALL
                    ) && (d.span.as_ref()).is_some_and(|s| s.start <= at.0 && at.1 <= s.end)
                });
                if !made.contains(&at) && !unreached && !told {
                    self.warn(
                        diagnostics::UNANALYSED_CODE,
                        format!(
                            "`{}` is called where the structure does not model calls (a computed key, a `for` initializer, a pattern's default...): it runs as written, traced under no node, and nothing is read ahead of the program",
                            self.text(span)
                        ),
                        span,
                    );
                }
            }
        }
        // What a call passes to a local function that changes its parameter in place.
        let passed: Vec<String> = (self.nodes.iter())
            .filter(|c| {
                c.kind == NodeKind::Call
                    && (c.function.as_ref()).is_some_and(|f| self.param_changers.contains(f))
            })
            .flat_map(|c| c.arguments.iter().flat_map(|a| a.values()))
            .flat_map(|a| a.reads().into_iter().map(str::to_owned))
            .collect();
        for r in &passed {
            self.mark_changed(r);
        }
        if !self.changed_nodes.is_empty() {
            for node in &mut self.nodes {
                node.changed = self.changed_nodes.contains(&node.id);
            }
        }
        // The collection's own sets, moved: the walk asks nothing of it any more.
        let (mut changed, declared) = match std::mem::replace(&mut self.mutated, Mutated::Unknown) {
            Mutated::Known(m) => {
                let m = *m;
                let mut changed = m.names;
                changed.extend(m.reassigned.into_keys());
                (changed, m.declared)
            }
            Mutated::Unknown | Mutated::Coming(_) => Default::default(),
        };
        changed.extend(passed.iter().map(|r| path_root(r).to_owned()));
        StaticStructure {
            declared,
            changed,
            nodes: self.nodes,
            edges: self.edges,
            variable_bindings: self.variable_bindings,
            literal_bindings: self.literal_bindings,
            hil_required_tools: Vec::new(),
            result: self.result,
            result_span: self.result_span,
            diagnostics: self.diagnostics,
            effects: self.effects,
        }
    }

    // ----- positions and text -------------------------------------------------------------

    pub(crate) fn offsets(&self, span: SwcSpan) -> (usize, usize) {
        let lo = (span.lo.0.saturating_sub(self.base) as usize).min(self.src.len());
        let hi = (span.hi.0.saturating_sub(self.base) as usize).clamp(lo, self.src.len());
        (lo, hi)
    }

    pub(crate) fn text(&self, span: SwcSpan) -> &'a str {
        let (lo, hi) = self.offsets(span);
        self.src.get(lo..hi).unwrap_or("")
    }

    /// Records a probe for the node just added (the last one).
    fn probe(&mut self, kind: ProbeKind, site: Site) {
        let node = self.nodes.len().saturating_sub(1);
        self.probes.record(kind, node, site);
    }

    fn span(&self, span: SwcSpan) -> Span {
        let (start, end) = self.offsets(span);
        let (line, column) = self.lines.line_col(self.src, start);
        Span {
            start,
            end,
            line,
            column,
        }
    }

    fn warn(&mut self, code: &str, message: String, span: SwcSpan) {
        self.warn_with(code, message, span, Vec::new());
    }

    /// [`Self::warn`] with other places that explain it (`labels`: what each says).
    fn warn_with(
        &mut self,
        code: &str,
        message: String,
        span: SwcSpan,
        labels: Vec<(Span, String)>,
    ) {
        let span = self.span(span);
        let diagnostic = Diagnostic::spanning(Severity::Warning, code, message, span);
        let diagnostic =
            (labels.into_iter()).fold(diagnostic, |d, (at, says)| d.with_label(at, says));
        self.diagnostics.push(diagnostic);
    }

    // ----- bindings -----------------------------------------------------------------------

    pub(crate) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.env
            .get(name)
            .and_then(|stack| stack.last())
            .map(|(_, b)| b)
    }

    fn bind(&mut self, name: &str, binding: Binding) {
        if let Binding::Function(id) = &binding {
            // Called by this name: calls the structure models (unless it is read as a value).
            self.named_functions
                .entry(id.clone())
                .or_default()
                .push(name.to_owned());
        }
        let depth = self.env_scopes.len();
        let Some(scope) = self.env_scopes.last_mut() else {
            return;
        };
        let stack = match self.env.get_mut(name) {
            Some(stack) => stack,
            None => self.env.entry(name.to_string()).or_default(),
        };
        match stack.last_mut() {
            // Redeclared in the same scope: replace.
            Some((d, top)) if *d == depth => *top = binding,
            _ => {
                scope.push(name.to_string());
                stack.push((depth, binding));
            }
        }
    }

    fn push_env(&mut self) {
        self.env_scopes.push(Vec::new());
    }

    fn pop_env(&mut self) {
        if self.env_scopes.len() > 1 {
            for name in self.env_scopes.pop().unwrap_or_default() {
                if let Some(stack) = self.env.get_mut(&name) {
                    stack.pop();
                }
            }
        }
    }

    /// Bind every name a pattern declares to `Opaque`.
    fn bind_opaque(&mut self, pat: &Pat) {
        let mut names = Vec::new();
        rewrite::pattern_names(pat, &mut names);
        for name in names {
            self.bind(&name, Binding::Opaque);
        }
    }

    /// Bind a declaration pattern to a node's result (`value`), element-wise for arrays when the
    /// elements are known (`const [a, b] = await Promise.all([...])`).
    fn bind_pattern(&mut self, pat: &Pat, value: &str, elements: Option<&[Option<String>]>) {
        match pat {
            Pat::Ident(id) => {
                if self.is_mutated(&id.id.sym) {
                    self.mark_changed(value);
                }
                self.bind(&id.id.sym, Binding::Node(value.to_string()));
                self.variable_bindings
                    .insert(id.id.sym.as_str().to_owned(), value.to_string());
            }
            Pat::Array(arr) => {
                for (i, elem) in arr.elems.iter().enumerate() {
                    let Some(elem) = elem else { continue };
                    if let Pat::Rest(rest) = elem {
                        self.bind_opaque(&rest.arg);
                        continue;
                    }
                    let path = elements
                        .and_then(|els| els.get(i).cloned().flatten())
                        .unwrap_or_else(|| format!("{value}[{i}]"));
                    self.bind_pattern(elem, &path, None);
                }
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => match fold::prop_name(&kv.key) {
                            Some(key) => {
                                let path = member_path(value, &key);
                                self.bind_pattern(&kv.value, &path, None);
                            }
                            None => self.bind_opaque(&kv.value),
                        },
                        ObjectPatProp::Assign(a) => {
                            let name = a.key.id.sym.as_str().to_owned();
                            let path = member_path(value, &name);
                            if a.value.is_some() {
                                // A default value: the binding may not be the result's property.
                                self.bind(&name, Binding::Opaque);
                            } else {
                                if self.is_mutated(&name) {
                                    self.mark_changed(&path);
                                }
                                self.bind(&name, Binding::Node(path.clone()));
                                self.variable_bindings.insert(name, path);
                            }
                        }
                        ObjectPatProp::Rest(rest) => self.bind_opaque(&rest.arg),
                    }
                }
            }
            Pat::Assign(a) => self.bind_opaque(&a.left),
            other => self.bind_opaque(other),
        }
    }

    // ----- nodes and edges ----------------------------------------------------------------

    fn next_id(&mut self, kind: NodeKind) -> String {
        let slot = kind as usize;
        self.counters[slot] += 1;
        // Thousands of ids: push the digits rather than go through `format!`.
        let mut id = String::with_capacity(8);
        id.push_str(kind.prefix());
        push_decimal(&mut id, self.counters[slot]);
        id
    }

    /// Create a node after the current frontier, which it then becomes.
    fn add_node(&mut self, mut node: Node) -> String {
        node.scope = self.scopes.last().cloned();
        node.guarded = self.guarded > 0;
        let id = node.id.clone();
        let mut frontier = std::mem::take(&mut self.frontier);
        // The same path may reach this point twice (an empty case falling through): the first.
        dedup_paths(&mut frontier);
        for pending in frontier {
            self.edges.push(Edge {
                kind: if pending.outcome.is_some() {
                    EdgeKind::Conditional
                } else {
                    EdgeKind::Sequence
                },
                from: pending.from,
                to: id.clone(),
                outcome: pending.outcome,
                coverage: None,
            });
        }
        self.frontier = vec![Pending {
            from: id.clone(),
            outcome: None,
        }];
        self.live = true;
        self.nodes.push(node);
        id
    }

    fn new_node(&mut self, kind: NodeKind, span: SwcSpan) -> Node {
        let id = self.next_id(kind);
        Node::new(id, kind, self.span(span))
    }

    /// A decision node at `span` whose condition is `test`, as the structure reads it.
    fn decision(&mut self, span: SwcSpan, test: &Expr) -> String {
        let mut node = self.new_node(NodeKind::Decision, span);
        let condition = self.written(test);
        node.condition = Some(condition.text);
        node.condition_leaves = condition.leaves;
        node.reads = condition.reads;
        node.canonical = condition.canonical.map(|c| {
            Box::new(NodeCanonical {
                code: None,
                condition: Some(*c),
                ..Default::default()
            })
        });
        self.add_node(node)
    }

    /// After the branches of a decision that began at `cp` (nodes up to `after`): when they
    /// made no node and no path ended in them, the decision does not shape the structure and
    /// is taken back (`false`); else its branches' `exits` join.
    fn close_decision(
        &mut self,
        cp: Checkpoint,
        after: usize,
        ended: bool,
        exits: Vec<Pending>,
    ) -> bool {
        if self.nodes.len() == after && !ended {
            self.rollback(cp);
            self.live = true;
            return false;
        }
        self.merge(exits);
        true
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            nodes: self.nodes.len(),
            edges: self.edges.len(),
            counters: self.counters,
            frontier: self.frontier.clone(),
            effects: self.effects.len(),
        }
    }

    fn rollback(&mut self, cp: Checkpoint) {
        self.probes.rollback(cp.nodes);
        self.nodes.truncate(cp.nodes);
        self.edges.truncate(cp.edges);
        self.counters = cp.counters;
        self.frontier = cp.frontier;
        self.effects.truncate(cp.effects);
    }

    fn record_span(&mut self, span: SwcSpan, value: &str) {
        self.node_spans
            .insert((span.lo.0, span.hi.0), value.to_string());
        self.results.push((span.lo.0, span.hi.0));
    }

    // ----- rewriting ----------------------------------------------------------------------

    /// The source text of `e` with bound names replaced by the node results they hold.
    pub(crate) fn rewrite_text(&self, e: &Expr) -> String {
        rewrite::rewrite(self, e).0
    }

    /// [`Builder::rewrite_text`], the names it reads, and the canonical printing of `e` read
    /// that way (when it is not the text itself).
    pub(crate) fn written(&self, e: &Expr) -> Written {
        let (text, reads, leaves) = rewrite::rewrite(self, e);
        let canonical = match self.printing {
            true => Some(rewrite::print_reference(self, e)),
            false => None,
        };
        // A text that is its own printing and binds as tight as a member access (a path, a
        // call) needs none: what is appended to it (`.key`, `[*]`) reads as it should.
        let canonical = canonical
            .filter(|printed| {
                !(printed.holes.is_empty()
                    && printed.text == text
                    && printed.prec >= crate::canon::CALL)
            })
            .map(Box::new);
        Written {
            text,
            reads,
            canonical,
            prec: written_prec(self, e),
            leaves,
        }
    }

    /// A reference to what `e` computes.
    fn reference_to(&self, e: &Expr) -> ArgumentValue {
        self.written(e).reference()
    }

    /// A reference to a name of the program that holds no node's result (written escaped
    /// when it looks like a node id: [`crate::model::escape_name`]).
    pub(crate) fn name_reference(name: &str) -> ArgumentValue {
        let escaped = crate::model::escape_name(name).into_owned();
        let canonical = Canonical::hole(&escaped);
        ArgumentValue::reference_printed(
            escaped.clone(),
            vec![escaped],
            Some(Box::new(canonical)),
            Leaves::none(),
        )
    }
}

/// The parameter `key` of parameter `base` (`""` is `args` itself); `None` when `key` cannot
/// be one of a parameter's keys (a name's keys are joined by `.`: a key with a `.` in it, or
/// an empty one, would read as others).
fn parameter_path(base: &str, key: &str) -> Option<String> {
    if key.is_empty() || key.contains('.') {
        return None;
    }
    Some(match base {
        "" => key.to_owned(),
        _ => concat(&[base, ".", key]),
    })
}

/// Member `key` of an alias of `mcp`: a server of `mcp`, a tool of a server.
fn alias_member(base: &Binding, key: String) -> Option<Binding> {
    match base {
        Binding::Mcp => Some(Binding::McpServer(key)),
        Binding::McpServer(server) => Some(Binding::McpTool(server.clone(), key)),
        _ => None,
    }
}

/// Global functions that compute a value from their arguments and nothing else.
pub(crate) const PURE_FUNCTIONS: &[&str] = &[
    "Number",
    "String",
    "Boolean",
    "BigInt",
    "parseInt",
    "parseFloat",
    "isNaN",
    "isFinite",
    "encodeURIComponent",
    "decodeURIComponent",
    "encodeURI",
    "decodeURI",
];

/// Constructors that build a value from their arguments and nothing else.
const PURE_CONSTRUCTORS: &[&str] = &[
    "Set",
    "Map",
    "Array",
    "Object",
    "RegExp",
    "URL",
    "URLSearchParams",
    "Error",
    "TypeError",
    "RangeError",
];

/// At most 40 characters of `text`, for messages.
fn clip(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The pieces joined, in one allocation (paths and ids are built thousands of times: cheaper
/// than `format!`).
fn concat(pieces: &[&str]) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    for p in pieces {
        out.push_str(p);
    }
    out
}

/// Append `n` in decimal.
fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(d as char);
    }
}

/// `base` + `.key` (or `[0]`/`["odd key"]`): reading property `key` of `base` as JavaScript
/// source.
pub fn member_path(base: &str, key: &str) -> String {
    if key.starts_with('[') {
        return concat(&[base, key]);
    }
    let ident = !key.is_empty()
        && key
            .chars()
            .enumerate()
            .all(|(i, c)| c == '_' || c == '$' || c.is_alphabetic() || (i > 0 && c.is_numeric()));
    if ident {
        concat(&[base, ".", key])
    } else {
        format!(
            "{base}[{}]",
            serde_json::to_string(key).unwrap_or_else(|_| "\"\"".into())
        )
    }
}

/// `args.name` / `args["name"]` -> `name`; `args.options.root` -> `options.root`. A key with
/// a `.` in it (`args["a.b"]`) has no such name (it would read as `args.a.b`): the expression
/// stays a reference.
fn parameter_name(e: &Expr) -> Option<String> {
    let Expr::Member(m) = strip(e) else {
        return None;
    };
    let key = match &m.prop {
        MemberProp::Ident(name) => name.sym.as_str().to_owned(),
        MemberProp::Computed(c) => match strip(&c.expr) {
            Expr::Lit(Lit::Str(s)) => s.value.to_string_lossy().into_owned(),
            _ => return None,
        },
        MemberProp::PrivateName(_) => return None,
    };
    if key.is_empty() || key.contains('.') {
        return None;
    }
    match strip(&m.obj) {
        Expr::Ident(obj) if &*obj.sym == "args" => Some(key),
        inner @ Expr::Member(_) => Some(format!("{}.{key}", parameter_name(inner)?)),
        _ => None,
    }
}

/// Parentheses, `await` and TypeScript wrappers removed.
pub(crate) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Await(a) => strip(&a.arg),
        Expr::TsAs(x) => strip(&x.expr),
        Expr::TsNonNull(x) => strip(&x.expr),
        Expr::TsSatisfies(x) => strip(&x.expr),
        Expr::TsConstAssertion(x) => strip(&x.expr),
        Expr::TsTypeAssertion(x) => strip(&x.expr),
        other => other,
    }
}

/// Is the value of `e` produced by a call (possibly followed by member accesses)?
fn is_call_based(e: &Expr) -> bool {
    match strip(e) {
        Expr::Call(_) => true,
        Expr::Member(m) => is_call_based(&m.obj),
        _ => false,
    }
}

fn is_function(e: &Expr) -> bool {
    matches!(strip(e), Expr::Arrow(_) | Expr::Fn(_))
}

/// The syntax a code task's source text comes from.
#[derive(Clone, Copy)]
enum Code<'e> {
    Expr(&'e Expr),
    Call(&'e CallExpr),
}

/// The server or tool name of an MCP call that is computed at run time (`fs:?`).
pub const DYNAMIC_NAME: &str = "?";

pub(crate) enum CalleeKind<'e> {
    Mcp {
        server: String,
        tool: String,
    },
    Capability(String),
    /// An MCP call whose server or tool name is computed at run time: the names known
    /// statically.
    DynamicMcp {
        server: Option<String>,
        tool: Option<String>,
    },
    /// `capabilities[name](...)` with a name computed at run time.
    DynamicCapability,
    Fork,
    Static {
        tool: &'static str,
    },
    Method {
        method: &'e str,
    },
    Other,
}

/// The static name of a member property: `.name`, `["name"]`, or `[c]` for a constant `c`.
fn prop_static_name(prop: &MemberProp, b: &Builder<'_>) -> Option<String> {
    match prop {
        MemberProp::Ident(name) => Some(name.sym.as_str().to_owned()),
        MemberProp::Computed(c) => match fold::fold(&c.expr, b)? {
            JsValue::Str(s) => Some(s),
            _ => None,
        },
        MemberProp::PrivateName(_) => None,
    }
}

fn is_root(e: &Expr, name: &str, b: &Builder<'_>) -> bool {
    // A local variable named `mcp` would shadow the global proxy.
    matches!(strip(e), Expr::Ident(id) if &*id.sym == name && b.lookup(name).is_none())
}

pub(crate) fn classify_callee<'e>(callee: &'e Expr, b: &Builder<'_>) -> CalleeKind<'e> {
    // `mcp.fs.read(..)`, and the same through aliases (`fs.read(..)`, `read(..)`).
    let Expr::Member(outer) = strip(callee) else {
        return match b.mcp_alias(callee) {
            Some(Binding::McpTool(server, tool)) => CalleeKind::Mcp { server, tool },
            _ => CalleeKind::Other,
        };
    };
    match b.mcp_alias(&outer.obj) {
        Some(Binding::McpServer(server)) => {
            return match prop_static_name(&outer.prop, b) {
                Some(tool) => CalleeKind::Mcp { server, tool },
                // The tool's name is computed at run time.
                None => CalleeKind::DynamicMcp {
                    server: Some(server),
                    tool: None,
                },
            };
        }
        Some(_) => {}
        None => {
            // `mcp[server].tool(..)`: the server's name is computed at run time.
            if let Expr::Member(inner) = strip(&outer.obj) {
                if let Some(Binding::Mcp) = b.mcp_alias(&inner.obj) {
                    return CalleeKind::DynamicMcp {
                        server: None,
                        tool: prop_static_name(&outer.prop, b),
                    };
                }
            }
        }
    }
    if is_root(&outer.obj, "capabilities", b) {
        return match prop_static_name(&outer.prop, b) {
            Some(name) => CalleeKind::Capability(name),
            None => CalleeKind::DynamicCapability,
        };
    }
    let MemberProp::Ident(method) = &outer.prop else {
        return CalleeKind::Other;
    };
    if let Expr::Ident(ns) = strip(&outer.obj) {
        if b.lookup(&ns.sym).is_none() {
            if &*ns.sym == "Promise" && matches!(&*method.sym, "all" | "allSettled") {
                return CalleeKind::Fork;
            }
            if let Some(op) = pml_pure_ops::static_operation(&ns.sym, &method.sym) {
                return CalleeKind::Static { tool: op.tool };
            }
            if matches!(&*ns.sym, "Object" | "Math" | "JSON" | "Promise") {
                return CalleeKind::Other;
            }
        }
    }
    CalleeKind::Method {
        method: &method.sym,
    }
}

/// `receiver.<name>(...)`: the member expression of the callee.
pub(crate) fn method_call<'c>(call: &'c CallExpr, name: &str) -> Option<&'c MemberExpr> {
    let Callee::Expr(callee) = &call.callee else {
        return None;
    };
    let Expr::Member(m) = strip(callee) else {
        return None;
    };
    matches!(&m.prop, MemberProp::Ident(id) if &*id.sym == name).then_some(m)
}

/// `xs.map(x => mcp...)` as a fork's argument: the receiver and the callback.
fn map_with_tool_callback<'c>(
    call: &'c CallExpr,
    agents: &rewrite::AgentNames,
) -> Option<(&'c MemberExpr, ArrowOrFn<'c>)> {
    let m = method_call(call, "map")?;
    let first = call.args.first()?;
    if !contains_agent_call(&*first.expr, agents) {
        return None;
    }
    Some((m, callback(&first.expr)?))
}

pub(crate) enum CallbackBody<'e> {
    Expr(&'e Expr),
    Block(&'e [Stmt]),
}

pub(crate) struct ArrowOrFn<'e> {
    params: Vec<&'e Pat>,
    body: CallbackBody<'e>,
    /// The span of the body: an expression, or a block (`{ ... }`).
    body_span: SwcSpan,
    /// A generator (`function*`): a call makes an iterator, and the body runs as far as what
    /// consumes it asks, when it asks.
    generator: bool,
    /// A named function expression's name and function: one that reads its own name
    /// (`async function walk(d) { ... await walk(child) }`) may run more times than what it is
    /// passed to calls it ([`ArrowOrFn::calls_itself`]).
    named: Option<(&'e swc_ecma_ast::Ident, &'e swc_ecma_ast::Function)>,
}

impl ArrowOrFn<'_> {
    /// Whether it reads its own name (a named function expression that calls itself). Asked
    /// only where it matters (a callback unrolled over a literal list).
    fn calls_itself(&self) -> bool {
        self.named
            .is_some_and(|(name, f)| free_variables(f).contains(&name.sym.to_string()))
    }
}

/// A function declaration's parameters and body.
fn function_of(f: &swc_ecma_ast::Function) -> ArrowOrFn<'_> {
    ArrowOrFn {
        generator: f.is_generator,
        named: None,
        body_span: f.body.as_ref().map_or(f.span, |b| b.span),
        params: f.params.iter().map(|p| &p.pat).collect(),
        body: CallbackBody::Block(f.body.as_ref().map(|b| b.stmts.as_slice()).unwrap_or(&[])),
    }
}

fn callback(e: &Expr) -> Option<ArrowOrFn<'_>> {
    match strip(e) {
        Expr::Arrow(ArrowExpr { params, body, .. }) => Some(ArrowOrFn {
            generator: false,
            named: None,
            body_span: body.span(),
            params: params.iter().collect(),
            body: match &**body {
                ArrowFunctionBody::Expr(e) => CallbackBody::Expr(e),
                ArrowFunctionBody::FunctionBody(b) => CallbackBody::Block(&b.stmts),
            },
        }),
        Expr::Fn(f) => Some(ArrowOrFn {
            named: f.ident.as_ref().map(|name| (name, &*f.function)),
            ..function_of(&f.function)
        }),
        _ => None,
    }
}
