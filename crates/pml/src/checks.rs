//! Checks before anything runs: every `mcp.<server>.<tool>(...)` a program (or a capability it
//! calls) can make names a configured server and one of its tools, and its arguments, as far
//! as they are known before the run, fit the tool's whole `inputSchema` (the `jsonschema`
//! validator; computed parts left open); `args.<name>` read but not given is a warning.
//!
//! The servers' catalogs are what `tools/list` returned when they started, so nothing here
//! guesses: a server that did not start is not checked (its calls fail when they are made).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, Mutex};

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
    /// The parameter schemas of the capabilities the program calls, by the name it calls them.
    pub capabilities: &'a std::collections::HashMap<String, Value>,
    pub configured: &'a [String],
    /// The config file the servers come from, if any.
    pub origin: Option<&'a str>,
    pub listed: &'a BTreeSet<String>,
    pub catalog: &'a ToolCatalog,
}

/// The calls of `structure` that name a server or tool that does not exist, or whose literal
/// arguments do not fit the tool's input schema (errors), in source order.
pub fn check_calls(structure: &StaticStructure, offered: &Offered<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let certain = certain_nodes(structure);
    // `capabilities.NAME(args)`: the arguments against the capability's parameter schema.
    for node in (structure.nodes.iter()).filter(|n| n.kind == pml_structure::NodeKind::Capability) {
        let Some(name) = node.capability_id.as_deref() else {
            continue;
        };
        let Some(schema) = offered.capabilities.get(name) else {
            continue;
        };
        for why in misfits(node, schema, "capability") {
            problems.push(Problem {
                at: Some((node.span.line, node.span.column)),
                message: format!("capabilities.{name}: {why}"),
                certain: certain.contains(node.id.as_str()),
            });
        }
    }
    for node in structure.nodes.iter().filter(|n| n.is_mcp()) {
        let Some((server, tool)) = node.tool.as_deref().and_then(|t| t.split_once(':')) else {
            continue;
        };
        // A server or tool named at run time (`fs:?`): checked when the call is made. A known
        // server must be configured all the same.
        if server == pml_structure::DYNAMIC_NAME {
            continue;
        }
        // A tool used as a value (`typeof fs.read_v2`, `paths.map(fs.read)`) is a function
        // whatever its name: only calling it fails, if that ever happens.
        let called = node.arguments.is_some();
        let at = |message: String| Problem {
            at: Some((node.span.line, node.span.column)),
            message,
            certain: called && certain.contains(node.id.as_str()),
        };
        if !offered.configured.iter().any(|s| s == server) {
            problems.push(at(format!(
                "mcp.{server}.{tool}: no server `{server}` is configured{}{}",
                offered
                    .origin
                    .map(|o| format!(" in {o}"))
                    .unwrap_or_default(),
                suggestion(
                    server,
                    offered.configured.iter().map(String::as_str),
                    "configured"
                )
            )));
            continue;
        }
        if !offered.listed.contains(server) || tool == pml_structure::DYNAMIC_NAME {
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
            for why in misfits(node, input, "tool") {
                problems.push(at(format!("mcp.{server}.{tool}: {why}")));
            }
        }
    }
    problems.sort_by_key(|p| p.at);
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

/// Most validators [`validator`] keeps (then it starts over).
const VALIDATORS: usize = 512;

/// The validator of `schema` (`None`: one it cannot read). Formats (`uri`, `email`...) are
/// annotations a server may or may not enforce: not checked. Building one costs more than
/// checking a program's calls with it, and a gateway checks the same tools' schemas run after
/// run: validators are kept by the schema's text.
fn validator(schema: &Value) -> Option<Arc<jsonschema::Validator>> {
    static KEPT: LazyLock<Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>> =
        LazyLock::new(Mutex::default);
    let key = schema.to_string();
    if let Some(kept) = KEPT.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return kept.clone();
    }
    let built = (jsonschema::options().should_validate_formats(false))
        .build(schema)
        .ok()
        .map(Arc::new);
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() >= VALIDATORS {
        kept.clear();
    }
    kept.insert(key, built.clone());
    built
}

/// What does not fit `schema` in the call's arguments, as far as they are known before the
/// run: the whole input schema is checked (nested objects, arrays, enums, formats, `required`,
/// `additionalProperties`...) by a JSON Schema validator against the arguments with every part
/// computed at run time left open. Nothing is said where such a part could change the answer:
/// at or under a computed value, `required` of an object built with a spread or a computed
/// key, or a combinator (`anyOf`, `oneOf`...) over something computed.
fn misfits(node: &Node, schema: &Value, what: &str) -> Vec<String> {
    let Some(given) = &node.arguments else {
        return Vec::new();
    };
    let mut known = Known::default();
    let instance = known.object(given, "");
    misfits_of(&instance, &known, schema, what)
}

/// What does not fit `schema` in `args`, arguments known whole (`run_capability`'s, a
/// capability tool's), said as for a call in a program: `the argument `mesage` is not one the
/// capability takes; did you mean `message`?`.
pub fn value_misfits(args: &Value, schema: &Value, what: &str) -> Vec<String> {
    misfits_of(args, &Known::default(), schema, what)
}

/// [`misfits`] of the arguments `instance`, where `known` says which parts are computed.
fn misfits_of(instance: &Value, known: &Known, schema: &Value, what: &str) -> Vec<String> {
    // A schema the validator cannot read says nothing about the call.
    let Some(validator) = validator(schema) else {
        return Vec::new();
    };
    // (where, which kind of problem, what is said): said by place, then missing properties,
    // unknown ones, wrong types, the rest.
    let mut out: Vec<(String, u8, String)> = Vec::new();
    for error in validator.iter_errors(instance) {
        let path = error.instance_path().as_str();
        if known.unknown_at_or_under(path) {
            continue;
        }
        let above_unknown = known.unknown_under(path);
        let place = place(instance, path);
        let message = match error.kind() {
            jsonschema::error::ValidationErrorKind::Required { property } => {
                if known.open.iter().any(|o| o == path) {
                    continue;
                }
                let property = property.as_str().unwrap_or_default();
                match place {
                    None => format!("the required argument `{property}` is missing"),
                    Some(place) => {
                        format!("`{place}` lacks the required property `{property}`")
                    }
                }
            }
            jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                let owner = parent_pointer(error.schema_path().as_str());
                let properties = (schema.pointer(owner))
                    .and_then(|s| s.get("properties"))
                    .and_then(Value::as_object);
                let said: Vec<String> = unexpected
                    .iter()
                    .map(|name| {
                        let hint = properties
                            .map(|p| suggestion(name, p.keys().map(String::as_str), "it takes"))
                            .unwrap_or_default();
                        match &place {
                            None => format!("the argument `{name}` is not one the {what} takes{hint}"),
                            Some(place) => format!(
                                "`{place}` has the property `{name}`, which the {what} does not take{hint}"
                            ),
                        }
                    })
                    .collect();
                out.extend(said.into_iter().map(|m| (path.to_owned(), 1, m)));
                continue;
            }
            jsonschema::error::ValidationErrorKind::Type { .. } => {
                let found = json_type(error.instance());
                let expected = schema
                    .pointer(parent_pointer(error.schema_path().as_str()))
                    .map(describe_type)
                    .unwrap_or_else(|| "something else".to_owned());
                match &place {
                    None => format!(
                        "the arguments are {} {found}, the {what} takes {expected}",
                        article(found)
                    ),
                    Some(place) if !place.contains(['.', '[']) => format!(
                        "the argument `{place}` is {} {found}, the {what} takes {expected}",
                        article(found)
                    ),
                    Some(place) => format!(
                        "`{place}` is {} {found}, the {what} takes {expected}",
                        article(found)
                    ),
                }
            }
            // What a computed part may change is not said.
            _ if above_unknown => continue,
            _ => match &place {
                None => format!("the arguments do not fit: {error}"),
                Some(place) => format!("`{place}` does not fit: {error}"),
            },
        };
        let rank = match error.kind() {
            jsonschema::error::ValidationErrorKind::Required { .. } => 0,
            jsonschema::error::ValidationErrorKind::Type { .. } => 2,
            _ => 3,
        };
        out.push((path.to_owned(), rank, message));
    }
    // In the order the program writes the arguments.
    let mut order = std::collections::HashMap::new();
    preorder(instance, String::new(), &mut order);
    let at = |path: &str| order.get(path).copied().unwrap_or(usize::MAX);
    out.sort_by_key(|(path, rank, _)| (at(path), *rank));
    let mut said: Vec<String> = out.into_iter().map(|(_, _, m)| m).collect();
    said.dedup();
    said
}

/// The arguments as far as they are known: literal values as they are, computed ones as
/// `null` with their JSON pointer in `unknown`, objects with a spread or a computed key in
/// `open` (their other properties are known; which properties they have is not).
#[derive(Default)]
struct Known {
    unknown: Vec<String>,
    open: Vec<String>,
}

impl Known {
    fn object(&mut self, properties: &pml_structure::Arguments, at: &str) -> Value {
        let mut out = serde_json::Map::new();
        for (key, value) in properties {
            let Some(key) = key.as_static() else {
                // A spread or a computed key: which properties there are is not known.
                if !self.open.iter().any(|o| o == at) {
                    self.open.push(at.to_owned());
                }
                continue;
            };
            let path = format!("{at}/{}", escape(key));
            let value = self.value(value, &path);
            out.insert(key.to_owned(), value);
        }
        Value::Object(out)
    }

    fn value(&mut self, value: &ArgumentValue, at: &str) -> Value {
        match value {
            ArgumentValue::Literal { value, .. } => value.clone(),
            ArgumentValue::Object { properties } => self.object(properties, at),
            ArgumentValue::Array { items } => {
                // Its items are known one by one (an array with a spread or a hole is a
                // reference).
                let items = (items.iter().enumerate())
                    .map(|(i, item)| self.value(item, &format!("{at}/{i}")))
                    .collect();
                Value::Array(items)
            }
            ArgumentValue::Reference { .. } | ArgumentValue::Parameter { .. } => {
                self.unknown.push(at.to_owned());
                Value::Null
            }
        }
    }

    fn unknown_at_or_under(&self, path: &str) -> bool {
        self.unknown.iter().any(|u| {
            path == u
                || path
                    .strip_prefix(u.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
    }

    /// Something under `path` is computed.
    fn unknown_under(&self, path: &str) -> bool {
        self.unknown
            .iter()
            .any(|u| u.strip_prefix(path).is_some_and(|r| r.starts_with('/')))
    }
}

/// The JSON pointer of every value in `value`, numbered in document order.
fn preorder(value: &Value, at: String, order: &mut std::collections::HashMap<String, usize>) {
    let n = order.len();
    order.insert(at.clone(), n);
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                preorder(v, format!("{at}/{}", escape(key)), order);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                preorder(v, format!("{at}/{i}"), order);
            }
        }
        _ => {}
    }
}

/// A JSON pointer segment for `key`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The pointer above the last segment of `pointer` (`/properties/a/type` -> `/properties/a`).
fn parent_pointer(pointer: &str) -> &str {
    pointer.rfind('/').map_or("", |i| &pointer[..i])
}

/// Where `pointer` is in the arguments, as JavaScript writes it (`entities[0].name`); `None`
/// for the arguments themselves.
fn place(instance: &Value, pointer: &str) -> Option<String> {
    let mut out = String::new();
    let mut here = instance;
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        match here {
            Value::Array(items) => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("[{segment}]"));
                here = segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .unwrap_or(&Value::Null);
            }
            _ => {
                let identifier = !segment.is_empty()
                    && segment
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
                    && !segment.starts_with(|c: char| c.is_ascii_digit());
                match (out.is_empty(), identifier) {
                    (true, true) => out.push_str(&segment),
                    (false, true) => {
                        out.push('.');
                        out.push_str(&segment);
                    }
                    (_, false) => out.push_str(&format!("[{}]", Value::String(segment.clone()))),
                }
                here = here.get(&segment).unwrap_or(&Value::Null);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The JSON type of a known value (`integer` for whole numbers).
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
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
            misfits(&structure.nodes[0], &schema, "tool"),
            [
                "the required argument `path` is missing",
                "the argument `pth` is not one the tool takes; did you mean `path`?",
            ]
        );
        // A spread may hold `path`: nothing is said of what it may hold.
        assert_eq!(
            misfits(&structure.nodes[1], &schema, "tool"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn the_whole_schema_is_checked_where_the_arguments_are_known() {
        let source = r#"await mcp.memory.create_entities({ entities: [{ name: "a", entityTyp: "x", observations: [] }] });
await mcp.memory.create_entities({ entities: [{ name: who, entityType: "t", observations: seen }] });
await mcp.memory.create_entities({ entities: [{ ...base, name: "b" }] });
await mcp.memory.create_entities({ entities: [{ name: 3, entityType: "t", observations: ["o"] }], mode: "z" });
await mcp.memory.create_entities({ entities: [...more] });"#;
        let structure = crate::analyze(source, &crate::AnalyzeOptions::default()).structure;
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "entities": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "entityType": {"type": "string"},
                        "observations": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["name", "entityType", "observations"],
                    "additionalProperties": false
                }},
                "mode": {"enum": ["a", "b"]}
            },
            "required": ["entities"]
        });
        let calls: Vec<&Node> = structure.nodes.iter().filter(|n| n.is_mcp()).collect();
        assert_eq!(
            misfits(calls[0], &schema, "tool"),
            [
                "`entities[0]` lacks the required property `entityType`",
                "`entities[0]` has the property `entityTyp`, which the tool does not take; did you mean `entityType`?",
            ]
        );
        // Computed values, a spread, a spread array: nothing is said of what they may hold.
        assert_eq!(misfits(calls[1], &schema, "tool"), Vec::<String>::new());
        assert_eq!(misfits(calls[2], &schema, "tool"), Vec::<String>::new());
        assert_eq!(misfits(calls[4], &schema, "tool"), Vec::<String>::new());
        let wrong = misfits(calls[3], &schema, "tool");
        assert_eq!(
            wrong[0], "`entities[0].name` is an integer, the tool takes a string",
            "{wrong:?}"
        );
        assert!(wrong[1].starts_with("`mode` does not fit: "), "{wrong:?}");
    }
}
