//! Values known ahead of the program: node results by id, and the arguments of a call
//! computed from them (what speculation starts calls with).
//!
//! A reference that is one name (`n1`, a constant) is looked up here; any other expression is
//! evaluated in the sandbox with the names it reads (the structure says which) as parameters,
//! so it reads what JavaScript reads. A wrong value here costs one unused read: the program's
//! own call is taken only when its arguments are the same.

use std::collections::HashMap;

use indexmap::IndexMap;
use pml_sandbox::{CodeTask, Sandbox, SandboxError};
use pml_structure::{ArgumentValue, Arguments, Key};
use serde_json::Value;

/// Logical task id -> its result (`None`: `undefined`, which JSON cannot hold).
pub(crate) type Results = HashMap<String, Option<Value>>;

/// Everything an expression of the program can read: `args`, constants, task results.
pub(crate) struct Values<'a> {
    /// The program's parameters, when they can be known ahead of it.
    pub args: Option<&'a Value>,
    pub results: &'a Results,
    /// `Promise.all` joins: join id -> the tasks giving its elements.
    pub joins: &'a IndexMap<String, Vec<String>>,
    /// Constants the reader uses by name.
    pub literals: &'a IndexMap<String, Value>,
    /// The names the program declares: code reading one whose value is not known here is
    /// not computed (`typeof helper` would say `undefined`).
    pub declared: &'a pml_structure::Names,
    /// Whether code may be evaluated here at all: not when the program changes its globals
    /// (`Math.round = ...`, `globalThis.base = ...`, `String.prototype.trim = ...`), which the
    /// side context evaluating ahead of it does not have: only names and literals are known
    /// then.
    pub evaluates: bool,
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
            // A local function's parameter named `args` (bound among the constants) hides the
            // program's.
            let args = self.literals.get(name).or(self.args)?;
            return Some(Some(args.clone()));
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

    /// Evaluates the code of a code task, whose arguments (`given`) are the names it reads
    /// (`args` besides). `None` for `undefined`.
    pub(crate) fn code(
        &self,
        code: &str,
        given: Vec<(String, Option<Value>)>,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        self.eval(code, given, &["args".to_owned()], sandbox, reader)
    }

    /// Evaluates `code` in the sandbox with the names it reads bound: `given` first, then
    /// those of `reads` that [`Values::name`] knows. `None` for `undefined`.
    fn eval(
        &self,
        code: &str,
        given: Vec<(String, Option<Value>)>,
        reads: &[String],
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        if !self.evaluates {
            return Err(SandboxError::Exception {
                task_id: reader.task_id.to_owned(),
                tool: reader.tool.to_owned(),
                message: "the program changes its globals: not computed ahead".into(),
                stack: None,
            });
        }
        let mut bound = given;
        for name in reads {
            if bound.iter().any(|(n, _)| n == name) {
                continue;
            }
            match self.name(name) {
                Some(v) => bound.push((name.clone(), v)),
                // A function's `arguments` is the program's too: computed here it would be
                // the wrapper's.
                None if program_only(name)
                    || name == "arguments"
                    || self.declared.contains(name.as_str()) =>
                {
                    return Err(SandboxError::Exception {
                        task_id: reader.task_id.to_owned(),
                        tool: reader.tool.to_owned(),
                        message: format!(
                            "ReferenceError: {name} is the program's alone: not computed ahead"
                        ),
                        stack: None,
                    });
                }
                None => {}
            }
        }
        // `undefined` cannot travel as JSON: such names are parameters left unpassed, and an
        // `undefined` result comes back as a marker. So does a result JSON would hold as
        // another value (NaN, an infinity or -0 as `null` or `0`, `undefined` members, a
        // `Date`, a `Map`, an instance...): code computed ahead from it would compute
        // something else than the program (`${max}` of `Math.max()` as `null`), so it is not
        // known ahead.
        let (defined, undefined): (Vec<_>, Vec<_>) =
            bound.into_iter().partition(|(_, v)| v.is_some());
        let arguments: Vec<(String, Value)> = defined
            .into_iter()
            .map(|(n, v)| (n, v.unwrap_or(Value::Null)))
            .collect();
        let unbound: Vec<String> = undefined.into_iter().map(|(n, _)| n).collect();
        let code = format!(
            "(v => v === undefined ? {{ \"$pml:undefined\": true }} : {EXACT}(v, 0) ? v : {{ \"$pml:inexact\": true }})((({}) => ({code}))())",
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
            Value::Object(ref m)
                if m.len() == 1 && m.get("$pml:inexact") == Some(&Value::Bool(true)) =>
            {
                return Err(SandboxError::Internal(
                    "a value JSON does not hold exactly is not computed ahead".into(),
                ))
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
        self.argument_as(value, false, sandbox, reader)
    }

    /// Evaluate what a call passes a local function's parameter: [`Values::argument`], but
    /// the value the function gets, not its JSON: an `undefined` element or member (which
    /// JSON would write `null` or leave out) makes it not known ahead.
    pub(crate) fn parameter(
        &self,
        value: &ArgumentValue,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        self.argument_as(value, true, sandbox, reader)
    }

    /// `exact`: as the value itself (see [`Values::parameter`]), else as its JSON.
    fn argument_as(
        &self,
        value: &ArgumentValue,
        exact: bool,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        let not_exact =
            || SandboxError::Internal("an undefined element is not computed ahead".into());
        Ok(match value {
            ArgumentValue::Literal { value, .. } => Some(value.clone()),
            ArgumentValue::Parameter { parameter_name } => {
                // `args.a.b` as JavaScript reads it: a missing `a` throws.
                let expression = ArgumentValue::parameter_keys(parameter_name)
                    .fold(String::from("args"), |base, key| {
                        pml_structure::member_path(&base, key)
                    });
                self.expression(&expression, &["args".to_owned()], sandbox, reader)?
            }
            ArgumentValue::Reference {
                expression, reads, ..
            } => self.expression(expression, reads, sandbox, reader)?,
            ArgumentValue::Object { properties } => Some(Value::Object(
                self.object_as(properties, exact, sandbox, reader)?,
            )),
            ArgumentValue::Array { items } => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    // `undefined` in an array becomes `null` in JSON.
                    match self.argument_as(item, exact, sandbox, reader)? {
                        Some(v) => out.push(v),
                        None if exact => return Err(not_exact()),
                        None => out.push(Value::Null),
                    }
                }
                Some(Value::Array(out))
            }
        })
    }

    /// The arguments object of an MCP call, as JavaScript builds the object literal and
    /// `JSON.stringify` writes it: entries in order, a computed key as its value's property key
    /// (a symbol key left out), spreads merged in (an array's elements by index), `undefined`
    /// members left out. A spread whose value is not known to spread as JSON can (a string)
    /// is an error: the call is not computed ahead.
    pub(crate) fn object(
        &self,
        properties: &Arguments,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<serde_json::Map<String, Value>, SandboxError> {
        self.object_as(properties, false, sandbox, reader)
    }

    /// [`Values::object`]; `exact`: an `undefined` member makes it not known ahead.
    fn object_as(
        &self,
        properties: &Arguments,
        exact: bool,
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<serde_json::Map<String, Value>, SandboxError> {
        let mut out = serde_json::Map::new();
        for (key, value) in properties {
            let name = match key {
                Key::Static(name) => Some(name.clone()),
                Key::Computed(c) => {
                    // JavaScript's ToPropertyKey (the key before the value).
                    let code = format!(
                        "(k => typeof k === \"symbol\" ? undefined : String(k))({})",
                        c.expression
                    );
                    match self.eval(&code, Vec::new(), &c.reads, sandbox, reader)? {
                        Some(Value::String(name)) => Some(name),
                        _ => None,
                    }
                }
                Key::Spread(_) => {
                    match self.argument_as(value, exact, sandbox, reader)? {
                        Some(Value::Object(spread)) => {
                            for (k, v) in spread {
                                // A later entry overrides an earlier one, in the earlier's place.
                                out.insert(k, v);
                            }
                        }
                        Some(Value::Array(items)) => {
                            for (i, v) in items.into_iter().enumerate() {
                                out.insert(i.to_string(), v);
                            }
                        }
                        // Spreading `null`, `undefined`, a number or a boolean adds nothing.
                        None | Some(Value::Null | Value::Number(_) | Value::Bool(_)) => {}
                        Some(Value::String(_)) => {
                            return Err(SandboxError::Internal(
                                "a spread string is not computed ahead".into(),
                            ))
                        }
                    }
                    continue;
                }
            };
            let v = self.argument_as(value, exact, sandbox, reader)?;
            match (name, v) {
                (Some(name), Some(v)) => {
                    out.insert(name, v);
                }
                (Some(_), None) if exact => {
                    return Err(SandboxError::Internal(
                        "an undefined member is not computed ahead".into(),
                    ))
                }
                _ => {}
            }
        }
        Ok(pml_structure::in_js_order(out))
    }

    /// Evaluate a JavaScript expression over task ids, `args` and constants; `reads` are the
    /// names it reads.
    pub(crate) fn expression(
        &self,
        expression: &str,
        reads: &[String],
        sandbox: &Sandbox,
        reader: &Reader<'_>,
    ) -> Result<Option<Value>, SandboxError> {
        if let [name] = reads {
            if name == expression {
                if let Some(value) = self.name(name) {
                    return Ok(value);
                }
            }
        }
        self.eval(expression, Vec::new(), reads, sandbox, reader)
    }
}

/// A JavaScript function `(v, depth) => boolean`: whether JSON holds `v` exactly (`null`,
/// booleans, strings, finite numbers but -0, arrays without holes and plain objects of such
/// values, as own data properties, not too deep).
const EXACT: &str = "(function exact(v, d) { \
    if (v === null || typeof v === \"string\" || typeof v === \"boolean\") return true; \
    if (typeof v === \"number\") return v === v && v !== 1 / 0 && v !== -1 / 0 && !(v === 0 && 1 / v < 0); \
    if (typeof v !== \"object\" || d > 64) return false; \
    const p = Object.getPrototypeOf(v); \
    const array = Array.isArray(v); \
    if (array ? p !== Array.prototype : p !== Object.prototype && p !== null) return false; \
    if (Object.getOwnPropertySymbols(v).length > 0) return false; \
    const keys = Object.getOwnPropertyNames(v); \
    if (array && keys.length !== v.length + 1) return false; \
    for (const k of keys) { \
      if (array && k === \"length\") continue; \
      const f = Object.getOwnPropertyDescriptor(v, k); \
      if (!f.enumerable || !(\"value\" in f) || !exact(f.value, d + 1)) return false; \
    } \
    return true; })";

/// Globals a program's context has and the side context that computes ahead of it has not
/// (`console`, timers, the web platform's data functions, `Buffer`, typed arrays, weak
/// references, `performance`...): code reading one is the program's to compute (there,
/// `typeof TextEncoder` is `function`; computed ahead it would be `undefined`).
pub(crate) fn program_only(name: &str) -> bool {
    matches!(
        name,
        "performance"
            | "structuredClone"
            | "setTimeout"
            | "setInterval"
            | "setImmediate"
            | "clearTimeout"
            | "clearInterval"
            | "clearImmediate"
            | "console"
            | "TextEncoder"
            | "TextDecoder"
            | "URL"
            | "URLSearchParams"
            | "atob"
            | "btoa"
            | "crypto"
            | "Buffer"
            | "DOMException"
            | "WeakRef"
            | "FinalizationRegistry"
            | "Proxy"
            | "ArrayBuffer"
            | "SharedArrayBuffer"
            | "DataView"
            | "Int8Array"
            | "Uint8Array"
            | "Uint8ClampedArray"
            | "Int16Array"
            | "Uint16Array"
            | "Int32Array"
            | "Uint32Array"
            | "Float32Array"
            | "Float64Array"
            | "BigInt64Array"
            | "BigUint64Array"
            | "eval"
            | "mcp"
            | "capabilities"
    )
}
