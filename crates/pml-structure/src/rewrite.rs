//! Syntax-tree queries over expressions: rewriting bound names to node ids, free variables of
//! code, and "does this subtree call an MCP tool?".
//!
//! All of them work on the tree, never on text patterns: strings, comments, object keys and
//! property names (`x.file`) are never touched, and names declared inside a callback shadow the
//! outer bindings.

use rustc_hash::FxHashSet as HashSet;
use swc_atoms::Atom;
use swc_common::{Span, Spanned};
use swc_ecma_ast::{
    ArrowExpr, CallExpr, Callee, Expr, ForHead, Function, MemberProp, ObjectPatProp, Pat, Prop,
    Stmt, VarDecl, VarDeclOrExpr,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::builder::{strip, Binding, Builder};
use crate::canon::scope::{self, DeclKind, Declared};
use crate::canon::{prec_of, Out, Printer, Resolve, CALL, PRIMARY, SEQ, UNARY};
use crate::fold::JsValue;
use crate::model::{path_root, Canonical, Leaves};

/// Every name a binding pattern declares (`canon::scope`'s reading of patterns).
pub(crate) fn pattern_names(pat: &Pat, out: &mut Vec<Atom>) {
    let mut declared = Vec::new();
    scope::pattern_names(pat, DeclKind::Statement, &mut declared);
    out.extend(declared.into_iter().map(|d| d.name.clone()));
}

/// The names declared by the scopes around the node being visited, from the one scope
/// analysis of the crate (`canon::scope`: what each function, block, loop head, catch clause
/// and `switch` declares).
#[derive(Default)]
struct Shadows {
    stack: Vec<HashSet<Atom>>,
}

impl Shadows {
    fn is_shadowed(&self, name: &Atom) -> bool {
        self.stack.iter().any(|s| s.contains(name))
    }

    fn push(&mut self, declared: Vec<Declared<'_>>) {
        self.stack
            .push(declared.into_iter().map(|d| d.name.clone()).collect());
    }

    fn pop(&mut self) {
        self.stack.pop();
    }

    fn arrow(&mut self, a: &ArrowExpr) {
        let body = match &*a.body {
            swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => Some(b.stmts.as_slice()),
            swc_ecma_ast::ArrowFunctionBody::Expr(_) => None,
        };
        self.push(scope::function_names(a.params.iter(), body));
    }

    fn function(&mut self, f: &Function) {
        let body = f.body.as_ref().map(|b| b.stmts.as_slice());
        self.push(scope::function_names(f.params.iter().map(|p| &p.pat), body));
    }

    fn block(&mut self, stmts: &[Stmt]) {
        let mut names = Vec::new();
        scope::block_names(stmts, &mut names);
        self.push(names);
    }

    /// A `for` head's `let`/`const` names (none for `var` or an expression).
    fn loop_head(&mut self, head: Option<&VarDecl>) {
        let mut names = Vec::new();
        if let Some(v) = head {
            scope::loop_head_names(v, &mut names);
        }
        self.push(names);
    }

    fn catch(&mut self, param: Option<&Pat>) {
        let mut names = Vec::new();
        if let Some(p) = param {
            scope::pattern_names(p, DeclKind::Catch, &mut names);
        }
        self.push(names);
    }

    fn switch(&mut self, cases: &[swc_ecma_ast::SwitchCase]) {
        let mut names = Vec::new();
        scope::switch_names(cases, &mut names);
        self.push(names);
    }
}

/// The `var`/`let`/`const` of a `for ... in/of` head.
fn head_decl(head: &ForHead) -> Option<&VarDecl> {
    match head {
        ForHead::VarDecl(v) => Some(v),
        _ => None,
    }
}

/// The scopes every visitor below enters the same way (`$visitor` has a `shadows` field).
macro_rules! scoped_visits {
    () => {
        fn visit_block_stmt(&mut self, b: &swc_ecma_ast::BlockStmt) {
            self.shadows.block(&b.stmts);
            b.visit_children_with(self);
            self.shadows.pop();
        }

        fn visit_for_stmt(&mut self, f: &swc_ecma_ast::ForStmt) {
            let head = match &f.init {
                Some(VarDeclOrExpr::VarDecl(v)) => Some(&**v),
                _ => None,
            };
            self.shadows.loop_head(head);
            f.visit_children_with(self);
            self.shadows.pop();
        }

        fn visit_for_in_stmt(&mut self, f: &swc_ecma_ast::ForInStmt) {
            self.shadows.loop_head(head_decl(&f.left));
            f.visit_children_with(self);
            self.shadows.pop();
        }

        fn visit_for_of_stmt(&mut self, f: &swc_ecma_ast::ForOfStmt) {
            self.shadows.loop_head(head_decl(&f.left));
            f.visit_children_with(self);
            self.shadows.pop();
        }

        fn visit_catch_clause(&mut self, c: &swc_ecma_ast::CatchClause) {
            self.shadows.catch(c.param.as_ref());
            // Its pattern's default values read names.
            c.param.visit_with(self);
            c.body.visit_with(self);
            self.shadows.pop();
        }

        fn visit_constructor(&mut self, c: &swc_ecma_ast::Constructor) {
            let params = (c.params.iter()).filter_map(|p| match p {
                swc_ecma_ast::ParamOrTsParamProp::Param(p) => Some(&p.pat),
                swc_ecma_ast::ParamOrTsParamProp::TsParamProp(_) => None,
            });
            let body = c.body.as_ref().map(|b| b.stmts.as_slice());
            self.shadows.push(scope::function_names(params, body));
            c.params.visit_with(self);
            c.body.visit_with(self);
            self.shadows.pop();
        }

        fn visit_switch_stmt(&mut self, s: &swc_ecma_ast::SwitchStmt) {
            s.discriminant.visit_with(self);
            self.shadows.switch(&s.cases);
            s.cases.visit_with(self);
            self.shadows.pop();
        }

        fn visit_fn_expr(&mut self, f: &swc_ecma_ast::FnExpr) {
            // A function expression's own name is declared between the outer scope and its
            // parameters.
            let own: Vec<Declared<'_>> = (f.ident.iter())
                .map(|i| Declared {
                    name: &i.sym,
                    kind: DeclKind::Named,
                })
                .collect();
            self.shadows.push(own);
            f.function.visit_with(self);
            self.shadows.pop();
        }
    };
}

// ----- rewriting ---------------------------------------------------------------------------

struct Rewriter<'b, 'a> {
    b: &'b Builder<'a>,
    shadows: Shadows,
    /// Byte ranges of the source and what replaces each (with its marks).
    edits: Vec<(usize, usize, String, Leaves)>,
    root: (u32, u32),
    /// The names the rewritten text reads.
    reads: Vec<String>,
}

impl Rewriter<'_, '_> {
    fn read(&mut self, name: &str) {
        if !name.is_empty() && !self.reads.iter().any(|r| r == name) {
            self.reads.push(name.to_owned());
        }
    }

    /// What a free name becomes (`None`: itself) and where that stands for each element of a
    /// collection, noting what it reads.
    fn binding_text(&mut self, name: &Atom) -> Option<(String, Leaves)> {
        if self.shadows.is_shadowed(name) {
            return None;
        }
        // The bindings outlive this borrow of the rewriter.
        let b = self.b;
        let text = match b.lookup(name) {
            Some(Binding::Node(v)) => {
                self.read(path_root(v));
                return Some((v.clone(), Leaves::of_path(v)));
            }
            Some(Binding::Template(v) | Binding::Expr { value: v, .. }) => {
                v.reads.iter().for_each(|r| self.read(r));
                return Some((v.text.clone(), v.leaves.clone()));
            }
            Some(Binding::Element(v)) => Some(js_literal(v)),
            Some(
                Binding::Literal(_)
                | Binding::Opaque
                | Binding::Function(_)
                | Binding::Mcp
                | Binding::McpServer(_)
                | Binding::McpTool(..),
            )
            | None => None,
        };
        if let Some(text) = text {
            return Some((text, Leaves::none()));
        }
        // A name of the program that looks like a node id is written escaped: it is not
        // that node's result.
        let escaped = crate::model::escape_name(name);
        self.read(&escaped);
        match escaped {
            std::borrow::Cow::Owned(escaped) => Some((escaped, Leaves::none())),
            std::borrow::Cow::Borrowed(_) => None,
        }
    }

    fn edit(&mut self, span: Span, (text, leaves): (String, Leaves)) {
        let (lo, hi) = self.b.offsets(span);
        self.edits.push((lo, hi, text, leaves));
    }
}

impl Rewriter<'_, '_> {
    /// A literal (string, template part, regular expression) whose text holds `[*]`, the
    /// builder's mark for "each element" in what it writes, is written with the `*` escaped
    /// (`"a[\*]"`, `/[\*]/`: the same value): the only `[*]` in a rewritten text is the mark.
    fn literal(&mut self, span: Span) {
        let (lo, hi) = self.b.offsets(span);
        let Some(text) = self.b.src.get(lo..hi) else {
            return;
        };
        if text.contains(Leaves::MARK) {
            let escaped = text.replace(Leaves::MARK, "[\\*]");
            self.edits.push((lo, hi, escaped, Leaves::none()));
        }
    }
}

impl Visit for Rewriter<'_, '_> {
    fn visit_str(&mut self, s: &swc_ecma_ast::Str) {
        self.literal(s.span);
    }

    fn visit_regex(&mut self, r: &swc_ecma_ast::Regex) {
        self.literal(r.span);
    }

    fn visit_tpl_element(&mut self, t: &swc_ecma_ast::TplElement) {
        self.literal(t.span);
    }

    fn visit_expr(&mut self, e: &Expr) {
        let span = e.span();
        let key = (span.lo.0, span.hi.0);
        if key != self.root {
            if let Some(id) = self.b.node_spans.get(&key) {
                let id = id.clone();
                self.read(path_root(&id));
                let leaves = Leaves::of_path(&id);
                self.edit(span, (id, leaves));
                return;
            }
        }
        if let Expr::Ident(id) = e {
            if let Some(text) = self.binding_text(&id.sym) {
                self.edit(id.span, text);
            }
            return;
        }
        e.visit_children_with(self);
    }

    fn visit_prop(&mut self, p: &Prop) {
        if let Prop::Shorthand(id) = p {
            if let Some((text, leaves)) = self.binding_text(&id.sym) {
                let key = concat_key(&id.sym);
                let leaves = leaves.shifted(key.len());
                self.edit(id.span, (key + &text, leaves));
            }
            return;
        }
        p.visit_children_with(self);
    }

    fn visit_member_prop(&mut self, p: &MemberProp) {
        if let MemberProp::Computed(c) = p {
            c.visit_with(self);
        }
    }

    fn visit_arrow_expr(&mut self, a: &ArrowExpr) {
        self.shadows.arrow(a);
        a.body.visit_with(self);
        self.shadows.pop();
    }

    fn visit_function(&mut self, f: &Function) {
        self.shadows.function(f);
        f.body.visit_with(self);
        self.shadows.pop();
    }

    scoped_visits!();
}

/// A JS literal for a folded value (used where an unrolled `map` parameter is substituted).
fn js_literal(v: &JsValue) -> String {
    match v.to_json() {
        Some(json) => json.to_string(),
        None => v.to_js_string(),
    }
}

/// `name: ` (a shorthand property written out).
fn concat_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len() + 2 + 16);
    key.push_str(name);
    key.push_str(": ");
    key
}

/// The source text of `e` with every bound name (and every sub-expression that is a node's
/// result) replaced by the node result it holds: `file.content` -> `n1.content`; the names
/// that text reads (node ids, free names), once each, in order; where it stands for each
/// element of a collection (the marks of the texts it took in).
pub(crate) fn rewrite(b: &Builder<'_>, e: &Expr) -> (String, Vec<String>, Leaves) {
    let span = e.span();
    let root = (span.lo.0, span.hi.0);
    if let Some(id) = b.node_spans.get(&root) {
        return (
            id.clone(),
            vec![path_root(id).to_owned()],
            Leaves::of_path(id),
        );
    }
    let mut r = Rewriter {
        b,
        shadows: Shadows::default(),
        edits: Vec::new(),
        root,
        reads: Vec::new(),
    };
    e.visit_with(&mut r);
    let reads = std::mem::take(&mut r.reads);
    let (lo, hi) = b.offsets(span);
    let text = b.src.get(lo..hi).unwrap_or("");
    if r.edits.is_empty() {
        return (text.to_string(), reads, Leaves::none());
    }
    r.edits.sort_by_key(|(s, ..)| *s);
    let mut out = String::with_capacity(text.len() + 16);
    let mut marks = Leaves::none();
    let mut at = lo;
    for (s, e, replacement, leaves) in r.edits {
        if s < at || e > hi {
            continue;
        }
        out.push_str(b.src.get(at..s).unwrap_or(""));
        marks.extend_at(&leaves, out.len());
        out.push_str(&replacement);
        at = e;
    }
    out.push_str(b.src.get(at..hi).unwrap_or(""));
    (out, reads, marks)
}

// ----- free variables ----------------------------------------------------------------------

pub(crate) struct FreeVars {
    shadows: Shadows,
    seen: HashSet<Atom>,
    out: Vec<String>,
    /// Where each name of `out` is first read (`BytePos`).
    at: Vec<u32>,
    /// The first `import(..)` or `import.meta`, and where.
    dynamic: Option<(&'static str, u32)>,
    /// Spans (lo, hi) of sub-expressions not to look into.
    skip: Vec<(u32, u32)>,
}

impl FreeVars {
    fn new(skip: Vec<(u32, u32)>) -> Self {
        FreeVars {
            shadows: Shadows::default(),
            seen: HashSet::default(),
            out: Vec::new(),
            at: Vec::new(),
            dynamic: None,
            skip,
        }
    }

    fn note(&mut self, name: &Atom, at: u32) {
        if !self.shadows.is_shadowed(name) && self.seen.insert(name.clone()) {
            self.out.push(name.to_string());
            self.at.push(at);
        }
    }
}

impl Visit for FreeVars {
    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Ident(id) = e {
            self.note(&id.sym, id.span.lo.0);
            return;
        }
        if let Expr::MetaProp(m) = e {
            if m.kind == swc_ecma_ast::MetaPropKind::ImportMeta && self.dynamic.is_none() {
                self.dynamic = Some(("import.meta", m.span.lo.0));
            }
            return;
        }
        if let Expr::Call(CallExpr {
            callee: Callee::Import(i),
            ..
        }) = e
        {
            if self.dynamic.is_none() {
                self.dynamic = Some(("import()", i.span.lo.0));
            }
        }
        if !self.skip.is_empty() {
            let span = e.span();
            if self.skip.contains(&(span.lo.0, span.hi.0)) {
                return;
            }
        }
        e.visit_children_with(self);
    }

    fn visit_prop(&mut self, p: &Prop) {
        if let Prop::Shorthand(id) = p {
            self.note(&id.sym, id.span.lo.0);
            return;
        }
        p.visit_children_with(self);
    }

    fn visit_member_prop(&mut self, p: &MemberProp) {
        if let MemberProp::Computed(c) = p {
            c.visit_with(self);
        }
    }

    fn visit_arrow_expr(&mut self, a: &ArrowExpr) {
        self.shadows.arrow(a);
        // Default values of parameters are evaluated in the outer scope... close enough: they
        // are visited with the parameters in scope, which only hides a name that shadows itself.
        a.params.visit_with(self);
        a.body.visit_with(self);
        self.shadows.pop();
    }

    fn visit_function(&mut self, f: &Function) {
        self.shadows.function(f);
        f.params.visit_with(self);
        f.body.visit_with(self);
        self.shadows.pop();
    }

    scoped_visits!();

    fn visit_simple_assign_target(&mut self, t: &swc_ecma_ast::SimpleAssignTarget) {
        // `total += x` / `count++` read and write an outer name.
        if let swc_ecma_ast::SimpleAssignTarget::Ident(id) = t {
            self.note(&id.id.sym, id.id.span.lo.0);
            return;
        }
        t.visit_children_with(self);
    }

    fn visit_pat(&mut self, p: &Pat) {
        // Binding names are declarations, not uses; default values are uses.
        match p {
            Pat::Assign(a) => a.right.visit_with(self),
            Pat::Expr(e) => e.visit_with(self),
            Pat::Array(arr) => arr.elems.visit_with(self),
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => kv.value.visit_with(self),
                        ObjectPatProp::Assign(a) => a.value.visit_with(self),
                        ObjectPatProp::Rest(r) => r.arg.visit_with(self),
                    }
                }
            }
            Pat::Rest(r) => r.arg.visit_with(self),
            Pat::Ident(_) | Pat::Invalid(_) => {}
        }
    }
}

/// Names an expression reads that it does not declare itself, in order of first use.
pub(crate) fn free_variables<N: VisitWith<FreeVars> + ?Sized>(e: &N) -> Vec<String> {
    free_variables_outside(e, Vec::new())
}

/// [`free_variables`] of a statement (a loop's code): the `var`s it declares are its own too.
pub(crate) fn free_variables_of(stmt: &Stmt) -> Vec<String> {
    let mut vars = Vec::new();
    scope::var_names(std::slice::from_ref(stmt), &mut vars);
    let mut fv = FreeVars::new(Vec::new());
    fv.shadows.push(vars);
    stmt.visit_with(&mut fv);
    fv.out
}

/// [`free_variables`], not looking into the sub-expressions at `skip` (spans `(lo, hi)`).
pub(crate) fn free_variables_outside<N: VisitWith<FreeVars> + ?Sized>(
    e: &N,
    skip: Vec<(u32, u32)>,
) -> Vec<String> {
    free_variables_at(e, skip).names
}

/// The names some code reads (outside `skip`), where each is first read, and its first
/// `import(..)`/`import.meta`.
pub(crate) struct CodeReads {
    pub(crate) names: Vec<String>,
    /// `BytePos` of each name's first read.
    pub(crate) at: Vec<u32>,
    pub(crate) dynamic: Option<(&'static str, u32)>,
}

pub(crate) fn free_variables_at<N: VisitWith<FreeVars> + ?Sized>(
    e: &N,
    skip: Vec<(u32, u32)>,
) -> CodeReads {
    let mut fv = FreeVars::new(skip);
    e.visit_with(&mut fv);
    CodeReads {
        names: fv.out,
        at: fv.at,
        dynamic: fv.dynamic,
    }
}

/// Names that code may read without anything in the program providing them: JavaScript
/// globals, and what the runtime gives every task (`args`, `mcp`, `capabilities`). (The hash
/// prints these as they are and renames other free names: a name added here changes the hash
/// of the programs that read it, so it comes with a new hash version. The timers, `crypto`
/// and `DOMException` the sandbox has are not here yet for that reason.)
pub fn is_global(name: &str) -> bool {
    matches!(
        name,
        "args"
            | "mcp"
            | "capabilities"
            | "undefined"
            | "NaN"
            | "Infinity"
            | "Math"
            | "JSON"
            | "Object"
            | "Array"
            | "String"
            | "Number"
            | "Boolean"
            | "Date"
            | "RegExp"
            | "Map"
            | "Set"
            | "WeakMap"
            | "WeakSet"
            | "Symbol"
            | "BigInt"
            | "Error"
            | "TypeError"
            | "RangeError"
            | "SyntaxError"
            | "globalThis"
            | "Reflect"
            | "URL"
            | "URLSearchParams"
            | "TextEncoder"
            | "TextDecoder"
            | "atob"
            | "btoa"
            | "Promise"
            | "parseInt"
            | "parseFloat"
            | "isNaN"
            | "isFinite"
            | "encodeURIComponent"
            | "decodeURIComponent"
            | "encodeURI"
            | "decodeURI"
            | "Intl"
            | "structuredClone"
            | "console"
    )
}

// ----- agent calls -------------------------------------------------------------------------

pub(crate) struct AgentCallFinder<'n> {
    found: bool,
    agents: &'n AgentNames,
}

/// Names the builder knows call tools when called: local functions that call tools, and
/// aliases of `mcp` (`const fs = mcp.filesystem`).
pub(crate) type AgentNames = rustc_hash::FxHashSet<Atom>;

impl Visit for AgentCallFinder<'_> {
    fn visit_call_expr(&mut self, call: &CallExpr) {
        if self.found {
            return;
        }
        if let Callee::Expr(callee) = &call.callee {
            if is_agent_callee(callee, self.agents) {
                self.found = true;
                return;
            }
        }
        call.visit_children_with(self);
    }
}

/// `mcp.<server>.<tool>` / `mcp.<server>[...]` / `capabilities.<name>` (syntactically), or a
/// call through one of `agents` (`load(..)`, `fs.read_file(..)`).
fn is_agent_callee(callee: &Expr, agents: &AgentNames) -> bool {
    let Expr::Member(outer) = strip(callee) else {
        return matches!(strip(callee), Expr::Ident(id) if agents.contains(&id.sym));
    };
    if let Expr::Member(inner) = strip(&outer.obj) {
        match strip(&inner.obj) {
            Expr::Ident(id) if &*id.sym == "mcp" || agents.contains(&id.sym) => return true,
            _ => {}
        }
    }
    matches!(strip(&outer.obj), Expr::Ident(id) if &*id.sym == "capabilities" || agents.contains(&id.sym))
}

/// Does this subtree (including nested functions) call an MCP tool or a capability (directly
/// or through one of `agents`)?
pub(crate) fn contains_agent_call<N: for<'n> VisitWith<AgentCallFinder<'n>> + ?Sized>(
    node: &N,
    agents: &AgentNames,
) -> bool {
    let mut finder = AgentCallFinder {
        found: false,
        agents,
    };
    node.visit_with(&mut finder);
    finder.found
}

/// Post-order walk recording, for every expression under `e`, whether it calls a tool.
struct MemoFinder<'m> {
    memo: &'m mut rustc_hash::FxHashMap<(u32, u32), bool>,
    agents: &'m AgentNames,
    /// One flag per open expression: does its subtree call a tool so far?
    stack: Vec<bool>,
}

/// The expressions whose answer is remembered: those the builder asks about again inside an
/// expression it already asked about (the right sides of nested `&&`/`||`/`??`, callbacks in
/// callbacks). Remembering every sub-expression would cost a map insert per node.
fn remembered(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Bin(_) | Expr::Paren(_) | Expr::Arrow(_) | Expr::Fn(_) | Expr::Cond(_)
    )
}

impl Visit for MemoFinder<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        let span = e.span();
        let key = (span.lo.0, span.hi.0);
        let remember = remembered(e);
        if remember {
            if let Some(&known) = self.memo.get(&key) {
                if known {
                    if let Some(top) = self.stack.last_mut() {
                        *top = true;
                    }
                }
                return;
            }
        }
        let own = matches!(e, Expr::Call(CallExpr { callee: Callee::Expr(c), .. }) if is_agent_callee(c, self.agents));
        self.stack.push(own);
        e.visit_children_with(self);
        let found = self.stack.pop().unwrap_or(false);
        if remember {
            self.memo.insert(key, found);
        }
        if found {
            if let Some(top) = self.stack.last_mut() {
                *top = true;
            }
        }
    }
}

/// [`contains_agent_call`] for expressions, memoised across calls.
pub(crate) fn calls_tools_memo(
    e: &Expr,
    memo: &mut rustc_hash::FxHashMap<(u32, u32), bool>,
    agents: &AgentNames,
) -> bool {
    let span = e.span();
    if let Some(&known) = memo.get(&(span.lo.0, span.hi.0)) {
        return known;
    }
    let mut finder = MemoFinder {
        memo,
        agents,
        stack: vec![false],
    };
    e.visit_with(&mut finder);
    finder.stack.pop().unwrap_or(false)
}

// ----- canonical printing ------------------------------------------------------------------

/// What the builder's texts print their names as: [`rewrite`]'s reading of a reference or a
/// condition (a node's result is its path, a constant expression its own printing, a loop
/// element its value), or code's (only the operands read from nodes are replaced; every free
/// name is a hole: the code's inputs are named by them).
pub(crate) struct Names<'b, 'a> {
    b: &'b Builder<'a>,
    /// The span of the whole text, which is not replaced by the node it may be.
    root: (u32, u32),
    mode: NamesMode<'b>,
}

enum NamesMode<'b> {
    Reference,
    Code {
        /// Spans of the operands read from nodes (their inputs are named by the node ids).
        operands: &'b [(u32, u32)],
        /// The span of a chain link's receiver, its `$receiver` input.
        receiver: Option<(u32, u32)>,
    },
}

impl Resolve for Names<'_, '_> {
    fn free(&mut self, name: &str, min: u8, out: &mut Out) {
        if let NamesMode::Code { .. } = self.mode {
            // A global the program does not shadow is no input: itself.
            match self.b.lookup(name).is_none() && is_global(name) {
                true => out.push_str(name),
                false => out.hole(name),
            }
            return;
        }
        match self.b.lookup(name) {
            Some(Binding::Node(v)) => out.push_str(v),
            Some(Binding::Template(v) | Binding::Expr { value: v, .. }) => match &v.canonical {
                Some(c) => out.append(c, min),
                None => out.push_str(&v.text),
            },
            Some(Binding::Element(v)) => out.append(&literal(v), min),
            // A global the program does not shadow (`args`, `JSON`): itself.
            None if is_global(name) => out.push_str(name),
            _ => out.hole(&crate::model::escape_name(name)),
        }
    }

    fn replace(&mut self, e: &Expr, out: &mut Out) -> bool {
        let span = e.span();
        let key = (span.lo.0, span.hi.0);
        if key == self.root {
            return false;
        }
        match &self.mode {
            NamesMode::Reference => match self.b.node_spans.get(&key) {
                Some(id) => {
                    out.push_str(id);
                    true
                }
                None => false,
            },
            NamesMode::Code { operands, receiver } => {
                if *receiver == Some(key) {
                    out.hole("$receiver");
                    return true;
                }
                if !operands.contains(&key) {
                    return false;
                }
                let Some(value) = self.b.node_spans.get(&key) else {
                    return false;
                };
                let root = path_root(value);
                out.hole(root);
                out.push_str(&value[root.len()..]);
                true
            }
        }
    }
}

impl<'b, 'a> Names<'b, 'a> {
    /// The names of code whose only inputs are its free names (a loop's, a function's).
    fn code(b: &'b Builder<'a>) -> Self {
        Names {
            b,
            root: (0, 0),
            mode: NamesMode::Code {
                operands: &[],
                receiver: None,
            },
        }
    }
}

/// A folded value as the canonical printing writes it.
fn literal(v: &JsValue) -> Canonical {
    let mut text = String::new();
    match v.to_json() {
        Some(json) => crate::canon::js_value(&json, false, usize::MAX, &mut text),
        None => text = v.to_js_string(),
    }
    let prec = match text.starts_with('-') {
        true => UNARY,
        false => PRIMARY,
    };
    Canonical {
        text,
        holes: Vec::new(),
        prec,
    }
}

/// `e` as [`rewrite`] reads it (a reference expression, a condition), printed canonically.
pub(crate) fn print_reference(b: &Builder<'_>, e: &Expr) -> Canonical {
    let span = e.span();
    if let Some(id) = b.node_spans.get(&(span.lo.0, span.hi.0)) {
        return Canonical {
            text: id.clone(),
            holes: Vec::new(),
            prec: PRIMARY,
        };
    }
    // A name that stands for an expression is that expression, which binds as it binds.
    if let Expr::Ident(id) = crate::canon::strip(e) {
        let bound = match b.lookup(&id.sym) {
            Some(Binding::Template(v) | Binding::Expr { value: v, .. }) => Some(
                v.canonical
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| Canonical {
                        text: v.text.clone(),
                        holes: Vec::new(),
                        prec: CALL,
                    }),
            ),
            Some(Binding::Element(v)) => Some(literal(v)),
            _ => None,
        };
        if let Some(bound) = bound {
            return bound;
        }
    }
    let mut p = Printer::new(
        b.src,
        b.base,
        Names {
            b,
            root: (span.lo.0, span.hi.0),
            mode: NamesMode::Reference,
        },
    );
    p.expr(e, SEQ);
    p.finish(prec_of(e))
}

/// What a code task's code is: an expression, or a call (a chain link, whose receiver is an
/// input of its own).
pub(crate) enum CodeOf<'t> {
    Expr(&'t Expr),
    Call(&'t CallExpr),
}

/// The code of a `code:*` task printed canonically: the operands at `operands` are read from
/// their nodes, the receiver at `receiver` is the `$receiver` input.
pub(crate) fn print_code(
    b: &Builder<'_>,
    code: CodeOf<'_>,
    operands: &[(u32, u32)],
    receiver: Option<Span>,
) -> Canonical {
    let span = match code {
        CodeOf::Expr(e) => e.span(),
        CodeOf::Call(c) => c.span,
    };
    let names = Names {
        b,
        root: (span.lo.0, span.hi.0),
        mode: NamesMode::Code {
            operands,
            receiver: receiver.map(|r| (r.lo.0, r.hi.0)),
        },
    };
    let mut p = Printer::new(b.src, b.base, names);
    match code {
        CodeOf::Expr(e) => {
            p.expr(e, SEQ);
            p.finish(prec_of(e))
        }
        CodeOf::Call(c) => {
            p.call(c);
            p.finish(crate::canon::CALL)
        }
    }
}

/// A statement that made no node ([`crate::Effect`]) printed canonically: the names it reads
/// as references read them (a bound name as the result or expression it holds), the names it
/// declares at its top (`let s = ...`) as holes like the names it assigns.
pub(crate) fn print_effect(b: &Builder<'_>, stmt: &Stmt) -> Canonical {
    let names = Names {
        b,
        root: (0, 0),
        mode: NamesMode::Reference,
    };
    let mut p = Printer::new(b.src, b.base, names);
    p.effect(stmt);
    p.finish(PRIMARY)
}

/// A whole program printed canonically (its names `_p0, _p1...`).
pub(crate) fn print_program(b: &Builder<'_>, stmts: &[Stmt]) -> Canonical {
    let mut p = Printer::new(b.src, b.base, Names::code(b));
    p.program(stmts);
    p.finish(PRIMARY)
}

/// The code of a loop (its statement, or the call of a callback loop) printed canonically,
/// its free names holes.
pub(crate) fn print_loop(b: &Builder<'_>, code: LoopOf<'_>) -> Canonical {
    let mut p = Printer::new(b.src, b.base, Names::code(b));
    match code {
        LoopOf::Stmt(s) => p.program(std::slice::from_ref(s)),
        LoopOf::Call(c) => p.call_stmt(c),
    }
    p.finish(PRIMARY)
}

/// What a loop's code is.
#[derive(Clone, Copy)]
pub(crate) enum LoopOf<'t> {
    Stmt(&'t Stmt),
    /// A callback loop (`xs.forEach(...)`).
    Call(&'t CallExpr),
}

/// What a local function's code is.
#[derive(Clone)]
pub(crate) enum FunctionOf<'t> {
    /// A declaration's or a method's function.
    Function(&'t Function),
    /// An arrow or a function expression.
    Expr(&'t Expr),
    /// A function of these parameters and body without one of its own (a class's
    /// constructor, or its `static { ... }`).
    Parts(Vec<&'t Pat>, &'t [Stmt]),
}

/// A local function's code printed canonically: one printing whatever its form (see
/// `Printer::function_code`), its free names holes.
pub(crate) fn print_function(b: &Builder<'_>, code: FunctionOf<'_>) -> Canonical {
    let mut p = Printer::new(b.src, b.base, Names::code(b));
    match code {
        FunctionOf::Function(f) => p.function(f),
        FunctionOf::Expr(e) => {
            if !p.function_expr(e) {
                p.expr_stmt(e);
            }
        }
        FunctionOf::Parts(params, stmts) => p.parts_function(params.into_iter(), stmts),
    }
    p.finish(PRIMARY)
}
