//! The canonical printer: a syntax tree -> one line of JavaScript that does not depend on how
//! the source was written.
//!
//! - Comments, whitespace and line breaks are gone; tokens are separated as documented in
//!   `docs/hash.md` (`a + b`, `f(a, b)`, `{a: 1}`, `{ stmt; stmt; }`).
//! - Parentheses are exactly those the precedence rules need (`(a + b) * c`, never `(a) * c`).
//! - Strings (and templates without substitutions) are printed from their value in double quotes
//!   with one escaping rule; numbers from their value (`1.0`, `0x1`, `1e0` print `1`); object keys
//!   and `x["key"]` lose their quotes when the key is an identifier.
//! - Shorthand properties and patterns are spelled out (`{a}` prints `{a: a}`), `new X` prints
//!   `new X()`, a statement body that is not a block is braced.
//! - TypeScript types, `as`, `!`, `satisfies`, type-only declarations print nothing of themselves.
//! - Every name a snippet declares (parameters, `const`, `let`, `var`, functions, catch
//!   parameters) is renamed `_p0, _p1...` in order of declaration; a read of a name the snippet
//!   does not declare is handed to a [`Resolve`]r (kept, replaced by a node id, a literal...).
//! - Syntax without a canonical printing here (classes, `using`, enums, namespaces, JSX) is
//!   printed as its source text with whitespace runs collapsed.
//!
//! The output never contains a line break.

use swc_common::Spanned;
use swc_ecma_ast::{
    ArrayLit, ArrayPat, ArrowExpr, AssignTarget, AssignTargetPat, BinaryOp, BlockStmt, Callee,
    Decl, Expr, ExprOrSpread, ForHead, Function, Lit, MemberExpr, MemberProp, MetaPropKind,
    ObjectLit, ObjectPat, ObjectPatProp, OptChainBase, OptChainExpr, Pat, Prop, PropName,
    PropOrSpread, SimpleAssignTarget, Stmt, SuperProp, SuperPropExpr, Tpl, UnaryOp, UpdateOp,
    VarDecl, VarDeclKind, VarDeclOrExpr,
};

use super::scope::{self, DeclKind, Declared, Scopes};
use super::Out;

/// What a read of a name that the snippet does not declare prints as.
pub(crate) trait Resolve {
    /// Append what the free name `name` stands for, in an operand position that binds at least
    /// as tight as `min` (parenthesised when it binds looser): a hole, a node's result...
    fn free(&mut self, name: &str, min: u8, out: &mut Out);

    /// Print `e` in place of its syntax (a node's result the resolver knows it by): true when
    /// it did. What it prints must be an operand of any position (a path, a hole).
    fn replace(&mut self, _e: &Expr, _out: &mut Out) -> bool {
        false
    }
}

/// `_p12`, `_v3`, `_p0$$`: names the canonical forms use for locals and unknown free names.
pub fn looks_canonical(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("_p").or_else(|| name.strip_prefix("_v")) else {
        return false;
    };
    let digits = rest.trim_end_matches('$');
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

// Precedence levels (higher binds tighter).
pub(crate) const SEQ: u8 = 1;
const ASSIGN: u8 = 2;
const COND: u8 = 3;
const OR: u8 = 4;
const AND: u8 = 5;
const BIT_OR: u8 = 6;
const BIT_XOR: u8 = 7;
const BIT_AND: u8 = 8;
pub(crate) const EQUALITY: u8 = 9;
const RELATIONAL: u8 = 10;
const SHIFT: u8 = 11;
const ADDITIVE: u8 = 12;
const MULTIPLICATIVE: u8 = 13;
const EXPONENT: u8 = 14;
pub(crate) const UNARY: u8 = 15;
const POSTFIX: u8 = 16;
pub(crate) const CALL: u8 = 18;
pub(crate) const PRIMARY: u8 = 19;

/// Parentheses and TypeScript wrappers that print nothing of themselves.
pub(crate) fn strip(mut e: &Expr) -> &Expr {
    loop {
        e = match e {
            Expr::Paren(p) => &p.expr,
            Expr::TsAs(t) => &t.expr,
            Expr::TsSatisfies(t) => &t.expr,
            Expr::TsNonNull(t) => &t.expr,
            Expr::TsConstAssertion(t) => &t.expr,
            Expr::TsTypeAssertion(t) => &t.expr,
            Expr::TsInstantiation(t) => &t.expr,
            _ => return e,
        }
    }
}

fn bin_prec(op: BinaryOp) -> u8 {
    use BinaryOp::*;
    match op {
        LogicalOr | NullishCoalescing => OR,
        LogicalAnd => AND,
        BitOr => BIT_OR,
        BitXor => BIT_XOR,
        BitAnd => BIT_AND,
        EqEq | NotEq | EqEqEq | NotEqEq => EQUALITY,
        Lt | LtEq | Gt | GtEq | In | InstanceOf => RELATIONAL,
        LShift | RShift | ZeroFillRShift => SHIFT,
        Add | Sub => ADDITIVE,
        Mul | Div | Mod => MULTIPLICATIVE,
        Exp => EXPONENT,
    }
}

/// How tight `e` binds (its parentheses and type wrappers left out).
pub(crate) fn prec_of(e: &Expr) -> u8 {
    prec(strip(e))
}

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Seq(_) => SEQ,
        Expr::Assign(_) | Expr::Arrow(_) | Expr::Yield(_) => ASSIGN,
        Expr::Cond(_) => COND,
        Expr::Bin(b) => bin_prec(b.op),
        Expr::Unary(_) | Expr::Await(_) => UNARY,
        Expr::Update(u) if u.prefix => UNARY,
        Expr::Update(_) => POSTFIX,
        Expr::Call(_)
        | Expr::Member(_)
        | Expr::SuperProp(_)
        | Expr::New(_)
        | Expr::OptChain(_)
        | Expr::TaggedTpl(_)
        | Expr::MetaProp(_) => CALL,
        _ => PRIMARY,
    }
}

/// True for a plain `ident(.ident | [digits] | [*])*` path: printed as is, safe in any operand
/// position without parentheses.
pub fn is_simple_path(s: &str) -> bool {
    let b = s.as_bytes();
    let ident_len = |from: usize| -> usize {
        let mut i = from;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
            i += 1;
        }
        if i > from && !b[from].is_ascii_digit() {
            i - from
        } else {
            0
        }
    };
    let mut i = ident_len(0);
    if i == 0 {
        return false;
    }
    while i < b.len() {
        match b[i] {
            b'.' => {
                let n = ident_len(i + 1);
                if n == 0 {
                    return false;
                }
                i += 1 + n;
            }
            b'[' => {
                let close = match b[i + 1..].iter().position(|&c| c == b']') {
                    Some(p) => i + 1 + p,
                    None => return false,
                };
                let inner = &b[i + 1..close];
                // Indices as the printer prints them: no leading zero, exact as a double.
                let ok = inner == b"*"
                    || inner == b"0"
                    || (!inner.is_empty()
                        && inner.len() <= 15
                        && inner[0] != b'0'
                        && inner.iter().all(|c| c.is_ascii_digit()));
                if !ok {
                    return false;
                }
                i = close + 1;
            }
            _ => return false,
        }
    }
    true
}

/// True for an ASCII identifier name (what may follow a `.` or stand as an object key unquoted).
pub fn is_ident_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// A number from its value: integers without a fraction, others in Rust's shortest round-trip
/// decimal form.
pub fn fmt_number(v: f64, out: &mut String) {
    use std::fmt::Write;
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e21 {
        let _ = write!(out, "{}", v as i128);
    } else {
        let _ = write!(out, "{v}");
    }
}

fn escape_char(c: u32, template: bool, out: &mut String) {
    use std::fmt::Write;
    match c {
        0x22 if !template => out.push_str("\\\""),
        0x60 if template => out.push_str("\\`"),
        0x24 if template => out.push_str("\\$"),
        0x5c => out.push_str("\\\\"),
        0x0a => out.push_str("\\n"),
        0x0d => out.push_str("\\r"),
        0x09 => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        0..=0x1f | 0x7f | 0x2028 | 0x2029 | 0xd800..=0xdfff => {
            let _ = write!(out, "\\u{c:04x}");
        }
        _ => out.push(char::from_u32(c).unwrap_or('\u{fffd}')),
    }
}

fn needs_escape(c: char, template: bool) -> bool {
    matches!(
        c,
        '\0'..='\u{1f}' | '\\' | '\u{7f}' | '\u{2028}' | '\u{2029}'
    ) || (!template && c == '"')
        || (template && (c == '`' || c == '$'))
}

/// Append `s` escaped (runs that need no escaping are copied whole).
fn escape_str(s: &str, template: bool, out: &mut String) {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if needs_escape(c, template) {
            out.push_str(&s[start..i]);
            escape_char(c as u32, template, out);
            start = i + c.len_utf8();
        }
    }
    out.push_str(&s[start..]);
}

/// A string value in double quotes (the one escaping rule of the canonical forms).
pub fn quote_str(s: &str, out: &mut String) {
    out.push('"');
    escape_str(s, false, out);
    out.push('"');
}

/// Escape a string value of the syntax tree (which may hold lone surrogates).
macro_rules! quote_wtf8 {
    ($value:expr, $template:expr, $out:expr) => {{
        let wtf8 = $value.as_wtf8();
        match wtf8.as_str() {
            Some(s) => escape_str(s, $template, $out),
            None => {
                for c in wtf8.code_points() {
                    escape_char(c.to_u32(), $template, $out);
                }
            }
        }
    }};
}

/// Whitespace runs collapsed to one space (the fallback for syntax printed as written).
pub fn collapse_whitespace(text: &str, out: &mut String) {
    let mut first = true;
    for word in text.split_whitespace() {
        if !first {
            out.push(' ');
        }
        out.push_str(word);
        first = false;
    }
}

pub(crate) struct Printer<'s, 'a, R> {
    out: Out,
    /// The text the syntax tree was parsed from, and the position of its first byte.
    src: &'s str,
    base: u32,
    /// Declared name -> its number `n` (printed `_p<n>`).
    scopes: Scopes<&'a str, usize>,
    next_local: usize,
    /// The statement labels around (name, number: printed `_l<n>`), numbered in order.
    labels: Vec<(&'a str, usize)>,
    next_label: usize,
    /// Labels used but declared outside the printed code (printed `_m<i>`, in order of use).
    outer_labels: Vec<&'a str>,
    pub(crate) resolve: R,
}

impl<'s, 'a, R: Resolve> Printer<'s, 'a, R> {
    /// A printer of syntax parsed from `src`, whose first byte is at position `base`.
    pub(crate) fn new(src: &'s str, base: u32, resolve: R) -> Self {
        Printer {
            out: Out::default(),
            src,
            base,
            scopes: Scopes::default(),
            next_local: 0,
            labels: Vec::new(),
            next_label: 0,
            outer_labels: Vec::new(),
            resolve,
        }
    }

    /// What was printed; `prec` is how tight it binds (see [`Out::append`]).
    pub(crate) fn finish(self, prec: u8) -> super::Canonical {
        self.out.finish(prec)
    }

    // ----- scopes ---------------------------------------------------------------------------

    fn enter(&mut self, declared: Vec<Declared<'a>>) {
        let first = self.next_local;
        self.next_local += declared.len();
        self.scopes.push(
            declared
                .into_iter()
                .enumerate()
                .map(|(i, d)| (&**d.name, first + i)),
        );
    }

    fn leave(&mut self) {
        self.scopes.pop();
    }

    /// A read (or write) of a name.
    fn ident(&mut self, name: &str) {
        self.ident_in(name, PRIMARY);
    }

    /// A read of a name in an operand position binding at least as tight as `min`.
    fn ident_in(&mut self, name: &str, min: u8) {
        match self.scopes.lookup(name) {
            Some(&n) => {
                use std::fmt::Write;
                let _ = write!(*self.out, "_p{n}");
            }
            None => self.resolve.free(name, min, &mut self.out),
        }
    }

    /// A statement label: its name is the program's choice, so it prints as its place among
    /// the labels around (`_l0`...), or, declared outside the printed code, among those
    /// (`_m0`...).
    fn label(&mut self, name: &'a str) {
        use std::fmt::Write;
        if let Some(&(_, n)) = self.labels.iter().rev().find(|(l, _)| *l == name) {
            let _ = write!(*self.out, "_l{n}");
            return;
        }
        let i = match self.outer_labels.iter().position(|l| *l == name) {
            Some(i) => i,
            None => {
                self.outer_labels.push(name);
                self.outer_labels.len() - 1
            }
        };
        let _ = write!(*self.out, "_m{i}");
    }

    fn fallback(&mut self, span: swc_common::Span) {
        let lo = span.lo.0.saturating_sub(self.base) as usize;
        let hi = span.hi.0.saturating_sub(self.base) as usize;
        let text = self.src.get(lo..hi).unwrap_or("");
        collapse_whitespace(text, &mut self.out);
    }

    // ----- programs -------------------------------------------------------------------------

    /// An agent program: the body of a function.
    pub(crate) fn program(&mut self, stmts: &'a [Stmt]) {
        self.enter(scope::function_names(std::iter::empty(), Some(stmts)));
        self.stmts(stmts);
        self.leave();
    }

    /// A statement of the program on its own: the names it declares at its top are not its
    /// own (they are the program's, read elsewhere), so they are resolved like every free name.
    pub(crate) fn effect(&mut self, s: &'a Stmt) {
        self.stmt(s);
    }

    fn stmts(&mut self, stmts: &'a [Stmt]) {
        let mut first = true;
        for s in stmts {
            if is_type_only(s) {
                continue;
            }
            if !first {
                self.out.push(' ');
            }
            first = false;
            self.stmt(s);
        }
    }

    /// `{ a; b; }` without a scope of its own (a function body: its names are in the function's
    /// scope).
    fn braced(&mut self, stmts: &'a [Stmt]) {
        if stmts.iter().all(is_type_only) {
            self.out.push_str("{}");
            return;
        }
        self.out.push_str("{ ");
        self.stmts(stmts);
        self.out.push_str(" }");
    }

    fn block(&mut self, b: &'a BlockStmt) {
        let mut names = Vec::new();
        scope::block_names(&b.stmts, &mut names);
        self.enter(names);
        self.braced(&b.stmts);
        self.leave();
    }

    /// The body of `if`, a loop, `with`: always braced.
    fn body(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Block(b) => self.block(b),
            other => self.block_of_one(other),
        }
    }

    fn block_of_one(&mut self, s: &'a Stmt) {
        let mut names = Vec::new();
        scope::block_names(std::slice::from_ref(s), &mut names);
        self.enter(names);
        self.braced(std::slice::from_ref(s));
        self.leave();
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Block(b) => self.block(b),
            Stmt::Empty(_) => self.out.push(';'),
            Stmt::Debugger(_) => self.out.push_str("debugger;"),
            Stmt::With(w) => {
                self.out.push_str("with (");
                self.expr(&w.obj, SEQ);
                self.out.push_str(") ");
                self.body(&w.body);
            }
            Stmt::Return(r) => {
                self.out.push_str("return");
                if let Some(arg) = &r.arg {
                    self.out.push(' ');
                    self.expr(arg, SEQ);
                }
                self.out.push(';');
            }
            Stmt::Labeled(l) => {
                let n = self.next_label;
                self.next_label += 1;
                self.labels.push((&l.label.sym, n));
                self.label(&l.label.sym);
                self.out.push_str(": ");
                self.stmt(&l.body);
                self.labels.pop();
            }
            Stmt::Break(b) => {
                self.out.push_str("break");
                if let Some(label) = &b.label {
                    self.out.push(' ');
                    self.label(&label.sym);
                }
                self.out.push(';');
            }
            Stmt::Continue(c) => {
                self.out.push_str("continue");
                if let Some(label) = &c.label {
                    self.out.push(' ');
                    self.label(&label.sym);
                }
                self.out.push(';');
            }
            Stmt::If(i) => {
                self.out.push_str("if (");
                self.expr(&i.test, SEQ);
                self.out.push_str(") ");
                self.body(&i.cons);
                if let Some(alt) = &i.alt {
                    self.out.push_str(" else ");
                    self.body(alt);
                }
            }
            Stmt::Switch(sw) => {
                self.out.push_str("switch (");
                self.expr(&sw.discriminant, SEQ);
                self.out.push_str(") {");
                let mut names = Vec::new();
                scope::switch_names(&sw.cases, &mut names);
                self.enter(names);
                for c in &sw.cases {
                    match &c.test {
                        Some(t) => {
                            self.out.push_str(" case ");
                            self.expr(t, SEQ);
                            self.out.push(':');
                        }
                        None => self.out.push_str(" default:"),
                    }
                    for s in c.cons.iter().filter(|s| !is_type_only(s)) {
                        self.out.push(' ');
                        self.stmt(s);
                    }
                }
                self.leave();
                self.out.push_str(" }");
            }
            Stmt::Throw(t) => {
                self.out.push_str("throw ");
                self.expr(&t.arg, SEQ);
                self.out.push(';');
            }
            Stmt::Try(t) => {
                self.out.push_str("try ");
                self.block(&t.block);
                if let Some(h) = &t.handler {
                    self.out.push_str(" catch ");
                    let mut names = Vec::new();
                    if let Some(p) = &h.param {
                        scope::pattern_names(p, DeclKind::Catch, &mut names);
                    }
                    self.enter(names);
                    if let Some(p) = &h.param {
                        self.out.push('(');
                        self.pat(p);
                        self.out.push_str(") ");
                    }
                    self.block(&h.body);
                    self.leave();
                }
                if let Some(f) = &t.finalizer {
                    self.out.push_str(" finally ");
                    self.block(f);
                }
            }
            Stmt::While(w) => {
                self.out.push_str("while (");
                self.expr(&w.test, SEQ);
                self.out.push_str(") ");
                self.body(&w.body);
            }
            Stmt::DoWhile(d) => {
                self.out.push_str("do ");
                self.body(&d.body);
                self.out.push_str(" while (");
                self.expr(&d.test, SEQ);
                self.out.push_str(");");
            }
            Stmt::For(f) => {
                let mut names = Vec::new();
                if let Some(VarDeclOrExpr::VarDecl(v)) = &f.init {
                    scope::loop_head_names(v, &mut names);
                }
                self.enter(names);
                self.out.push_str("for (");
                match &f.init {
                    Some(VarDeclOrExpr::VarDecl(v)) => self.var_decl(v),
                    Some(VarDeclOrExpr::Expr(e)) => self.expr(e, SEQ),
                    None => {}
                }
                self.out.push(';');
                if let Some(t) = &f.test {
                    self.out.push(' ');
                    self.expr(t, SEQ);
                }
                self.out.push(';');
                if let Some(u) = &f.update {
                    self.out.push(' ');
                    self.expr(u, SEQ);
                }
                self.out.push_str(") ");
                self.body(&f.body);
                self.leave();
            }
            Stmt::ForIn(f) => self.for_in_of(&f.left, &f.right, &f.body, " in ", false),
            Stmt::ForOf(f) => self.for_in_of(&f.left, &f.right, &f.body, " of ", f.is_await),
            Stmt::Decl(d) => self.decl(d),
            Stmt::Expr(e) => self.expr_stmt(&e.expr),
        }
    }

    /// `e;`: an expression as a statement.
    pub(crate) fn expr_stmt(&mut self, e: &'a Expr) {
        let at = self.out.len();
        self.expr(e, SEQ);
        let printed = &self.out[at..];
        if printed.starts_with('{')
            || printed.starts_with("function")
            || printed.starts_with("async function")
            || printed.starts_with("class")
            || printed.starts_with("let [")
        {
            self.out.insert(at, '(');
            self.out.push(')');
        }
        self.out.push(';');
    }

    fn for_in_of(
        &mut self,
        left: &'a ForHead,
        right: &'a Expr,
        body: &'a Stmt,
        kw: &str,
        is_await: bool,
    ) {
        let mut names = Vec::new();
        if let ForHead::VarDecl(v) = left {
            scope::loop_head_names(v, &mut names);
        }
        self.enter(names);
        self.out
            .push_str(if is_await { "for await (" } else { "for (" });
        match left {
            ForHead::VarDecl(v) => self.var_decl(v),
            ForHead::UsingDecl(u) => self.fallback(u.span),
            ForHead::Pat(p) => self.pat(p),
        }
        self.out.push_str(kw);
        self.expr(right, if kw == " of " { ASSIGN } else { SEQ });
        self.out.push_str(") ");
        self.body(body);
        self.leave();
    }

    fn var_decl(&mut self, v: &'a VarDecl) {
        self.out.push_str(match v.kind {
            VarDeclKind::Var => "var ",
            VarDeclKind::Let => "let ",
            VarDeclKind::Const => "const ",
        });
        for (i, d) in v.decls.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.pat(&d.name);
            if let Some(init) = &d.init {
                self.out.push_str(" = ");
                self.expr(init, ASSIGN);
            }
        }
    }

    fn decl(&mut self, d: &'a Decl) {
        match d {
            Decl::Var(v) => {
                self.var_decl(v);
                self.out.push(';');
            }
            Decl::Fn(f) => {
                self.function_head(&f.function);
                self.out.push(' ');
                self.ident(&f.ident.sym);
                self.function_rest(&f.function);
            }
            Decl::Class(c) => self.fallback(c.class.span),
            Decl::Using(u) => self.fallback(u.span),
            Decl::TsEnum(e) => self.fallback(e.span),
            Decl::TsModule(m) => self.fallback(m.span),
            Decl::TsInterface(_) | Decl::TsTypeAlias(_) => {}
        }
    }

    // ----- functions ------------------------------------------------------------------------

    /// `async function*` (no name).
    fn function_head(&mut self, f: &'a Function) {
        if f.is_async {
            self.out.push_str("async ");
        }
        self.out.push_str("function");
        if f.is_generator {
            self.out.push('*');
        }
    }

    /// `(params) { body }` in the function's own scope.
    fn function_rest(&mut self, f: &'a Function) {
        let body = f.body.as_ref().map(|b| b.stmts.as_slice());
        self.enter(scope::function_names(f.params.iter().map(|p| &p.pat), body));
        self.params(f.params.iter().map(|p| &p.pat));
        self.out.push(' ');
        match body {
            Some(stmts) => self.braced(stmts),
            None => self.out.push_str("{}"),
        }
        self.leave();
    }

    // A local function's code prints one way whatever form it was written in (`function
    // f(a) {...}`, `async (a) => ...`, `(function (a) {...})` of a method): its own name left
    // out, an expression body as `{ return e; }` (`async function(_p0) { ... }`).

    /// the one printing of a local function of a function (a declaration's, or a method's).
    pub(crate) fn function(&mut self, f: &'a Function) {
        self.function_head(f);
        self.function_rest(f);
    }

    /// the one printing of a local function of a function given by its parameters and body (a class's
    /// constructor, or its `static { ... }`).
    pub(crate) fn parts_function(
        &mut self,
        params: impl Iterator<Item = &'a Pat> + Clone,
        stmts: &'a [Stmt],
    ) {
        self.enter(scope::function_names(params.clone(), Some(stmts)));
        self.out.push_str("function");
        self.params(params);
        self.out.push(' ');
        self.braced(stmts);
        self.leave();
    }

    /// the one printing of a local function of a function written as an expression.
    pub(crate) fn function_expr(&mut self, e: &'a Expr) -> bool {
        match strip(e) {
            Expr::Fn(f) => {
                self.function_head(&f.function);
                self.function_rest(&f.function);
            }
            // An arrow that reads its surroundings' `this`, `arguments`, `super` or
            // `new.target` means something else as a function: it stays an arrow.
            Expr::Arrow(a) if reads_enclosing_bindings(a) => self.arrow(a),
            Expr::Arrow(a) => {
                let body = match &*a.body {
                    swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => Some(b.stmts.as_slice()),
                    swc_ecma_ast::ArrowFunctionBody::Expr(_) => None,
                };
                self.enter(scope::function_names(a.params.iter(), body));
                self.out.push_str(if a.is_async {
                    "async function"
                } else {
                    "function"
                });
                self.params(a.params.iter());
                self.out.push(' ');
                match &*a.body {
                    swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => self.braced(&b.stmts),
                    swc_ecma_ast::ArrowFunctionBody::Expr(e) => {
                        self.out.push_str("{ return ");
                        self.expr(e, SEQ);
                        self.out.push_str("; }");
                    }
                }
                self.leave();
            }
            _ => return false,
        }
        true
    }

    /// `(a, b)`: a function's parameters.
    fn params(&mut self, params: impl Iterator<Item = &'a Pat>) {
        self.out.push('(');
        for (i, p) in params.enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.pat(p);
        }
        self.out.push(')');
    }

    fn arrow(&mut self, a: &'a ArrowExpr) {
        let body = match &*a.body {
            swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => Some(b.stmts.as_slice()),
            swc_ecma_ast::ArrowFunctionBody::Expr(_) => None,
        };
        self.enter(scope::function_names(a.params.iter(), body));
        if a.is_async {
            self.out.push_str("async ");
        }
        self.params(a.params.iter());
        self.out.push_str(" => ");
        match &*a.body {
            swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => self.braced(&b.stmts),
            swc_ecma_ast::ArrowFunctionBody::Expr(e) => {
                let at = self.out.len();
                self.expr(e, ASSIGN);
                if self.out[at..].starts_with('{') {
                    self.out.insert(at, '(');
                    self.out.push(')');
                }
            }
        }
        self.leave();
    }

    // ----- patterns -------------------------------------------------------------------------

    fn pat(&mut self, p: &'a Pat) {
        match p {
            Pat::Ident(b) => self.ident(&b.id.sym),
            Pat::Array(a) => self.array_pat(a),
            Pat::Object(o) => self.object_pat(o),
            Pat::Assign(a) => {
                self.pat(&a.left);
                self.out.push_str(" = ");
                self.expr(&a.right, ASSIGN);
            }
            Pat::Rest(r) => {
                self.out.push_str("...");
                self.pat(&r.arg);
            }
            Pat::Expr(e) => self.expr(e, CALL),
            Pat::Invalid(_) => self.out.push_str("<invalid>"),
        }
    }

    fn array_pat(&mut self, a: &'a ArrayPat) {
        self.out.push('[');
        let n = a.elems.len();
        for (i, e) in a.elems.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match e {
                Some(p) => self.pat(p),
                None if i + 1 == n => self.out.push(','),
                None => {}
            }
        }
        self.out.push(']');
    }

    fn object_pat(&mut self, o: &'a ObjectPat) {
        if o.props.is_empty() {
            self.out.push_str("{}");
            return;
        }
        self.out.push('{');
        for (i, prop) in o.props.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match prop {
                ObjectPatProp::KeyValue(kv) => {
                    self.prop_name(&kv.key);
                    self.out.push_str(": ");
                    self.pat(&kv.value);
                }
                ObjectPatProp::Assign(a) => {
                    self.key_text(&a.key.id.sym);
                    self.out.push_str(": ");
                    self.ident(&a.key.id.sym);
                    if let Some(v) = &a.value {
                        self.out.push_str(" = ");
                        self.expr(v, ASSIGN);
                    }
                }
                ObjectPatProp::Rest(r) => {
                    self.out.push_str("...");
                    self.pat(&r.arg);
                }
            }
        }
        self.out.push('}');
    }

    // ----- expressions ----------------------------------------------------------------------

    /// Print `e`, parenthesised when it binds looser than `min`.
    pub(crate) fn expr(&mut self, e: &'a Expr, min: u8) {
        if self.replaced(e) {
            return;
        }
        let e = strip(e);
        if let Expr::Ident(id) = e {
            self.ident_in(&id.sym, min);
            return;
        }
        if prec(e) < min {
            self.out.push('(');
            self.expr_inner(e);
            self.out.push(')');
        } else {
            self.expr_inner(e);
        }
    }

    /// Whether the resolver printed `e` itself (or one of the parentheses and type wrappers
    /// around it, which are where the builder may know it by).
    fn replaced(&mut self, mut e: &'a Expr) -> bool {
        loop {
            if self.resolve.replace(e, &mut self.out) {
                return true;
            }
            e = match e {
                Expr::Paren(p) => &p.expr,
                Expr::TsAs(t) => &t.expr,
                Expr::TsSatisfies(t) => &t.expr,
                Expr::TsNonNull(t) => &t.expr,
                Expr::TsConstAssertion(t) => &t.expr,
                Expr::TsTypeAssertion(t) => &t.expr,
                Expr::TsInstantiation(t) => &t.expr,
                _ => return false,
            };
        }
    }

    fn expr_inner(&mut self, e: &'a Expr) {
        match e {
            Expr::This(_) => self.out.push_str("this"),
            Expr::Array(a) => self.array(a),
            Expr::Object(o) => self.object(o),
            Expr::Fn(f) => {
                self.function_head(&f.function);
                match &f.ident {
                    Some(id) => {
                        let own = vec![Declared {
                            name: &id.sym,
                            kind: DeclKind::Named,
                        }];
                        self.enter(own);
                        self.out.push(' ');
                        self.ident(&id.sym);
                        self.function_rest(&f.function);
                        self.leave();
                    }
                    None => {
                        self.out.push(' ');
                        self.function_rest(&f.function);
                    }
                }
            }
            Expr::Unary(u) => {
                let op = u.op.as_str();
                self.out.push_str(op);
                if matches!(u.op, UnaryOp::TypeOf | UnaryOp::Void | UnaryOp::Delete) {
                    self.out.push(' ');
                }
                let at = self.out.len();
                self.expr(&u.arg, UNARY);
                let sign = matches!(u.op, UnaryOp::Minus | UnaryOp::Plus);
                if sign && self.out[at..].starts_with(op) {
                    self.out.insert(at, ' ');
                }
            }
            Expr::Update(u) => {
                let op = match u.op {
                    UpdateOp::PlusPlus => "++",
                    UpdateOp::MinusMinus => "--",
                };
                if u.prefix {
                    self.out.push_str(op);
                    self.expr(&u.arg, CALL);
                } else {
                    self.expr(&u.arg, CALL);
                    self.out.push_str(op);
                }
            }
            Expr::Bin(b) => self.binary(b),
            Expr::Assign(a) => {
                self.assign_target(&a.left);
                self.out.push(' ');
                self.out.push_str(a.op.as_str());
                self.out.push(' ');
                self.expr(&a.right, ASSIGN);
            }
            Expr::Member(m) => self.member(m),
            Expr::SuperProp(s) => self.super_prop(s),
            Expr::Cond(c) => {
                self.expr(&c.test, OR);
                self.out.push_str(" ? ");
                self.expr(&c.cons, ASSIGN);
                self.out.push_str(" : ");
                self.expr(&c.alt, ASSIGN);
            }
            Expr::Call(c) => self.call(c),
            Expr::New(n) => {
                self.out.push_str("new ");
                let callee = strip(&n.callee);
                if self.replaced(&n.callee) {
                    // A node's result: a path or a hole.
                } else if prec(callee) < CALL || has_call_in_chain(callee) {
                    self.out.push('(');
                    self.expr_inner(callee);
                    self.out.push(')');
                } else {
                    self.expr_inner(callee);
                }
                match &n.args {
                    Some(args) => self.args(args),
                    None => self.out.push_str("()"),
                }
            }
            Expr::Seq(s) => {
                for (i, e) in s.exprs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(e, ASSIGN);
                }
            }
            Expr::Ident(id) => self.ident(&id.sym),
            Expr::Lit(l) => self.lit(l),
            Expr::Tpl(t) => self.template(t),
            Expr::TaggedTpl(t) => {
                self.callee(&t.tag);
                // The raw text is what a tag sees: it counts (escaped, so the output stays on
                // one line: `\` and line breaks in it are escaped too).
                self.out.push('`');
                for (i, q) in t.tpl.quasis.iter().enumerate() {
                    escape_str(&q.raw, true, &mut self.out);
                    if let Some(e) = t.tpl.exprs.get(i) {
                        self.out.push_str("${");
                        self.expr(e, SEQ);
                        self.out.push('}');
                    }
                }
                self.out.push('`');
            }
            Expr::Arrow(a) => self.arrow(a),
            Expr::Yield(y) => {
                self.out
                    .push_str(if y.delegate { "yield*" } else { "yield" });
                if let Some(arg) = &y.arg {
                    self.out.push(' ');
                    self.expr(arg, ASSIGN);
                }
            }
            Expr::MetaProp(m) => self.out.push_str(match m.kind {
                MetaPropKind::NewTarget => "new.target",
                MetaPropKind::ImportMeta => "import.meta",
            }),
            Expr::Await(a) => {
                self.out.push_str("await ");
                self.expr(&a.arg, UNARY);
            }
            Expr::PrivateName(p) => {
                self.out.push('#');
                self.out.push_str(&p.name);
            }
            Expr::OptChain(o) => self.opt_chain(o),
            Expr::Paren(_)
            | Expr::TsAs(_)
            | Expr::TsSatisfies(_)
            | Expr::TsNonNull(_)
            | Expr::TsConstAssertion(_)
            | Expr::TsTypeAssertion(_)
            | Expr::TsInstantiation(_) => self.expr(e, SEQ),
            Expr::Invalid(_) => self.out.push_str("<invalid>"),
            Expr::Class(_)
            | Expr::JSXMember(_)
            | Expr::JSXNamespacedName(_)
            | Expr::JSXEmpty(_)
            | Expr::JSXElement(_)
            | Expr::JSXFragment(_) => self.fallback(e.span()),
        }
    }

    pub(crate) fn call(&mut self, c: &'a swc_ecma_ast::CallExpr) {
        match &c.callee {
            Callee::Super(_) => self.out.push_str("super"),
            Callee::Import(_) => self.out.push_str("import"),
            Callee::Expr(callee) => self.callee(callee),
        }
        self.args(&c.args);
    }

    /// `f(...);`: a call as a statement.
    pub(crate) fn call_stmt(&mut self, c: &'a swc_ecma_ast::CallExpr) {
        self.call(c);
        self.out.push(';');
    }

    fn binary(&mut self, b: &'a swc_ecma_ast::BinExpr) {
        let p = bin_prec(b.op);
        let (left_min, right_min) = if b.op == BinaryOp::Exp {
            // Right-associative; a unary operand on the left is a syntax error unbracketed.
            (POSTFIX, EXPONENT)
        } else {
            (p, p + 1)
        };
        self.operand(&b.left, left_min, b.op);
        self.out.push(' ');
        self.out.push_str(b.op.as_str());
        self.out.push(' ');
        self.operand(&b.right, right_min, b.op);
    }

    fn operand(&mut self, e: &'a Expr, min: u8, parent: BinaryOp) {
        if self.replaced(e) {
            return;
        }
        let inner = strip(e);
        // `??` does not mix with `||`/`&&` without parentheses.
        let mixes = match inner {
            Expr::Bin(child) => {
                let logical = |op| matches!(op, BinaryOp::LogicalOr | BinaryOp::LogicalAnd);
                (parent == BinaryOp::NullishCoalescing && logical(child.op))
                    || (logical(parent) && child.op == BinaryOp::NullishCoalescing)
            }
            _ => false,
        };
        if mixes {
            self.out.push('(');
            self.expr_inner(inner);
            self.out.push(')');
        } else {
            self.expr(inner, min);
        }
    }

    /// The object of a member access or the callee of a call.
    fn callee(&mut self, e: &'a Expr) {
        if self.replaced(e) {
            return;
        }
        let inner = strip(e);
        // `(a?.b).c` is not `a?.b.c`; `(1).x` is not a number `1.`.
        let paren = matches!(inner, Expr::OptChain(_) | Expr::Lit(Lit::Num(_)));
        if paren {
            self.out.push('(');
            self.expr_inner(inner);
            self.out.push(')');
        } else {
            self.expr(inner, CALL);
        }
    }

    fn super_prop(&mut self, s: &'a SuperPropExpr) {
        self.out.push_str("super");
        match &s.prop {
            SuperProp::Ident(n) => {
                self.out.push('.');
                self.out.push_str(&n.sym);
            }
            SuperProp::Computed(c) => self.computed(&c.expr, false),
        }
    }

    fn member(&mut self, m: &'a MemberExpr) {
        self.callee(&m.obj);
        self.member_prop(&m.prop, false);
    }

    fn member_prop(&mut self, prop: &'a MemberProp, optional: bool) {
        match prop {
            MemberProp::Ident(n) => {
                self.out.push_str(if optional { "?." } else { "." });
                self.out.push_str(&n.sym);
            }
            MemberProp::PrivateName(p) => {
                self.out.push_str(if optional { "?.#" } else { ".#" });
                self.out.push_str(&p.name);
            }
            MemberProp::Computed(c) => self.computed(&c.expr, optional),
        }
    }

    /// `x[key]`, or `x.key` when the key is a string that is an identifier name.
    fn computed(&mut self, key: &'a Expr, optional: bool) {
        if let Expr::Lit(Lit::Str(s)) = strip(key) {
            if let Some(name) = s.value.as_wtf8().as_str().filter(|n| is_ident_name(n)) {
                self.out.push_str(if optional { "?." } else { "." });
                self.out.push_str(name);
                return;
            }
        }
        self.out.push_str(if optional { "?.[" } else { "[" });
        self.expr(key, SEQ);
        self.out.push(']');
    }

    fn opt_chain(&mut self, o: &'a OptChainExpr) {
        match &*o.base {
            OptChainBase::Member(m) => {
                self.chain_object(&m.obj);
                self.member_prop(&m.prop, o.optional);
            }
            OptChainBase::Call(c) => {
                self.chain_object(&c.callee);
                if o.optional {
                    self.out.push_str("?.");
                }
                self.args(&c.args);
            }
        }
    }

    /// Inside an optional chain the chain continues: no parentheses around an inner link.
    fn chain_object(&mut self, e: &'a Expr) {
        if self.replaced(e) {
            return;
        }
        match strip(e) {
            Expr::OptChain(inner) => self.opt_chain(inner),
            _ => self.callee(e),
        }
    }

    fn args(&mut self, args: &'a [ExprOrSpread]) {
        self.out.push('(');
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if a.spread.is_some() {
                self.out.push_str("...");
            }
            self.expr(&a.expr, ASSIGN);
        }
        self.out.push(')');
    }

    fn assign_target(&mut self, t: &'a AssignTarget) {
        match t {
            AssignTarget::Simple(s) => match s {
                SimpleAssignTarget::Ident(b) => self.ident(&b.id.sym),
                SimpleAssignTarget::Member(m) => self.member(m),
                SimpleAssignTarget::SuperProp(s) => self.super_prop(s),
                SimpleAssignTarget::Paren(p) => self.expr(&p.expr, CALL),
                SimpleAssignTarget::OptChain(o) => self.opt_chain(o),
                SimpleAssignTarget::TsAs(t) => self.expr(&t.expr, CALL),
                SimpleAssignTarget::TsSatisfies(t) => self.expr(&t.expr, CALL),
                SimpleAssignTarget::TsNonNull(t) => self.expr(&t.expr, CALL),
                SimpleAssignTarget::TsTypeAssertion(t) => self.expr(&t.expr, CALL),
                SimpleAssignTarget::TsInstantiation(t) => self.expr(&t.expr, CALL),
                SimpleAssignTarget::Invalid(_) => self.out.push_str("<invalid>"),
            },
            AssignTarget::Pat(p) => match p {
                AssignTargetPat::Array(a) => self.array_pat(a),
                AssignTargetPat::Object(o) => {
                    // A statement may not start with `{`: the caller parenthesises.
                    self.object_pat(o)
                }
                AssignTargetPat::Invalid(_) => self.out.push_str("<invalid>"),
            },
        }
    }

    fn array(&mut self, a: &'a ArrayLit) {
        self.out.push('[');
        let n = a.elems.len();
        for (i, e) in a.elems.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match e {
                Some(e) => {
                    if e.spread.is_some() {
                        self.out.push_str("...");
                    }
                    self.expr(&e.expr, ASSIGN);
                }
                None if i + 1 == n => self.out.push(','),
                None => {}
            }
        }
        self.out.push(']');
    }

    fn object(&mut self, o: &'a ObjectLit) {
        if o.props.is_empty() {
            self.out.push_str("{}");
            return;
        }
        self.out.push('{');
        for (i, p) in o.props.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match p {
                PropOrSpread::Spread(s) => {
                    self.out.push_str("...");
                    self.expr(&s.expr, ASSIGN);
                }
                PropOrSpread::Prop(p) => self.prop(p),
            }
        }
        self.out.push('}');
    }

    fn prop(&mut self, p: &'a Prop) {
        match p {
            Prop::Shorthand(id) => {
                self.key_text(&id.sym);
                self.out.push_str(": ");
                self.ident_in(&id.sym, ASSIGN);
            }
            Prop::KeyValue(kv) => {
                self.prop_name(&kv.key);
                self.out.push_str(": ");
                self.expr(&kv.value, ASSIGN);
            }
            Prop::Assign(a) => {
                self.key_text(&a.key.sym);
                self.out.push_str(": ");
                self.ident(&a.key.sym);
                self.out.push_str(" = ");
                self.expr(&a.value, ASSIGN);
            }
            Prop::Getter(g) => {
                self.out.push_str("get ");
                self.prop_name(&g.key);
                self.function_rest(&g.function);
            }
            Prop::Setter(s) => {
                self.out.push_str("set ");
                self.prop_name(&s.key);
                self.function_rest(&s.function);
            }
            Prop::Method(m) => {
                if m.function.is_async {
                    self.out.push_str("async ");
                }
                if m.function.is_generator {
                    self.out.push('*');
                }
                self.prop_name(&m.key);
                self.function_rest(&m.function);
            }
        }
    }

    fn key_text(&mut self, key: &str) {
        if is_ident_name(key) {
            self.out.push_str(key);
        } else {
            quote_str(key, &mut self.out);
        }
    }

    fn prop_name(&mut self, key: &'a PropName) {
        match key {
            PropName::Ident(n) => self.key_text(&n.sym),
            PropName::Str(s) => match s.value.as_wtf8().as_str() {
                Some(name) => self.key_text(name),
                None => {
                    self.out.push('"');
                    quote_wtf8!(&s.value, false, &mut self.out);
                    self.out.push('"');
                }
            },
            PropName::Num(n) => fmt_number(n.value, &mut self.out),
            PropName::BigInt(b) => {
                self.out.push_str(&b.value.to_string());
            }
            PropName::Computed(c) => {
                self.out.push('[');
                self.expr(&c.expr, ASSIGN);
                self.out.push(']');
            }
        }
    }

    fn lit(&mut self, l: &'a Lit) {
        match l {
            Lit::Str(s) => {
                self.out.push('"');
                quote_wtf8!(&s.value, false, &mut self.out);
                self.out.push('"');
            }
            Lit::Bool(b) => self.out.push_str(if b.value { "true" } else { "false" }),
            Lit::Null(_) => self.out.push_str("null"),
            Lit::Num(n) => fmt_number(n.value, &mut self.out),
            Lit::BigInt(b) => {
                self.out.push_str(&b.value.to_string());
                self.out.push('n');
            }
            Lit::Regex(r) => {
                self.out.push('/');
                self.out.push_str(&r.exp);
                self.out.push('/');
                self.out.push_str(&r.flags);
            }
            Lit::JSXText(t) => self.fallback(t.span),
        }
    }

    fn template(&mut self, t: &'a Tpl) {
        if t.exprs.is_empty() {
            if let Some(cooked) = t.quasis.first().and_then(|q| q.cooked.as_ref()) {
                // `abc` is the string "abc".
                self.out.push('"');
                quote_wtf8!(cooked, false, &mut self.out);
                self.out.push('"');
                return;
            }
        }
        self.out.push('`');
        for (i, q) in t.quasis.iter().enumerate() {
            match &q.cooked {
                Some(cooked) => quote_wtf8!(cooked, true, &mut self.out),
                None => escape_str(&q.raw, true, &mut self.out),
            }
            if let Some(e) = t.exprs.get(i) {
                self.out.push_str("${");
                self.expr(e, SEQ);
                self.out.push('}');
            }
        }
        self.out.push('`');
    }
}

/// `new (a())()` needs its parentheses: a call in the callee's member chain.
/// Whether the arrow `a` reads `this`, `arguments`, `super` or `new.target` (its own, or of
/// arrows inside it: all of them the enclosing function's).
fn reads_enclosing_bindings(a: &ArrowExpr) -> bool {
    use swc_ecma_visit::{Visit, VisitWith};
    struct Reads(bool);
    impl Visit for Reads {
        fn visit_this_expr(&mut self, _: &swc_ecma_ast::ThisExpr) {
            self.0 = true;
        }
        fn visit_super(&mut self, _: &swc_ecma_ast::Super) {
            self.0 = true;
        }
        fn visit_meta_prop_expr(&mut self, m: &swc_ecma_ast::MetaPropExpr) {
            if m.kind == MetaPropKind::NewTarget {
                self.0 = true;
            }
        }
        fn visit_ident(&mut self, id: &swc_ecma_ast::Ident) {
            if &*id.sym == "arguments" {
                self.0 = true;
            }
        }
        // A function or a class has its own.
        fn visit_function(&mut self, _: &Function) {}
        fn visit_class(&mut self, _: &swc_ecma_ast::Class) {}
    }
    let mut reads = Reads(false);
    a.params.visit_with(&mut reads);
    a.body.visit_with(&mut reads);
    reads.0
}

fn has_call_in_chain(e: &Expr) -> bool {
    match strip(e) {
        Expr::Call(_) | Expr::OptChain(_) => true,
        Expr::Member(m) => has_call_in_chain(&m.obj),
        Expr::TaggedTpl(t) => has_call_in_chain(&t.tag),
        _ => false,
    }
}

/// TypeScript declarations without run-time effect (and `declare` variables).
fn is_type_only(s: &Stmt) -> bool {
    match s {
        Stmt::Decl(Decl::TsInterface(_) | Decl::TsTypeAlias(_)) => true,
        Stmt::Decl(Decl::Var(v)) => v.declare,
        Stmt::Decl(Decl::Fn(f)) => f.declare || f.function.body.is_none(),
        _ => false,
    }
}
