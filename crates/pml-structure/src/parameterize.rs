//! `parameterize`: turn a program's literals into parameters (`args.<name>`), the way a
//! capability store keeps a program: once, whatever values it was first written with.
//!
//! What becomes a parameter, in source order (names from the program; a name already taken by
//! a parameter with another value, or by an `args.<name>` the program reads, gets `2`, `3`...):
//! - a top-level `const` holding a literal (string, number, boolean, `null`, arrays and objects
//!   of those, templates without interpolation) that the program does not change in place: its
//!   declaration goes, and every use of it that is not shadowed (a parameter, a loop variable,
//!   a `catch` binding, an inner declaration of the same name) reads `args.<name>`;
//! - a literal property value inside the arguments of an MCP call (`mcp.db.query({ host:
//!   "localhost" })` -> `args.host`), an array of primitive literals included; one parameter
//!   per name and value;
//! - the literals inside strings that are code (see [`crate::template::looks_like_code`]): the
//!   string becomes a template literal with `${args.<name>}` placeholders.
//!
//! Besides the rewritten code and the parameters' values, the JSON schema of the parameters:
//! each one's type (`integer` for whole numbers), an example (strings under 100 characters,
//! numbers), booleans' value as `default`, array item types, and all of them `required`; then
//! every other name the program reads of `args` (`args.x`, `const { x } = args`: any value, not
//! required), and `additionalProperties: false` when it reads `args` by those names only.

use indexmap::IndexMap;
use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::{json, Map, Value};
use swc_atoms::Atom;
use swc_common::Spanned;
use swc_ecma_ast::{
    ArrowExpr, ArrowFunctionBody, BlockStmt, CallExpr, Callee, CatchClause, Decl, Expr, ForHead,
    ForInStmt, ForOfStmt, ForStmt, Function, Lit, MemberProp, Pat, Prop, PropName, PropOrSpread,
    Stmt, Tpl, UnaryOp, VarDeclKind, VarDeclOrExpr,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::args::ArgsRead;
use crate::builder::member_path;
use crate::model::Diagnostic;
use crate::mutations::mutated_names;
use crate::parse::{self, Dialect, LineIndex};
use crate::rewrite::pattern_names;
use crate::template::{self, ParameterNames, TemplateLiteral};

/// The rewritten program, the parameters it now expects, and their schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParameterizeReturn {
    /// The program reading `args.<name>` where it held literals.
    pub code: String,
    /// Each parameter's value in the original program, in order of first appearance.
    pub parameters: IndexMap<String, Value>,
    /// JSON Schema (draft-07) of the parameters: `{"type": "object", "properties", "required"}`.
    pub schema: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

/// The JSON Schema of parameters with these values.
pub fn parameters_schema(parameters: &IndexMap<String, Value>) -> Value {
    let mut properties = Map::new();
    for (name, value) in parameters {
        let schema = match value {
            Value::String(s) => {
                let mut p = json!({"type": "string"});
                let length = s.chars().count();
                if length > 0 && length < 100 {
                    p["examples"] = json!([s]);
                }
                p
            }
            Value::Number(n) => {
                let integer =
                    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
                let kind = if integer { "integer" } else { "number" };
                json!({"type": kind, "examples": [n]})
            }
            Value::Bool(b) => json!({"type": "boolean", "default": b}),
            Value::Array(items) => {
                let mut p = json!({"type": "array"});
                let item = match items.first() {
                    Some(Value::String(_)) => Some("string"),
                    Some(Value::Number(_)) => Some("number"),
                    Some(Value::Bool(_)) => Some("boolean"),
                    _ => None,
                };
                if let Some(item) = item {
                    p["items"] = json!({"type": item});
                }
                p
            }
            Value::Object(_) => json!({"type": "object"}),
            Value::Null => json!({"type": "null"}),
        };
        properties.insert(name.clone(), schema);
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": properties,
        "required": parameters.keys().collect::<Vec<_>>(),
    })
}

/// A literal's JSON value: strings, numbers, booleans, `null`, negative numbers, templates
/// without interpolation, and arrays and objects (static keys) of those.
fn literal_value(e: &Expr, depth: usize) -> Option<Value> {
    if depth > 64 {
        return None;
    }
    match e {
        Expr::Lit(Lit::Str(s)) => Some(Value::String(s.value.to_string_lossy().into_owned())),
        Expr::Lit(Lit::Num(n)) => crate::fold::number_to_json(n.value),
        Expr::Lit(Lit::Bool(b)) => Some(Value::Bool(b.value)),
        Expr::Lit(Lit::Null(_)) => Some(Value::Null),
        Expr::Tpl(t) if t.exprs.is_empty() => {
            let cooked = t.quasis.first()?.cooked.as_ref()?;
            Some(Value::String(cooked.to_string_lossy().into_owned()))
        }
        Expr::Unary(u) if u.op == UnaryOp::Minus => match &*u.arg {
            Expr::Lit(Lit::Num(n)) => crate::fold::number_to_json(-n.value),
            _ => None,
        },
        Expr::Paren(p) => literal_value(&p.expr, depth + 1),
        Expr::Array(a) => {
            let mut items = Vec::with_capacity(a.elems.len());
            for elem in &a.elems {
                match elem {
                    Some(e) if e.spread.is_none() => items.push(literal_value(&e.expr, depth + 1)?),
                    _ => return None,
                }
            }
            Some(Value::Array(items))
        }
        Expr::Object(o) => {
            let mut map = Map::new();
            for prop in &o.props {
                let PropOrSpread::Prop(p) = prop else {
                    return None;
                };
                let Prop::KeyValue(kv) = &**p else {
                    return None;
                };
                let key = crate::fold::prop_name(&kv.key)?;
                map.insert(key, literal_value(&kv.value, depth + 1)?);
            }
            Some(Value::Object(map))
        }
        _ => None,
    }
}

/// A property value of an MCP call's arguments that becomes a parameter as a whole: a
/// primitive literal, a template without interpolation that is not code, an array of
/// primitive literals.
fn inline_value(e: &Expr) -> Option<Value> {
    let value = literal_value(e, 0)?;
    match &value {
        Value::String(s) if template::looks_like_code(s) => None,
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(value),
        Value::Array(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|v| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))) =>
        {
            Some(value)
        }
        _ => None,
    }
}

/// Parameter names: one per (name the program gives, value).
struct Names {
    allocator: ParameterNames,
    by_value: Vec<(String, Value, String)>,
    parameters: IndexMap<String, Value>,
}

impl Names {
    /// The parameter for a value named `base` in the program: the same one for the same name
    /// and value, else a fresh name.
    fn parameter(&mut self, base: &str, value: &Value) -> String {
        if let Some((_, _, name)) = self
            .by_value
            .iter()
            .find(|(b, v, _)| b == base && v == value)
        {
            return name.clone();
        }
        let name = self.allocator.allocate(base);
        self.by_value
            .push((base.to_owned(), value.clone(), name.clone()));
        self.parameters.insert(name.clone(), value.clone());
        name
    }
}

/// The second pass: uses of parameterized constants, MCP call literals, code strings.
struct Rewriter<'a> {
    src: &'a str,
    base: u32,
    /// Constant name -> its parameter.
    constants: IndexMap<Atom, String>,
    /// Names declared in the scopes being walked (innermost last): they shadow constants.
    scopes: Vec<FxHashSet<Atom>>,
    names: Names,
    /// (start, end, replacement), by start once sorted.
    edits: Vec<(usize, usize, String)>,
    /// Inside the arguments of an MCP call.
    in_call: usize,
    /// Constants the program assigns again where they are not shadowed.
    written: FxHashSet<Atom>,
}

impl Rewriter<'_> {
    fn offsets(&self, span: swc_common::Span) -> (usize, usize) {
        let lo = (span.lo.0.saturating_sub(self.base) as usize).min(self.src.len());
        let hi = (span.hi.0.saturating_sub(self.base) as usize).clamp(lo, self.src.len());
        (lo, hi)
    }

    fn shadowed(&self, name: &Atom) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    /// The program assigns `name` again: a constant made a parameter there is written to.
    fn write(&mut self, name: &Atom) {
        if self.constants.contains_key(name) && !self.shadowed(name) {
            self.written.insert(name.clone());
        }
    }

    fn scoped(&mut self, names: FxHashSet<Atom>, f: impl FnOnce(&mut Self)) {
        self.scopes.push(names);
        f(self);
        self.scopes.pop();
    }

    /// A code-looking string: its literals become `${args.<name>}` placeholders.
    fn code_string(&mut self, span: swc_common::Span, value: &str) {
        if !template::looks_like_code(value) {
            return;
        }
        let literals = template::extract_template_literals(value, &mut self.names.allocator);
        if literals.is_empty() {
            return;
        }
        for lit in &literals {
            self.names
                .parameters
                .insert(lit.name.clone(), lit.value.clone());
        }
        let (lo, hi) = self.offsets(span);
        self.edits
            .push((lo, hi, placeholder_template(value, &literals)));
    }
}

/// The names a list of statements declares for its whole block (`let`/`const`/`class`, and
/// functions, hoisted), and `var`s.
fn declared(stmts: &[Stmt]) -> FxHashSet<Atom> {
    let mut names = Vec::new();
    for stmt in stmts {
        match stmt {
            Stmt::Decl(Decl::Var(v)) => v
                .decls
                .iter()
                .for_each(|d| pattern_names(&d.name, &mut names)),
            Stmt::Decl(Decl::Fn(f)) => names.push(f.ident.sym.clone()),
            Stmt::Decl(Decl::Class(c)) => names.push(c.ident.sym.clone()),
            _ => {}
        }
    }
    names.into_iter().collect()
}

fn params_of(pats: &mut dyn Iterator<Item = &Pat>) -> FxHashSet<Atom> {
    let mut names = Vec::new();
    for p in pats {
        pattern_names(p, &mut names);
    }
    names.into_iter().collect()
}

fn is_mcp_call(call: &CallExpr) -> bool {
    let Callee::Expr(callee) = &call.callee else {
        return false;
    };
    let Expr::Member(outer) = crate::builder::strip(callee) else {
        return false;
    };
    let Expr::Member(inner) = crate::builder::strip(&outer.obj) else {
        return false;
    };
    matches!(crate::builder::strip(&inner.obj), Expr::Ident(id) if &*id.sym == "mcp")
}

impl Visit for Rewriter<'_> {
    fn visit_simple_assign_target(&mut self, t: &swc_ecma_ast::SimpleAssignTarget) {
        if let Some(id) = crate::culprit::assigned_name(t) {
            self.write(&id.sym);
        }
        t.visit_children_with(self);
    }

    fn visit_update_expr(&mut self, u: &swc_ecma_ast::UpdateExpr) {
        if let Expr::Ident(id) = crate::builder::strip(&u.arg) {
            self.write(&id.sym);
        }
        u.visit_children_with(self);
    }

    fn visit_assign_target_pat(&mut self, p: &swc_ecma_ast::AssignTargetPat) {
        let pat: Pat = p.clone().into();
        let mut names = Vec::new();
        crate::rewrite::pattern_names(&pat, &mut names);
        for name in names {
            self.write(&name);
        }
        p.visit_children_with(self);
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Ident(id) = e {
            if let Some(param) = self.constants.get(&id.sym) {
                if !self.shadowed(&id.sym) {
                    let (lo, hi) = self.offsets(id.span);
                    let replacement = member_path("args", param);
                    self.edits.push((lo, hi, replacement));
                }
            }
            return;
        }
        e.visit_children_with(self);
    }

    fn visit_prop(&mut self, p: &Prop) {
        match p {
            Prop::Shorthand(id) => {
                if let Some(param) = self.constants.get(&id.sym) {
                    if !self.shadowed(&id.sym) {
                        let (lo, hi) = self.offsets(id.span);
                        let replacement = format!("{}: {}", id.sym, member_path("args", param));
                        self.edits.push((lo, hi, replacement));
                    }
                }
            }
            Prop::KeyValue(kv) if self.in_call > 0 => {
                let key = match &kv.key {
                    PropName::Ident(i) => Some(i.sym.as_str().to_owned()),
                    PropName::Str(s) => Some(s.value.to_string_lossy().into_owned()),
                    _ => None,
                };
                let value = inline_value(&kv.value);
                match (key, value) {
                    (Some(key), Some(value)) => {
                        let param = self.names.parameter(&key, &value);
                        let (lo, hi) = self.offsets(kv.value.span());
                        self.edits.push((lo, hi, member_path("args", &param)));
                    }
                    _ => p.visit_children_with(self),
                }
            }
            _ => p.visit_children_with(self),
        }
    }

    fn visit_member_prop(&mut self, p: &MemberProp) {
        if let MemberProp::Computed(c) = p {
            c.visit_with(self);
        }
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        if is_mcp_call(call) {
            call.callee.visit_with(self);
            self.in_call += 1;
            call.args.visit_with(self);
            self.in_call -= 1;
            return;
        }
        // Callbacks of other calls are not an MCP call's arguments.
        let depth = std::mem::take(&mut self.in_call);
        call.visit_children_with(self);
        self.in_call = depth;
    }

    fn visit_lit(&mut self, lit: &Lit) {
        if let Lit::Str(s) = lit {
            let value = s.value.to_string_lossy().into_owned();
            self.code_string(s.span, &value);
        }
    }

    fn visit_tpl(&mut self, tpl: &Tpl) {
        if tpl.exprs.is_empty() {
            if let Some(cooked) = tpl.quasis.first().and_then(|q| q.cooked.as_ref()) {
                let value = cooked.to_string_lossy().into_owned();
                self.code_string(tpl.span(), &value);
                return;
            }
        }
        tpl.visit_children_with(self);
    }

    fn visit_function(&mut self, f: &Function) {
        let mut names = params_of(&mut f.params.iter().map(|p| &p.pat));
        if let Some(body) = &f.body {
            names.extend(declared(&body.stmts));
        }
        let depth = std::mem::take(&mut self.in_call);
        self.scoped(names, |r| f.visit_children_with(r));
        self.in_call = depth;
    }

    fn visit_arrow_expr(&mut self, a: &ArrowExpr) {
        let mut names = params_of(&mut a.params.iter());
        if let ArrowFunctionBody::FunctionBody(b) = &*a.body {
            names.extend(declared(&b.stmts));
        }
        let depth = std::mem::take(&mut self.in_call);
        self.scoped(names, |r| a.visit_children_with(r));
        self.in_call = depth;
    }

    fn visit_block_stmt(&mut self, b: &BlockStmt) {
        self.scoped(declared(&b.stmts), |r| b.visit_children_with(r));
    }

    fn visit_for_of_stmt(&mut self, f: &ForOfStmt) {
        f.right.visit_with(self);
        self.scoped(head_names(&f.left), |r| {
            f.left.visit_with(r);
            f.body.visit_with(r);
        });
    }

    fn visit_for_in_stmt(&mut self, f: &ForInStmt) {
        f.right.visit_with(self);
        self.scoped(head_names(&f.left), |r| {
            f.left.visit_with(r);
            f.body.visit_with(r);
        });
    }

    fn visit_for_stmt(&mut self, f: &ForStmt) {
        let mut names = Vec::new();
        if let Some(VarDeclOrExpr::VarDecl(v)) = &f.init {
            v.decls
                .iter()
                .for_each(|d| pattern_names(&d.name, &mut names));
        }
        self.scoped(names.into_iter().collect(), |r| f.visit_children_with(r));
    }

    fn visit_catch_clause(&mut self, c: &CatchClause) {
        let names = params_of(&mut c.param.iter());
        self.scoped(names, |r| c.visit_children_with(r));
    }
}

fn head_names(head: &ForHead) -> FxHashSet<Atom> {
    let mut names = Vec::new();
    match head {
        ForHead::VarDecl(v) => v
            .decls
            .iter()
            .for_each(|d| pattern_names(&d.name, &mut names)),
        ForHead::UsingDecl(u) => u
            .decls
            .iter()
            .for_each(|d| pattern_names(&d.name, &mut names)),
        ForHead::Pat(_) => {}
    }
    names.into_iter().collect()
}

/// `lo..hi` widened to whole lines when nothing else stands on them (a removed statement
/// leaves no blank line).
fn whole_lines(src: &str, lo: usize, hi: usize) -> (usize, usize) {
    let line_start = src[..lo].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[hi..].find('\n').map_or(src.len(), |i| hi + i);
    let before = &src[line_start..lo];
    let after = &src[hi..line_end];
    if before.trim().is_empty() && after.trim().is_empty() {
        (line_start, (line_end + 1).min(src.len()))
    } else {
        (lo, hi)
    }
}

/// Escape text for the inside of a JS template literal.
fn escape_template(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '`' => out.push_str("\\`"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c => out.push(c),
        }
    }
    out
}

/// A template literal (with backticks) for `code` with `literals` replaced by placeholders.
fn placeholder_template(code: &str, literals: &[TemplateLiteral]) -> String {
    let mut out = String::from("`");
    let mut at = 0;
    for lit in literals {
        if lit.start < at || lit.end > code.len() {
            continue;
        }
        out.push_str(&escape_template(&code[at..lit.start]));
        let placeholder = format!("${{args.{}}}", lit.name);
        match (&lit.value, code[lit.start..].chars().next()) {
            (Value::String(_), Some(q @ ('\'' | '"' | '`'))) => {
                let q = if q == '`' {
                    "\\`".to_string()
                } else {
                    q.to_string()
                };
                out.push_str(&q);
                out.push_str(&placeholder);
                out.push_str(&q);
            }
            _ => out.push_str(&placeholder),
        }
        at = lit.end;
    }
    out.push_str(&escape_template(&code[at.min(code.len())..]));
    out.push('`');
    out
}

/// Parameterize a program (see the module doc). Runs on a large dedicated stack, like
/// [`crate::build_structure`]: SWC's parser and the walk recurse per nesting level.
pub fn parameterize(code: &str, dialect: Dialect) -> ParameterizeReturn {
    let unchanged = |diagnostics| ParameterizeReturn {
        code: code.to_string(),
        parameters: IndexMap::new(),
        schema: parameters_schema(&IndexMap::new()),
        diagnostics,
    };
    if let Some((offset, message)) = crate::refuse(code, dialect) {
        let lines = LineIndex::new(code);
        return unchanged(vec![crate::diagnostics::refused(
            code, &lines, offset, message,
        )]);
    }
    crate::on_big_stack(|| parameterize_here(code, dialect))
        .unwrap_or_else(|| unchanged(vec![crate::diagnostics::internal("parameterizing")]))
}

fn parameterize_here(code: &str, dialect: Dialect) -> ParameterizeReturn {
    let lines = LineIndex::new(code);
    let parsed = match parse::parse(code, dialect, &lines) {
        Ok(p) => p,
        Err(diagnostics) => {
            return ParameterizeReturn {
                code: code.to_string(),
                parameters: IndexMap::new(),
                schema: parameters_schema(&IndexMap::new()),
                diagnostics,
            }
        }
    };
    parameterize_parsed(code, &parsed)
}

/// [`parameterize`] of `code` already parsed (`parsed`, its syntax tree).
pub(crate) fn parameterize_parsed(code: &str, parsed: &parse::Parsed) -> ParameterizeReturn {
    let read = ArgsRead::of(&parsed.body);
    // A constant the program assigns again (`total += n`, where it is not shadowed) fails there:
    // it stays a constant, so that the program fails as it did. Found by a first attempt.
    let mutated = mutated_names(&parsed.body).names;
    let mut kept = FxHashSet::default();
    loop {
        let (out, parameters, written) =
            parameterize_keeping(code, parsed, (&read, &mutated), &kept);
        if written.is_empty() {
            return ParameterizeReturn {
                code: out,
                schema: read.add_to(parameters_schema(&parameters)),
                parameters,
                diagnostics: Vec::new(),
            };
        }
        kept.extend(written);
    }
}

/// The rewritten code and the parameters, the top-level constants named in `kept` (or changed
/// in place: `mutated`) left as they are; and the constants made parameters that the program
/// writes to.
fn parameterize_keeping(
    code: &str,
    parsed: &parse::Parsed,
    (read, mutated): (&ArgsRead, &FxHashSet<String>),
    kept: &FxHashSet<Atom>,
) -> (String, IndexMap<String, Value>, FxHashSet<Atom>) {
    // Names the program already reads as parameters are never given to another value.
    let mut allocator = ParameterNames::new();
    for name in read.names() {
        allocator.reserve(name);
    }
    let mut rewriter = Rewriter {
        src: code,
        base: parsed.base,
        constants: IndexMap::new(),
        scopes: Vec::new(),
        names: Names {
            allocator,
            by_value: Vec::new(),
            parameters: IndexMap::new(),
        },
        edits: Vec::new(),
        in_call: 0,
        written: FxHashSet::default(),
    };
    // Top-level constants holding literals (not changed in place, not code): removed.
    let mut removed: Vec<(usize, usize)> = Vec::new();
    for stmt in &parsed.body {
        let Stmt::Decl(Decl::Var(var)) = stmt else {
            continue;
        };
        let [decl] = var.decls.as_slice() else {
            continue;
        };
        let (VarDeclKind::Const, Pat::Ident(id), Some(init)) = (var.kind, &decl.name, &decl.init)
        else {
            continue;
        };
        let Some(value) = literal_value(init, 0) else {
            continue;
        };
        let code_like = matches!(&value, Value::String(s) if template::looks_like_code(s));
        if code_like || mutated.contains(id.id.sym.as_str()) || kept.contains(&id.id.sym) {
            continue;
        }
        let param = rewriter.names.parameter(id.id.sym.as_str(), &value);
        rewriter.constants.insert(id.id.sym.clone(), param);
        let (lo, hi) = rewriter.offsets(stmt.span());
        removed.push(whole_lines(code, lo, hi));
    }
    // The declarations themselves are gone: nothing inside them is rewritten.
    for stmt in &parsed.body {
        let span = stmt.span();
        let (lo, _) = rewriter.offsets(span);
        if removed.iter().any(|&(a, b)| a <= lo && lo < b) {
            continue;
        }
        // Top-level declarations shadow nothing: the constants are top-level themselves.
        stmt.visit_with(&mut rewriter);
    }
    let mut edits = rewriter.edits;
    edits.extend(removed.into_iter().map(|(a, b)| (a, b, String::new())));
    edits.sort_by_key(|&(a, b, _)| (a, std::cmp::Reverse(b)));
    let mut out = String::with_capacity(code.len());
    let mut at = 0;
    for (lo, hi, replacement) in edits {
        if lo < at {
            continue;
        }
        out.push_str(&code[at..lo]);
        out.push_str(&replacement);
        at = hi;
    }
    out.push_str(&code[at..]);
    (out, rewriter.names.parameters, rewriter.written)
}
