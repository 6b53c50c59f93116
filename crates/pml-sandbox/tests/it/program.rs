//! Program mode: whole agent programs whose `mcp` calls the host answers, sometimes at once
//! from `on_call`, sometimes later from other threads (as an executor's tokio tasks would).

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use pml_sandbox::{
    Answers, HostAnswer, HostCall, ProgramTask, Sandbox, SandboxError, SandboxOptions,
};
use serde_json::{json, Value};

use crate::{eval_in, one_heavy_test_at_a_time, shared};

/// Runs `source` with `args` as `agent.js`, answering each call at once with `answer`: the
/// result and the calls, in the order they were made.
fn run_answering(
    sandbox: &Sandbox,
    source: &str,
    args: &Value,
    mut answer: impl FnMut(&HostCall) -> HostAnswer,
) -> (Result<Value, SandboxError>, Vec<HostCall>) {
    let mut calls = Vec::new();
    let task = ProgramTask {
        name: "agent.js",
        source,
        args,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let result = sandbox.run_program(&task, &mut |call, answers| {
        answers.answer(call.id, answer(&call));
        calls.push(call);
    });
    (result, calls)
}

/// Runs `source` answering every call with `null`.
fn run(sandbox: &Sandbox, source: &str) -> Result<Value, SandboxError> {
    run_answering(sandbox, source, &Value::Null, |_| Ok(Value::Null)).0
}

/// Runs `source` with the calls handed to `host`, which runs on a thread of its own until the
/// run is over (its receiver then disconnects): the result and what `host` returned.
fn run_hosted<T: Send + 'static>(
    sandbox: &Sandbox,
    source: &str,
    host: impl FnOnce(Receiver<(HostCall, Answers)>) -> T + Send + 'static,
) -> (Result<Value, SandboxError>, T) {
    let (calls, received) = mpsc::channel();
    let host = thread::spawn(move || host(received));
    let task = ProgramTask {
        name: "agent.js",
        source,
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let result = sandbox.run_program(&task, &mut |call, answers| {
        // A host that has returned answers nothing: the run fails when the handle is dropped.
        let _ = calls.send((call, answers));
    });
    drop(calls);
    (result, host.join().expect("the host thread panicked"))
}

/// A sandbox with a short time limit and a single worker.
fn limited(time_limit: Duration, watchdog_grace: Duration) -> Sandbox {
    Sandbox::new(SandboxOptions {
        time_limit,
        watchdog_grace,
        workers: 1,
        ..Default::default()
    })
    .unwrap()
}

/// Checks that `sandbox` still runs code tasks and programs (with calls).
fn assert_usable(sandbox: &Sandbox, after: &str) {
    assert_eq!(
        eval_in(sandbox, "[1, 2].map(x => x + 1)", &[]).unwrap(),
        json!([2, 3]),
        "code task after {after}"
    );
    let (result, calls) = run_answering(
        sandbox,
        "return (await mcp.m.add({ a: 1, b: 2 })) * 2;",
        &Value::Null,
        |call| {
            Ok(json!(
                call.arguments["a"].as_i64().unwrap_or(0)
                    + call.arguments["b"].as_i64().unwrap_or(0)
            ))
        },
    );
    assert_eq!(result.unwrap(), json!(6), "program after {after}");
    assert_eq!(calls.len(), 1);
}

#[test]
fn answer_handles_and_calls_can_cross_threads() {
    fn assert_send_sync<T: Send + Sync + Clone + 'static>() {}
    assert_send_sync::<Answers>();
    assert_send_sync::<HostCall>();
}

#[test]
fn sequential_awaits_get_their_values_in_order() {
    let source = "
const a = await mcp.fs.read_file({ path: args.path });
const b = await mcp.fs.read_file({ path: a.next });
return [a.text, b.text, args.n];";
    let (result, calls) = run_answering(
        shared(),
        source,
        &json!({"path": "a.txt", "n": 3}),
        |call| {
            let path = call.arguments["path"].as_str().unwrap_or("?");
            Ok(json!({"text": format!("contents of {path}"), "next": "b.txt"}))
        },
    );
    assert_eq!(
        result.unwrap(),
        json!(["contents of a.txt", "contents of b.txt", 3])
    );
    let calls: Vec<_> = calls
        .into_iter()
        .map(|c| (c.id, c.server, c.tool, c.arguments))
        .collect();
    assert_eq!(
        calls,
        vec![
            (1, "fs".into(), "read_file".into(), json!({"path": "a.txt"})),
            (2, "fs".into(), "read_file".into(), json!({"path": "b.txt"})),
        ]
    );
}

#[test]
fn capability_calls_reach_the_host_marked_as_such() {
    let source = r#"
const a = await capabilities.summarize({ n: 1 });
const b = await capabilities["load-users"]();
let bad = "";
try { await capabilities.x({ f: 1n }); } catch (e) { bad = e.message; }
return [a, b, bad, typeof capabilities.then, await mcp.fs.read({})];"#;
    let (result, calls) = run_answering(shared(), source, &json!({}), |call| {
        Ok(json!(format!("{}|{}", call.server, call.tool)))
    });
    assert_eq!(
        result.unwrap(),
        json!([
            "|summarize",
            "|load-users",
            "Do not know how to serialize a BigInt",
            "undefined",
            "fs|read"
        ])
    );
    let calls: Vec<_> = calls
        .into_iter()
        .map(|c| (c.capability, c.tool, c.arguments))
        .collect();
    assert_eq!(
        calls,
        vec![
            (true, "summarize".into(), json!({"n": 1})),
            (true, "load-users".into(), json!({})),
            (false, "read".into(), json!({})),
        ]
    );
}

#[test]
fn promise_all_calls_are_outstanding_together_and_answered_out_of_order() {
    let source = "
const [a, b, c] = await Promise.all([1, 2, 3].map((n) => mcp.math.square({ n })));
return { a, b, c };";
    let (result, received) = run_hosted(shared(), source, |calls| {
        // Answer nothing before all three are here: they must have been made without waiting.
        let mut held = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while held.len() < 3 {
            match calls.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(call) => held.push(call),
                Err(_) => break,
            }
        }
        let received: Vec<u64> = held.iter().map(|(call, _)| call.id).collect();
        // Each from its own thread, the last call first.
        let answering: Vec<_> = held
            .into_iter()
            .enumerate()
            .map(|(i, (call, answers))| {
                thread::spawn(move || {
                    thread::sleep(Duration::from_millis(20 * (3 - i as u64)));
                    let n = call.arguments["n"].as_i64().unwrap_or(0);
                    answers.answer(call.id, Ok(json!(n * n)));
                })
            })
            .collect();
        for thread in answering {
            thread.join().unwrap();
        }
        received
    });
    assert_eq!(received, vec![1, 2, 3]);
    assert_eq!(result.unwrap(), json!({"a": 1, "b": 4, "c": 9}));
}

#[test]
fn many_calls_at_once() {
    let source = "
const squares = await Promise.all(Array.from({ length: 300 }, (_, n) => mcp.math.square({ n })));
return squares.reduce((a, b) => a + b, 0);";
    let (result, count) = run_hosted(shared(), source, |calls| {
        let mut held = Vec::new();
        while let Ok(call) = calls.recv_timeout(Duration::from_millis(200)) {
            held.push(call);
        }
        let count = held.len();
        for (call, answers) in held.into_iter().rev() {
            let n = call.arguments["n"].as_i64().unwrap_or(0);
            answers.answer(call.id, Ok(json!(n * n)));
        }
        count
    });
    assert_eq!(count, 300);
    assert_eq!(result.unwrap(), json!((0..300).map(|n| n * n).sum::<i64>()));
}

#[test]
fn an_uncaught_rejected_call_is_an_exception_at_its_line() {
    let source = "const path = 'missing.txt';\n\nconst text = await mcp.fs.read_file({ path });\nreturn text;";
    let (result, _) = run_answering(shared(), source, &Value::Null, |_| {
        Err("fs.read_file: no such file 'missing.txt'".to_owned())
    });
    let error = result.unwrap_err();
    let SandboxError::Exception { message, stack, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(message, "Error: fs.read_file: no such file 'missing.txt'");
    let stack = stack.as_deref().unwrap_or_default();
    assert!(stack.contains("agent.js:3:"), "{stack}");
    assert!(!stack.contains("mcp:"), "{stack}");
    assert_eq!(
        error.to_string(),
        "program agent.js threw: Error: fs.read_file: no such file 'missing.txt'"
    );
    assert_eq!(error.task_id(), Some("agent.js"));
}

#[test]
fn a_caught_rejection_lets_the_program_go_on() {
    let answer = |call: &HostCall| match call.tool.as_str() {
        "bad" => Err("nope".to_owned()),
        _ => Ok(json!("fine")),
    };
    let source = "
let caught;
try {
  await mcp.x.bad();
} catch (e) {
  caught = [e instanceof Error, e.name, e.message];
}
return [caught, await mcp.x.good()];";
    let (result, calls) = run_answering(shared(), source, &Value::Null, answer);
    assert_eq!(result.unwrap(), json!([[true, "Error", "nope"], "fine"]));
    assert_eq!(calls.len(), 2);

    let source = "
const settled = await Promise.allSettled([mcp.x.good(), mcp.x.bad(), mcp.x.good()]);
return settled.map((s) => s.status === 'fulfilled' ? s.value : ['rejected', s.reason.message]);";
    let (result, _) = run_answering(shared(), source, &Value::Null, answer);
    assert_eq!(
        result.unwrap(),
        json!(["fine", ["rejected", "nope"], "fine"])
    );
}

/// Node 20 ends a program whose promise is rejected with no handler once the turn's jobs have
/// run (`--unhandled-rejections=throw`, its default): a call the program did not await, a
/// `Promise.reject` left alone. A handler attached within the turn takes it back.
#[test]
fn a_rejection_no_handler_takes_ends_the_run_as_in_node() {
    let answer = |call: &HostCall| match call.tool.as_str() {
        "bad" => Err("nope".to_owned()),
        _ => Ok(json!("fine")),
    };
    let run = |source: &str| run_answering(shared(), source, &Value::Null, answer);

    // An unawaited call that fails: the program does not get to its next call.
    let (result, calls) = run(
        "mcp.x.bad();\nawait new Promise((r) => setTimeout(r, 5));\nawait mcp.x.good();\nreturn 1;",
    );
    let error = result.unwrap_err();
    assert_eq!(
        error.to_string(),
        "program agent.js threw: Error: nope",
        "{error:?}"
    );
    assert_eq!(calls.len(), 1, "{calls:?}");

    // Rejected with something that is not an error: Node's own words.
    let (result, _) = run("Promise.reject('plain');\nawait mcp.x.good();\nreturn 1;");
    assert_eq!(
        result.unwrap_err().to_string(),
        "program agent.js threw: UnhandledPromiseRejection: This error originated either by \
         throwing inside of an async function without a catch block, or by rejecting a promise \
         which was not handled with .catch(). The promise rejected with the reason \"plain\"."
    );
    for (reason, said) in [
        ("({ a: 1 })", "#<Object>"),
        ("[1, 2]", "[object Array]"),
        ("Symbol('s')", "Symbol(s)"),
        ("undefined", "undefined"),
        ("new Map()", "#<Map>"),
    ] {
        let (result, _) = run(&format!(
            "Promise.reject({reason});\nawait mcp.x.good();\nreturn 1;"
        ));
        let message = result.unwrap_err().to_string();
        assert!(
            message.ends_with(&format!("the reason \"{said}\".")),
            "{reason}: {message}"
        );
    }

    // Handled within the turn, or awaited in time: nothing ends the run.
    let (result, _) = run("const p = Promise.reject(new Error('late'));\nawait null;\np.catch(() => {});\nreturn await mcp.x.good();");
    assert_eq!(result.unwrap(), json!("fine"));
    let (result, _) =
        run("const p = mcp.x.bad();\ntry { await p; } catch (e) { return e.message; }");
    assert_eq!(result.unwrap(), json!("nope"));
    // Handled a turn too late: Node has ended already.
    let (result, _) = run("const p = Promise.reject(new Error('too late'));\nawait mcp.x.good();\np.catch(() => {});\nreturn 1;");
    assert_eq!(
        result.unwrap_err().to_string(),
        "program agent.js threw: Error: too late"
    );
    // The program's own promise is its caller's to handle: what it throws after an `await`
    // is what it threw.
    let (result, _) = run("await mcp.x.good();\nthrow 'No entity named Alice';");
    assert_eq!(
        result.unwrap_err().to_string(),
        "program agent.js threw: No entity named Alice"
    );
    // Rejected in the turn the program ends, with no server to hang up on: Node exits first.
    let (result, _) = run("Promise.reject(new Error('last'));\nreturn 2;");
    assert_eq!(result.unwrap(), json!(2));
}

#[test]
fn probing_mcp_makes_no_calls() {
    let source = "
const fs = await mcp.fs;
const read = await mcp.fs.read_file;
let written;
try { mcp.fs = 1; written = true; } catch (e) { written = e instanceof TypeError; }
let spread;
try { spread = [...mcp.fs]; } catch (e) { spread = e instanceof TypeError; }
return [
  fs === mcp.fs, typeof read, read === mcp.fs.read_file,
  typeof mcp.then, typeof mcp.fs.then, typeof mcp.toJSON, typeof mcp.fs.toJSON,
  typeof mcp.fs.toString, typeof mcp.fs.valueOf,
  typeof mcp[Symbol.iterator], typeof mcp.fs[Symbol.iterator],
  typeof mcp.fs[Symbol.asyncIterator], typeof mcp.fs[Symbol.toPrimitive],
  JSON.stringify({ fs: mcp.fs }), Object.keys(mcp).length, 'fs' in mcp,
  Object.prototype.toString.call(mcp.fs), written, spread,
];";
    let (result, calls) = run_answering(shared(), source, &Value::Null, |_| Ok(Value::Null));
    assert_eq!(
        result.unwrap(),
        json!([
            true,
            "function",
            true,
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "{\"fs\":{}}",
            0,
            false,
            "[object Object]",
            true,
            true
        ])
    );
    assert_eq!(calls, vec![]);
}

#[test]
fn arguments_that_are_not_json_reject_without_a_call() {
    // As Node's MCP SDK: `JSON.stringify` throws, the call rejects with its `TypeError`.
    for (argument, why) in [
        ("{ n: 1n }", "Do not know how to serialize a BigInt"),
        (
            "cyclic",
            "Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'self' closes the circle",
        ),
    ] {
        let source = format!(
            "const cyclic = {{}};\ncyclic.self = cyclic;\n\
             const p = mcp.fs.write_file({argument});\n\
             try {{ await p; return 'sent'; }} catch (e) {{ return [e.name, e.message, e.stack]; }}"
        );
        let (result, calls) = run_answering(shared(), &source, &Value::Null, |_| Ok(json!("ok")));
        let result = result.unwrap_or_else(|e| panic!("{argument}: {e}"));
        assert_eq!(result[0], json!("TypeError"), "{argument}: {result}");
        assert_eq!(result[1], json!(why), "{argument}");
        // The stack is the program's: the call is on line 3.
        let stack = result[2].as_str().unwrap_or_default();
        assert!(
            stack.starts_with("    at <anonymous> (agent.js:3:"),
            "{argument}: {stack}"
        );
        assert_eq!(calls, vec![], "{argument}");
    }
}

#[test]
fn arguments_are_sent_one_job_after_the_call_as_node_sends_them() {
    // Node's MCP client writes a call's arguments after the `await` that gets its connection:
    // what the program changes before it next waits is sent; what it changes after is not.
    let source = "const base = { message: '' };
const mapped = ['a', 'b', 'c'].map((x) => { base.message = x; return mcp.fs.echo(base); });
const later = { v: 1 };
const sent = mcp.fs.w(later);
later.v = 2;
const after = { v: 1 };
const waited = mcp.fs.w(after);
await null;
after.v = 3;
return [await Promise.all(mapped), await sent, await waited];";
    let (result, calls) = run_answering(shared(), source, &Value::Null, |call| {
        Ok(json!(call.arguments))
    });
    assert_eq!(
        result.unwrap(),
        json!([
            [{"message": "c"}, {"message": "c"}, {"message": "c"}],
            {"v": 2},
            {"v": 1}
        ])
    );
    assert_eq!(calls.len(), 5);
}

#[test]
fn arguments_convert_like_json_stringify() {
    // `callTool({ arguments: a || {} })`: falsy arguments send `{}`; functions and symbols are
    // dropped (and `null` in arrays); nothing to send leaves the arguments out (`null` here).
    let source = "const f = () => 1;
return [
  await mcp.fs.w({ f, s: Symbol('s'), list: [f, 1], at: new Date(0), u: undefined }),
  await mcp.fs.w(null), await mcp.fs.w(0), await mcp.fs.w(''), await mcp.fs.w(false),
  await mcp.fs.w(f), await mcp.fs.w({ toJSON() { return undefined; } }),
  await mcp.fs.w({ text: '\\ud800|\\ufdd0' }),
];";
    let (result, calls) = run_answering(shared(), source, &Value::Null, |call| {
        Ok(json!(call.arguments))
    });
    assert_eq!(
        result.unwrap(),
        json!([
            {"list": [null, 1], "at": "1970-01-01T00:00:00.000Z"},
            {}, {}, {}, {},
            null, null,
            {"text": "\u{FDD0}d800|\u{FDD0}\u{FDD0}"},
        ])
    );
    assert_eq!(calls.len(), 8);
    // A lone surrogate travels as pml text (`pml_jstext`), and comes back as itself.
    assert_eq!(
        calls[7].arguments,
        json!({"text": "\u{FDD0}d800|\u{FDD0}\u{FDD0}"})
    );
    let (result, _) = run_answering(
        shared(),
        "const t = (await mcp.fs.w({ t: '\\ud800' })).t; return [t.length, t.charCodeAt(0), t === '\\ud800'];",
        &Value::Null,
        |call| Ok(call.arguments.clone()),
    );
    assert_eq!(result.unwrap(), json!([1, 0xD800, true]));
}

#[test]
fn a_call_without_arguments_sends_an_empty_object() {
    let (result, calls) = run_answering(
        shared(),
        "return [await mcp.fs.list(), await mcp.fs.list(undefined), await mcp.fs.list([1, null])];",
        &Value::Null,
        |call| Ok(call.arguments.clone()),
    );
    assert_eq!(result.unwrap(), json!([{}, {}, [1, null]]));
    assert_eq!(calls.len(), 3);
}

#[test]
fn return_values_convert_like_code_tasks() {
    let args = json!({"items": [{"id": 1, "tags": ["a"]}, {"id": 2, "tags": []}], "name": "x"});
    for (source, expected) in [
        ("return;", json!(null)),
        ("return undefined;", json!(null)),
        ("const x = 1;", json!(null)),
        (
            "return args.items.filter((i) => i.tags.length).map((i) => i.id);",
            json!([1]),
        ),
        ("return args;", args.clone()),
        (
            "return { n: NaN, d: new Date(0), u: undefined, list: [undefined, 1] };",
            json!({"n": null, "d": "1970-01-01T00:00:00.000Z", "list": [null, 1]}),
        ),
        ("return mcp.x.echo({ v: 7 });", json!({"v": 7})),
        ("const args = 5; return args;", json!(5)),
    ] {
        let (result, _) = run_answering(shared(), source, &args, |call| Ok(call.arguments.clone()));
        assert_eq!(
            result.unwrap_or_else(|e| panic!("{source}: {e}")),
            expected,
            "{source}"
        );
    }
    for (source, expected) in [
        ("return () => 1;", json!(null)),
        ("return [Symbol(), { f() {} }];", json!([null, {}])),
        (
            "return '\\ud83d'.length === 1 ? '😀'.slice(0, 1) : 0;",
            json!("\u{FDD0}d83d"),
        ),
    ] {
        let (result, _) = run_answering(shared(), source, &args, |_| Ok(Value::Null));
        assert_eq!(result.unwrap(), expected, "{source}");
    }
    for source in ["return 1n;", "const a = []; a.push(a); return a;"] {
        let error = run(shared(), source).unwrap_err();
        assert!(
            matches!(error, SandboxError::NotJson { .. }),
            "{source}: {error:?}"
        );
        assert!(error
            .to_string()
            .starts_with("program agent.js returned a value that is not json"));
    }
}

#[test]
fn errors_point_at_source_lines() {
    let error = run(
        shared(),
        "const a = 1;\n\nthrow new RangeError('too far: ' + a);",
    )
    .unwrap_err();
    let SandboxError::Exception { message, stack, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(message, "RangeError: too far: 1");
    let stack = stack.as_deref().unwrap_or_default();
    assert!(stack.contains("agent.js:3:"), "{stack}");

    let error = run(shared(), "const a = 1;\nconst b = ;").unwrap_err();
    assert!(matches!(error, SandboxError::Syntax { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("program agent.js does not parse: SyntaxError"),
        "{error}"
    );
    assert!(error.to_string().ends_with("(agent.js:2:11)"), "{error}");
    // A name declared twice: V8's words, at the name.
    for (source, said) in [
        (
            "const a = 1;\nconst a = 2;",
            "'a' has already been declared (agent.js:2:7)",
        ),
        (
            "const { a, b: { c } } = x;\nlet c = 3;",
            "'c' has already been declared (agent.js:2:5)",
        ),
        (
            "const f = (x) => {\n  let x = 1;\n};",
            "'x' has already been declared (agent.js:2:7)",
        ),
        (
            "for (const item of []) {\n  var item = 2;\n}",
            "'item' has already been declared (agent.js:2:7)",
        ),
    ] {
        let error = run(shared(), source).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("program agent.js does not parse: SyntaxError: Identifier {said}"),
            "{source}"
        );
    }

    // A thrown non-error value, uncaught.
    let error = run(shared(), "throw 'plain';").unwrap_err();
    assert_eq!(error.to_string(), "program agent.js threw: plain");
}

#[test]
fn a_program_that_waits_for_nothing_is_stuck_not_hung() {
    let start = Instant::now();
    let error = run(shared(), "await new Promise(() => {});\nreturn 1;").unwrap_err();
    assert!(matches!(error, SandboxError::Stalled { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "program agent.js is stuck: it awaits a promise that nothing can settle (no call to the host nor timer is pending)"
    );
    // Also after a call was answered (from another thread, later).
    let (result, ()) = run_hosted(
        shared(),
        "await mcp.a.b();\nawait new Promise(() => {});",
        |calls| {
            for (call, answers) in calls {
                thread::sleep(Duration::from_millis(50));
                answers.answer(call.id, Ok(Value::Null));
            }
        },
    );
    assert!(
        matches!(result, Err(SandboxError::Stalled { .. })),
        "{result:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn unawaited_calls_do_not_hold_the_program() {
    // The host answers only once the run is over: the answer is ignored.
    let (result, late) = run_hosted(
        shared(),
        "mcp.log.write({ line: 'x' });\nreturn 1;",
        |calls| {
            let held: Vec<_> = calls.iter().collect();
            for (call, answers) in &held {
                answers.answer(call.id, Ok(Value::Null));
            }
            held.len()
        },
    );
    assert_eq!(result.unwrap(), json!(1));
    assert_eq!(late, 1);
}

#[test]
fn stray_answers_are_ignored() {
    let mut kept: Option<Answers> = None;
    let task = ProgramTask {
        name: "agent.js",
        source: "const a = await mcp.s.t(); const b = await mcp.s.t(); return [a, b];",
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let result = shared().run_program(&task, &mut |call, answers| {
        answers.answer(99, Ok(json!("unknown id")));
        answers.answer(call.id, Ok(json!(call.id)));
        answers.answer(call.id, Ok(json!("second answer")));
        answers.answer(call.id, Err("third answer".to_owned()));
        kept = Some(answers);
    });
    assert_eq!(result.unwrap(), json!([1, 2]));
    // After the run: nobody listens, nothing happens.
    let kept = kept.expect("a handle");
    kept.answer(1, Ok(json!("late")));
    let copy = kept.clone();
    drop(kept);
    copy.answer(2, Err("late".to_owned()));
    drop(copy);
    assert_usable(shared(), "stray answers");
}

#[test]
fn dropping_every_answer_handle_fails_the_run() {
    let start = Instant::now();
    let task = ProgramTask {
        name: "agent.js",
        source: "await mcp.s.t();",
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let error = shared()
        .run_program(&task, &mut |_call, answers| drop(answers))
        .unwrap_err();
    assert!(matches!(error, SandboxError::Internal(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "internal sandbox error: program agent.js: the host dropped every answer handle with 1 call(s) unanswered"
    );
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn io_is_unavailable_and_code_from_strings_is_the_language() {
    for name in [
        "require",
        "process",
        "fetch",
        "Deno",
        "std",
        "os",
        "XMLHttpRequest",
        "print",
        "__pml_call",
        "call",
        "settle",
        "pending",
        "schedule",
        "unschedule",
        "fire",
        "timerTable",
    ] {
        let source = format!("return [typeof {name}, '{name}' in globalThis];");
        assert_eq!(
            run(shared(), &source).unwrap(),
            json!(["undefined", false]),
            "{name}"
        );
    }
    // `eval` and the function constructors work as in Node, inside the same sandbox: what
    // they build has no more reach than the program (no I/O global, no host function).
    for (source, expected) in [
        ("return eval('1 + 1');", json!(2)),
        ("return new Function('a', 'return a * 3')(2);", json!(6)),
        (
            "return await (async function () {}).constructor('return 1')();",
            json!(1),
        ),
        (
            "return (function* () {}).constructor('yield 1')().next().value;",
            json!(1),
        ),
        (
            "return eval('typeof require + typeof fetch + typeof process');",
            json!("undefinedundefinedundefined"),
        ),
    ] {
        assert_eq!(run(shared(), source).unwrap(), expected, "{source}");
    }
    assert_eq!(
        run(shared(), "return [typeof this, Object.keys(globalThis)];").unwrap(),
        json!([
            "undefined",
            [
                "global",
                "crypto",
                "atob",
                "btoa",
                "structuredClone",
                "performance",
                "console",
                "setTimeout",
                "setInterval",
                "setImmediate",
                "clearTimeout",
                "clearInterval",
                "clearImmediate"
            ]
        ])
    );
    // `mcp`, `args` and `capabilities` are the parameters of the function the program runs
    // in, as in Node: no globals, and a global of the name changes nothing the program names.
    assert_eq!(
        run(
            shared(),
            "const before = [typeof globalThis.mcp, typeof globalThis.args, typeof globalThis.capabilities];\n\
             globalThis.mcp = 1; globalThis.args = 2;\n\
             return [before, typeof mcp, typeof args, typeof capabilities, typeof mcp.fs.read];"
        )
        .unwrap(),
        json!([["undefined", "undefined", "undefined"], "object", "object", "object", "function"])
    );
    // The globals are a code task's plus `Proxy`, typed arrays, weak references, `Intl` (a
    // code task has it only when its code names it), `console`, timers, the web platform's
    // data functions, events and aborts, `Blob`, `performance` and Node's `Buffer`.
    let program = run(
        shared(),
        "return Object.getOwnPropertyNames(globalThis).sort();",
    )
    .unwrap();
    let code = crate::value("Object.getOwnPropertyNames(globalThis).sort()", &[]);
    let (program, code) = (program.as_array().unwrap(), code.as_array().unwrap());
    let extra: Vec<_> = program.iter().filter(|n| !code.contains(n)).collect();
    assert_eq!(
        extra,
        vec![
            "AbortController",
            "AbortSignal",
            "ArrayBuffer",
            "BigInt64Array",
            "BigUint64Array",
            "Blob",
            "Buffer",
            "DOMException",
            "DataView",
            "Event",
            "EventTarget",
            "FinalizationRegistry",
            "Float32Array",
            "Float64Array",
            "Int16Array",
            "Int32Array",
            "Int8Array",
            "Intl",
            "Proxy",
            "SubtleCrypto",
            "TextDecoder",
            "TextEncoder",
            "URL",
            "URLSearchParams",
            "Uint16Array",
            "Uint32Array",
            "Uint8Array",
            "Uint8ClampedArray",
            "WeakRef",
            "atob",
            "btoa",
            "clearImmediate",
            "clearInterval",
            "clearTimeout",
            "console",
            "crypto",
            "eval",
            "performance",
            "setImmediate",
            "setInterval",
            "setTimeout",
            "structuredClone"
        ]
    );
    // And all of a code task's (both lack the built-ins of standards later than Node 20's).
    let missing: Vec<_> = code.iter().filter(|n| !program.contains(n)).collect();
    assert!(missing.is_empty(), "{missing:?}");
    // A program using one fails as in Node 20.
    let source = "const t = (f) => { try { return typeof f(); } catch (e) { return e.name; } };
        return [t(() => Object.groupBy([], (x) => x)), t(() => new Set([1]).union(new Set([2]))),         t(() => [1].values().map((x) => x)), t(() => Promise.withResolvers()), typeof Iterator,         [...[1, 2].values()].length];";
    assert_eq!(
        run(shared(), source).unwrap(),
        json!([
            "TypeError",
            "TypeError",
            "TypeError",
            "TypeError",
            "undefined",
            2
        ])
    );
}

#[test]
fn programs_share_nothing() {
    let source =
        "globalThis.seen = (globalThis.seen ?? 0) + 1; Object.prototype.polluted = 1; return seen;";
    for _ in 0..4 {
        assert_eq!(run(shared(), source).unwrap(), json!(1));
    }
    assert_eq!(
        run(shared(), "return typeof ({}).polluted;").unwrap(),
        json!("undefined")
    );
}

/// Runs a hostile program in `sandbox`, which must end within the time limit, the watchdog's
/// grace and some slack, and leave the sandbox usable.
fn hostile(sandbox: &Sandbox, source: &str) -> SandboxError {
    let start = Instant::now();
    let error = run(sandbox, source).expect_err(source);
    let took = start.elapsed();
    let bound = sandbox.options().time_limit + sandbox.options().watchdog_grace;
    assert!(
        took < bound + Duration::from_millis(500),
        "{source}: {took:?}"
    );
    assert_usable(sandbox, source);
    error
}

fn assert_timeout(error: &SandboxError) {
    assert!(
        matches!(error, SandboxError::Timeout { limit_ms: 300, .. }),
        "{error:?}"
    );
    assert_eq!(error.to_string(), "program agent.js exceeded 300 ms");
}

#[test]
fn endless_programs_time_out() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited(Duration::from_millis(300), Duration::from_millis(700));
    for source in [
        "while (true) {}",
        "await mcp.a.b();\nfor (;;) {}",
        "for (;;) await null;",
        "await Promise.all([mcp.a.b(), mcp.a.b()]);\nfor (;;) { try { for (;;) {} } catch (e) {} }",
    ] {
        assert_timeout(&hostile(&sandbox, source));
    }
    // Answered at once: the program's own JavaScript between calls adds up, and ends it. (What
    // pml does for each call is not counted, so this takes longer than the limit, wall clock:
    // a run's wall-clock limit and call limit bound such a program.)
    let source = "for (;;) await mcp.a.b();";
    assert_timeout(&run(&sandbox, source).expect_err(source));
    assert_usable(&sandbox, source);
    assert_eq!(sandbox.abandoned_workers(), 0);
}

#[test]
fn execution_time_adds_up_across_waits() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited(Duration::from_millis(1000), Duration::from_millis(700));
    let spin =
        "const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };\n";
    let answer_later = |calls: Receiver<(HostCall, Answers)>| {
        for (call, answers) in calls {
            thread::sleep(Duration::from_millis(100));
            answers.answer(call.id, Ok(json!("late")));
        }
    };
    // 2 x 150 ms of JavaScript and 2 x 100 ms of waiting: within 1000 ms.
    let source = format!("{spin}spin(150); await mcp.a.b(); spin(150); return await mcp.a.b();");
    let (result, ()) = run_hosted(&sandbox, &source, answer_later);
    assert_eq!(result.unwrap(), json!("late"));
    // 2 x 700 ms of JavaScript: not, even with a wait in between.
    let source = format!("{spin}spin(700); await mcp.a.b(); spin(700); return 1;");
    let (result, ()) = run_hosted(&sandbox, &source, answer_later);
    let error = result.unwrap_err();
    assert!(
        matches!(error, SandboxError::Timeout { limit_ms: 1000, .. }),
        "{error:?}"
    );
    assert_usable(&sandbox, "a program that ran out of time after waiting");
}

#[test]
fn time_waiting_for_answers_does_not_count() {
    let _heavy = one_heavy_test_at_a_time();
    // The watchdog would give up on a worker 300 + 100 ms after it started running JavaScript.
    let sandbox = limited(Duration::from_millis(300), Duration::from_millis(100));
    let start = Instant::now();
    let (result, ()) = run_hosted(
        &sandbox,
        "const a = await mcp.slow.op({ n: 1 });\nconst b = await mcp.slow.op({ n: 2 });\nreturn a + b;",
        |calls| {
            for (call, answers) in calls {
                thread::sleep(Duration::from_millis(600));
                answers.answer(call.id, Ok(call.arguments["n"].clone()));
            }
        },
    );
    assert_eq!(result.unwrap(), json!(3));
    assert!(start.elapsed() >= Duration::from_millis(1200));
    assert_eq!(sandbox.abandoned_workers(), 0);
}

/// Handling answers that are already there when the program waits (turning them into values)
/// is pml's work, not the program's: it is not counted against the limit, neither by the
/// worker (its interrupt handler, its own check) nor by the caller's watchdog, though the
/// program never stops to wait meanwhile. (It used to be counted in such a stretch: a run
/// getting quick answers ended at its limit with its own JavaScript far from it.)
#[test]
fn turning_answers_into_values_does_not_count() {
    let _heavy = one_heavy_test_at_a_time();
    let limit = Duration::from_millis(200);
    let sandbox = limited(limit, Duration::from_millis(100));
    let pad = "x".repeat(1 << 20);
    let n = 40;
    let source = format!(
        "const calls = Array.from({{ length: {n} }}, (_, i) => mcp.t.big({{ i }}));\n\
         let sum = 0;\n\
         for (let i = 0; i < calls.length; i++) {{ sum += (await calls[i]).v; calls[i] = null; }}\n\
         return sum;"
    );
    let task = ProgramTask {
        name: "agent.js",
        source: &source,
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let start = Instant::now();
    // Answered at once, from the caller's thread: the answers are there before the worker
    // waits for them.
    let result = sandbox.run_program(&task, &mut |call, answers| {
        answers.answer(call.id, Ok(json!({ "v": 1, "pad": pad })));
    });
    let took = start.elapsed();
    assert_eq!(result.unwrap(), json!(n));
    // 40 MiB of answers take longer than the limit to turn into values.
    assert!(took > limit * 2, "{took:?}");
    assert_eq!(sandbox.abandoned_workers(), 0);
}

#[test]
fn memory_exhaustion_ends_with_out_of_memory() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited(Duration::from_secs(3), Duration::from_secs(1));
    let error = hostile(
        &sandbox,
        "await mcp.a.b();\nlet a = []; for (;;) a.push(new Array(1e6).fill(1));",
    );
    assert!(
        matches!(error, SandboxError::OutOfMemory { limit_bytes, .. } if limit_bytes == 256 << 20),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "program agent.js ran out of memory (limit 256 MiB)"
    );
    let error = hostile(
        &sandbox,
        "for (;;) { try { let a = []; for (;;) a.push(new Array(1e6).fill(1)); } catch (e) { await mcp.a.b(); } }",
    );
    assert!(
        matches!(
            error,
            SandboxError::Timeout { .. } | SandboxError::OutOfMemory { .. }
        ),
        "{error:?}"
    );
}

#[test]
fn deep_recursion_ends_with_stack_overflow() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited(Duration::from_millis(300), Duration::from_millis(700));
    for source in [
        "function f() { return f(); }\nreturn f();",
        "await mcp.a.b();\nconst f = async (n) => f(n + 1);\nawait f(0);",
        "return JSON.parse('['.repeat(1e6));",
    ] {
        let error = hostile(&sandbox, source);
        assert!(
            matches!(error, SandboxError::StackOverflow { .. }),
            "{source}: {error:?}"
        );
        assert_eq!(
            error.to_string(),
            "program agent.js exceeded the stack limit (8 MiB): maximum call stack size exceeded"
        );
    }
}

#[test]
fn a_builtin_that_never_polls_is_abandoned_and_the_sandbox_recovers() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited(Duration::from_millis(300), Duration::from_millis(700));
    let source = "await mcp.a.b();\nconst a = new Array(4e5).fill(0);\nfor (;;) a.indexOf(1);";
    assert_timeout(&hostile(&sandbox, source));
    assert_eq!(sandbox.abandoned_workers(), 1);
}

#[test]
fn a_panicking_on_call_frees_the_worker() {
    let sandbox = limited(Duration::from_secs(2), Duration::from_millis(500));
    let task = ProgramTask {
        name: "agent.js",
        source: "await mcp.a.b();",
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let unwound = panic::catch_unwind(AssertUnwindSafe(|| {
        sandbox.run_program(&task, &mut |_, _| panic!("the host failed"))
    }));
    assert!(unwound.is_err());
    // The only worker's slot is free again.
    assert_usable(&sandbox, "a panic in on_call");
}

#[test]
fn programs_and_code_tasks_share_the_workers() {
    let sandbox = std::sync::Arc::new(
        Sandbox::new(SandboxOptions {
            workers: 2,
            ..Default::default()
        })
        .unwrap(),
    );
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let sandbox = sandbox.clone();
            thread::spawn(move || {
                for i in 0..10 {
                    let source = format!("return (await mcp.m.id({{ v: {i} }})) + {t};");
                    let (result, calls) = run_answering(&sandbox, &source, &Value::Null, |c| {
                        Ok(c.arguments["v"].clone())
                    });
                    assert_eq!(result.unwrap(), json!(i + t));
                    assert_eq!(calls.len(), 1);
                    assert_eq!(
                        eval_in(&sandbox, "t * i", &[("t", json!(t)), ("i", json!(i))]).unwrap(),
                        json!(t * i)
                    );
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

/// A journal of reads: replays `given` in order, then the live values; keeps what was read.
struct Replaying {
    given: std::sync::Mutex<Vec<f64>>,
    seen: std::sync::Mutex<Vec<(&'static str, f64)>>,
}

impl pml_sandbox::Reads for Replaying {
    fn read(&self, what: pml_sandbox::Unrepeatable, live: f64) -> f64 {
        let mut given = self.given.lock().unwrap();
        let value = match given.is_empty() {
            true => live,
            false => given.remove(0),
        };
        self.seen.lock().unwrap().push((what.as_str(), value));
        value
    }
}

/// What `source` returns, its reads of the clock and of `Math.random()` going through `reads`.
fn run_reading(source: &str, reads: &std::sync::Arc<dyn pml_sandbox::Reads>) -> Value {
    let task = ProgramTask {
        name: "agent.js",
        source,
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: Some(reads),
        originals: None,
        abort: None,
    };
    shared().run_program(&task, &mut |_, _| {}).unwrap()
}

#[test]
fn reads_of_the_clock_and_of_random_go_through_the_hook() {
    let hook = std::sync::Arc::new(Replaying {
        given: std::sync::Mutex::new(vec![1000.0, 86_400_000.0, 0.25, 5000.0, 0.0]),
        seen: std::sync::Mutex::new(Vec::new()),
    });
    let reads: std::sync::Arc<dyn pml_sandbox::Reads> = hook.clone();
    let source = r#"
class Stamp extends Date {}
const a = Date.now();
const b = new Date().toISOString();
const r = Math.random();
const s = new Stamp();
const called = Date();
const fixed = new Date(0).getTime();
const later = Date.now();
return [a, b, r, s instanceof Date, s instanceof Stamp, s.getTime(), typeof called, fixed,
  later > 1.7e12, Date.name, Date.length, Date.prototype.constructor === Date,
  Date.UTC(2020, 0, 1), Date.parse("2020-01-01T00:00:00Z"),
  Object.keys(globalThis).includes("Date")];"#;
    let result = run_reading(source, &reads);
    assert_eq!(
        result,
        json!([
            1000,
            "1970-01-02T00:00:00.000Z",
            0.25,
            true,
            true,
            5000,
            "string",
            0,
            true,
            "Date",
            7,
            true,
            1_577_836_800_000_i64,
            1_577_836_800_000_i64,
            false
        ])
    );
    let seen = hook.seen.lock().unwrap();
    let kinds: Vec<&str> = seen.iter().map(|(k, _)| *k).collect();
    // `Date()` read the clock too (the replayed 0); `new Date(0)` did not.
    assert_eq!(
        kinds,
        [
            "Date.now",
            "Date.now",
            "Math.random",
            "Date.now",
            "Date.now",
            "Date.now"
        ]
    );
    assert_eq!(seen[4].1, 0.0);
}

#[test]
fn performance_now_reads_the_programs_clock() {
    // Through the hook like `Date.now()` (the first read is the origin): a resumed run reads
    // the same milliseconds again.
    let hook = std::sync::Arc::new(Replaying {
        given: std::sync::Mutex::new(vec![1000.0, 1250.5, 4000.0, 5000.0]),
        seen: std::sync::Mutex::new(Vec::new()),
    });
    let reads: std::sync::Arc<dyn pml_sandbox::Reads> = hook.clone();
    let source = "const t0 = performance.now();
const t1 = performance.now();
return [t0, t1, performance.timeOrigin, Object.prototype.toString.call(performance), typeof performance.now, JSON.stringify(performance), Date.now()];";
    let result = run_reading(source, &reads);
    assert_eq!(
        result,
        json!([
            250.5,
            3000,
            1000,
            "[object Performance]",
            "function",
            "{\"timeOrigin\":1000}",
            5000
        ])
    );
    assert_eq!(hook.seen.lock().unwrap().len(), 4);
}

#[test]
fn json_stringify_throws_what_node_throws() {
    let source = "const out = [];
const a = { list: [] };
a.list.push({ up: a });
for (const v of [{ n: 1n }, a]) {
  try { JSON.stringify(v, null, 2); } catch (e) { out.push(`${e.name}: ${e.message}`); }
}
out.push(JSON.stringify({ a: [1, { b: 2 }] }, null, 1), JSON.stringify.length, JSON.stringify.name);
return out;";
    let (result, _) = run_answering(shared(), source, &Value::Null, |_| Ok(Value::Null));
    assert_eq!(
        result.unwrap(),
        json!([
            "TypeError: Do not know how to serialize a BigInt",
            "TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    |     property 'list' -> object with constructor 'Array'\n    |     index 0 -> object with constructor 'Object'\n    --- property 'up' closes the circle",
            "{\n \"a\": [\n  1,\n  {\n   \"b\": 2\n  }\n ]\n}",
            3,
            "stringify"
        ])
    );
}

/// Timers as Node's: in order of when they are due, then of when they were set, each callback
/// followed by the jobs it queued; cleared ones never run; waiting for one is not the program's
/// time; an invalid callback throws Node's `TypeError`; a throw in a callback fails the run.
#[test]
fn timers_run_as_node_runs_them() {
    let source = r#"const order = [];
setTimeout(() => order.push("t20"), 20);
const t = setTimeout(() => order.push("never"), 5);
clearTimeout(t);
setTimeout((a, b) => order.push("t0:" + a + b), 0, "x", "y");
setImmediate(() => order.push("imm"));
Promise.resolve().then(() => order.push("micro"));
let n = 0;
const iv = setInterval(() => { order.push("iv" + ++n); if (n === 3) clearInterval(+iv); }, 2);
await new Promise((r) => setTimeout(r, 40));
let err;
try { setTimeout("code", 1); } catch (e) { err = `${e.name} ${e.code}: ${e.message}`; }
const h = setTimeout(() => {}, 1e12);
return { order, err, kind: typeof h, id: typeof +h, same: h.ref() === h && h.hasRef() };"#;
    let sandbox = Sandbox::new(SandboxOptions {
        time_limit: Duration::from_millis(30),
        ..SandboxOptions::default()
    })
    .unwrap();
    let started = Instant::now();
    let result = run(&sandbox, source).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(40));
    assert_eq!(
        result,
        json!({
            "order": ["micro", "imm", "t0:xy", "iv1", "iv2", "iv3", "t20"],
            "err": "TypeError ERR_INVALID_ARG_TYPE: The \"callback\" argument must be of type function. Received type string ('code')",
            "kind": "object",
            "id": "number",
            "same": true,
        })
    );
    // Calls and timers together: the answer comes while a timer is pending.
    let (result, ()) = run_hosted(
        shared(),
        r#"const slow = new Promise((r) => setTimeout(() => r("timer"), 30));
const first = await Promise.race([slow, mcp.a.b()]);
return [first, await slow];"#,
        |calls| {
            for (call, answers) in calls {
                answers.answer(call.id, Ok(json!("call")));
            }
        },
    );
    assert_eq!(result.unwrap(), json!(["call", "timer"]));
    // Nothing left once the only timer is cleared: stuck, at once.
    let error = run(
        shared(),
        "const t = setTimeout(() => {}, 60000);\nclearTimeout(t);\nawait new Promise(() => {});",
    )
    .unwrap_err();
    assert!(matches!(error, SandboxError::Stalled { .. }), "{error:?}");
    // A throw in a callback is uncaught.
    let error = run(
        shared(),
        "setTimeout(() => { throw new Error('late'); }, 1);\nawait new Promise(() => {});",
    )
    .unwrap_err();
    assert!(error.to_string().contains("Error: late"), "{error}");
}

/// `atob`, `btoa`, `structuredClone`, `TextEncoder`, `TextDecoder`, `crypto`'s random values
/// as Node 20's (what it gives and what it throws, as it was measured running the same lines in
/// Node).
#[test]
fn the_web_platforms_data_functions_are_nodes() {
    let source = r#"const out = {};
const t = (k, f) => { try { out[k] = f(); } catch (e) { out[k] = `${e.name} ${e.code} ${e.message}`; } };
t("btoa", () => btoa("hello"));
t("btoaBad", () => btoa("\u20ac"));
t("atob", () => atob(" aGVs bG8= "));
t("atobShort", () => atob("a"));
t("atobBad", () => atob("a$bc"));
t("atobEq", () => atob("YQ==="));
t("encode", () => Array.from(new TextEncoder().encode("h\u00e9\u20ac\ud83d\ude00\ud800")));
t("into", () => { const d = new Uint8Array(5); return [new TextEncoder().encodeInto("a\u20ac\ud83d\ude00", d), Array.from(d)]; });
t("decode", () => new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 104, 0xff, 0xe2, 0x82, 0xac, 0xe2, 0x82])));
t("fatal", () => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])));
t("latin1", () => [new TextDecoder("latin1").encoding, new TextDecoder("latin1").decode(new Uint8Array([0x41, 0x80, 0xe9]))]);
t("utf16", () => new TextDecoder("utf-16le").decode(new Uint8Array([0xff, 0xfe, 0x41, 0, 0x3d, 0xd8, 0, 0xde])));
t("unknown", () => new TextDecoder("klingon"));
t("clone", () => { const o = { a: [1, { d: new Date(5) }], m: new Map([[1, new Set([2])]]), r: /x/gi, u: undefined }; o.self = o; const c = structuredClone(o); return [c.self === c, c.a[1].d.getTime(), c.m.get(1).has(2), c.r.flags, "u" in c, c !== o]; });
t("cloneSymbol", () => structuredClone(Symbol("s")));
t("cloneError", () => { const c = structuredClone(new TypeError("bad", { cause: 1 })); return [c instanceof TypeError, c.message, c.cause]; });
t("domException", () => { const e = new DOMException("m", "DataCloneError"); return [e.name, e.code, String(e), Object.prototype.toString.call(e)]; });
t("randomFloat", () => crypto.getRandomValues(new Float32Array(2)));
t("randomBig", () => crypto.getRandomValues(new Uint8Array(70000)));
t("randomNone", () => crypto.getRandomValues());
t("random", () => { const a = new Uint32Array(4); return crypto.getRandomValues(a) === a; });
t("uuid", () => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()));
t("crypto", () => Object.prototype.toString.call(crypto));
return out;"#;
    assert_eq!(
        run(shared(), source).unwrap(),
        json!({
            "btoa": "aGVsbG8=",
            "btoaBad": "InvalidCharacterError 5 Invalid character",
            "atob": "hello",
            "atobShort": "InvalidCharacterError 5 The string to be decoded is not correctly encoded.",
            "atobBad": "InvalidCharacterError 5 Invalid character",
            "atobEq": "InvalidCharacterError 5 Invalid character",
            "encode": [104, 195, 169, 226, 130, 172, 240, 159, 152, 128, 239, 191, 189],
            "into": [{"read": 2, "written": 4}, [97, 226, 130, 172, 0]],
            "decode": "h\u{fffd}\u{20ac}\u{fffd}",
            "fatal": "TypeError ERR_ENCODING_INVALID_ENCODED_DATA The encoded data was not valid for encoding utf-8",
            "latin1": ["windows-1252", "A\u{80}\u{e9}"],
            "utf16": "A\u{1f600}",
            "unknown": "RangeError ERR_ENCODING_NOT_SUPPORTED The \"klingon\" encoding is not supported",
            "clone": [true, 5, true, "gi", true, true],
            "cloneSymbol": "DataCloneError 25 Symbol(s) could not be cloned.",
            "cloneError": [true, "bad", 1],
            "domException": ["DataCloneError", 25, "DataCloneError: m", "[object DOMException]"],
            "randomFloat": "TypeMismatchError 17 The data argument must be an integer-type TypedArray",
            "randomBig": "QuotaExceededError 22 The requested length exceeds 65,536 bytes",
            "randomNone": "TypeError ERR_MISSING_ARGS Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.",
            "random": true,
            "uuid": true,
            "crypto": "[object Crypto]",
        })
    );
}

/// `crypto.subtle.digest` as Node 20's: the SHA digests, and every error a rejection in
/// Node's words (expected values are Node's output for the same lines).
#[test]
fn digests_are_nodes() {
    let source = r#"const enc = new TextEncoder().encode("hello");
const hex = (ab) => Array.from(new Uint8Array(ab)).map((b) => b.toString(16).padStart(2, "0")).join("");
const out = [];
const t = async (f) => { try { const r = await f(); out.push(r instanceof ArrayBuffer ? hex(r) : String(r)); } catch (e) { out.push(`${e.name} ${e.code} ${e.message}`); } };
await t(() => crypto.subtle.digest("SHA-256", enc));
await t(() => crypto.subtle.digest("sha-1", enc.buffer));
await t(() => crypto.subtle.digest({ name: "SHA-512" }, new DataView(enc.buffer)));
await t(() => crypto.subtle.digest("SHA-384", new Uint16Array([1, 2])));
await t(() => crypto.subtle.digest("MD5", enc));
await t(() => crypto.subtle.digest("SHA-256", "hello"));
await t(() => crypto.subtle.digest("SHA-256"));
await t(() => crypto.subtle.digest({}, enc));
// What the program changes in the data after the call is not digested.
await t(() => { const d = new Uint8Array([1]); const p = crypto.subtle.digest("SHA-1", d); d[0] = 2; return p; });
await t(() => { const { digest } = crypto.subtle; return digest("SHA-256", enc); });
out.push([typeof SubtleCrypto, Object.prototype.toString.call(crypto.subtle), crypto.subtle.digest.length, JSON.stringify(crypto)].join(" "));
return out;"#;
    assert_eq!(
        run(shared(), source).unwrap(),
        json!([
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
            "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d",
            "9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043",
            "1a79449813d9323eac3cd5e1d4c989f99fd9d8c799adb2dc3c9ebf53e1533b92092aafc92aacb3454c058245c417e115",
            "NotSupportedError 9 Unrecognized algorithm name",
            "TypeError ERR_INVALID_ARG_TYPE Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.",
            "TypeError ERR_MISSING_ARGS Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only 1 present.",
            "TypeError ERR_MISSING_OPTION Failed to normalize algorithm: passed algorithm can not be converted to 'Algorithm' because 'name' is required in 'Algorithm'.",
            "bf8b4530d8d246dd74ac53a13471bba17941dff7",
            "TypeError ERR_INVALID_THIS Value of \"this\" must be of type SubtleCrypto",
            "function [object SubtleCrypto] 2 {}",
        ])
    );
}

/// `URL` and `URLSearchParams` as Node 20's (the URL Standard's parser; expected values are
/// Node's output for the same lines).
#[test]
fn urls_are_nodes() {
    let source = r#"const out = {};
const t = (k, f) => { try { out[k] = f(); } catch (e) { out[k] = `${e.name} ${e.code} ${e.message} ${e.input}`; } };
t("parts", () => { const u = new URL("https://user:pw@Example.COM:443/a/./b/../c%20d?x=1&y=a+b#frag"); return [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash]; });
t("relative", () => new URL("../x?q#h", "http://a.org/b/c/d").href);
t("bad", () => new URL("not a url"));
t("set", () => { const u = new URL("http://a.org/p?x=1"); u.pathname = "/q r"; u.search = "y=2&z=%20"; u.hash = "h"; u.port = "8080"; u.hostname = "b.org"; return u.href; });
t("params", () => { const u = new URL("http://a.org/?a=1&b=2&a=3"); const p = u.searchParams; p.append("c", "x y&z"); p.delete("b"); p.set("a", "9"); return [u.search, p.get("a"), p.getAll("a"), p.has("c"), p.size, [...p.keys()], String(p)]; });
t("params2", () => [...new URLSearchParams("?q=%E2%82%AC+1&e=&f&=g&%zz=1")]);
t("paramsObj", () => new URLSearchParams({ a: 1, b: "\u00e9 \u00fc", c: null }).toString());
t("searchSync", () => { const u = new URL("http://a/?x=1"); u.search = "?k=v"; return [u.searchParams.get("k"), u.searchParams.get("x")]; });
t("idn", () => new URL("http://m\u00fcnchen.de/").hostname);
return out;"#;
    assert_eq!(
        run(shared(), source).unwrap(),
        json!({
            "parts": ["https://user:pw@example.com/a/c%20d?x=1&y=a+b#frag", "https://example.com", "https:", "user", "pw", "example.com", "example.com", "", "/a/c%20d", "?x=1&y=a+b", "#frag"],
            "relative": "http://a.org/b/x?q#h",
            "bad": "TypeError ERR_INVALID_URL Invalid URL not a url",
            "set": "http://b.org:8080/q%20r?y=2&z=%20#h",
            "params": ["?a=9&c=x+y%26z", "9", ["9"], true, 2, ["a", "c"], "a=9&c=x+y%26z"],
            "params2": [["q", "\u{20ac} 1"], ["e", ""], ["f", ""], ["", "g"], ["%zz", "1"]],
            "paramsObj": "a=1&b=%C3%A9+%C3%BC&c=null",
            "searchSync": ["v", null],
            "idn": "xn--mnchen-3ya.de",
        })
    );
}
