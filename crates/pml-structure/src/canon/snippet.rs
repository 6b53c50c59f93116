//! Parsing what [`super::normalize_code`] and [`super::normalize_variable_names`] are given
//! (an expression or an agent program) with SWC.
//!
//! Everything is parsed inside the same wrapper as `pml-structure` uses, so top-level `await`
//! and `return` are accepted: a program is `PREFIX + code + SUFFIX`, an expression is
//! `PREFIX + "return (" + code + "\n);" + SUFFIX` and must come back as exactly that one
//! parenthesised expression (so `a) + (b` is not taken for an expression).

use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{EsVersion, Expr, Script, Stmt};
use swc_ecma_parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};

/// The wrapper around agent code (the same as `pml-structure`'s): no newline, so line numbers
/// are unchanged.
pub(crate) const PREFIX: &str = "async function __pml_agent__(){";
pub(crate) const SUFFIX: &str = "\n}";
/// `PREFIX` + `return (` and `\n);` + `SUFFIX`: an expression inside the function wrapper.
const FN_EXPR_OPEN: &str = "async function __pml_agent__(){return (";
const FN_EXPR_CLOSE: &str = "\n);\n}";

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
        .map(|e| {
            (
                src.user_offset(e.span().lo),
                e.into_kind().msg().into_owned(),
            )
        })
        .collect();
    let script = match result {
        Ok(script) => Some(script),
        Err(e) => {
            errors.push((
                src.user_offset(e.span().lo),
                e.into_kind().msg().into_owned(),
            ));
            None
        }
    };
    (script, errors)
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
    if code.len() > super::MAX_PARSE_DEPTH && depth_bound(code) > super::MAX_PARSE_DEPTH {
        return (src, Err(vec![(0, "input nests too deeply".into())]));
    }
    crate::parse::PARSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (script, mut errors) = run_parser(&src);
    if !errors.is_empty() {
        errors.sort_by_key(|(pos, _)| *pos);
        errors.dedup();
        return (src, Err(errors));
    }
    match script.and_then(crate::parse::unwrap_body) {
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
///
/// Text without `await`/`yield` is parsed as an expression on its own (five times cheaper than
/// inside the function wrapper) and must end where the input ends. Other text is parsed as
/// `return (` + text + `\n);` inside the function wrapper and must come back as that one
/// parenthesised expression (so `a) + (b` is not taken for an expression).
pub(crate) fn parse_expression(pieces: &[&str]) -> Option<(Source, Box<Expr>)> {
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    if too_big_len(len)
        || (len > super::MAX_PARSE_DEPTH
            && pieces.iter().map(|p| depth_bound(p)).sum::<usize>() > super::MAX_PARSE_DEPTH)
    {
        return None;
    }
    let needs_function = pieces
        .iter()
        .any(|p| p.contains("await") || p.contains("yield"));
    let (open, close) = if needs_function {
        (FN_EXPR_OPEN, FN_EXPR_CLOSE)
    } else {
        ("", "")
    };
    let mut wrapped = String::with_capacity(open.len() + len + close.len());
    wrapped.push_str(open);
    let start = wrapped.len();
    for p in pieces {
        wrapped.push_str(p);
    }
    wrapped.push_str(close);
    let src = Source {
        wrapped,
        start,
        len,
    };
    if !needs_function {
        let lexer = Lexer::new(
            Syntax::Typescript(TsSyntax::default()),
            EsVersion::latest(),
            StringInput::new(&src.wrapped, BytePos(1), BytePos(1 + len as u32)),
            None,
        );
        let mut parser = Parser::new_from(lexer);
        let expr = parser.parse_expr().ok()?;
        // The whole input must be the expression: the next token is the end of input.
        let at_end = parser.input().get_cur().span.lo.0 as usize == 1 + len;
        if !parser.take_errors().is_empty() || !at_end {
            return None;
        }
        return Some((src, expr));
    }
    let (script, errors) = run_parser(&src);
    if !errors.is_empty() {
        return None;
    }
    let mut body = crate::parse::unwrap_body(script?)?;
    if body.len() != 1 {
        return None;
    }
    let Stmt::Return(ret) = body.pop()? else {
        return None;
    };
    // The parenthesis we opened must be the one that closes last: `(` is at index
    // `start - 1` (position `start`), `)` at index `start + len + 1`.
    let paren_lo = start as u32;
    let paren_hi = (start + len + 3) as u32;
    match *ret.arg? {
        Expr::Paren(p) if p.span.lo.0 == paren_lo && p.span.hi.0 == paren_hi => Some((src, p.expr)),
        _ => None,
    }
}

fn too_big_len(len: usize) -> bool {
    len > (u32::MAX as usize) / 4
}

/// An upper bound on how deep the syntax tree of `code` can nest, used to decide whether parsing
/// and printing may run on the caller's stack. Every level of a JavaScript/TypeScript syntax
/// tree needs a token of its own that is a bracket, an operator (`!`, `.`, `=`, `?`, `:`...) or
/// a prefix/infix keyword (`await`, `typeof`, `new`, `in`, `as`...); identifiers, literals, `,`
/// and `;` only add siblings. So: the number of such characters and keywords (characters inside
/// strings and comments count too: an over-estimate).
pub(crate) fn depth_bound(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut n = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if is_word_byte(b) {
            let start = i;
            while i < bytes.len() && is_word_byte(bytes[i]) {
                i += 1;
            }
            if is_nesting_keyword(&bytes[start..i]) {
                n += 1;
            }
            continue;
        }
        if matches!(
            b,
            b'(' | b'['
                | b'{'
                | b'!'
                | b'~'
                | b'+'
                | b'-'
                | b'*'
                | b'/'
                | b'%'
                | b'&'
                | b'|'
                | b'^'
                | b'<'
                | b'>'
                | b'='
                | b'?'
                | b':'
                | b'.'
                | b'`'
                | b'@'
                | b'#'
        ) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Keywords that nest without punctuation: `await await x`, `a in b in c`, `x as A as B`...
fn is_nesting_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"await"
            | b"typeof"
            | b"void"
            | b"delete"
            | b"new"
            | b"yield"
            | b"async"
            | b"in"
            | b"instanceof"
            | b"of"
            | b"as"
            | b"satisfies"
            | b"keyof"
            | b"unique"
            | b"readonly"
            | b"infer"
            | b"asserts"
            | b"is"
            | b"extends"
            | b"else"
            | b"do"
    )
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'\\' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expression_wrapper_is_the_program_wrapper() {
        assert!(FN_EXPR_OPEN.starts_with(PREFIX));
        assert!(FN_EXPR_CLOSE.ends_with(SUFFIX));
    }

    #[test]
    fn an_expression_must_be_the_whole_text() {
        assert!(parse_expression(&["a.b + 1"]).is_some());
        assert!(parse_expression(&["a) + (b"]).is_none());
        assert!(parse_expression(&["a b"]).is_none());
        assert!(parse_expression(&["a; b"]).is_none());
        assert!(parse_expression(&["a /* end */"]).is_some());
        assert!(parse_expression(&["a); foo(b"]).is_none());
        assert!(parse_expression(&["a // comment"]).is_some());
        assert!(parse_expression(&["await x"]).is_some());
        assert!(parse_expression(&[""]).is_none());
        assert!(parse_expression(&["$receiver.", "filter(u => u.ok)"]).is_some());
        assert!(parse_expression(&["await a) + (await b"]).is_none());
        assert!(parse_expression(&["a); foo(await b"]).is_none());
    }

    #[test]
    fn a_program_may_await_and_return() {
        let (_, body) = parse_program("const a = await x(); return a;");
        assert_eq!(body.unwrap().len(), 2);
        let (_, body) = parse_program("}{");
        assert!(body.is_err());
    }
}
