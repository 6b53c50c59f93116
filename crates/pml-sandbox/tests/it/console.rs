//! What a program's `console` prints, against what Node 20 prints for the same program
//! (`node` runs it, as the node oracle does: an async function given a `console.Console`).

use std::process::Command;

use pml_sandbox::{ProgramTask, Reported};
use serde_json::{json, Value};

use crate::shared;

/// The program's console output in the sandbox, one line per `console` call.
fn printed(source: &str) -> (Value, String) {
    let task = ProgramTask {
        name: "agent.js",
        source,
        args: &json!({}),
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let mut out = String::new();
    let result = shared().run_observed(
        &task,
        &mut |call, answers| answers.answer(call.id, Ok(Value::Null)),
        &mut |reports| {
            for report in reports {
                if let Reported::Console { text, .. } = report.what {
                    out.push_str(&text);
                    out.push('\n');
                }
            }
        },
    );
    (result.unwrap_or_else(|e| panic!("{e}")), out)
}

/// What Node prints for the program (stdout and stderr, in order).
fn node_prints(source: &str) -> String {
    let runner = r#"
const src = require("fs").readFileSync(0, "utf8");
const mcp = new Proxy({}, { get: () => undefined });
const body = new Function("mcp", "args", "console", `return (async () => {\n"use strict";\n${src}\n})();`);
body(mcp, {}, new console.Console(process.stdout, process.stdout)).then(() => {}, (e) => { process.exitCode = 1; console.error(e); });
"#;
    let mut child = Command::new("node")
        .args(["-e", runner])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs (Node 20 is needed by the tests)");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "node failed");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn console_prints_what_node_prints() {
    let source = include_str!("console/values.js");
    let (result, ours) = printed(source);
    assert_eq!(result, json!("done"));
    let node = node_prints(source);
    let differ: Vec<String> = node
        .split('\n')
        .zip(ours.split('\n'))
        .enumerate()
        .filter(|(_, (n, o))| n != o)
        .map(|(i, (n, o))| format!("line {}:\n  node: {n}\n  pml:  {o}", i + 1))
        .take(10)
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert_eq!(node.lines().count(), ours.lines().count());
}

#[test]
fn errors_print_as_node_prints_them_but_for_the_frames() {
    // Node prints the same around its own frames (checked with `node -e`). A frame on line 1
    // counts the columns of the wrapper the program is compiled in (`first_line_shift`).
    let (_, ours) = printed(
        "const e = new RangeError('bad range');\ne.code = 'E_X';\nconsole.log(e);\nconsole.log({ inner: new TypeError('t') }, [new Error('')]);\nconsole.log(Object.assign(new Error('x'), { name: 'Custom' }));",
    );
    assert_eq!(
        ours,
        "RangeError: bad range\n    at <anonymous> (agent.js:1:79) {\n  code: 'E_X'\n}\n\
         {\n  inner: TypeError: t\n      at <anonymous> (agent.js:4:26)\n} [\n  Error\n      at <anonymous> (agent.js:4:49)\n]\n\
         Custom: x\n    at <anonymous> (agent.js:5:31)\n"
    );
}

/// The console's methods are the program's to replace, as in Node: its own calls then print
/// what it says (nothing), and putting the method back prints again.
#[test]
fn the_program_may_replace_the_consoles_methods() {
    let source = "const lines = [];\nconst log = console.log;\nconsole.log = (...a) => { lines.push(a.join(' ')); };\nconsole.log('kept', 1);\nconsole.log = log;\nconsole.log('printed');\nconsole.error = undefined;\nreturn lines;";
    let (result, ours) = printed(source);
    assert_eq!(result, json!(["kept 1"]));
    assert_eq!(ours, "printed\n");
    assert_eq!(node_prints(&source.replace("return lines;", "")), ours);
}

#[test]
fn printing_runs_no_program_code() {
    // Where Node would run the program's `toString` (`%s`) or `valueOf` (`%d`), the object is
    // inspected or read as NaN; getters and proxy traps never run.
    let (result, ours) = printed(
        "let ran = 0;\nconst o = { get g() { ran++; return 1; }, toString() { ran++; return 'o'; } };\n\
         const p = new Proxy({ a: 1 }, { get() { ran++; }, ownKeys() { ran++; return []; }, getOwnPropertyDescriptor() { ran++; } });\n\
         console.log(o, p);\nconsole.log('%s|%d|%j', p, o, [1]);\nreturn ran;",
    );
    assert_eq!(result, json!(0));
    assert_eq!(
        ours,
        "{ g: [Getter], toString: [Function: toString] } { a: 1 }\n{ a: 1 }|NaN|[1]\n"
    );
}

#[test]
fn lone_surrogates_print_as_node_writes_them() {
    let (_, ours) = printed("console.log('😀'.slice(0, 1) + 'x', ['😀'.slice(1)]);");
    assert_eq!(ours, "\u{FFFD}x [ '\\ude00' ]\n");
}

#[test]
fn every_console_method_of_node_exists() {
    // Timings and frames differ from Node's by nature; what matters is that a program calling
    // them runs on, and what it prints has Node's shape.
    let (result, ours) = printed(
        "function f() { console.trace('at %s', 'f'); }\nf();\nconsole.time('t');\nconsole.timeLog('t', { n: 1 });\nconsole.timeEnd('t');\nconsole.timeEnd('t');\nconsole.table([{ a: 1 }]);\nconsole.dirxml('x');\nconsole.clear();\nreturn Object.keys(console).length;",
    );
    assert_eq!(result, json!(19));
    let lines: Vec<&str> = ours.lines().collect();
    assert_eq!(lines[0], "Trace: at f");
    assert!(lines[1].starts_with("    at f (agent.js:1:"), "{ours}");
    let timed = lines.iter().position(|l| l.starts_with("t: ")).unwrap();
    assert!(lines[timed].ends_with("ms { n: 1 }"), "{ours}");
    assert!(lines[timed + 1].starts_with("t: ") && lines[timed + 1].ends_with("ms"));
    assert_eq!(
        &lines[timed + 2..],
        [
            "No such label 't' for console.timeEnd()",
            "┌─────────┬───┐",
            "│ (index) │ a │",
            "├─────────┼───┤",
            "│ 0       │ 1 │",
            "└─────────┴───┘",
            "x"
        ]
    );
}
