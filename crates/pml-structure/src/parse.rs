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
        let mut line_starts = vec![0];
        let mut ascii = Vec::new();
        let mut checkpoints = Vec::new();
        let mut start = 0;
        let mut line = |start: usize, end: usize, ascii: &mut Vec<bool>| {
            let is_ascii = text.as_bytes()[start..end].is_ascii();
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
        };
        // `match_indices` with a char searches with memchr: ~1 instruction per byte.
        for (i, _) in text.match_indices('\n') {
            line(start, i, &mut ascii);
            start = i + 1;
            line_starts.push(start);
        }
        line(start, text.len(), &mut ascii);
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

/// A parse: the body, or the syntax errors.
pub(crate) type ParseResult = Result<Parsed, Vec<Diagnostic>>;

/// How many program texts this process parsed (each [`parse`] and [`parse_in_two`] once).
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

/// Parse agent code in two halves at once, when it has a place to cut (see [`split_point`]):
/// each half as its own function body, positions as in the whole text, statements joined in
/// order; `then` runs on each half's statements on the thread that parsed it, and its two
/// answers come back in order. Any error in either half, or no place to cut, means the plain
/// parse of the whole text, whose diagnostics are the ones reported (and no answers).
pub(crate) fn parse_in_two<T: Send>(
    code: &str,
    dialect: Dialect,
    lines: &LineIndex,
    cut: Option<usize>,
    then: impl Fn(&[Stmt]) -> T + Sync,
) -> (ParseResult, Option<(T, T)>) {
    if let Some(cut) = cut.filter(|&c| 0 < c && c < code.len()) {
        let part = |start, end| {
            let body = parse_part(code, start, end, dialect)?;
            let answer = then(&body);
            Some((body, answer))
        };
        let (first, second) = crate::both(true, || part(0, cut), || part(cut, code.len()));
        if let (Some((mut body, a)), Some((rest, b))) = (first, second) {
            PARSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            body.extend(rest);
            let parsed = Parsed {
                body,
                base: 1 + PREFIX.len() as u32,
            };
            return (Ok(parsed), Some((a, b)));
        }
    }
    (parse(code, dialect, lines), None)
}

/// The statements of `code[start..end]` parsed as a function body whose positions are those of
/// the whole text; `None` on any syntax error.
fn parse_part(code: &str, start: usize, end: usize, dialect: Dialect) -> Option<Vec<Stmt>> {
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

/// Where the text may be cut in two for [`parse_in_two`]: just after the first `;` that ends a
/// line at the top level (outside brackets, strings, comments and templates) in the second
/// half of the text. After an explicit `;` a top-level statement always ends, so both parts
/// are statement lists of their own. The scan does not know regular-expression literals; a cut
/// it misplaces leaves a part with an open bracket, string, template or comment, which fails to
/// parse and sends the caller back to the whole text. No cut in code that mentions
/// `use strict` (a directive at the top would cover only the first part).
pub(crate) fn split_point(code: &str) -> Option<usize> {
    use crate::guard::{comment_end, string_end, template_text, TemplateEnd};
    if code.contains("use strict") {
        return None;
    }
    let b = code.as_bytes();
    let half = b.len() / 2;
    let mut depth = 0usize;
    // Open template interpolations: the depth at which `}` resumes template text.
    let mut templates: Vec<usize> = Vec::new();
    let mut i = 0;
    // Template text from `i`: on to its `${` (one level deeper) or past its closing backtick.
    let template = |i: usize, depth: usize, templates: &mut Vec<usize>| match template_text(b, i) {
        TemplateEnd::Interpolation(at) => {
            templates.push(depth);
            at + 1
        }
        TemplateEnd::Closed(at) => at + 1,
    };
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => i = string_end(b, i),
            b'`' => {
                i = template(i + 1, depth, &mut templates);
                continue;
            }
            b'/' => {
                if let Some(end) = comment_end(b, i) {
                    i = end;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1)?,
            b'}' if templates.last() == Some(&depth) => {
                templates.pop();
                i = template(i + 1, depth, &mut templates);
                continue;
            }
            b'}' => depth = depth.checked_sub(1)?,
            b';' if depth == 0 && templates.is_empty() && i >= half => {
                let mut j = i + 1;
                if b.get(j) == Some(&b'\r') {
                    j += 1;
                }
                if b.get(j) == Some(&b'\n') && j + 1 < b.len() {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        i += 1;
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

    fn in_two(code: &str, cut: usize) -> Result<Parsed, Vec<Diagnostic>> {
        parse_in_two(
            code,
            Dialect::TypeScript,
            &LineIndex::new(code),
            Some(cut),
            |_| (),
        )
        .0
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
    fn the_cut_is_a_top_level_line_ending_semicolon_in_the_second_half() {
        // Past the middle, only the last `;` ends a line at the top level: the others are in a
        // template (and its interpolation), a block, a string that holds a `}`, comments.
        let first_half = format!("const pad = {};\n", "1 + ".repeat(10) + "1");
        // (Top-level statements there end in `; ` + newline: not a cut.)
        let second_half = "const a = `x;\n${b;\n}`; \nif (c) {\n  d();\n}\nconst e = '}'; \n// f;\n/* g;\n*/h();\ni();\n";
        let code = format!("{first_half}{second_half}");
        assert!(first_half.len() > code.len() / 2 - 60 && first_half.len() < code.len() / 2);
        let cut = split_point(&code).unwrap();
        assert_eq!(&code[cut..], "i();\n");

        // Nothing at the top level past the middle: no cut.
        assert_eq!(
            split_point("const a = 1;\nif (b) {\n  c();\n  d();\n  e();\n}\n"),
            None
        );
        // A directive would cover the first part only.
        let strict = "\"use strict\";\nconst a = 1;\nconst b = 2;\nconst c = 3;\n";
        assert_eq!(split_point(strict), None);
        // Unbalanced closers: no cut (the whole parse reports them).
        assert_eq!(split_point("a();\n}\nb();\nc();\nd();\n"), None);
    }

    #[test]
    fn a_broken_half_falls_back_to_the_whole_parse_and_its_diagnostics() {
        let code = "const a = 1;\nconst b = (;\nconst c = 2;\n";
        let cut = code.find("const c").unwrap();
        assert!(same(&in_two(code, cut), &whole(code)));
        assert!(whole(code).is_err());
    }
}
