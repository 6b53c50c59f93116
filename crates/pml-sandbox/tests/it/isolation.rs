//! What a task can reach (no I/O, no code from strings) and what it leaves behind (nothing).

use pml_sandbox::{Sandbox, SandboxOptions};
use serde_json::json;

use crate::{error, eval, eval_in, value};

#[test]
fn io_globals_are_absent() {
    for name in [
        "require",
        "process",
        "fetch",
        "Deno",
        "std",
        "os",
        "setTimeout",
        "setInterval",
        "XMLHttpRequest",
        "WebSocket",
        "module",
        "exports",
        "Bun",
        "importScripts",
        "print",
        "console",
        "scriptArgs",
        "__loadScript",
        "eval",
    ] {
        assert_eq!(
            value(&format!("typeof {name}"), &[]),
            json!("undefined"),
            "{name}"
        );
        assert_eq!(
            value(&format!("'{name}' in globalThis"), &[]),
            json!(false),
            "{name}"
        );
    }
}

#[test]
fn globals_are_the_reviewed_list() {
    // A new global (e.g. after an rquickjs upgrade) must be reviewed for I/O before it is added.
    // Typed arrays, `Atomics`, `Proxy`, `WeakRef` and `performance` are deliberately absent.
    let names = value("Object.getOwnPropertyNames(globalThis).sort()", &[]);
    // `Intl` is pml's own (`intl.rs`: collation and number formatting, no I/O), given to code
    // that names it.
    assert_eq!(
        value(
            "Object.getOwnPropertyNames(globalThis).includes('Intl')",
            &[]
        ),
        json!(true)
    );
    let expected = json!([
        "AggregateError",
        "Array",
        "BigInt",
        "Boolean",
        "Date",
        "Error",
        "EvalError",
        "Function",
        "Infinity",
        "JSON",
        "Map",
        "Math",
        "NaN",
        "Number",
        "Object",
        "Promise",
        "RangeError",
        "ReferenceError",
        "Reflect",
        "RegExp",
        "Set",
        "String",
        "Symbol",
        "SyntaxError",
        "TypeError",
        "URIError",
        "WeakMap",
        "WeakSet",
        "decodeURI",
        "decodeURIComponent",
        "encodeURI",
        "encodeURIComponent",
        "escape",
        "global",
        "globalThis",
        "isFinite",
        "isNaN",
        "parseFloat",
        "parseInt",
        "queueMicrotask",
        "undefined",
        "unescape"
    ]);
    assert_eq!(names, expected);
}

#[test]
fn code_tasks_lack_what_node_20_lacks() {
    // Speculation computes a code task ahead of the program: what fails in Node 20 (and so in
    // the program) fails here too, rather than giving a value a read could be made with.
    let code = "[Object.groupBy, new Set().union, [].values().map, Promise.withResolvers, Map.groupBy, Math.sumPrecise].map((f) => typeof f)";
    assert_eq!(
        eval(code, &[]).unwrap(),
        json!([
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined"
        ])
    );
    let thrown = eval("Object.groupBy([1, 2], (x) => x % 2)", &[]).unwrap_err();
    assert!(thrown.to_string().contains("not a function"), "{thrown}");
}

#[test]
fn eval_and_function_constructors_are_disabled() {
    // Task contexts have no parser: QuickJS itself refuses to turn strings into code.
    let denied = "code task n1 (code:test) threw: TypeError: eval is not supported";
    assert_eq!(error("Function('return 1')()", &[]), denied);
    assert_eq!(error("new Function('return 1')()", &[]), denied);
    assert_eq!(error("(() => {}).constructor('return 1')()", &[]), denied);
    assert_eq!(
        error(
            "Object.getPrototypeOf(function* () {}).constructor('yield 1')",
            &[]
        ),
        denied
    );
    assert_eq!(
        error("(async () => {}).constructor('return 1')", &[]),
        denied
    );
    assert_eq!(
        error("(async function* () {}).constructor('yield 1')", &[]),
        denied
    );
    assert_eq!(
        error("Reflect.construct(Function, ['return 1'])", &[]),
        denied
    );
    assert_eq!(
        error("eval('1 + 1')", &[]),
        "code task n1 (code:test) threw: ReferenceError: eval is not defined"
    );
    // Ordinary uses of functions and regular expressions still work.
    assert_eq!(
        value(
            "[(() => 1) instanceof Function, typeof Function, (x => x).name]",
            &[]
        ),
        json!([true, "function", ""])
    );
    assert_eq!(
        value(
            "[/b+/.exec(s)[0], new RegExp('c' + '+', 'g').test(s), s.replace(/a/g, 'x')]",
            &[("s", json!("abbcca"))]
        ),
        json!(["bb", true, "xbbccx"])
    );
}

#[test]
fn no_state_crosses_tasks() {
    // One worker, so both tasks run on the same runtime.
    let sandbox = Sandbox::new(SandboxOptions {
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    let setup =
        "(() => { globalThis.x = 1; Array.prototype.evil = 2; Object.prototype.polluted = 3; \
                 JSON.parse = () => 'hijacked'; Math.max = () => -1; return 0; })()";
    assert_eq!(eval_in(&sandbox, setup, &[]).unwrap(), json!(0));
    assert_eq!(
        eval_in(
            &sandbox,
            "[typeof x, [].evil, ({}).polluted, JSON.parse('1'), Math.max(1, 2)]",
            &[]
        )
        .unwrap(),
        json!(["undefined", null, null, 1, 2])
    );
}

#[test]
fn microtasks_do_not_outlive_their_task() {
    let sandbox = Sandbox::new(SandboxOptions {
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    // The microtasks run before the task ends (the result reflects them), not in the next task.
    let code = "(() => { const log = []; Promise.resolve().then(() => log.push('later')); \
                queueMicrotask(() => log.push('queued')); return log; })()";
    assert_eq!(
        eval_in(&sandbox, code, &[]).unwrap(),
        json!(["later", "queued"])
    );
    assert_eq!(
        eval_in(&sandbox, "typeof log", &[]).unwrap(),
        json!("undefined")
    );
}
