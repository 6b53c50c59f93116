//! TypeScript -> JavaScript by erasing type syntax in place (the "ts-blank-space" approach).
//!
//! The code is parsed as TypeScript with the same wrapper as [`crate::parse`], then every byte of
//! type-only syntax is replaced by a space (line terminators stay), so the output has the same
//! length and every remaining token keeps its byte offset, line and column. A handful of single
//! bytes are written into erased space where JavaScript needs them:
//!
//! - `;` at the start of an erased statement or class member (`interface`, `type`, `declare`,
//!   overload signatures, index signatures, a member starting with `private` ...), and after an
//!   erased `as T` / `satisfies T` when the next line starts with `(`, `[` or a template
//!   (TypeScript ended the statement there; JavaScript would continue it);
//! - `)` moved to the end of an arrow function's return type when the type spans lines between
//!   the parameters and `=>` (JavaScript forbids a line break before `=>`).
//!
//! Three constructs need generated code: an `enum` (not `declare`), a namespace with values and
//! a class whose constructor has parameter properties. Each is compiled as the reference runner compiles it ([`crate::compile`])
//! and written in its place, on its first line, followed by the line breaks it spanned: the lines
//! after it keep their numbers, not their byte offsets ([`Stripped::compiled`]). Other
//! constructs that need generated code are refused with their position: decorators, `accessor`
//! fields; so are the few erasures that would change how JavaScript reads the code (a line break left after
//! `return`, a `<T>{...}` assertion starting a statement or an arrow body). `import`/`export`
//! (including `import x = require()`, `export =`, `import type`) cannot appear in a function
//! body: they are syntax errors.
//!
//! Parsing as TypeScript decides what is type syntax: plain JavaScript comes back unchanged,
//! except the rare `a < b > (c)`, which TypeScript reads as a call with type arguments.

use swc_common::util::take::Take;
use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{
    ArrayPat, ArrowExpr, ArrowFunctionBody, BindingIdent, Class, ClassMember, Decl, Decorator,
    Expr, Function, ModuleDecl, ModuleItem, ObjectPat, Pat, ReturnStmt, SimpleAssignTarget, Stmt,
    ThrowStmt, TsAsExpr, TsConstAssertion, TsEnumDecl, TsExportAssignment, TsImportEqualsDecl,
    TsModuleDecl, TsNamespaceBody, TsNonNullExpr, TsParamProp, TsSatisfiesExpr, TsType, TsTypeAnn,
    TsTypeAssertion, TsTypeParamDecl, TsTypeParamInstantiation, VarDeclarator, YieldExpr,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::compile::{self, Construct};
use crate::parse::{self, Dialect, LineIndex};
use crate::Diagnostic;

/// Why [`strip_types`] could not produce JavaScript.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StripError {
    /// The code does not parse as TypeScript (the first error, worded as the builder's
    /// `syntax-error` diagnostics).
    #[error("{line}:{column}: {message}")]
    Syntax {
        message: String,
        line: usize,
        column: usize,
    },
    /// A construct that cannot run once its types are erased: it needs generated code pml does
    /// not make (decorators, `accessor` fields, `import =`, `export =`), or erasing it in place
    /// would change how JavaScript reads the code.
    #[error("{line}:{column}: {message}")]
    Unsupported {
        /// A short name of the construct: `enum`, `namespace`, `parameter property`, ...
        construct: &'static str,
        message: String,
        line: usize,
        column: usize,
    },
    /// Refused before parsing, like [`crate::build_structure`] (nesting or operator count over
    /// the parser's limits).
    #[error("{line}:{column}: {message}")]
    Refused {
        message: String,
        line: usize,
        column: usize,
    },
    /// The worker thread could not start or failed (a bug: please report it).
    #[error("internal error while stripping types (please report it)")]
    Internal,
}

impl StripError {
    /// The error as a diagnostic at its place, coded as the builder codes the same error.
    pub fn to_diagnostic(&self) -> crate::Diagnostic {
        use crate::diagnostics as codes;
        let (code, message, at) = match self {
            Self::Syntax {
                message,
                line,
                column,
            } => (codes::SYNTAX_ERROR, message.clone(), (*line, *column)),
            Self::Unsupported {
                message,
                line,
                column,
                ..
            } => (
                codes::UNSUPPORTED_TYPESCRIPT,
                message.clone(),
                (*line, *column),
            ),
            Self::Refused {
                message,
                line,
                column,
            } => (codes::TOO_DEEP, message.clone(), (*line, *column)),
            Self::Internal => return crate::diagnostics::internal("stripping types"),
        };
        crate::Diagnostic::at(crate::Severity::Error, code, message, at)
    }
}

/// Turn TypeScript agent code (the body of an async function, see [`crate::build_structure`])
/// into JavaScript by replacing type-only syntax with spaces. The output has exactly the same
/// length in bytes, and every line terminator and every kept token stays at its byte offset.
/// Plain JavaScript comes back unchanged.
///
/// ```
/// use pml_structure::strip_types;
///
/// let js = strip_types("const n: number = args.count as number;").unwrap();
/// assert_eq!(js, "const n         = args.count          ;");
/// ```
pub fn strip_types(source: &str) -> Result<String, StripError> {
    let lines = LineIndex::new(source);
    if let Some((offset, message)) = crate::refuse(source, Dialect::TypeScript) {
        let (line, column) = lines.line_col(source, offset);
        return Err(StripError::Refused {
            message,
            line,
            column,
        });
    }
    // The parser, the walk and the syntax tree's destructor recurse per nesting level.
    crate::on_big_stack(|| strip_on_this_thread(source, &lines))
        .unwrap_or(Err(StripError::Internal))
}

fn strip_on_this_thread(source: &str, lines: &LineIndex) -> Result<String, StripError> {
    let parsed = parse_typescript(source, lines)?;
    Ok(strip_parsed(source, &parsed, lines)?.javascript)
}

/// TypeScript made JavaScript.
pub(crate) struct Stripped {
    pub(crate) javascript: String,
    /// Some constructs were compiled ([`crate::compile`]): the JavaScript's tokens after them
    /// are not at their source offsets (their lines are the same), so its syntax tree is not
    /// the TypeScript's.
    pub(crate) compiled: bool,
}

/// `source` parsed as TypeScript; its first error as [`strip_types`] says it.
pub(crate) fn parse_typescript(
    source: &str,
    lines: &LineIndex,
) -> Result<parse::Parsed, StripError> {
    match parse::parse(source, Dialect::TypeScript, lines) {
        Ok(parsed) => Ok(parsed),
        Err(diagnostics) => Err(match diagnostics.into_iter().next() {
            // A parse error always has its place.
            Some(Diagnostic {
                message,
                line: Some(line),
                column: Some(column),
                ..
            }) => match char_at_line_col(source, line, column) {
                // Decorators are not enabled in the grammar: name them rather than the token.
                Some('@') => StripError::Unsupported {
                    construct: "decorator",
                    message: DECORATORS.into(),
                    line,
                    column,
                },
                _ => StripError::Syntax {
                    message,
                    line,
                    column,
                },
            },
            _ => StripError::Internal,
        }),
    }
}

/// The syntax tree of TypeScript made the one its JavaScript (`javascript`, the text with its
/// types blanked out) parses to, for walking it with that text: the expressions that only say
/// a type (`x as T`, `x!`, `x satisfies T`, `<T>x`, `f<T>`) become what they wrap, and every
/// span that starts or ends in blanked-out text shrinks to what is left, as the span of the
/// JavaScript's own token would (a span of JavaScript never starts or ends with white space).
/// Types elsewhere (on parameters, declarations) are no expressions: the builder never reads
/// them.
pub(crate) fn unwrap_type_expressions(body: &mut Vec<Stmt>, javascript: &str, base: u32) {
    use swc_ecma_visit::{VisitMut, VisitMutWith};
    struct Unwrap<'t> {
        text: &'t [u8],
        base: u32,
    }
    impl VisitMut for Unwrap<'_> {
        fn visit_mut_span(&mut self, span: &mut swc_common::Span) {
            let at = |pos: BytePos| pos.0.checked_sub(self.base).map(|p| p as usize);
            let (Some(mut lo), Some(mut hi)) = (at(span.lo), at(span.hi)) else {
                return;
            };
            if hi > self.text.len() || lo > hi {
                return;
            }
            let (lo0, hi0) = (lo, hi);
            while hi > lo && self.text[hi - 1].is_ascii_whitespace() {
                hi -= 1;
            }
            while lo < hi && self.text[lo].is_ascii_whitespace() {
                lo += 1;
            }
            if (lo, hi) != (lo0, hi0) {
                *span = swc_common::Span::new(
                    BytePos(lo as u32 + self.base),
                    BytePos(hi as u32 + self.base),
                );
            }
        }

        fn visit_mut_expr(&mut self, e: &mut Expr) {
            loop {
                let inner = match e {
                    Expr::TsAs(x) => &mut x.expr,
                    Expr::TsNonNull(x) => &mut x.expr,
                    Expr::TsSatisfies(x) => &mut x.expr,
                    Expr::TsTypeAssertion(x) => &mut x.expr,
                    Expr::TsConstAssertion(x) => &mut x.expr,
                    Expr::TsInstantiation(x) => &mut x.expr,
                    _ => break,
                };
                let inner = inner.take();
                *e = *inner;
            }
            e.visit_mut_children_with(self);
        }

        /// Declarations that are types only (`declare const mcp: Mcp;`, an overload
        /// signature, an interface): an empty statement, as the blanked text parses.
        fn visit_mut_stmt(&mut self, stmt: &mut Stmt) {
            if let Stmt::Decl(d) = stmt {
                if erased_decl(d) {
                    *stmt = Stmt::Empty(swc_ecma_ast::EmptyStmt { span: d.span() });
                    return;
                }
            }
            stmt.visit_mut_children_with(self);
        }

        /// Class members that are types only are gone; so are `implements` clauses.
        fn visit_mut_class(&mut self, class: &mut Class) {
            class.body.retain(|m| !Stripper::member_is_type_only(m));
            class.implements.clear();
            class.visit_mut_children_with(self);
        }

        /// A function's `this: T` parameter is a type only.
        fn visit_mut_function(&mut self, f: &mut Function) {
            f.params
                .retain(|p| !matches!(&p.pat, Pat::Ident(id) if &*id.id.sym == "this"));
            f.visit_mut_children_with(self);
        }

        /// `x! = v`, `(x as T).y = v`: the target as JavaScript has it.
        fn visit_mut_simple_assign_target(&mut self, t: &mut SimpleAssignTarget) {
            loop {
                let inner = match t {
                    SimpleAssignTarget::TsAs(x) => &mut x.expr,
                    SimpleAssignTarget::TsNonNull(x) => &mut x.expr,
                    SimpleAssignTarget::TsSatisfies(x) => &mut x.expr,
                    SimpleAssignTarget::TsTypeAssertion(x) => &mut x.expr,
                    SimpleAssignTarget::TsInstantiation(x) => &mut x.expr,
                    _ => break,
                };
                let inner = inner.take();
                *t = match *inner {
                    Expr::Ident(id) => SimpleAssignTarget::Ident(id.into()),
                    Expr::Member(m) => SimpleAssignTarget::Member(m),
                    Expr::SuperProp(m) => SimpleAssignTarget::SuperProp(m),
                    Expr::Paren(p) => SimpleAssignTarget::Paren(p),
                    Expr::OptChain(o) => SimpleAssignTarget::OptChain(o),
                    Expr::TsAs(x) => SimpleAssignTarget::TsAs(x),
                    Expr::TsNonNull(x) => SimpleAssignTarget::TsNonNull(x),
                    Expr::TsSatisfies(x) => SimpleAssignTarget::TsSatisfies(x),
                    Expr::TsTypeAssertion(x) => SimpleAssignTarget::TsTypeAssertion(x),
                    Expr::TsInstantiation(x) => SimpleAssignTarget::TsInstantiation(x),
                    other => {
                        // Not a target JavaScript has: left as TypeScript wrote it.
                        *t = SimpleAssignTarget::Invalid(swc_ecma_ast::Invalid {
                            span: other.span(),
                        });
                        return;
                    }
                };
            }
            t.visit_mut_children_with(self);
        }
    }
    let mut unwrap = Unwrap {
        text: javascript.as_bytes(),
        base,
    };
    body.visit_mut_with(&mut unwrap);
}

/// A declaration the stripper blanked out (see `Stripper::type_only_decl`, which has already
/// refused the ones that cannot be).
fn erased_decl(decl: &Decl) -> bool {
    match decl {
        Decl::TsInterface(_) | Decl::TsTypeAlias(_) | Decl::TsEnum(_) | Decl::TsModule(_) => true,
        Decl::Var(v) => v.declare,
        Decl::Fn(f) => f.declare || f.function.body.is_none(),
        Decl::Class(c) => c.declare,
        Decl::Using(_) => false,
    }
}

/// The JavaScript of `source`, whose syntax tree (as TypeScript) is `parsed`.
pub(crate) fn strip_parsed(
    source: &str,
    parsed: &parse::Parsed,
    lines: &LineIndex,
) -> Result<Stripped, StripError> {
    let mut s = Stripper {
        src: source,
        base: parsed.base,
        blanks: Vec::new(),
        puts: Vec::new(),
        checks: Vec::new(),
        compiles: Vec::new(),
        error: None,
    };
    for stmt in &parsed.body {
        s.visit_stmt(stmt);
    }
    let result = s.finish();
    result.map_err(|e| e.into_error(source, lines))
}

/// A failure found while stripping, at a byte offset of the user's source.
struct Failure {
    offset: usize,
    construct: &'static str,
    message: String,
}

impl Failure {
    fn into_error(self, source: &str, lines: &LineIndex) -> StripError {
        let (line, column) = lines.line_col(source, self.offset);
        StripError::Unsupported {
            construct: self.construct,
            message: self.message,
            line,
            column,
        }
    }
}

/// Checks that need the erased text; run after all ranges are blanked.
enum Check {
    /// An erased `as T` / `satisfies T` ends at `end`: if the next token starts a line with `(`,
    /// `[` or `` ` ``, JavaScript would continue the expression; write `;` at `end - 1`. (Not
    /// after `f<T>`: there TypeScript goes on with a call or a member access, as JavaScript.)
    AfterExpr { end: usize },
    /// `keyword` (`return`, `throw`, `yield`, `async`) ends at `keyword_end` and is followed on
    /// its line by erased syntax starting at `next`: erasing must not leave a line break there.
    Restricted {
        keyword_end: usize,
        next: usize,
        keyword: &'static str,
    },
    /// An arrow function whose `)` moved to `paren`: no line break may remain before `=>`.
    ArrowHead { paren: usize, arrow: usize },
    /// A statement (or, if `arrow_body`, an arrow's expression body) starting with a `<T>` type
    /// assertion at `start`: once erased, it must not start with `{` (or `function`, `class`).
    StartToken { start: usize, arrow_body: bool },
}

struct Stripper<'a> {
    src: &'a str,
    /// `Parsed::base`: subtract from a `BytePos` to get a user offset.
    base: u32,
    /// Byte ranges of the user's source to blank.
    blanks: Vec<(usize, usize)>,
    /// Single bytes written into blanked space afterwards.
    puts: Vec<(usize, u8)>,
    checks: Vec<Check>,
    /// Byte ranges of the user's source written as the JavaScript of the construct there.
    compiles: Vec<(usize, usize, Construct)>,
    /// The earliest (in the source) unsupported construct found.
    error: Option<Failure>,
}

const DECORATORS: &str = "decorators cannot run without compiling";

/// The character at a 1-based line and (character) column, as [`LineIndex::line_col`] counts.
fn char_at_line_col(source: &str, line: usize, column: usize) -> Option<char> {
    let text = source.split('\n').nth(line.checked_sub(1)?)?;
    text.chars().nth(column.checked_sub(1)?)
}

const CLASS_MODIFIERS: [&str; 5] = ["public", "private", "protected", "readonly", "override"];

impl Stripper<'_> {
    fn off(&self, pos: BytePos) -> usize {
        (pos.0.saturating_sub(self.base) as usize).min(self.src.len())
    }

    fn bytes(&self) -> &[u8] {
        self.src.as_bytes()
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.bytes().get(i).copied()
    }

    fn blank(&mut self, lo: usize, hi: usize) {
        if lo < hi {
            self.blanks.push((lo, hi));
        }
    }

    fn blank_span(&mut self, span: swc_common::Span) {
        let (lo, hi) = (self.off(span.lo), self.off(span.hi));
        self.blank(lo, hi);
    }

    /// Blank a whole statement or class member, writing `;` in its first byte so that what
    /// surrounds it cannot join across it.
    fn blank_statement(&mut self, span: swc_common::Span) {
        let (lo, hi) = (self.off(span.lo), self.off(span.hi));
        if lo < hi {
            self.blank(lo, hi);
            self.puts.push((lo, b';'));
        }
    }

    fn fail(&mut self, offset: usize, construct: &'static str, message: impl Into<String>) {
        if self.error.as_ref().is_none_or(|e| offset < e.offset) {
            self.error = Some(Failure {
                offset,
                construct,
                message: message.into(),
            });
        }
    }

    fn fail_at(&mut self, pos: BytePos, construct: &'static str, message: impl Into<String>) {
        let offset = self.off(pos);
        self.fail(offset, construct, message);
    }

    /// The source could not be matched with the syntax tree: a bug, reported at `offset`.
    fn internal(&mut self, offset: usize, what: &str) {
        self.fail(
            offset,
            "internal",
            format!("internal error: could not find {what} here (please report it)"),
        );
    }

    /// Blank the single byte `ch` found after `from` (skipping an identifier first if
    /// `after_ident`, then whitespace and comments).
    fn blank_marker_after(&mut self, from: usize, after_ident: bool, ch: u8, what: &str) {
        let mut i = from;
        if after_ident {
            i = skip_ident(self.bytes(), i);
        }
        let (i, _) = skip_trivia(self.bytes(), i);
        if self.byte(i) == Some(ch) {
            self.blank(i, i + 1);
        } else {
            self.internal(from, what);
        }
    }

    /// Blank TypeScript-only modifier words between a class member's start and its key; a `;`
    /// replaces the first one if the member starts with it.
    fn blank_member_modifiers(&mut self, lo: usize, key_lo: usize) {
        let mut i = lo;
        let mut first = true;
        loop {
            let (start, _) = skip_trivia(self.bytes(), i);
            if start >= key_lo {
                break;
            }
            let end = skip_ident(self.bytes(), start);
            if end == start {
                i = start + 1;
            } else {
                if CLASS_MODIFIERS.contains(&&self.src[start..end]) {
                    self.blank(start, end);
                    if first {
                        self.puts.push((start, b';'));
                    }
                }
                i = end;
            }
            first = false;
        }
    }

    /// A class member that is only a declaration: no body, `declare`, `abstract`, or an
    /// index signature.
    fn member_is_type_only(member: &ClassMember) -> bool {
        match member {
            ClassMember::Constructor(c) => c.body.is_none(),
            ClassMember::Method(m) => m.is_abstract || m.function.body.is_none(),
            ClassMember::PrivateMethod(m) => m.is_abstract || m.function.body.is_none(),
            ClassMember::ClassProp(p) => p.declare || p.is_abstract,
            ClassMember::AutoAccessor(a) => a.is_abstract,
            ClassMember::TsIndexSignature(_) => true,
            ClassMember::PrivateProp(_) | ClassMember::Empty(_) | ClassMember::StaticBlock(_) => {
                false
            }
        }
    }

    fn class_member(&mut self, member: &ClassMember) {
        if Self::member_is_type_only(member) {
            self.blank_statement(member.span());
            return;
        }
        let lo = self.off(member.span().lo);
        match member {
            ClassMember::Constructor(c) => {
                let key_lo = self.off(c.key.span().lo);
                self.blank_member_modifiers(lo, key_lo);
            }
            ClassMember::Method(m) => {
                let (key_lo, key_hi) = (self.off(m.key.span().lo), self.off(m.key.span().hi));
                self.blank_member_modifiers(lo, key_lo);
                if m.is_optional {
                    self.blank_marker_after(key_hi, false, b'?', "the `?` of this optional method");
                }
            }
            ClassMember::PrivateMethod(m) => {
                let (key_lo, key_hi) = (self.off(m.key.span.lo), self.off(m.key.span.hi));
                self.blank_member_modifiers(lo, key_lo);
                if m.is_optional {
                    self.blank_marker_after(key_hi, false, b'?', "the `?` of this optional method");
                }
            }
            ClassMember::ClassProp(p) => {
                let (key_lo, key_hi) = (self.off(p.key.span().lo), self.off(p.key.span().hi));
                self.blank_member_modifiers(lo, key_lo);
                self.property_markers(key_hi, p.is_optional, p.definite);
            }
            ClassMember::PrivateProp(p) => {
                let (key_lo, key_hi) = (self.off(p.key.span.lo), self.off(p.key.span.hi));
                self.blank_member_modifiers(lo, key_lo);
                self.property_markers(key_hi, p.is_optional, p.definite);
            }
            ClassMember::AutoAccessor(a) => {
                // Not TypeScript: a decorators-proposal feature that JavaScript engines (and
                // SWC's JavaScript grammar) do not accept yet.
                self.fail_at(
                    a.span.lo,
                    "accessor",
                    "`accessor` fields cannot run without compiling; write a getter and a setter",
                );
            }
            ClassMember::TsIndexSignature(_)
            | ClassMember::Empty(_)
            | ClassMember::StaticBlock(_) => {}
        }
        member.visit_children_with(self);
    }

    fn property_markers(&mut self, key_hi: usize, optional: bool, definite: bool) {
        if optional {
            self.blank_marker_after(key_hi, false, b'?', "the `?` of this optional property");
        }
        if definite {
            self.blank_marker_after(key_hi, false, b'!', "the `!` of this property");
        }
    }

    /// Blank the `?` of an optional object or array pattern (`{ a }?: T`).
    fn optional_pattern(&mut self, span: swc_common::Span, type_ann: Option<&TsTypeAnn>) {
        let b = self.bytes();
        let hi = self.off(span.hi);
        let mut at = None;
        if let Some(ann) = type_ann {
            let mut i = self.off(ann.span.lo);
            while i > 0 && b[i - 1].is_ascii_whitespace() {
                i -= 1;
            }
            if i > 0 && b[i - 1] == b'?' {
                at = Some(i - 1);
            }
        }
        if at.is_none() && hi > 0 && b[hi - 1] == b'?' {
            at = Some(hi - 1);
        }
        if at.is_none() {
            let (i, _) = skip_trivia(b, hi);
            if b.get(i) == Some(&b'?') {
                at = Some(i);
            }
        }
        match at {
            Some(i) => self.blank(i, i + 1),
            None => self.internal(self.off(span.lo), "the `?` of this optional pattern"),
        }
    }

    /// Erase a type-only statement; `false` if `decl` has runtime code.
    fn type_only_decl(&mut self, decl: &Decl) -> bool {
        match decl {
            Decl::TsInterface(_) | Decl::TsTypeAlias(_) => true,
            Decl::TsEnum(e) => {
                if !e.declare {
                    self.compile(e.span, Construct::Enum((**e).clone()));
                }
                true
            }
            Decl::TsModule(m) => {
                if !m.declare && !namespace_is_type_only(m.body.as_ref()) {
                    self.compile(m.span, Construct::Namespace((**m).clone()));
                }
                true
            }
            Decl::Var(v) => v.declare,
            Decl::Fn(f) => f.declare || f.function.body.is_none(),
            Decl::Class(c) => c.declare,
            Decl::Using(_) => false,
        }
    }

    /// Write `construct`, at `span`, as its JavaScript.
    fn compile(&mut self, span: swc_common::Span, construct: Construct) {
        let (lo, hi) = (self.off(span.lo), self.off(span.hi));
        self.compiles.push((lo, hi, construct));
    }

    /// An erased expression suffix (`as T`, `satisfies T`, `as const`) ending at `hi`.
    fn erased_suffix(&mut self, expr: &Expr, hi: BytePos) {
        let (lo, hi) = (self.off(expr.span().hi), self.off(hi));
        self.blank(lo, hi);
        self.checks.push(Check::AfterExpr { end: hi });
    }

    fn restricted(&mut self, keyword_lo: BytePos, keyword: &'static str, next: BytePos) {
        let next = self.off(next);
        if self.byte(next) == Some(b'<') {
            self.checks.push(Check::Restricted {
                keyword_end: self.off(keyword_lo) + keyword.len(),
                next,
                keyword,
            });
        }
    }

    /// The `)` closing an arrow function's parameters, found from the source.
    fn arrow_close_paren(&self, n: &ArrowExpr) -> Option<usize> {
        let b = self.bytes();
        let mut i = match n.params.last() {
            Some(p) => {
                let (i, _) = skip_trivia(b, self.off(p.span().hi));
                if b.get(i) == Some(&b',') {
                    i + 1
                } else {
                    i
                }
            }
            None => {
                let start = match &n.type_params {
                    Some(tp) => self.off(tp.span.hi),
                    None if n.is_async => self.off(n.span.lo) + "async".len(),
                    None => self.off(n.span.lo),
                };
                let (i, _) = skip_trivia(b, start);
                if b.get(i) != Some(&b'(') {
                    return None;
                }
                i + 1
            }
        };
        i = skip_trivia(b, i).0;
        (b.get(i) == Some(&b')')).then_some(i)
    }

    fn arrow_return_type(&mut self, n: &ArrowExpr, return_type: &TsTypeAnn) {
        let b = self.bytes();
        let type_end = self.off(return_type.span.hi);
        let (arrow, _) = skip_trivia(b, type_end);
        let Some(paren) = self.arrow_close_paren(n) else {
            self.internal(self.off(n.span.lo), "the `)` of this arrow function");
            return;
        };
        if b.get(arrow..arrow + 2) != Some(&b"=>"[..]) {
            self.internal(type_end, "the `=>` of this arrow function");
            return;
        }
        if self.src.get(paren..arrow).is_some_and(has_line_break) {
            // JavaScript forbids a line break before `=>`: move `)` to the type's last byte.
            self.blank(paren, paren + 1);
            self.puts.push((type_end - 1, b')'));
            self.checks.push(Check::ArrowHead {
                paren: type_end - 1,
                arrow,
            });
        }
    }

    fn finish(mut self) -> Result<Stripped, Failure> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let src = self.src;
        let len = src.len();
        self.blanks.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(self.blanks.len());
        for &(lo, hi) in &self.blanks {
            if hi > len || !src.is_char_boundary(lo) || !src.is_char_boundary(hi) {
                return Err(internal_failure(lo.min(len)));
            }
            match merged.last_mut() {
                Some(last) if lo <= last.1 => {
                    debug_assert!(lo == last.1 || hi <= last.1, "overlapping ranges");
                    last.1 = last.1.max(hi);
                }
                _ => merged.push((lo, hi)),
            }
        }
        let mut out = src.as_bytes().to_vec();
        for &(lo, hi) in &merged {
            for (i, c) in src[lo..hi].char_indices() {
                if !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}') {
                    out[lo + i..lo + i + c.len_utf8()].fill(b' ');
                }
            }
        }
        for &(pos, byte) in &self.puts {
            put(&mut out, pos, byte)?;
        }
        for check in &self.checks {
            if let Check::AfterExpr { end } = *check {
                let (next, line_break) = skip_trivia(&out, end);
                if end > 0 && line_break && matches!(out.get(next), Some(b'(' | b'[' | b'`')) {
                    put(&mut out, end - 1, b';')?;
                }
            }
        }
        for check in &self.checks {
            self.final_check(check, &out)?;
        }
        let mut javascript = String::from_utf8(out).map_err(|_| internal_failure(0))?;
        let compiled = !self.compiles.is_empty();
        // Last first: the offsets before each stay those of the source.
        self.compiles
            .sort_by_key(|&(lo, hi, _)| (lo, std::cmp::Reverse(hi)));
        let mut end = usize::MAX;
        for (lo, hi, construct) in self.compiles.iter().rev() {
            let (lo, hi) = (*lo, *hi);
            if hi > end || hi > len || !src.is_char_boundary(lo) || !src.is_char_boundary(hi) {
                return Err(internal_failure(lo.min(len)));
            }
            let Some(mut text) = compile::javascript(construct) else {
                return Err(internal_failure(lo));
            };
            // The line breaks it spanned, as they were.
            let mut chars = src[lo..hi].chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\r' if chars.peek() == Some(&'\n') => {
                        chars.next();
                        text.push_str("\r\n");
                    }
                    '\n' | '\r' | '\u{2028}' | '\u{2029}' => text.push(c),
                    _ => {}
                }
            }
            javascript.replace_range(lo..hi, &text);
            end = lo;
        }
        Ok(Stripped {
            javascript,
            compiled,
        })
    }

    fn final_check(&self, check: &Check, out: &[u8]) -> Result<(), Failure> {
        match *check {
            Check::AfterExpr { .. } => Ok(()),
            Check::Restricted {
                keyword_end,
                next,
                keyword,
            } => {
                let (_, line_break) = skip_trivia(out, keyword_end);
                let before = self.src.get(keyword_end..next).unwrap_or("");
                if line_break && !has_line_break(before) {
                    return Err(Failure {
                        offset: next,
                        construct: "line break",
                        message: format!(
                            "erasing this type syntax would leave a line break after `{keyword}`, which ends the statement in JavaScript; keep the start of the expression on the line of `{keyword}`"
                        ),
                    });
                }
                Ok(())
            }
            Check::ArrowHead { paren, arrow } => {
                let (at, line_break) = skip_trivia(out, paren + 1);
                if line_break || at != arrow {
                    return Err(Failure {
                        offset: arrow,
                        construct: "line break",
                        message: "JavaScript forbids a line break before `=>`; end the return type on the line of `=>`".into(),
                    });
                }
                Ok(())
            }
            Check::StartToken { start, arrow_body } => {
                let (at, _) = skip_trivia(out, start);
                let rest = &out[at..];
                let bad = rest.starts_with(b"{")
                    || (!arrow_body
                        && (starts_with_word(rest, b"function")
                            || starts_with_word(rest, b"class")
                            || (starts_with_word(rest, b"async") && {
                                let (i, nl) = skip_trivia(rest, 5);
                                !nl && starts_with_word(&rest[i..], b"function")
                            })
                            || (starts_with_word(rest, b"let") && {
                                let (i, _) = skip_trivia(rest, 3);
                                rest.get(i) == Some(&b'[')
                            })));
                if bad {
                    let place = if arrow_body {
                        "an arrow function's body"
                    } else {
                        "a statement"
                    };
                    return Err(Failure {
                        offset: start,
                        construct: "type assertion",
                        message: format!(
                            "erasing this `<T>` type assertion at the start of {place} would change its meaning in JavaScript; write `(expression as T)` instead"
                        ),
                    });
                }
                Ok(())
            }
        }
    }
}

fn internal_failure(offset: usize) -> Failure {
    Failure {
        offset,
        construct: "internal",
        message: "internal error while erasing types (please report it)".into(),
    }
}

/// Write `byte` into blanked space.
fn put(out: &mut [u8], pos: usize, byte: u8) -> Result<(), Failure> {
    match out.get_mut(pos) {
        Some(b) if *b == b' ' => {
            *b = byte;
            Ok(())
        }
        _ => Err(internal_failure(pos)),
    }
}

impl Visit for Stripper<'_> {
    // Types are erased whole, never walked.
    fn visit_ts_type(&mut self, _: &TsType) {}

    fn visit_ts_type_ann(&mut self, n: &TsTypeAnn) {
        self.blank_span(n.span);
    }

    fn visit_ts_type_param_decl(&mut self, n: &TsTypeParamDecl) {
        self.blank_span(n.span);
    }

    fn visit_ts_type_param_instantiation(&mut self, n: &TsTypeParamInstantiation) {
        self.blank_span(n.span);
    }

    fn visit_ts_as_expr(&mut self, n: &TsAsExpr) {
        self.erased_suffix(&n.expr, n.span.hi);
        n.expr.visit_with(self);
    }

    fn visit_ts_satisfies_expr(&mut self, n: &TsSatisfiesExpr) {
        self.erased_suffix(&n.expr, n.span.hi);
        n.expr.visit_with(self);
    }

    fn visit_ts_const_assertion(&mut self, n: &TsConstAssertion) {
        if self.byte(self.off(n.span.lo)) == Some(b'<') {
            // `<const>expr`
            let (lo, hi) = (self.off(n.span.lo), self.off(n.expr.span().lo));
            self.blank(lo, hi);
        } else {
            self.erased_suffix(&n.expr, n.span.hi);
        }
        n.expr.visit_with(self);
    }

    fn visit_ts_type_assertion(&mut self, n: &TsTypeAssertion) {
        let (lo, hi) = (self.off(n.span.lo), self.off(n.expr.span().lo));
        self.blank(lo, hi);
        n.expr.visit_with(self);
    }

    fn visit_ts_non_null_expr(&mut self, n: &TsNonNullExpr) {
        let hi = self.off(n.span.hi);
        if hi > 0 && self.byte(hi - 1) == Some(b'!') {
            self.blank(hi - 1, hi);
        } else {
            self.internal(self.off(n.span.lo), "the `!` of this non-null assertion");
        }
        n.expr.visit_with(self);
    }

    fn visit_binding_ident(&mut self, n: &BindingIdent) {
        if n.id.optional {
            let lo = self.off(n.id.span.lo);
            self.blank_marker_after(lo, true, b'?', "the `?` of this optional parameter");
        }
        n.visit_children_with(self);
    }

    fn visit_object_pat(&mut self, n: &ObjectPat) {
        if n.optional {
            self.optional_pattern(n.span, n.type_ann.as_deref());
        }
        n.visit_children_with(self);
    }

    fn visit_array_pat(&mut self, n: &ArrayPat) {
        if n.optional {
            self.optional_pattern(n.span, n.type_ann.as_deref());
        }
        n.visit_children_with(self);
    }

    fn visit_var_declarator(&mut self, n: &VarDeclarator) {
        if n.definite {
            match &n.name {
                Pat::Ident(id) => {
                    let lo = self.off(id.id.span.lo);
                    self.blank_marker_after(lo, true, b'!', "the `!` of this declaration");
                }
                other => self.internal(self.off(other.span().lo), "the `!` of this declaration"),
            }
        }
        n.visit_children_with(self);
    }

    fn visit_function(&mut self, n: &Function) {
        if let Some(this) = &n.this_param {
            let (lo, hi) = (self.off(this.span.lo), self.off(this.span.hi));
            let (i, _) = skip_trivia(self.bytes(), hi);
            let end = if self.byte(i) == Some(b',') {
                i + 1
            } else {
                hi
            };
            self.blank(lo, end);
        }
        n.decorators.visit_with(self);
        n.type_params.visit_with(self);
        n.params.visit_with(self);
        n.return_type.visit_with(self);
        n.body.visit_with(self);
    }

    fn visit_arrow_expr(&mut self, n: &ArrowExpr) {
        if let Some(rt) = &n.return_type {
            self.arrow_return_type(n, rt);
        }
        if let (true, Some(tp)) = (n.is_async, &n.type_params) {
            self.restricted(n.span.lo, "async", tp.span.lo);
        }
        if let ArrowFunctionBody::Expr(body) = &*n.body {
            let lo = self.off(body.span().lo);
            if self.byte(lo) == Some(b'<') {
                self.checks.push(Check::StartToken {
                    start: lo,
                    arrow_body: true,
                });
            }
        }
        n.visit_children_with(self);
    }

    fn visit_return_stmt(&mut self, n: &ReturnStmt) {
        if let Some(arg) = &n.arg {
            self.restricted(n.span.lo, "return", arg.span().lo);
        }
        n.visit_children_with(self);
    }

    fn visit_throw_stmt(&mut self, n: &ThrowStmt) {
        self.restricted(n.span.lo, "throw", n.arg.span().lo);
        n.visit_children_with(self);
    }

    fn visit_yield_expr(&mut self, n: &YieldExpr) {
        if let (false, Some(arg)) = (n.delegate, &n.arg) {
            self.restricted(n.span.lo, "yield", arg.span().lo);
        }
        n.visit_children_with(self);
    }

    fn visit_stmt(&mut self, n: &Stmt) {
        match n {
            Stmt::Decl(decl) if self.type_only_decl(decl) => self.blank_statement(n.span()),
            Stmt::Expr(e) => {
                let lo = self.off(e.span.lo);
                if self.byte(lo) == Some(b'<') {
                    self.checks.push(Check::StartToken {
                        start: lo,
                        arrow_body: false,
                    });
                }
                n.visit_children_with(self);
            }
            _ => n.visit_children_with(self),
        }
    }

    fn visit_class(&mut self, n: &Class) {
        if n.is_abstract {
            let lo = self.off(n.span.lo);
            if starts_with_word(&self.bytes()[lo..], b"abstract") {
                self.blank(lo, lo + "abstract".len());
            } else {
                self.internal(lo, "the `abstract` of this class");
            }
        }
        if let Some(last) = n.implements.last() {
            let anchor = [
                n.type_params.as_ref().map(|t| t.span.hi),
                n.super_class.as_ref().map(|s| s.span().hi),
                n.super_type_params.as_ref().map(|t| t.span.hi),
            ]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(n.span.lo);
            let mut i = self.off(anchor);
            let found = loop {
                let (start, _) = skip_trivia(self.bytes(), i);
                let end = skip_ident(self.bytes(), start);
                if end == start {
                    break None;
                }
                if &self.src[start..end] == "implements" {
                    break Some(start);
                }
                i = end;
            };
            match found {
                Some(kw) => {
                    let hi = self.off(last.span.hi);
                    self.blank(kw, hi);
                }
                None => self.internal(self.off(n.span.lo), "the `implements` of this class"),
            }
        }
        n.decorators.visit_with(self);
        n.type_params.visit_with(self);
        n.super_class.visit_with(self);
        n.super_type_params.visit_with(self);
        for member in &n.body {
            self.class_member(member);
        }
    }

    fn visit_ts_param_prop(&mut self, n: &TsParamProp) {
        self.fail_at(
            n.span.lo,
            "parameter property",
            "constructor parameter properties cannot run without compiling; declare the field and assign it in the constructor",
        );
    }

    fn visit_decorator(&mut self, n: &Decorator) {
        self.fail_at(n.span.lo, "decorator", DECORATORS);
    }

    fn visit_ts_enum_decl(&mut self, n: &TsEnumDecl) {
        if !n.declare {
            self.compile(n.span, Construct::Enum(n.clone()));
        }
    }

    /// A class with parameter properties is compiled whole; others are stripped.
    fn visit_class_decl(&mut self, n: &swc_ecma_ast::ClassDecl) {
        match !n.declare && compile::has_parameter_properties(&n.class) {
            true => self.compile(n.class.span, Construct::ClassDecl(n.clone())),
            false => n.visit_children_with(self),
        }
    }

    fn visit_class_expr(&mut self, n: &swc_ecma_ast::ClassExpr) {
        match compile::has_parameter_properties(&n.class) {
            true => self.compile(n.class.span, Construct::ClassExpr(n.clone())),
            false => n.visit_children_with(self),
        }
    }

    fn visit_ts_module_decl(&mut self, _: &TsModuleDecl) {}

    fn visit_ts_import_equals_decl(&mut self, n: &TsImportEqualsDecl) {
        self.fail_at(
            n.span.lo,
            "import =",
            "`import x = require(...)` cannot run without compiling; use `await import(...)`",
        );
    }

    fn visit_ts_export_assignment(&mut self, n: &TsExportAssignment) {
        self.fail_at(
            n.span.lo,
            "export =",
            "`export =` cannot run without compiling; return the value instead",
        );
    }
}

/// Does a namespace body hold only types (so erasing it removes no runtime code)?
fn namespace_is_type_only(body: Option<&TsNamespaceBody>) -> bool {
    match body {
        None => true,
        Some(TsNamespaceBody::TsNamespaceDecl(d)) => {
            d.declare || namespace_is_type_only(Some(&d.body))
        }
        Some(TsNamespaceBody::TsModuleBlock(block)) => block.body.iter().all(|item| match item {
            ModuleItem::Stmt(Stmt::Decl(d)) => decl_is_type_only(d),
            ModuleItem::Stmt(Stmt::Empty(_)) => true,
            ModuleItem::Stmt(_) => false,
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(e)) => decl_is_type_only(&e.decl),
            ModuleItem::ModuleDecl(ModuleDecl::Import(i)) => i.type_only,
            ModuleItem::ModuleDecl(ModuleDecl::ExportNamed(e)) => e.type_only,
            ModuleItem::ModuleDecl(ModuleDecl::TsImportEquals(i)) => i.is_type_only,
            ModuleItem::ModuleDecl(_) => false,
        }),
    }
}

fn decl_is_type_only(decl: &Decl) -> bool {
    match decl {
        Decl::TsInterface(_) | Decl::TsTypeAlias(_) => true,
        Decl::TsEnum(e) => e.declare,
        Decl::TsModule(m) => m.declare || namespace_is_type_only(m.body.as_ref()),
        Decl::Var(v) => v.declare,
        Decl::Fn(f) => f.declare,
        Decl::Class(c) => c.declare,
        Decl::Using(_) => false,
    }
}

/// The character starting at byte `i` (a char boundary) and its length.
fn char_at(b: &[u8], i: usize) -> Option<(char, usize)> {
    let width = match *b.get(i)? {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    let c = std::str::from_utf8(b.get(i..i + width)?)
        .ok()?
        .chars()
        .next()?;
    Some((c, width))
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn has_line_break(s: &str) -> bool {
    s.chars().any(is_line_break)
}

/// Skip whitespace and comments from `i`: the next position, and whether a line break was
/// crossed (in whitespace or inside a comment).
fn skip_trivia(b: &[u8], mut i: usize) -> (usize, bool) {
    let mut line_break = false;
    while let Some((c, width)) = char_at(b, i) {
        if is_line_break(c) {
            line_break = true;
            i += width;
        } else if c == '/' && b.get(i + 1) == Some(&b'/') {
            i += 2;
            while let Some((c, width)) = char_at(b, i) {
                if is_line_break(c) {
                    break;
                }
                i += width;
            }
        } else if c == '/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            loop {
                match char_at(b, i) {
                    None => break,
                    Some(('*', _)) if b.get(i + 1) == Some(&b'/') => {
                        i += 2;
                        break;
                    }
                    Some((c, width)) => {
                        line_break |= is_line_break(c);
                        i += width;
                    }
                }
            }
        } else if (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}' {
            i += width;
        } else {
            break;
        }
    }
    (i.min(b.len()), line_break)
}

/// Skip an identifier (letters, digits, `_`, `$`, `\u` escapes) starting at `i`.
fn skip_ident(b: &[u8], mut i: usize) -> usize {
    while let Some((c, width)) = char_at(b, i) {
        if c == '\\' && b.get(i + 1) == Some(&b'u') {
            i += 2;
            if b.get(i) == Some(&b'{') {
                while i < b.len() && b[i] != b'}' {
                    i += 1;
                }
                i += 1;
            } else {
                i += 4;
            }
        } else if c.is_alphanumeric() || c == '_' || c == '$' || c == '\u{200c}' || c == '\u{200d}'
        {
            i += width;
        } else {
            break;
        }
    }
    i.min(b.len())
}

/// Does `b` start with the word `word` (not followed by an identifier character)?
fn starts_with_word(b: &[u8], word: &[u8]) -> bool {
    b.starts_with(word) && skip_ident(b, 0) == word.len()
}
