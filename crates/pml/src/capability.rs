//! What the capability store keeps, computed by the pipeline stages: a program's capability
//! record (`pml save`) and the record of a run (`pml run`).

use pml_store::{NewCapability, NewRun};
use pml_structure::{Diagnostic, Dialect, NodeKind};
use serde_json::{json, Value};

use crate::run::RunOutput;
use crate::AnalyzeOptions;

/// The semantic hash of `code` as `pml save` computes it (`None` when it has errors).
pub fn program_hash(code: &str, dialect: Dialect) -> Option<String> {
    let options = AnalyzeOptions {
        dialect,
        ..Default::default()
    };
    crate::semantic_hash(&crate::analyze(code, &options).structure).ok()
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
    let decisions: Vec<Value> = (report.trace.iter())
        .filter(|e| e.event == "decision")
        .map(|e| json!({ "taskId": e.task_id, "outcome": e.outcome, "iteration": e.iteration }))
        .collect();
    let calls = (report.trace.iter())
        .filter(|e| e.event == "tool_end" && !e.tool.starts_with("code:"))
        .count();
    NewRun {
        program_hash,
        file: file.map(str::to_string),
        args: args.clone(),
        ok: report.ok,
        result: report.result.clone(),
        error: report.error.as_ref().map(|e| e.message.clone()),
        trace: serde_json::to_value(&report.trace).unwrap_or_default(),
        executed_path: serde_json::to_value(&report.executed_path).unwrap_or_default(),
        decisions: Value::Array(decisions),
        timings: json!({
            "analyzeMs": output.stages.analyze_ms,
            "serversMs": output.stages.servers_ms,
            "executeMs": report.timings.execute_ms,
        }),
        calls: calls as i64,
        started_at,
        duration_ms,
    }
}

/// The capability record of `code`, or the diagnostics that keep it from having one (the
/// program has errors: no structure, no hash).
pub fn prepare(
    code: &str,
    options: &AnalyzeOptions,
    name: &str,
    description: Option<&str>,
) -> Result<NewCapability, Vec<Diagnostic>> {
    let structure = crate::analyze(code, options).structure;
    let code_hash = crate::semantic_hash(&structure).map_err(|e| e.errors)?;
    let normalized_code = crate::normalize_variable_names(code, &structure.variable_bindings).code;
    let parameterized = pml_structure::parameterize(code, options.dialect);
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
