//! Instrumented programs: what their probes report, and that probing changes nothing the
//! program can see. The sources here are written by hand the way `pml_structure` instruments
//! (`P` is the probe object).

use pml_sandbox::{ConsoleLevel, HostCall, ProgramTask, Report, Reported, SandboxError};
use serde_json::{json, Value};

use crate::shared;

/// Runs `source` with the probe object `P`, answering each call with its arguments.
fn probed(source: &str) -> (Result<Value, SandboxError>, Vec<HostCall>, Vec<Report>) {
    let mut calls = Vec::new();
    let mut reports = Vec::new();
    let task = ProgramTask {
        name: "agent",
        source,
        args: &Value::Null,
        probes: Some("P"),
        values: &[1, 3],
        reads: None,
        originals: None,
        abort: None,
    };
    let result = shared().run_observed(
        &task,
        &mut |call, answers| {
            answers.answer(call.id, Ok(call.arguments.clone()));
            calls.push(call);
        },
        &mut |batch| reports.extend(batch),
    );
    (result, calls, reports)
}

fn operations(reports: &[Report]) -> Vec<(u32, Vec<u32>, bool, Option<String>)> {
    reports
        .iter()
        .filter_map(|r| match &r.what {
            Reported::Operation {
                probe,
                iteration,
                ok,
                preview,
                started,
            } => {
                assert!(*started <= r.at);
                Some((*probe, iteration.clone(), *ok, preview.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The loop counts reported: (probe, iteration vector around the loop, count).
fn iterations(reports: &[Report]) -> Vec<(u32, Vec<u32>, u32)> {
    reports
        .iter()
        .filter_map(|r| match &r.what {
            Reported::Iterations {
                probe,
                iteration,
                count,
            } => Some((*probe, iteration.clone(), *count)),
            _ => None,
        })
        .collect()
}

fn outcomes(reports: &[Report]) -> Vec<(u32, Vec<u32>, i64)> {
    reports
        .iter()
        .filter_map(|r| match &r.what {
            Reported::Outcome {
                probe,
                iteration,
                outcome,
            } => Some((*probe, iteration.clone(), *outcome)),
            _ => None,
        })
        .collect()
}

#[test]
fn operations_report_their_value_and_the_program_gets_it_unchanged() {
    let source = "const xs = [3, 1, 2];
const ys = P.e(2,0,P.e(1,0,xs.filter(P.b(1,0,x => x > 1))).map(P.b(2,0,x => x * 10)));
return ys;";
    let (result, _, reports) = probed(source);
    assert_eq!(result.unwrap(), json!([30, 20]));
    assert_eq!(
        operations(&reports),
        [
            (1, vec![], true, Some("[3,2]".to_owned())),
            (2, vec![], true, Some("[30,20]".to_owned())),
        ]
    );
}

#[test]
fn a_call_carries_its_site_and_iteration() {
    let source = "const out = [];
for (const x of [1, 2]) {const Pi1=P.i(1,0);
  out.push(await P.s(2,Pi1,mcp.s.t)({ x }));
}
await mcp.s.u({});
return out;";
    let (result, calls, reports) = probed(source);
    assert_eq!(result.unwrap(), json!([{"x": 1}, {"x": 2}]));
    let sites: Vec<(u32, Vec<u32>)> = calls
        .iter()
        .map(|c| (c.site, c.iteration.clone()))
        .collect();
    assert_eq!(sites, [(2, vec![0]), (2, vec![1]), (0, vec![])]);
    // A call without a site says where it was made.
    assert!(
        calls[2].stack.as_deref().unwrap().contains("(agent:5:"),
        "{:?}",
        calls[2].stack
    );
    assert!(calls[0].stack.is_none());
    let loops = iterations(&reports);
    assert_eq!(loops, [(1, vec![], 2)]);
}

#[test]
fn nested_loops_count_per_outer_iteration() {
    let source = "let n = 0;
for (let i = 0; i < 3; i++) {const Pa=P.i(1,0);
  for (let j = 0; j < i; j++) {const Pb=P.i(2,Pa); n = P.e(3,Pb,n + P.b(3,Pb,1)); }
}
return n;";
    let (result, _, reports) = probed(source);
    assert_eq!(result.unwrap(), json!(3));
    let ops: Vec<Vec<u32>> = operations(&reports).into_iter().map(|o| o.1).collect();
    assert_eq!(ops, [vec![1, 0], vec![2, 0], vec![2, 1]]);
    let mut loops = iterations(&reports);
    loops.sort();
    assert_eq!(loops, [(1, vec![], 3), (2, vec![1], 1), (2, vec![2], 2)]);
}

#[test]
fn decisions_and_switches_report_the_outcome_taken() {
    let source = "const v = args === null ? 'b' : 'a';
let r = '';
if (P.d(1,0,v === 'b')) r += 'yes';
const z = P.n(2,0,null) ?? 'dflt';
switch (P.w(3,0,v)) { case P.c(3,0,0,'a'): r += 'A'; break; case P.c(3,0,1,'b'): r += 'B'; default: P.x(3,0); r += 'D'; }
switch (P.w(4,0,42)) { case P.c(4,0,0,1): r += '1'; default: P.x(4,0);}
return [r, z];";
    let (result, _, reports) = probed(source);
    assert_eq!(result.unwrap(), json!(["yesBD", "dflt"]));
    assert_eq!(
        outcomes(&reports),
        [
            (1, vec![], 1),
            (2, vec![], 1),
            (3, vec![], 1),
            (4, vec![], -1)
        ]
    );
}

#[test]
fn an_operation_that_throws_is_reported_failed() {
    let source = "let r;
try { r = P.e(1,0,JSON.parse(P.b(1,0,'{'))); } catch (e) { r = P.e(2,0,String(P.b(2,0,e.name))); }
return [r, P.e(3,0,JSON.parse(P.b(3,0,'[1')))];";
    let (result, _, reports) = probed(source);
    assert!(
        matches!(result, Err(SandboxError::Exception { .. })),
        "{result:?}"
    );
    let ops: Vec<(u32, bool)> = operations(&reports)
        .into_iter()
        .map(|o| (o.0, o.2))
        .collect();
    assert_eq!(ops, [(2, true)]);
    // The caught failure is found when the run ends, as is the uncaught one (innermost last).
    let unfinished: Vec<u32> = reports
        .iter()
        .filter_map(|r| match &r.what {
            Reported::Unfinished { probe, .. } => Some(*probe),
            _ => None,
        })
        .collect();
    assert_eq!(unfinished, [1, 3]);
}

#[test]
fn forks_and_joins_are_reported_when_they_happen() {
    let source = "const [a, b] = await P.j(2,0,P.f(1,0,Promise).all([mcp.s.t({ a: 1 }), mcp.s.t({ b: 2 })]));
return [a, b];";
    let (result, calls, reports) = probed(source);
    assert_eq!(result.unwrap(), json!([{"a": 1}, {"b": 2}]));
    assert_eq!(calls.len(), 2);
    let kinds: Vec<&str> = reports
        .iter()
        .filter_map(|r| match &r.what {
            Reported::Fork { probe: 1, .. } => Some("fork"),
            Reported::Join {
                probe: 2, ok: true, ..
            } => Some("join"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["fork", "join"]);
}

#[test]
fn previews_are_bounded_and_run_no_program_code() {
    let source = "let reads = 0;
const o = { get secret() { reads++; return 1; }, big: 'x'.repeat(100000), n: [1, 2], d: new Date(0), m: new Map([[1, 2]]) };
const p = new Proxy({}, { ownKeys() { reads++; return []; }, get() { reads++; } });
P.e(1,0,o); P.e(2,0,p); P.e(3,0,[o, o]);
return reads;";
    let (result, _, reports) = probed(source);
    assert_eq!(
        result.unwrap(),
        json!(0),
        "a preview ran a getter or a trap"
    );
    let previews: Vec<String> = operations(&reports)
        .into_iter()
        .map(|o| o.3.unwrap())
        .collect();
    assert!(
        previews[0].starts_with(r#"{"secret":[Getter],"big":"xxx"#),
        "{}",
        previews[0]
    );
    assert!(previews[0].chars().count() <= 201, "{}", previews[0]);
    assert_eq!(previews[1], "[Proxy]");
    assert!(previews[2].starts_with("[{"), "{}", previews[2]);
}

#[test]
fn console_output_is_reported_not_returned() {
    let source =
        "console.log('n =', 1, { a: [1] }); console.error('bad'); console.warn(); return 'done';";
    let (result, _, reports) = probed(source);
    assert_eq!(result.unwrap(), json!("done"));
    let lines: Vec<(ConsoleLevel, String)> = reports
        .iter()
        .filter_map(|r| match &r.what {
            Reported::Console { level, text } => Some((*level, text.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        lines,
        [
            (ConsoleLevel::Log, "n = 1 { a: [ 1 ] }".to_owned()),
            (ConsoleLevel::Error, "bad".to_owned()),
            (ConsoleLevel::Warn, String::new()),
        ]
    );
}

#[test]
fn the_host_can_abort_a_run_that_waits() {
    let task = ProgramTask {
        name: "agent",
        source: "while (true) { try { await mcp.s.t({}); } catch (e) {} }",
        args: &Value::Null,
        probes: None,
        values: &[],
        reads: None,
        originals: None,
        abort: None,
    };
    let mut made = 0;
    let result = shared().run_program(&task, &mut |call, answers| {
        made += 1;
        if made == 3 {
            answers.abort();
        } else {
            answers.answer(call.id, Ok(Value::Null));
        }
    });
    assert!(
        matches!(result, Err(SandboxError::Aborted { .. })),
        "{result:?}"
    );
    assert_eq!(made, 3);
}

/// What the host gets when something that is not an iteration vector reaches the probes: an
/// `Invalid` report, read without walking what it was given (a 2^27-slot array is refused by
/// its length).
#[test]
fn reports_that_no_probe_makes_are_invalid_and_cheap() {
    let started = std::time::Instant::now();
    let (result, _, reports) = probed(
        "const huge = []; huge.length = 2 ** 27;\n\
         P.d(1, huge, true);\n\
         P.d(1, [1.5], true);\n\
         P.d(1, [-1], true);\n\
         P.d(1, 'x', true);\n\
         P.d(1, [0, 2], true);\n\
         return 1;",
    );
    assert_eq!(result.unwrap(), json!(1));
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    let invalid: Vec<&str> = (reports.iter())
        .filter_map(|r| match &r.what {
            Reported::Invalid { why } => Some(why.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(invalid.len(), 4, "{invalid:?}");
    assert!(invalid[0].contains("134217728 entries"), "{invalid:?}");
    // The well-formed one is reported as it is (the host checks it against the probe).
    assert!(reports.iter().any(|r| matches!(
        &r.what,
        Reported::Outcome { probe: 1, iteration, outcome: 1 } if iteration == &[0, 2]
    )));
}

/// The probe object is a parameter of a function around the program's, not an argument of it;
/// the program's functions show their text without the probes.
#[test]
fn the_program_cannot_reach_the_probe_object() {
    let (result, _, _) = probed(
        "const f = (x) => P.e(2, 0, x + 1);\n\
         let leaked = [];\n\
         try { leaked.push(typeof arguments[0]); } catch (e) { leaked.push('threw'); }\n\
         leaked.push(arguments.length);\n\
         leaked.push(typeof globalThis.P);\n\
         leaked.push(Function('return typeof P')());\n\
         leaked.push(f.toString());\n\
         leaked.push(Function.prototype.toString.call(f));\n\
         leaked.push(String(Function.prototype.toString));\n\
         return leaked;",
    );
    assert_eq!(
        result.unwrap(),
        json!([
            "undefined",
            0,
            "undefined",
            "undefined",
            // No `originals` given: a text holding the probes shows as native code.
            "function () { [native code] }",
            "function () { [native code] }",
            "function toString() { [native code] }"
        ])
    );
}
