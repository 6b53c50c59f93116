//! JavaScript for a fused task: each logical step is a lambda over its own arguments, so names
//! never clash between steps; a step's result is a local `const` named by its logical id.

use pml_dag::Task;
use pml_structure::{ArgumentValue, Arguments};

/// What a fused task returns: the last step's value (a chain), or every step's value keyed by
/// logical id (independent siblings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outputs {
    Last,
    Each,
}

/// The code (a JavaScript expression) and the arguments of a task running `steps` in order.
pub(crate) fn fused(steps: &[&Task], outputs: Outputs) -> (String, Arguments) {
    let mut body = String::from("(() => {\n");
    let mut arguments = Arguments::new();
    let mut earlier: Vec<&str> = Vec::new();
    for (k, step) in steps.iter().enumerate() {
        let mut params = Vec::new();
        let mut values = Vec::new();
        // A code task's arguments are its free names: static keys.
        for (name, value) in step.arguments.iter().flatten() {
            params.push(name.to_string());
            let local = match value {
                ArgumentValue::Reference { reads, .. } => {
                    !reads.is_empty() && reads.iter().all(|n| earlier.contains(&n.as_str()))
                }
                _ => false,
            };
            if local {
                if let ArgumentValue::Reference { expression, .. } = value {
                    values.push(expression.clone());
                }
            } else {
                let key = format!("{}${}", step.id, name);
                values.push(key.clone());
                arguments.insert(key.into(), value.clone());
            }
        }
        let code = step.code.as_deref().unwrap_or("undefined");
        let call = format!(
            "(({}) => ({code}))({})",
            params.join(", "),
            values.join(", ")
        );
        if k + 1 == steps.len() && outputs == Outputs::Last {
            body.push_str(&format!("  return {call};\n"));
        } else {
            body.push_str(&format!("  const {} = {call};\n", step.id));
        }
        earlier.push(&step.id);
    }
    if outputs == Outputs::Each {
        let fields: Vec<String> = steps
            .iter()
            .map(|s| format!("{:?}: {}", s.id, s.id))
            .collect();
        body.push_str(&format!("  return {{ {} }};\n", fields.join(", ")));
    }
    body.push_str("})()");
    (body, arguments)
}
