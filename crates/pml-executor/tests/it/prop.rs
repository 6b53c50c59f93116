//! Property: random straight-line programs over the key-value fake (reads, writes, echoes,
//! pure operations; literal or previous-result arguments) give the same result, the same
//! calls, the same store and the same order of writes run as written, with speculation, and
//! with speculation against random latencies.

use proptest::prelude::*;
use serde_json::Value;

use crate::modes::equivalent;

#[derive(Debug, Clone)]
enum Arg {
    Lit(i64),
    /// The result of an earlier statement (index taken modulo the statements before).
    Prev(usize),
}

#[derive(Debug, Clone)]
enum Op {
    /// `kv:get` (read-only).
    Get(u8),
    /// `kv:put` (a write).
    Put(u8, Arg),
    /// `t:ro` (read-only echo).
    Echo(Arg),
    /// `t:w` (a write, echo).
    Write(Arg),
    /// A pure operation on a value.
    Code(Arg),
}

fn arg() -> impl Strategy<Value = Arg> {
    prop_oneof![
        (-5i64..50).prop_map(Arg::Lit),
        (0usize..8).prop_map(Arg::Prev)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..3).prop_map(Op::Get),
        3 => (0u8..3, arg()).prop_map(|(k, a)| Op::Put(k, a)),
        2 => arg().prop_map(Op::Echo),
        1 => arg().prop_map(Op::Write),
        1 => arg().prop_map(Op::Code),
    ]
}

fn text(arg: &Arg, i: usize) -> String {
    match arg {
        Arg::Prev(p) if i > 0 => format!("v{}", p % i),
        Arg::Prev(p) => p.to_string(),
        Arg::Lit(n) => n.to_string(),
    }
}

/// The program's source: one statement per op, then `return { vA, vB, .. }`.
fn source(ops: &[Op], returned: &[bool]) -> String {
    let mut s = String::new();
    let keys = ["a", "b", "c"];
    for (i, op) in ops.iter().enumerate() {
        let line = match op {
            Op::Get(k) => format!(
                "const v{i} = await mcp.kv.get({{ key: \"{}\" }});",
                keys[*k as usize]
            ),
            Op::Put(k, a) => format!(
                "const v{i} = await mcp.kv.put({{ key: \"{}\", value: {} }});",
                keys[*k as usize],
                text(a, i)
            ),
            Op::Echo(a) => format!(
                "const v{i} = await mcp.t.ro({{ n: {i}, x: {} }});",
                text(a, i)
            ),
            Op::Write(a) => format!(
                "const v{i} = await mcp.t.w({{ n: {i}, x: {} }});",
                text(a, i)
            ),
            Op::Code(a) => format!(
                "const v{i} = JSON.stringify({{ n: {i}, x: {} }});",
                text(a, i)
            ),
        };
        s.push_str(&line);
        s.push('\n');
    }
    let names: Vec<String> = (0..ops.len())
        .filter(|i| returned.get(*i).copied().unwrap_or(false))
        .map(|i| format!("v{i}"))
        .collect();
    s.push_str(&format!("return {{ {} }};\n", names.join(", ")));
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn straight_line_programs_run_the_same_in_every_mode(
        ops in prop::collection::vec(op(), 1..8),
        returned in prop::collection::vec(any::<bool>(), 8),
    ) {
        let src = source(&ops, &returned);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        // `equivalent` asserts DAG mode was chosen and all four runs agree (result, calls,
        // store, writes in the order they started).
        let outcome = runtime.block_on(equivalent("generated", &src, Value::Object(Default::default())));
        prop_assert!(outcome.ok, "{src}\n{outcome:?}");
        let writes = ops.iter().filter(|o| matches!(o, Op::Put(..) | Op::Write(_))).count();
        prop_assert_eq!(outcome.writes.len(), writes, "{}", src);
    }
}
