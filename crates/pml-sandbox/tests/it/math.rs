//! `Math`'s functions and `**` give Node's results to the last bit (`src/math.rs`,
//! `Math.hypot` in `worker/node20.js`): the same program in the sandbox and in Node.

use serde_json::{json, Value};

use crate::intl::{node_returns, sandbox_returns};
use crate::{shared, value};

#[test]
fn math_gives_what_node_gives() {
    let source = include_str!("math/values.js");
    let ours = sandbox_returns(shared(), source);
    let node = node_returns(source);
    let groups = |v: &Value| -> Vec<(String, Vec<Value>)> {
        let groups = v.as_array().expect("an array of groups");
        (groups.iter())
            .map(|g| {
                let g = g.as_array().expect("a group: its name, then its values");
                let name = g[0].as_str().unwrap_or_default().to_owned();
                match &g[1..] {
                    [Value::Array(values)] => (name, values.clone()),
                    rest => (name, rest.to_vec()),
                }
            })
            .collect()
    };
    let (ours, node) = (groups(&ours), groups(&node));
    assert_eq!(ours.len(), node.len());
    let mut differ = Vec::new();
    for ((name, ours), (_, node)) in ours.iter().zip(&node) {
        assert_eq!(ours.len(), node.len(), "{name}");
        let wrong: Vec<String> = (ours.iter().zip(node).enumerate())
            .filter(|(_, (o, n))| o != n)
            .map(|(i, (o, n))| format!("#{i}: node {n}, pml {o}"))
            .collect();
        if !wrong.is_empty() {
            let first: Vec<&String> = wrong.iter().take(3).collect();
            differ.push(format!(
                "{name}: {} of {} differ, {first:?}",
                wrong.len(),
                ours.len()
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn code_tasks_compute_powers_as_programs_do() {
    // Speculation computes a read's arguments in a code task: the same digits as the program.
    assert_eq!(
        value("(1 + r) ** n", &[("r", json!(0.0725)), ("n", json!(3))]),
        json!(1.233649828125)
    );
    assert_eq!(value("Math.pow(1.07, 3)", &[]), json!(1.2250430000000003));
}

/// Numbers written in another radix than 10 give V8's digits (`(0.001).toString(36)` ended
/// `gez5` in pml, `gez6` in Node): fractions, integers past 2**53, the smallest and largest
/// doubles, every radix.
#[test]
fn numbers_in_other_radixes_are_node_s() {
    crate::intl::same_as_node(include_str!("math/radix.js"));
}
