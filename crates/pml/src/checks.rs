//! Checks before anything runs: every `mcp.<server>.<tool>(...)` a program (or a capability it
//! calls) can make names a configured server and one of its tools, and its literal arguments
//! fit the tool's `inputSchema`; `args.<name>` read but not given is a warning.
//!
//! The servers' catalogs are what `tools/list` returned when they started, so nothing here
//! guesses: a server that did not start is not checked (its calls fail when they are made).

use std::collections::BTreeSet;

use pml_structure::{ArgumentValue, Node, StaticStructure, ToolCatalog};
use serde_json::Value;

/// One problem found, where it is (line, column; `None`: in the value the program returns,
/// which has no node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub at: Option<(usize, usize)>,
    pub message: String,
    /// The program is certain to make the call, outside anything that catches its failure:
    /// it would fail there. Otherwise (a branch, a loop, a local function, after an early
    /// exit, in a `try`, a `.catch`ed promise) running it directly could go on, so the run
    /// does too: a warning.
    pub certain: bool,
}

impl std::fmt::Display for Problem {
    /// `:line:col: message`, to follow the file's name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some((line, column)) => write!(f, ":{line}:{column}: {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

/// What the servers offer: the configured servers, those that listed their tools, and the
/// tools they listed.
pub struct Offered<'a> {
    pub configured: &'a [String],
    pub listed: &'a BTreeSet<String>,
    pub catalog: &'a ToolCatalog,
}

/// The calls of `structure` that name a server or tool that does not exist, or whose literal
/// arguments do not fit the tool's input schema (errors), in source order.
pub fn check_calls(structure: &StaticStructure, offered: &Offered<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let certain = certain_nodes(structure);
    for node in structure.nodes.iter().filter(|n| n.is_mcp()) {
        let Some((server, tool)) = node.tool.as_deref().and_then(|t| t.split_once(':')) else {
            continue;
        };
        let at = |message: String| Problem {
            at: Some((node.span.line, node.span.column)),
            message,
            certain: certain.contains(node.id.as_str()),
        };
        if !offered.configured.iter().any(|s| s == server) {
            problems.push(at(format!(
                "mcp.{server}.{tool}: no server `{server}` is configured{}",
                suggestion(
                    server,
                    offered.configured.iter().map(String::as_str),
                    "configured"
                )
            )));
            continue;
        }
        if !offered.listed.contains(server) {
            continue;
        }
        let name = format!("{server}:{tool}");
        let Some(schema) = offered.catalog.get(&name) else {
            let prefix = format!("{server}:");
            let tools = (offered.catalog.names())
                .filter_map(|t| t.strip_prefix(&prefix))
                .collect::<Vec<_>>();
            problems.push(at(format!(
                "mcp.{server}.{tool}: server `{server}` has no tool `{tool}`{}",
                suggestion(tool, tools.iter().copied(), "its tools")
            )));
            continue;
        };
        if let Some(input) = &schema.input_schema {
            for why in misfits(node, input) {
                problems.push(at(format!("mcp.{server}.{tool}: {why}")));
            }
        }
    }
    problems
}

/// The nodes the program is certain to reach with nothing around them that catches a failure:
/// at the top level (no branch, loop, fork or local function around them), not
/// [`Node::guarded`], and after no decision (a node an outcome leads to, and every node after
/// it, may not run: the code after `if (!x) return;`).
pub fn certain_nodes(structure: &StaticStructure) -> std::collections::HashSet<&str> {
    use pml_structure::EdgeKind;
    let mut after_decision: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut next: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    let mut todo = Vec::new();
    for edge in &structure.edges {
        match edge.kind {
            EdgeKind::Conditional => todo.push(edge.to.as_str()),
            EdgeKind::Sequence => next
                .entry(edge.from.as_str())
                .or_default()
                .push(edge.to.as_str()),
            EdgeKind::Provides => {}
        }
    }
    while let Some(id) = todo.pop() {
        if after_decision.insert(id) {
            todo.extend(next.get(id).into_iter().flatten().copied());
        }
    }
    (structure.nodes.iter())
        .filter(|n| n.scope.is_none() && !n.guarded && !after_decision.contains(n.id.as_str()))
        .map(|n| n.id.as_str())
        .collect()
}

/// The `args.<name>` the program passes to a call or returns that `args` does not give:
/// warnings, in source order.
pub fn missing_args(structure: &StaticStructure, args: &Value) -> Vec<Problem> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut check = |value: &ArgumentValue, at: Option<(usize, usize)>| {
        parameters(value, &mut |name| {
            let root = name.split(['.', '[']).next().unwrap_or(name);
            if args.get(root).is_none() && seen.insert(root.to_owned()) {
                out.push(Problem {
                    at,
                    message: format!("args.{root} is read but not given (--args): it is undefined"),
                    certain: false,
                });
            }
        });
    };
    for node in &structure.nodes {
        for value in node.arguments.iter().flat_map(|a| a.values()) {
            check(value, Some((node.span.line, node.span.column)));
        }
    }
    if let Some(result) = &structure.result {
        check(result, structure.result_span.map(|s| (s.line, s.column)));
    }
    out
}

fn parameters(value: &ArgumentValue, found: &mut dyn FnMut(&str)) {
    match value {
        ArgumentValue::Parameter { parameter_name } => found(parameter_name),
        ArgumentValue::Object { properties } => {
            properties.values().for_each(|v| parameters(v, found))
        }
        ArgumentValue::Array { items } => items.iter().for_each(|v| parameters(v, found)),
        ArgumentValue::Literal { .. } | ArgumentValue::Reference { .. } => {}
    }
}

/// `; did you mean `x`?` for the closest of `known` to `name`, or the list of `known` when
/// none is close (`what` names them).
fn suggestion<'a>(name: &str, known: impl Iterator<Item = &'a str>, what: &str) -> String {
    let known: Vec<&str> = known.collect();
    let closest = (known.iter())
        .map(|k| (strsim::jaro_winkler(name, k), *k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match (closest, known.len()) {
        (Some((_, k)), _) => format!("; did you mean `{k}`?"),
        (None, 0) => String::new(),
        (None, n) if n <= 12 => format!(" ({what}: {})", known.join(", ")),
        // "its tools" -> "(14 tools, e.g. ...)".
        (None, n) => format!(
            " ({n} {}, e.g. {})",
            what.trim_start_matches("its "),
            known[..6].join(", ")
        ),
    }
}

/// What does not fit `schema` in the call's literal arguments: missing required properties
/// (when every property is known: no spread, no computed key), unknown ones (when the schema
/// forbids others), literal values of the wrong type.
fn misfits(node: &Node, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let given = match &node.arguments {
        Some(arguments) => arguments,
        None => return out,
    };
    let all_known = given
        .keys()
        .all(|k| !k.starts_with("...") && !k.starts_with('['));
    let properties = schema.get("properties").and_then(Value::as_object);
    if all_known {
        let required = schema.get("required").and_then(Value::as_array);
        for name in required.into_iter().flatten().filter_map(Value::as_str) {
            if !given.contains_key(name) {
                out.push(format!("the required argument `{name}` is missing"));
            }
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        if let Some(properties) = properties {
            for name in given
                .keys()
                .filter(|k| !k.starts_with("...") && !k.starts_with('['))
            {
                if !properties.contains_key(name) {
                    let known = properties.keys().map(String::as_str);
                    out.push(format!(
                        "the argument `{name}` is not one the tool takes{}",
                        suggestion(name, known, "it takes")
                    ));
                }
            }
        }
    }
    for (name, value) in given {
        let Some(expected) = properties.and_then(|p| p.get(name)) else {
            continue;
        };
        if let Some(found) = literal_type(value) {
            if !type_fits(expected, found) {
                out.push(format!(
                    "the argument `{name}` is {} {found}, the tool takes {}",
                    article(found),
                    describe_type(expected)
                ));
            }
        }
    }
    out
}

/// The JSON type of a value known before the run (`None`: computed at run time).
fn literal_type(value: &ArgumentValue) -> Option<&'static str> {
    match value {
        ArgumentValue::Literal { value, .. } => Some(match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }),
        ArgumentValue::Object { .. } => Some("object"),
        ArgumentValue::Array { .. } => Some("array"),
        ArgumentValue::Reference { .. } | ArgumentValue::Parameter { .. } => None,
    }
}

/// Whether a value of JSON type `found` fits the property schema `expected` (its `type`, or
/// any of `anyOf`/`oneOf`; no `type`: anything fits).
fn type_fits(expected: &Value, found: &str) -> bool {
    let fits = |t: &str| t == found || (t == "number" && found == "integer");
    if let Some(alternatives) = (expected.get("anyOf"))
        .or_else(|| expected.get("oneOf"))
        .and_then(Value::as_array)
    {
        return alternatives.iter().any(|a| type_fits(a, found));
    }
    match expected.get("type") {
        Some(Value::String(t)) => fits(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
        _ => true,
    }
}

fn article(t: &str) -> &'static str {
    match t.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => "an",
        false => "a",
    }
}

fn describe_type(expected: &Value) -> String {
    match expected.get("type") {
        Some(Value::String(t)) => format!("{} {t}", article(t)),
        Some(Value::Array(ts)) => {
            let ts: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            format!("one of {}", ts.join(", "))
        }
        _ => "something else".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names_are_suggested_else_listed() {
        let known = ["read_text_file", "write_file", "list_directory"];
        assert_eq!(
            suggestion("read_txt_file", known.iter().copied(), "its tools"),
            "; did you mean `read_text_file`?"
        );
        assert_eq!(
            suggestion("zzz", known.iter().copied(), "its tools"),
            " (its tools: read_text_file, write_file, list_directory)"
        );
    }

    #[test]
    fn arguments_a_closed_schema_does_not_take_are_named() {
        let source =
            "await mcp.fs.read({ pth: \"a\", head: 2 });\nawait mcp.fs.read({ ...rest, head: 2 });";
        let structure = crate::analyze(source, &crate::AnalyzeOptions::default()).structure;
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "head": {"type": "number"}},
            "required": ["path"],
            "additionalProperties": false
        });
        assert_eq!(
            misfits(&structure.nodes[0], &schema),
            [
                "the required argument `path` is missing",
                "the argument `pth` is not one the tool takes; did you mean `path`?",
            ]
        );
        // A spread may hold `path`: nothing is said of what it may hold.
        assert_eq!(misfits(&structure.nodes[1], &schema), Vec::<String>::new());
    }

    #[test]
    fn types_fit_their_schemas() {
        let schema = serde_json::json!({ "type": "number" });
        assert!(type_fits(&schema, "integer"));
        assert!(!type_fits(&schema, "string"));
        let either = serde_json::json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] });
        assert!(type_fits(&either, "null") && !type_fits(&either, "boolean"));
        assert!(type_fits(&serde_json::json!({}), "object"));
    }
}
