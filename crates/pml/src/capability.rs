//! What the capability store keeps, computed by the pipeline stages: a program's capability
//! record (`pml save`) and the record of a run (`pml run`).

use std::collections::HashMap;

use pml_store::{NewCapability, NewRun};
use pml_structure::{Diagnostic, Dialect, NodeKind, StaticStructure};
use pml_trace::{Decision, EventKind};
use serde_json::{json, Value};

use crate::analysis::Analysis;
use crate::run::RunOutput;
use crate::AnalyzeOptions;

/// Names a capability can have: what `capabilities.NAME(...)` or `capabilities["NAME"](...)`
/// can call, and never mistaken for a hash.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 200 {
        return Err("a capability name has 1 to 200 bytes".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "a capability name has no spaces or control characters ({c:?})"
        ));
    }
    if name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("a capability name cannot look like a hash".into());
    }
    Ok(())
}

/// The semantic hash of `code` as `pml save` and `pml run` compute it (`None` when it has
/// errors): the hash of its JavaScript (TypeScript types blanked out), what runs.
pub fn program_hash(code: &str, dialect: Dialect) -> Option<String> {
    crate::semantic_hash(&crate::analysis::structure_of(code, dialect).ok()?).ok()
}

/// The capability store at `location`, opened (created, migrated) and its hashes brought to
/// this pml's version of the semantic hash ([`pml_store::Store::rehash`]).
pub async fn open_store(location: &str) -> Result<pml_store::Store, pml_store::StoreError> {
    let store = pml_store::Store::open(location).await?;
    store.rehash(&Hashes).await?;
    Ok(store)
}

/// What the store re-hashes with: [`program_hash`] of a source saved from TypeScript or
/// JavaScript, and its structure as `pml save` keeps it.
struct Hashes;

impl pml_store::Rehasher for Hashes {
    fn version(&self) -> &str {
        pml_hash::VERSION_TAG
    }

    /// A capability's code or a gateway's program is TypeScript (JavaScript reads the same);
    /// a file's program is what its name says.
    fn hash(&self, source: &str, place: Option<&str>) -> Option<String> {
        let dialect = place.map_or(Dialect::TypeScript, |p| {
            crate::dialect_for(std::path::Path::new(p))
        });
        program_hash(source, dialect)
    }

    fn structure(&self, source: &str) -> Value {
        let options = AnalyzeOptions {
            dialect: Dialect::TypeScript,
            ..Default::default()
        };
        serde_json::to_value(crate::analyze(source, &options).structure).unwrap_or_default()
    }
}

/// The record of a finished run of the program whose hash is `program_hash` (from `file`,
/// with the caller's `args`), started at `started_at` (ms since the epoch).
pub fn run_record(
    program_hash: Option<String>,
    file: Option<&str>,
    args: &Value,
    output: &RunOutput,
    started_at: i64,
    duration_ms: i64,
) -> NewRun {
    let report = &output.report;
    let decisions: Vec<Decision<'_>> = report.trace.iter().filter_map(|e| e.decision()).collect();
    let calls = (report.trace.iter())
        .filter(|e| e.event == EventKind::ToolEnd && !e.tool.starts_with("code:"))
        .count();
    NewRun {
        program_hash,
        file: file.map(str::to_string),
        args: args.clone(),
        ok: report.ok,
        result: report.result.clone(),
        error: report.error.as_ref().map(|e| e.message.clone()),
        trace: serde_json::to_string(&report.trace).unwrap_or_else(|_| "[]".into()),
        executed_path: serde_json::to_string(&report.executed_path).unwrap_or_else(|_| "[]".into()),
        decisions: serde_json::to_string(&decisions).unwrap_or_else(|_| "[]".into()),
        timings: json!({
            "analyzeMs": output.stages.analyze_ms,
            "serversMs": output.stages.servers_ms,
            "executeMs": report.timings.execute_ms,
        }),
        calls: calls as i64,
        started_at,
        duration_ms,
        trace_context: output.trace_context.clone(),
    }
}

/// The capability record of `code`, or the diagnostics that keep it from having one (the
/// program has errors: no structure, no hash). From one parse of `code`
/// ([`pml_structure::prepare`]).
pub fn prepare(
    code: &str,
    options: &AnalyzeOptions,
    name: &str,
    description: Option<&str>,
) -> Result<NewCapability, Vec<Diagnostic>> {
    // Hashed without the approval rules (as a run hashes it), which are added after.
    let prepared = pml_structure::prepare(
        code,
        &AnalyzeOptions {
            permissions: None,
            ..options.clone()
        },
    );
    let mut structure = prepared.built.structure;
    let hash = crate::semantic_hash(&structure).map_err(|e| e.errors)?;
    // The hash of what runs (its JavaScript), as a run of it records it: the structure's own
    // but when TypeScript constructs were compiled.
    let code_hash = match prepared.compiled {
        Ok(None) => hash,
        Ok(Some(compiled)) => crate::semantic_hash(&compiled).map_err(|e| e.errors)?,
        Err(e) => return Err(vec![e.to_diagnostic()]),
    };
    if let Some(permissions) = &options.permissions {
        pml_structure::apply_permissions(&mut structure, permissions);
    }
    let normalized_code = prepared.normalized.code;
    let parameterized = prepared.parameterized;
    let mut tools: Vec<String> = Vec::new();
    let mut dependencies: Vec<String> = Vec::new();
    for node in &structure.nodes {
        match (node.kind, &node.tool, &node.capability_id) {
            (NodeKind::Task, Some(tool), _) if !tool.starts_with("code:") => {
                tools.push(tool.clone())
            }
            (NodeKind::Capability, _, Some(name)) => dependencies.push(name.clone()),
            _ => {}
        }
    }
    tools.sort();
    tools.dedup();
    dependencies.sort();
    dependencies.dedup();
    Ok(NewCapability {
        code_hash,
        name: name.to_string(),
        description: description.map(str::to_string),
        code: code.to_string(),
        normalized_code,
        parameterized_code: parameterized.code,
        parameters: serde_json::to_value(&parameterized.parameters).unwrap_or_default(),
        parameter_schema: parameterized.schema,
        hil_tools: structure.hil_required_tools.clone(),
        structure: serde_json::to_value(&structure).unwrap_or_default(),
        tools,
        dependencies,
    })
}

/// What a call of each of `called` must fit, by the name it is called by (see
/// [`call_schema`]).
pub fn call_schemas(called: &[Called]) -> HashMap<String, Value> {
    (called.iter())
        .map(|c| (c.name.clone(), call_schema(&c.stored)))
        .collect()
}

/// What a call of `stored` must fit: its parameter schema without requiring the parameters it
/// has values for (a call's arguments are laid over them), and of the names its program reads
/// of `args` only that they are names it reads (`additionalProperties`): their types and
/// whether they are required are inferred from the program's uses, for its callers to read,
/// and the program runs without them as it would directly (an inherited `root`, a value
/// converted where it is used).
pub fn call_schema(stored: &pml_store::Capability) -> Value {
    let mut schema = stored.parameter_schema.clone();
    let defaults = stored.parameters.as_object();
    let saved = |name: &str| defaults.is_some_and(|d| d.contains_key(name));
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.clear();
    }
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            if !saved(name) {
                *property = Value::Object(Default::default());
            }
        }
    }
    schema
}

/// A capability a program calls, found in the store, with its program as JavaScript (its
/// parameterized code, TypeScript types blanked out).
#[derive(Debug, Clone)]
pub struct Called {
    /// The name the call uses (`capabilities.<name>`).
    pub name: String,
    pub stored: pml_store::Capability,
    /// What runs: its parameterized code as JavaScript, analysed.
    pub analysis: Analysis,
}

/// Every capability the program `structure` is of (run from `file`) calls, and those they
/// call in turn, from `store`. Before anything runs: a name the store does not have, capability calls
/// without a store, and a cycle of capabilities are errors saying where (`file:line:col`, or
/// `capability NAME:line:col` inside a stored one).
pub async fn resolve_called(
    store: Option<&pml_store::Store>,
    file: &str,
    structure: &StaticStructure,
) -> Result<Vec<Called>, crate::run::RunSetupError> {
    let mut resolved: Vec<Called> = Vec::new();
    // Depth first, with the chain of callers: (where, program, chain of capability names).
    let mut chain: Vec<String> = Vec::new();
    visit(store, file, structure, &mut chain, &mut resolved).await?;
    Ok(resolved)
}

/// Resolves the capability calls of one program (`place` names it in errors), then those of
/// each capability it calls (boxed: recursion).
fn visit<'a>(
    store: Option<&'a pml_store::Store>,
    place: &'a str,
    structure: &'a StaticStructure,
    chain: &'a mut Vec<String>,
    resolved: &'a mut Vec<Called>,
) -> pml_executor::BoxFuture<'a, Result<(), crate::run::RunSetupError>> {
    Box::pin(async move {
        let error =
            |line: usize, column: usize, message: String| crate::run::RunSetupError::Source {
                file: place.to_string(),
                message: format!("{line}:{column}: {message}"),
            };
        let calls = (structure.nodes.iter())
            .filter(|n| n.kind == NodeKind::Capability)
            .filter_map(|n| Some((n.capability_id.clone()?, n.span.line, n.span.column)));
        for (name, line, column) in calls {
            // A usage error (exit 2), not an error of the program.
            let Some(store) = store else {
                return Err(crate::run::RunSetupError::Setup(format!(
                    "{place}:{line}:{column}: capabilities.{name}: calling a capability needs the capability store (this run has --no-store)"
                )));
            };
            if let Some(at) = chain.iter().position(|n| *n == name) {
                let mut cycle = chain[at..].to_vec();
                cycle.push(name.clone());
                return Err(error(
                    line,
                    column,
                    format!(
                        "capabilities.{name}: the capabilities call each other in a cycle ({}), which would never end",
                        cycle.join(" -> ")
                    ),
                ));
            }
            if resolved.iter().any(|c| c.name == name) {
                continue;
            }
            let stored = match store.capability(&name).await {
                Ok(stored) => stored,
                Err(pml_store::StoreError::NotFound(_)) => {
                    return Err(error(
                        line,
                        column,
                        format!(
                            "capabilities.{name}: there is no capability named `{name}` in the store (`pml capabilities list`, or the gateway's search_capabilities, shows them)"
                        ),
                    ))
                }
                Err(e) => return Err(e.into()),
            };
            // Saved from TypeScript or JavaScript: types blanked out when there are any (one
            // parse each).
            let analysis = Analysis::of_source(&stored.parameterized_code, Dialect::TypeScript)
                .unwrap_or_else(|_| Analysis::of(stored.parameterized_code.clone()));
            let at = resolved.len();
            resolved.push(Called {
                name: name.clone(),
                stored,
                analysis,
            });
            chain.push(name.clone());
            // Its calls where the user wrote them: in the code as saved (the parameterized code
            // makes the same calls, on other lines when literals were lifted out).
            let inner = &resolved[at].stored.code;
            let inner = crate::analysis::structure_of(inner, Dialect::TypeScript)
                .or_else(|_| crate::analysis::structure_of(inner, Dialect::JavaScript))
                .unwrap_or_default();
            let inner_place = format!("capability {name}");
            // An error inside a stored capability also says which call of this program
            // reached it.
            visit(Some(store), &inner_place, &inner, chain, resolved)
                .await
                .map_err(|e| match e {
                    crate::run::RunSetupError::Source { file, message } => {
                        crate::run::RunSetupError::Source {
                            file,
                            message: format!("{message} (called at {place}:{line}:{column})"),
                        }
                    }
                    other => other,
                })?;
            chain.pop();
        }
        Ok(())
    })
}
