//! The canonical printing of JavaScript (`docs/hash.md`): one line that does not depend on how
//! the source was written, with the names a snippet reads but does not declare left as typed
//! holes ([`Canonical`]).
//!
//! The builder prints every text it writes into the structure (a `code:*` task's code, a
//! loop's or a function's code, a condition, a reference expression, a computed key) from the
//! syntax tree it walks, while it knows what each name is bound to: a node's result is written
//! as its path (`n1.content`), a constant expression as its own canonical printing, and every
//! other free name is a hole the hash resolves (a code task's input, a literal binding, a
//! global, `_v0`...). The hash reads these printings and never parses JavaScript: a program
//! name shaped like a node id (`n1`) is a hole, never a node's result.

mod print;
mod rename;
pub(crate) mod scope;
mod snippet;

use std::ops::{Deref, DerefMut};

use indexmap::IndexMap;

pub(crate) use rename::normalize_body as normalize_parsed;
pub use rename::NormalizeReturn;

pub use crate::model::{Canonical, Hole};

pub use print::{collapse_whitespace, is_ident_name, is_simple_path, quote_str};
pub(crate) use print::{
    fmt_number, looks_canonical, prec_of, strip, Printer, Resolve, CALL, EQUALITY, PRIMARY, SEQ,
    UNARY,
};

/// What a printer writes: text, and holes at places in it.
#[derive(Debug, Default)]
pub(crate) struct Out {
    text: String,
    holes: Vec<Hole>,
}

impl Deref for Out {
    type Target = String;
    fn deref(&self) -> &String {
        &self.text
    }
}

impl DerefMut for Out {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.text
    }
}

impl Out {
    /// A hole for the free name `name` here.
    pub(crate) fn hole(&mut self, name: &str) {
        self.holes.push(Hole {
            at: self.text.len(),
            name: name.to_owned(),
        });
    }

    /// `c` inserted at byte `at` (holes at or after it move with the text).
    pub(crate) fn insert(&mut self, at: usize, c: char) {
        self.text.insert(at, c);
        for h in self.holes.iter_mut().filter(|h| h.at >= at) {
            h.at += c.len_utf8();
        }
    }

    /// Another printing appended, parenthesised when it binds looser than `min`.
    pub(crate) fn append(&mut self, c: &Canonical, min: u8) {
        let paren = c.prec < min;
        if paren {
            self.text.push('(');
        }
        let base = self.text.len();
        self.text.push_str(&c.text);
        self.holes.extend(c.holes.iter().map(|h| Hole {
            at: base + h.at,
            name: h.name.clone(),
        }));
        if paren {
            self.text.push(')');
        }
    }

    pub(crate) fn finish(self, prec: u8) -> Canonical {
        Canonical {
            text: self.text,
            holes: self.holes,
            prec,
        }
    }
}

/// A JSON value in the canonical printing's syntax (`{a: 1, "b-c": [true, null]}`), object
/// keys in their order or sorted; values nested deeper than `budget` print `<deep>`.
pub fn js_value(value: &serde_json::Value, sort_keys: bool, budget: usize, out: &mut String) {
    use serde_json::Value;
    if budget == 0 {
        out.push_str("<deep>");
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                fmt_number(n.as_f64().unwrap_or(f64::NAN), out);
            }
        }
        Value::String(s) => quote_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                js_value(item, sort_keys, budget - 1, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                key_text(k, out);
                out.push_str(": ");
                js_value(v, sort_keys, budget - 1, out);
            }
            out.push('}');
        }
    }
}

/// An object key as the canonical printing writes it: bare when it is an identifier name.
pub fn key_text(key: &str, out: &mut String) {
    if is_ident_name(key) {
        out.push_str(key);
    } else {
        quote_str(key, out);
    }
}

/// Keeps free names as they are (those that look like canonical local names get a `$`
/// appended, so they cannot be confused with them): [`normalize_code`].
pub(crate) struct KeepFree;

impl Resolve for KeepFree {
    fn free(&mut self, name: &str, _min: u8, out: &mut Out) {
        out.push_str(name);
        if looks_canonical(name) {
            out.push('$');
        }
    }
}

/// Texts whose nesting bound (see `snippet::depth_bound`) is at most this are parsed and
/// printed on the caller's stack; deeper ones on a dedicated thread with a 4 GiB stack.
const INLINE_DEPTH: usize = 128;

/// Code nesting deeper than this (bound) is not parsed.
pub const MAX_PARSE_DEPTH: usize = 200_000;

/// The canonical printing of a JavaScript/TypeScript expression or program (an async function
/// body): comments and formatting gone, strings double-quoted, only needed parentheses, locally
/// declared names (callback parameters, `const`...) renamed `_p0, _p1...` in declaration order;
/// free names kept. `None` when `code` does not parse.
///
/// ```
/// use pml_structure::normalize_code;
/// assert_eq!(normalize_code("u => u.active"), normalize_code("(x) => (x.active)"));
/// assert_eq!(normalize_code("xs.map(u => u['name'])").as_deref(), Some("xs.map((_p0) => _p0.name)"));
/// ```
pub fn normalize_code(code: &str) -> Option<String> {
    let depth = snippet::depth_bound(code);
    if depth > MAX_PARSE_DEPTH {
        return None;
    }
    if depth <= INLINE_DEPTH {
        return normalize_code_here(code);
    }
    crate::on_big_stack(|| normalize_code_here(code)).flatten()
}

fn normalize_code_here(code: &str) -> Option<String> {
    if let Some((src, e)) = snippet::parse_expression(&[code]) {
        let mut p = Printer::new(&src.wrapped, 1, KeepFree);
        p.expr(&e, 1);
        return Some(p.finish(PRIMARY).text);
    }
    let (src, body) = snippet::parse_program(code);
    let body = body.ok()?;
    let mut p = Printer::new(&src.wrapped, 1, KeepFree);
    p.program(&body);
    Some(p.finish(PRIMARY).text)
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
    let depth = snippet::depth_bound(code);
    let too_deep = || {
        NormalizeReturn {
        code: code.to_string(),
        renames: IndexMap::new(),
        diagnostics: vec![crate::Diagnostic::at(
            crate::Severity::Error,
            crate::diagnostics::TOO_DEEP,
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
    crate::on_big_stack(|| rename::normalize(code, bindings)).unwrap_or_else(too_deep)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        while snippet::depth_bound(&make(n + 1)) <= limit {
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
            assert!(snippet::depth_bound(&text) <= INLINE_DEPTH);
            on_stack(512, || {
                let _ = normalize_code_here(&text);
                let _ = rename::normalize(&text, &IndexMap::new());
            });
        }
    }

    #[test]
    fn the_bound_counts_nesting_tokens_only() {
        assert_eq!(snippet::depth_bound("users.filter(u => u.active)"), 5);
        assert_eq!(snippet::depth_bound("await x; typeof y, a in b"), 3);
        assert_eq!(snippet::depth_bound("awaited, newer, \\u0061wait"), 0);
    }
}
