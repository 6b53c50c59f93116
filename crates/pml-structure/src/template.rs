//! Code templates: literals hard-coded inside code that is passed *as a string* to a tool.
//!
//! Some MCP tools take JavaScript source as an argument, e.g. Playwright's `browser_run_code`:
//!
//! ```text
//! mcp.playwright.browser_run_code({ code: `async (page) => {
//!   await page.goto('http://localhost:8081/dashboard');
//!   return (await page.locator('.item').allTextContents()).slice(0, 100).join(' | ');
//! }` });
//! ```
//!
//! Such a string is a *code template*. Its literals (`'http://…'`, `'.item'`, `0`, `100`, `' | '`) should become
//! parameters of the capability, exactly like the literals of the surrounding program (design: "Nested Literal
//! Extraction (Story 10.2f)"). This module:
//!
//! 1. decides whether a string is code at all ([`looks_like_code`]);
//! 2. finds the parameterisable literals in it and names them ([`extract_template_literals`]);
//! 3. rewrites the code with `${args.<name>}` placeholders ([`substitute_template_literals`], or
//!    [`substitute_into_template_raw`] when the result goes straight back into a template literal's source text).
//!
//! It depends on nothing else in the crate.
//!
//! # What a code template is
//!
//! Code templates run in the tool's own JavaScript runtime (the browser, for Playwright), so they are parsed as
//! **ECMAScript** (module or script, top-level `await` and top-level `return` allowed), not TypeScript. A string is
//! code when it passes a cheap pre-filter (length, code punctuation, a code marker; see [`looks_like_code`]) *and*
//! parses without any error *and* is not just literal expression statements.
//!
//! # Which literals are extracted
//!
//! String literals, numeric literals (optionally negated: `-5` has value `-5` and its range covers the minus sign)
//! and template literals without `${…}`. A literal is **skipped** when it is:
//!
//! - an empty string;
//! - a string or template whose value differs from its source text between the delimiters (it contains an escape
//!   sequence or a line continuation). Every extracted string therefore satisfies: putting the value back between
//!   the original delimiters reproduces the token byte for byte, which is what the `'${args.x}'` rewrite relies on;
//! - an object/class key (`{ 'a': 1 }`, `{ ['a']: 1 }`) or a computed member index (`x[0]`, `x['k']`): keys and
//!   indexes are structure, not configuration. A non-literal index expression is still searched (`x[f('a')]`);
//! - a module specifier: `import … from 'm'`, `export … from 'm'`, `import('m')`, `require('m')`;
//! - a whole expression statement (`'use strict';`, `5;`): directives and dead values;
//! - the string compared with a `typeof` expression (`typeof x === 'string'`): a type tag;
//! - a number that is the object of a member access without parentheses (`5 .toFixed()`), because putting its
//!   value back could change how the code tokenises;
//! - the *trivial* numbers `0`, `1` and `-1` (loop starts, increments, sentinels), **unless** they are an argument
//!   of an index/range method: `slice`, `substring`, `substr`, `splice`, `at`, `nth`, `charAt`, `charCodeAt`,
//!   `codePointAt` (so `slice(0, 100)` yields `sliceStart = 0`);
//! - a number that is not finite once parsed (`1e400`), booleans, `null`, regexes and BigInts (never extracted).
//!
//! # Naming
//!
//! Each literal gets a base name from its *syntactic slot*, first matching rule wins:
//!
//! 1. **Named slot** — the literal is directly the value of something with a name: an object property
//!    (`{ endpoint: '…' }` → `endpoint`; string keys too), a class field, a variable initialiser
//!    (`const limit = 10` → `limit`), a plain assignment (`x = …`, `this.timeout = …` → `timeout`), a default value
//!    (`function f(retries = 3)`, `const { wait = 500 } = o`). Names are made identifier-safe by camel-casing over
//!    characters that cannot appear in an identifier (`'content-type'` → `contentType`; a leading digit gets `_`);
//!    a key with no usable character falls through to the next rules.
//! 2. **Known method** — the literal is argument *i* of a call, `new` or optional call whose callee ends in
//!    the name `m` (`page.goto(…)`, `fetch(…)`, `$(…)`):
//!
//!    | method                                                                         | argument names                          |
//!    |--------------------------------------------------------------------------------|-----------------------------------------|
//!    | `goto`, `navigate`, `fetch`                                                    | `url`                                   |
//!    | `slice`                                                                        | `sliceStart`, `sliceEnd`                |
//!    | `substring`                                                                    | `substringStart`, `substringEnd`        |
//!    | `substr`                                                                       | `substrStart`, `substrLength`           |
//!    | `waitForLoadState`                                                             | `loadState`                             |
//!    | `waitForTimeout`                                                               | `timeout`                               |
//!    | `setTimeout` / `setInterval`                                                   | (callback), `timeout` / `interval`      |
//!    | `locator`, `querySelector(All)`, `$`, `$$`, `$eval`, `$$eval`, `waitForSelector`, `click`, `dblclick`, `hover` | `selector` |
//!    | `fill` with 2+ arguments / with 1 (`locator.fill(v)`)                          | `selector`, `value` / `value`           |
//!    | `type` with 2+ arguments / with 1                                              | `selector`, `text` / `text`             |
//!    | `join`, `split`                                                                | `separator`                             |
//!
//!    Positions not in the table fall through.
//! 3. **URL shape** — a string starting with `http://` or `https://` (ASCII case-insensitive) → `url`.
//! 4. **Other call** — argument *i* of a call to `m` → `<m>Arg` for the first argument, `<m>Arg<i+1>` for the
//!    others (`press('Enter')` → `pressArg`, `f(a, 'x')` → `fArg2`).
//! 5. Anything else → `value`.
//!
//! So the precedence is *named slot > known method > URL shape > other call > `value`*:
//! `{ endpoint: 'https://x' }` is `endpoint`, `page.route('https://x/**', h)` is `url`.
//!
//! Names are then allocated **in source order** from a [`ParameterNames`] shared by the whole program: the first
//! `url` is `url`, then `url2`, `url3`, … ; names already used by the program's own parameters can be
//! [reserved](ParameterNames::reserve) first.
//!
//! # Limits
//!
//! Bad input is data, never a crash: strings longer than [`MAX_CODE_BYTES`] are not code templates; parsing and
//! walking run on a stack sized from the input length (the parser recurses once per nesting level and the worst
//! case costs about 2.5 KiB of stack per input byte in a debug build); runs of more than [`MAX_LABEL_CHAIN`]
//! nested `label:`-like prefixes are refused up front because the parser's duplicate-label check is quadratic.
//!
//! The placeholder for a string keeps the original quotes (`'${args.url}'`), as in the design. A value substituted
//! later must therefore not contain that quote character or a backslash; this module only guarantees that the
//! *extracted* values do not.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;
use swc_common::BytePos;
use swc_ecma_ast::{
    AssignExpr, AssignOp, AssignPat, AssignPatProp, AssignTarget, BinExpr, BinaryOp, CallExpr,
    Callee, ClassProp, ComputedPropName, ExportAll, Expr, ExprOrSpread, ExprStmt, ImportDecl,
    KeyValueProp, Lit, MemberExpr, MemberProp, ModuleItem, NamedExport, NewExpr, OptCall,
    OptChainBase, Pat, Program, PropName, SimpleAssignTarget, Stmt, UnaryOp, VarDeclarator,
};
use swc_ecma_parser::{lexer::Lexer, EsSyntax, Parser, StringInput, Syntax};
use swc_ecma_visit::{Visit, VisitWith};

/// Longest string (in bytes) that can be a code template. Longer strings are left alone.
pub const MAX_CODE_BYTES: usize = 16 * 1024;

/// Longest run of nested `name:` prefixes accepted before parsing (see the module doc, "Limits").
pub const MAX_LABEL_CHAIN: usize = 64;

/// Shortest trimmed string that can be a code template.
const MIN_CODE_BYTES: usize = 6;

/// Stack reserved for one parse: a fixed part plus a part per input byte (measured worst case ≈ 2.5 KiB/byte for
/// `((((…` in a debug build). Address space only: pages are touched as deep as the input goes, so the margin is
/// wide: 6 KiB/byte overflowed under AddressSanitizer (the fuzz build: larger frames) on 6 KB of `((((…` inside
/// an arrow's parameters (`fuzz/artifacts-kept/parameterize-deep-parens-in-code-template.ts`).
const BASE_STACK: usize = 1024 * 1024;
const STACK_PER_BYTE: usize = 64 * 1024;

/// Substrings of which at least one must occur in a code template (cheap pre-filter before parsing).
const CODE_MARKERS: &[&str] = &[
    "=>",
    "await ",
    "function",
    "return ",
    "const ",
    "let ",
    "var ",
    "page.",
    "document.",
    "window.",
    "console.",
    ").",
    ");",
    "if (",
    "for (",
];

/// Characters of which at least one must occur in a code template.
const CODE_PUNCTUATION: &[char] = &['(', ';', '{', '='];

/// Methods whose arguments are indexes or lengths: `0`, `1` and `-1` are meaningful there.
const INDEX_METHODS: &[&str] = &[
    "slice",
    "substring",
    "substr",
    "splice",
    "at",
    "nth",
    "charAt",
    "charCodeAt",
    "codePointAt",
];

/// Heuristic: does this string look like JavaScript code (not prose, a path, SQL or JSON)?
///
/// True when all of these hold, cheapest first:
/// - the trimmed string is at least 6 bytes and the string at most [`MAX_CODE_BYTES`];
/// - it contains one of `( ; { =` and one of the markers `=>`, `await `, `function`, `return `, `const `, `let `,
///   `var `, `page.`, `document.`, `window.`, `console.`, `).`, `);`, `if (`, `for (`;
/// - it parses as an ECMAScript module or script (top-level `await` and `return` allowed) with no error at all;
/// - it is not only literal expression statements (a quoted string is not code).
pub fn looks_like_code(s: &str) -> bool {
    let trimmed = s.trim();
    if trimmed.len() < MIN_CODE_BYTES || s.len() > MAX_CODE_BYTES {
        return false;
    }
    if !trimmed.contains(CODE_PUNCTUATION) || !CODE_MARKERS.iter().any(|m| trimmed.contains(m)) {
        return false;
    }
    with_program(s, has_real_statement).unwrap_or(false)
}

/// Parameter names already taken in one program. Allocation is deterministic: `base`, then `base2`, `base3`, …
#[derive(Debug, Default, Clone)]
pub struct ParameterNames {
    taken: BTreeSet<String>,
}

impl ParameterNames {
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `name` as used (e.g. a parameter the program already has), so [`allocate`](Self::allocate) avoids it.
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }

    /// Returns `base` if it is free, else the first free `base2`, `base3`, … ; the returned name is then taken.
    pub fn allocate(&mut self, base: &str) -> String {
        let name = if self.taken.contains(base) {
            (2u64..)
                .map(|n| format!("{base}{n}"))
                .find(|candidate| !self.taken.contains(candidate))
                .unwrap_or_else(|| base.to_owned()) // unreachable: the set is finite
        } else {
            base.to_owned()
        };
        self.taken.insert(name.clone());
        name
    }

    /// Whether `name` is taken.
    pub fn contains(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
}

/// One parameterisable literal of a code template.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateLiteral {
    /// Allocated parameter name (unique within the [`ParameterNames`] it was allocated from).
    pub name: String,
    /// The literal's value: a JSON string or number (integers are JSON integers).
    pub value: Value,
    /// Byte range of the literal token in the code string, quotes/backticks and a leading minus included.
    /// Always on `char` boundaries.
    pub start: usize,
    pub end: usize,
}

/// Parses `code` and returns its parameterisable literals in source order, allocating their names from `names`
/// (rules in the module doc). Returns an empty `Vec` (and allocates nothing) if `code` is too long or does not
/// parse without errors.
pub fn extract_template_literals(code: &str, names: &mut ParameterNames) -> Vec<TemplateLiteral> {
    let Some(mut found) = with_program(code, |program| {
        let mut collector = Collector {
            code,
            found: Vec::new(),
        };
        program.visit_with(&mut collector);
        collector.found
    }) else {
        return Vec::new();
    };
    found.sort_by_key(|f| f.start);
    found.dedup_by_key(|f| f.start);
    found
        .into_iter()
        .map(|f| TemplateLiteral {
            name: names.allocate(&f.base),
            value: f.value,
            start: f.start,
            end: f.end,
        })
        .collect()
}

/// Rewrites `code`, replacing each literal by a placeholder: a string keeps its delimiters (`'${args.url}'`),
/// a number is replaced whole (`${args.sliceStart}`).
///
/// The result is plain code text; to put it back as the source text of a JS template literal, use
/// [`substitute_into_template_raw`], which also escapes the rest of the code. Literals whose range is out of
/// bounds, not on `char` boundaries or overlapping an earlier one are ignored.
pub fn substitute_template_literals(code: &str, literals: &[TemplateLiteral]) -> String {
    substitute(code, literals, false)
}

/// Like [`substitute_template_literals`], but the result is ready to be the *source text* of a JS template
/// literal: in the code around the placeholders, `\`, `` ` `` and `${` are escaped, so that evaluating
/// `` `<result>` `` with `args` yields `code` with the literals replaced by the argument values.
pub fn substitute_into_template_raw(code: &str, literals: &[TemplateLiteral]) -> String {
    substitute(code, literals, true)
}

fn substitute(code: &str, literals: &[TemplateLiteral], escape: bool) -> String {
    let mut sorted: Vec<&TemplateLiteral> = literals.iter().collect();
    sorted.sort_by_key(|l| l.start);
    let mut out = String::with_capacity(code.len() + 16 * sorted.len());
    let mut cursor = 0;
    for lit in sorted {
        let valid = cursor <= lit.start
            && lit.start < lit.end
            && lit.end <= code.len()
            && code.is_char_boundary(lit.start)
            && code.is_char_boundary(lit.end);
        if !valid {
            continue;
        }
        push_code(&mut out, &code[cursor..lit.start], escape);
        let token = &code[lit.start..lit.end];
        let placeholder = format!("${{args.{}}}", lit.name);
        match string_delimiter(token).filter(|_| lit.value.is_string()) {
            Some(quote) => {
                push_code(&mut out, quote, escape);
                out.push_str(&placeholder);
                push_code(&mut out, quote, escape);
            }
            None => out.push_str(&placeholder),
        }
        cursor = lit.end;
    }
    push_code(&mut out, &code[cursor..], escape);
    out
}

/// The delimiter of a quoted token (`'…'`, `"…"` or `` `…` ``), if it is one.
fn string_delimiter(token: &str) -> Option<&str> {
    let quote = token.get(..1)?;
    (matches!(quote, "'" | "\"" | "`") && token.len() >= 2 && token.ends_with(quote))
        .then_some(quote)
}

fn push_code(out: &mut String, code: &str, escape: bool) {
    if !escape {
        out.push_str(code);
        return;
    }
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '`' => out.push_str("\\`"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            _ => out.push(c),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

/// Parses `code` and runs `f` on the program, all on a stack large enough for the worst nesting `code` can hold.
/// `None` if `code` is refused up front or has any parse error.
fn with_program<R>(code: &str, f: impl FnOnce(&Program) -> R) -> Option<R> {
    if code.len() > MAX_CODE_BYTES || label_chain(code) > MAX_LABEL_CHAIN {
        return None;
    }
    stacker::grow(BASE_STACK + STACK_PER_BYTE * code.len(), || {
        let program = parse(code)?;
        let result = f(&program);
        drop(program); // dropping a deep AST recurses too: keep it on this stack
        Some(result)
    })
}

fn parse(code: &str) -> Option<Program> {
    // Positions start at 1 (0 is swc's "no position"); offsets are `pos - 1`. No SourceMap: it would strip a BOM
    // and shift every offset.
    let end = u32::try_from(code.len()).ok()?.checked_add(1)?;
    let input = StringInput::new(code, BytePos(1), BytePos(end));
    let syntax = Syntax::Es(EsSyntax {
        allow_return_outside_function: true,
        ..Default::default()
    });
    let mut parser = Parser::new_from(Lexer::new(syntax, Default::default(), input, None));
    let program = parser.parse_program().ok()?;
    parser.take_errors().is_empty().then_some(program)
}

/// Length of the longest run of `identifier :` prefixes separated only by whitespace and `{`
/// (`a: b: { c: …`), an upper bound on how deeply labels can nest there.
fn label_chain(code: &str) -> usize {
    let (mut longest, mut run, mut after_ident) = (0, 0, false);
    for c in code.chars() {
        if c.is_alphanumeric() || c == '_' || c == '$' {
            after_ident = true;
        } else if c == ':' && after_ident {
            run += 1;
            longest = longest.max(run);
            after_ident = false;
        } else if c.is_whitespace() {
            // keeps `after_ident`: `a :` is a label too
        } else if c == '{' {
            after_ident = false;
        } else {
            run = 0;
            after_ident = false;
        }
    }
    longest
}

/// Whether the program has a statement other than a literal expression statement.
fn has_real_statement(program: &Program) -> bool {
    let literal_stmt = |stmt: &Stmt| matches!(stmt, Stmt::Expr(ExprStmt { expr, .. }) if matches!(unwrap(expr), Expr::Lit(_) | Expr::Tpl(_)));
    match program {
        Program::Script(script) => script.body.iter().any(|s| !literal_stmt(s)),
        Program::Module(module) => module.body.iter().any(|item| match item {
            ModuleItem::Stmt(s) => !literal_stmt(s),
            ModuleItem::ModuleDecl(_) => true,
        }),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Collecting

/// A literal found in the code, before its name is allocated.
struct Found {
    base: String,
    value: Value,
    start: usize,
    end: usize,
}

/// The syntactic slot a literal sits in (see "Naming" in the module doc).
enum Slot<'a> {
    /// Directly the value of something named (property, variable, assignment target, default value).
    Named(String),
    /// Argument `index` of a call to `method` that has `argc` arguments.
    Argument {
        method: &'a str,
        index: usize,
        argc: usize,
    },
    Other,
}

/// A literal-shaped expression: its value and byte range.
enum Shape {
    Str {
        value: String,
        start: usize,
        end: usize,
    },
    Num {
        value: f64,
        start: usize,
        end: usize,
    },
    /// A literal that is never extracted (escapes, an unusable range).
    Unusable,
}

struct Collector<'c> {
    code: &'c str,
    found: Vec<Found>,
}

impl Collector<'_> {
    fn offset(&self, pos: BytePos) -> Option<usize> {
        let offset = usize::try_from(pos.0).ok()?.checked_sub(1)?;
        (offset <= self.code.len() && self.code.is_char_boundary(offset)).then_some(offset)
    }

    fn range(&self, span: swc_common::Span) -> Option<(usize, usize)> {
        let (start, end) = (self.offset(span.lo)?, self.offset(span.hi)?);
        (start < end).then_some((start, end))
    }

    /// If `expr` is literal-shaped, its shape; `None` for any other expression.
    fn shape(&self, expr: &Expr) -> Option<Shape> {
        let usable = |shape: Option<Shape>| Some(shape.unwrap_or(Shape::Unusable));
        match unwrap(expr) {
            Expr::Lit(Lit::Str(s)) => usable(self.range(s.span).and_then(|(start, end)| {
                let token = &self.code[start..end];
                let quote = string_delimiter(token).filter(|q| *q != "`")?;
                let value = s.value.as_str()?;
                (&token[quote.len()..token.len() - quote.len()] == value).then(|| Shape::Str {
                    value: value.to_owned(),
                    start,
                    end,
                })
            })),
            Expr::Tpl(t) if t.exprs.is_empty() => {
                usable(self.range(t.span).and_then(|(start, end)| {
                    let token = &self.code[start..end];
                    string_delimiter(token).filter(|q| *q == "`")?;
                    let inner = &token[1..token.len() - 1];
                    let [quasi] = t.quasis.as_slice() else {
                        return None;
                    };
                    let cooked = quasi.cooked.as_ref()?.as_str()?;
                    (inner == cooked && !inner.contains(['\\', '\r'])).then(|| Shape::Str {
                        value: inner.to_owned(),
                        start,
                        end,
                    })
                }))
            }
            Expr::Lit(Lit::Num(n)) => usable(self.range(n.span).map(|(start, end)| Shape::Num {
                value: n.value,
                start,
                end,
            })),
            Expr::Unary(u) if u.op == UnaryOp::Minus => match unwrap(&u.arg) {
                Expr::Lit(Lit::Num(n)) => {
                    usable(self.range(u.span).map(|(start, end)| Shape::Num {
                        value: -n.value,
                        start,
                        end,
                    }))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Records `expr` if it is an extractable literal in `slot`. Returns whether `expr` was literal-shaped (and
    /// so needs no further visiting).
    fn take(&mut self, expr: &Expr, slot: &Slot<'_>) -> bool {
        let Some(shape) = self.shape(expr) else {
            return false;
        };
        let (value, start, end, url) = match shape {
            Shape::Unusable => return true,
            Shape::Str { value, .. } if value.is_empty() => return true,
            Shape::Str { value, start, end } => {
                let url = is_url(&value);
                (Value::String(value), start, end, url)
            }
            Shape::Num { value, start, end } => {
                let trivial = value == 0.0 || value.abs() == 1.0;
                let index_arg =
                    matches!(slot, Slot::Argument { method, .. } if INDEX_METHODS.contains(method));
                match number_value(value) {
                    Some(json) if !trivial || index_arg => (json, start, end, false),
                    _ => return true,
                }
            }
        };
        let base = base_name(slot, url);
        self.found.push(Found {
            base,
            value,
            start,
            end,
        });
        true
    }

    fn take_or_visit(&mut self, expr: &Expr, slot: &Slot<'_>) {
        if !self.take(expr, slot) {
            expr.visit_with(self);
        }
    }

    /// Visits `expr` unless it is literal-shaped (literals in this position are never extracted).
    fn skip_literal_or_visit(&mut self, expr: &Expr) {
        if self.shape(expr).is_none() {
            expr.visit_with(self);
        }
    }

    fn arguments(&mut self, method: Option<&str>, args: &[ExprOrSpread]) {
        let argc = args.len();
        for (index, arg) in args.iter().enumerate() {
            match method {
                Some(method) if arg.spread.is_none() => self.take_or_visit(
                    &arg.expr,
                    &Slot::Argument {
                        method,
                        index,
                        argc,
                    },
                ),
                _ => arg.visit_with(self),
            }
        }
    }
}

impl Visit for Collector<'_> {
    fn visit_expr(&mut self, expr: &Expr) {
        // Deep ASTs: grow the stack on demand rather than trusting the up-front estimate.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            if !self.take(expr, &Slot::Other) {
                expr.visit_children_with(self);
            }
        });
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        match &call.callee {
            Callee::Import(_) => call
                .args
                .iter()
                .for_each(|a| self.skip_literal_or_visit(&a.expr)),
            Callee::Expr(callee) if is_ident(callee, "require") => call
                .args
                .iter()
                .for_each(|a| self.skip_literal_or_visit(&a.expr)),
            Callee::Expr(callee) => {
                callee.visit_with(self);
                self.arguments(callee_name(callee), &call.args);
            }
            Callee::Super(_) => self.arguments(None, &call.args),
        }
    }

    fn visit_new_expr(&mut self, new: &NewExpr) {
        new.callee.visit_with(self);
        if let Some(args) = &new.args {
            self.arguments(callee_name(&new.callee), args);
        }
    }

    fn visit_opt_call(&mut self, call: &OptCall) {
        call.callee.visit_with(self);
        self.arguments(callee_name(&call.callee), &call.args);
    }

    fn visit_member_expr(&mut self, member: &MemberExpr) {
        // `5 .toFixed()`: substituting the bare number could change how the code tokenises.
        if !matches!(&*member.obj, Expr::Lit(Lit::Num(_))) {
            member.obj.visit_with(self);
        }
        member.prop.visit_with(self);
    }

    fn visit_computed_prop_name(&mut self, computed: &ComputedPropName) {
        self.skip_literal_or_visit(&computed.expr);
    }

    fn visit_key_value_prop(&mut self, prop: &KeyValueProp) {
        prop.key.visit_with(self);
        self.take_or_visit(&prop.value, &named_slot(prop_name(&prop.key)));
    }

    fn visit_class_prop(&mut self, prop: &ClassProp) {
        prop.key.visit_with(self);
        if let Some(value) = &prop.value {
            self.take_or_visit(value, &named_slot(prop_name(&prop.key)));
        }
    }

    fn visit_var_declarator(&mut self, decl: &VarDeclarator) {
        decl.name.visit_with(self);
        if let Some(init) = &decl.init {
            self.take_or_visit(init, &named_slot(pat_name(&decl.name)));
        }
    }

    fn visit_assign_expr(&mut self, assign: &AssignExpr) {
        assign.left.visit_with(self);
        let name = match (&assign.op, &assign.left) {
            (AssignOp::Assign, AssignTarget::Simple(SimpleAssignTarget::Ident(id))) => {
                Some(id.id.sym.as_str().to_owned())
            }
            (AssignOp::Assign, AssignTarget::Simple(SimpleAssignTarget::Member(m))) => {
                member_prop_name(&m.prop)
            }
            _ => None,
        };
        self.take_or_visit(&assign.right, &named_slot(name));
    }

    fn visit_assign_pat(&mut self, pat: &AssignPat) {
        pat.left.visit_with(self);
        self.take_or_visit(&pat.right, &named_slot(pat_name(&pat.left)));
    }

    fn visit_assign_pat_prop(&mut self, prop: &AssignPatProp) {
        if let Some(value) = &prop.value {
            self.take_or_visit(
                value,
                &named_slot(Some(prop.key.id.sym.as_str().to_owned())),
            );
        }
    }

    fn visit_bin_expr(&mut self, bin: &BinExpr) {
        let equality = matches!(
            bin.op,
            BinaryOp::EqEq | BinaryOp::EqEqEq | BinaryOp::NotEq | BinaryOp::NotEqEq
        );
        let is_typeof = |e: &Expr| matches!(unwrap(e), Expr::Unary(u) if u.op == UnaryOp::TypeOf);
        if equality && is_typeof(&bin.left) {
            bin.left.visit_with(self);
            self.skip_literal_or_visit(&bin.right);
        } else if equality && is_typeof(&bin.right) {
            self.skip_literal_or_visit(&bin.left);
            bin.right.visit_with(self);
        } else {
            bin.visit_children_with(self);
        }
    }

    fn visit_expr_stmt(&mut self, stmt: &ExprStmt) {
        self.skip_literal_or_visit(&stmt.expr);
    }

    fn visit_import_decl(&mut self, _: &ImportDecl) {}

    fn visit_export_all(&mut self, _: &ExportAll) {}

    fn visit_named_export(&mut self, _: &NamedExport) {}
}

// ---------------------------------------------------------------------------------------------------------------
// Naming helpers

fn base_name(slot: &Slot<'_>, url: bool) -> String {
    if let Slot::Named(name) = slot {
        return name.clone();
    }
    if let Slot::Argument {
        method,
        index,
        argc,
    } = slot
    {
        if let Some(known) = known_argument_name(method, *index, *argc) {
            return known.to_owned();
        }
    }
    if url {
        return "url".to_owned();
    }
    match slot {
        Slot::Argument {
            method, index: 0, ..
        } => format!("{method}Arg"),
        Slot::Argument { method, index, .. } => format!("{method}Arg{}", index + 1),
        _ => "value".to_owned(),
    }
}

/// The "known method" table of the module doc.
fn known_argument_name(method: &str, index: usize, argc: usize) -> Option<&'static str> {
    let name = match (method, index) {
        ("goto" | "navigate" | "fetch", 0) => "url",
        ("slice", 0) => "sliceStart",
        ("slice", 1) => "sliceEnd",
        ("substring", 0) => "substringStart",
        ("substring", 1) => "substringEnd",
        ("substr", 0) => "substrStart",
        ("substr", 1) => "substrLength",
        ("waitForLoadState", 0) => "loadState",
        ("waitForTimeout", 0) | ("setTimeout", 1) => "timeout",
        ("setInterval", 1) => "interval",
        (
            "locator" | "querySelector" | "querySelectorAll" | "$" | "$$" | "$eval" | "$$eval"
            | "waitForSelector" | "click" | "dblclick" | "hover",
            0,
        ) => "selector",
        ("fill" | "type", 0) if argc >= 2 => "selector",
        ("fill", 0) | ("fill", 1) => "value",
        ("type", 0) | ("type", 1) => "text",
        ("join" | "split", 0) => "separator",
        _ => return None,
    };
    Some(name)
}

fn is_url(s: &str) -> bool {
    let starts = |prefix: &str| {
        s.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    starts("http://") || starts("https://")
}

fn named_slot(name: Option<String>) -> Slot<'static> {
    name.and_then(|n| identifier(&n))
        .map_or(Slot::Other, Slot::Named)
}

/// `name` made usable as `args.<name>`: camel-cased over characters that cannot be in an identifier.
fn identifier(name: &str) -> Option<String> {
    let mut out = String::new();
    for (i, part) in name
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        let mut chars = part.chars();
        match chars.next() {
            Some(first) if i > 0 => {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
            _ => out.push_str(part),
        }
    }
    if out.starts_with(|c: char| c.is_numeric()) {
        out.insert(0, '_');
    }
    (!out.is_empty()).then_some(out)
}

fn prop_name(key: &PropName) -> Option<String> {
    match key {
        PropName::Ident(id) => Some(id.sym.as_str().to_owned()),
        PropName::Str(s) => s.value.as_str().map(str::to_owned),
        PropName::Computed(c) => match unwrap(&c.expr) {
            Expr::Lit(Lit::Str(s)) => s.value.as_str().map(str::to_owned),
            _ => None,
        },
        _ => None,
    }
}

fn pat_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(id) => Some(id.id.sym.as_str().to_owned()),
        _ => None,
    }
}

fn member_prop_name(prop: &MemberProp) -> Option<String> {
    match prop {
        MemberProp::Ident(id) => Some(id.sym.as_str().to_owned()),
        MemberProp::Computed(c) => match unwrap(&c.expr) {
            Expr::Lit(Lit::Str(s)) => s.value.as_str().map(str::to_owned),
            _ => None,
        },
        MemberProp::PrivateName(_) => None,
    }
}

/// The name a call is made through: `f` for `f(…)`, `m` for `x.m(…)` / `x?.m(…)`.
fn callee_name(callee: &Expr) -> Option<&str> {
    match unwrap(callee) {
        Expr::Ident(id) => Some(&id.sym),
        Expr::Member(m) => match &m.prop {
            MemberProp::Ident(id) => Some(&id.sym),
            _ => None,
        },
        Expr::OptChain(chain) => match &*chain.base {
            OptChainBase::Member(m) => match &m.prop {
                MemberProp::Ident(id) => Some(&id.sym),
                _ => None,
            },
            OptChainBase::Call(_) => None,
        },
        _ => None,
    }
}

fn is_ident(expr: &Expr, name: &str) -> bool {
    matches!(unwrap(expr), Expr::Ident(id) if &*id.sym == name)
}

/// `expr` without parentheses and value-preserving TypeScript wrappers.
fn unwrap(mut expr: &Expr) -> &Expr {
    loop {
        expr = match expr {
            Expr::Paren(p) => &p.expr,
            Expr::TsAs(e) => &e.expr,
            Expr::TsConstAssertion(e) => &e.expr,
            Expr::TsSatisfies(e) => &e.expr,
            Expr::TsTypeAssertion(e) => &e.expr,
            Expr::TsNonNull(e) => &e.expr,
            _ => return expr,
        };
    }
}

/// A JS number as JSON: integers (exactly representable, |n| < 2^53) as JSON integers, other finite numbers as
/// floats, non-finite numbers as `None`.
fn number_value(n: f64) -> Option<Value> {
    const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() < MAX_SAFE {
        Some(Value::from(n as i64))
    } else {
        serde_json::Number::from_f64(n).map(Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PLAYWRIGHT: &str = "async (page) => {
    await page.goto('http://localhost:8081/dashboard');
    await page.waitForLoadState('networkidle');
    const texts = await page.locator('.item').allTextContents();
    return texts.slice(0, 100).join(' | ');
  }";

    /// `(name, value)` pairs extracted from `code` with fresh names.
    fn extract(code: &str) -> Vec<(String, Value)> {
        let literals = extract_template_literals(code, &mut ParameterNames::new());
        for lit in &literals {
            assert!(
                code.is_char_boundary(lit.start) && code.is_char_boundary(lit.end),
                "{lit:?}"
            );
        }
        literals.into_iter().map(|l| (l.name, l.value)).collect()
    }

    fn pairs(expected: &[(&str, Value)]) -> Vec<(String, Value)> {
        expected
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect()
    }

    /// `code` rewritten with fresh names.
    fn rewrite(code: &str) -> String {
        substitute_template_literals(
            code,
            &extract_template_literals(code, &mut ParameterNames::new()),
        )
    }

    /// What evaluating the substituted code as a JS template with `args` = the extracted values gives.
    fn interpolate(code: &str, literals: &[TemplateLiteral]) -> String {
        let mut out = substitute_template_literals(code, literals);
        for lit in literals {
            let text = match &lit.value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out = out.replace(&format!("${{args.{}}}", lit.name), &text);
        }
        out
    }

    #[test]
    fn playwright_example_names_and_values() {
        assert_eq!(
            extract(PLAYWRIGHT),
            pairs(&[
                ("url", json!("http://localhost:8081/dashboard")),
                ("loadState", json!("networkidle")),
                ("selector", json!(".item")),
                ("sliceStart", json!(0)),
                ("sliceEnd", json!(100)),
                ("separator", json!(" | ")),
            ])
        );
        let rewritten = rewrite(PLAYWRIGHT);
        assert!(
            rewritten.contains("await page.goto('${args.url}')"),
            "{rewritten}"
        );
        assert!(
            rewritten.contains("texts.slice(${args.sliceStart}, ${args.sliceEnd})"),
            "{rewritten}"
        );
        assert!(
            rewritten.contains("page.waitForLoadState('${args.loadState}')"),
            "{rewritten}"
        );
        assert!(
            rewritten.contains(".join('${args.separator}')"),
            "{rewritten}"
        );
    }

    #[test]
    fn seed_example_rewrites_exactly() {
        let code = "page.goto('http://localhost:8081'); texts.slice(0, 100);";
        assert_eq!(
            rewrite(code),
            "page.goto('${args.url}'); texts.slice(${args.sliceStart}, ${args.sliceEnd});"
        );
    }

    #[test]
    fn ranges_cover_the_tokens() {
        let code = "page.goto(\"https://a.b\"); x.slice(-2); const t = `tpl`;";
        let literals = extract_template_literals(code, &mut ParameterNames::new());
        let tokens: Vec<&str> = literals.iter().map(|l| &code[l.start..l.end]).collect();
        assert_eq!(tokens, ["\"https://a.b\"", "-2", "`tpl`"]);
        assert_eq!(literals[1].value, json!(-2));
        assert_eq!(
            substitute_template_literals(code, &literals),
            "page.goto(\"${args.url}\"); x.slice(${args.sliceStart}); const t = `${args.t}`;"
        );
    }

    #[test]
    fn optional_calls_and_constructors_have_method_context() {
        assert_eq!(
            extract(
                "page?.goto('https://a'); page.locator?.('#x'); new URL('/p', base); new Foo('f');"
            ),
            pairs(&[
                ("url", json!("https://a")),
                ("selector", json!("#x")),
                ("URLArg", json!("/p")),
                ("FooArg", json!("f")),
            ])
        );
    }

    #[test]
    fn clashing_names_get_numeric_suffixes() {
        let code = "await page.goto('https://a.example'); await page.goto('https://b.example'); fetch('https://c')";
        let names: Vec<String> = extract(code).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["url", "url2", "url3"]);
    }

    #[test]
    fn names_are_shared_across_templates_and_respect_reservations() {
        let mut names = ParameterNames::new();
        names.reserve("url");
        let first = extract_template_literals("page.goto('https://a.example');", &mut names);
        let second = extract_template_literals("page.goto('https://b.example');", &mut names);
        assert_eq!(
            (first[0].name.as_str(), second[0].name.as_str()),
            ("url2", "url3")
        );
        assert!(names.contains("url3") && !names.contains("url4"));
    }

    #[test]
    fn allocate_counts_from_two_and_skips_taken_names() {
        let mut names = ParameterNames::new();
        names.reserve("limit2");
        let got: Vec<String> = (0..3).map(|_| names.allocate("limit")).collect();
        assert_eq!(got, ["limit", "limit3", "limit4"]);
    }

    #[test]
    fn named_slot_wins_over_method_and_url_shape() {
        assert_eq!(
            extract("fetch({ endpoint: \"https://x\" });"),
            pairs(&[("endpoint", json!("https://x"))])
        );
        assert_eq!(
            extract("const base = 'https://x'; x = 1;"),
            pairs(&[("base", json!("https://x"))])
        );
        assert_eq!(
            extract(
                "page.route('https://x/**', h); foo('https://y'); foo('z', 'w'); x.press('Enter');"
            ),
            pairs(&[
                ("url", json!("https://x/**")),
                ("url2", json!("https://y")),
                ("fooArg", json!("z")),
                ("fooArg2", json!("w")),
                ("pressArg", json!("Enter")),
            ])
        );
    }

    #[test]
    fn named_slots_of_every_kind() {
        let code = "const o = { 'content-type': 'text/html', 2: 'two', ['x y']: 'xy' };
            class C { retries = 3 }
            this.timeout = 5000;
            function f(wait = 250) {}
            const { delay = 40 } = o;
            let limit = 10;";
        assert_eq!(
            extract(code),
            pairs(&[
                ("contentType", json!("text/html")),
                ("value", json!("two")),
                ("xY", json!("xy")),
                ("retries", json!(3)),
                ("timeout", json!(5000)),
                ("wait", json!(250)),
                ("delay", json!(40)),
                ("limit", json!(10)),
            ])
        );
    }

    #[test]
    fn known_methods_table() {
        let code = "page.fill('#q', 'rust'); page.locator('#a').fill('v'); page.type('#b', 'hi'); el.type('t');
            s.substring(2, 5); s.substr(3, 4); setTimeout(() => {}, 500); setInterval(f, 250);
            page.waitForTimeout(300); s.split(','); $('.x'); page.$$eval('li', f); page.waitForSelector('#w');";
        let names: Vec<String> = extract(code).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "selector",
                "value",
                "selector2",
                "value2",
                "selector3",
                "text",
                "text2",
                "substringStart",
                "substringEnd",
                "substrStart",
                "substrLength",
                "timeout",
                "interval",
                "timeout2",
                "separator",
                "selector4",
                "selector5",
                "selector6",
            ]
        );
    }

    #[test]
    fn noise_literals_are_skipped() {
        let code = "'use strict';
            import fs from 'fs';
            const m = require('m');
            const d = await import('d');
            for (let i = 0; i < 10; i++) { x[0] = y['key'] + z[-1]; }
            if (typeof v === 'string' && v !== '') { n += 1; }
            const o = { a: 1, 'b': -1, c: 0 };
            5 .toFixed(2);
            'dead';
            const big = 1e400;
            x[f('inner')];";
        assert_eq!(
            extract(code),
            pairs(&[
                ("value", json!(10)),
                ("toFixedArg", json!(2)),
                ("fArg", json!("inner"))
            ])
        );
    }

    #[test]
    fn trivial_numbers_are_kept_in_index_methods() {
        assert_eq!(
            extract("a.at(-1); a.slice(1); loc.nth(0); s.charAt(1); f(1);"),
            pairs(&[
                ("atArg", json!(-1)),
                ("sliceStart", json!(1)),
                ("nthArg", json!(0)),
                ("charAtArg", json!(1))
            ])
        );
    }

    #[test]
    fn strings_with_escapes_are_not_extracted() {
        let code = r#"page.fill('#a', 'it\'s'); f("a\nb"); g(`x\`y`); h('ok');"#;
        assert_eq!(
            extract(code),
            pairs(&[("selector", json!("#a")), ("hArg", json!("ok"))])
        );
    }

    #[test]
    fn templates_with_interpolation_are_searched_not_extracted() {
        assert_eq!(
            extract("const s = `a${f('b')}c`;"),
            pairs(&[("fArg", json!("b"))])
        );
    }

    #[test]
    fn numbers_are_json_integers_or_floats() {
        assert_eq!(
            extract("f(0x10, 1e3, 2.5, -0.5, 9007199254740993)"),
            pairs(&[
                ("fArg", json!(16)),
                ("fArg2", json!(1000)),
                ("fArg3", json!(2.5)),
                ("fArg4", json!(-0.5)),
                ("fArg5", json!(9007199254740992.0)),
            ])
        );
    }

    #[test]
    fn offsets_are_byte_offsets_on_char_boundaries() {
        let code = "const títle = 'café'; page.goto('https://é.example');";
        let literals = extract_template_literals(code, &mut ParameterNames::new());
        assert_eq!(literals.len(), 2);
        assert_eq!(&code[literals[0].start..literals[0].end], "'café'");
        assert_eq!(
            &code[literals[1].start..literals[1].end],
            "'https://é.example'"
        );
        assert_eq!(literals[1].name, "url");
        assert_eq!(
            substitute_template_literals(code, &literals),
            "const títle = '${args.títle}'; page.goto('${args.url}');"
        );
        let bom = "\u{feff}page.goto('https://é.example')";
        let literals = extract_template_literals(bom, &mut ParameterNames::new());
        assert_eq!(
            &bom[literals[0].start..literals[0].end],
            "'https://é.example'"
        );
    }

    #[test]
    fn substituting_the_values_back_reproduces_the_code() {
        for code in [
            PLAYWRIGHT,
            "const títle = 'café'; page.goto(\"https://é.example\"); x.slice(-3, 7); t = `a b`;",
            "fetch({ method: 'POST', body: 'x', retries: 3, ratio: 0.25 }); y = -12;",
        ] {
            let literals = extract_template_literals(code, &mut ParameterNames::new());
            assert!(!literals.is_empty());
            assert_eq!(interpolate(code, &literals), code);
        }
    }

    #[test]
    fn substitution_into_template_raw_escapes_the_code_only() {
        let code = "const a = `x`; f(\"\\\\\", '${y}'); page.goto('https://q');";
        let literals = extract_template_literals(code, &mut ParameterNames::new());
        assert_eq!(
            literals.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(),
            ["a", "fArg2", "url"]
        );
        assert_eq!(
            substitute_into_template_raw(code, &literals),
            "const a = \\`${args.a}\\`; f(\"\\\\\\\\\", '${args.fArg2}'); page.goto('${args.url}');"
        );
    }

    #[test]
    fn substitution_ignores_bad_ranges() {
        let code = "f('é')";
        let lit = |start, end| TemplateLiteral {
            name: "x".into(),
            value: json!("é"),
            start,
            end,
        };
        let bad = [lit(3, 4), lit(2, 100), lit(5, 2)];
        assert_eq!(substitute_template_literals(code, &bad), code);
        let overlapping = [lit(2, 6), lit(3, 5)];
        assert_eq!(
            substitute_template_literals(code, &overlapping),
            "f('${args.x}')"
        );
    }

    #[test]
    fn serializes_as_a_flat_object() {
        let literals =
            extract_template_literals("page.goto('https://x')", &mut ParameterNames::new());
        assert_eq!(
            serde_json::to_value(&literals).unwrap(),
            json!([{ "name": "url", "value": "https://x", "start": 10, "end": 21 }])
        );
    }

    #[test]
    fn looks_like_code_accepts_code() {
        for code in [
            PLAYWRIGHT,
            "page.goto('http://x'); texts.slice(0, 100);",
            "return document.title;",
            "await page.click('#submit')",
            "x => x * 2",
            "import { a } from 'b'; a();",
        ] {
            assert!(looks_like_code(code), "{code}");
        }
    }

    #[test]
    fn looks_like_code_rejects_non_code() {
        for text in [
            "",
            "   ",
            "hello world",
            "/tmp/a.txt",
            "page.html",
            "SELECT * FROM users WHERE id = 1",
            "{\"a\": 1}",
            "Please call foo(bar); then wait.",
            "'just (a) string';",
            "async (page: Page) => { await page.goto('x'); }",
            "https://example.com/?q=1&r=2",
        ] {
            assert!(!looks_like_code(text), "{text:?}");
        }
    }

    #[test]
    fn unparsable_code_yields_nothing() {
        let mut names = ParameterNames::new();
        assert!(extract_template_literals("page.goto('https://x'", &mut names).is_empty());
        assert!(
            !names.contains("url"),
            "nothing is allocated for code that does not parse"
        );
    }

    #[test]
    fn huge_input_is_refused_without_panicking() {
        let huge = format!("page.goto('https://x'); {}", "a".repeat(1 << 20));
        assert!(!looks_like_code(&huge));
        assert!(extract_template_literals(&huge, &mut ParameterNames::new()).is_empty());
        let huge_string = format!("f('{}')", "é".repeat(1 << 19));
        assert!(extract_template_literals(&huge_string, &mut ParameterNames::new()).is_empty());
    }

    #[test]
    fn deep_nesting_at_the_size_limit_does_not_overflow() {
        for unit in [
            "(", "[(", "{", "x=>", "(x=>", "!", "-+", "`${", "f<(", "a:", "if(a)", "a.b(",
        ] {
            let code = format!(
                "{}page.goto('https://x')",
                unit.repeat((MAX_CODE_BYTES - 40) / unit.len())
            );
            assert!(code.len() <= MAX_CODE_BYTES);
            let _ = looks_like_code(&code);
            let _ = extract_template_literals(&code, &mut ParameterNames::new());
        }
        // Deep but valid: every literal is still found.
        let depth = 1000;
        let code = format!("{}f('deep'){}", "g(".repeat(depth), ")".repeat(depth));
        assert_eq!(extract(&code), pairs(&[("fArg", json!("deep"))]));
    }

    #[test]
    fn garbage_does_not_panic() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let alphabet: Vec<char> =
            "(){}[]<>;:,.'\"`$\\/=>!?+-*%&|^~ \n\tabcxyz019éπ😀\u{2028}\u{feff}#@"
                .chars()
                .collect();
        for _ in 0..300 {
            let len = (seed % 200) as usize;
            let s: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = looks_like_code(&s);
            let literals = extract_template_literals(&s, &mut ParameterNames::new());
            let _ = substitute_template_literals(&s, &literals);
            let _ = substitute_into_template_raw(&s, &literals);
        }
        for s in [
            "'", "`${", "\\u{", "/*", "0x", "1e", "-", "a:a:a:", "\u{0}", "#!x\n", "<!--",
        ] {
            let _ = looks_like_code(s);
            let _ = extract_template_literals(s, &mut ParameterNames::new());
        }
    }

    #[test]
    fn label_chains_are_measured() {
        assert_eq!(label_chain("a: b: { c: x }"), 3);
        assert_eq!(label_chain("{ a: 1, b: 2 }"), 1);
        assert_eq!(label_chain("x ? y : z"), 1);
        assert!(extract_template_literals(
            &format!("{}f('x')", "a:".repeat(MAX_LABEL_CHAIN + 1)),
            &mut ParameterNames::new()
        )
        .is_empty());
    }
}
