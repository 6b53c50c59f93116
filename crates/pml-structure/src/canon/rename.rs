//! [`crate::normalize_variable_names`]: bound names -> `_n1`, `_n1_content`..., by editing the
//! spans of the declarations and uses the syntax tree resolves to them (strings, comments,
//! object keys and property names are never touched; shadowing is respected).

use std::collections::HashSet;

use crate::{Diagnostic, Severity};
use indexmap::IndexMap;
use swc_common::Span;
use swc_ecma_ast::{
    ArrowExpr, BlockStmt, CatchClause, ClassExpr, Expr, FnExpr, ForInStmt, ForOfStmt, ForStmt,
    Function, Ident, ObjectPatProp, Prop, Stmt, SwitchStmt, VarDeclOrExpr,
};
use swc_ecma_visit::{Visit, VisitWith};

use super::scope::{self, DeclKind, Declared, Scopes};
use super::snippet as parse;
use crate::diagnostics;

/// What [`crate::normalize_variable_names`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NormalizeReturn {
    /// The code with bound names rewritten (byte-for-byte the input elsewhere; the input itself
    /// when it does not parse).
    pub code: String,
    /// Original name -> new name, for every binding that was rewritten, in binding order.
    pub renames: IndexMap<String, String>,
    /// Syntax errors (the code is then returned unchanged) and warnings (a bound name with no
    /// declaration in the code, a new name already in use).
    pub diagnostics: Vec<Diagnostic>,
}

/// `n1` -> `_n1`; `n1.content` -> `_n1_content`; `n3[0]` -> `_n3_0`: `_` + the path with every
/// run of characters other than ASCII letters, digits and `$` turned into one `_`.
pub(crate) fn target_name(path: &str) -> String {
    let mut out = String::from("_");
    let mut pending_sep = false;
    for c in path.chars() {
        if c.is_ascii_alphanumeric() || c == '$' {
            if pending_sep && out.len() > 1 {
                out.push('_');
            }
            pending_sep = false;
            out.push(c);
        } else {
            pending_sep = true;
        }
    }
    out
}

pub(crate) fn line_col(code: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(code.len());
    let mut start = 0;
    let mut line = 1;
    for (i, b) in code.bytes().enumerate().take(offset) {
        if b == b'\n' {
            line += 1;
            start = i + 1;
        }
    }
    let mut end = offset;
    while !code.is_char_boundary(end) {
        end -= 1;
    }
    (line, code[start..end].chars().count() + 1)
}

fn diagnostic(code: &str, severity: Severity, id: &str, message: String, at: usize) -> Diagnostic {
    Diagnostic::at(severity, id, message, line_col(code, at))
}

pub(crate) fn normalize(code: &str, bindings: &IndexMap<String, String>) -> NormalizeReturn {
    let (src, body) = parse::parse_program(code);
    let body = match body {
        Ok(body) => body,
        Err(errors) => {
            return NormalizeReturn {
                code: code.to_string(),
                renames: IndexMap::new(),
                diagnostics: errors
                    .into_iter()
                    .map(|(at, msg)| {
                        diagnostic(
                            code,
                            Severity::Error,
                            diagnostics::SYNTAX_ERROR,
                            lowercase_first(&msg),
                            at,
                        )
                    })
                    .collect(),
            }
        }
    };
    let base = 1 + src.start as u32;
    let out = normalize_body(code, &body, base, bindings);
    drop(body);
    out
}

/// [`normalize`] of `code` already parsed: `body`, the statements of its wrapper, whose
/// positions are `base` + a byte offset into `code`.
pub(crate) fn normalize_body(
    code: &str,
    body: &[swc_ecma_ast::Stmt],
    base: u32,
    bindings: &IndexMap<String, String>,
) -> NormalizeReturn {
    // Every name the program spells as an identifier: a new name must be none of them.
    let mut taken = IdentNames::default();
    body.visit_with(&mut taken);
    let mut diagnostics = Vec::new();
    let mut targets: Vec<String> = Vec::with_capacity(bindings.len());
    let mut chosen: HashSet<String> = HashSet::new();
    for (name, path) in bindings {
        let base = target_name(path);
        let mut candidate = base.clone();
        let mut k = 2;
        while (candidate != *name && taken.0.contains(&candidate)) || chosen.contains(&candidate) {
            candidate = format!("{base}_{k}");
            k += 1;
        }
        if candidate != base {
            diagnostics.push(diagnostic(
                code,
                Severity::Warning,
                diagnostics::NAME_TAKEN,
                format!("`{base}` (for `{name}`) is already used in the code; using `{candidate}`"),
                0,
            ));
        }
        chosen.insert(candidate.clone());
        targets.push(candidate);
    }

    let mut r = Renamer {
        base,
        len: code.len(),
        bindings,
        scopes: Scopes::default(),
        edits: Vec::new(),
        renamed: vec![false; bindings.len()],
        declared: vec![false; bindings.len()],
        targets: &targets,
    };
    r.enter(scope::function_names(std::iter::empty(), Some(body)));
    body.visit_with(&mut r);
    r.leave();

    let mut renames = IndexMap::new();
    for (i, (name, _)) in bindings.iter().enumerate() {
        if r.renamed[i] {
            renames.insert(name.clone(), targets[i].clone());
        } else if !r.declared[i] {
            diagnostics.push(diagnostic(
                code,
                Severity::Warning,
                diagnostics::BINDING_NOT_DECLARED,
                format!("bound name `{name}` is not declared by a `const`/`let`/`var` statement in the code"),
                0,
            ));
        }
    }

    let mut edits = r.edits;
    edits.sort_by_key(|(lo, _, _)| *lo);
    let mut out = String::with_capacity(code.len() + edits.len() * 4);
    let mut at = 0;
    for (lo, hi, text) in edits {
        if lo < at || hi > code.len() {
            continue;
        }
        out.push_str(&code[at..lo]);
        out.push_str(&text);
        at = hi;
    }
    out.push_str(&code[at..]);
    NormalizeReturn {
        code: out,
        renames,
        diagnostics,
    }
}

fn lowercase_first(msg: &str) -> String {
    let mut chars = msg.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[derive(Default)]
struct IdentNames(HashSet<String>);

impl Visit for IdentNames {
    fn visit_ident(&mut self, id: &Ident) {
        if !self.0.contains(&*id.sym) {
            self.0.insert(id.sym.to_string());
        }
    }
}

struct Renamer<'a> {
    /// Positions are `base` + a byte offset into the code, which has `len` bytes.
    base: u32,
    len: usize,
    bindings: &'a IndexMap<String, String>,
    /// Per declaration: the index of the binding it renames, if it is one.
    scopes: Scopes<String, Option<usize>>,
    edits: Vec<(usize, usize, String)>,
    renamed: Vec<bool>,
    declared: Vec<bool>,
    targets: &'a [String],
}

impl Renamer<'_> {
    /// `for (left in/of right) body`: names the head declares are scoped to the loop.
    fn for_head_loop(
        &mut self,
        left: &swc_ecma_ast::ForHead,
        right: &swc_ecma_ast::Expr,
        body: &swc_ecma_ast::Stmt,
    ) {
        let mut names = Vec::new();
        if let swc_ecma_ast::ForHead::VarDecl(v) = left {
            scope::loop_head_names(v, &mut names);
        }
        self.enter(names);
        left.visit_with(self);
        right.visit_with(self);
        body.visit_with(self);
        self.leave();
    }

    fn enter(&mut self, declared: Vec<Declared<'_>>) {
        let frame = declared
            .into_iter()
            .map(|d| {
                let index = if d.kind == DeclKind::Statement {
                    self.bindings.get_index_of(d.name.as_str())
                } else {
                    None
                };
                if let Some(i) = index {
                    self.declared[i] = true;
                }
                (d.name.to_string(), index)
            })
            .collect::<Vec<_>>();
        self.scopes.push(frame);
    }

    fn leave(&mut self) {
        self.scopes.pop();
    }

    /// The binding an occurrence of `name` resolves to, if it is renamed.
    fn target(&self, name: &str) -> Option<usize> {
        self.scopes.lookup(name).copied().flatten()
    }

    fn edit(&mut self, span: Span, text: String) {
        let offset =
            |pos: swc_common::BytePos| (pos.0.saturating_sub(self.base) as usize).min(self.len);
        let (lo, hi) = (offset(span.lo), offset(span.hi));
        self.edits.push((lo, hi, text));
    }

    /// Rename an identifier in place; `shorthand` spells out `{ x }` as `{ x: _n1 }`.
    fn occurrence(&mut self, id: &Ident, shorthand: bool) {
        let Some(i) = self.target(&id.sym) else {
            return;
        };
        let target = &self.targets[i];
        if *target == *id.sym {
            self.renamed[i] = true;
            return;
        }
        let text = if shorthand {
            format!("{}: {target}", id.sym)
        } else {
            target.clone()
        };
        self.renamed[i] = true;
        self.edit(id.span, text);
    }

    fn function_like<'f>(
        &mut self,
        params: impl IntoIterator<Item = &'f swc_ecma_ast::Pat>,
        body: Option<&'f [Stmt]>,
    ) {
        self.enter(scope::function_names(params, body));
    }
}

impl Visit for Renamer<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Ident(id) => self.occurrence(id, false),
            _ => e.visit_children_with(self),
        }
    }

    fn visit_binding_ident(&mut self, b: &swc_ecma_ast::BindingIdent) {
        self.occurrence(&b.id, false);
    }

    fn visit_prop(&mut self, p: &Prop) {
        match p {
            Prop::Shorthand(id) => self.occurrence(id, true),
            _ => p.visit_children_with(self),
        }
    }

    fn visit_object_pat_prop(&mut self, p: &ObjectPatProp) {
        match p {
            ObjectPatProp::Assign(a) => {
                self.occurrence(&a.key.id, true);
                a.value.visit_with(self);
            }
            _ => p.visit_children_with(self),
        }
    }

    fn visit_function(&mut self, f: &Function) {
        let body = f.body.as_ref().map(|b| b.stmts.as_slice());
        self.function_like(f.params.iter().map(|p| &p.pat), body);
        f.params.visit_with(self);
        f.body.visit_with(self);
        self.leave();
    }

    fn visit_arrow_expr(&mut self, a: &ArrowExpr) {
        let body = match &*a.body {
            swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => Some(b.stmts.as_slice()),
            swc_ecma_ast::ArrowFunctionBody::Expr(_) => None,
        };
        self.function_like(a.params.iter(), body);
        a.params.visit_with(self);
        a.body.visit_with(self);
        self.leave();
    }

    fn visit_fn_expr(&mut self, f: &FnExpr) {
        match &f.ident {
            Some(id) => {
                self.enter(vec![Declared {
                    name: &id.sym,
                    kind: DeclKind::Named,
                }]);
                f.function.visit_with(self);
                self.leave();
            }
            None => f.function.visit_with(self),
        }
    }

    fn visit_class_expr(&mut self, c: &ClassExpr) {
        match &c.ident {
            Some(id) => {
                self.enter(vec![Declared {
                    name: &id.sym,
                    kind: DeclKind::Named,
                }]);
                c.class.visit_with(self);
                self.leave();
            }
            None => c.class.visit_with(self),
        }
    }

    fn visit_constructor(&mut self, c: &swc_ecma_ast::Constructor) {
        let params = c.params.iter().filter_map(|p| match p {
            swc_ecma_ast::ParamOrTsParamProp::Param(p) => Some(&p.pat),
            swc_ecma_ast::ParamOrTsParamProp::TsParamProp(_) => None,
        });
        let body = c.body.as_ref().map(|b| b.stmts.as_slice());
        self.function_like(params, body);
        c.params.visit_with(self);
        if let Some(b) = &c.body {
            b.stmts.visit_with(self);
        }
        self.leave();
    }

    fn visit_block_stmt(&mut self, b: &BlockStmt) {
        let mut names = Vec::new();
        scope::block_names(&b.stmts, &mut names);
        self.enter(names);
        b.stmts.visit_with(self);
        self.leave();
    }

    fn visit_switch_stmt(&mut self, s: &SwitchStmt) {
        s.discriminant.visit_with(self);
        let mut names = Vec::new();
        scope::switch_names(&s.cases, &mut names);
        self.enter(names);
        s.cases.visit_with(self);
        self.leave();
    }

    fn visit_catch_clause(&mut self, c: &CatchClause) {
        let mut names = Vec::new();
        if let Some(p) = &c.param {
            scope::pattern_names(p, DeclKind::Catch, &mut names);
        }
        self.enter(names);
        c.param.visit_with(self);
        c.body.visit_with(self);
        self.leave();
    }

    fn visit_for_stmt(&mut self, f: &ForStmt) {
        let mut names = Vec::new();
        if let Some(VarDeclOrExpr::VarDecl(v)) = &f.init {
            scope::loop_head_names(v, &mut names);
        }
        self.enter(names);
        f.init.visit_with(self);
        f.test.visit_with(self);
        f.update.visit_with(self);
        f.body.visit_with(self);
        self.leave();
    }

    fn visit_for_in_stmt(&mut self, f: &ForInStmt) {
        self.for_head_loop(&f.left, &f.right, &f.body);
    }

    fn visit_for_of_stmt(&mut self, f: &ForOfStmt) {
        self.for_head_loop(&f.left, &f.right, &f.body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_names_follow_the_path() {
        assert_eq!(target_name("n1"), "_n1");
        assert_eq!(target_name("n1.content"), "_n1_content");
        assert_eq!(target_name("n3[0]"), "_n3_0");
        assert_eq!(target_name("n1.entries[*].path"), "_n1_entries_path");
        assert_eq!(target_name("n2[\"a-b\"]"), "_n2_a_b");
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
        assert_eq!(line_col("", 5), (1, 1));
    }
}
