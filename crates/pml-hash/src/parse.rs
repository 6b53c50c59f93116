//! Parsing the snippets this crate reads (agent programs, code of `code:*` tasks, loop code,
//! conditions, reference expressions) with SWC.
//!
//! Everything is parsed inside the same wrapper as `pml-structure` uses, so top-level `await`
//! and `return` are accepted: a program is `PREFIX + code + SUFFIX`, an expression is
//! `PREFIX + "return (" + code + "\n);" + SUFFIX` and must come back as exactly that one
//! parenthesised expression (so `a) + (b` is not taken for an expression).

use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{Decl, EsVersion, Expr, FnDecl, Script, Stmt};
use swc_ecma_parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};

/// The wrapper around agent code (the same as `pml-structure`'s): no newline, so line numbers
/// are unchanged.
pub(crate) const PREFIX: &str = "async function __pml_agent__(){";
pub(crate) const SUFFIX: &str = "\n}";
const EXPR_OPEN: &str = "return (";
const EXPR_CLOSE: &str = "\n);";

/// Source text of a parse plus the offset of the user's text inside it.
pub(crate) struct Source {
    /// `PREFIX + ... + SUFFIX`; SWC positions are `1 + index` into it.
    pub(crate) wrapped: String,
    /// Index in `wrapped` where the user's text starts.
    pub(crate) start: usize,
    /// Length of the user's text.
    pub(crate) len: usize,
}

impl Source {
    /// The text of a SWC span (clamped; empty when out of range).
    pub(crate) fn text(&self, span: swc_common::Span) -> &str {
        let lo = (span.lo.0 as usize).saturating_sub(1);
        let hi = (span.hi.0 as usize).saturating_sub(1);
        self.wrapped.get(lo..hi).unwrap_or("")
    }

    /// A SWC position as a byte offset into the user's text (clamped).
    pub(crate) fn user_offset(&self, pos: BytePos) -> usize {
        (pos.0 as usize)
            .saturating_sub(1 + self.start)
            .min(self.len)
    }
}

/// A syntax error: byte offset into the user's text and SWC's message.
pub(crate) type SyntaxError = (usize, String);

fn run_parser(src: &Source) -> (Option<Script>, Vec<SyntaxError>) {
    let lexer = Lexer::new(
        Syntax::Typescript(TsSyntax::default()),
        EsVersion::latest(),
        StringInput::new(
            &src.wrapped,
            BytePos(1),
            BytePos(1 + src.wrapped.len() as u32),
        ),
        None,
    );
    let mut parser = Parser::new_from(lexer);
    let result = parser.parse_script();
    let mut errors: Vec<SyntaxError> = parser
        .take_errors()
        .into_iter()
        .map(|e| (src.user_offset(e.span().lo), e.into_kind().msg().into_owned()))
        .collect();
    let script = match result {
        Ok(script) => Some(script),
        Err(e) => {
            errors.push((src.user_offset(e.span().lo), e.into_kind().msg().into_owned()));
            None
        }
    };
    (script, errors)
}

fn body_of(script: Script) -> Option<Vec<Stmt>> {
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

fn too_big(code: &str) -> bool {
    // SWC positions are u32; stay well inside them.
    code.len() > (u32::MAX as usize) / 4
}

/// Parse an agent program (the body of an async function).
pub(crate) fn parse_program(code: &str) -> (Source, Result<Vec<Stmt>, Vec<SyntaxError>>) {
    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);
    let src = Source {
        wrapped,
        start: PREFIX.len(),
        len: code.len(),
    };
    if too_big(code) {
        return (src, Err(vec![(0, "input too large".into())]));
    }
    let (script, mut errors) = run_parser(&src);
    if !errors.is_empty() {
        errors.sort_by_key(|(pos, _)| *pos);
        errors.dedup();
        return (src, Err(errors));
    }
    match script.and_then(body_of) {
        Some(body) => (src, Ok(body)),
        None => (
            src,
            Err(vec![(
                0,
                "unbalanced braces: the code closes the function body it is part of".into(),
            )]),
        ),
    }
}

/// Parse one expression (`pieces` are concatenated: lets callers prefix a receiver without
/// copying twice). `None` when the text is not exactly one expression.
pub(crate) fn parse_expression(pieces: &[&str]) -> Option<(Source, Box<Expr>)> {
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    if too_big_len(len) {
        return None;
    }
    let mut wrapped = String::with_capacity(
        PREFIX.len() + EXPR_OPEN.len() + len + EXPR_CLOSE.len() + SUFFIX.len(),
    );
    wrapped.push_str(PREFIX);
    wrapped.push_str(EXPR_OPEN);
    let start = wrapped.len();
    for p in pieces {
        wrapped.push_str(p);
    }
    wrapped.push_str(EXPR_CLOSE);
    wrapped.push_str(SUFFIX);
    let src = Source {
        wrapped,
        start,
        len,
    };
    let (script, errors) = run_parser(&src);
    if !errors.is_empty() {
        return None;
    }
    let mut body = body_of(script?)?;
    if body.len() != 1 {
        return None;
    }
    let Stmt::Return(ret) = body.pop()? else {
        return None;
    };
    let arg = ret.arg?;
    // The parenthesis we opened must be the one that closes last.
    let open = 1 + start as u32 - 1;
    let close = 1 + (start + len + 2) as u32;
    match *arg {
        Expr::Paren(p) if p.span.lo.0 == open && p.span.hi.0 == close => Some((src, p.expr)),
        _ => None,
    }
}

fn too_big_len(len: usize) -> bool {
    len > (u32::MAX as usize) / 4
}

/// An upper bound on how deep the syntax tree of `code` can nest: every nesting level of a
/// JavaScript syntax tree needs a bracket, an operator character or a prefix keyword. Used to
/// decide whether parsing and printing may run on the caller's stack.
pub(crate) fn depth_bound(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut n = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'(' | b'[' | b'{' | b'!' | b'~' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|'
            | b'^' | b'<' | b'>' | b'=' | b'?' | b':' | b',' | b'.' | b'`' | b'$' | b'@'
            | b'#' | b';' => n += 1,
            // A keyword that nests without punctuation (`await await x`, `typeof typeof x`,
            // `new new X`, `else if`, `do do`...): count every word.
            b'a'..=b'z' => {
                let at_word_start = i == 0 || !is_word_byte(bytes[i - 1]);
                if at_word_start {
                    n += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    n
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expression_must_be_the_whole_text() {
        assert!(parse_expression(&["a.b + 1"]).is_some());
        assert!(parse_expression(&["a) + (b"]).is_none());
        assert!(parse_expression(&["a); foo(b"]).is_none());
        assert!(parse_expression(&["a // comment"]).is_some());
        assert!(parse_expression(&["await x"]).is_some());
        assert!(parse_expression(&[""]).is_none());
        assert!(parse_expression(&["$receiver.", "filter(u => u.ok)"]).is_some());
    }

    #[test]
    fn a_program_may_await_and_return() {
        let (_, body) = parse_program("const a = await x(); return a;");
        assert_eq!(body.unwrap().len(), 2);
        let (_, body) = parse_program("}{");
        assert!(body.is_err());
    }
}
