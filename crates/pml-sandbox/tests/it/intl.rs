//! `localeCompare`, `Intl.Collator`, `Intl.NumberFormat` and `toLocaleString` against what
//! Node 20 (full ICU, default locale en-US) answers for the same program (`node` runs it).

use std::io::Write;
use std::process::{Command, Stdio};

use pml_sandbox::{ProgramTask, Sandbox, SandboxOptions};
use serde_json::{json, Value};

use crate::{shared, value};

/// What Node's program returns, as JSON.
pub(crate) fn node_returns(source: &str) -> Value {
    let runner = r#"
const src = require("fs").readFileSync(0, "utf8");
const body = new Function(`return (async () => {\n"use strict";\n${src}\n})();`);
body().then((v) => process.stdout.write(JSON.stringify(v)), (e) => { console.error(e); process.exitCode = 1; });
"#;
    let mut child = Command::new("node")
        .args(["-e", runner])
        .env("LANG", "en_US.UTF-8")
        .env_remove("LC_ALL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs (Node 20 is needed by the tests)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "node failed");
    // Numbers as the doubles JavaScript wrote (an integer past 2^53 as its double).
    pml_jstext::parse_js_json(std::str::from_utf8(&output.stdout).unwrap()).unwrap()
}

pub(crate) fn sandbox_returns(sandbox: &Sandbox, source: &str) -> Value {
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
    sandbox
        .run_program(&task, &mut |call, answers| {
            answers.answer(call.id, Ok(Value::Null))
        })
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The program's results in the sandbox and in Node are the same, element by element.
pub(crate) fn same_as_node(source: &str) {
    let ours = sandbox_returns(shared(), source);
    let node = node_returns(source);
    let (Value::Array(ours), Value::Array(node)) = (&ours, &node) else {
        panic!("{ours} / {node}");
    };
    assert_eq!(ours.len(), node.len());
    let differ: Vec<String> = (ours.iter().zip(node))
        .enumerate()
        .filter(|(_, (o, n))| o != n)
        .map(|(i, (o, n))| format!("#{i}\n  node: {n}\n  pml:  {o}"))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn collation_and_numbers_give_what_node_gives() {
    same_as_node(include_str!("intl/values.js"));
}

#[test]
fn number_parts_are_node_s() {
    same_as_node(include_str!("intl/parts.js"));
}

#[test]
fn compact_notation_gives_what_node_gives() {
    same_as_node(include_str!("intl/compact.js"));
}

#[test]
fn amounts_of_money_are_written_as_node_writes_them() {
    same_as_node(include_str!("intl/currencies.js"));
}

#[test]
fn lists_and_plurals_are_what_node_says() {
    same_as_node(include_str!("intl/lists.js"));
}

#[test]
fn relative_times_are_what_node_says() {
    same_as_node(include_str!("intl/relative.js"));
}

#[test]
fn dates_are_formatted_as_node_formats_them() {
    same_as_node(include_str!("intl/dates.js"));
}

#[test]
fn dates_in_other_locales_are_node_s() {
    // Every locale with a table of its own (en-US and en-GB are `dates.js`'s).
    let locales = [
        "de-DE", "en-AU", "en-CA", "en-IE", "en-IN", "en-NZ", "en-SG", "en-ZA", "es-ES", "fr-FR",
        "ja-JP", "ko-KR", "nl-NL", "pl-PL", "pt-BR", "ru-RU", "sv-SE", "zh-CN",
        // A language alone: its likeliest region's table.
        "de", "fr", "es", "nl", "pt", "pl", "sv", "ru", "ja", "ko", "zh",
    ];
    let locales = serde_json::to_string(&locales).unwrap();
    same_as_node(&format!(
        "const LOCALES = {locales};\n{}",
        include_str!("intl/dates-locales.js")
    ));
}

#[test]
fn dates_in_named_time_zones_are_node_s() {
    same_as_node(include_str!("intl/zones.js"));
}

#[test]
fn dates_are_parsed_as_node_parses_them() {
    // Date.parse and new Date(text) over some 7,200 texts, and what `Date` keeps.
    same_as_node(include_str!("intl/date-parse.js"));
}

#[test]
fn code_tasks_parse_dates_as_programs_do() {
    // Speculation parses a date in a code task: as the program would.
    let texts = json!([
        "2024-03-05 10:20:30-05:00",
        "2024-01-15t10:00:00z",
        "2024-03-05 10:20+01:00",
        "2024-03-05T10:20:30 CET",
        "Tue, 05 Mar 2024 10:20:30 GMT",
        "3/5/2024 10:20 PM",
        "-1",
    ]);
    // (`Date()` reads the clock: the program's to read, not a code task's.)
    let source = "[texts.map((t) => [Date.parse(t), new Date(t).getTime()]), Object.getOwnPropertyNames(Date), \
                  String(Date), String(Date.parse), Date.length, Date.prototype.constructor === Date, \
                  new Date(texts[0]) instanceof Date, new Date(2024, 2, 5, 10).getTime()]";
    let program = format!("const texts = {texts}; return {source};");
    let expected = sandbox_returns(shared(), &program);
    assert_eq!(expected, node_returns(&program));
    assert_eq!(value(source, &[("texts", texts)]), expected);
}

#[test]
fn code_tasks_do_not_read_the_clock_nor_randomness() {
    // Computed ahead of the program, the time or a random number would not be the program's:
    // a read started with it would carry other arguments than the program sends.
    for code in [
        "Date.now()",
        "new Date().getTime()",
        "Date()",
        "Math.random()",
    ] {
        let message = crate::error(code, &[]);
        assert!(message.contains("not computed ahead"), "{code}: {message}");
    }
    assert_eq!(
        value("new Date(0).toISOString() + Math.max(1, 2)", &[]),
        json!("1970-01-01T00:00:00.000Z2")
    );
}

#[test]
fn code_tasks_collate_too() {
    // Pure code evaluated ahead of the program sorts as the program does.
    assert_eq!(
        value(
            "[...xs].sort((a, b) => a.localeCompare(b))",
            &[("xs", json!(["B", "a", "b", "A"]))]
        ),
        json!(["a", "A", "b", "B"])
    );
    assert_eq!(
        value("n.toLocaleString()", &[("n", json!(1234567.891))]),
        json!("1,234,567.891")
    );
}

#[test]
fn code_tasks_format_dates_and_money_as_programs_do() {
    // Speculation computes a read's arguments in a code task: it must format as the program.
    let source = "[
  new Date(t).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }),
  new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(t),
  amount.toLocaleString('en-US', { style: 'currency', currency: 'EUR' }),
  new Intl.ListFormat('en').format(names),
  new Date(t).toISOString(),
]";
    let program = format!("const t = 1704441789123; const amount = -1234.5; const names = ['a', 'b', 'c']; return {source};");
    let expected = sandbox_returns(shared(), &program);
    assert_eq!(
        value(
            source,
            &[
                ("t", json!(1704441789123u64)),
                ("amount", json!(-1234.5)),
                ("names", json!(["a", "b", "c"])),
            ]
        ),
        expected
    );
    assert_eq!(
        expected,
        json!([
            "January 5, 2024",
            "5 Jan 2024",
            "-€1,234.50",
            "a, b, and c",
            "2024-01-05T08:03:09.123Z"
        ])
    );
}

#[test]
fn what_pml_cannot_answer_as_node_does_is_an_error() {
    let sandbox = Sandbox::new(SandboxOptions {
        workers: 1,
        ..SandboxOptions::default()
    })
    .unwrap();
    let result = sandbox_returns(
        &sandbox,
        "const out = [];
for (const [l, o] of [['en', { style: 'unit', unit: 'kilometer-per-hour' }], ['sv', { notation: 'scientific' }], ['de', { notation: 'compact', compactDisplay: 'long' }], ['de', { notation: 'compact', style: 'percent' }], ['en-US', { signDisplay: 'always', style: 'currency', currency: 'USD', currencySign: 'accounting' }], ['de', { style: 'currency', currency: 'EUR' }], ['en-IN', { style: 'currency', currency: 'INR', currencySign: 'accounting' }], ['de-DE', { style: 'currency', currency: 'EUR', currencyDisplay: 'name' }]]) {
  try { out.push((5).toLocaleString(l, o)); } catch (e) { out.push(e.name + ': ' + e.message); }
}
for (const [l, o] of [['it'], ['en', { era: 'long' }], ['en', { timeZone: 'Europe/Paris', timeZoneName: 'short' }]]) {
  try { out.push(new Date(0).toLocaleDateString(l, o)); } catch (e) { out.push(e.name + ': ' + e.message); }
}
try { out.push(new Intl.RelativeTimeFormat('fr').format(1, 'day')); } catch (e) { out.push(e.name + ': ' + e.message); }
try { out.push(new Date(Date.UTC(2024, 9, 27, 0, 59)).toLocaleString('en', { timeZone: 'Europe/Berlin', timeZoneName: 'longGeneric' })); } catch (e) { out.push(e.name + ': ' + e.message); }
return out;",
    );
    assert_eq!(
        result,
        json!([
            "RangeError: pml: Intl.NumberFormat does not support the unit kilometer-per-hour (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support notation: \"scientific\" in the locale sv (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support notation: \"compact\" with compactDisplay: \"long\" in the locale de (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support notation: \"compact\" with style: \"percent\" in the locale de (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support signDisplay: \"always\" with currencySign: \"accounting\" (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support currencies in the locale de (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support currencySign: \"accounting\" in the locale en-IN (Node's answer would differ)",
            "RangeError: pml: Intl.NumberFormat does not support currencyDisplay: \"name\" in the locale de-DE (Node's answer would differ)",
            "RangeError: pml: Intl.DateTimeFormat does not support the locale it (Node's answer would differ)",
            "RangeError: pml: Intl.DateTimeFormat does not support the option era (Node's answer would differ)",
            "RangeError: pml: Intl.DateTimeFormat does not support the names of the time zone Europe/Paris at this date (Node's answer would differ)",
            "RangeError: pml: Intl.RelativeTimeFormat does not support the locale fr (Node's answer would differ)",
            "RangeError: pml: Intl.DateTimeFormat does not support the generic names of the time zone Europe/Berlin in an hour its clocks repeat (Node's answer would differ)",
        ])
    );
}

/// `Promise.any` as Node's: the message of its AggregateError when all reject, its errors in
/// order, and the turns its answers take among other jobs (the order of a log written as
/// promises settle).
#[test]
fn promise_any_answers_as_node() {
    same_as_node(
        r#"const log = [];
const tick = (name) => Promise.resolve().then(() => log.push(name));
const out = [];
tick("a");
const first = Promise.any([Promise.reject(1), Promise.resolve(2).then((v) => { log.push("b"); return v; }), 3]);
tick("c");
out.push(await first);
try { await Promise.any([Promise.reject(new Error("x")), Promise.reject(new Error("y"))]); } catch (e) {
  out.push([e.name, e.message, String(e), e.errors.map((x) => x.message), Object.keys(e)]);
}
try { await Promise.any([]); } catch (e) { out.push([e.message, e.errors.length]); }
try { await Promise.any(5); } catch (e) { out.push([e.name, e.message.length > 0]); }
const thenable = { then(ok) { log.push("thenable"); ok(7); } };
out.push(await Promise.any([thenable]));
out.push(Promise.any.length, Promise.any.name, new AggregateError([1]).message);
out.push(log);
return out;"#,
    );
}
