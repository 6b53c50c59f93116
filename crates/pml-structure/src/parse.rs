//! Parsing agent code with SWC.
//!
//! Agent code is the *body* of an async function (top-level `await` and `return`), which neither
//! a TypeScript script nor a module accepts. We parse `PREFIX + code + SUFFIX` from a borrowed
//! buffer and map every span back into the user's text, so positions, line and column numbers
//! refer to the file as written.

use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{Decl, FnDecl, Script, Stmt};
use swc_ecma_parser::{lexer::Lexer, EsSyntax, Parser, StringInput, Syntax, TsSyntax};

use crate::model::{Diagnostic, Severity, Span};

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
    /// On the lines that are not ASCII, every [`CHECKPOINT`] bytes: `(byte offset, characters
    /// of its line before it)`, by offset; a column counts the characters after the nearest
    /// one (at most [`CHECKPOINT`] bytes), however long the line.
    checkpoints: Vec<(usize, usize)>,
}

/// Bytes between two checkpoints of a line that is not ASCII.
const CHECKPOINT: usize = 256;

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = Vec::with_capacity(bytes.len() / 40 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        // Most programs are ASCII throughout: one check for the whole text.
        if bytes.is_ascii() {
            return LineIndex {
                ascii: vec![true; line_starts.len()],
                line_starts,
                checkpoints: Vec::new(),
            };
        }
        let mut ascii = Vec::with_capacity(line_starts.len());
        let mut checkpoints = Vec::new();
        for (i, &start) in line_starts.iter().enumerate() {
            let end = line_starts.get(i + 1).map_or(bytes.len(), |next| next - 1);
            let is_ascii = bytes[start..end].is_ascii();
            ascii.push(is_ascii);
            if !is_ascii {
                let (mut at, mut chars) = (start, 0);
                while at + CHECKPOINT < end {
                    let mut next = at + CHECKPOINT;
                    while !text.is_char_boundary(next) {
                        next += 1;
                    }
                    chars += text[at..next].chars().count();
                    at = next;
                    checkpoints.push((at, chars));
                }
            }
        }
        LineIndex {
            line_starts,
            ascii,
            checkpoints,
        }
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
        // The nearest checkpoint at or before `end` on this line, else the line's start.
        let i = self.checkpoints.partition_point(|&(at, _)| at <= end);
        let (from, before) = match i.checked_sub(1).map(|i| self.checkpoints[i]) {
            Some((at, chars)) if at > start => (at, chars),
            _ => (start, 0),
        };
        let column = before + text[from..end].chars().count() + 1;
        (line + 1, column)
    }
}

/// The parsed body plus what is needed to turn SWC positions into user offsets.
pub(crate) struct Parsed {
    pub(crate) body: Vec<Stmt>,
    /// Add to a user offset to get a `BytePos`; subtract from a `BytePos` to get a user offset.
    pub(crate) base: u32,
}

/// How many program texts this process parsed (each [`parse`] and [`joined`] once).
pub(crate) static PARSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Parse agent code. On any syntax error, returns the diagnostics and no body.
pub(crate) fn parse(
    code: &str,
    dialect: Dialect,
    lines: &LineIndex,
) -> Result<Parsed, Vec<Diagnostic>> {
    PARSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);
    let start = BytePos(1);
    let end = BytePos(1 + wrapped.len() as u32);
    let base = 1 + PREFIX.len() as u32;
    let lexer = Lexer::new(
        syntax(dialect),
        swc_ecma_ast::EsVersion::latest(),
        StringInput::new(&wrapped, start, end),
        None,
    );
    let mut parser = Parser::new_from(lexer);
    let result = parser.parse_script();
    let error = |e: swc_ecma_parser::error::Error| {
        let span = e.span();
        (span.lo.0, span.hi.0, e.into_kind().msg().into_owned())
    };
    let mut errors: Vec<(u32, u32, String)> = parser.take_errors().into_iter().map(error).collect();
    let script = match result {
        Ok(script) => Some(script),
        Err(e) => {
            errors.push(error(e));
            None
        }
    };
    let to_user = |pos: u32| (pos.saturating_sub(base) as usize).min(code.len());
    if !errors.is_empty() {
        errors.sort_by_key(|(lo, _, _)| *lo);
        errors.dedup();
        return Err(errors
            .into_iter()
            .map(|(lo, hi, msg)| {
                let start = to_user(lo);
                let (line, column) = lines.line_col(code, start);
                let span = Span {
                    start,
                    end: to_user(hi).max(start),
                    line,
                    column,
                };
                Diagnostic::spanning(
                    Severity::Error,
                    crate::diagnostics::SYNTAX_ERROR,
                    lowercase_first(&msg),
                    span,
                )
            })
            .collect());
    }
    match script.and_then(unwrap_body) {
        Some(body) => Ok(Parsed { body, base }),
        None => {
            // The code closed our wrapper function early (`}` at top level) and went on.
            let (line, column) = lines.line_col(code, 0);
            Err(vec![Diagnostic::at(
                Severity::Error,
                crate::diagnostics::SYNTAX_ERROR,
                "unbalanced braces: the code closes the function body it is part of".into(),
                (line, column),
            )])
        }
    }
}

/// The two halves' statements (each parsed by [`parse_part`]) as the parse of the whole text.
pub(crate) fn joined(mut first: Vec<Stmt>, second: Vec<Stmt>) -> Parsed {
    PARSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    first.extend(second);
    Parsed {
        body: first,
        base: 1 + PREFIX.len() as u32,
    }
}

/// The statements of `code[start..end]` parsed as a function body whose positions are those of
/// the whole text; `None` on any syntax error.
pub(crate) fn parse_part(
    code: &str,
    start: usize,
    end: usize,
    dialect: Dialect,
) -> Option<Vec<Stmt>> {
    let part = code.get(start..end)?;
    let mut wrapped = String::with_capacity(PREFIX.len() + part.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(part);
    wrapped.push_str(SUFFIX);
    // The part's first byte gets the position it has in the whole text: base + start.
    let first = BytePos(1 + start as u32);
    let lexer = Lexer::new(
        syntax(dialect),
        swc_ecma_ast::EsVersion::latest(),
        StringInput::new(&wrapped, first, first + BytePos(wrapped.len() as u32)),
        None,
    );
    let mut parser = Parser::new_from(lexer);
    let script = parser.parse_script().ok()?;
    if !parser.take_errors().is_empty() {
        return None;
    }
    unwrap_body(script)
}

/// Where the text may be cut in two, to parse its halves at once ([`parse_part`]): just after
/// the first `;` past `from` that ends a line whose next line (blank lines aside) starts in its
/// first column with a letter, `_`, `$` or a comment: a top-level statement, as formatted code
/// writes them. A guess, found without reading what comes before: cut anywhere after a `;`
/// that ends a line, a part that is not a statement list of its own (a cut inside a block,
/// parentheses, a template, a comment) fails to parse (see the tests), and the caller parses
/// the whole text instead. No cut in code that mentions `use strict` (a directive at the top
/// would cover only the first part).
pub(crate) fn guess_cut(code: &str, from: usize) -> Option<usize> {
    if code.contains("use strict") {
        return None;
    }
    let b = code.as_bytes();
    let mut at = from;
    while let Some(found) = b.get(at..)?.iter().position(|&c| c == b';') {
        let semicolon = at + found;
        at = semicolon + 1;
        let mut next = semicolon + 1;
        if b.get(next) == Some(&b'\r') {
            next += 1;
        }
        if b.get(next) != Some(&b'\n') {
            continue;
        }
        let cut = next + 1;
        // The next line that is not blank.
        let mut line = cut;
        while matches!(b.get(line), Some(b'\n' | b'\r')) {
            line += 1;
        }
        match b.get(line) {
            Some(c) if c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'/') => {
                return Some(cut)
            }
            None => return None,
            Some(_) => {}
        }
    }
    None
}

fn syntax(dialect: Dialect) -> Syntax {
    match dialect {
        Dialect::TypeScript => Syntax::Typescript(TsSyntax::default()),
        Dialect::JavaScript => Syntax::Es(EsSyntax::default()),
    }
}

/// The statements of the wrapper function that is the script's one statement.
pub(crate) fn unwrap_body(script: Script) -> Option<Vec<Stmt>> {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Columns count characters, however long the line and wherever it holds non-ASCII ones.
    #[test]
    fn columns_count_characters_on_long_lines() {
        let long: String = (0..3000)
            .map(|i| match i % 7 {
                0 => "é",
                3 => "😀",
                5 => "名",
                _ => "x",
            })
            .collect();
        let text = format!("ascii line\n{long}\nshort é\n\n{long}");
        let lines = LineIndex::new(&text);
        let (mut line, mut column) = (1, 1);
        for (offset, c) in text.char_indices() {
            assert_eq!(lines.line_col(&text, offset), (line, column), "at {offset}");
            // Inside a character: the character's own column.
            for inside in 1..c.len_utf8() {
                assert_eq!(lines.line_col(&text, offset + inside), (line, column));
            }
            (line, column) = if c == '\n' {
                (line + 1, 1)
            } else {
                (line, column + 1)
            };
        }
        assert_eq!(lines.line_col(&text, text.len()), (line, column));
    }

    /// Every agent program in the repository: fixtures and examples.
    pub(crate) fn programs() -> Vec<(String, String)> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut out = Vec::new();
        for dir in ["fixtures", "examples"] {
            for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
                let path = entry.unwrap().path();
                let file = if path.is_dir() {
                    path.join("input.ts")
                } else {
                    path
                };
                if file.extension().is_some_and(|e| e == "ts") && file.is_file() {
                    let code = std::fs::read_to_string(&file).unwrap();
                    out.push((file.display().to_string(), code));
                }
            }
        }
        assert!(out.len() > 80, "{} programs", out.len());
        out
    }

    fn whole(code: &str) -> Result<Parsed, Vec<Diagnostic>> {
        parse(code, Dialect::TypeScript, &LineIndex::new(code))
    }

    /// The halves' parse at `cut`, when both halves parse; else the whole text's.
    fn in_two(code: &str, cut: usize) -> Result<Parsed, Vec<Diagnostic>> {
        let first = parse_part(code, 0, cut, Dialect::TypeScript);
        let second = parse_part(code, cut, code.len(), Dialect::TypeScript);
        match (first, second) {
            (Some(first), Some(second)) => Ok(joined(first, second)),
            _ => whole(code),
        }
    }

    fn same(a: &Result<Parsed, Vec<Diagnostic>>, b: &Result<Parsed, Vec<Diagnostic>>) -> bool {
        match (a, b) {
            (Ok(a), Ok(b)) => a.base == b.base && a.body == b.body,
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }

    /// The property the cut relies on: after a `;` that ends a line, cutting anywhere (inside
    /// blocks, templates, comments, parentheses too) gives the statements of the whole parse,
    /// with the same positions, because a part that is not a statement list fails to parse.
    #[test]
    fn any_cut_after_a_line_ending_semicolon_parses_like_the_whole() {
        let mut cuts = 0;
        let mut kept = 0;
        for (file, code) in programs() {
            let reference = whole(&code);
            for (i, _) in code.match_indices(";\n") {
                let cut = i + 2;
                let parsed = in_two(&code, cut);
                assert!(same(&parsed, &reference), "{file}: cut at byte {cut}");
                cuts += 1;
                let (first, second) = (
                    parse_part(&code, 0, cut, Dialect::TypeScript),
                    parse_part(&code, cut, code.len(), Dialect::TypeScript),
                );
                kept += usize::from(first.is_some() && second.is_some());
            }
        }
        // Both ways are exercised: cuts inside blocks fall back, top-level ones are kept.
        assert!(
            cuts > 500 && kept > 100 && kept < cuts,
            "{kept} of {cuts} cuts kept"
        );
    }

    #[test]
    fn the_cut_is_guessed_where_a_line_starts_a_statement_in_its_first_column() {
        // Past `from`: `;` ending lines inside a template, a block, a string, before a
        // closer or an indented line are passed over; the first followed by a line that
        // starts in the first column is the cut (blank lines between are skipped).
        let code =
            "const a = `x;\n  ${b;\n}`; \nif (c) {\n  d();\n}\nconst e = '}'; \n  f();\n\n\ng();\n";
        let cut = guess_cut(code, 0).unwrap();
        assert_eq!(&code[cut..], "\n\ng();\n");
        assert_eq!(guess_cut(code, cut), None);
        // CRLF line ends.
        let crlf = "a();\r\n  b();\r\nc();\r\n";
        assert_eq!(&crlf[guess_cut(crlf, 0).unwrap()..], "c();\r\n");
        // Nothing starts a line in the first column: no cut.
        assert_eq!(guess_cut("if (b) {\n  c();\n  d();\n  e();\n}\n", 0), None);
        // A directive would cover the first part only.
        let strict = "\"use strict\";\nconst a = 1;\nconst b = 2;\nconst c = 3;\n";
        assert_eq!(guess_cut(strict, 0), None);
        // Every guess of every program is a cut after which both halves parse as the whole
        // does, or one half fails (the caller parses the whole).
        for (file, code) in programs() {
            let mut from = 0;
            while let Some(cut) = guess_cut(&code, from) {
                assert!(
                    same(&in_two(&code, cut), &whole(&code)),
                    "{file}: cut at {cut}"
                );
                from = cut;
            }
        }
    }

    #[test]
    fn a_broken_half_falls_back_to_the_whole_parse_and_its_diagnostics() {
        let code = "const a = 1;\nconst b = (;\nconst c = 2;\n";
        let cut = code.find("const c").unwrap();
        assert!(same(&in_two(code, cut), &whole(code)));
        assert!(whole(code).is_err());
    }
}
