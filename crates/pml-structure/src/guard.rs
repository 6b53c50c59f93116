//! The pre-parse safety scan: inputs SWC's parser must not see, because they would exhaust its
//! stack or its time. Two passes over the bytes, each a table lookup per byte: brackets (nesting
//! depth and, for TypeScript, `<` nested in brackets) and operators (outside strings and
//! comments). It runs on every build, so it is written for speed; `tests` below keep the plain
//! one-rule-per-pass versions as the oracle it must agree with.

use crate::parse::Dialect;

/// Deepest bracket nesting accepted. SWC's parser recurses per level; this bound and the stack
/// size of the worker thread (`STACK_SIZE` in lib.rs) are chosen together (see
/// `tests/it/hostile.rs`).
pub const MAX_NESTING: usize = 100_000;

/// Most operators and control keywords accepted outside strings and comments. Prefix
/// operators, `?:`, `if`, `await` and assignment chains nest without brackets, and SWC's parser
/// recurses once per level (2,000,000 nested `a ?` used 4 GiB of stack). Each of these tokens
/// can open at most one level, so bounding their number bounds the depth: 1,000,000 of them at
/// ~2 KiB of stack per level stays inside the worker's 4 GiB. Real agent programs are far below
/// (the 1.4 MB benchmark program has ~140,000).
pub const MAX_OPERATORS: usize = 1_000_000;

/// How many nested bracket levels may each contain a `<` (TypeScript only). SWC's TypeScript
/// parser tries a type assertion / generic arrow and backtracks at every such level: time grows
/// ~2.2x per level (`(<a>` x 24 took 10 s), and more for some shapes (a fuzzed 174-byte input
/// of 11 levels of `x=f<(` took 1.2 s in a release build). At 8 the worst seen is ~0.1 s. Real
/// agent code stays far below this.
pub const MAX_ANGLE_NESTING: usize = 8;

/// Inputs the parser must not see: where (byte offset), and why. Checked in this order: bracket
/// depth, operator count, `<` nesting (TypeScript).
///
/// A pass runs only if its rule can be broken: every bracket and every counted operator takes at
/// least one byte, so text no longer than a limit cannot pass it (most programs skip the operator
/// pass; JavaScript under 100 KB skips both).
pub(crate) fn refuse(code: &str, dialect: Dialect) -> Option<(usize, String)> {
    refusal(bracket_pass(code, dialect), operator_pass(code))
}

/// The bracket rules (depth; `<` nesting for TypeScript), when the text can break them.
pub(crate) fn bracket_pass(code: &str, dialect: Dialect) -> Brackets {
    let angles = dialect == Dialect::TypeScript;
    if code.len() <= MAX_NESTING && !angles {
        return Brackets {
            too_deep: None,
            angles_too_deep: None,
        };
    }
    brackets(
        code.as_bytes(),
        MAX_NESTING,
        angles.then_some(MAX_ANGLE_NESTING),
    )
}

/// The bracket pass over a part of a text that is scanned in parts (each half on its own
/// thread, see `build_in_two` in lib.rs). `after`: parts come before this one, whose top level
/// may have held a `<` already (assumed so: the part's verdict then over-counts, never
/// under-counts). `checked`: whether the whole text has bracket rules at all (as
/// [`bracket_pass`] decides for the whole; a part does not skip the pass on its own length).
pub(crate) fn bracket_part(part: &str, dialect: Dialect, after: bool, checked: bool) -> PartScan {
    if !checked {
        return PartScan {
            brackets: Brackets {
                too_deep: None,
                angles_too_deep: None,
            },
            closed: true,
        };
    }
    let angles = (dialect == Dialect::TypeScript).then_some(MAX_ANGLE_NESTING);
    let (brackets, closed) = brackets_from(part.as_bytes(), MAX_NESTING, angles, after);
    PartScan { brackets, closed }
}

/// Whether the bracket rules apply to `code` at all (see [`bracket_pass`]).
pub(crate) fn has_bracket_rules(code: &str, dialect: Dialect) -> bool {
    code.len() > MAX_NESTING || dialect == Dialect::TypeScript
}

/// What [`bracket_part`] found in a part.
#[derive(Debug)]
pub(crate) struct PartScan {
    brackets: Brackets,
    /// Every bracket the part opens it closes (extra closers aside): the pass of the next part,
    /// started afresh, goes on exactly as one pass over both would.
    pub(crate) closed: bool,
}

impl PartScan {
    /// No rule broken in the part (scanned on its own).
    pub(crate) fn passed(&self) -> bool {
        self.brackets.too_deep.is_none() && self.brackets.angles_too_deep.is_none()
    }
}

/// The operator rule, when the text can break it: where the count passes the limit.
pub(crate) fn operator_pass(code: &str) -> Option<usize> {
    match code.len() > MAX_OPERATORS {
        true => operators_over(code.as_bytes(), MAX_OPERATORS),
        false => None,
    }
}

/// The first rule broken, by priority, with its message. The passes are independent (the
/// builder runs them on two threads for large inputs).
pub(crate) fn refusal(brackets: Brackets, operators: Option<usize>) -> Option<(usize, String)> {
    if let Some((depth, offset)) = brackets.too_deep {
        return Some((
            offset,
            format!("brackets nest deeper than {MAX_NESTING} levels (reached {depth}); refusing to analyse"),
        ));
    }
    if let Some(offset) = operators {
        return Some((
            offset,
            format!(
                "more than {MAX_OPERATORS} operators and control keywords; refusing to analyse (they may nest beyond what the parser's stack holds)"
            ),
        ));
    }
    if let Some(offset) = brackets.angles_too_deep {
        return Some((
            offset,
            format!(
                "`<` (type assertions, generic calls) nested in more than {MAX_ANGLE_NESTING} levels of brackets; the TypeScript parser backtracks exponentially on these, refusing to analyse"
            ),
        ));
    }
    None
}

/// What the bracket pass found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Brackets {
    /// The depth reached and where, the first time nesting exceeds the maximum.
    too_deep: Option<(usize, usize)>,
    /// The first `<` inside more than the maximum of enclosing brackets that each hold a `<`.
    angles_too_deep: Option<usize>,
}

const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const ANGLE: u8 = 3;

static BRACKET_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'(' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'{' as usize] = OPEN;
    t[b')' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b'}' as usize] = CLOSE;
    t[b'<' as usize] = ANGLE;
    t
};

/// One pass over all bytes (brackets in strings count too: a cheap over-approximation). Stops at
/// the first nesting past `max_depth`; `<` nesting is tracked only with `max_angle`.
fn brackets(code: &[u8], max_depth: usize, max_angle: Option<usize>) -> Brackets {
    brackets_from(code, max_depth, max_angle, false).0
}

/// [`brackets`], the top level holding a `<` already with `top_level`; and whether the pass
/// ended with no bracket open (not known, `false`, when it stopped early).
fn brackets_from(
    code: &[u8],
    max_depth: usize,
    max_angle: Option<usize>,
    mut top_level: bool,
) -> (Brackets, bool) {
    // Per open bracket: does its level contain a `<`? And how many of those are open.
    let mut frames: Vec<bool> = Vec::new();
    let track_angles = max_angle.is_some();
    let mut flagged = usize::from(top_level && track_angles);
    let mut angles_too_deep = None;
    let max_angle = max_angle.unwrap_or(usize::MAX);
    for (i, &b) in code.iter().enumerate() {
        match BRACKET_CLASS[b as usize] {
            0 => {}
            OPEN => {
                frames.push(false);
                if frames.len() > max_depth {
                    let brackets = Brackets {
                        too_deep: Some((frames.len(), i)),
                        angles_too_deep,
                    };
                    return (brackets, false);
                }
            }
            CLOSE if frames.pop() == Some(true) => flagged -= 1,
            CLOSE => {}
            _ if track_angles && angles_too_deep.is_none() => {
                let slot = frames.last_mut().unwrap_or(&mut top_level);
                if !*slot {
                    *slot = true;
                    flagged += 1;
                    if flagged > max_angle {
                        angles_too_deep = Some(i);
                    }
                }
            }
            _ => {}
        }
    }
    let brackets = Brackets {
        too_deep: None,
        angles_too_deep,
    };
    (brackets, frames.is_empty())
}

const OP: u8 = 1;
const QUOTE: u8 = 2;
const BACKTICK: u8 = 3;
const SLASH: u8 = 4;
const LOWER: u8 = 5;
const LBRACE: u8 = 6;
const RBRACE: u8 = 7;

static OPERATOR_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let ops = b"?!~=:+-*%<>&|^";
    let mut k = 0;
    while k < ops.len() {
        t[ops[k] as usize] = OP;
        k += 1;
    }
    t[b'\'' as usize] = QUOTE;
    t[b'"' as usize] = QUOTE;
    t[b'`' as usize] = BACKTICK;
    t[b'/' as usize] = SLASH;
    t[b'{' as usize] = LBRACE;
    t[b'}' as usize] = RBRACE;
    let mut c = b'a';
    while c <= b'z' {
        t[c as usize] = LOWER;
        c += 1;
    }
    t
};

/// Bytes that continue a word: ASCII letters, digits, `_`, `$`.
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        c += 1;
    }
    t
};

/// Keywords that open a level of nesting without brackets.
fn nesting_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"if"
            | b"else"
            | b"while"
            | b"for"
            | b"do"
            | b"await"
            | b"typeof"
            | b"void"
            | b"delete"
            | b"new"
            | b"yield"
            | b"return"
            | b"throw"
            | b"case"
    )
}

/// Count operator characters and nesting keywords outside string literals and comments; the
/// offset where the count passes `max`, if it does. Template literals count their `${...}`.
fn operators_over(b: &[u8], max: usize) -> Option<usize> {
    let mut count = 0usize;
    // Open template literals: the brace depth at which `}` resumes template text.
    let mut templates: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let mut i = 0;
    while i < b.len() {
        match OPERATOR_CLASS[b[i] as usize] {
            0 => {}
            OP => {
                count += 1;
                if count > max {
                    return Some(i);
                }
            }
            QUOTE => i = string_end(b, i),
            BACKTICK => match template_text(b, i + 1) {
                // Inside `${`: code again until the brace that closes it.
                TemplateEnd::Interpolation(at) => {
                    templates.push(braces);
                    i = at;
                }
                TemplateEnd::Closed(at) => i = at,
            },
            SLASH => match comment_end(b, i) {
                Some(end) => i = end,
                None => {
                    count += 1;
                    if count > max {
                        return Some(i);
                    }
                }
            },
            LBRACE => braces += 1,
            RBRACE => {
                if templates.last() == Some(&braces) {
                    templates.pop();
                    match template_text(b, i + 1) {
                        TemplateEnd::Interpolation(at) => {
                            templates.push(braces);
                            i = at;
                        }
                        TemplateEnd::Closed(at) => i = at,
                    }
                } else {
                    braces = braces.saturating_sub(1);
                }
            }
            _ => {
                // LOWER: a word; only whole words can be keywords.
                let start = i;
                while i < b.len() && WORD[b[i] as usize] {
                    i += 1;
                }
                if nesting_keyword(&b[start..i]) {
                    count += 1;
                    if count > max {
                        return Some(start);
                    }
                }
                continue;
            }
        }
        i += 1;
    }
    None
}

/// The string literal starting at `i` (at its quote): the index of its closing quote, or of the
/// newline or end where an unterminated one stops. The scans step past it.
pub(crate) fn string_end(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut i = i + 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// When a comment starts at `i` (`//` or `/*`): the index of its last byte (a line comment's
/// newline, a block comment's `/`). The scans step past it.
pub(crate) fn comment_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i + 1) {
        Some(b'/') => Some(
            i + b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - i),
        ),
        Some(b'*') => {
            let mut i = i + 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            Some(i + 1)
        }
        _ => None,
    }
}

pub(crate) enum TemplateEnd {
    /// The `{` of a `${`.
    Interpolation(usize),
    /// The closing backtick (or the end of the text).
    Closed(usize),
}

/// Skip template text starting at `i`: to the next `${` or closing backtick.
pub(crate) fn template_text(b: &[u8], mut i: usize) -> TemplateEnd {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'`' => return TemplateEnd::Closed(i),
            b'$' if b.get(i + 1) == Some(&b'{') => return TemplateEnd::Interpolation(i + 1),
            _ => {}
        }
        i += 1;
    }
    TemplateEnd::Closed(b.len())
}

#[cfg(test)]
mod tests {
    //! The scans as first written, one rule per pass: the oracle for the fast ones.
    use super::*;
    use proptest::prelude::*;

    fn nesting_over(code: &[u8], max: usize) -> Option<(usize, usize)> {
        let mut depth: usize = 0;
        for (i, &b) in code.iter().enumerate() {
            match b {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    if depth > max {
                        return Some((depth, i));
                    }
                }
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        None
    }

    fn angle_nesting_over(code: &[u8], max: usize) -> Option<usize> {
        let mut frames: Vec<bool> = Vec::new();
        let mut top_level = false;
        let mut flagged = 0usize;
        for (i, &b) in code.iter().enumerate() {
            match b {
                b'(' | b'[' | b'{' => frames.push(false),
                b')' | b']' | b'}' if frames.pop() == Some(true) => flagged -= 1,
                b'<' => {
                    let slot = frames.last_mut().unwrap_or(&mut top_level);
                    if !*slot {
                        *slot = true;
                        flagged += 1;
                        if flagged > max {
                            return Some(i);
                        }
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn operators_over_simple(b: &[u8], max: usize) -> Option<usize> {
        let mut count = 0usize;
        let mut templates: Vec<usize> = Vec::new();
        let mut braces = 0usize;
        let mut i = 0;
        let mut in_template = false;
        while i < b.len() {
            let c = b[i];
            if in_template {
                match c {
                    b'\\' => i += 1,
                    b'`' => in_template = false,
                    b'$' if b.get(i + 1) == Some(&b'{') => {
                        templates.push(braces);
                        in_template = false;
                        i += 1;
                    }
                    _ => {}
                }
                i += 1;
                continue;
            }
            match c {
                b'\'' | b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != c && b[i] != b'\n' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'`' => in_template = true,
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i += 2;
                    while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                        i += 1;
                    }
                    i += 1;
                }
                b'{' => braces += 1,
                b'}' => {
                    if templates.last() == Some(&braces) {
                        templates.pop();
                        in_template = true;
                    } else {
                        braces = braces.saturating_sub(1);
                    }
                }
                b'?' | b'!' | b'~' | b'=' | b':' | b'+' | b'-' | b'*' | b'/' | b'%' | b'<'
                | b'>' | b'&' | b'|' | b'^' => count += 1,
                b'a'..=b'z' => {
                    let start = i;
                    while i < b.len()
                        && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                    {
                        i += 1;
                    }
                    if nesting_keyword(&b[start..i]) {
                        count += 1;
                    }
                    if count > max {
                        return Some(start);
                    }
                    continue;
                }
                _ => {}
            }
            if count > max {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// Text over the bytes the scans care about, so every rule gets exercised.
    fn source() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            "(", ")", "[", "]", "{", "}", "<", ">", "'", "\"", "`", "${", "\\", "/", "//", "/*",
            "*/", "\n", " ", "if", "xif", "Xif", "await", "a", "!", "?", ":", "=", "é", "$",
        ]);
        prop::collection::vec(piece, 0..200).prop_map(|ps| ps.concat().into_bytes())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn fast_scans_agree_with_the_simple_ones(code in source(), depth in 1usize..6, ops in 1usize..40, angles in 1usize..4) {
            let fast = brackets(&code, depth, Some(angles));
            prop_assert_eq!(fast.too_deep, nesting_over(&code, depth));
            if fast.too_deep.is_none() {
                prop_assert_eq!(fast.angles_too_deep, angle_nesting_over(&code, angles));
            }
            prop_assert_eq!(operators_over(&code, ops), operators_over_simple(&code, ops));
        }

        /// Scanned in two parts at any byte, the text passes only if it passes as a whole, when
        /// the first part closes its brackets (what `build_in_two` trusts), and the first
        /// part's verdict is the whole's for its own bytes; the second part refuses
        /// whatever the whole refuses there.
        #[test]
        fn parts_that_pass_make_a_whole_that_passes(code in source(), cut in 0usize..400, depth in 1usize..6, angles in 1usize..4) {
            let cut = cut.min(code.len());
            let (first, second) = code.split_at(cut);
            let whole = brackets(&code, depth, Some(angles));
            let (a, closed) = brackets_from(first, depth, Some(angles), false);
            let (b, _) = brackets_from(second, depth, Some(angles), true);
            let passed = |x: &Brackets| x.too_deep.is_none() && x.angles_too_deep.is_none();
            if passed(&a) && closed && passed(&b) {
                prop_assert!(passed(&whole), "{:?}", String::from_utf8_lossy(&code));
            }
            // A prefix scanned alone stops where the whole stops, if it stops inside it.
            if let Some((_, at)) = whole.too_deep.filter(|&(_, at)| at < cut) {
                prop_assert_eq!(a.too_deep.map(|(_, at)| at), Some(at));
            }
        }
    }

    #[test]
    fn each_rule_refuses_with_its_message() {
        let deep = "(".repeat(MAX_NESTING + 1);
        let (offset, message) = refuse(&deep, Dialect::JavaScript).unwrap();
        assert_eq!(offset, MAX_NESTING);
        assert!(message.contains("brackets nest deeper"), "{message}");

        let ops = "!".repeat(MAX_OPERATORS + 1);
        let (_, message) = refuse(&ops, Dialect::JavaScript).unwrap();
        assert!(message.contains("operators"), "{message}");

        let angles = "(<a>".repeat(MAX_ANGLE_NESTING + 1);
        let (_, message) = refuse(&angles, Dialect::TypeScript).unwrap();
        assert!(message.contains("`<`"), "{message}");
        assert_eq!(refuse(&angles, Dialect::JavaScript), None);

        assert_eq!(
            refuse("const a = `x${b ? '}' : \"{\"}` + c;", Dialect::TypeScript),
            None
        );
    }
}
