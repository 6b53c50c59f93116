//! Capability calls: `capabilities.<name>(args)` runs a stored program (the caller gives it
//! as a [`CapabilityProgram`]) as a nested run, and its value is what the call resolves with.
//!
//! The nested run is a run like the caller's (`program::run`): its own sandbox worker (the
//! caller keeps its own while it waits, so nesting cannot exhaust a pool), the caller's host,
//! approver, approval policy, journal and call count (one limit and one journal numbering for
//! the whole run). Its `args` are the capability's parameter values as saved, overridden by
//! the caller's inherited args, overridden by the call's own. Its trace is laid under the
//! caller's capability node: its events carry the capability's name and `parent`, the node
//! (and iteration) of the call in the caller. A capability that throws makes the call reject
//! with the thrown message; uncaught in the caller, the run's error names both places.
//!
//! Arguments and results cross as JSON, as for MCP calls: a capability is a program called
//! with data, not a function sharing the caller's objects.

use std::collections::HashMap;
use std::sync::Arc;

use pml_sandbox::{Sandbox, SandboxOptions};
use serde_json::{Map, Value};

use crate::Program;

/// A stored capability, ready to run.
#[derive(Debug, Clone)]
pub struct CapabilityProgram {
    /// The semantic hash it is stored under (aliases share it).
    pub code_hash: String,
    /// Its parameterized program (literals turned into `args.<name>`), built like any other.
    pub program: Program,
    /// Each parameter's value in the saved program: what a call that does not give it gets.
    pub defaults: Map<String, Value>,
}

/// The capabilities of one run and the args their calls inherit.
pub(crate) struct Capabilities {
    by_name: HashMap<String, Arc<CapabilityProgram>>,
    inherited: Map<String, Value>,
}

impl Capabilities {
    /// `by_name` as given; the inherited args are `names` taken from the root run's `args`.
    pub(crate) fn new(
        by_name: &HashMap<String, Arc<CapabilityProgram>>,
        names: &[String],
        args: &Value,
    ) -> Self {
        let inherited = names
            .iter()
            .filter_map(|name| Some((name.clone(), args.get(name)?.clone())))
            .collect();
        Capabilities {
            by_name: by_name.clone(),
            inherited,
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Arc<CapabilityProgram>> {
        self.by_name.get(name)
    }

    /// The `args` of a call of `capability` given `given`: its saved values, then the
    /// inherited args, then the call's own; `Err` when the call did not pass an object.
    pub(crate) fn args_of(
        &self,
        capability: &CapabilityProgram,
        given: &Value,
    ) -> Result<Value, String> {
        let given = match given {
            Value::Object(given) => given,
            other => {
                return Err(format!(
                    "takes an object of args, not {}",
                    crate::trace::preview(other)
                ))
            }
        };
        let mut args = capability.defaults.clone();
        for (name, value) in self.inherited.iter().chain(given) {
            args.insert(name.clone(), value.clone());
        }
        Ok(Value::Object(args))
    }
}

/// Each stored capability once (aliases share a program), with the first name it is called
/// by, in name order.
pub(crate) fn distinct(
    by_name: &HashMap<String, Arc<CapabilityProgram>>,
) -> Vec<(&str, &CapabilityProgram)> {
    let mut names: Vec<&String> = by_name.keys().collect();
    names.sort();
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .filter(|name| seen.insert(by_name[*name].code_hash.as_str()))
        .map(|name| (name.as_str(), &*by_name[name]))
        .collect()
}

/// A sandbox of one worker for a nested run, with the caller's limits.
pub(crate) async fn sandbox_like(caller: &Sandbox) -> Result<Arc<Sandbox>, String> {
    let options = SandboxOptions {
        workers: 1,
        ..caller.options().clone()
    };
    tokio::task::spawn_blocking(move || Sandbox::new(options))
        .await
        .map_err(|e| e.to_string())
        .and_then(|made| made.map_err(|e| e.to_string()))
        .map(Arc::new)
}

/// What a call of a capability that threw rejects with: the thrown message without the
/// `Error: ` the sandbox puts before an error's message.
pub(crate) fn thrown_message(message: &str) -> String {
    match message.split_once(": ") {
        Some((name, rest))
            if name.ends_with("Error") && name.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            rest.to_owned()
        }
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thrown_messages_lose_the_error_name_only() {
        assert_eq!(thrown_message("Error: boom"), "boom");
        assert_eq!(
            thrown_message("TypeError: x is not a function"),
            "x is not a function"
        );
        assert_eq!(thrown_message("a plain: string"), "a plain: string");
        assert_eq!(thrown_message("no colon"), "no colon");
    }
}
