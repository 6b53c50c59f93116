//! pml: the facade over the pipeline stages, and the `pml` command.
//!
//! **Input:** agent code (a file or a string) plus optional tool catalog and permission config.
//! **Output:** each stage's result, as Rust values and as the JSON documented in `docs/formats.md`.
//!
//! Stages: [`analyze`] (code -> static structure, `pml-structure`), [`to_dag`] (structure ->
//! logical DAG, `pml-dag`), [`optimize`] (logical -> physical DAG, `pml-optimizer`),
//! [`semantic_hash`] and [`normalize_variable_names`] (`pml-hash`); [`run`] composes them with
//! the executor (`pml-executor`, `pml-mcp`, `pml-sandbox`) for `pml run`: TypeScript stripped,
//! the servers the program names started and listed, the DAG built with their annotations,
//! run as written, instrumented, with read-only calls speculated ahead of it, with the default
//! config and scratch folder when none is given; [`capability::prepare`] computes the record
//! `pml save` keeps in the capability store (`pml-store`).
//!
//! **Invariants:** library errors are typed ([`InputError`]); this crate reads files, the stage
//! crates never do. Dependencies point down: `pml` -> stage crates, never the reverse.
//!
//! ```
//! let ret = pml::analyze("await mcp.fs.read({ path: 'a' });", &pml::AnalyzeOptions::default());
//! assert_eq!(ret.structure.nodes.len(), 1);
//! ```

pub mod analysis;
pub mod capability;
pub mod checks;
mod journal;
pub use journal::READ_SEQ_BASE;

/// The stack of each thread of pml's async runtimes. A run's values may nest
/// [`pml_jstext::MAX_DEPTH`] levels, and serde_json clones, compares, writes and drops them
/// recursively: tokio's 2 MiB default holds about 3,000 levels in a release build. The stack is
/// reserved, not used, until a value that deep comes along.
pub const RUNTIME_STACK: usize = 16 << 20;
pub mod learn;
pub mod otlp;
pub mod replay;
pub mod run;
pub mod serve;
pub mod servers;
pub mod summary;
pub mod types;
pub mod view;

use std::path::{Path, PathBuf};

pub use pml_structure::{
    build_structure, check_syntax, ArgumentValue, BuildOptions as AnalyzeOptions, BuildReturn,
    Diagnostic, Dialect, Permissions, Severity, StaticStructure, ToolCatalog,
};

pub use pml_dag::{to_dag, Dag, DagOptions};
pub use pml_hash::{
    canonical_form, digest_of, normalize_variable_names, semantic_hash, HashError, NormalizeReturn,
};
pub use pml_optimizer::{optimize, OptimizeReturn, OptimizerOptions};

/// Build the static structure of `code` (stage 1).
pub fn analyze(code: &str, options: &AnalyzeOptions) -> BuildReturn {
    build_structure(code, options)
}

/// Reading an input file went wrong (exit status 2 at the command line).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: cannot read: {source}")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 { path: PathBuf, offset: usize },
    #[error("{path}: {message}")]
    BadConfig { path: PathBuf, message: String },
    #[error("{path}: larger than {limit} bytes, the most pml reads of a program or a config")]
    TooLarge { path: PathBuf, limit: u64 },
}

/// The most bytes [`read_source`] reads: 16 MiB, ten times the largest program of the
/// benchmarks. A file that does not end (`/dev/zero`, a pipe) or a program whose one string
/// is tens of MiB is refused before it costs memory.
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// Read a source file as UTF-8 text (at most [`MAX_SOURCE_BYTES`]).
pub fn read_source(path: &Path) -> Result<String, InputError> {
    use std::io::Read;
    let unreadable = |source| InputError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    // Its size, when it has one (a pipe or a device has none): read in one go.
    let size = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(MAX_SOURCE_BYTES + 1);
    let mut bytes = Vec::with_capacity(size as usize + 1);
    (file.take(MAX_SOURCE_BYTES + 1))
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_SOURCE_BYTES,
        });
    }
    String::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The dialect a file name implies: `.js`/`.mjs`/`.cjs` are JavaScript, the rest TypeScript.
pub fn dialect_for(path: &Path) -> Dialect {
    match path.extension().and_then(|e| e.to_str()) {
        Some("js" | "mjs" | "cjs" | "jsx") => Dialect::JavaScript,
        _ => Dialect::TypeScript,
    }
}

/// Load a tool catalog file (`{"tools": [...]}`).
pub fn load_catalog(path: &Path) -> Result<ToolCatalog, InputError> {
    let text = read_source(path)?;
    ToolCatalog::from_json(&text).map_err(|e| InputError::BadConfig {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Load a permission config file (`{"permissions": {...}}`).
pub fn load_permissions(path: &Path) -> Result<Permissions, InputError> {
    let text = read_source(path)?;
    Permissions::from_json(&text).map_err(|e| InputError::BadConfig {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Render diagnostics the way compilers do: `file:line:column: message` (warnings say so),
/// each followed by the places it points to besides its own (`file:line:column: note: ...`).
pub fn render_diagnostics(file: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let level = match d.severity {
            Severity::Error => "",
            Severity::Warning => "warning: ",
        };
        out.push_str(&format!(
            "{} {level}{} [{}]\n",
            d.place(file),
            d.message,
            d.code
        ));
        for label in &d.labels {
            let at = &label.span;
            out.push_str(&format!(
                "{file}:{}:{}: note: {}\n",
                at.line, at.column, label.message
            ));
        }
    }
    out
}
