//! Which names a scope declares, in declaration order: the crate's one scope analysis, shared
//! by the canonical printer (which renames them `_p0, _p1...`), by
//! [`crate::normalize_variable_names`] (which resolves uses to declarations) and by
//! `rewrite.rs` (what a text's bound names and a code's free names are).
//!
//! Scopes follow ES2015 strict-mode rules: `var` and parameters belong to the enclosing
//! function, `let`/`const`/`class`/`function` declarations to their block, loop-head `let`/`const`
//! to the loop, a catch parameter to its clause, a function expression's own name to a scope
//! between the outer one and its parameters.

use std::borrow::Borrow;
use std::hash::Hash;

use rustc_hash::{FxHashMap, FxHashSet};
use swc_atoms::Atom;

use swc_ecma_ast::{
    Decl, ForHead, ObjectPatProp, Pat, Stmt, SwitchCase, VarDecl, VarDeclKind, VarDeclOrExpr,
};

/// How a name was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeclKind {
    /// A `var`/`let`/`const` statement (not a loop head).
    Statement,
    /// A `var`/`let`/`const` in the head of a `for`, `for..in` or `for..of` loop.
    LoopHead,
    /// A parameter of a function or arrow.
    Param,
    /// A catch clause's parameter.
    Catch,
    /// A function or class name.
    Named,
}

/// One declared name and how it was declared.
#[derive(Debug, Clone)]
pub(crate) struct Declared<'a> {
    pub(crate) name: &'a Atom,
    pub(crate) kind: DeclKind,
}

/// Names bound by a pattern, in source order.
pub(crate) fn pattern_names<'a>(pat: &'a Pat, kind: DeclKind, out: &mut Vec<Declared<'a>>) {
    match pat {
        Pat::Ident(b) => out.push(Declared {
            name: &b.id.sym,
            kind,
        }),
        Pat::Array(a) => {
            for p in a.elems.iter().flatten() {
                pattern_names(p, kind, out);
            }
        }
        Pat::Object(o) => {
            for prop in &o.props {
                match prop {
                    ObjectPatProp::KeyValue(kv) => pattern_names(&kv.value, kind, out),
                    ObjectPatProp::Assign(a) => out.push(Declared {
                        name: &a.key.id.sym,
                        kind,
                    }),
                    ObjectPatProp::Rest(r) => pattern_names(&r.arg, kind, out),
                }
            }
        }
        Pat::Assign(a) => pattern_names(&a.left, kind, out),
        Pat::Rest(r) => pattern_names(&r.arg, kind, out),
        Pat::Expr(_) | Pat::Invalid(_) => {}
    }
}

fn var_decl_names<'a>(v: &'a VarDecl, kind: DeclKind, out: &mut Vec<Declared<'a>>) {
    for d in &v.decls {
        pattern_names(&d.name, kind, out);
    }
}

/// Declarations a block (or a function body, a switch body) makes itself: `let`, `const`,
/// `class` and `function` declarations among its direct statements.
pub(crate) fn block_names<'a>(stmts: &'a [Stmt], out: &mut Vec<Declared<'a>>) {
    for s in stmts {
        if let Stmt::Decl(d) = s {
            lexical_decl_names(d, out);
        }
    }
}

/// [`block_names`] over the cases of a `switch` (which share one scope).
pub(crate) fn switch_names<'a>(cases: &'a [SwitchCase], out: &mut Vec<Declared<'a>>) {
    for c in cases {
        block_names(&c.cons, out);
    }
}

fn lexical_decl_names<'a>(d: &'a Decl, out: &mut Vec<Declared<'a>>) {
    match d {
        Decl::Var(v) if v.kind != VarDeclKind::Var => var_decl_names(v, DeclKind::Statement, out),
        Decl::Fn(f) => out.push(Declared {
            name: &f.ident.sym,
            kind: DeclKind::Named,
        }),
        Decl::Class(c) => out.push(Declared {
            name: &c.ident.sym,
            kind: DeclKind::Named,
        }),
        _ => {}
    }
}

/// Names a function body declares with `var` (anywhere in it, outside nested functions).
pub(crate) fn var_names<'a>(stmts: &'a [Stmt], out: &mut Vec<Declared<'a>>) {
    for s in stmts {
        var_names_stmt(s, out);
    }
}

fn var_names_stmt<'a>(s: &'a Stmt, out: &mut Vec<Declared<'a>>) {
    match s {
        Stmt::Decl(Decl::Var(v)) if v.kind == VarDeclKind::Var => {
            var_decl_names(v, DeclKind::Statement, out)
        }
        Stmt::Block(b) => var_names(&b.stmts, out),
        Stmt::If(i) => {
            var_names_stmt(&i.cons, out);
            if let Some(alt) = &i.alt {
                var_names_stmt(alt, out);
            }
        }
        Stmt::For(f) => {
            if let Some(VarDeclOrExpr::VarDecl(v)) = &f.init {
                if v.kind == VarDeclKind::Var {
                    var_decl_names(v, DeclKind::LoopHead, out);
                }
            }
            var_names_stmt(&f.body, out);
        }
        Stmt::ForIn(f) => {
            head_var_names(&f.left, out);
            var_names_stmt(&f.body, out);
        }
        Stmt::ForOf(f) => {
            head_var_names(&f.left, out);
            var_names_stmt(&f.body, out);
        }
        Stmt::While(w) => var_names_stmt(&w.body, out),
        Stmt::DoWhile(w) => var_names_stmt(&w.body, out),
        Stmt::Labeled(l) => var_names_stmt(&l.body, out),
        Stmt::With(w) => var_names_stmt(&w.body, out),
        Stmt::Try(t) => {
            var_names(&t.block.stmts, out);
            if let Some(h) = &t.handler {
                var_names(&h.body.stmts, out);
            }
            if let Some(f) = &t.finalizer {
                var_names(&f.stmts, out);
            }
        }
        Stmt::Switch(sw) => {
            for c in &sw.cases {
                var_names(&c.cons, out);
            }
        }
        _ => {}
    }
}

fn head_var_names<'a>(head: &'a ForHead, out: &mut Vec<Declared<'a>>) {
    if let ForHead::VarDecl(v) = head {
        if v.kind == VarDeclKind::Var {
            var_decl_names(v, DeclKind::LoopHead, out);
        }
    }
}

/// The scope of a loop head: its `let`/`const` names (`var` ones belong to the function).
pub(crate) fn loop_head_names<'a>(v: &'a VarDecl, out: &mut Vec<Declared<'a>>) {
    if v.kind != VarDeclKind::Var {
        var_decl_names(v, DeclKind::LoopHead, out);
    }
}

/// Everything a function scope declares, in this order: parameters, then `var` names, then the
/// body's own lexical declarations.
pub(crate) fn function_names<'a, P>(params: P, body: Option<&'a [Stmt]>) -> Vec<Declared<'a>>
where
    P: IntoIterator<Item = &'a Pat>,
{
    let mut out = Vec::new();
    for p in params {
        pattern_names(p, DeclKind::Param, &mut out);
    }
    if let Some(stmts) = body {
        var_names(stmts, &mut out);
        block_names(stmts, &mut out);
    }
    out
}

/// A stack of scopes mapping names to a value (a canonical number, a binding index...). Lookups
/// are O(1) whatever the nesting depth: each name keeps its own stack of declarations.
pub(crate) struct Scopes<K, T> {
    by_name: FxHashMap<K, Vec<T>>,
    frames: Vec<Vec<K>>,
}

impl<K, T> Default for Scopes<K, T> {
    fn default() -> Self {
        Scopes {
            by_name: FxHashMap::default(),
            frames: Vec::new(),
        }
    }
}

impl<K: Borrow<str> + Hash + Eq + Clone, T> Scopes<K, T> {
    /// Enter a scope declaring these names (a repeated name keeps its first value).
    pub(crate) fn push(&mut self, frame: impl IntoIterator<Item = (K, T)>) {
        let mut names: Vec<K> = Vec::new();
        let mut seen: FxHashSet<K> = FxHashSet::default();
        for (name, value) in frame {
            let repeated = if names.len() < 16 {
                names.contains(&name)
            } else {
                if seen.is_empty() {
                    seen.extend(names.iter().cloned());
                }
                !seen.insert(name.clone())
            };
            if repeated {
                continue;
            }
            self.by_name.entry(name.clone()).or_default().push(value);
            names.push(name);
        }
        self.frames.push(names);
    }

    /// Leave the innermost scope.
    pub(crate) fn pop(&mut self) {
        for name in self.frames.pop().unwrap_or_default() {
            if let Some(stack) = self.by_name.get_mut(name.borrow()) {
                stack.pop();
                if stack.is_empty() {
                    self.by_name.remove(name.borrow());
                }
            }
        }
    }

    /// The innermost declaration of `name`.
    pub(crate) fn lookup(&self, name: &str) -> Option<&T> {
        self.by_name.get(name).and_then(|s| s.last())
    }
}
