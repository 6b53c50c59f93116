//! Parsing agent code with SWC.
//!
//! Agent code is the *body* of an async function (top-level `await` and `return`), which neither
//! a TypeScript script nor a module accepts. We parse `PREFIX + code + SUFFIX` from a borrowed
//! buffer and map every span back into the user's text, so positions, line and column numbers
//! refer to the file as written.

use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{Decl, FnDecl, Script, Stmt};
use swc_ecma_parser::{lexer::Lexer, EsSyntax, Parser, StringInput, Syntax, TsSyntax};

use crate::model::{Diagnostic, Severity};

/// The wrapper around the agent's code. No newline, so line numbers are unchanged; only columns
/// on line 1 are shifted, which [`LineIndex`] accounts for by working on user offsets.
pub(crate) const PREFIX: &str = "async function __pml_agent__(){";
pub(crate) const SUFFIX: &str = "\n}";

/// Which grammar to parse with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// TypeScript (the default: a superset of what agents write).
    #[default]
    TypeScript,
    /// Plain JavaScript (ECMAScript, no type syntax; `<T>x` is a comparison).
    JavaScript,
}

/// Maps byte offsets in the user's code to 1-based line and (character) column.
pub(crate) struct LineIndex {
    line_starts: Vec<usize>,
    /// Per line: only ASCII, so the column is a byte difference (O(1) even on a minified
    /// one-line program; counting characters there would make the walk quadratic).
    ascii: Vec<bool>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        let mut ascii = Vec::new();
        let mut start = 0;
        // `match_indices` with a char searches with memchr: ~1 instruction per byte.
        for (i, _) in text.match_indices('\n') {
            ascii.push(text.as_bytes()[start..i].is_ascii());
            start = i + 1;
            line_starts.push(start);
        }
        ascii.push(text.as_bytes()[start..].is_ascii());
        LineIndex { line_starts, ascii }
    }

    /// 1-based line and column of a byte offset (clamped to the text).
    pub(crate) fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        if self.ascii.get(line).copied().unwrap_or(false) {
            return (line + 1, offset - start + 1);
        }
        let mut end = offset;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let column = text[start..end].chars().count() + 1;
        (line + 1, column)
    }
}

/// The parsed body plus what is needed to turn SWC positions into user offsets.
pub(crate) struct Parsed {
    pub(crate) body: Vec<Stmt>,
    /// Add to a user offset to get a `BytePos`; subtract from a `BytePos` to get a user offset.
    pub(crate) base: u32,
}

/// Parse agent code. On any syntax error, returns the diagnostics and no body.
pub(crate) fn parse(
    code: &str,
    dialect: Dialect,
    lines: &LineIndex,
) -> Result<Parsed, Vec<Diagnostic>> {
    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);
    let start = BytePos(1);
    let end = BytePos(1 + wrapped.len() as u32);
    let base = 1 + PREFIX.len() as u32;
    let syntax = match dialect {
        Dialect::TypeScript => Syntax::Typescript(TsSyntax::default()),
        Dialect::JavaScript => Syntax::Es(EsSyntax::default()),
    };
    let lexer = Lexer::new(
        syntax,
        swc_ecma_ast::EsVersion::latest(),
        StringInput::new(&wrapped, start, end),
        None,
    );
    let mut parser = Parser::new_from(lexer);
    let result = parser.parse_script();
    let mut errors: Vec<(u32, String)> = parser
        .take_errors()
        .into_iter()
        .map(|e| (e.span().lo.0, e.into_kind().msg().into_owned()))
        .collect();
    let script = match result {
        Ok(script) => Some(script),
        Err(e) => {
            errors.push((e.span().lo.0, e.into_kind().msg().into_owned()));
            None
        }
    };
    let to_user = |pos: u32| (pos.saturating_sub(base) as usize).min(code.len());
    if !errors.is_empty() {
        errors.sort_by_key(|(pos, _)| *pos);
        errors.dedup();
        return Err(errors
            .into_iter()
            .map(|(pos, msg)| {
                let (line, column) = lines.line_col(code, to_user(pos));
                Diagnostic {
                    severity: Severity::Error,
                    code: crate::diagnostics::SYNTAX_ERROR.into(),
                    message: lowercase_first(&msg),
                    line,
                    column,
                }
            })
            .collect());
    }
    match script.and_then(unwrap_body) {
        Some(body) => Ok(Parsed { body, base }),
        None => {
            // The code closed our wrapper function early (`}` at top level) and went on.
            let (line, column) = lines.line_col(code, 0);
            Err(vec![Diagnostic {
                severity: Severity::Error,
                code: crate::diagnostics::SYNTAX_ERROR.into(),
                message: "unbalanced braces: the code closes the function body it is part of"
                    .into(),
                line,
                column,
            }])
        }
    }
}

fn unwrap_body(script: Script) -> Option<Vec<Stmt>> {
    let mut stmts = script.body.into_iter();
    let first = stmts.next()?;
    if stmts.next().is_some() {
        return None;
    }
    match first {
        Stmt::Decl(Decl::Fn(FnDecl { function, .. })) => function.body.map(|b| b.stmts),
        _ => None,
    }
}

fn lowercase_first(msg: &str) -> String {
    let mut chars = msg.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
