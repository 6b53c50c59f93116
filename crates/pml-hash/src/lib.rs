//! Semantic hash of a static structure, and scope-aware variable-name normalisation.
//!
//! **Input:** a [`StaticStructure`] (from `pml-structure`), or agent code plus the structure's
//! `variableBindings`.
//!
//! **Output:**
//! - [`semantic_hash`]: 64 lowercase hex digits, the SHA-256 of [`canonical_form`] (an error,
//!   [`HashError`], for a structure with errors: it stands for no program), a versioned
//!   text (`pml-hash/v6`, specified in `docs/hash.md`) of the nodes and edges with spans,
//!   bindings, diagnostics and approval lists left out and every program-chosen name replaced:
//!   bound names by node ids (the builder already did that), callback parameters and other
//!   local names by `_p0, _p1...`, names nothing resolves by `_v0, _v1...`. The code of
//!   `code:*` tasks, conditions, reference expressions and loop code count in a canonical
//!   printing of their syntax tree (no comments, one formatting, one quote style, only the
//!   parentheses precedence needs).
//! - [`normalize_variable_names`]: the program with bound names rewritten to `_n1`,
//!   `_n1_content`..., editing only the identifiers the syntax tree resolves to those bindings.
//! - [`normalize_code`]: the canonical printing of one snippet.
//!
//! **Invariants:**
//! - Programs that differ only in variable names, formatting, comments, quote style, trailing
//!   commas or redundant parentheses hash equal; changing a tool, an argument value or source, a
//!   condition, a callback's logic or the branch a call sits in changes the hash
//!   (`tests/it/props.rs`).
//! - Deterministic: no hash-map order, clock or path reaches the canonical form.
//! - Never panics and never overflows the stack: deep inputs are processed on a dedicated large
//!   stack; inputs beyond [`MAX_PARSE_DEPTH`] are hashed as whitespace-collapsed text.
//! - Does no I/O; names no SWC type in its API.
//!
//! ```
//! use pml_hash::{semantic_hash, normalize_variable_names};
//! use pml_structure::{build_structure, BuildOptions};
//!
//! let a = "const users = await mcp.db.query({ table: 'users' });\nreturn users.filter(u => u.active);";
//! let b = "const rows = await mcp.db.query({table: \"users\"}); // all rows\nreturn rows.filter((row) => row.active);";
//! let c = "const users = await mcp.db.query({ table: 'users' });\nreturn users.filter(u => !u.active);";
//! let s = |code| build_structure(code, &BuildOptions::default()).structure;
//! assert_eq!(semantic_hash(&s(a)), semantic_hash(&s(b)));
//! assert_ne!(semantic_hash(&s(a)), semantic_hash(&s(c)));
//! // A program that does not parse has no hash.
//! assert!(semantic_hash(&s("const = ;")).is_err());
//!
//! let n = normalize_variable_names(a, &s(a).variable_bindings);
//! assert_eq!(n.code, "const _n1 = await mcp.db.query({ table: 'users' });\nreturn _n1.filter(u => u.active);");
//! ```

mod canonical;
pub mod diagnostics;
mod parse;
mod print;
mod rename;
mod scope;

use indexmap::IndexMap;
use pml_structure::{ArgumentValue, Diagnostic, Severity, StaticStructure};
use serde_json::Value;
use sha2::{Digest, Sha256};

pub use canonical::VERSION_TAG;
pub use rename::NormalizeReturn;

/// Texts whose nesting bound (see `parse::depth_bound`) is at most this are parsed and printed
/// on the caller's stack; deeper ones on a dedicated thread with a [`BIG_STACK`] stack. Chosen
/// for a 2 MiB caller stack (test threads, async runtimes) in unoptimised builds with a factor 4
/// to spare: the unit test below runs the worst shapes at this bound on 512 KiB.
const INLINE_DEPTH: usize = 128;

/// Texts nesting deeper than this (bound) are not parsed: they count as whitespace-collapsed
/// text.
pub const MAX_PARSE_DEPTH: usize = 200_000;

/// Reserved address space for deep inputs; pages are touched only as deep as the input goes.
const BIG_STACK: usize = 4 << 30;

/// Why a structure has no hash: the program it comes from has errors (it does not parse, it
/// nests too deep...), so the structure is empty and stands for no program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashError {
    /// The error diagnostics of the structure, in order.
    pub errors: Vec<Diagnostic>,
}

impl std::fmt::Display for HashError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a program with errors has no hash")?;
        if let Some(d) = self.errors.first() {
            write!(f, " ({} [{}]", d.located(), d.code)?;
            if self.errors.len() > 1 {
                write!(f, ", and {} more", self.errors.len() - 1)?;
            }
            write!(f, ")")?;
        }
        Ok(())
    }
}

impl std::error::Error for HashError {}

/// The semantic hash of a structure: lowercase hex SHA-256 of [`canonical_form`]. A structure
/// with errors has none.
pub fn semantic_hash(structure: &StaticStructure) -> Result<String, HashError> {
    if structure.has_errors() {
        let errors = (structure.diagnostics.iter())
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        return Err(HashError { errors });
    }
    Ok(digest_of(&canonical_form(structure)))
}

/// The hash of a canonical form (what [`semantic_hash`] returns for its structure).
pub fn digest_of(form: &str) -> String {
    let digest = Sha256::digest(form.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    hex
}

/// The text [`semantic_hash`] hashes (for debugging and `--explain`); `docs/hash.md` specifies
/// it. Its first line is [`VERSION_TAG`].
pub fn canonical_form(structure: &StaticStructure) -> String {
    if structure_depth(structure) <= INLINE_DEPTH {
        return canonical::canonical_form(structure, canonical::Parsing::Full);
    }
    match on_big_stack(|| canonical::canonical_form(structure, canonical::Parsing::Full)) {
        Some(form) => form,
        // No thread for the big stack: texts are hashed whitespace-collapsed instead.
        None => canonical::canonical_form(structure, canonical::Parsing::Degraded),
    }
}

/// Rewrite the names `bindings` (a structure's `variableBindings`: name -> `"n1"` or a path such
/// as `"n1.content"`) binds to `_n1`, `_n1_content`, `_n3_0`... (`_` + the path, non-identifier
/// characters as `_`). Only `const`/`let`/`var` declarations of those names and the uses that
/// resolve to them change; parameters and other declarations that shadow them, strings,
/// comments, object keys and property names stay. Shorthand `{ data }` becomes
/// `{ data: _n1 }`. Everything else is the input byte for byte.
///
/// `code` is an agent program (the body of an async function: top-level `await` and `return`
/// allowed). When it does not parse it comes back unchanged with `syntax-error` diagnostics.
pub fn normalize_variable_names(
    code: &str,
    bindings: &IndexMap<String, String>,
) -> NormalizeReturn {
    let depth = parse::depth_bound(code);
    let too_deep = || {
        NormalizeReturn {
        code: code.to_string(),
        renames: IndexMap::new(),
        diagnostics: vec![Diagnostic::at(
            Severity::Error,
            diagnostics::TOO_DEEP,
            format!(
                "the code nests too deeply to analyse (nesting bound {depth}, limit {MAX_PARSE_DEPTH})"
            ),
            (1, 1),
        )],
    }
    };
    if depth > MAX_PARSE_DEPTH {
        return too_deep();
    }
    if depth <= INLINE_DEPTH {
        return rename::normalize(code, bindings);
    }
    on_big_stack(|| rename::normalize(code, bindings)).unwrap_or_else(too_deep)
}

/// The canonical printing of a JavaScript/TypeScript expression or program (an async function
/// body): comments and formatting gone, strings double-quoted, only needed parentheses, locally
/// declared names (callback parameters, `const`...) renamed `_p0, _p1...` in declaration order;
/// free names kept. `None` when `code` does not parse.
///
/// ```
/// assert_eq!(pml_hash::normalize_code("u => u.active"), pml_hash::normalize_code("(x) => (x.active)"));
/// assert_eq!(pml_hash::normalize_code("xs.map(u => u['name'])").as_deref(), Some("xs.map((_p0) => _p0.name)"));
/// ```
pub fn normalize_code(code: &str) -> Option<String> {
    let depth = parse::depth_bound(code);
    if depth > MAX_PARSE_DEPTH {
        return None;
    }
    if depth <= INLINE_DEPTH {
        return normalize_code_here(code);
    }
    on_big_stack(|| normalize_code_here(code)).flatten()
}

fn normalize_code_here(code: &str) -> Option<String> {
    if let Some((src, e)) = parse::parse_expression(&[code]) {
        let mut p = print::Printer::new(&src, print::KeepFree);
        p.expr(&e, 1);
        return Some(p.out);
    }
    let (src, body) = parse::parse_program(code);
    let body = body.ok()?;
    let mut p = print::Printer::new(&src, print::KeepFree);
    p.program(&body);
    Some(p.out)
}

/// Run `f` on a thread with a [`BIG_STACK`] stack. `None` if the thread could not be started
/// or `f` panicked.
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> Option<R> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("pml-hash".into())
            .stack_size(BIG_STACK)
            .spawn_scoped(scope, f)
            .ok()?
            .join()
            .ok()
    })
}

/// An upper bound on the recursion depth canonicalising `s` needs.
fn structure_depth(s: &StaticStructure) -> usize {
    let mut max = 0;
    for n in &s.nodes {
        for text in [&n.code, &n.condition].into_iter().flatten() {
            max = max.max(text_depth(text));
        }
        if let Some(args) = &n.arguments {
            for a in args.values() {
                max = max.max(argument_depth(a));
            }
        }
    }
    for v in s.literal_bindings.values() {
        max = max.max(value_depth(v));
    }
    max
}

/// An upper bound of `parse::depth_bound(text)` that is exact only when it matters (the length
/// bounds the nesting: short texts need no scan).
fn text_depth(text: &str) -> usize {
    if text.len() <= INLINE_DEPTH {
        text.len()
    } else {
        parse::depth_bound(text)
    }
}

/// Nesting of an argument value plus the deepest text in it (iterative: values may be deep).
fn argument_depth(a: &ArgumentValue) -> usize {
    let mut max = 0;
    let mut stack = vec![(a, 0usize)];
    while let Some((a, depth)) = stack.pop() {
        match a {
            ArgumentValue::Literal { value, .. } => max = max.max(depth + value_depth(value)),
            ArgumentValue::Reference { expression, .. } => {
                max = max.max(depth + text_depth(expression))
            }
            ArgumentValue::Parameter { .. } => max = max.max(depth),
            ArgumentValue::Object { properties } => {
                stack.extend(properties.values().map(|v| (v, depth + 1)))
            }
            ArgumentValue::Array { items } => stack.extend(items.iter().map(|v| (v, depth + 1))),
        }
    }
    max
}

/// Nesting depth of a JSON value (iterative).
fn value_depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        max = max.max(depth);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;
    use pml_structure::{Node, NodeKind, Span};

    /// Run `f` on a thread with a `kib` KiB stack.
    fn on_stack<R: Send>(kib: usize, f: impl FnOnce() -> R + Send) -> R {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(kib << 10)
                .spawn_scoped(s, f)
                .unwrap()
                .join()
                .unwrap()
        })
    }

    /// `open^n + middle + close^n` for the largest `n` whose bound stays within `limit`.
    fn deepest(open: &str, middle: &str, close: &str, limit: usize) -> String {
        let make = |n: usize| format!("{}{middle}{}", open.repeat(n), close.repeat(n));
        let mut n = 1;
        while parse::depth_bound(&make(n + 1)) <= limit {
            n += 1;
        }
        make(n)
    }

    fn shapes(limit: usize) -> Vec<String> {
        [
            ("!", "x", ""),
            ("~", "x", ""),
            ("(", "x", ")"),
            ("[", "", "]"),
            ("{", "", "}"),
            ("{A:", "X", "}"),
            ("[A,", "X", "]"),
            ("", "X", ".Y"),
            ("", "X", "+Y"),
            ("", "X", "**Y"),
            ("", "X", "(Y)"),
            ("", "X", "=Y"),
            ("", "X", "?.Y"),
            ("", "X", " in Y"),
            ("", "X", " as Y"),
            ("typeof ", "X", ""),
            ("await ", "X", ""),
            ("void ", "X", ""),
            ("new ", "X()", ""),
            ("x=>", "x", ""),
            ("async x=>", "x", ""),
            ("`${", "Y", "}`"),
            ("A?B:", "Y", ""),
            ("if(A)", "X;", ""),
            ("if(A)X;else ", "X;", ""),
            ("do ", "X;", " while(A);"),
            ("while(A)", "X;", ""),
            ("for(;;)", "X;", ""),
            ("L:", "X;", ""),
            ("function(){", "X", "}"),
            ("try{", "X", "}finally{}"),
        ]
        .iter()
        .map(|(o, m, c)| deepest(o, m, c, limit))
        .collect()
    }

    #[test]
    fn texts_within_the_inline_bound_fit_a_quarter_of_a_small_stack() {
        for text in shapes(INLINE_DEPTH) {
            assert!(parse::depth_bound(&text) <= INLINE_DEPTH);
            on_stack(512, || {
                let mut code = Node::new("n1".into(), NodeKind::Task, Span::default());
                code.tool = Some("code:x".into());
                code.code = Some(text.clone());
                code.arguments = Some(pml_structure::Arguments::from_iter([(
                    "x".into(),
                    ArgumentValue::reference(text.clone()),
                )]));
                let mut lp = Node::new("l1".into(), NodeKind::Loop, Span::default());
                lp.code = Some(text.clone());
                lp.condition = Some(text.clone());
                let s = StaticStructure {
                    nodes: vec![code, lp],
                    ..Default::default()
                };
                assert!(canonical::canonical_form(&s, canonical::Parsing::Full).len() > 10);
                let _ = normalize_code_here(&text);
                let _ = rename::normalize(&text, &IndexMap::new());
            });
        }
    }

    #[test]
    fn the_bound_counts_nesting_tokens_only() {
        assert_eq!(parse::depth_bound("users.filter(u => u.active)"), 5);
        assert_eq!(parse::depth_bound("await x; typeof y, a in b"), 3);
        assert_eq!(parse::depth_bound("awaited, newer, \\u0061wait"), 0);
    }
}
