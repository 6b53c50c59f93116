//! [`validate_pure_code`]: a small JavaScript lexer that finds the first reach outside pure
//! computation (network, timers, dynamic code, modules, the process, the runtime, the global
//! object) in the source text of a code task.
//!
//! The lexer knows just enough JavaScript to tell code from text: it skips string literals,
//! comments, regular-expression literals and the text of template literals, but scans the
//! `${ .. }` interpolations of templates (to any depth). A forbidden name counts only as an
//! identifier reference: a property name (`x.fetch`, `x?.process`, `this.#eval`) or a key
//! (`{ process: 1 }`, a TypeScript parameter `(self: T)`) is fine.
//!
//! Where it cannot be sure, it leans towards reporting: `{ fetch }` (shorthand, a real
//! reference) and `typeof fetch` are reported. It is a text check, not a sandbox: it cannot see
//! through `x.constructor.constructor("..")` or computed names built from strings.
//!
//! **Invariant:** never panics and runs in time linear in the input, whatever the input.

use std::fmt;

/// The source of a pure code task reaches something that is not pure computation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpureCode {
    /// What was reached, as a stable short string: `"fetch"`, `"eval"`, `"new Function"`,
    /// `"import()"`, `"import.meta"`, `"require"`, `"process"`, `"Deno"`, ...
    pub pattern: &'static str,
    /// Byte offset in the code where the reach starts (the `new` of `new Function`).
    pub offset: usize,
}

const NETWORK: &str = "network i/o";
const EVAL: &str = "dynamic code evaluation";
const TIMERS: &str = "timers";
const MODULES: &str = "module loading";
const PROCESS: &str = "process access";
const RUNTIME: &str = "runtime access";
const GLOBAL: &str = "global object access";

/// Identifiers that may not be referenced, and why. `Function` and `import` are reported with
/// a more precise pattern when the text around them allows (`new Function`, `import()`).
const FORBIDDEN: [(&str, &str); 19] = [
    ("fetch", NETWORK),
    ("XMLHttpRequest", NETWORK),
    ("WebSocket", NETWORK),
    ("eval", EVAL),
    ("Function", EVAL),
    ("setTimeout", TIMERS),
    ("setInterval", TIMERS),
    ("setImmediate", TIMERS),
    ("queueMicrotask", TIMERS),
    ("require", MODULES),
    ("import", MODULES),
    ("process", PROCESS),
    ("Deno", RUNTIME),
    ("Bun", RUNTIME),
    ("Worker", RUNTIME),
    ("globalThis", GLOBAL),
    ("window", GLOBAL),
    ("self", GLOBAL),
    ("global", GLOBAL),
];

impl ImpureCode {
    /// Why the pattern is impure: `"network i/o"`, `"dynamic code evaluation"`, `"timers"`,
    /// `"module loading"`, `"process access"`, `"runtime access"` or `"global object access"`.
    pub fn reason(&self) -> &'static str {
        match self.pattern {
            "new Function" => EVAL,
            "import()" | "import.meta" => MODULES,
            pattern => FORBIDDEN
                .iter()
                .find(|(name, _)| *name == pattern)
                .map_or("impure operation", |(_, reason)| reason),
        }
    }
}

impl fmt::Display for ImpureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "code reaches `{}` ({}) at byte {}, so it is not pure",
            self.pattern,
            self.reason(),
            self.offset
        )
    }
}

impl std::error::Error for ImpureCode {}

/// Validate the source text of a pure code task: `Err` names the first forbidden reach.
///
/// Forbidden are references to `fetch`, `XMLHttpRequest`, `WebSocket`, `eval`, `Function`
/// (reported as `new Function` after `new`), `setTimeout`, `setInterval`, `setImmediate`,
/// `queueMicrotask`, `require`, `import(..)`, `import.meta`, `process`, `Deno`, `Bun`, `Worker`,
/// `globalThis`, `window`, `self` and `global`.
///
/// ```
/// use pml_pure_ops::validate_pure_code;
/// assert!(validate_pure_code("const s = 'fetch(x)'; // fetch(y)\nxs.map(x => x.fetch)").is_ok());
/// let err = validate_pure_code("const r = `${fetch(u)}`").unwrap_err();
/// assert_eq!((err.pattern, err.offset), ("fetch", 13));
/// ```
pub fn validate_pure_code(code: &str) -> Result<(), ImpureCode> {
    if !may_be_impure(code.as_bytes()) {
        return Ok(());
    }
    Scanner::new(code).run()
}

/// A cheap over-approximation run first: every report names a word of [`FORBIDDEN`], written
/// either as a plain ASCII word or with `\u` escapes. Text with neither cannot be reported, and
/// most code is like that, so the full lexer only runs on the rest (a builder validates
/// thousands of code tasks per program).
fn may_be_impure(code: &[u8]) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let mut i = 0;
    while i < code.len() {
        let b = code[i];
        if word(b) {
            let start = i;
            while i < code.len() && word(code[i]) {
                i += 1;
            }
            let w = &code[start..i];
            if FORBIDDEN.iter().any(|(name, _)| name.as_bytes() == w) {
                return true;
            }
            continue;
        }
        if b == b'\\' && code.get(i + 1) == Some(&b'u') {
            return true;
        }
        i += 1;
    }
    false
}

/// What the previous significant token was; decides how `/`, `{` and names that follow read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Start of input.
    Start,
    /// Something that ends an operand: a name, literal, `)`, `]`, `}` of an expression, `++`.
    Value,
    /// `.`, `?.`: a property name follows.
    Dot,
    /// `{` (or `${` when `template` holds).
    OpenBrace { template: bool },
    /// `(`.
    OpenParen,
    /// `,`.
    Comma,
    /// `=>`.
    Arrow,
    /// Any other punctuator, including `[`, `=`, `:`, `?`, `...`.
    Operator,
    /// `;`, the `}` of a block, the `)` of `if (..)` and friends.
    StatementEnd,
    /// The keyword `new`.
    New,
    /// A keyword after which an expression starts: `return`, `typeof`, `in`, `case`, ...
    ExprKeyword,
    /// A keyword after which a block starts: `do`, `else`, `try`, `finally`.
    BlockKeyword,
    /// `if`, `while`, `for`, `with`, `switch`, `catch`: a `(` follows.
    ControlKeyword,
}

impl Prev {
    /// Whether a `/` after this token starts a regular expression (else it is division).
    fn regex_may_follow(self) -> bool {
        !matches!(self, Prev::Value | Prev::Dot | Prev::ControlKeyword)
    }

    /// Whether a `{` after this token opens an object literal (else a block).
    fn brace_is_expression(self) -> bool {
        matches!(
            self,
            Prev::OpenBrace { template: true }
                | Prev::OpenParen
                | Prev::Comma
                | Prev::Operator
                | Prev::New
                | Prev::ExprKeyword
        )
    }

    /// Whether a name after this token followed by `:` is a key or parameter, not a reference.
    fn key_may_follow(self) -> bool {
        matches!(
            self,
            Prev::OpenBrace { template: false } | Prev::OpenParen | Prev::Comma
        )
    }
}

/// A bracket that is open at the current position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `(`; `control` when it follows `if`, `while`, `for`, ...
    Paren {
        control: bool,
    },
    Bracket,
    /// `{`; `expression` when it opened an object literal.
    Brace {
        expression: bool,
    },
    /// `${` inside a template literal: its `}` resumes the template text.
    Template,
}

struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    prev: Prev,
    prev_start: usize,
    open: Vec<Open>,
}

impl<'a> Scanner<'a> {
    fn new(src: &'a str) -> Self {
        Scanner {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            prev: Prev::Start,
            prev_start: 0,
            // Code tasks rarely nest deeper: one allocation, no regrowth.
            open: Vec::with_capacity(16),
        }
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.src.get(i..)?.chars().next()
    }

    fn set(&mut self, prev: Prev, start: usize) {
        self.prev = prev;
        self.prev_start = start;
    }

    fn run(mut self) -> Result<(), ImpureCode> {
        if self.bytes.starts_with(b"#!") {
            self.pos = self.line_end(2);
        }
        loop {
            self.pos = self.trivia_end(self.pos);
            let start = self.pos;
            let Some(b) = self.byte(start) else {
                return Ok(());
            };
            match b {
                b'"' | b'\'' => {
                    self.skip_string(b);
                    self.set(Prev::Value, start);
                }
                b'`' => {
                    self.pos += 1;
                    self.prev_start = start;
                    self.template_text();
                }
                b'/' if self.prev.regex_may_follow() => {
                    self.skip_regex();
                    self.set(Prev::Value, start);
                }
                b'0'..=b'9' => self.number(start),
                b'.' if self.byte(start + 1).is_some_and(|b| b.is_ascii_digit()) => {
                    self.number(start)
                }
                b'.' if self.bytes.get(start..start + 3) == Some(b"...") => {
                    self.pos += 3;
                    self.set(Prev::Operator, start);
                }
                b'.' => {
                    self.pos += 1;
                    self.set(Prev::Dot, start);
                }
                b'?' if self.byte(start + 1) == Some(b'.')
                    && !self.byte(start + 2).is_some_and(|b| b.is_ascii_digit()) =>
                {
                    self.pos += 2;
                    self.set(Prev::Dot, start);
                }
                b'#' if self.identifier_start_at(start + 1) => {
                    // A private name, `#x`: never a global reference.
                    self.pos = self.identifier_end(start + 1);
                    self.set(Prev::Value, start);
                }
                b'(' => {
                    let control = self.prev == Prev::ControlKeyword;
                    self.open.push(Open::Paren { control });
                    self.pos += 1;
                    self.set(Prev::OpenParen, start);
                }
                b')' => {
                    self.pos += 1;
                    let control = match self.open.last() {
                        Some(&Open::Paren { control }) => {
                            self.open.pop();
                            control
                        }
                        _ => false,
                    };
                    let prev = if control {
                        Prev::StatementEnd
                    } else {
                        Prev::Value
                    };
                    self.set(prev, start);
                }
                b'[' => {
                    self.open.push(Open::Bracket);
                    self.pos += 1;
                    self.set(Prev::Operator, start);
                }
                b']' => {
                    if self.open.last() == Some(&Open::Bracket) {
                        self.open.pop();
                    }
                    self.pos += 1;
                    self.set(Prev::Value, start);
                }
                b'{' => {
                    let expression = self.prev.brace_is_expression();
                    self.open.push(Open::Brace { expression });
                    self.pos += 1;
                    self.set(Prev::OpenBrace { template: false }, start);
                }
                b'}' => {
                    self.pos += 1;
                    match self.open.last().copied() {
                        Some(Open::Template) => {
                            self.open.pop();
                            self.prev_start = start;
                            self.template_text();
                        }
                        Some(Open::Brace { expression }) => {
                            self.open.pop();
                            let prev = if expression {
                                Prev::Value
                            } else {
                                Prev::StatementEnd
                            };
                            self.set(prev, start);
                        }
                        _ => self.set(Prev::StatementEnd, start),
                    }
                }
                b';' => {
                    self.pos += 1;
                    self.set(Prev::StatementEnd, start);
                }
                b',' => {
                    self.pos += 1;
                    self.set(Prev::Comma, start);
                }
                b'=' if self.byte(start + 1) == Some(b'>') => {
                    self.pos += 2;
                    self.set(Prev::Arrow, start);
                }
                b'+' | b'-' if self.byte(start + 1) == Some(b) => {
                    // `++` and `--`: treated as ending an operand (`i++ / 2`).
                    self.pos += 2;
                    self.set(Prev::Value, start);
                }
                _ if self.identifier_start_at(start) => self.identifier(start)?,
                _ => {
                    // Any other punctuator (or a stray byte): one byte at a time.
                    self.pos += 1;
                    self.set(Prev::Operator, start);
                }
            }
        }
    }

    /// The first position at or after `i` that is not whitespace or a comment.
    fn trivia_end(&self, mut i: usize) -> usize {
        loop {
            match self.byte(i) {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => i += 1,
                Some(b'/') if self.byte(i + 1) == Some(b'/') => i = self.line_end(i + 2),
                Some(b'/') if self.byte(i + 1) == Some(b'*') => {
                    i = match self.bytes.get(i + 2..) {
                        Some(rest) => rest
                            .windows(2)
                            .position(|w| w == b"*/")
                            .map_or(self.bytes.len(), |p| i + 2 + p + 2),
                        None => self.bytes.len(),
                    };
                }
                Some(b) if b >= 0x80 => match self.char_at(i) {
                    Some(c) if is_space(c) => i += c.len_utf8(),
                    _ => return i,
                },
                _ => return i,
            }
        }
    }

    /// Whether a line terminator (`\n`, `\r`, U+2028, U+2029) starts at `i`.
    fn line_terminator_at(&self, i: usize) -> bool {
        match self.byte(i) {
            Some(b'\n' | b'\r') => true,
            Some(0xE2) => matches!(
                self.bytes.get(i + 1..i + 3),
                Some([0x80, 0xA8]) | Some([0x80, 0xA9])
            ),
            _ => false,
        }
    }

    /// The position of the line terminator at or after `i`, or the end of input.
    fn line_end(&self, mut i: usize) -> usize {
        while i < self.bytes.len() && !self.line_terminator_at(i) {
            i += 1;
        }
        i.min(self.bytes.len())
    }

    /// Skip a `'..'` or `".."` literal starting at `self.pos`; an unterminated one ends at the
    /// end of its line.
    fn skip_string(&mut self, quote: u8) {
        let mut i = self.pos + 1;
        loop {
            match self.byte(i) {
                None => break,
                Some(b) if b == quote => {
                    i += 1;
                    break;
                }
                Some(b'\n' | b'\r') => break,
                Some(b'\\') => {
                    // The escaped character; `\` CR LF is one line continuation.
                    i += if self.bytes.get(i + 1..i + 3) == Some(b"\r\n") {
                        3
                    } else {
                        2
                    };
                }
                Some(_) => i += 1,
            }
        }
        self.pos = i.min(self.bytes.len());
    }

    /// Skip template text from `self.pos` (just after `` ` `` or an interpolation's `}`) up to
    /// the closing backtick or the next `${`, which opens an interpolation to scan as code.
    fn template_text(&mut self) {
        let mut i = self.pos;
        loop {
            match self.byte(i) {
                None => {
                    self.prev = Prev::Value;
                    break;
                }
                Some(b'\\') => i += 2,
                Some(b'`') => {
                    i += 1;
                    self.prev = Prev::Value;
                    break;
                }
                Some(b'$') if self.byte(i + 1) == Some(b'{') => {
                    i += 2;
                    self.open.push(Open::Template);
                    self.prev = Prev::OpenBrace { template: true };
                    break;
                }
                Some(_) => i += 1,
            }
        }
        self.pos = i.min(self.bytes.len());
    }

    /// Skip a regular-expression literal (body, classes, escapes, flags) starting at
    /// `self.pos`; an unterminated one ends at the end of its line.
    fn skip_regex(&mut self) {
        let mut i = self.pos + 1;
        let mut class = false;
        loop {
            if self.line_terminator_at(i) {
                break;
            }
            match self.byte(i) {
                None => break,
                Some(b'\\') => {
                    i += 1;
                    if i < self.bytes.len() && !self.line_terminator_at(i) {
                        i += 1;
                    }
                }
                Some(b'[') => {
                    class = true;
                    i += 1;
                }
                Some(b']') => {
                    class = false;
                    i += 1;
                }
                Some(b'/') if !class => {
                    i = self.identifier_end(i + 1);
                    break;
                }
                Some(_) => i += 1,
            }
        }
        self.pos = i.min(self.bytes.len());
    }

    /// A numeric literal: digits, letters, `_` and `.` (`0x1F`, `1e3`, `1_000n`, `.5`).
    fn number(&mut self, start: usize) {
        let mut i = start;
        while self
            .byte(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            i += 1;
        }
        self.pos = i.max(start + 1);
        self.set(Prev::Value, start);
    }

    fn identifier_start_at(&self, i: usize) -> bool {
        match self.byte(i) {
            Some(b) if b.is_ascii_alphabetic() || b == b'$' || b == b'_' || b == b'\\' => true,
            Some(b) if b >= 0x80 => self.char_at(i).is_some_and(|c| !is_space(c)),
            _ => false,
        }
    }

    /// The end of the identifier (or regex flags) starting at `i`; `i` if there is none.
    /// Non-ASCII characters other than whitespace count as identifier characters, and unicode
    /// escapes (`\u0066`, `\u{66}`) are part of the identifier.
    fn identifier_end(&self, mut i: usize) -> usize {
        loop {
            match self.byte(i) {
                Some(b) if b.is_ascii_alphanumeric() || b == b'$' || b == b'_' => i += 1,
                Some(b'\\') => {
                    i += 1;
                    if self.byte(i) == Some(b'u') {
                        i += 1;
                        if self.byte(i) == Some(b'{') {
                            i += 1;
                            while self.byte(i).is_some_and(|b| b.is_ascii_hexdigit()) {
                                i += 1;
                            }
                            if self.byte(i) == Some(b'}') {
                                i += 1;
                            }
                        }
                    }
                }
                Some(b) if b >= 0x80 => match self.char_at(i) {
                    Some(c) if !is_space(c) => i += c.len_utf8(),
                    _ => return i,
                },
                _ => return i,
            }
        }
    }

    fn identifier(&mut self, start: usize) -> Result<(), ImpureCode> {
        let end = self.identifier_end(start).max(start + 1);
        self.pos = end;
        if self.prev == Prev::Dot {
            self.set(Prev::Value, start);
            return Ok(());
        }
        let raw = self.src.get(start..end).unwrap_or("");
        let kind = match raw {
            "new" => Prev::New,
            "return" | "typeof" | "instanceof" | "in" | "of" | "delete" | "void" | "throw"
            | "case" | "yield" | "await" => Prev::ExprKeyword,
            "do" | "else" | "try" | "finally" => Prev::BlockKeyword,
            "if" | "while" | "for" | "with" | "switch" | "catch" => Prev::ControlKeyword,
            _ => {
                if let Some(name) = forbidden_name(raw) {
                    if let Some(found) = self.reference(name, start, end) {
                        return Err(found);
                    }
                }
                Prev::Value
            }
        };
        self.set(kind, start);
        Ok(())
    }

    /// The report for the forbidden `name` at `start..end`, unless it is a key or parameter.
    fn reference(&self, name: &'static str, start: usize, end: usize) -> Option<ImpureCode> {
        let next = self.trivia_end(end);
        if self.prev.key_may_follow() {
            match self.byte(next) {
                Some(b':') => return None,
                Some(b'?') if self.byte(self.trivia_end(next + 1)) == Some(b':') => return None,
                _ => {}
            }
        }
        let (pattern, offset) = match name {
            "Function" if self.prev == Prev::New => ("new Function", self.prev_start),
            "import" => match self.byte(next) {
                Some(b'(') => ("import()", start),
                Some(b'.') => ("import.meta", start),
                _ => ("import", start),
            },
            _ => (name, start),
        };
        Some(ImpureCode { pattern, offset })
    }
}

/// JavaScript whitespace and line terminators outside ASCII (and inside it).
fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{FEFF}'
}

/// The forbidden name `raw` spells, decoding unicode escapes (`f\u0065tch` is `fetch`).
fn forbidden_name(raw: &str) -> Option<&'static str> {
    let find = |name: &str| {
        FORBIDDEN
            .iter()
            .find(|(forbidden, _)| *forbidden == name)
            .map(|(forbidden, _)| *forbidden)
    };
    if raw.contains('\\') {
        find(&decode_escapes(raw)?)
    } else {
        find(raw)
    }
}

/// Decode `\uXXXX` and `\u{X..}` escapes in an identifier; `None` if one is malformed.
fn decode_escapes(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = rest[at..].strip_prefix("\\u")?;
        let (hex, tail) = match escape.strip_prefix('{') {
            Some(braced) => {
                let close = braced.find('}')?;
                (&braced[..close], &braced[close + 1..])
            }
            None => (escape.get(..4)?, escape.get(4..)?),
        };
        if hex.is_empty() || hex.len() > 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
        rest = tail;
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Code-like text over the tokens the lexer treats specially, forbidden names included.
    fn code_text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "fetch",
            "eval",
            "Function",
            "new ",
            "import",
            "(",
            ")",
            ".",
            "meta",
            "process",
            "x",
            "xfetch",
            "fetch2",
            "\\u0066etch",
            "\\u{66}",
            "'",
            "\"",
            "`",
            "${",
            "}",
            "{",
            "/",
            "//",
            "/*",
            "*/",
            "\n",
            " ",
            "=",
            ":",
            "#",
            "é",
            "Deno",
            "Bun",
            "self",
            "$",
            "_",
        ]);
        prop::collection::vec(piece, 0..40).prop_map(|ps| ps.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The pre-filter only ever skips text the full lexer passes.
        #[test]
        fn the_prefilter_never_hides_a_report(code in code_text()) {
            prop_assert_eq!(validate_pure_code(&code), Scanner::new(&code).run());
        }
    }

    /// `expected` is `None` for pure code, else the pattern and byte offset reported.
    #[track_caller]
    fn check(code: &str, expected: Option<(&str, usize)>) {
        let actual = validate_pure_code(code).err();
        assert_eq!(
            actual.as_ref().map(|e| (e.pattern, e.offset)),
            expected,
            "code: {code:?}, report: {actual:?}"
        );
    }

    #[track_caller]
    fn pure(code: &str) {
        check(code, None);
    }

    #[track_caller]
    fn impure(code: &str, pattern: &str, offset: usize) {
        check(code, Some((pattern, offset)));
    }

    #[test]
    fn plain_pure_code_passes() {
        pure("");
        pure("const ys = xs.filter(x => x.score > 2).map(x => x.name); return ys.join(', ');");
        pure("const { a, b: [c] } = JSON.parse(s); return Object.keys(a).length + c;");
        pure("let n = 0; for (const x of xs) { if (x % 2 === 0) n += x; } return n;");
    }

    #[test]
    fn direct_call_is_flagged_at_its_offset() {
        impure("fetch(url)", "fetch", 0);
        impure("const r = await fetch(url);", "fetch", 16);
        impure("x(); fetch(url)", "fetch", 5);
    }

    #[test]
    fn first_reach_wins() {
        impure("setTimeout(f); fetch(u); eval(s)", "setTimeout", 0);
        impure("a; eval(s); fetch(u)", "eval", 3);
    }

    #[test]
    fn every_forbidden_name_is_flagged() {
        for (name, reason) in FORBIDDEN {
            let code = format!("x = {name}");
            let err = validate_pure_code(&code).unwrap_err();
            assert_eq!((err.pattern, err.offset, err.reason()), (name, 4, reason));
        }
    }

    #[test]
    fn strings_and_comments_are_skipped() {
        pure("const s = 'fetch(url)';");
        pure(r#"const s = "eval(x) \" fetch(y) \\";"#);
        pure(r"const s = 'it\'s fetch';");
        pure("// fetch(url)\nreturn 1;");
        pure("/* fetch(url)\n process.exit() */ return 1;");
        pure("/** @see require */ x");
    }

    #[test]
    fn code_after_strings_and_comments_is_scanned() {
        impure(r#"const s = "a\\"; fetch(u)"#, "fetch", 17);
        impure("/* a */ fetch(u)", "fetch", 8);
        impure("// a\nfetch(u)", "fetch", 5);
        impure("'a'\nprocess", "process", 4);
    }

    #[test]
    fn line_continuation_keeps_the_string_open() {
        pure("const s = 'a\\\nfetch(u)';");
        pure("const s = 'a\\\r\nfetch(u)';");
    }

    #[test]
    fn unicode_line_terminators_end_line_comments() {
        impure("// a\u{2028}fetch(u)", "fetch", 7);
        impure("// a\u{2029}fetch(u)", "fetch", 7);
        impure("// a\rfetch(u)", "fetch", 5);
    }

    #[test]
    fn unicode_whitespace_separates_tokens() {
        impure("x =\u{A0}fetch(u)", "fetch", 5);
        impure("\u{FEFF}eval(s)", "eval", 3);
        impure("x\u{3000}=\u{3000}process", "process", 8);
    }

    #[test]
    fn non_ascii_identifiers_are_whole_names() {
        pure("const éfetch = 1; const fetché = 2; const ｆetch = 3;");
        impure("const é = 1; fetch(u)", "fetch", 14);
    }

    #[test]
    fn escaped_identifiers_are_decoded() {
        impure("\\u0066etch(u)", "fetch", 0);
        impure("x = f\\u{65}tch", "fetch", 4);
        impure("x = \\u{65}val", "eval", 4);
        pure("x = \\u{zz}etch; y = \\u00");
    }

    #[test]
    fn property_names_are_fine() {
        pure("x.fetch()");
        pure("x?.fetch()");
        pure("x . \n process");
        pure("x./* c */eval(1)");
        pure("opts.self.window.globalThis.require.Deno.Bun");
        pure("a.import(1); a.Function(2); a.new.Function");
    }

    #[test]
    fn computed_members_and_optional_calls_are_references() {
        impure("a?.[fetch]", "fetch", 4);
        impure("a[process]", "process", 2);
        impure("fetch?.(u)", "fetch", 0);
    }

    #[test]
    fn private_names_are_fine() {
        pure("class A { #fetch = 1; m() { return this.#fetch + #process in this; } }");
    }

    #[test]
    fn object_keys_are_fine() {
        pure("const o = { process: 1, fetch: 2, 'eval': 3 };");
        pure("f({ a, self: 1 })");
        pure("const o = { window ?: 1 }");
    }

    #[test]
    fn typescript_parameters_are_fine() {
        pure("const f = (self: Node, process?: number) => 1;");
    }

    #[test]
    fn values_and_shorthand_are_references() {
        impure("const o = { a: fetch };", "fetch", 15);
        impure("const o = { fetch };", "fetch", 12);
        impure("const o = { a, process };", "process", 15);
        impure("const o = { ...globalThis };", "globalThis", 15);
    }

    #[test]
    fn conditional_branches_are_references() {
        impure("const f = ok ? fetch : g;", "fetch", 15);
        impure("switch (x) { case process: break; }", "process", 18);
    }

    #[test]
    fn typeof_is_still_a_reference() {
        impure("typeof fetch === 'function'", "fetch", 7);
    }

    #[test]
    fn template_text_is_skipped() {
        pure("const s = `fetch(${x}) and eval`;");
        pure("const s = `\\${fetch(u)}`;");
        pure("const s = `${`${a}`}process`;");
    }

    #[test]
    fn template_interpolations_are_scanned() {
        impure("const s = `a ${fetch(1)} b`;", "fetch", 15);
        impure("`${a}${eval(s)}`", "eval", 7);
        impure("`${ {a: 1}.a }${process}`", "process", 16);
    }

    #[test]
    fn nested_template_interpolations_are_scanned() {
        impure("`a${ `b${ `c${ require('fs') }` }` }`", "require", 15);
        impure("`${ f({ a: `${1}` }) }`; fetch(u)", "fetch", 25);
    }

    #[test]
    fn braces_inside_interpolations_do_not_close_them() {
        impure("`${ (() => { return 1; })() } ${self}`", "self", 32);
        pure("`${ { a: 1 }.a } self`");
    }

    #[test]
    fn new_function_is_reported_from_new() {
        impure("new Function(\"x\")", "new Function", 0);
        impure(
            "const f = new  /* c */ Function('a', 'return a')",
            "new Function",
            10,
        );
    }

    #[test]
    fn bare_function_is_reported() {
        impure("Function('return 1')()", "Function", 0);
        impure("const F = Function;", "Function", 10);
    }

    #[test]
    fn imports_are_reported_by_form() {
        impure("import(\"fs\")", "import()", 0);
        impure("const m = await import ('fs')", "import()", 16);
        impure("const u = import.meta.url", "import.meta", 10);
        impure("import fs from 'fs'", "import", 0);
        pure("const o = { import: 1 }; o.import");
    }

    #[test]
    fn division_is_not_a_regex() {
        impure("a / fetch / b", "fetch", 4);
        impure("f(x) / fetch / 2", "fetch", 7);
        impure("xs[0] / eval / 2", "eval", 8);
        impure("1 / process / 2", "process", 4);
        impure("i++ / fetch / 2", "fetch", 6);
        impure("({}) / fetch / 2", "fetch", 7);
        impure("x = {} / fetch / 2", "fetch", 9);
        impure("x.return / fetch / 2", "fetch", 11);
    }

    #[test]
    fn regex_literals_are_skipped() {
        pure("/fetch/.test(s)");
        pure("s.replace(/eval\\/process/g, '')");
        pure("const r = /[/]fetch/;");
        pure("return /process/.test(s)");
        pure("if (x) /fetch/.test(s)");
        pure("xs.some(x => /self/i.test(x))");
        pure("{}\n/fetch/.test(s)");
        pure("a = b ? /fetch/ : /eval/");
        pure("x = typeof /window/");
    }

    #[test]
    fn code_after_a_regex_is_scanned() {
        impure("/a/g.test(s) && fetch(u)", "fetch", 16);
        impure("const r = /[/]/; eval(s)", "eval", 17);
    }

    #[test]
    fn unterminated_literals_end_at_the_line() {
        impure("const s = 'abc\nfetch(u)", "fetch", 15);
        impure("const r = /abc\nfetch(u)", "fetch", 15);
        pure("const s = 'fetch");
        pure("/* fetch");
        pure("`${x} fetch");
        impure("`${fetch", "fetch", 3);
    }

    #[test]
    fn hashbang_is_a_comment() {
        pure("#!/usr/bin/env -S deno run fetch\nreturn 1");
        impure("#!x\nprocess", "process", 4);
    }

    #[test]
    fn numbers_are_values() {
        pure("x = .5 + 1e3 + 0x1F + 1_000n + 1..toString()");
        impure("x = 2 / fetch / 1", "fetch", 8);
        impure("x = a?.5:fetch", "fetch", 9);
    }

    #[test]
    fn display_names_pattern_reason_and_offset() {
        let err = validate_pure_code("let r = fetch(u)").unwrap_err();
        assert_eq!(
            err.to_string(),
            "code reaches `fetch` (network i/o) at byte 8, so it is not pure"
        );
        let err = validate_pure_code("new Function('')").unwrap_err();
        assert_eq!(
            err.to_string(),
            "code reaches `new Function` (dynamic code evaluation) at byte 0, so it is not pure"
        );
    }

    #[test]
    fn reasons_cover_every_pattern() {
        let reason = |pattern| ImpureCode { pattern, offset: 0 }.reason();
        assert_eq!(reason("fetch"), "network i/o");
        assert_eq!(reason("eval"), "dynamic code evaluation");
        assert_eq!(reason("new Function"), "dynamic code evaluation");
        assert_eq!(reason("setTimeout"), "timers");
        assert_eq!(reason("queueMicrotask"), "timers");
        assert_eq!(reason("import()"), "module loading");
        assert_eq!(reason("import.meta"), "module loading");
        assert_eq!(reason("require"), "module loading");
        assert_eq!(reason("process"), "process access");
        assert_eq!(reason("Deno"), "runtime access");
        assert_eq!(reason("globalThis"), "global object access");
        assert_eq!(reason("something else"), "impure operation");
    }

    #[test]
    fn decode_escapes_rejects_malformed_escapes() {
        assert_eq!(decode_escapes("f\\u0065tch").as_deref(), Some("fetch"));
        assert_eq!(decode_escapes("\\u{66}\\u{65}").as_deref(), Some("fe"));
        assert_eq!(decode_escapes("\\x66"), None);
        assert_eq!(decode_escapes("\\u00"), None);
        assert_eq!(decode_escapes("\\u{}"), None);
        assert_eq!(decode_escapes("\\u{110000}"), None);
        assert_eq!(decode_escapes("\\uD800"), None);
        assert_eq!(decode_escapes("\\u{1234567}"), None);
    }
}
