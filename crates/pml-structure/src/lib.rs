//! Agent code -> static structure.
//!
//! **Input:** the TypeScript or JavaScript an agent writes: the *body* of an async function
//! (top-level `await` and `return`; `args` is the capability's parameters; `mcp.<server>.<tool>(..)`
//! calls MCP tools; `capabilities.<name>(..)` calls other capabilities).
//!
//! **Output:** a [`StaticStructure`]: task nodes (`server:tool`, pure operations `code:<op>`),
//! decisions (if/else, switch, ternary, `&&`/`||` guards), forks/joins (`Promise.all`),
//! capabilities and loops; `sequence`, `conditional` and `provides` edges; arguments classified as
//! literal / reference / parameter; variable and literal bindings; diagnostics.
//!
//! **Invariants:**
//! - Never panics and never overflows the stack, whatever the input (deep nesting runs on a
//!   large dedicated stack; beyond [`MAX_NESTING`] the input is refused with a diagnostic).
//! - Bad input is data: a syntax error gives an empty structure plus `syntax-error` diagnostics.
//! - Deterministic: the same input gives byte-identical JSON (ordered maps only).
//! - Node ids are numbered per kind in evaluation order; every node is reachable from the first
//!   node through sequence/conditional edges or from its enclosing scope node.
//! - This is the only crate whose API mentions SWC; it does no I/O.
//!
//! ```
//! use pml_structure::{build_structure, BuildOptions, ArgumentValue};
//!
//! let code = r#"
//!     const file = await mcp.filesystem.read_text_file({ path: args.path });
//!     if (file.content.length > 0) {
//!         await mcp.memory.create_entities({ entities: [{ name: file.content }] });
//!     }
//! "#;
//! let s = build_structure(code, &BuildOptions::default()).structure;
//! assert_eq!(s.nodes[0].tool.as_deref(), Some("filesystem:read_text_file"));
//! assert_eq!(s.nodes[1].condition.as_deref(), Some("n1.content.length > 0"));
//! let args = s.nodes[0].arguments.as_ref().unwrap();
//! assert_eq!(args["path"], ArgumentValue::Parameter { parameter_name: "path".into() });
//! ```

mod builder;
pub mod diagnostics;
mod fold;
mod invariants;
mod model;
mod parameterize;
mod parse;
pub(crate) mod rewrite;
mod schema;
mod strip;
pub mod template;
mod uncovered;

use std::time::Instant;

use indexmap::IndexMap;
use serde_json::Value;

pub use builder::member_path;
pub use invariants::check_invariants;
pub use model::{
    ArgumentValue, Coverage, Diagnostic, Edge, EdgeKind, LoopKind, Node, NodeKind, Scope, Severity,
    Span, StaticStructure, Uncovered,
};
pub use parameterize::{parameterize, ParameterizeReturn};
pub use parse::Dialect;
pub use rewrite::is_global;
pub use schema::{coverage, Approval, ConfigError, Permissions, ToolCatalog, ToolSchema};
pub use strip::{strip_types, StripError};

/// Inputs beyond the code itself.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    pub dialect: Dialect,
    /// Tool schemas: enable `provides` edges.
    pub catalog: Option<ToolCatalog>,
    /// Approval rules: fill `hilRequiredTools`.
    pub permissions: Option<Permissions>,
}

/// Wall-clock cost of the phases, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// The bare SWC parse.
    pub parse_ms: f64,
    /// Everything else pml does around it: the pre-parse safety scan (nesting, operator count),
    /// the line index, the walk that builds the structure, the coverage check, schemas.
    pub structure_ms: f64,
}

/// What [`build_structure`] returns: the structure (with its diagnostics) and timings.
#[derive(Debug, Clone, Default)]
pub struct BuildReturn {
    pub structure: StaticStructure,
    pub timings: Timings,
}

/// Deepest bracket nesting accepted. SWC's parser recurses per level; this bound and the stack
/// size of the worker thread below are chosen together (see `tests/it/hostile.rs`).
pub const MAX_NESTING: usize = 100_000;

/// Stack for the worker thread: the parser, the walk and the syntax tree's destructor recurse
/// per nesting level. Reserved address space only: pages are touched as deep as the input goes.
const STACK_SIZE: usize = 4 << 30;

/// Build the static structure of `code`.
pub fn build_structure(code: &str, options: &BuildOptions) -> BuildReturn {
    // The worker owns its inputs so it can outlive this call: it answers as soon as the
    // structure is built and frees the syntax tree afterwards, while the caller goes on.
    let code: std::sync::Arc<str> = std::sync::Arc::from(code);
    let options = options.clone();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("pml-structure".into())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let (ret, syntax_tree) = build_on_this_thread(&code, &options);
            let _ = tx.send(ret);
            // Dropped here, on the large stack (its destructor recurses per nesting level).
            drop(syntax_tree);
        });
    match spawned.ok().and_then(|_| rx.recv().ok()) {
        Some(ret) => ret,
        // Could not spawn (address space exhausted?) or the walk panicked: report, don't crash.
        None => BuildReturn {
            structure: StaticStructure {
                diagnostics: vec![Diagnostic {
                    severity: Severity::Error,
                    code: diagnostics::INTERNAL.into(),
                    message: "internal error while analysing this input (please report it)".into(),
                    line: 1,
                    column: 1,
                }],
                ..Default::default()
            },
            timings: Timings::default(),
        },
    }
}

fn build_on_this_thread(
    code: &str,
    options: &BuildOptions,
) -> (BuildReturn, Option<parse::Parsed>) {
    let started = Instant::now();
    let lines = parse::LineIndex::new(code);
    if let Some((offset, message)) = refuse(code, options.dialect) {
        let (line, column) = lines.line_col(code, offset);
        let ret = BuildReturn {
            structure: StaticStructure {
                diagnostics: vec![Diagnostic {
                    severity: Severity::Error,
                    code: diagnostics::TOO_DEEP.into(),
                    message,
                    line,
                    column,
                }],
                ..Default::default()
            },
            timings: Timings::default(),
        };
        return (ret, None);
    }
    let checks_ms = started.elapsed().as_secs_f64() * 1e3;
    let parse_started = Instant::now();
    let parsed = parse::parse(code, options.dialect, &lines);
    let parse_ms = parse_started.elapsed().as_secs_f64() * 1e3;
    let walk_started = Instant::now();
    let (mut structure, syntax_tree) = match parsed {
        Ok(parsed) => {
            let mut b = builder::Builder::new(code, parsed.base, &lines);
            b.program(&parsed.body);
            let mut structure = b.finish();
            structure.uncovered = uncovered::uncovered(&parsed.body)
                .into_iter()
                .map(|(span, message)| {
                    let offset = (span.lo.0.saturating_sub(parsed.base) as usize).min(code.len());
                    let (line, column) = lines.line_col(code, offset);
                    Uncovered {
                        message,
                        line,
                        column,
                    }
                })
                .collect();
            (structure, Some(parsed))
        }
        Err(diagnostics) => (
            StaticStructure {
                diagnostics,
                ..Default::default()
            },
            None,
        ),
    };
    if let Some(catalog) = &options.catalog {
        schema::add_provides_edges(&mut structure, catalog);
    }
    if let Some(perms) = &options.permissions {
        structure.hil_required_tools = schema::hil_required_tools(&structure, perms);
    }
    let structure_ms = checks_ms + walk_started.elapsed().as_secs_f64() * 1e3;
    let ret = BuildReturn {
        structure,
        timings: Timings {
            parse_ms,
            structure_ms,
        },
    };
    (ret, syntax_tree)
}

/// Run `f` on a thread with the large stack; `None` if it could not start or panicked.
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("pml-structure".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, f)
            .ok()?
            .join()
            .ok()
    })
}

/// Inputs the parser must not see (they would exhaust its stack or its time): where, and why.
pub(crate) fn refuse(code: &str, dialect: Dialect) -> Option<(usize, String)> {
    if let Some((depth, offset)) = nesting_over(code, MAX_NESTING) {
        return Some((
            offset,
            format!("brackets nest deeper than {MAX_NESTING} levels (reached {depth}); refusing to analyse"),
        ));
    }
    if let Some(offset) = operators_over(code, MAX_OPERATORS) {
        return Some((
            offset,
            format!(
                "more than {MAX_OPERATORS} operators and control keywords; refusing to analyse (they may nest beyond what the parser's stack holds)"
            ),
        ));
    }
    if dialect == Dialect::TypeScript {
        if let Some(offset) = angle_nesting_over(code, MAX_ANGLE_NESTING) {
            return Some((
                offset,
                format!(
                    "`<` (type assertions, generic calls) nested in more than {MAX_ANGLE_NESTING} levels of brackets; the TypeScript parser backtracks exponentially on these, refusing to analyse"
                ),
            ));
        }
    }
    None
}

/// The first place where `(`/`[`/`{` nesting exceeds `max`, ignoring brackets in strings and
/// comments only roughly (a cheap over-approximation: brackets in strings count too).
pub(crate) fn nesting_over(code: &str, max: usize) -> Option<(usize, usize)> {
    let mut depth: usize = 0;
    for (i, b) in code.bytes().enumerate() {
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

/// Most operators and control keywords accepted outside strings and comments. Prefix
/// operators, `?:`, `if`, `await` and assignment chains nest without brackets, and SWC's parser
/// recurses once per level (2,000,000 nested `a ?` used 4 GiB of stack). Each of these tokens
/// can open at most one level, so bounding their number bounds the depth: 1,000,000 of them at
/// ~2 KiB of stack per level stays inside the worker's 4 GiB. Real agent programs are far below
/// (the 1.4 MB benchmark program has ~140,000).
pub const MAX_OPERATORS: usize = 1_000_000;

/// Count operator characters and nesting keywords outside string literals and comments; the
/// offset where the count passes `max`, if it does. Template literals count their `${...}`.
pub(crate) fn operators_over(code: &str, max: usize) -> Option<usize> {
    let b = code.as_bytes();
    let mut count = 0usize;
    // Open template literals: the brace depth at which `}` resumes template text.
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
            b'?' | b'!' | b'~' | b'=' | b':' | b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>'
            | b'&' | b'|' | b'^' => count += 1,
            b'a'..=b'z' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                {
                    i += 1;
                }
                let word = &b[start..i];
                if matches!(
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
                ) {
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

/// How many nested bracket levels may each contain a `<` (TypeScript only). SWC's TypeScript
/// parser tries a type assertion / generic arrow and backtracks at every such level: time grows
/// ~2.2x per level (`(<a>` x 24 took 10 s). Real agent code stays far below this.
pub const MAX_ANGLE_NESTING: usize = 12;

/// The offset of the first `<` that sits inside more than `max` enclosing brackets which each
/// hold a `<` of their own (brackets and `<` in strings count too: a cheap over-approximation).
fn angle_nesting_over(code: &str, max: usize) -> Option<usize> {
    // Per open bracket: does its level contain a `<`? And how many of those are open.
    let mut frames: Vec<bool> = Vec::new();
    let mut top_level = false;
    let mut flagged = 0usize;
    for (i, b) in code.bytes().enumerate() {
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

/// For a string argument that looks like code: its literals, as parameters (name -> value).
pub(crate) fn template_parameters(s: &str) -> Option<IndexMap<String, Value>> {
    if !template::looks_like_code(s) {
        return None;
    }
    let mut names = template::ParameterNames::new();
    let literals = template::extract_template_literals(s, &mut names);
    if literals.is_empty() {
        return None;
    }
    Some(literals.into_iter().map(|l| (l.name, l.value)).collect())
}
