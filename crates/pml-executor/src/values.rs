//! Values known ahead of the program: node results by id, and the arguments of a call
//! computed from them (what speculation starts calls with).
//!
//! Simple paths (`n1`, `n1.content`, `j1[0].rows`, `args.root`) are resolved here; any other
//! expression is evaluated in the sandbox with the names it reads as parameters. A wrong value
//! here costs one unused read: the program's own call is taken only when its arguments are
//! the same.

use std::collections::HashMap;

use indexmap::IndexMap;
use pml_sandbox::{CodeTask, Sandbox, SandboxError};
use pml_structure::ArgumentValue;
use serde_json::Value;

/// Logical task id -> its result (`None`: `undefined`, which JSON cannot hold).
pub(crate) type Results = HashMap<String, Option<Value>>;

/// Everything an expression of the program can read: `args`, constants, task results.
pub(crate) struct Values<'a> {
    pub args: &'a Value,
    pub results: &'a Results,
    /// `Promise.all` joins: join id -> the tasks giving its elements.
    pub joins: &'a IndexMap<String, Vec<String>>,
    /// Constants the reader uses by name.
    pub literals: &'a IndexMap<String, Value>,
}

/// Who evaluates: for messages (`argument of n3 (fs:read)`).
pub(crate) struct Reader<'a> {
    pub task_id: &'a str,
    pub tool: &'a str,
}

impl Values<'_> {
    /// The value of a name, if the program's data has it (`None`: a global, or unknown;
    /// `Some(None)`: `undefined`).
    pub(crate) fn name(&self, name: &str) -> Option<Option<Value>> {
        if name == "args" {
            return Some(Some(self.args.clone()));
        }
        if let Some(v) = self.results.get(name) {
            return Some(v.clone());
        }
        if let Some(elements) = self.joins.get(name) {
            let items = elements
                .iter()
                .map(|e| {
                    self.results
                        .get(e)
                        .cloned()
                        .flatten()
                        .unwrap_or(Value::Null)
                })
                .collect();
            return Some(Some(Value::Array(items)));
        }
        self.literals.get(name).map(|v| Some(v.clone()))
    }

    /// Evaluates `code` in the sandbox with the names it reads bound: `given` first, then
    /// what [`Values::name`] knows. `None` for `undefined`.
    pub(crate) fn eval(
        &self,
        code: &str,
        given: Vec<(String, Option<Value>)>,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        let mut bound = given;
        for name in pml_dag::expr::free_names(code) {
            if bound.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Some(v) = self.name(&name) {
                bound.push((name, v));
            }
        }
        // `undefined` cannot travel as JSON: such names are parameters left unpassed, and an
        // `undefined` result comes back as a marker.
        let (defined, undefined): (Vec<_>, Vec<_>) =
            bound.into_iter().partition(|(_, v)| v.is_some());
        let arguments: Vec<(String, Value)> = defined
            .into_iter()
            .map(|(n, v)| (n, v.unwrap_or(Value::Null)))
            .collect();
        let unbound: Vec<String> = undefined.into_iter().map(|(n, _)| n).collect();
        let code = format!(
            "(v => v === undefined ? {{ \"$pml:undefined\": true }} : v)((({}) => ({code}))())",
            unbound.join(", ")
        );
        let value = sandbox.eval(&CodeTask {
            task_id: reader.task_id,
            tool: reader.tool,
            code: &code,
            arguments: &arguments,
        })?;
        Ok(match value {
            Value::Object(ref m)
                if m.len() == 1 && m.get("$pml:undefined") == Some(&Value::Bool(true)) =>
            {
                None
            }
            other => Some(other),
        })
    }

    /// Evaluate an argument: `None` is `undefined` (a member of an object that is then left out).
    pub(crate) fn argument(
        &self,
        value: &ArgumentValue,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        Ok(match value {
            ArgumentValue::Literal { value, .. } => Some(value.clone()),
            ArgumentValue::Parameter { parameter_name } => {
                // `args.a.b` as JavaScript reads it: a missing `a` throws.
                let expression = parameter_name
                    .split('.')
                    .fold(String::from("args"), |base, key| {
                        pml_structure::member_path(&base, key)
                    });
                self.expression(&expression, sandbox, reader)?
            }
            ArgumentValue::Reference { expression } => {
                self.expression(expression, sandbox, reader)?
            }
            ArgumentValue::Object { properties } => {
                Some(Value::Object(self.object(properties, sandbox, reader)?))
            }
            ArgumentValue::Array { items } => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    // `undefined` in an array becomes `null` in JSON.
                    out.push(self.argument(item, sandbox, reader)?.unwrap_or(Value::Null));
                }
                Some(Value::Array(out))
            }
        })
    }

    /// The arguments object of an MCP call: `undefined` members left out, `...spread` keys
    /// merged in order.
    pub(crate) fn object(
        &self,
        properties: &IndexMap<String, ArgumentValue>,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<serde_json::Map<String, Value>, SandboxError> {
        let mut out = serde_json::Map::new();
        for (key, value) in properties {
            let v = self.argument(value, sandbox, reader)?;
            if key.starts_with("...") {
                if let Some(Value::Object(spread)) = v {
                    out.extend(spread);
                }
                continue;
            }
            if let Some(v) = v {
                out.insert(key.clone(), v);
            }
        }
        Ok(out)
    }

    /// Evaluate a JavaScript expression over task ids, `args` and constants.
    pub(crate) fn expression(
        &self,
        expression: &str,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        if let Some(path) = simple_path(expression) {
            match self.name(&path.root) {
                Some(Some(root)) => {
                    if let Some(value) = walk(&root, &path.steps) {
                        return Ok(value);
                    }
                }
                Some(None) if path.steps.is_empty() => return Ok(None),
                _ => {}
            }
        }
        self.eval(expression, Vec::new(), sandbox, reader)
    }
}

struct Path {
    root: String,
    steps: Vec<Step>,
}

enum Step {
    Key(String),
    Index(usize),
}

/// `name(.key | [digits] | ["string"])*`, nothing else.
fn simple_path(text: &str) -> Option<Path> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let ident_start = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c == b'$';
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    if bytes.is_empty() || !ident_start(bytes[0]) {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() && ident_char(bytes[i]) {
        i += 1;
    }
    let root = text[..i].to_owned();
    let mut steps = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'.' => {
                let start = i + 1;
                if start >= bytes.len() || !ident_start(bytes[start]) {
                    return None;
                }
                i = start + 1;
                while i < bytes.len() && ident_char(bytes[i]) {
                    i += 1;
                }
                steps.push(Step::Key(text[start..i].to_owned()));
            }
            b'[' => {
                let close = i + text[i..].find(']')?;
                let inner = &text[i + 1..close];
                if !inner.is_empty() && inner.bytes().all(|c| c.is_ascii_digit()) {
                    steps.push(Step::Index(inner.parse().ok()?));
                } else if inner.starts_with('"') {
                    let key: String = serde_json::from_str(inner).ok()?;
                    steps.push(Step::Key(key));
                } else {
                    return None;
                }
                i = close + 1;
            }
            _ => return None,
        }
    }
    Some(Path { root, steps })
}

/// Follow a path the way JavaScript property access does on JSON values: `Some(None)` for
/// `undefined` (a missing member at the end), `None` when the path needs a JavaScript engine
/// (reading from `undefined` or `null`, which throws; members of strings other than `length`
/// and indices; array members other than indices and `length`).
fn walk(root: &Value, steps: &[Step]) -> Option<Option<Value>> {
    let mut at = root;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let next = match (step, at) {
            (Step::Key(k), Value::Object(m)) => m.get(k),
            (Step::Index(n), Value::Object(m)) => m.get(&n.to_string()),
            (Step::Index(n), Value::Array(a)) => a.get(*n),
            (Step::Key(k), Value::Array(a)) if k == "length" && last => {
                return Some(Some(Value::from(a.len())));
            }
            (Step::Key(k), Value::String(s)) if k == "length" && last => {
                return Some(Some(Value::from(s.encode_utf16().count())));
            }
            _ => return None,
        };
        match next {
            Some(v) => at = v,
            // A missing member is `undefined`; reading on from it throws (the sandbox says so).
            None if last => return Some(None),
            None => return None,
        }
    }
    Some(Some(at.clone()))
}

/// The expressions inside an argument value, in order.
pub(crate) fn expressions<'a>(value: &'a ArgumentValue, out: &mut Vec<&'a str>) {
    match value {
        ArgumentValue::Reference { expression } => out.push(expression),
        ArgumentValue::Object { properties } => {
            properties.values().for_each(|v| expressions(v, out))
        }
        ArgumentValue::Array { items } => items.iter().for_each(|v| expressions(v, out)),
        ArgumentValue::Literal { .. } | ArgumentValue::Parameter { .. } => {}
    }
}
