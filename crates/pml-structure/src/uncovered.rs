//! Which parts of a program the static structure does not model exactly.
//!
//! The executor runs a program as a DAG only when running the DAG is the same as running the
//! code: every statement is a declaration, an awaited MCP call, `Promise.all` of MCP calls, a
//! pure expression, an `if`/`switch` over such statements, or the final `return`. This check
//! is deliberately a whitelist: anything else (loops, `try`, functions, mutation of a named
//! value, an MCP call that runs only sometimes, an early `return`...) is reported, and such a
//! program runs whole in the sandbox, as written.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    ArrowExpr, ArrowFunctionBody, AssignExpr, AssignTarget, AwaitExpr, BinExpr, BinaryOp, CallExpr,
    Callee, ClassExpr, CondExpr, Decl, Expr, ExprOrSpread, Function, Ident, Lit, MemberExpr,
    MemberProp, MetaPropExpr, NewExpr, ObjectPatProp, OptChainExpr, Pat, SimpleAssignTarget, Stmt,
    SuperPropExpr, SwitchStmt, TaggedTpl, ThisExpr, UnaryExpr, UnaryOp, UpdateExpr, VarDeclKind,
    YieldExpr,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::builder::{method_call, strip};
use crate::rewrite::{root_ident, MUTATING_METHODS};

/// Global functions whose calls are pure and deterministic enough to evaluate anywhere.
const PURE_FUNCTIONS: &[&str] = &[
    "String",
    "Number",
    "Boolean",
    "parseInt",
    "parseFloat",
    "isNaN",
    "isFinite",
    "encodeURIComponent",
    "decodeURIComponent",
    "encodeURI",
    "decodeURI",
    "Array",
    "Error",
    "TypeError",
    "RangeError",
];

/// Constructors an expression may call with `new`.
const PURE_CONSTRUCTORS: &[&str] = &[
    "Map",
    "Set",
    "Date",
    "RegExp",
    "Error",
    "TypeError",
    "RangeError",
    "Array",
    "Object",
    "URL",
];

/// The constructs of `stmts` (the program's body) that a DAG would not run exactly as written:
/// a span and a message each, in source order.
pub(crate) fn uncovered(stmts: &[Stmt]) -> Vec<(Span, String)> {
    let mut check = Check {
        gaps: Vec::new(),
        fresh: fresh_names(stmts),
        last_use: last_uses(stmts),
    };
    let last = stmts.len().saturating_sub(1);
    for (i, stmt) in stmts.iter().enumerate() {
        match stmt {
            Stmt::Return(r) if i == last => {
                if let Some(arg) = &r.arg {
                    check.expr(arg);
                }
            }
            _ => check.stmt(stmt, false),
        }
    }
    check.gaps.sort_by_key(|(span, _)| span.lo);
    check.gaps
}

struct Check {
    gaps: Vec<(Span, String)>,
    /// Top-level `const`s holding a value nothing else refers to (a call's result, a literal).
    fresh: HashSet<String>,
    /// Where each name is written last in the program.
    last_use: HashMap<String, BytePos>,
}

impl Check {
    fn gap(&mut self, span: Span, message: impl Into<String>) {
        self.gaps.push((span, message.into()));
    }

    /// One statement; `in_switch` allows a final `break`.
    fn stmt(&mut self, stmt: &Stmt, in_switch: bool) {
        let span = stmt.span();
        match stmt {
            Stmt::Decl(Decl::Var(var)) => {
                if var.kind == VarDeclKind::Var {
                    self.gap(span, "a `var` declaration (hoisted, function-scoped)");
                }
                for d in &var.decls {
                    let all = matches!(d.init.as_deref().map(strip), Some(Expr::Call(c)) if promise_method(c) == Some("all"));
                    if matches!(d.name, Pat::Array(_)) && !all {
                        // Only `Promise.all` surely gives an array; destructuring anything
                        // else can throw ("not iterable"), which the DAG does not model.
                        self.gap(
                            d.span,
                            "array destructuring of something other than `Promise.all`",
                        );
                    }
                    self.pattern(&d.name);
                    match &d.init {
                        Some(init) => self.expr(init),
                        None => self.gap(d.span, "a variable declared without a value"),
                    }
                }
            }
            Stmt::Decl(Decl::TsInterface(_) | Decl::TsTypeAlias(_)) => {}
            Stmt::Decl(Decl::Fn(_)) => self.gap(span, "a function declaration"),
            Stmt::Decl(Decl::Class(_)) => self.gap(span, "a class declaration"),
            Stmt::Decl(_) => self.gap(span, "a declaration that needs compiling"),
            Stmt::Expr(e) => self.expr(&e.expr),
            Stmt::Block(b) => b.stmts.iter().for_each(|s| self.stmt(s, false)),
            Stmt::Empty(_) => {}
            Stmt::If(i) => {
                self.expr(&i.test);
                self.stmt(&i.cons, false);
                if let Some(alt) = &i.alt {
                    self.stmt(alt, false);
                }
            }
            Stmt::Switch(s) => self.switch(s),
            Stmt::Break(b) if in_switch && b.label.is_none() => {}
            Stmt::Return(_) => self.gap(span, "a `return` before the end of the program"),
            Stmt::Throw(_) => self.gap(span, "a `throw` statement"),
            Stmt::Try(_) => self.gap(span, "a `try` statement"),
            Stmt::For(_) | Stmt::ForIn(_) | Stmt::ForOf(_) | Stmt::While(_) | Stmt::DoWhile(_) => {
                self.gap(span, "a loop")
            }
            Stmt::Labeled(_) => self.gap(span, "a labelled statement"),
            Stmt::Break(_) | Stmt::Continue(_) => self.gap(span, "a `break` or `continue`"),
            Stmt::With(_) => self.gap(span, "a `with` statement"),
            Stmt::Debugger(_) => {}
        }
    }

    fn switch(&mut self, s: &SwitchStmt) {
        self.expr(&s.discriminant);
        for case in &s.cases {
            if let Some(test) = &case.test {
                if !is_literal(test) {
                    self.gap(test.span(), "a `case` whose value is not a literal");
                }
                if let Expr::Lit(Lit::Str(text)) = strip(test) {
                    let text = text.value.to_string_lossy();
                    if serde_json::from_str::<serde_json::Value>(&text)
                        .is_ok_and(|v| !v.is_string())
                    {
                        self.gap(
                            test.span(),
                            "a string `case` that reads like a number, boolean or null",
                        );
                    }
                }
            }
            let last = case.cons.len().saturating_sub(1);
            for (i, stmt) in case.cons.iter().enumerate() {
                self.stmt(stmt, i == last);
            }
        }
    }

    /// A declared pattern: names, nested destructuring; no defaults, no rest.
    fn pattern(&mut self, pat: &Pat) {
        match pat {
            Pat::Ident(id) => self.name(&id.id),
            Pat::Array(arr) => {
                for p in arr.elems.iter().flatten() {
                    self.pattern(p);
                }
            }
            Pat::Object(obj) => {
                for prop in &obj.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => self.pattern(&kv.value),
                        ObjectPatProp::Assign(a) if a.value.is_none() => self.name(&a.key.id),
                        _ => self.gap(prop.span(), "a default or rest in destructuring"),
                    }
                }
            }
            _ => self.gap(pat.span(), "a default or rest in destructuring"),
        }
    }

    fn name(&mut self, id: &Ident) {
        if clashes(&id.sym) {
            self.gap(
                id.span,
                format!("the name `{}` looks like a task id or pml's own", id.sym),
            );
        }
    }

    fn expr(&mut self, e: &Expr) {
        let mut visitor = Exprs {
            check: self,
            sometimes: 0,
            locals: Vec::new(),
            computed: 0,
        };
        e.visit_with(&mut visitor);
    }
}

/// The expression walk: where MCP calls may sit, which calls and mutations are allowed.
struct Exprs<'c> {
    check: &'c mut Check,
    /// Above zero inside code that runs only sometimes, or later, or repeatedly: a branch of `?:`,
    /// the right side of `&&`/`||`/`??`, an optional chain, a callback.
    sometimes: usize,
    /// Names declared by the enclosing callbacks (their parameters and variables): these may
    /// be assigned and mutated freely.
    locals: Vec<HashSet<String>>,
    /// Above zero inside an operation whose code becomes a task's code (a call, an operator, a
    /// template): an MCP call there would be part of that code instead of a task of its own.
    computed: usize,
}

impl Exprs<'_> {
    fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|l| l.contains(name))
    }

    /// An MCP call that runs exactly once, where it is written: its arguments are checked.
    fn mcp_call(&mut self, call: &CallExpr) {
        if self.sometimes > 0 {
            self.check.gap(
                call.span,
                "an MCP call that runs only sometimes or repeatedly (in `?:`, `&&`, `||`, `??`, `?.` or a callback)",
            );
        } else if self.computed > 0 {
            self.check.gap(
                call.span,
                "an MCP call inside a computation (bind its result to a name first)",
            );
        }
        // Its arguments are argument positions again.
        let computed = std::mem::take(&mut self.computed);
        call.args.visit_with(self);
        self.computed = computed;
    }

    /// `Promise.all([...])`: each element an MCP call, or `[...].map(x => mcp.s.t(...))`.
    fn promise_all(&mut self, call: &CallExpr) {
        let elements = match call.args.as_slice() {
            [ExprOrSpread { spread: None, expr }] => expr,
            _ => {
                self.check
                    .gap(call.span, "`Promise.all` of something other than a list");
                return;
            }
        };
        match strip(elements) {
            Expr::Array(arr) => {
                for elem in &arr.elems {
                    match elem {
                        Some(ExprOrSpread { spread: None, expr }) => match mcp_call(expr) {
                            Some(c) => self.mcp_call(c),
                            None => self.check.gap(
                                expr.span(),
                                "a `Promise.all` element that is not an MCP call",
                            ),
                        },
                        _ => self
                            .check
                            .gap(call.span, "a hole or spread in `Promise.all`"),
                    }
                }
            }
            Expr::Call(map) => match mapped_call(map) {
                Some((receiver, param, inner)) => {
                    receiver.visit_with(self);
                    self.locals.push(HashSet::from_iter([param]));
                    self.mcp_call(inner);
                    self.locals.pop();
                }
                None => self
                    .check
                    .gap(map.span, "`Promise.all` over a computed list"),
            },
            other => self
                .check
                .gap(other.span(), "`Promise.all` over a computed list"),
        }
    }

    /// Changing the value of `root` in place (assigning to a member, deleting one, a method
    /// like `.sort()`): fine for callback locals, and for a fresh top-level value the program
    /// never reads again (`const top = merged.sort(...)`: the DAG's sorted copy is all anyone
    /// sees). Anything else would make the DAG's copies differ from the program's one value.
    fn mutation(&mut self, span: Span, root: Option<&str>, what: &str) {
        match root {
            Some(name) if self.is_local(name) => {}
            Some(name)
                if self.check.fresh.contains(name)
                    && self
                        .check
                        .last_use
                        .get(name)
                        .is_some_and(|&last| last < span.hi) => {}
            Some(name) => self
                .check
                .gap(span, format!("{what} `{name}` after it was declared")),
            None => self.check.gap(span, format!("{what} a computed target")),
        }
    }

    fn callback<N: VisitWith<Self>>(&mut self, params: HashSet<String>, body: &N) {
        self.sometimes += 1;
        self.locals.push(params);
        body.visit_with(self);
        self.locals.pop();
        self.sometimes -= 1;
    }
}

impl Visit for Exprs<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        // Wrappers, member reads and literals keep the position; anything else computes.
        let keeps = matches!(
            e,
            Expr::Paren(_)
                | Expr::Await(_)
                | Expr::Member(_)
                | Expr::Object(_)
                | Expr::Array(_)
                | Expr::Ident(_)
                | Expr::Lit(_)
                | Expr::TsAs(_)
                | Expr::TsNonNull(_)
                | Expr::TsSatisfies(_)
                | Expr::TsConstAssertion(_)
                | Expr::TsTypeAssertion(_)
        ) || matches!(e, Expr::Call(c) if is_mcp_callee(c) || promise_method(c).is_some());
        self.computed += usize::from(!keeps);
        e.visit_children_with(self);
        self.computed -= usize::from(!keeps);
    }

    fn visit_await_expr(&mut self, a: &AwaitExpr) {
        let inner = strip(&a.arg);
        if let Expr::Call(call) = inner {
            if is_mcp_callee(call) {
                return self.mcp_call(call);
            }
            if promise_method(call) == Some("all") {
                if self.sometimes > 0 {
                    self.check
                        .gap(call.span, "a `Promise.all` that runs only sometimes");
                }
                return self.promise_all(call);
            }
            if matches!(&call.callee, Callee::Expr(c) if is_capability_callee(c)) {
                self.check.gap(call.span, "a capability call");
                return;
            }
            if promise_method(call) == Some("allSettled") {
                self.check.gap(
                    call.span,
                    "`Promise.allSettled` (its rejections are values the DAG does not model)",
                );
                return;
            }
        }
        self.check.gap(
            a.span,
            "an `await` of something other than an MCP call or `Promise.all`",
        );
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        let Callee::Expr(callee) = &call.callee else {
            self.check.gap(call.span, "a `super` or `import` call");
            return;
        };
        if is_mcp_callee(call) {
            self.check.gap(
                call.span,
                "an MCP call without `await` (its timing is open)",
            );
            call.args.visit_with(self);
            return;
        }
        if is_capability_callee(callee) {
            self.check.gap(call.span, "a capability call");
            return;
        }
        if promise_method(call).is_some() {
            self.check
                .gap(call.span, "a `Promise` call without `await`");
            return;
        }
        match strip(callee) {
            Expr::Member(m) => {
                if let MemberProp::Ident(method) = &m.prop {
                    if MUTATING_METHODS.contains(&&*method.sym) && !is_fresh(&m.obj) {
                        let what = format!("`.{}()` changes", method.sym);
                        self.mutation(call.span, root_ident(&m.obj), &what);
                    }
                    let object_assign = &*method.sym == "assign"
                        && matches!(strip(&m.obj), Expr::Ident(o) if &*o.sym == "Object");
                    if object_assign {
                        if let Some(first) = call.args.first() {
                            if !is_fresh(&first.expr) {
                                self.mutation(
                                    call.span,
                                    root_ident(&first.expr),
                                    "`Object.assign` changes",
                                );
                            }
                        }
                    }
                }
                m.visit_with(self);
            }
            Expr::Ident(f) if PURE_FUNCTIONS.contains(&&*f.sym) || self.is_local(&f.sym) => {}
            Expr::Ident(f) => self.check.gap(call.span, format!("a call to `{}`", f.sym)),
            Expr::Arrow(_) | Expr::Fn(_) => {
                self.check.gap(call.span, "an immediately invoked function")
            }
            other => other.visit_with(self),
        }
        call.args.visit_with(self);
    }

    fn visit_new_expr(&mut self, n: &NewExpr) {
        match strip(&n.callee) {
            Expr::Ident(c) if PURE_CONSTRUCTORS.contains(&&*c.sym) => {}
            _ => self.check.gap(n.span, "a `new` of an unknown constructor"),
        }
        n.args.visit_with(self);
    }

    fn visit_cond_expr(&mut self, c: &CondExpr) {
        c.test.visit_with(self);
        self.sometimes += 1;
        c.cons.visit_with(self);
        c.alt.visit_with(self);
        self.sometimes -= 1;
    }

    fn visit_bin_expr(&mut self, b: &BinExpr) {
        b.left.visit_with(self);
        let short = matches!(
            b.op,
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::NullishCoalescing
        );
        self.sometimes += usize::from(short);
        b.right.visit_with(self);
        self.sometimes -= usize::from(short);
    }

    fn visit_opt_chain_expr(&mut self, o: &OptChainExpr) {
        self.sometimes += 1;
        o.visit_children_with(self);
        self.sometimes -= 1;
    }

    fn visit_arrow_expr(&mut self, a: &ArrowExpr) {
        let mut names = HashSet::default();
        a.params.iter().for_each(|p| bound_names(p, &mut names));
        if let ArrowFunctionBody::FunctionBody(b) = &*a.body {
            declared_names(&b.stmts, &mut names);
        }
        self.callback(names, &*a.body);
    }

    fn visit_function(&mut self, f: &Function) {
        let mut names = HashSet::default();
        f.params
            .iter()
            .for_each(|p| bound_names(&p.pat, &mut names));
        if let Some(b) = &f.body {
            declared_names(&b.stmts, &mut names);
        }
        self.callback(names, &f.body);
    }

    fn visit_assign_expr(&mut self, a: &AssignExpr) {
        match &a.left {
            // Rebinding a name is never modelled (outside callbacks).
            AssignTarget::Simple(SimpleAssignTarget::Ident(id)) if !self.is_local(&id.id.sym) => {
                self.check.gap(
                    a.span,
                    format!(
                        "an assignment changes `{}` after it was declared",
                        id.id.sym
                    ),
                );
            }
            AssignTarget::Simple(SimpleAssignTarget::Ident(_)) => {}
            AssignTarget::Simple(SimpleAssignTarget::Member(m)) => {
                self.mutation(a.span, root_ident(&m.obj), "an assignment changes")
            }
            _ => self.mutation(a.span, None, "an assignment changes"),
        }
        a.visit_children_with(self);
    }

    fn visit_update_expr(&mut self, u: &UpdateExpr) {
        match strip(&u.arg) {
            Expr::Ident(id) if !self.is_local(&id.sym) => self.check.gap(
                u.span,
                format!("`++`/`--` changes `{}` after it was declared", id.sym),
            ),
            Expr::Ident(_) => {}
            _ => self.mutation(u.span, root_ident(&u.arg), "`++`/`--` changes"),
        }
        u.visit_children_with(self);
    }

    fn visit_unary_expr(&mut self, u: &UnaryExpr) {
        if u.op == UnaryOp::Delete {
            self.mutation(u.span, root_ident(&u.arg), "`delete` changes");
        }
        u.visit_children_with(self);
    }

    fn visit_ident(&mut self, id: &Ident) {
        if &*id.sym == "arguments" {
            self.check.gap(id.span, "`arguments`");
        } else {
            self.check.name(id);
        }
    }

    fn visit_this_expr(&mut self, t: &ThisExpr) {
        self.check.gap(t.span, "`this`");
    }

    fn visit_super_prop_expr(&mut self, s: &SuperPropExpr) {
        self.check.gap(s.span, "`super`");
    }

    fn visit_tagged_tpl(&mut self, t: &TaggedTpl) {
        self.check.gap(t.span, "a tagged template");
    }

    fn visit_yield_expr(&mut self, y: &YieldExpr) {
        self.check.gap(y.span, "`yield`");
    }

    fn visit_class_expr(&mut self, c: &ClassExpr) {
        self.check.gap(c.class.span, "a class");
    }

    fn visit_meta_prop_expr(&mut self, m: &MetaPropExpr) {
        self.check.gap(m.span, "`new.target` or `import.meta`");
    }
}

/// `mcp.server.tool(...)` / `mcp.server["tool"](...)`.
fn is_mcp_callee(call: &CallExpr) -> bool {
    let Callee::Expr(callee) = &call.callee else {
        return false;
    };
    let Expr::Member(outer) = strip(callee) else {
        return false;
    };
    matches!(strip(&outer.obj), Expr::Member(inner) if matches!(strip(&inner.obj), Expr::Ident(id) if &*id.sym == "mcp"))
}

fn is_capability_callee(callee: &Expr) -> bool {
    matches!(strip(callee), Expr::Member(m) if matches!(strip(&m.obj), Expr::Ident(id) if &*id.sym == "capabilities"))
}

/// The MCP call `e` is (parentheses and one `await` allowed around it).
fn mcp_call(e: &Expr) -> Option<&CallExpr> {
    match strip(e) {
        Expr::Call(c) if is_mcp_callee(c) => Some(c),
        _ => None,
    }
}

/// `all` for `Promise.all(...)`, `allSettled`, `race`...
fn promise_method(call: &CallExpr) -> Option<&str> {
    let Callee::Expr(callee) = &call.callee else {
        return None;
    };
    let Expr::Member(MemberExpr { obj, prop, .. }) = strip(callee) else {
        return None;
    };
    match (strip(obj), prop) {
        (Expr::Ident(p), MemberProp::Ident(m)) if &*p.sym == "Promise" => Some(&m.sym),
        _ => None,
    }
}

/// `list.map(x => mcp.s.t(...))` (the arrow's body one MCP call, awaited or not): the list,
/// the parameter, the call.
fn mapped_call(map: &CallExpr) -> Option<(&Expr, String, &CallExpr)> {
    let m = method_call(map, "map")?;
    let [ExprOrSpread { spread: None, expr }] = map.args.as_slice() else {
        return None;
    };
    let Expr::Arrow(arrow) = strip(expr) else {
        return None;
    };
    let [Pat::Ident(param)] = arrow.params.as_slice() else {
        return None;
    };
    let ArrowFunctionBody::Expr(body) = &*arrow.body else {
        return None;
    };
    Some((&m.obj, param.id.sym.as_str().to_owned(), mcp_call(body)?))
}

/// A value created right here (a literal, a call result): mutating it changes no named value.
fn is_fresh(e: &Expr) -> bool {
    matches!(
        strip(e),
        Expr::Array(_) | Expr::Object(_) | Expr::Call(_) | Expr::New(_) | Expr::Lit(_)
    )
}

fn is_literal(e: &Expr) -> bool {
    match strip(e) {
        Expr::Lit(Lit::Regex(_)) => false,
        Expr::Lit(_) => true,
        Expr::Tpl(t) => t.exprs.is_empty(),
        Expr::Unary(u) => u.op == UnaryOp::Minus && matches!(strip(&u.arg), Expr::Lit(Lit::Num(_))),
        _ => false,
    }
}

/// Names that would be read as something else: task ids (`n1`, `j2`), the chain receiver,
/// names pml defines in the sandbox.
fn clashes(name: &str) -> bool {
    let mut chars = name.chars();
    let node_id = matches!(chars.next(), Some('n' | 'd' | 'f' | 'j' | 'c' | 'l'))
        && name.len() > 1
        && chars.all(|c| c.is_ascii_digit());
    node_id || name.starts_with('$') || name.starts_with("__pml")
}

fn bound_names(pat: &Pat, out: &mut HashSet<String>) {
    match pat {
        Pat::Ident(id) => {
            out.insert(id.id.sym.as_str().to_owned());
        }
        Pat::Array(arr) => arr.elems.iter().flatten().for_each(|p| bound_names(p, out)),
        Pat::Object(obj) => {
            for prop in &obj.props {
                match prop {
                    ObjectPatProp::KeyValue(kv) => bound_names(&kv.value, out),
                    ObjectPatProp::Assign(a) => {
                        out.insert(a.key.id.sym.as_str().to_owned());
                    }
                    ObjectPatProp::Rest(r) => bound_names(&r.arg, out),
                }
            }
        }
        Pat::Rest(r) => bound_names(&r.arg, out),
        Pat::Assign(a) => bound_names(&a.left, out),
        Pat::Expr(_) | Pat::Invalid(_) => {}
    }
}

/// Top-level `const` names bound to a value made right there (a call's result, a literal): no
/// other name shares it. Declared twice (shadowed somewhere) counts as not fresh.
fn fresh_names(stmts: &[Stmt]) -> HashSet<String> {
    let mut fresh = HashSet::default();
    let mut seen = HashSet::default();
    for stmt in stmts {
        let Stmt::Decl(Decl::Var(var)) = stmt else {
            continue;
        };
        for d in &var.decls {
            let (Pat::Ident(id), Some(init)) = (&d.name, &d.init) else {
                continue;
            };
            let name = id.id.sym.as_str().to_owned();
            if !seen.insert(name.clone()) {
                fresh.remove(&name);
                continue;
            }
            let made_here = matches!(
                strip(init),
                Expr::Call(_) | Expr::Array(_) | Expr::Object(_) | Expr::New(_)
            );
            if var.kind == VarDeclKind::Const && made_here {
                fresh.insert(name);
            }
        }
    }
    // A name declared again anywhere (an inner scope) is not tracked by position alone.
    let mut declared = HashMap::default();
    struct Decls<'d>(&'d mut HashMap<String, usize>);
    impl Visit for Decls<'_> {
        fn visit_binding_ident(&mut self, b: &swc_ecma_ast::BindingIdent) {
            *self.0.entry(b.id.sym.as_str().to_owned()).or_default() += 1;
        }
    }
    stmts.visit_with(&mut Decls(&mut declared));
    fresh.retain(|n| declared.get(n).copied().unwrap_or(0) <= 1);
    fresh
}

/// The position of the last occurrence of each name (reads and writes alike).
fn last_uses(stmts: &[Stmt]) -> HashMap<String, BytePos> {
    struct Uses(HashMap<String, BytePos>);
    impl Visit for Uses {
        fn visit_ident(&mut self, id: &Ident) {
            let at = self
                .0
                .entry(id.sym.as_str().to_owned())
                .or_insert(id.span.lo);
            if id.span.lo > *at {
                *at = id.span.lo;
            }
        }
    }
    let mut uses = Uses(HashMap::default());
    stmts.visit_with(&mut uses);
    uses.0
}

/// Names declared anywhere in a callback's body (its own scope and nested blocks).
fn declared_names(stmts: &[Stmt], out: &mut HashSet<String>) {
    struct Decls<'o>(&'o mut HashSet<String>);
    impl Visit for Decls<'_> {
        fn visit_var_declarator(&mut self, d: &swc_ecma_ast::VarDeclarator) {
            bound_names(&d.name, self.0);
            d.init.visit_with(self);
        }
        fn visit_catch_clause(&mut self, c: &swc_ecma_ast::CatchClause) {
            if let Some(p) = &c.param {
                bound_names(p, self.0);
            }
            c.body.visit_with(self);
        }
        fn visit_fn_decl(&mut self, f: &swc_ecma_ast::FnDecl) {
            self.0.insert(f.ident.sym.as_str().to_owned());
        }
        // Nested functions declare their own names.
        fn visit_function(&mut self, _: &Function) {}
        fn visit_arrow_expr(&mut self, _: &ArrowExpr) {}
    }
    stmts.visit_with(&mut Decls(out));
}
