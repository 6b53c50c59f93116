//! Agent code -> static structure.
//!
//! **Input:** the TypeScript or JavaScript an agent writes: the *body* of an async function
//! (top-level `await` and `return`; `args` is the capability's parameters; `mcp.<server>.<tool>(..)`
//! calls MCP tools; `capabilities.<name>(..)` calls other capabilities).
//!
//! **Output:** a [`StaticStructure`]: task nodes (`server:tool`, pure operations `code:<op>`),
//! decisions (if/else, switch, ternary, `&&`/`||` guards), forks/joins (`Promise.all`),
//! capabilities and loops; `sequence`, `conditional` and `provides` edges; arguments classified as
//! literal / reference / parameter; variable and literal bindings; diagnostics. Every text it
//! writes (references, conditions, code) also carries its canonical printing from the syntax
//! tree ([`Canonical`], `canon/`), what the semantic hash reads, unless
//! [`BuildOptions::no_hash`]. The crate also normalises a program's names
//! ([`normalize_variable_names`], [`normalize_code`]).
//!
//! **Invariants:**
//! - Never panics and never overflows the stack, whatever the input (deep nesting runs on a
//!   large dedicated stack; beyond [`MAX_NESTING`] the input is refused with a diagnostic).
//! - Bad input is data: a syntax error gives an empty structure plus `syntax-error` diagnostics.
//! - Deterministic: the same input gives byte-identical JSON (ordered maps only), whether the
//!   build ran on one thread or, for inputs of 64 KiB or more, on two (safety scan, parse in two
//!   halves, and the mutated-names pass beside the walk).
//! - Node ids are numbered per kind in evaluation order; every node is reachable from the first
//!   node through sequence/conditional edges or from its enclosing scope node.
//! - This is the only crate that reads JavaScript (SWC); it does no I/O.
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

mod args;
mod builder;
mod canon;
mod compile;
mod culprit;
pub mod diagnostics;
mod fold;
mod guard;
mod instrument;
mod invariants;
mod json;
mod model;
mod mutations;
mod parameterize;
mod parse;
pub(crate) mod rewrite;
mod schema;
mod strip;
pub mod template;

use std::time::Instant;

use indexmap::IndexMap;
use serde_json::Value;

pub use builder::{member_path, DYNAMIC_NAME};
pub use canon::{
    collapse_whitespace, is_ident_name, is_simple_path, js_value, key_text, normalize_code,
    normalize_variable_names, quote_str, NormalizeReturn, MAX_PARSE_DEPTH,
};
pub use culprit::{culprit_message, Culprit};
pub use fold::in_js_order;
pub(crate) use guard::refuse;
pub use guard::{MAX_ANGLE_NESTING, MAX_NESTING, MAX_OPERATORS};
pub use instrument::{Instrumented, Probe, ProbeKind};
pub use invariants::check_invariants;
pub use model::{
    collides_with_ids, escape_name, ArgumentValue, Arguments, Canonical, ComputedKey, Coverage,
    Diagnostic, Edge, EdgeKind, Effect, Hole, Key, Label, Leaf, LeafKind, Leaves, LoopKind, Names,
    Node, NodeCanonical, NodeKind, Piece, Scope, Severity, Span, StaticStructure,
};
pub use parameterize::{parameterize, parameters_schema, ParameterizeReturn};
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
    /// Build on one thread even when the input is large enough for two (the output is the
    /// same; for embedders that keep their other cores busy).
    pub one_thread: bool,
    /// Also produce [`BuildReturn::instrumented`]: the program rewritten so that every node
    /// reports when it runs (what the executor runs).
    pub instrument: bool,
    /// A secret in the name of the probe object (`__pml_<16 hex digits>`), so that no program
    /// can name it, not even by building the name at run time for `eval`; without it the name
    /// is `__pml` (readable, stable: the goldens). The executor's runs always give one.
    pub probe_secret: Option<u64>,
    /// The structure will not be hashed: leave out the canonical printings of its texts that
    /// the hash reads (`pml analyze`, which prints the structure only, skips their cost). Its
    /// hash would count the texts as they are written.
    pub no_hash: bool,
}

/// Wall-clock cost of the phases, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// The SWC parse. From 64 KiB on, the text's two halves are parsed at once on two threads
    /// when it has a place to cut; [`check_syntax`] times the plain one-thread parse.
    pub parse_ms: f64,
    /// Everything else pml does around it: the pre-parse safety scan (nesting, operator count),
    /// the line index, the walk that builds the structure, schemas. Wall clock: on inputs of
    /// 64 KiB or more part of the scan runs on a second thread, and each half's mutated names
    /// are collected by the thread that parsed it (in `parse_ms`).
    pub structure_ms: f64,
    /// Part of `structure_ms`: the safety scan (and line index) before the parse.
    pub scan_ms: f64,
    /// The builder's walk over the syntax tree (on this thread), with the join of the halves'
    /// mutated names it starts with.
    pub walk_ms: f64,
}

/// What [`build_structure`] returns: the structure (with its diagnostics) and timings.
#[derive(Debug, Clone, Default)]
pub struct BuildReturn {
    pub structure: StaticStructure,
    pub timings: Timings,
    /// With [`BuildOptions::instrument`], when the program parsed: the instrumented program
    /// (module `instrument`: which probe reports which node).
    pub instrumented: Option<Instrumented>,
}

/// Stack for the worker thread: the parser, the walk and the syntax tree's destructor recurse
/// per nesting level. Reserved address space only: pages are touched as deep as the input goes.
const STACK_SIZE: usize = 4 << 30;

/// Build the static structure of `code`.
pub fn build_structure(code: &str, options: &BuildOptions) -> BuildReturn {
    let failed = || BuildReturn {
        structure: StaticStructure {
            diagnostics: vec![diagnostics::internal("analysing")],
            ..Default::default()
        },
        timings: Timings::default(),
        instrumented: None,
    };
    if code.len() < PARALLEL_FROM_BYTES {
        return on_big_stack(|| build_on_this_thread(code, options, false).0)
            .unwrap_or_else(failed);
    }
    // A large input: the worker owns its inputs so it can outlive this call: it answers as
    // soon as the structure is built and frees the syntax tree afterwards, while the caller
    // goes on.
    let code: std::sync::Arc<str> = std::sync::Arc::from(code);
    let options = options.clone();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("pml-structure".into())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let parallel = !options.one_thread && code.len() >= PARALLEL_FROM_BYTES;
            let (ret, syntax_tree) = build_on_this_thread(&code, &options, parallel);
            let _ = tx.send(ret);
            // Dropped here, on the large stack (its destructor recurses per nesting level).
            drop(syntax_tree);
        });
    // Could not spawn (address space exhausted?) or the walk panicked: report, don't crash.
    spawned
        .ok()
        .and_then(|_| rx.recv().ok())
        .unwrap_or_else(failed)
}

/// TypeScript `source` as JavaScript (its types blanked out, as [`strip_types`] does) and
/// the structure of that JavaScript (as [`build_structure`] builds it), from one parse of
/// `source`: the blanked-out text keeps every token where it was, so the syntax tree of the
/// TypeScript is walked with the JavaScript's text. (Unless the program has an `enum`, a namespace or
/// parameter properties: compiled, they move the tokens after them, and the JavaScript is
/// parsed again.)
pub fn build_typescript(
    source: &str,
    options: &BuildOptions,
) -> Result<(String, BuildReturn), StripError> {
    let lines = parse::LineIndex::new(source);
    if let Some((offset, message)) = refuse(source, Dialect::TypeScript) {
        let (line, column) = lines.line_col(source, offset);
        return Err(StripError::Refused {
            message,
            line,
            column,
        });
    }
    let options = BuildOptions {
        dialect: Dialect::JavaScript,
        ..options.clone()
    };
    on_big_stack(|| {
        let started = Instant::now();
        let parsed = strip::parse_typescript(source, &lines)?;
        let parse_ms = started.elapsed().as_secs_f64() * 1e3;
        let strip::Stripped {
            javascript,
            compiled,
        } = strip::strip_parsed(source, &parsed, &lines)?;
        let parallel = !options.one_thread && javascript.len() >= PARALLEL_FROM_BYTES;
        if compiled {
            // Tokens moved: the JavaScript is parsed (and scanned) on its own.
            drop(parsed);
            let (ret, tree) = build_on_this_thread(&javascript, &options, parallel);
            drop(tree);
            return Ok((javascript, ret));
        }
        let mut parsed = parsed;
        strip::unwrap_type_expressions(&mut parsed.body, &javascript, parsed.base);
        let js_lines = parse::LineIndex::new(&javascript);
        let (ret, tree) = walk_parsed(
            &javascript,
            &options,
            (parallel, None),
            &js_lines,
            Ok(parsed),
            (0.0, parse_ms),
        );
        drop(tree);
        Ok((javascript, ret))
    })
    .unwrap_or(Err(StripError::Internal))
}

/// What saving a program as a capability keeps of it, from one parse of its text ([`prepare`]).
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Its structure, as [`build_structure`] builds it (texts as the source writes them, types
    /// and all).
    pub built: BuildReturn,
    /// What runs, for TypeScript: `Ok(None)` when its JavaScript is its text with the types
    /// blanked out (whose structure is `built`'s but for the texts, and hashes alike);
    /// `Ok(Some(structure))`, that JavaScript's, when enums, namespaces or parameter properties
    /// were compiled (the tokens after them moved: the JavaScript is parsed again); `Err` when
    /// it cannot be made JavaScript (or does not parse). `Ok(None)` for JavaScript.
    pub compiled: Result<Option<StaticStructure>, StripError>,
    /// Its names normalised with the structure's bindings ([`normalize_variable_names`]).
    pub normalized: NormalizeReturn,
    /// Its literals made parameters ([`parameterize`]).
    pub parameterized: ParameterizeReturn,
}

/// Everything `pml save` keeps of `code`, from one parse of it (two when TypeScript constructs
/// had to be compiled, as for a run): the structure, the structure of what runs, the program
/// with its names normalised and with its literals made parameters. Each is what its own
/// function ([`build_structure`], [`build_typescript`], [`normalize_variable_names`],
/// [`parameterize`]) gives.
pub fn prepare(code: &str, options: &BuildOptions) -> Prepared {
    let unchanged = |diagnostics: Vec<Diagnostic>| Prepared {
        built: BuildReturn {
            structure: StaticStructure {
                diagnostics: diagnostics.clone(),
                ..Default::default()
            },
            ..Default::default()
        },
        compiled: Err(StripError::Internal),
        normalized: NormalizeReturn {
            code: code.to_string(),
            renames: IndexMap::new(),
            diagnostics: diagnostics.clone(),
        },
        parameterized: ParameterizeReturn {
            code: code.to_string(),
            parameters: IndexMap::new(),
            schema: parameters_schema(&IndexMap::new()),
            diagnostics,
        },
    };
    on_big_stack(|| {
        let (built, tree) = build_on_this_thread(code, options, false);
        let Some(tree) = tree else {
            let first = built.structure.diagnostics.first();
            let mut prepared = unchanged(built.structure.diagnostics.clone());
            prepared.compiled = Err(StripError::Syntax {
                message: first.map_or_else(String::new, |d| d.message.clone()),
                line: first.and_then(|d| d.line).unwrap_or(1),
                column: first.and_then(|d| d.column).unwrap_or(1),
            });
            prepared.built = built;
            return prepared;
        };
        let parameterized = parameterize::parameterize_parsed(code, &tree);
        let normalized = canon::normalize_parsed(
            code,
            &tree.body,
            tree.base,
            &built.structure.variable_bindings,
        );
        let compiled = match options.dialect {
            Dialect::JavaScript => Ok(None),
            Dialect::TypeScript => {
                let lines = parse::LineIndex::new(code);
                strip::strip_parsed(code, &tree, &lines).map(|stripped| {
                    stripped.compiled.then(|| {
                        let options = BuildOptions {
                            dialect: Dialect::JavaScript,
                            permissions: None,
                            instrument: false,
                            ..options.clone()
                        };
                        build_on_this_thread(&stripped.javascript, &options, false)
                            .0
                            .structure
                    })
                })
            }
        };
        Prepared {
            built,
            compiled,
            normalized,
            parameterized,
        }
    })
    .unwrap_or_else(|| unchanged(vec![diagnostics::internal("preparing")]))
}

/// Check the syntax of `code` only: the safety scan, then one plain SWC parse of the whole text
/// on one thread, no walk. Returns the diagnostics (empty when the code parses) and the timings
/// (`parse_ms` is the bare parse, the reference `build_structure`'s cost is measured against;
/// `structure_ms` is the scan).
pub fn check_syntax(code: &str, dialect: Dialect) -> (Vec<Diagnostic>, Timings) {
    let checked = on_big_stack(|| {
        let started = Instant::now();
        let lines = parse::LineIndex::new(code);
        if let Some((offset, message)) = refuse(code, dialect) {
            let refused = diagnostics::refused(code, &lines, offset, message);
            return (vec![refused], Timings::default());
        }
        let scan_ms = started.elapsed().as_secs_f64() * 1e3;
        let (parsed, parse_ms) = timed(|| parse::parse(code, dialect, &lines));
        let diagnostics = match parsed {
            Ok(parsed) => {
                // Freed here, on the large stack (its destructor recurses per nesting level).
                drop(parsed);
                Vec::new()
            }
            Err(diagnostics) => diagnostics,
        };
        let timings = Timings {
            parse_ms,
            structure_ms: scan_ms,
            scan_ms,
            ..Timings::default()
        };
        (diagnostics, timings)
    });
    checked.unwrap_or_else(|| (vec![diagnostics::internal("checking")], Timings::default()))
}

/// What `catalog` adds to a structure built without it: the `provides` edges between tasks
/// whose schemas connect (as [`BuildOptions::catalog`] does), so that one structure serves
/// a program before and after its servers list their tools.
pub fn apply_catalog(structure: &mut StaticStructure, catalog: &ToolCatalog) {
    schema::add_provides_edges(structure, catalog);
}

/// What `permissions` add to a structure built without them: its `hilRequiredTools` (as
/// [`BuildOptions::permissions`] does).
pub fn apply_permissions(structure: &mut StaticStructure, permissions: &Permissions) {
    structure.hil_required_tools = schema::hil_required_tools(structure, permissions);
}

/// How many program texts this process has parsed so far (building, checking, stripping
/// types, parameterizing: each text once per call, however it is cut for two cores). For
/// tests that check a stage parses a program once.
pub fn program_parses() -> usize {
    parse::PARSES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Inputs at least this long use a second core: cut in two where a statement likely starts,
/// each half is scanned, parsed and its mutations collected on a thread of its own
/// ([`build_in_two`]); without a place to cut, the scan's passes run beside each other. Below
/// it, starting a thread (~50 us) would cost more than it saves.
const PARALLEL_FROM_BYTES: usize = 64 * 1024;

fn build_on_this_thread(
    code: &str,
    options: &BuildOptions,
    parallel: bool,
) -> (BuildReturn, Option<parse::Parsed>) {
    let started = Instant::now();
    if parallel {
        let from = code.len() * CUT_AT_PERCENT / 100;
        if let Some(cut) = parse::guess_cut(code, from) {
            return build_in_two(code, options, cut);
        }
    }
    // The safety scan's two passes run on two threads for large inputs; the line index goes
    // beside the operator pass (the lighter one, which most programs skip).
    let (brackets, (lines, operators)) = both(
        parallel,
        || guard::bracket_pass(code, options.dialect),
        || (parse::LineIndex::new(code), guard::operator_pass(code)),
    );
    if let Some(refused) = guard::refusal(brackets, operators) {
        return (refusal(code, &lines, refused), None);
    }
    let scan_ms = started.elapsed().as_secs_f64() * 1e3;
    let (parsed, parse_ms) = timed(|| parse::parse(code, options.dialect, &lines));
    walk_parsed(
        code,
        options,
        (parallel, None),
        &lines,
        parsed,
        (scan_ms, parse_ms),
    )
}

/// Where [`build_in_two`] looks for a place to cut, in percent of the text: past the middle,
/// as the second thread also builds the line index.
const CUT_AT_PERCENT: usize = 52;

/// What a build refused to parse, as its structure.
fn refusal(
    code: &str,
    lines: &parse::LineIndex,
    (offset, message): (usize, String),
) -> BuildReturn {
    BuildReturn {
        structure: StaticStructure {
            diagnostics: vec![diagnostics::refused(code, lines, offset, message)],
            ..Default::default()
        },
        timings: Timings::default(),
        instrumented: None,
    }
}

/// A large text cut in two at `cut` ([`parse::guess_cut`]): each half is scanned, parsed and
/// its mutations collected on a thread of its own, the second thread also building the line
/// index and counting operators over the whole text (a pass most texts skip). The halves'
/// scans give the whole text's verdict when nothing is refused and the first half closes every
/// bracket it opens; otherwise the whole text is scanned again, as one thread does. A half is
/// parsed only when its own scan passes (what its parser can reach is in it); when either
/// half is not parsed or does not parse, the whole text is, and its diagnostics are the ones
/// reported.
fn build_in_two(
    code: &str,
    options: &BuildOptions,
    cut: usize,
) -> (BuildReturn, Option<parse::Parsed>) {
    let started = Instant::now();
    let dialect = options.dialect;
    let checked = guard::has_bracket_rules(code, dialect);
    let part = |start: usize, end: usize| {
        let body = parse::parse_part(code, start, end, dialect)?;
        let collected = mutations::collect(&body);
        Some((body, collected))
    };
    let ((first_scan, scanned, first), (operators, second_scan, lines, second)) = both(
        true,
        || {
            let scan = guard::bracket_part(&code[..cut], dialect, false, checked);
            // What the operator rule guards is within reach of this half's parser only if
            // the half could break it alone.
            let operators = guard::operator_pass(&code[..cut]);
            let scanned = started.elapsed().as_secs_f64() * 1e3;
            let parsed = (scan.passed() && operators.is_none())
                .then(|| part(0, cut))
                .flatten();
            (scan, scanned, parsed)
        },
        || {
            let operators = guard::operator_pass(code);
            let scan = guard::bracket_part(&code[cut..], dialect, true, checked);
            let lines = parse::LineIndex::new(code);
            let parsed = (scan.passed() && operators.is_none())
                .then(|| part(cut, code.len()))
                .flatten();
            (operators, scan, lines, parsed)
        },
    );
    let mut scan_ms = scanned;
    let exact = first_scan.passed() && first_scan.closed && second_scan.passed();
    if !exact || operators.is_some() {
        let (refused, rescan_ms) =
            timed(|| guard::refusal(guard::bracket_pass(code, dialect), operators));
        scan_ms += rescan_ms;
        if let Some(refused) = refused {
            return (refusal(code, &lines, refused), None);
        }
    }
    let (parsed, collected) = match (first, second) {
        (Some((first, a)), Some((second, b))) => (Ok(parse::joined(first, second)), Some((a, b))),
        _ => (parse::parse(code, dialect, &lines), None),
    };
    let parse_ms = started.elapsed().as_secs_f64() * 1e3 - scan_ms;
    walk_parsed(
        code,
        options,
        (true, collected),
        &lines,
        parsed,
        (scan_ms, parse_ms),
    )
}

/// The builder's walk over `parsed`: the syntax tree of `code`, or of a text whose every
/// token has the position it has in `code` (TypeScript whose types `code` blanks out).
/// `collected`: what each half of the program changes, when the halves were collected as they
/// were parsed (joined here, in the walk's time; else it is computed, on a second thread with
/// `parallel`). `(scan_ms, parse_ms)`: what came before, for the timings.
fn walk_parsed(
    code: &str,
    options: &BuildOptions,
    (parallel, collected): (bool, Option<(mutations::Mutations, mutations::Mutations)>),
    lines: &parse::LineIndex,
    parsed: Result<parse::Parsed, Vec<Diagnostic>>,
    (scan_ms, parse_ms): (f64, f64),
) -> (BuildReturn, Option<parse::Parsed>) {
    let walk_started = Instant::now();
    let mut walk_ms = 0.0;
    let mut instrumented = None;
    let (mut structure, syntax_tree) = match parsed {
        Ok(parsed) => {
            // Unless they are known, on two threads, the helper finds the names the program
            // mutates, which the walk needs only at its first foldable constant.
            let on_helper = parallel && collected.is_none();
            let (mutated_tx, mutated_rx) = std::sync::mpsc::sync_channel(1);
            let (((structure, probed), walk), ()) = both(
                on_helper,
                || {
                    timed(|| {
                        let mut b = builder::Builder::new(code, parsed.base, lines);
                        let mutated = collected.map(|(first, second)| {
                            let mut m = first.then(second);
                            m.close();
                            m
                        });
                        match mutated {
                            Some(m) => b.mutated_names(m),
                            None if on_helper => b.mutated_names_from(mutated_rx),
                            None => {}
                        }
                        if options.instrument {
                            b.instrument(options.probe_secret);
                        }
                        b.printing = !options.no_hash;
                        b.program(&parsed.body);
                        b.guard_destructurings(&parsed.body);
                        b.finish_instrumented()
                    })
                },
                || {
                    if on_helper {
                        let _ = mutated_tx.send(mutations::mutated_names(&parsed.body));
                    }
                },
            );
            walk_ms = walk;
            instrumented = probed;
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
        apply_catalog(&mut structure, catalog);
    }
    if let Some(perms) = &options.permissions {
        apply_permissions(&mut structure, perms);
    }
    let structure_ms = scan_ms + walk_started.elapsed().as_secs_f64() * 1e3;
    let ret = BuildReturn {
        structure,
        timings: Timings {
            parse_ms,
            structure_ms,
            scan_ms,
            walk_ms,
        },
        instrumented,
    };
    (ret, syntax_tree)
}

/// `f()` and how long it took, in milliseconds.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed().as_secs_f64() * 1e3)
}

/// `(a(), b())`; with `parallel`, `b` runs on a second thread (with the large stack: either may
/// parse or walk the syntax tree) while `a` runs on this one, and `a` may wait for what `b` sends it. A panic
/// in either goes on as a panic here.
fn both<A: Send, B: Send>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if !parallel {
        return (a(), b());
    }
    // `b` stays reachable here in case no thread can be had.
    let b = std::sync::Mutex::new(Some(b));
    let run_b = || b.lock().ok().and_then(|mut f| f.take()).map(|f| f());
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("pml-structure-2".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, run_b);
        let (a, b) = match helper {
            Ok(helper) => {
                let a = a();
                match helper.join() {
                    Ok(b) => (a, b),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            // No thread to be had: run both here, `b` first (`a` may wait for what `b` sends).
            Err(_) => {
                let b = run_b();
                (a(), b)
            }
        };
        (a, b.expect("`b` runs exactly once"))
    })
}

/// Run `f` on the large stack, on this thread (a stack of its own, switched to and back:
/// no thread to start and hand over to, which costs a run more than the parse of a small
/// program); `None` if it panicked.
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    let grown = || stacker::grow(STACK_SIZE, f);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(grown)).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A program over the threshold, with everything the two threads share: constants (folded
    /// or, when mutated later, not), calls, branches, code with callbacks, gaps in coverage.
    fn large_program() -> String {
        let mut code = String::new();
        for i in 0..400 {
            code.push_str(&format!(
                "const k{i} = {i} * 2;\n\
                 const list{i} = [1, 2];\n\
                 const file{i} = await mcp.fs.read_file({{ path: \"/d/\" + k{i}, list: list{i} }});\n\
                 const s{i} = file{i}.items.filter((x) => x.n > k{i}).map((x) => x.name);\n\
                 if (s{i}.length > 0) {{ await mcp.memory.write({{ names: s{i}, n: k{i} }}); }}\n\
                 list{i}.push(k{i});\n"
            ));
            if i % 50 == 0 {
                code.push_str(&format!(
                    "for (const x of s{i}) {{ await mcp.fs.stat({{ p: x }}); }}\n"
                ));
            }
        }
        code.push_str("return s399;\n");
        code
    }

    /// Texts cut in two whose scan or parse goes wrong somewhere: refused or failing as one
    /// thread refuses or fails them, wherever the fault is and whatever the first half leaves
    /// open.
    #[test]
    fn two_threads_refuse_and_fail_what_one_does() {
        let filler = |n: usize| "const a = [1, 2, 3].map((x) => x + 1);\n".repeat(n);
        let deep = |n: usize| format!("const d = {}1{};\n", "(".repeat(n), ")".repeat(n));
        let over = guard::MAX_NESTING + 1;
        let half = guard::MAX_NESTING / 2 + 10;
        let angles = format!("const t = {}a{};\n", "(<T>".repeat(9), ")".repeat(9));
        let cases = [
            // Too deep in the second half, in the first.
            format!("{}{}{}", filler(2000), filler(2000), deep(over)),
            format!("{}{}{}", deep(over), filler(2000), filler(4000)),
            // Strings that open brackets in the first half and nesting in the second that
            // passes alone, not with them.
            format!(
                "{}const s = \"{}\";\n{}{}",
                filler(10),
                "(".repeat(half),
                filler(4000),
                deep(half)
            ),
            // The same that passes.
            format!(
                "{}const s = \"{}\";\n{}{}",
                filler(10),
                "(".repeat(10),
                filler(4000),
                deep(half)
            ),
            // `<` nesting in either half (TypeScript).
            format!("{}{}{}", filler(3000), filler(3000), angles),
            format!("{}{}{}", angles, filler(3000), filler(3000)),
            // Syntax errors in either half.
            format!("{}const x = (;\n{}", filler(3000), filler(1000)),
            format!("{}{}const y = ];\n", filler(3000), filler(3000)),
        ];
        for (i, code) in cases.iter().enumerate() {
            assert!(
                code.len() >= PARALLEL_FROM_BYTES,
                "case {i}: {} bytes",
                code.len()
            );
            for dialect in [Dialect::TypeScript, Dialect::JavaScript] {
                let options = BuildOptions {
                    dialect,
                    ..BuildOptions::default()
                };
                let one = on_big_stack(|| build_on_this_thread(code, &options, false).0).unwrap();
                let two = on_big_stack(|| build_on_this_thread(code, &options, true).0).unwrap();
                assert_eq!(
                    one.structure.diagnostics, two.structure.diagnostics,
                    "case {i} ({dialect:?})"
                );
                assert_eq!(
                    one.structure.nodes.len(),
                    two.structure.nodes.len(),
                    "case {i}"
                );
            }
        }
    }

    /// Every program of the repository, one after the other (as they are: the first `return`
    /// leaves the rest unreached; and each under an `if` of its own, all walked, where cuts fall
    /// inside blocks and the whole text is parsed instead), with Windows line ends too: two
    /// threads build what one builds, byte for byte.
    #[test]
    fn two_threads_build_what_one_builds_for_every_program() {
        // Those that parse (some are syntax errors on purpose), each ended by a `;`.
        let programs: Vec<String> = (crate::parse::tests::programs().into_iter())
            .map(|(_, code)| code)
            .filter(|code| check_syntax(code, Dialect::TypeScript).0.is_empty())
            .collect();
        let plain: String = programs.iter().map(|code| format!("{code}\n;\n")).collect();
        let guarded: String = (programs.iter().enumerate())
            .map(|(i, code)| format!("if (args.p{i}) {{\n{code}\n}}\n"))
            .collect();
        let crlf = guarded.replace('\n', "\r\n");
        for (name, code) in [("plain", &plain), ("guarded", &guarded), ("crlf", &crlf)] {
            assert!(
                code.len() >= PARALLEL_FROM_BYTES,
                "{name}: {} bytes",
                code.len()
            );
            let options = BuildOptions::default();
            let one = on_big_stack(|| build_on_this_thread(code, &options, false).0).unwrap();
            let two = on_big_stack(|| build_on_this_thread(code, &options, true).0).unwrap();
            if name != "plain" {
                assert!(
                    one.structure.nodes.len() > 500,
                    "{name}: {}",
                    one.structure.nodes.len()
                );
            }
            assert_eq!(
                serde_json::to_string(&one.structure).unwrap(),
                serde_json::to_string(&two.structure).unwrap(),
                "{name}"
            );
        }
    }

    #[test]
    fn two_threads_build_what_one_builds() {
        let code = large_program();
        assert!(code.len() >= PARALLEL_FROM_BYTES, "{} bytes", code.len());
        let options = BuildOptions::default();
        let one = on_big_stack(|| build_on_this_thread(&code, &options, false).0).unwrap();
        let two = on_big_stack(|| build_on_this_thread(&code, &options, true).0).unwrap();
        assert!(
            one.structure.diagnostics.is_empty(),
            "{:?}",
            one.structure.diagnostics
        );
        // The mutated list is not folded, the constant is.
        assert!(one.structure.literal_bindings.contains_key("k7"));
        assert!(!one.structure.literal_bindings.contains_key("list7"));
        assert_eq!(
            serde_json::to_string(&one.structure).unwrap(),
            serde_json::to_string(&two.structure).unwrap()
        );
    }
}
