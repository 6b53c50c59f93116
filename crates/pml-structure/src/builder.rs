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
use crate::instrument::{Body, Instrumented, ProbeKind, Recorder, Site};
use crate::model::{
    path_root, ArgumentValue, Diagnostic, Edge, EdgeKind, LoopKind, Node, NodeKind, Scope,
    Severity, Span, StaticStructure,
};
use crate::parse::LineIndex;
use crate::rewrite::{self, contains_agent_call, free_variables, free_variables_at};

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
    Template(String, Vec<String>),
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
        text: String,
        param: Option<String>,
        reads: Vec<String>,
    },
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
    /// The function nodes (indices) whose bodies are being walked, innermost last.
    functions: Vec<usize>,
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
}

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
    Coming(Receiver<rewrite::Mutations>),
    Known(rewrite::Mutations),
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
            env: HashMap::default(),
            env_scopes: vec![Vec::new()],
            mutated: Mutated::Unknown,
            node_spans: HashMap::with_capacity_and_hasher(expected, Default::default()),
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
            functions: Vec::new(),
            param_changers: Default::default(),
            function_params: Default::default(),
            results: Vec::new(),
            guarded: 0,
            ends: 0,
        }
    }

    /// Also record where each node sits, for [`Builder::finish_instrumented`].
    pub(crate) fn instrument(&mut self, secret: Option<u64>) {
        self.probes = Recorder::new(true);
        self.probes.secret = secret;
    }

    /// The structure and, when [`Builder::instrument`] was called, the instrumented program.
    pub(crate) fn finish_instrumented(mut self) -> (StaticStructure, Option<Instrumented>) {
        let probes = std::mem::take(&mut self.probes);
        let ids: Vec<&str> = self.nodes.iter().map(|n| n.id.as_str()).collect();
        let instrumented = probes.finish(self.src, &ids);
        (self.finish(), instrumented)
    }

    pub(crate) fn finish(mut self) -> StaticStructure {
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
        // What a call passes to a local function that changes its parameter in place.
        let passed: Vec<String> = (self.nodes.iter())
            .filter(|c| {
                c.kind == NodeKind::Call
                    && (c.function.as_ref()).is_some_and(|f| self.param_changers.contains(f))
            })
            .flat_map(|c| c.arguments.iter().flat_map(|a| a.values()))
            .flat_map(|a| a.reads().into_iter().map(str::to_owned))
            .collect();
        for r in passed {
            self.mark_changed(&r);
        }
        let mut declared: Vec<String> = (self.mutations().into_iter())
            .flat_map(|m| m.declared.iter().cloned())
            .collect();
        declared.sort_unstable();
        StaticStructure {
            declared,
            nodes: self.nodes,
            edges: self.edges,
            variable_bindings: self.variable_bindings,
            literal_bindings: self.literal_bindings,
            hil_required_tools: Vec::new(),
            result: self.result,
            result_span: self.result_span,
            diagnostics: self.diagnostics,
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
        let (start, _) = self.offsets(span);
        let (line, column) = self.lines.line_col(self.src, start);
        self.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            code: code.into(),
            message,
            line,
            column,
        });
    }

    // ----- bindings -----------------------------------------------------------------------

    pub(crate) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.env
            .get(name)
            .and_then(|stack| stack.last())
            .map(|(_, b)| b)
    }

    fn bind(&mut self, name: &str, binding: Binding) {
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
        if frontier.len() > 1 {
            // The same path may reach this point twice (an empty case falling through): keep the
            // first. Sorting keeps this O(k log k) for a join of many branches.
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

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            nodes: self.nodes.len(),
            edges: self.edges.len(),
            counters: self.counters,
            frontier: self.frontier.clone(),
        }
    }

    fn rollback(&mut self, cp: Checkpoint) {
        self.probes.rollback(cp.nodes);
        self.nodes.truncate(cp.nodes);
        self.edges.truncate(cp.edges);
        self.counters = cp.counters;
        self.frontier = cp.frontier;
    }

    fn record_span(&mut self, span: SwcSpan, value: &str) {
        self.node_spans
            .insert((span.lo.0, span.hi.0), value.to_string());
        self.results.push((span.lo.0, span.hi.0));
    }

    // ----- statements ---------------------------------------------------------------------

    /// The names the program changes in place will come from another thread (which computes
    /// them with [`rewrite::mutated_names`]); the walk waits for them only when it first needs
    /// them.
    pub(crate) fn mutated_names_from(&mut self, names: Receiver<rewrite::Mutations>) {
        self.mutated = Mutated::Coming(names);
    }

    fn mutations(&mut self) -> Option<&rewrite::Mutations> {
        if let Mutated::Coming(rx) = &self.mutated {
            // A sender gone without an answer panicked: that panic ends the build anyway.
            self.mutated = Mutated::Known(rx.recv().unwrap_or_default());
        }
        match &self.mutated {
            Mutated::Known(m) => Some(m),
            Mutated::Unknown | Mutated::Coming(_) => None,
        }
    }

    /// `name` holds `value` wherever it is read. The map is by name, whatever the scope: a
    /// name the program declares more than once (`const ids` in two functions, or a `let` of
    /// the same name elsewhere) is left out, so nothing reads one where another is meant.
    fn literal_binding(&mut self, name: &str, value: Value) {
        if self
            .mutations()
            .is_some_and(|m| !m.redeclared.contains(name))
        {
            self.literal_bindings.insert(name.to_owned(), value);
        }
    }

    /// The node whose result `path` is (or is a part of: `n1.items`, `n1[0]`) may be changed in
    /// place after it is made (see [`crate::Node::changed`]).
    fn mark_changed(&mut self, path: &str) {
        let root = path.split(['.', '[']).next().unwrap_or(path);
        if let Some(node) = self.nodes.iter_mut().find(|n| n.id == root) {
            node.changed = true;
        }
    }

    /// The local function node `n` is in (innermost), if any.
    fn function_around<'s>(&'s self, n: &'s crate::Node) -> Option<&'s str> {
        let mut at = n.scope.as_ref();
        for _ in 0..self.nodes.len() {
            match at? {
                Scope::Function { id } => return Some(id.as_str()),
                scope => {
                    let id = scope.id();
                    at = self.nodes.iter().find(|m| m.id == id)?.scope.as_ref();
                }
            }
        }
        None
    }

    /// Whether the program changes in place a name `pat` declares.
    fn pattern_mutated(&mut self, pat: &Pat) -> bool {
        let mut names = Vec::new();
        rewrite::pattern_names(pat, &mut names);
        names.iter().any(|n| self.is_mutated(n))
    }

    /// Whether the program changes `name`'s value in place somewhere.
    fn is_mutated(&mut self, name: &str) -> bool {
        self.mutations().is_none_or(|m| m.names.contains(name))
    }

    /// Where the program first assigns `name` again (at 0, repeated, when that is not known).
    fn reassigned(&mut self, name: &str) -> Option<rewrite::Reassigned> {
        match self.mutations() {
            Some(m) => m.reassigned.get(name).copied(),
            None => Some(rewrite::Reassigned {
                at: 0,
                repeated: true,
            }),
        }
    }

    /// The program's top level: notes mutated names, then walks the statements.
    pub(crate) fn program(&mut self, stmts: &[Stmt]) {
        if let Mutated::Unknown = self.mutated {
            self.mutated = Mutated::Known(rewrite::mutated_names(stmts));
        }
        self.hoist(stmts);
        for stmt in stmts {
            if !self.live {
                break;
            }
            match stmt {
                // A `return` of the program itself: its value is the program's result.
                Stmt::Return(r) => {
                    self.result_span = Some(self.span(r.span));
                    self.result = Some(match &r.arg {
                        Some(arg) => {
                            self.expr(arg, Position::Statement);
                            self.classify(arg, 0)
                        }
                        None => ArgumentValue::literal(Value::Null),
                    });
                    self.end_path();
                }
                _ => self.stmt(stmt),
            }
        }
        self.unreached_functions(stmts);
    }

    pub(crate) fn stmts(&mut self, stmts: &[Stmt]) {
        self.hoist(stmts);
        for stmt in stmts {
            if !self.live {
                // Unreachable code after return/throw/break/continue.
                break;
            }
            self.stmt(stmt);
        }
        self.unreached_functions(stmts);
    }

    /// The bodies of the function declarations of `stmts` that the walk did not reach (after a
    /// `return`): hoisted, they can still be called.
    fn unreached_functions(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            if let Stmt::Decl(Decl::Fn(f)) = stmt {
                let span = f.function.span;
                if let Some(index) = self.hoisted.remove(&(span.lo.0, span.hi.0)) {
                    self.function_body(index, &function_of(&f.function), None);
                }
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt]) {
        self.push_env();
        self.stmts(stmts);
        self.pop_env();
    }

    fn stmt(&mut self, stmt: &Stmt) {
        // What a statement's expressions computed can be no later operation's operand.
        let results = self.results.len();
        self.stmt_inner(stmt);
        self.results.truncate(results);
    }

    fn stmt_inner(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Block(b) => self.block(&b.stmts),
            Stmt::Expr(e) => {
                self.expr(&e.expr, Position::Statement);
            }
            Stmt::Decl(Decl::Var(var)) => {
                for decl in &var.decls {
                    self.declarator(var.kind, &decl.name, decl.init.as_deref());
                }
            }
            Stmt::Decl(Decl::Fn(f)) => {
                let span = f.function.span;
                let index = match self.hoisted.remove(&(span.lo.0, span.hi.0)) {
                    Some(index) => index,
                    // Not in a statement list (`if (x) function f() {}`): declared here.
                    None => {
                        let index = self.declare_function(span, Some(&f.ident.sym));
                        let id = self.nodes[index].id.clone();
                        self.bind(&f.ident.sym, Binding::Function(id));
                        index
                    }
                };
                self.function_body(index, &function_of(&f.function), None);
            }
            Stmt::Decl(Decl::Class(c)) => {
                self.bind(&c.ident.sym, Binding::Opaque);
                self.class_methods(&c.class, Some(c.ident.sym.as_str()));
            }
            Stmt::Decl(_) => {}
            Stmt::Return(r) => {
                if let Some(arg) = &r.arg {
                    self.expr(arg, Position::Statement);
                }
                self.leave_loops(false);
                self.end_path();
            }
            Stmt::Throw(t) => {
                self.expr(&t.arg, Position::Nested);
                self.leave_loops(false);
                self.end_path();
            }
            Stmt::Break(b) => {
                let label = b.label.as_ref().map(|l| l.sym.as_str().to_owned());
                // Out of the innermost loop, unless the innermost `break` target is a switch;
                // with a label, possibly out of every loop around it.
                let switch = (self.breaks.iter().rev())
                    .find(|t| t.breakable)
                    .is_some_and(|t| t.exits.is_some());
                match (&label, switch) {
                    (Some(_), _) => self.leave_loops(false),
                    (None, false) => self.leave_loops(true),
                    (None, true) => {}
                }
                let target = self.breaks.iter_mut().rev().find(|t| match &label {
                    Some(l) => t.label.as_deref() == Some(l.as_str()),
                    None => t.breakable,
                });
                if let Some(t) = target {
                    t.taken += 1;
                    if let Some(exits) = &mut t.exits {
                        exits.extend(std::mem::take(&mut self.frontier));
                    }
                }
                self.end_path();
            }
            Stmt::Continue(c) => {
                if c.label.is_some() {
                    self.leave_loops(false);
                }
                self.end_path()
            }
            Stmt::If(i) => self.if_stmt(i),
            Stmt::Switch(s) => self.switch_stmt(s),
            Stmt::Labeled(l) => {
                let is_loop = matches!(
                    &*l.body,
                    Stmt::For(_)
                        | Stmt::ForIn(_)
                        | Stmt::ForOf(_)
                        | Stmt::While(_)
                        | Stmt::DoWhile(_)
                );
                self.breaks.push(BreakTarget {
                    label: Some(l.label.sym.as_str().to_owned()),
                    breakable: false,
                    // `break label` out of a loop continues after the loop node.
                    exits: (!is_loop).then(Vec::new),
                    taken: 0,
                });
                self.stmt(&l.body);
                let target = self.breaks.pop();
                let taken = target.as_ref().map_or(0, |t| t.taken);
                let exits = target.and_then(|t| t.exits).unwrap_or_default();
                if taken > 0 && !is_loop {
                    if self.live {
                        exits.into_iter().for_each(|p| self.frontier.push(p));
                    } else {
                        self.frontier = exits;
                    }
                    self.live = true;
                }
            }
            Stmt::Try(t) => self.try_stmt(t),
            Stmt::ForOf(f) => {
                let out = self.expr(&f.right, Position::Nested);
                let header = self.rewrite_reading(&f.right);
                let element = format!("{}[*]", out.value.unwrap_or_else(|| header.0.clone()));
                let reads = header.1.clone();
                self.loop_stmt(
                    stmt.span(),
                    LoopKind::ForOf,
                    Some(header),
                    free_variables(stmt),
                    |b| {
                        b.bind_for_head(&f.left);
                        // The loop variable is one element of the iterable, like a map parameter.
                        if let ForHead::VarDecl(v) = &f.left {
                            if let [d] = v.decls.as_slice() {
                                b.bind_element_pattern(&d.name, &element, &reads);
                            }
                        }
                        b.loop_body(&f.body);
                    },
                );
            }
            Stmt::ForIn(f) => {
                self.expr(&f.right, Position::Nested);
                let header = self.rewrite_reading(&f.right);
                self.loop_stmt(
                    stmt.span(),
                    LoopKind::ForIn,
                    Some(header),
                    free_variables(stmt),
                    |b| {
                        b.bind_for_head(&f.left);
                        b.loop_body(&f.body);
                    },
                );
            }
            Stmt::For(f) => {
                let condition = f.test.as_deref().map(|t| self.rewrite_reading(t));
                self.loop_stmt(
                    stmt.span(),
                    LoopKind::For,
                    condition,
                    free_variables(stmt),
                    |b| {
                        match &f.init {
                            Some(VarDeclOrExpr::VarDecl(v)) => {
                                for d in &v.decls {
                                    b.bind_opaque(&d.name);
                                }
                            }
                            Some(VarDeclOrExpr::Expr(e)) => {
                                b.expr(e, Position::Nested);
                            }
                            None => {}
                        }
                        if let Some(test) = &f.test {
                            b.expr(test, Position::Nested);
                        }
                        b.loop_body(&f.body);
                        if let Some(update) = &f.update {
                            b.expr(update, Position::Nested);
                        }
                    },
                );
            }
            Stmt::While(w) => {
                let condition = Some(self.rewrite_reading(&w.test));
                self.loop_stmt(
                    stmt.span(),
                    LoopKind::While,
                    condition,
                    free_variables(stmt),
                    |b| {
                        b.expr(&w.test, Position::Nested);
                        b.loop_body(&w.body);
                    },
                );
            }
            Stmt::DoWhile(w) => {
                let condition = Some(self.rewrite_reading(&w.test));
                self.loop_stmt(
                    stmt.span(),
                    LoopKind::DoWhile,
                    condition,
                    free_variables(stmt),
                    |b| {
                        b.loop_body(&w.body);
                        b.live = true;
                        b.expr(&w.test, Position::Nested);
                    },
                );
            }
            Stmt::With(w) => {
                self.expr(&w.obj, Position::Nested);
                self.stmt(&w.body);
            }
            Stmt::Empty(_) | Stmt::Debugger(_) => {}
        }
    }

    fn end_path(&mut self) {
        self.frontier.clear();
        self.live = false;
        self.ends += 1;
    }

    /// The methods of a class (`name` when it has one) that call tools: each a local function
    /// of its own (`Loader.load`), its body walked as a helper's is, so that every call in it
    /// is a node. When and how often one runs is up to its callers (no call node links to it).
    fn class_methods(&mut self, class: &swc_ecma_ast::Class, name: Option<&str>) {
        use swc_ecma_ast::{ClassMember, ParamOrTsParamProp};
        let owner = name.unwrap_or("(class)");
        for member in &class.body {
            let (method, code, parts) = match member {
                ClassMember::Method(m) => (
                    fold::prop_name(&m.key).unwrap_or_else(|| "[computed]".into()),
                    self.method_code(&m.function, m.key.span()),
                    function_of(&m.function),
                ),
                ClassMember::PrivateMethod(m) => (
                    format!("#{}", m.key.name),
                    self.method_code(&m.function, m.key.span),
                    function_of(&m.function),
                ),
                ClassMember::Constructor(c) => {
                    let Some(body) = &c.body else { continue };
                    let params = (c.params.iter())
                        .filter_map(|p| match p {
                            ParamOrTsParamProp::Param(p) => Some(&p.pat),
                            ParamOrTsParamProp::TsParamProp(_) => None,
                        })
                        .collect();
                    let parts = ArrowOrFn {
                        params,
                        body: CallbackBody::Block(&body.stmts),
                        body_span: body.span,
                    };
                    let rest = self.text(SwcSpan::new(c.key.span().hi, c.span.hi));
                    ("constructor".into(), format!("(function {rest})"), parts)
                }
                ClassMember::ClassProp(p) => {
                    let Some(value) = p.value.as_deref() else {
                        continue;
                    };
                    let Some(parts) = callback(value) else {
                        continue;
                    };
                    let key = fold::prop_name(&p.key).unwrap_or_else(|| "[computed]".into());
                    (key, format!("({})", self.text(value.span())), parts)
                }
                ClassMember::PrivateProp(p) => {
                    let Some(value) = p.value.as_deref() else {
                        continue;
                    };
                    let Some(parts) = callback(value) else {
                        continue;
                    };
                    let key = format!("#{}", p.key.name);
                    (key, format!("({})", self.text(value.span())), parts)
                }
                ClassMember::StaticBlock(b) => {
                    let parts = ArrowOrFn {
                        params: Vec::new(),
                        body: CallbackBody::Block(&b.body.stmts),
                        body_span: b.body.span,
                    };
                    let body = self.text(b.body.span);
                    ("static".into(), format!("(function () {body})"), parts)
                }
                _ => continue,
            };
            if !self.calls_in(&parts) {
                continue;
            }
            let span = member.span();
            let index = self.declare_function(span, Some(&format!("{owner}.{method}")));
            self.nodes[index].code = Some(code);
            self.function_body(index, &parts, None);
        }
    }

    /// A method's code as a function expression (`(async function (p) { ... })` for
    /// `async load(p) { ... }`), which reads as the method does wherever it stands (a
    /// method's own text is no statement or expression of its own).
    fn method_code(&self, f: &swc_ecma_ast::Function, key: SwcSpan) -> String {
        let rest = self.text(SwcSpan::new(key.hi, f.span.hi));
        let (a, star) = (
            if f.is_async { "async " } else { "" },
            if f.is_generator { "*" } else { "" },
        );
        format!("({a}function{star} {rest})")
    }

    /// A method, getter or setter of an object literal that calls tools: a local function of
    /// its own, as a class's methods are.
    fn object_method(&mut self, prop: &Prop) {
        let (name, key, function) = match prop {
            Prop::Method(m) => (fold::prop_name(&m.key), m.key.span(), &m.function),
            Prop::Getter(g) => (fold::prop_name(&g.key), g.key.span(), &g.function),
            Prop::Setter(s) => (fold::prop_name(&s.key), s.key.span(), &s.function),
            _ => return,
        };
        let parts = function_of(function);
        if !self.calls_in(&parts) {
            return;
        }
        let code = self.method_code(function, key);
        let index = self.declare_function(prop.span(), name.as_deref());
        self.nodes[index].code = Some(code);
        self.function_body(index, &parts, None);
    }

    /// Whether a function's parameters (their defaults) or body call MCP tools or capabilities.
    fn calls_in(&self, parts: &ArrowOrFn) -> bool {
        let params = parts
            .params
            .iter()
            .any(|p| contains_agent_call(*p, &self.agents));
        params
            || match &parts.body {
                CallbackBody::Expr(e) => contains_agent_call(*e, &self.agents),
                CallbackBody::Block(stmts) => {
                    stmts.iter().any(|s| contains_agent_call(s, &self.agents))
                }
            }
    }

    fn bind_for_head(&mut self, head: &ForHead) {
        match head {
            ForHead::VarDecl(v) => {
                for d in &v.decls {
                    self.bind_opaque(&d.name);
                }
            }
            ForHead::UsingDecl(u) => {
                for d in &u.decls {
                    self.bind_opaque(&d.name);
                }
            }
            ForHead::Pat(p) => self.bind_opaque(p),
        }
    }

    /// Bind a loop variable pattern to paths inside one (unknown) element: `entry` ->
    /// `n1.entries[*]`, `{ name }` -> `n1.entries[*].name`.
    fn bind_element_pattern(&mut self, pat: &Pat, element: &str, reads: &[String]) {
        // An element the loop changes in place (`for (const f of files) f.path = ...`) changes
        // the collection's result.
        if self.pattern_mutated(pat) {
            self.mark_changed(element);
            for r in reads {
                self.mark_changed(r);
            }
        }
        match pat {
            Pat::Ident(id) => {
                let binding = Binding::Template(element.to_string(), reads.to_vec());
                self.bind(&id.id.sym, binding)
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::Assign(a) if a.value.is_none() => {
                            let path = member_path(element, &a.key.id.sym);
                            self.bind(&a.key.id.sym, Binding::Template(path, reads.to_vec()));
                        }
                        ObjectPatProp::KeyValue(kv) => {
                            if let Some(key) = fold::prop_name(&kv.key) {
                                let path = member_path(element, &key);
                                self.bind_element_pattern(&kv.value, &path, reads);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Pat::Array(arr) => {
                for (i, elem) in arr.elems.iter().enumerate() {
                    if let Some(p @ (Pat::Ident(_) | Pat::Object(_) | Pat::Array(_))) = elem {
                        self.bind_element_pattern(p, &format!("{element}[{i}]"), reads);
                    }
                }
            }
            _ => {}
        }
    }

    /// `try`: any node of the block may throw, so the handler follows the point before the
    /// block and every node the block created; `finally` follows every way out.
    fn try_stmt(&mut self, t: &swc_ecma_ast::TryStmt) {
        let start = self.frontier.clone();
        let first = self.nodes.len();
        let scope = self.scopes.last().cloned();
        self.guarded += 1;
        self.block(&t.block.stmts);
        self.guarded -= 1;
        let mut any_live = self.live;
        let mut exits = if self.live {
            std::mem::take(&mut self.frontier)
        } else {
            Vec::new()
        };
        let throwers: Vec<Pending> = self.nodes[first..]
            .iter()
            .filter(|n| n.scope == scope)
            .map(|n| Pending {
                from: n.id.clone(),
                outcome: None,
            })
            .collect();
        let mut abrupt = start;
        abrupt.extend(throwers);
        let block_end = self.nodes.len();
        let ends = self.ends;
        // No handler: a throw leaves the statement (what follows does not run).
        let mut handler_exits = t.handler.is_none();
        if let Some(handler) = &t.handler {
            self.frontier = abrupt.clone();
            self.live = true;
            self.push_env();
            if let Some(param) = &handler.param {
                self.bind_opaque(param);
            }
            self.probes.enter_handler();
            self.guarded += 1;
            self.stmts(&handler.body.stmts);
            self.guarded -= 1;
            self.probes.leave_handler();
            self.pop_env();
            handler_exits = !self.live || self.ends > ends;
            if self.live {
                any_live = true;
                exits.extend(std::mem::take(&mut self.frontier));
            }
        }
        if handler_exits {
            for node in &mut self.nodes[first..block_end] {
                node.throw_exits = true;
            }
        }
        match &t.finalizer {
            Some(finalizer) => {
                let mut entry = exits;
                entry.extend(abrupt);
                self.frontier = entry;
                self.live = true;
                self.block(&finalizer.stmts);
                if !any_live {
                    self.end_path();
                }
            }
            None => {
                self.frontier = exits;
                self.live = any_live;
            }
        }
    }

    /// A `return`, `throw` or `break` may leave the loops being walked (in the function being
    /// walked): the innermost one only, or all of them; they are marked [`Node::leaves`].
    fn leave_loops(&mut self, innermost: bool) {
        let function = self.functions.last().copied();
        let mut loops = (self.loops.iter().rev()).filter(|&&l| function.is_none_or(|f| l > f));
        let marked: Vec<usize> = match innermost {
            true => loops.next().copied().into_iter().collect(),
            false => loops.copied().collect(),
        };
        for l in marked {
            if let Some(node) = self.nodes.get_mut(l) {
                node.leaves = true;
            }
        }
    }

    fn loop_body(&mut self, body: &Stmt) {
        self.breaks.push(BreakTarget {
            label: None,
            breakable: true,
            exits: None,
            taken: 0,
        });
        let at = match body {
            Stmt::Block(b) => Body::Block(self.offsets(b.span).0),
            other => Body::Statement(self.offsets(other.span())),
        };
        let node = self.loops.last().copied().unwrap_or(usize::MAX);
        self.probes.enter(ProbeKind::Loop, node, at);
        self.stmt(body);
        self.probes.leave();
        self.breaks.pop();
    }

    /// A loop: one node holding the loop's source; its body's nodes are scoped to it. What
    /// follows the loop comes after the loop node (the body may run any number of times).
    fn loop_stmt(
        &mut self,
        span: SwcSpan,
        kind: LoopKind,
        condition: Option<(String, Vec<String>)>,
        free: Vec<String>,
        body: impl FnOnce(&mut Self),
    ) -> String {
        let mut node = self.new_node(NodeKind::Loop, span);
        node.loop_kind = Some(kind);
        node.code = Some(self.text(span).to_string());
        if let Some((condition, reads)) = condition {
            node.condition = Some(condition);
            node.reads = reads;
        }
        let mut arguments = IndexMap::new();
        self.free_variable_arguments(free, &mut arguments);
        if !arguments.is_empty() {
            node.arguments = Some(arguments);
        }
        let id = self.add_node(node);
        self.loops.push(self.nodes.len() - 1);
        self.scopes.push(Scope::Loop { id: id.clone() });
        self.push_env();
        body(self);
        self.pop_env();
        self.scopes.pop();
        self.loops.pop();
        self.frontier = vec![Pending {
            from: id.clone(),
            outcome: None,
        }];
        self.live = true;
        id
    }

    fn if_stmt(&mut self, stmt: &swc_ecma_ast::IfStmt) {
        self.expr(&stmt.test, Position::Nested);
        let cp = self.checkpoint();
        let mut node = self.new_node(NodeKind::Decision, stmt.span);
        let (condition, reads) = self.rewrite_reading(&stmt.test);
        node.condition = Some(condition);
        node.reads = reads;
        let d = self.add_node(node);
        let test = self.offsets(stmt.test.span());
        self.probe(ProbeKind::Decision, Site::Test { test });
        let after = self.nodes.len();
        let (mut exits, mut ended) = self.branch(&d, "true", |b| b.stmt(&stmt.cons));
        match &stmt.alt {
            Some(alt) => {
                let (more, alt_ended) = self.branch(&d, "false", |b| b.stmt(alt));
                exits.extend(more);
                ended |= alt_ended;
            }
            None => exits.push(Pending {
                from: d.clone(),
                outcome: Some("false".into()),
            }),
        }
        if self.nodes.len() == after && !ended {
            // No node and no early exit in either branch: the `if` does not shape the structure.
            self.rollback(cp);
            self.live = true;
            return;
        }
        self.merge(exits);
    }

    /// Run `f` as the branch `outcome` of decision `d`; returns the branch's exit frontier and
    /// whether the path ended inside it (return/throw/break/continue).
    fn branch(
        &mut self,
        d: &str,
        outcome: &str,
        f: impl FnOnce(&mut Self),
    ) -> (Vec<Pending>, bool) {
        self.frontier = vec![Pending {
            from: d.to_string(),
            outcome: Some(outcome.to_string()),
        }];
        self.live = true;
        self.scopes.push(Scope::Decision {
            id: d.to_string(),
            outcome: outcome.to_string(),
        });
        self.push_env();
        f(self);
        self.pop_env();
        self.scopes.pop();
        if self.live {
            (std::mem::take(&mut self.frontier), false)
        } else {
            (Vec::new(), true)
        }
    }

    fn merge(&mut self, exits: Vec<Pending>) {
        self.live = !exits.is_empty();
        self.frontier = exits;
    }

    fn switch_stmt(&mut self, stmt: &swc_ecma_ast::SwitchStmt) {
        self.expr(&stmt.discriminant, Position::Nested);
        let cp = self.checkpoint();
        let mut ended = false;
        let mut node = self.new_node(NodeKind::Decision, stmt.span);
        let (condition, reads) = self.rewrite_reading(&stmt.discriminant);
        node.condition = Some(condition);
        node.reads = reads;
        let d = self.add_node(node);
        let site =
            Site::Switch {
                discriminant: self.offsets(stmt.discriminant.span()),
                cases: (stmt.cases.iter())
                    .filter_map(|c| c.test.as_ref().map(|t| self.offsets(t.span())))
                    .collect(),
                default: stmt.cases.iter().find(|c| c.test.is_none()).map(|c| {
                    match c.cons.first() {
                        Some(first) => self.offsets(first.span()).0,
                        None => self.offsets(c.span).1,
                    }
                }),
                close: self.offsets(stmt.span).1.saturating_sub(1),
            };
        self.probe(ProbeKind::Switch, site);
        let after = self.nodes.len();
        self.breaks.push(BreakTarget {
            label: None,
            breakable: true,
            exits: Some(Vec::new()),
            taken: 0,
        });
        let mut fallthrough: Vec<Pending> = Vec::new();
        let mut has_default = false;
        for case in &stmt.cases {
            let outcome = match &case.test {
                Some(test) => format!("case:{}", self.case_label(test)),
                None => {
                    has_default = true;
                    "default".to_string()
                }
            };
            self.nodes[after - 1].outcomes.push(outcome.clone());
            let mut entry = std::mem::take(&mut fallthrough);
            entry.push(Pending {
                from: d.clone(),
                outcome: Some(outcome.clone()),
            });
            self.frontier = entry;
            self.live = true;
            self.scopes.push(Scope::Decision {
                id: d.clone(),
                outcome,
            });
            let breaks_before = self.breaks.last().map_or(0, |t| t.taken);
            self.stmts(&case.cons);
            self.scopes.pop();
            if self.live {
                fallthrough = std::mem::take(&mut self.frontier);
            } else if self.breaks.last().map_or(0, |t| t.taken) == breaks_before {
                // Left by return/throw/continue, not by `break`: an early exit.
                ended = true;
            }
        }
        let target = self.breaks.pop();
        let broke = target.as_ref().is_some_and(|t| t.taken > 0);
        let mut exits = target.and_then(|t| t.exits).unwrap_or_default();
        exits.extend(fallthrough);
        if !has_default {
            exits.push(Pending {
                from: d,
                outcome: Some("default".into()),
            });
        }
        if self.nodes.len() == after && !ended {
            self.rollback(cp);
            self.live = true;
            return;
        }
        self.merge(exits);
        self.live |= broke;
    }

    fn case_label(&self, test: &Expr) -> String {
        match fold::fold(test, self) {
            Some(JsValue::Str(s)) => s,
            Some(v @ (JsValue::Num(_) | JsValue::Bool(_) | JsValue::Null)) => v.to_js_string(),
            _ => self.rewrite_text(test),
        }
    }

    fn declarator(&mut self, kind: VarDeclKind, name: &Pat, init: Option<&Expr>) {
        let Some(init) = init else {
            self.bind_opaque(name);
            return;
        };
        if let (Pat::Ident(id), Some(f)) = (name, callback(init)) {
            // `const load = async (n) => ...`: a local function named `load`.
            let calls_tools = contains_agent_call(init, &self.agents);
            let index = self.declare_function(strip(init).span(), Some(&id.id.sym));
            let fid = self.nodes[index].id.clone();
            self.bind(&id.id.sym, Binding::Function(fid));
            if calls_tools {
                self.agents.insert(id.id.sym.clone());
            }
            self.function_body(index, &f, None);
            return;
        }
        if let Some(alias) = self.mcp_alias(init) {
            self.bind_alias(name, alias);
            return;
        }
        // A `let` or `var` never assigned again is a constant too. One assigned again only in
        // the program's order (not in a loop or a function) holds its initializer's value until
        // then: an assignment binds it anew, one in a nested block leaves it unknown.
        let reassigned = match kind {
            VarDeclKind::Const => None,
            _ => self.first_reassignment(name),
        };
        let repeated = reassigned.as_ref().filter(|(_, r)| r.repeated);
        if let (None, Pat::Ident(id)) = (repeated, name) {
            if let Some(value) = fold::fold(init, self) {
                if !self.is_mutated(&id.id.sym) {
                    if let (None, Some(json)) = (&reassigned, value.to_json()) {
                        self.literal_binding(id.id.sym.as_str(), json);
                    }
                    self.bind(&id.id.sym, Binding::Literal(value));
                    return;
                }
            }
        }
        let out = self.expr(init, Position::Statement);
        match (&out.value, repeated) {
            (Some(value), None) => self.bind_pattern(name, value, out.elements.as_deref()),
            (None, None) => self.bind_expression(name, init),
            (_, Some((var, r))) => {
                let place = match r.at {
                    0 => String::new(),
                    at => {
                        let (start, _) = self.offsets(SwcSpan::new(
                            swc_common::BytePos(at),
                            swc_common::BytePos(at),
                        ));
                        let (line, column) = self.lines.line_col(self.src, start);
                        format!(" (at {line}:{column})")
                    }
                };
                self.warn(
                    diagnostics::UNMODELLED_DECLARATION,
                    format!(
                        "`{var}` is assigned again in a loop or a function{place}: pml does not model a variable whose value changes as the program runs; where the program uses it, the structure refers to it by name"
                    ),
                    name.span(),
                );
                self.bind_opaque(name);
            }
        }
    }

    /// The first name `pat` declares that the program assigns again (preferring one assigned
    /// in a loop or a function), and where.
    fn first_reassignment(&mut self, pat: &Pat) -> Option<(swc_atoms::Atom, rewrite::Reassigned)> {
        let mut names = Vec::new();
        rewrite::pattern_names(pat, &mut names);
        let mut found: Option<(swc_atoms::Atom, rewrite::Reassigned)> = None;
        for n in names {
            if let Some(r) = self.reassigned(&n) {
                if found
                    .as_ref()
                    .is_none_or(|(_, f)| r.repeated && !f.repeated)
                {
                    found = Some((n, r));
                }
            }
        }
        found
    }

    /// A declaration whose value is no node's result and that is never assigned again: over
    /// what the builder models, its names bind to the expression; over anything else, it is
    /// said.
    fn bind_expression(&mut self, pat: &Pat, init: &Expr) {
        match self.unmodelled(init, 0) {
            None => {
                let (text, reads) = self.rewrite_reading(init);
                let text = match strip(init) {
                    Expr::Ident(_)
                    | Expr::Member(_)
                    | Expr::Lit(_)
                    | Expr::Tpl(_)
                    | Expr::Array(_)
                    | Expr::Call(_)
                    | Expr::Paren(_) => text,
                    _ => concat(&["(", &text, ")"]),
                };
                // `const { limit } = args`: the names are parameters too.
                let param = match strip(init) {
                    Expr::Ident(a) if &*a.sym == "args" && self.lookup("args").is_none() => {
                        Some(String::new())
                    }
                    _ => parameter_name(init),
                };
                self.bind_expression_pattern(pat, text, param, &reads);
            }
            Some(construct) => {
                let names = self.text(pat.span()).to_owned();
                self.warn(
                    diagnostics::UNMODELLED_DECLARATION,
                    format!(
                        "`{names}`: pml does not model {construct}; where the program uses it, the structure refers to it by name"
                    ),
                    pat.span(),
                );
                self.bind_opaque(pat);
            }
        }
    }

    fn bind_expression_pattern(
        &mut self,
        pat: &Pat,
        text: String,
        param: Option<String>,
        reads: &[String],
    ) {
        match pat {
            Pat::Ident(id) => {
                let param = param.filter(|p| !p.is_empty());
                let binding = match self.is_mutated(&id.id.sym) {
                    // Changed in place later: the expression is only its first value, and the
                    // results it holds (or parts of) change with it.
                    true => {
                        for r in reads {
                            self.mark_changed(r);
                        }
                        // An alias of a parameter changed: the function changes its parameter.
                        if let Some(&f) = self.functions.last() {
                            let id = self.nodes[f].id.clone();
                            let aliases_param = (self.function_params.get(&id))
                                .is_some_and(|p| reads.iter().any(|r| p.contains(r)));
                            if aliases_param {
                                self.param_changers.insert(id);
                            }
                        }
                        Binding::Opaque
                    }
                    false => Binding::Expr {
                        text,
                        param,
                        reads: reads.to_vec(),
                    },
                };
                self.bind(&id.id.sym, binding);
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => match fold::prop_name(&kv.key) {
                            Some(key) => {
                                let param = param.as_ref().map(|p| parameter_path(p, &key));
                                self.bind_expression_pattern(
                                    &kv.value,
                                    member_path(&text, &key),
                                    param,
                                    reads,
                                );
                            }
                            None => self.bind_opaque(&kv.value),
                        },
                        ObjectPatProp::Assign(a) if a.value.is_none() => {
                            let key = a.key.id.sym.as_str();
                            let param = param.as_ref().map(|p| parameter_path(p, key));
                            let binding = Binding::Expr {
                                text: member_path(&text, key),
                                param,
                                reads: reads.to_vec(),
                            };
                            self.bind(&a.key.id.sym, binding);
                        }
                        ObjectPatProp::Assign(a) => self.bind(&a.key.id.sym, Binding::Opaque),
                        ObjectPatProp::Rest(rest) => self.bind_opaque(&rest.arg),
                    }
                }
            }
            Pat::Array(arr) => {
                for (i, elem) in arr.elems.iter().enumerate() {
                    match elem {
                        Some(Pat::Rest(rest)) => self.bind_opaque(&rest.arg),
                        Some(elem) => {
                            let path = member_path(&text, &format!("[{i}]"));
                            self.bind_expression_pattern(elem, path, None, reads);
                        }
                        None => {}
                    }
                }
            }
            other => self.bind_opaque(other),
        }
    }

    /// `None` when the builder models everything `e` computes (names, literals, node results,
    /// operators, templates, member reads, array and object literals, pure operations and
    /// conversions); else the construct it does not model.
    fn unmodelled(&self, e: &Expr, depth: usize) -> Option<String> {
        if depth > 64 {
            return Some("an expression nested this deep".into());
        }
        let span = e.span();
        if self.node_spans.contains_key(&(span.lo.0, span.hi.0)) {
            return None;
        }
        let all = |es: &mut dyn Iterator<Item = &Expr>| {
            for e in es {
                if let Some(what) = self.unmodelled(e, depth + 1) {
                    return Some(what);
                }
            }
            None
        };
        match e {
            Expr::Lit(_) | Expr::Ident(_) | Expr::This(_) => None,
            Expr::Paren(p) => self.unmodelled(&p.expr, depth + 1),
            Expr::TsAs(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsNonNull(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsSatisfies(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsConstAssertion(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::TsTypeAssertion(x) => self.unmodelled(&x.expr, depth + 1),
            Expr::Tpl(t) => all(&mut t.exprs.iter().map(|e| &**e)),
            Expr::Member(m) => match &m.prop {
                MemberProp::Computed(c) => all(&mut [&*m.obj, &*c.expr].into_iter()),
                _ => self.unmodelled(&m.obj, depth + 1),
            },
            Expr::Bin(b) => all(&mut [&*b.left, &*b.right].into_iter()),
            Expr::Unary(u) if u.op != swc_ecma_ast::UnaryOp::Delete => {
                self.unmodelled(&u.arg, depth + 1)
            }
            Expr::Cond(c) => all(&mut [&*c.test, &*c.cons, &*c.alt].into_iter()),
            Expr::Seq(q) => all(&mut q.exprs.iter().map(|e| &**e)),
            Expr::Array(a) => all(&mut a.elems.iter().flatten().map(|e| &*e.expr)),
            Expr::Object(o) => o.props.iter().find_map(|p| match p {
                PropOrSpread::Spread(s) => self.unmodelled(&s.expr, depth + 1),
                PropOrSpread::Prop(p) => match &**p {
                    Prop::Shorthand(_) => None,
                    Prop::KeyValue(kv) => {
                        let key = match &kv.key {
                            swc_ecma_ast::PropName::Computed(c) => {
                                self.unmodelled(&c.expr, depth + 1)
                            }
                            _ => None,
                        };
                        key.or_else(|| self.unmodelled(&kv.value, depth + 1))
                    }
                    _ => Some("an object literal with methods or accessors".into()),
                },
            }),
            Expr::Call(call) => self.unmodelled_call(call, depth),
            Expr::New(n) => {
                let pure = matches!(strip(&n.callee), Expr::Ident(c)
                    if PURE_CONSTRUCTORS.contains(&&*c.sym) && self.lookup(&c.sym).is_none());
                if !pure {
                    let callee = self.text(n.callee.span());
                    return Some(format!("`new {}`", clip(callee)));
                }
                all(&mut n.args.iter().flatten().map(|a| &*a.expr))
            }
            Expr::Arrow(a) => match &*a.body {
                ArrowFunctionBody::Expr(body) => self.unmodelled(body, depth + 1),
                ArrowFunctionBody::FunctionBody(_) => Some("a callback with statements".into()),
            },
            Expr::Await(_) => Some("an `await` of something that is not a tool call".into()),
            Expr::Assign(_) => Some("an assignment inside an initializer".into()),
            Expr::Update(_) => Some("an increment or decrement inside an initializer".into()),
            Expr::TaggedTpl(t) => Some(format!(
                "the tagged template `{}`",
                clip(self.text(t.tag.span()))
            )),
            Expr::Class(_) => Some("a class".into()),
            Expr::Fn(_) => Some("a function expression".into()),
            Expr::Yield(_) => Some("`yield`".into()),
            Expr::OptChain(_) => Some("an optional call or member chain (`?.`)".into()),
            Expr::Unary(_) => Some("`delete`".into()),
            _ => Some("this kind of expression".into()),
        }
    }

    /// [`Builder::unmodelled`] for a call: conversions and pure operations over modelled
    /// operands are modelled.
    fn unmodelled_call(&self, call: &CallExpr, depth: usize) -> Option<String> {
        let Callee::Expr(callee) = &call.callee else {
            return Some("`super(...)` or `import(...)`".into());
        };
        let pure = match strip(callee) {
            Expr::Ident(f) => PURE_FUNCTIONS.contains(&&*f.sym) && self.lookup(&f.sym).is_none(),
            Expr::Member(m) => match (&m.prop, strip(&m.obj)) {
                (MemberProp::Ident(method), Expr::Ident(ns))
                    if self.lookup(&ns.sym).is_none()
                        && pml_pure_ops::static_operation(&ns.sym, &method.sym).is_some() =>
                {
                    true
                }
                (MemberProp::Ident(method), _) => {
                    pml_pure_ops::method_operation(&method.sym).is_some()
                        && self.unmodelled(&m.obj, depth + 1).is_none()
                }
                _ => false,
            },
            _ => false,
        };
        if !pure {
            return Some(format!("the call of `{}`", clip(self.text(callee.span()))));
        }
        call.args
            .iter()
            .find_map(|a| self.unmodelled(&a.expr, depth + 1))
    }

    // ----- expressions --------------------------------------------------------------------

    fn expr(&mut self, e: &Expr, pos: Position) -> Out {
        let out = self.expr_inner(e, pos);
        if let Some(v) = &out.value {
            // Names and member paths of names are rewritten through their bindings; only
            // expressions that *compute* a node's result need their span remembered.
            if !matches!(e, Expr::Ident(_) | Expr::Member(_)) {
                self.record_span(e.span(), v);
            }
        }
        out
    }

    fn expr_inner(&mut self, e: &Expr, pos: Position) -> Out {
        match e {
            Expr::Paren(p) => self.expr(&p.expr, pos),
            Expr::Await(a) => {
                let awaited = strip(&a.arg).span();
                self.awaited.insert((awaited.lo.0, awaited.hi.0));
                self.expr(&a.arg, pos)
            }
            Expr::TsAs(x) => self.expr(&x.expr, pos),
            Expr::TsNonNull(x) => self.expr(&x.expr, pos),
            Expr::TsSatisfies(x) => self.expr(&x.expr, pos),
            Expr::TsConstAssertion(x) => self.expr(&x.expr, pos),
            Expr::TsTypeAssertion(x) => self.expr(&x.expr, pos),
            Expr::Call(call) => self.call(call, pos),
            Expr::Ident(id) => match self.lookup(&id.sym) {
                Some(Binding::Node(v)) => Out::value(v.clone()),
                Some(Binding::McpTool(server, tool)) => {
                    let (server, tool) = (server.clone(), tool.clone());
                    self.tool_value(e, &server, &tool);
                    Out::default()
                }
                _ => Out::default(),
            },
            Expr::Member(m) => match self.mcp_alias(e) {
                Some(Binding::McpTool(server, tool)) => {
                    self.tool_value(e, &server, &tool);
                    Out::default()
                }
                _ => self.member(m, pos),
            },
            Expr::Array(arr) => {
                let child = if pos == Position::Nested {
                    Position::Nested
                } else {
                    Position::Argument
                };
                let mut elements = Vec::with_capacity(arr.elems.len());
                for elem in arr.elems.iter() {
                    elements.push(match elem {
                        Some(ExprOrSpread { expr, spread: None }) => self.expr(expr, child).value,
                        Some(ExprOrSpread { expr, .. }) => {
                            self.expr(expr, child);
                            None
                        }
                        None => None,
                    });
                }
                Out {
                    value: None,
                    elements: Some(elements),
                }
            }
            Expr::Object(obj) => {
                let child = if pos == Position::Nested {
                    Position::Nested
                } else {
                    Position::Argument
                };
                for prop in &obj.props {
                    match prop {
                        PropOrSpread::Spread(s) => {
                            self.expr(&s.expr, child);
                        }
                        PropOrSpread::Prop(p) => match &**p {
                            Prop::KeyValue(kv) => {
                                self.expr(&kv.value, child);
                            }
                            Prop::Getter(_) | Prop::Setter(_) | Prop::Method(_) => {
                                self.object_method(p);
                            }
                            Prop::Shorthand(_) => {}
                            Prop::Assign(a) => {
                                self.expr(&a.value, Position::Nested);
                            }
                        },
                    }
                }
                Out::default()
            }
            Expr::Cond(c) => self.ternary(c, pos),
            Expr::Bin(bin) => self.binary(bin, e, pos),
            Expr::Assign(a) => {
                let out = self.expr(&a.right, pos);
                if let Some(name) = a.left.as_ident() {
                    let name = name.id.sym.as_str().to_owned();
                    // `x += y` combines the old value: x no longer holds y's result. After a
                    // nested block, or in a loop or a function, which value x holds depends
                    // on what ran: it is unknown.
                    let plain = a.op == swc_ecma_ast::AssignOp::Assign
                        && self.declared_here(&name)
                        && self.reassigned(&name).is_some_and(|r| !r.repeated);
                    match &out.value {
                        Some(v) if plain => {
                            self.bind_existing(&name, Binding::Node(v.clone()));
                            self.variable_bindings.insert(name, v.clone());
                        }
                        _ => self.bind_existing(&name, Binding::Opaque),
                    }
                } else if let swc_ecma_ast::AssignTarget::Pat(p) = &a.left {
                    // `[a, b] = ...`, `({ a } = ...)`: the names hold new values.
                    let pat: Pat = p.clone().into();
                    let mut names = Vec::new();
                    rewrite::pattern_names(&pat, &mut names);
                    for name in names {
                        self.bind_existing(&name, Binding::Opaque);
                    }
                }
                if a.op == swc_ecma_ast::AssignOp::Assign {
                    out
                } else {
                    Out::default()
                }
            }
            Expr::Tpl(tpl) => {
                // Operations in interpolations are nodes, like operands.
                let inner = match pos {
                    Position::Nested => Position::Nested,
                    _ => Position::Argument,
                };
                for e in &tpl.exprs {
                    self.expr(e, inner);
                }
                Out::default()
            }
            Expr::TaggedTpl(t) => {
                self.expr(&t.tag, Position::Nested);
                for e in &t.tpl.exprs {
                    self.expr(e, Position::Nested);
                }
                Out::default()
            }
            Expr::Unary(u) => {
                self.expr(&u.arg, Position::Nested);
                Out::default()
            }
            Expr::Update(u) => {
                self.expr(&u.arg, Position::Nested);
                if let Expr::Ident(id) = strip(&u.arg) {
                    self.bind_existing(&id.sym, Binding::Opaque);
                }
                Out::default()
            }
            Expr::Seq(s) => {
                let mut last = Out::default();
                for e in &s.exprs {
                    last = self.expr(e, Position::Nested);
                }
                last
            }
            Expr::New(n) => {
                self.expr(&n.callee, Position::Nested);
                for a in n.args.iter().flatten() {
                    self.expr(&a.expr, Position::Nested);
                }
                Out::default()
            }
            Expr::OptChain(_) => {
                // `a?.b()`: evaluated conditionally at run time; look for calls inside only.
                self.nested_calls_in(e);
                Out::default()
            }
            Expr::Arrow(_) | Expr::Fn(_) => {
                // A function used as a value (passed, returned, stored): walked once if it calls
                // tools, so that what it can do is in the structure.
                if !self.calls_tools(e) {
                    return Out::default();
                }
                let Some(f) = callback(e) else {
                    return Out::default();
                };
                let name = match e {
                    Expr::Fn(f) => f.ident.as_ref().map(|i| i.sym.as_str()),
                    _ => None,
                };
                let index = self.declare_function(e.span(), name);
                let id = self.nodes[index].id.clone();
                self.warn(
                    diagnostics::FUNCTION_VALUE,
                    format!(
                        "{id}: a function used as a value calls MCP tools; its calls are in the structure, but when and how often it runs is up to whoever calls it"
                    ),
                    e.span(),
                );
                self.function_body(index, &f, None);
                Out::value(id)
            }
            Expr::Class(c) => {
                let name = c.ident.as_ref().map(|i| i.sym.as_str());
                self.class_methods(&c.class, name);
                Out::default()
            }
            Expr::Yield(y) => {
                if let Some(arg) = &y.arg {
                    self.expr(arg, Position::Nested);
                }
                Out::default()
            }
            _ => Out::default(),
        }
    }

    /// Does this expression call an MCP tool or a capability? Memoised per sub-expression, so
    /// asking at every level of a deep `a && (b && (c && ...))` stays linear.
    fn calls_tools(&mut self, e: &Expr) -> bool {
        rewrite::calls_tools_memo(e, &mut self.agent_call_memo, &self.agents)
    }

    /// Rebind a name in the scope that declared it (assignment to an existing variable).
    /// Whether `name` is declared in the innermost block (or not declared at all).
    fn declared_here(&self, name: &str) -> bool {
        self.env
            .get(name)
            .and_then(|stack| stack.last())
            .is_none_or(|(depth, _)| *depth == self.env_scopes.len())
    }

    fn bind_existing(&mut self, name: &str, binding: Binding) {
        match self.env.get_mut(name).and_then(|stack| stack.last_mut()) {
            Some((_, slot)) => *slot = binding,
            None => self.bind(name, binding),
        }
    }

    /// Walk an expression only for the MCP calls it contains.
    fn nested_calls_in(&mut self, e: &Expr) {
        match e {
            Expr::OptChain(o) => match &*o.base {
                swc_ecma_ast::OptChainBase::Member(m) => {
                    self.expr(&m.obj, Position::Nested);
                }
                swc_ecma_ast::OptChainBase::Call(c) => {
                    self.expr(&c.callee, Position::Nested);
                    for a in &c.args {
                        self.expr(&a.expr, Position::Nested);
                    }
                }
            },
            other => {
                self.expr(other, Position::Nested);
            }
        }
    }

    fn member(&mut self, m: &MemberExpr, pos: Position) -> Out {
        let obj_pos = if pos == Position::Nested {
            Position::Nested
        } else {
            pos
        };
        let obj = self.expr(&m.obj, obj_pos);
        if let MemberProp::Computed(c) = &m.prop {
            // Calls inside the key run whether or not the path is known.
            self.expr(&c.expr, Position::Nested);
        }
        // Most member expressions (`args.x`, `item.name`) are not paths of a node's result.
        let Some(base) = obj.value else {
            return Out::default();
        };
        match &m.prop {
            MemberProp::Ident(name) => Out::value(member_path(&base, &name.sym)),
            MemberProp::Computed(c) => match fold::fold(&c.expr, self) {
                Some(JsValue::Num(n)) if n.fract() == 0.0 && n >= 0.0 => {
                    Out::value(member_path(&base, &format!("[{}]", n as u64)))
                }
                Some(JsValue::Str(key)) => Out::value(member_path(&base, &key)),
                _ => Out::default(),
            },
            MemberProp::PrivateName(_) => Out::default(),
        }
    }

    fn ternary(&mut self, c: &swc_ecma_ast::CondExpr, pos: Position) -> Out {
        self.expr(&c.test, Position::Nested);
        let cp = self.checkpoint();
        let branch_pos = if pos == Position::Nested {
            Position::Nested
        } else {
            Position::Argument
        };
        let mut node = self.new_node(NodeKind::Decision, c.span);
        let (condition, reads) = self.rewrite_reading(&c.test);
        node.condition = Some(condition);
        node.reads = reads;
        let d = self.add_node(node);
        let test = self.offsets(c.test.span());
        self.probe(ProbeKind::Decision, Site::Test { test });
        let after = self.nodes.len();
        let (mut exits, _) = self.branch(&d, "true", |b| {
            b.expr(&c.cons, branch_pos);
        });
        exits.extend(
            self.branch(&d, "false", |b| {
                b.expr(&c.alt, branch_pos);
            })
            .0,
        );
        if self.nodes.len() == after {
            self.rollback(cp);
            self.live = true;
            return Out::default();
        }
        self.merge(exits);
        Out::default()
    }

    fn binary(&mut self, bin: &swc_ecma_ast::BinExpr, whole: &Expr, pos: Position) -> Out {
        let short_circuit = matches!(
            bin.op,
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::NullishCoalescing
        );
        if short_circuit && self.calls_tools(&bin.right) {
            // `ok && await mcp.a.b()`: the right side runs only for one outcome of the left.
            self.expr(&bin.left, Position::Nested);
            let mut node = self.new_node(NodeKind::Decision, bin.span);
            let (left, reads) = self.rewrite_reading(&bin.left);
            let (condition, outcome) = match bin.op {
                BinaryOp::LogicalAnd => (left, "true"),
                BinaryOp::LogicalOr => (left, "false"),
                _ => (format!("({left}) == null"), "true"),
            };
            node.condition = Some(condition);
            node.reads = reads;
            let d = self.add_node(node);
            let kind = match bin.op {
                BinaryOp::NullishCoalescing => ProbeKind::Nullish,
                _ => ProbeKind::Decision,
            };
            let test = self.offsets(bin.left.span());
            self.probe(kind, Site::Test { test });
            let other = if outcome == "true" { "false" } else { "true" };
            let (mut exits, _) = self.branch(&d, outcome, |b| {
                b.expr(&bin.right, Position::Nested);
            });
            exits.push(Pending {
                from: d,
                outcome: Some(other.into()),
            });
            self.merge(exits);
            return Out::default();
        }
        // Operations among the operands are nodes of their own (`xs.reduce(..) / xs.length`),
        // except on the side of `&&`/`||`/`??` that may not run.
        let mark = self.results.len();
        let operand = match pos {
            Position::Nested => Position::Nested,
            _ => Position::Argument,
        };
        self.expr(&bin.left, operand);
        let right = if short_circuit {
            Position::Nested
        } else {
            operand
        };
        self.expr(&bin.right, right);
        if pos != Position::Statement || fold::fold(whole, self).is_some() {
            return Out::default();
        }
        let Some(op) = pml_pure_ops::binary_operation(bin.op.as_str()) else {
            return Out::default();
        };
        let id = self.code_node(op.tool, bin.span, Code::Expr(whole), None, None, mark);
        Out::value(id)
    }

    /// Create a `code:*` task for `expr` (its source text is the code), with the free variables
    /// of the code as arguments. `code_span` narrows the code for chained calls (`map(...)` of
    /// `xs.filter(...).map(...)`), whose receiver then comes in as the `$receiver` argument.
    /// Operands walked since `mark` whose value is a node's result (an operation, a call) are
    /// read from that node: the code names it (`n1 / xs.length`), and it is an argument.
    fn code_node(
        &mut self,
        tool: &str,
        span: SwcSpan,
        whole: Code<'_>,
        code_span: Option<SwcSpan>,
        receiver: Option<String>,
        mark: usize,
    ) -> String {
        let mut node = self.new_node(NodeKind::Task, code_span.unwrap_or(span));
        let (code, operands, replaced) = self.code_with_operands(code_span.unwrap_or(span), mark);
        let mut arguments = IndexMap::new();
        if let Some(r) = receiver {
            arguments.insert("$receiver".to_string(), ArgumentValue::reference(r));
        }
        for id in operands {
            let value = ArgumentValue::reference(id.clone());
            arguments.insert(id, value);
        }
        // The names the code reads, outside the operands read from their nodes.
        let reads = match (code_span, whole) {
            // A chain link: the receiver comes from `$receiver`; only the arguments read names.
            (Some(_), Code::Call(call)) => free_variables_at(&call.args, replaced),
            (_, Code::Call(call)) => free_variables_at(call, replaced),
            (_, Code::Expr(e)) => free_variables_at(e, replaced),
        };
        // What the code reaches outside pure computation: the first global it may not read
        // (a name of the program's own is not the global), or a dynamic import.
        let forbidden = (reads.names.iter().zip(&reads.at))
            .filter(|(name, _)| self.lookup(name).is_none())
            .filter_map(|(name, &at)| pml_pure_ops::forbidden(name).map(|p| (p, at)))
            .chain(reads.dynamic)
            .min_by_key(|&(_, at)| at);
        if let Some((pattern, at)) = forbidden {
            let start = code_span.unwrap_or(span).lo.0;
            let impure = pml_pure_ops::ImpureCode {
                pattern,
                offset: at.saturating_sub(start) as usize,
            };
            let id = node.id.clone();
            self.warn(
                diagnostics::IMPURE_CODE,
                format!("{id} ({tool}): {impure}"),
                span,
            );
            node.impure = Some(format!("{pattern} ({})", impure.reason()));
        }
        self.free_variable_arguments(reads.names, &mut arguments);
        node.tool = Some(tool.to_string());
        node.code = Some(code);
        if !arguments.is_empty() {
            node.arguments = Some(arguments);
        }
        // The operation starts once its last operand is computed.
        let operand = match whole {
            Code::Call(call) => match (call.args.last(), &call.callee) {
                (Some(last), _) => last.expr.span(),
                (None, Callee::Expr(callee)) => match strip(callee) {
                    Expr::Member(m) => m.obj.span(),
                    other => other.span(),
                },
                (None, _) => span,
            },
            Code::Expr(Expr::Bin(b)) => b.right.span(),
            Code::Expr(e) => e.span(),
        };
        let site = Site::Operation {
            whole: self.offsets(span),
            operand: self.offsets(operand),
        };
        let id = self.add_node(node);
        self.probe(ProbeKind::Operation, site);
        id
    }

    /// The source text of `span` with the outermost results walked since `mark` that lie inside
    /// it replaced by their node ids, and those ids (the roots of the paths, once each).
    fn code_with_operands(
        &mut self,
        span: SwcSpan,
        mark: usize,
    ) -> (String, Vec<String>, Vec<(u32, u32)>) {
        let (lo, hi) = (span.lo.0, span.hi.0);
        let mut inside: Vec<(u32, u32)> = self
            .results
            .drain(mark.min(self.results.len())..)
            .filter(|&(a, b)| lo <= a && b <= hi && (a, b) != (lo, hi))
            .collect();
        let text = self.text(span);
        if inside.is_empty() {
            return (text.to_owned(), Vec::new(), Vec::new());
        }
        // Outermost first: by start, the longest first; skip what an earlier one covers.
        inside.sort_by_key(|&(a, b)| (a, std::cmp::Reverse(b)));
        let piece = |from: u32, to: u32| {
            let span = SwcSpan::new(swc_common::BytePos(from), swc_common::BytePos(to));
            self.text(span)
        };
        let mut code = String::with_capacity(text.len());
        let mut ids: Vec<String> = Vec::new();
        let mut replaced = Vec::new();
        let mut at = lo;
        for (a, b) in inside {
            let Some(value) = self.node_spans.get(&(a, b)) else {
                continue;
            };
            if a < at {
                continue;
            }
            replaced.push((a, b));
            code.push_str(piece(at, a));
            code.push_str(value);
            let root = path_root(value);
            if !ids.iter().any(|id| id == root) {
                ids.push(root.to_owned());
            }
            at = b;
        }
        code.push_str(piece(at, hi));
        (code, ids, replaced)
    }

    /// Each free variable of some code, with where its value comes from.
    fn free_variable_arguments(
        &self,
        names: Vec<String>,
        arguments: &mut IndexMap<String, ArgumentValue>,
    ) {
        for name in names {
            if arguments.contains_key(&name) || rewrite::is_global(&name) {
                continue;
            }
            let value = match self.lookup(&name) {
                Some(Binding::Node(v)) => ArgumentValue::reference(v.clone()),
                Some(Binding::Literal(v) | Binding::Element(v)) => match v.to_json() {
                    Some(json) => ArgumentValue::literal(json),
                    None => ArgumentValue::reference(name.clone()),
                },
                Some(Binding::Template(t, reads)) => {
                    ArgumentValue::reference_reading(t.clone(), reads.clone())
                }
                Some(Binding::Function(id)) => ArgumentValue::reference(id.clone()),
                Some(Binding::Expr { param: Some(p), .. }) => ArgumentValue::Parameter {
                    parameter_name: p.clone(),
                },
                Some(Binding::Expr { text, reads, .. }) => {
                    ArgumentValue::reference_reading(text.clone(), reads.clone())
                }
                Some(
                    Binding::Opaque | Binding::Mcp | Binding::McpServer(_) | Binding::McpTool(..),
                )
                | None => ArgumentValue::reference(name.clone()),
            };
            arguments.insert(name, value);
        }
    }

    // ----- calls --------------------------------------------------------------------------

    fn call(&mut self, call: &CallExpr, pos: Position) -> Out {
        let Callee::Expr(callee) = &call.callee else {
            for a in &call.args {
                self.expr(&a.expr, Position::Nested);
            }
            return Out::default();
        };
        match strip(callee) {
            Expr::Ident(name) => {
                if let Some(Binding::Function(id)) = self.lookup(&name.sym) {
                    let id = id.clone();
                    let name = Some(name.sym.as_str().to_owned());
                    return Out::value(self.local_call(call, id, name, callee.span()));
                }
            }
            // An IIFE: `(async () => { ... })()`.
            inner @ (Expr::Arrow(_) | Expr::Fn(_)) => {
                if let Some(f) = callback(inner) {
                    let index = self.declare_function(inner.span(), None);
                    let id = self.nodes[index].id.clone();
                    self.function_body(index, &f, None);
                    return Out::value(self.local_call(call, id, None, callee.span()));
                }
            }
            _ => {}
        }
        match classify_callee(callee, self) {
            CalleeKind::Mcp { server, tool } => {
                let id = self.agent_call(call, NodeKind::Task, concat(&[&server, ":", &tool]));
                return Out::value(id);
            }
            CalleeKind::Capability(name) => {
                let id = self.agent_call(call, NodeKind::Capability, name);
                return Out::value(id);
            }
            CalleeKind::DynamicMcp { server, tool } => {
                // A node of its own, its unknown names `?` (`fs:?`): its trace events carry
                // the tool that ran.
                self.warn(
                    diagnostics::DYNAMIC_CALL,
                    format!(
                        "`{}`: the server or tool name is computed at run time, so what this call does is not known statically",
                        self.text(callee.span())
                    ),
                    call.span,
                );
                // What computes the names is read where it stands.
                if let Expr::Member(m) = strip(callee) {
                    if let MemberProp::Computed(c) = &m.prop {
                        self.expr(&c.expr, Position::Nested);
                    }
                    if let Expr::Member(inner) = strip(&m.obj) {
                        if let MemberProp::Computed(c) = &inner.prop {
                            self.expr(&c.expr, Position::Nested);
                        }
                    }
                }
                let name = [server.as_deref(), tool.as_deref()]
                    .map(|part| part.unwrap_or(DYNAMIC_NAME))
                    .join(":");
                let id = self.agent_call(call, NodeKind::Task, name);
                return Out::value(id);
            }
            CalleeKind::DynamicCapability => {
                self.warn(
                    diagnostics::DYNAMIC_CALL,
                    format!(
                        "`{}`: the capability's name is computed at run time, so this call is not analysed statically",
                        self.text(callee.span())
                    ),
                    call.span,
                );
            }
            CalleeKind::Fork => return self.fork(call),
            CalleeKind::Static { tool } => {
                if pos != Position::Nested {
                    let mark = self.results.len();
                    for a in &call.args {
                        self.expr(&a.expr, Position::Argument);
                    }
                    let id = self.code_node(tool, call.span, Code::Call(call), None, None, mark);
                    return Out::value(id);
                }
            }
            CalleeKind::Method { method } => return self.method_call(call, callee, method, pos),
            CalleeKind::Other => {
                // `Promise.race`/`Promise.any`: which call settles first is the program's data.
                if let Expr::Member(m) = strip(callee) {
                    let method = prop_static_name(&m.prop, self);
                    if matches!(strip(&m.obj), Expr::Ident(p) if &*p.sym == "Promise")
                        && matches!(method.as_deref(), Some("race" | "any"))
                    {
                        self.probes.observe_timing();
                    }
                }
            }
        }
        self.expr(callee, Position::Nested);
        for a in &call.args {
            self.expr(&a.expr, Position::Nested);
        }
        Out::default()
    }

    /// `recv.method(args)`: a code operation, a loop over a callback that calls tools, or an
    /// ordinary call we only look into.
    fn method_call(&mut self, call: &CallExpr, callee: &Expr, method: &str, pos: Position) -> Out {
        let Expr::Member(m) = strip(callee) else {
            return Out::default();
        };
        let callback_calls_tools = call
            .args
            .iter()
            .any(|a| is_function(&a.expr) && self.calls_tools(&a.expr));
        let receiver_pos = if pos == Position::Nested {
            Position::Nested
        } else {
            Position::Argument
        };
        let mark = self.results.len();
        let first_node = self.nodes.len();
        let recv = self.expr(&m.obj, receiver_pos);
        // A callback that changes the element it is given (`rows.forEach(r => { r.id = 1; })`)
        // changes the receiver's elements in place.
        if let Some(value) = &recv.value {
            let changes_elements = (call.args.iter())
                .filter_map(|a| callback(&a.expr))
                .any(|cb| cb.params.first().is_some_and(|p| self.pattern_mutated(p)));
            if changes_elements {
                let value = value.clone();
                self.mark_changed(&value);
            }
        }
        let chained = recv.value.is_some() && is_call_based(&m.obj);
        // `p.catch(f)`, `p.then(ok, failed)`: what rejects `p` is handled.
        if method == "catch" || (method == "then" && call.args.len() >= 2) {
            for node in &mut self.nodes[first_node..] {
                node.guarded = true;
            }
        }

        if matches!(method, "then" | "catch" | "finally")
            && call.args.iter().any(|a| is_function(&a.expr))
        {
            // `p.then(r => ...)`: each callback is a local function the promise calls once.
            let mut last = None;
            for (i, a) in call.args.iter().enumerate() {
                let Some(f) = callback(&a.expr) else {
                    self.expr(&a.expr, Position::Nested);
                    continue;
                };
                let fulfilled = method == "then" && i == 0;
                let value = recv.value.clone().filter(|_| fulfilled);
                let span = strip(&a.expr).span();
                let index = self.declare_function(span, None);
                let id = self.nodes[index].id.clone();
                self.function_body(index, &f, value.clone().map(Binding::Node));
                let mut arguments = IndexMap::new();
                if let Some(v) = value {
                    arguments.insert("0".to_owned(), ArgumentValue::reference(v));
                }
                last = Some(self.call_node(id, None, arguments, call.span, span));
            }
            return last.map(Out::value).unwrap_or_default();
        }

        if callback_calls_tools {
            // `items.forEach(async i => await mcp...)`, `xs.map(x => mcp...)` outside Promise.all.
            let kind = if method == "forEach" {
                LoopKind::ForEach
            } else {
                LoopKind::Callback
            };
            let header = match &recv.value {
                Some(v) => (v.clone(), vec![path_root(v).to_owned()]),
                None => self.rewrite_reading(&m.obj),
            };
            let element = Binding::Template(format!("{}[*]", header.0), header.1.clone());
            let id = self.loop_stmt(call.span, kind, Some(header), free_variables(call), |b| {
                let node = b.nodes.len() - 1;
                for a in &call.args {
                    if let Some(cb) = callback(&a.expr) {
                        b.callback_body(
                            &cb,
                            element.clone(),
                            Position::Nested,
                            (ProbeKind::Loop, node),
                        );
                    } else {
                        b.expr(&a.expr, Position::Nested);
                    }
                }
            });
            return Out::value(id);
        }

        if method == "forEach" && pos != Position::Nested {
            let header = match &recv.value {
                Some(v) => (v.clone(), vec![path_root(v).to_owned()]),
                None => self.rewrite_reading(&m.obj),
            };
            let id = self.loop_stmt(
                call.span,
                LoopKind::ForEach,
                Some(header),
                free_variables(call),
                |b| {
                    // Nothing inside is a node; the iterations are still counted.
                    let node = b.nodes.len() - 1;
                    if let Some(cb) = call.args.first().and_then(|a| callback(&a.expr)) {
                        let start = b.callback_start(&cb);
                        b.probes.enter(ProbeKind::Loop, node, start);
                        b.probes.leave();
                    }
                },
            );
            return Out::value(id);
        }

        let op = pml_pure_ops::method_operation(method);
        match op {
            Some(op) if pos != Position::Nested => {
                for a in &call.args {
                    if !is_function(&a.expr) {
                        self.expr(&a.expr, Position::Argument);
                    }
                }
                let whole = Code::Call(call);
                let id = if chained {
                    let prop_span = m.prop.span();
                    let code_span = SwcSpan::new(prop_span.lo, call.span.hi);
                    let receiver = recv.value;
                    self.code_node(op.tool, call.span, whole, Some(code_span), receiver, mark)
                } else {
                    self.code_node(op.tool, call.span, whole, None, None, mark)
                };
                Out::value(id)
            }
            _ => {
                for a in &call.args {
                    self.expr(&a.expr, Position::Nested);
                }
                Out::default()
            }
        }
    }

    /// An MCP tool call or a capability call: arguments first (inner calls run before this
    /// one), then the node.
    fn agent_call(&mut self, call: &CallExpr, kind: NodeKind, name: String) -> String {
        let mut arguments = IndexMap::new();
        if let Some(first) = call.args.first() {
            self.call_arguments(first, &mut arguments);
        }
        for extra in call.args.iter().skip(1) {
            self.expr(&extra.expr, Position::Nested);
        }
        let mut node = self.new_node(kind, call.span);
        match kind {
            NodeKind::Capability => node.capability_id = Some(name),
            _ => node.tool = Some(name),
        }
        node.arguments = Some(arguments);
        let id = self.add_node(node);
        if let Callee::Expr(callee) = &call.callee {
            let callee = self.offsets(callee.span());
            let awaited = self.awaited.contains(&(call.span.lo.0, call.span.hi.0));
            self.probe(ProbeKind::Call, Site::Call { callee, awaited });
        }
        id
    }

    fn call_arguments(&mut self, arg: &ExprOrSpread, out: &mut IndexMap<String, ArgumentValue>) {
        match strip(&arg.expr) {
            Expr::Object(obj) if arg.spread.is_none() => {
                out.reserve(obj.props.len());
                for prop in &obj.props {
                    match prop {
                        PropOrSpread::Prop(p) => match &**p {
                            Prop::KeyValue(kv) => {
                                let key = fold::prop_name(&kv.key)
                                    .unwrap_or_else(|| format!("[{}]", self.text(kv.key.span())));
                                let value = self.argument(&kv.value);
                                out.insert(key, value);
                            }
                            Prop::Shorthand(id) => {
                                let value = match self.lookup(&id.sym) {
                                    Some(Binding::Node(v)) => ArgumentValue::reference(v.clone()),
                                    Some(Binding::Literal(v) | Binding::Element(v)) => {
                                        match v.to_json() {
                                            Some(json) => ArgumentValue::literal(json),
                                            None => {
                                                ArgumentValue::reference(id.sym.as_str().to_owned())
                                            }
                                        }
                                    }
                                    Some(Binding::Template(t, reads)) => {
                                        ArgumentValue::reference_reading(t.clone(), reads.clone())
                                    }
                                    Some(Binding::Expr { param: Some(p), .. }) => {
                                        ArgumentValue::Parameter {
                                            parameter_name: p.clone(),
                                        }
                                    }
                                    Some(Binding::Expr { text, reads, .. }) => {
                                        ArgumentValue::reference_reading(
                                            text.clone(),
                                            reads.clone(),
                                        )
                                    }
                                    _ => ArgumentValue::reference(id.sym.as_str().to_owned()),
                                };
                                out.insert(id.sym.as_str().to_owned(), value);
                            }
                            Prop::Method(_) | Prop::Getter(_) | Prop::Setter(_) => {
                                let key = self.text(p.span()).to_string();
                                let value =
                                    ArgumentValue::reference_reading(key.clone(), Vec::new());
                                out.insert(key, value);
                            }
                            Prop::Assign(_) => {}
                        },
                        PropOrSpread::Spread(s) => self.spread_argument(&s.expr, out),
                    }
                }
            }
            other => self.spread_argument(other, out),
        }
    }

    /// `{ ...base }` or a whole non-literal argument object: literal objects are merged in,
    /// anything else is kept as a `...expression` reference.
    fn spread_argument(&mut self, e: &Expr, out: &mut IndexMap<String, ArgumentValue>) {
        let value = self.expr(e, Position::Argument);
        if let Some(JsValue::Object(map)) = fold::fold(e, self) {
            for (k, v) in map {
                if let Some(json) = v.to_json() {
                    out.insert(k, ArgumentValue::literal(json));
                }
            }
            return;
        }
        let key = format!("...{}", self.text(e.span()));
        let value = match (value.value, parameter_name(e)) {
            (Some(v), _) => ArgumentValue::reference(v),
            (None, Some(name)) => ArgumentValue::Parameter {
                parameter_name: name,
            },
            (None, None) => self.reference_to(e),
        };
        out.insert(key, value);
    }

    /// Classify one argument value: literal, parameter, reference, or an object/array of those.
    fn argument(&mut self, e: &Expr) -> ArgumentValue {
        // Inner calls first: they become nodes this argument then refers to.
        self.expr(e, Position::Argument);
        self.classify(e, 0)
    }

    /// Classify an already evaluated argument value.
    fn classify(&self, e: &Expr, depth: usize) -> ArgumentValue {
        let span = e.span();
        if let Some(v) = self.node_spans.get(&(span.lo.0, span.hi.0)) {
            return ArgumentValue::reference(v.clone());
        }
        let inner = strip(e);
        let inner_span = inner.span();
        if let Some(v) = self.node_spans.get(&(inner_span.lo.0, inner_span.hi.0)) {
            return ArgumentValue::reference(v.clone());
        }
        if let Expr::Ident(id) = inner {
            match self.lookup(&id.sym) {
                Some(Binding::Node(v)) => return ArgumentValue::reference(v.clone()),
                Some(Binding::Template(v, reads)) => {
                    return ArgumentValue::reference_reading(v.clone(), reads.clone());
                }
                Some(Binding::Expr { param: Some(p), .. }) => {
                    return ArgumentValue::Parameter {
                        parameter_name: p.clone(),
                    };
                }
                Some(Binding::Expr { text, reads, .. }) => {
                    return ArgumentValue::reference_reading(text.clone(), reads.clone());
                }
                _ => {}
            }
        }
        // Plain literals (most arguments) need no folding machinery.
        let plain = match inner {
            Expr::Lit(Lit::Str(s)) => Some(Value::String(s.value.to_string_lossy().into_owned())),
            Expr::Lit(Lit::Bool(b)) => Some(Value::Bool(b.value)),
            Expr::Lit(Lit::Null(_)) => Some(Value::Null),
            Expr::Lit(Lit::Num(n)) => fold::number_to_json(n.value),
            _ => None,
        };
        if let Some(value) = plain.or_else(|| fold::fold_json(e, self)) {
            let template_parameters = match &value {
                Value::String(s) => crate::template_parameters(s),
                _ => None,
            };
            return ArgumentValue::Literal {
                value,
                template_parameters,
            };
        }
        if let Some(name) = parameter_name(e) {
            return ArgumentValue::Parameter {
                parameter_name: name,
            };
        }
        if depth < 32 {
            if let Some(v) = self.classify_composite(inner, depth) {
                return v;
            }
        }
        self.reference_to(e)
    }

    /// `{ a: args.x, b: n1.y }` / `[args.x, 1]`: per-element classification, when every key is
    /// static and there are no spreads or holes.
    fn classify_composite(&self, e: &Expr, depth: usize) -> Option<ArgumentValue> {
        match e {
            Expr::Object(obj) => {
                let mut properties = IndexMap::new();
                for prop in &obj.props {
                    let PropOrSpread::Prop(p) = prop else {
                        return None;
                    };
                    match &**p {
                        Prop::KeyValue(kv) => {
                            let key = fold::prop_name(&kv.key)?;
                            properties.insert(key, self.classify(&kv.value, depth + 1));
                        }
                        Prop::Shorthand(id) => {
                            let value = self.classify(&Expr::Ident(id.clone()), depth + 1);
                            properties.insert(id.sym.as_str().to_owned(), value);
                        }
                        _ => return None,
                    }
                }
                Some(ArgumentValue::Object { properties })
            }
            Expr::Array(arr) => {
                let mut items = Vec::with_capacity(arr.elems.len());
                for elem in &arr.elems {
                    match elem {
                        Some(ExprOrSpread { expr, spread: None }) => {
                            items.push(self.classify(expr, depth + 1))
                        }
                        _ => return None,
                    }
                }
                Some(ArgumentValue::Array { items })
            }
            _ => None,
        }
    }

    // ----- Promise.all --------------------------------------------------------------------

    fn fork(&mut self, call: &CallExpr) -> Out {
        // `Promise.allSettled`: a rejection of one of its promises is a value, not a throw.
        let settled = matches!(&call.callee, Callee::Expr(callee)
            if matches!(strip(callee), Expr::Member(m)
                if matches!(&m.prop, MemberProp::Ident(p) if &*p.sym == "allSettled")));
        self.guarded += usize::from(settled);
        let out = self.fork_of(call);
        self.guarded -= usize::from(settled);
        out
    }

    /// [`Builder::fork`].
    fn fork_of(&mut self, call: &CallExpr) -> Out {
        let Some(arg) = call.args.first() else {
            return Out::default();
        };
        let cp = self.checkpoint();
        let node = self.new_node(NodeKind::Fork, call.span);
        let f = self.add_node(node);
        let fork_node = self.nodes.len() - 1;
        if let Callee::Expr(callee) = &call.callee {
            if let Expr::Member(m) = strip(callee) {
                let promise = self.offsets(m.obj.span());
                self.probe(ProbeKind::Fork, Site::Fork { promise });
            }
        }
        self.scopes.push(Scope::Fork { id: f.clone() });
        let start = self.frontier.clone();
        let mut exits: Vec<Pending> = Vec::new();
        let mut elements: Vec<Option<String>> = Vec::new();
        let mut any = false;
        let mut run_branch = |b: &mut Self, f: &mut dyn FnMut(&mut Self) -> Option<String>| {
            b.frontier = start.clone();
            b.live = true;
            let before = b.nodes.len();
            let value = f(b);
            if b.nodes.len() > before {
                any = true;
                if b.live {
                    exits.extend(std::mem::take(&mut b.frontier));
                }
            }
            value
        };
        match strip(&arg.expr) {
            Expr::Array(arr) if arg.spread.is_none() => {
                for elem in &arr.elems {
                    let value = match elem {
                        Some(e) if e.spread.is_none() => {
                            run_branch(self, &mut |b| b.expr(&e.expr, Position::Argument).value)
                        }
                        Some(e) => {
                            run_branch(self, &mut |b| {
                                b.expr(&e.expr, Position::Nested);
                                None
                            });
                            None
                        }
                        None => None,
                    };
                    elements.push(value);
                }
            }
            Expr::Call(map_call) if map_with_tool_callback(map_call, &self.agents).is_some() => {
                let Some((m, cb)) = map_with_tool_callback(map_call, &self.agents) else {
                    return Out::default();
                };
                self.frontier = start.clone();
                let recv = self.expr(&m.obj, Position::Nested);
                match fold::fold(&m.obj, self) {
                    Some(JsValue::Array(items)) => {
                        // Unroll: one task per element, the parameter bound to the element.
                        for (index, item) in items.into_iter().enumerate() {
                            let value = run_branch(self, &mut |b| {
                                b.callback_body_with_index(
                                    &cb,
                                    Binding::Element(item.clone()),
                                    index,
                                    Position::Argument,
                                    (ProbeKind::ForkCallback, fork_node),
                                )
                            });
                            elements.push(value);
                        }
                    }
                    _ => {
                        let (collection, reads) = match recv.value {
                            Some(v) => {
                                let root = path_root(&v).to_owned();
                                (v, vec![root])
                            }
                            None => self.rewrite_reading(&m.obj),
                        };
                        let template = Binding::Template(format!("{collection}[*]"), reads);
                        run_branch(self, &mut |b| {
                            b.callback_body(
                                &cb,
                                template.clone(),
                                Position::Argument,
                                (ProbeKind::ForkCallback, fork_node),
                            )
                        });
                    }
                }
            }
            other => {
                // `Promise.all(promises)`: nothing to fork statically.
                self.scopes.pop();
                self.rollback(cp);
                self.expr(other, Position::Nested);
                return Out::default();
            }
        }
        self.finish_fork(cp, f, exits, elements, any, call.span)
    }

    fn finish_fork(
        &mut self,
        cp: Checkpoint,
        f: String,
        exits: Vec<Pending>,
        elements: Vec<Option<String>>,
        any: bool,
        call: SwcSpan,
    ) -> Out {
        self.scopes.pop();
        if !any {
            // No call inside: a fork/join around nothing would only be noise.
            self.rollback(cp);
            self.live = true;
            return Out::default();
        }
        // The fork is the first node added after the checkpoint.
        let span = self
            .nodes
            .get(cp.nodes)
            .filter(|n| n.id == f)
            .map(|n| n.span);
        self.frontier = exits;
        let id = self.next_id(NodeKind::Join);
        // The join has no syntax of its own: it shares the `Promise.all(...)` span.
        let join = Node::new(id, NodeKind::Join, span.unwrap_or_default());
        let j = self.add_node(join);
        let call = self.offsets(call);
        self.probe(ProbeKind::Join, Site::Join { call });
        Out {
            value: Some(j),
            elements: Some(elements),
        }
    }

    /// Evaluate a callback's body with its first parameter bound to `param`.
    fn callback_body(
        &mut self,
        cb: &ArrowOrFn,
        param: Binding,
        pos: Position,
        repeat: (ProbeKind, usize),
    ) -> Option<String> {
        self.callback_body_with_index(cb, param, usize::MAX, pos, repeat)
    }

    /// Where the iteration variable of a callback run once per element goes.
    fn callback_start(&self, cb: &ArrowOrFn) -> Body {
        let span = self.offsets(cb.body_span);
        match cb.body {
            CallbackBody::Expr(_) => Body::Expression(span),
            CallbackBody::Block(_) => Body::Block(span.0),
        }
    }

    /// Walks the body of a callback that runs once per element (`repeat`: the probe kind and
    /// the index of the loop or fork node it belongs to).
    fn callback_body_with_index(
        &mut self,
        cb: &ArrowOrFn,
        param: Binding,
        index: usize,
        pos: Position,
        (kind, node): (ProbeKind, usize),
    ) -> Option<String> {
        let start = self.callback_start(cb);
        self.probes.enter(kind, node, start);
        let value = self.callback_body_inner(cb, param, index, pos);
        self.probes.leave();
        value
    }

    fn callback_body_inner(
        &mut self,
        cb: &ArrowOrFn,
        param: Binding,
        index: usize,
        pos: Position,
    ) -> Option<String> {
        self.push_env();
        for (i, p) in cb.params.iter().enumerate() {
            match (i, p) {
                (0, Pat::Ident(id)) => self.bind(&id.id.sym, param.clone()),
                (1, Pat::Ident(id)) if index != usize::MAX => {
                    self.bind(&id.id.sym, Binding::Element(JsValue::Num(index as f64)))
                }
                (_, p) => self.bind_opaque(p),
            }
        }
        let value = match cb.body {
            CallbackBody::Expr(e) => self.expr(e, pos).value,
            CallbackBody::Block(stmts) => {
                let mut value = None;
                self.hoist(stmts);
                for stmt in stmts {
                    if !self.live {
                        break;
                    }
                    if let Stmt::Return(r) = stmt {
                        if let Some(arg) = &r.arg {
                            value = self.expr(arg, pos).value;
                        }
                        break;
                    }
                    self.stmt(stmt);
                }
                self.unreached_functions(stmts);
                value
            }
        };
        self.pop_env();
        self.live = true;
        value
    }

    // ----- local functions ----------------------------------------------------------------

    /// A node for the local function at `span`. It is not part of the control flow: the nodes
    /// of its body are scoped to it. Returns its index.
    fn declare_function(&mut self, span: SwcSpan, name: Option<&str>) -> usize {
        let mut node = self.new_node(NodeKind::Function, span);
        node.name = name.map(str::to_owned);
        node.code = Some(self.text(span).to_string());
        node.scope = self.scopes.last().cloned();
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Function declarations are hoisted: their nodes exist and their names are bound from the
    /// start of the block; their bodies are walked where they stand.
    fn hoist(&mut self, stmts: &[Stmt]) {
        let mut declared = Vec::new();
        for stmt in stmts {
            if let Stmt::Decl(Decl::Fn(f)) = stmt {
                let span = f.function.span;
                let index = self.declare_function(span, Some(&f.ident.sym));
                let id = self.nodes[index].id.clone();
                self.bind(&f.ident.sym, Binding::Function(id));
                self.hoisted.insert((span.lo.0, span.hi.0), index);
                declared.push(f);
            }
        }
        // Which of them call tools, through each other too (a fixed point, at most one round
        // per function).
        let mut changed = !declared.is_empty();
        while changed {
            changed = false;
            for f in &declared {
                if !self.agents.contains(&f.ident.sym)
                    && contains_agent_call(&*f.function, &self.agents)
                {
                    self.agents.insert(f.ident.sym.clone());
                    changed = true;
                }
            }
        }
    }

    /// Walks the body of the function node at `index`, once: its nodes are in the function's
    /// scope and its own control flow starts at the function node. `first` binds the first
    /// parameter (a `.then` callback's value); the others are unknown.
    fn function_body(&mut self, index: usize, f: &ArrowOrFn, first: Option<Binding>) {
        let id = self.nodes[index].id.clone();
        let outer = Pending {
            from: id.clone(),
            outcome: None,
        };
        let frontier = std::mem::replace(&mut self.frontier, vec![outer]);
        let live = std::mem::replace(&mut self.live, true);
        let breaks = std::mem::take(&mut self.breaks);
        let loops = std::mem::take(&mut self.loops);
        self.scopes.push(Scope::Function { id });
        self.functions.push(index);
        self.push_env();
        for (i, p) in f.params.iter().enumerate() {
            match (i, p, &first) {
                (0, Pat::Ident(ident), Some(value)) => self.bind(&ident.id.sym, value.clone()),
                (_, Pat::Assign(a), _) => {
                    // A default value is computed when the argument is missing.
                    self.expr(&a.right, Position::Nested);
                    self.bind_opaque(&a.left);
                }
                _ => self.bind_opaque(p),
            }
        }
        // One that changes a parameter in place changes what its calls pass (marked in
        // `finish`).
        let mut declared = Vec::new();
        for p in &f.params {
            rewrite::pattern_names(p, &mut declared);
        }
        let names: Vec<String> = declared.iter().map(|n| n.to_string()).collect();
        self.function_params
            .insert(self.nodes[index].id.clone(), names);
        if self
            .mutations()
            .is_none_or(|m| declared.iter().any(|n| m.names.contains(n.as_str())))
        {
            self.param_changers.insert(self.nodes[index].id.clone());
        }
        let params: Option<Vec<String>> = (f.params.iter())
            .map(|p| match p {
                Pat::Ident(ident) => Some(ident.id.sym.to_string()),
                _ => None,
            })
            .collect();
        let params = params.filter(|names| {
            self.mutations().is_some_and(|m| {
                (names.iter()).all(|n| !m.names.contains(n) && !m.reassigned.contains_key(n))
            })
        });
        self.nodes[index].params = params;
        let start = self.callback_start(f);
        self.probes.enter(ProbeKind::Function, index, start);
        match f.body {
            CallbackBody::Expr(e) => {
                self.expr(e, Position::Statement);
            }
            CallbackBody::Block(stmts) => self.stmts(stmts),
        }
        self.probes.leave();
        self.pop_env();
        self.functions.pop();
        self.scopes.pop();
        self.frontier = frontier;
        self.live = live;
        self.breaks = breaks;
        self.loops = loops;
    }

    /// `load(a, b)`: a call of the local function `function` (its arguments by position).
    fn local_call(
        &mut self,
        call: &CallExpr,
        function: String,
        name: Option<String>,
        callee: SwcSpan,
    ) -> String {
        let mut arguments = IndexMap::new();
        for (i, a) in call.args.iter().enumerate() {
            let value = match a.spread {
                None => self.argument(&a.expr),
                Some(_) => {
                    let value = self.expr(&a.expr, Position::Argument).value;
                    value.map_or_else(|| self.reference_to(&a.expr), ArgumentValue::reference)
                }
            };
            let key = match a.spread {
                None => i.to_string(),
                Some(_) => format!("...{i}"),
            };
            arguments.insert(key, value);
        }
        let recursive = self
            .functions
            .iter()
            .any(|&f| self.nodes.get(f).is_some_and(|n| n.id == function));
        if recursive {
            self.warn(
                diagnostics::RECURSION,
                format!(
                    "`{}` calls itself (directly or through another function): its body is in the structure once",
                    self.text(callee)
                ),
                call.span,
            );
        }
        self.call_node(function, name, arguments, call.span, callee)
    }

    /// The node of a call of a local function; `function` is where the called function's
    /// value is (the callee, or a callback).
    fn call_node(
        &mut self,
        target: String,
        name: Option<String>,
        arguments: IndexMap<String, ArgumentValue>,
        span: SwcSpan,
        function: SwcSpan,
    ) -> String {
        let mut node = self.new_node(NodeKind::Call, span);
        node.function = Some(target);
        node.name = name;
        if !arguments.is_empty() {
            node.arguments = Some(arguments);
        }
        let id = self.add_node(node);
        let function = self.offsets(function);
        self.probe(ProbeKind::Invoke, Site::Invoke { function });
        id
    }

    /// A tool used as a value (`names.map(mcp.fs.read)`, `then(read)`): a node of its own,
    /// without arguments (they are known only when a call is made through it); the value is
    /// wrapped so that every call made through it is traced under that node.
    fn tool_value(&mut self, e: &Expr, server: &str, tool: &str) {
        let mut node = self.new_node(NodeKind::Task, e.span());
        node.tool = Some(concat(&[server, ":", tool]));
        let id = self.add_node(node);
        self.warn(
            diagnostics::FUNCTION_VALUE,
            format!(
                "{id}: `{}` is used as a value: the calls made through it are traced under {id}, but when, how often and with which arguments is up to whoever calls it",
                self.text(e.span())
            ),
            e.span(),
        );
        let callee = self.offsets(e.span());
        self.probe(
            ProbeKind::Call,
            Site::Call {
                callee,
                awaited: false,
            },
        );
    }

    /// What `e` is when it names `mcp`, one of its servers or tools (directly or through an
    /// alias).
    fn mcp_alias(&self, e: &Expr) -> Option<Binding> {
        match strip(e) {
            Expr::Ident(id) => match self.lookup(&id.sym) {
                None if &*id.sym == "mcp" => Some(Binding::Mcp),
                Some(b @ (Binding::Mcp | Binding::McpServer(_) | Binding::McpTool(..))) => {
                    Some(b.clone())
                }
                _ => None,
            },
            Expr::Member(m) => {
                let base = self.mcp_alias(&m.obj)?;
                alias_member(&base, prop_static_name(&m.prop, self)?)
            }
            _ => None,
        }
    }

    /// `const fs = mcp.filesystem`, `const { filesystem: fs } = mcp`: names for `mcp`'s parts.
    fn bind_alias(&mut self, pat: &Pat, alias: Binding) {
        match pat {
            Pat::Ident(id) => {
                self.agents.insert(id.id.sym.clone());
                self.bind(&id.id.sym, alias);
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => {
                            match fold::prop_name(&kv.key).and_then(|k| alias_member(&alias, k)) {
                                Some(part) => self.bind_alias(&kv.value, part),
                                None => self.bind_opaque(&kv.value),
                            }
                        }
                        ObjectPatProp::Assign(a) if a.value.is_none() => {
                            let name = &a.key.id.sym;
                            match alias_member(&alias, name.as_str().to_owned()) {
                                Some(part) => {
                                    self.agents.insert(name.clone());
                                    self.bind(name, part);
                                }
                                None => self.bind(name, Binding::Opaque),
                            }
                        }
                        ObjectPatProp::Assign(a) => self.bind(&a.key.id.sym, Binding::Opaque),
                        ObjectPatProp::Rest(rest) => self.bind_opaque(&rest.arg),
                    }
                }
            }
            other => self.bind_opaque(other),
        }
    }

    // ----- rewriting ----------------------------------------------------------------------

    /// The source text of `e` with bound names replaced by the node results they hold.
    pub(crate) fn rewrite_text(&self, e: &Expr) -> String {
        rewrite::rewrite(self, e).0
    }

    /// [`Builder::rewrite_text`], and the names the text reads.
    pub(crate) fn rewrite_reading(&self, e: &Expr) -> (String, Vec<String>) {
        rewrite::rewrite(self, e)
    }

    /// A reference to what `e` computes.
    fn reference_to(&self, e: &Expr) -> ArgumentValue {
        let (text, reads) = self.rewrite_reading(e);
        ArgumentValue::reference_reading(text, reads)
    }
}

/// The parameter `key` of parameter `base` (`""` is `args` itself).
fn parameter_path(base: &str, key: &str) -> String {
    match base {
        "" => key.to_owned(),
        _ => concat(&[base, ".", key]),
    }
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
const PURE_FUNCTIONS: &[&str] = &[
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
    if key.contains('.') {
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
}

/// A function declaration's parameters and body.
fn function_of(f: &swc_ecma_ast::Function) -> ArrowOrFn<'_> {
    ArrowOrFn {
        body_span: f.body.as_ref().map_or(f.span, |b| b.span),
        params: f.params.iter().map(|p| &p.pat).collect(),
        body: CallbackBody::Block(f.body.as_ref().map(|b| b.stmts.as_slice()).unwrap_or(&[])),
    }
}

fn callback(e: &Expr) -> Option<ArrowOrFn<'_>> {
    match strip(e) {
        Expr::Arrow(ArrowExpr { params, body, .. }) => Some(ArrowOrFn {
            body_span: body.span(),
            params: params.iter().collect(),
            body: match &**body {
                ArrowFunctionBody::Expr(e) => CallbackBody::Expr(e),
                ArrowFunctionBody::FunctionBody(b) => CallbackBody::Block(&b.stmts),
            },
        }),
        Expr::Fn(f) => Some(function_of(&f.function)),
        _ => None,
    }
}
