//! What `pml save` stores: a program's capability record, computed by the pipeline stages.

use pml_store::NewCapability;
use pml_structure::{Diagnostic, NodeKind};

use crate::AnalyzeOptions;

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
