//! Semantic hash of a static structure.
//!
//! **Input:** a [`StaticStructure`] built by `pml-structure`, whose texts carry their canonical
//! printings (`pml_structure::Canonical`): this crate reads no JavaScript.
//!
//! **Output:**
//! - [`semantic_hash`]: 64 lowercase hex digits, the SHA-256 of [`canonical_form`] (an error,
//!   [`HashError`], for a structure with errors: it stands for no program), a versioned
//!   text (`pml-hash/v7`, specified in `docs/hash.md`) of the nodes and edges with spans,
//!   bindings, diagnostics and approval lists left out and the program's variable names replaced
//!   (object methods passed as arguments excepted: `docs/hash.md`, "Limits"):
//!   bound names by node ids (the builder already did that), callback parameters and other
//!   local names by `_p0, _p1...`, names nothing resolves by `_v0, _v1...`. The code of
//!   `code:*` tasks, conditions, reference expressions and loop code count in the canonical
//!   printing the builder made of their syntax tree (no comments, one formatting, one quote
//!   style, only the parentheses precedence needs), whose free names (holes) this crate fills.
//! - [`normalize_variable_names`] and [`normalize_code`], `pml-structure`'s, re-exported.
//!
//! **Invariants:**
//! - Programs that differ only in variable names, formatting, comments, quote style, trailing
//!   commas or redundant parentheses hash equal; changing a tool, an argument value or source, a
//!   condition, a callback's logic or the branch a call sits in changes the hash
//!   (`tests/it/props.rs`).
//! - Deterministic: no hash-map order, clock or path reaches the canonical form.
//! - Never panics and never overflows the stack: deeply nested values are printed on a
//!   dedicated large stack.
//! - Does no I/O; depends on no SWC crate (`xtask`'s layout test fails if it does).
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

use pml_structure::{ArgumentValue, Diagnostic, Severity, StaticStructure};
use serde_json::Value;
use sha2::{Digest, Sha256};

pub use canonical::VERSION_TAG;
pub use pml_structure::{
    normalize_code, normalize_variable_names, NormalizeReturn, MAX_PARSE_DEPTH,
};

/// Structures whose values nest at most this deep are hashed on the caller's stack; deeper
/// ones on a dedicated thread with a [`BIG_STACK`] stack (printing a value recurses per level).
/// Chosen for a 2 MiB caller stack in unoptimised builds with room to spare.
const INLINE_DEPTH: usize = 128;

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
        return canonical::canonical_form(structure, usize::MAX);
    }
    match on_big_stack(|| canonical::canonical_form(structure, usize::MAX)) {
        Some(form) => form,
        // No thread for the big stack: values deeper than the inline bound print `<deep>`.
        None => canonical::canonical_form(structure, INLINE_DEPTH),
    }
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

/// How deep printing the values of `s` recurses (its texts are printed without recursion).
fn structure_depth(s: &StaticStructure) -> usize {
    let mut max = 0;
    for n in &s.nodes {
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

/// Nesting of an argument value (iterative: values may be deep).
fn argument_depth(a: &ArgumentValue) -> usize {
    let mut max = 0;
    let mut stack = vec![(a, 0usize)];
    while let Some((a, depth)) = stack.pop() {
        match a {
            ArgumentValue::Literal { value, .. } => max = max.max(depth + value_depth(value)),
            ArgumentValue::Reference { .. } => max = max.max(depth),
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
