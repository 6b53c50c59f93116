//! Values of pure code tasks: the operations the registry knows, chain links, fused tasks, and
//! the JSON conversion of the result.

use serde_json::json;

use crate::{shared, value};

#[test]
fn array_operations() {
    let xs = || ("xs", json!([3, 1, 4, 1, 5, 9, 2, 6]));
    assert_eq!(value("xs.filter(x => x > 3)", &[xs()]), json!([4, 5, 9, 6]));
    assert_eq!(
        value("xs.map(x => x * 10)", &[xs()]),
        json!([30, 10, 40, 10, 50, 90, 20, 60])
    );
    assert_eq!(
        value("[...xs].sort((a, b) => a - b)", &[xs()]),
        json!([1, 1, 2, 3, 4, 5, 6, 9])
    );
    assert_eq!(value("xs.reduce((s, x) => s + x, 0)", &[xs()]), json!(31));
    assert_eq!(value("Math.max(...xs)", &[xs()]), json!(9));
    assert_eq!(value("xs.length", &[xs()]), json!(8));
}

#[test]
fn objects_and_json() {
    assert_eq!(
        value("Object.keys(o)", &[("o", json!({"b": 1, "a": 2, "c": 3}))]),
        json!(["b", "a", "c"])
    );
    assert_eq!(
        value(
            "JSON.parse(file.content)",
            &[("file", json!({"content": "{\"x\": [1, 2]}"}))]
        ),
        json!({"x": [1, 2]})
    );
    assert_eq!(
        value(
            "JSON.stringify(v)",
            &[("v", json!({"a": [1, "two", null, true]}))]
        ),
        json!("{\"a\":[1,\"two\",null,true]}")
    );
    // Key order survives the round trip in both directions.
    assert_eq!(
        value("({ ...o, z: 0, m: 1 })", &[("o", json!({"y": 1, "b": 2}))]),
        json!({"y": 1, "b": 2, "z": 0, "m": 1})
    );
}

#[test]
fn chain_link_reads_receiver() {
    assert_eq!(
        value(
            "$receiver.map(x => x * 2)",
            &[("$receiver", json!([1, 2, 3]))]
        ),
        json!([2, 4, 6])
    );
}

#[test]
fn fused_chain() {
    let code = "(() => { const n2 = ((file) => (JSON.parse(file.content)))(n2$file); \
                return (($receiver) => ($receiver.map(u => u.name)))(n2); })()";
    assert_eq!(
        value(
            code,
            &[("n2$file", json!({"content": "[{\"name\":\"a\"}]"}))]
        ),
        json!(["a"])
    );
}

#[test]
fn several_arguments_in_order() {
    assert_eq!(
        value(
            "[a, b, c]",
            &[("a", json!(1)), ("b", json!("x")), ("c", json!(null))]
        ),
        json!([1, "x", null])
    );
    assert_eq!(value("42", &[]), json!(42));
}

#[test]
fn json_conversion_of_results() {
    assert_eq!(value("undefined", &[]), json!(null));
    assert_eq!(value("[1, undefined]", &[]), json!([1, null]));
    assert_eq!(value("({ a: undefined, b: 1 })", &[]), json!({"b": 1}));
    assert_eq!(value("[NaN, Infinity, -0]", &[]), json!([null, null, 0]));
    assert_eq!(value("new Date(0)", &[]), json!("1970-01-01T00:00:00.000Z"));
    assert_eq!(value("'é\\u{1F600}\\n'", &[]), json!("é\u{1F600}\n"));
    assert_eq!(value("2 ** 53 + 1", &[]), json!(9007199254740992_u64));
    assert_eq!(value("0.1 + 0.2", &[]), json!(0.30000000000000004));
    assert_eq!(value("new Map([[1, 2]])", &[]), json!({}));
}

#[test]
fn big_and_unicode_arguments_round_trip() {
    let big: Vec<_> = (0..10_000)
        .map(|i| json!({"id": i, "name": format!("user {i} ü")}))
        .collect();
    let big = json!(big);
    assert_eq!(value("xs", &[("xs", big.clone())]), big);
    assert_eq!(
        value("s", &[("s", json!("a\"b\\c\u{0}\u{2028}"))]),
        json!("a\"b\\c\u{0}\u{2028}")
    );
    assert_eq!(
        value("n", &[("n", json!(u64::MAX))]),
        json!(18446744073709552000.0)
    );
}

#[test]
fn promise_results_are_awaited() {
    assert_eq!(
        value(
            "Promise.resolve(xs).then(v => v.length)",
            &[("xs", json!([1, 2]))]
        ),
        json!(2)
    );
    assert_eq!(
        value("(async () => { await null; return 'done'; })()", &[]),
        json!("done")
    );
}

#[test]
fn comments_and_line_breaks_in_code() {
    assert_eq!(
        value("x + 1 // trailing comment", &[("x", json!(1))]),
        json!(2)
    );
    assert_eq!(value("\n  x\n  * 3\n", &[("x", json!(2))]), json!(6));
    assert_eq!(
        value("/* a */ x /* b */", &[("x", json!(true))]),
        json!(true)
    );
}

#[test]
fn nul_characters_in_code_and_values() {
    assert_eq!(value("'a\u{0}b'.length", &[]), json!(3));
    assert_eq!(value("s.length", &[("s", json!("a\u{0}b"))]), json!(3));
}

#[test]
fn same_code_with_other_arguments_or_task() {
    // Compiled code is cached per task id and source: the arguments still change the result,
    // and stack traces still name the right task.
    for i in 0..5 {
        assert_eq!(value("x * 10", &[("x", json!(i))]), json!(i * 10));
    }
    let arguments = [("x".to_owned(), json!(null))];
    for task_id in ["n7", "n8"] {
        let task = pml_sandbox::CodeTask {
            task_id,
            tool: "code:test",
            code: "x.y",
            arguments: &arguments,
        };
        let Err(pml_sandbox::SandboxError::Exception { stack, .. }) = shared().eval(&task) else {
            panic!("expected an exception");
        };
        assert!(stack.unwrap_or_default().contains(task_id));
    }
}

#[test]
fn sandbox_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<pml_sandbox::Sandbox>();
}

#[test]
fn sandbox_is_reused_for_many_tasks() {
    for i in 0..500 {
        assert_eq!(value("i + 1", &[("i", json!(i))]), json!(i + 1));
    }
    assert_eq!(shared().abandoned_workers(), 0);
}

/// A comparison function that is no consistent order sorts as in Node (V8's TimSort): the
/// expected values are Node 20's.
#[test]
fn sorts_compare_as_v8_does() {
    let code = "(() => {
        const xs = [3, 1, 2, 5, 4, 9, 8, 7, 6, 0, 11, 10];
        const calls = [];
        const r1 = xs.slice().sort((a, b) => { calls.push(a + ':' + b); return a > b; });
        const objs = [5, 3, 5, 1, 3, 9, 5, 0, 3, 7, 1, 5].map((v, i) => ({ v, i }));
        const r2 = objs.slice().sort((a, b) => (a.v > b.v ? 1 : -1)).map((o) => o.i);
        let s = 7;
        const big = Array.from({ length: 300 }, () => (s = (s * 48271) % 2147483647) % 100);
        const r3 = big.slice().sort((a, b) => (a > b ? 1 : -1));
        let h = 0;
        for (const v of r3) h = (h * 31 + v) | 0;
        const r4 = [1, , 3, undefined, 2].toSorted((a, b) => b - a);
        return [r1, calls.slice(0, 12), calls.length, r2, h, r4];
    })()";
    assert_eq!(
        value(code, &[]),
        json!([
            [3, 1, 2, 5, 4, 9, 8, 7, 6, 0, 11, 10],
            ["1:3", "2:1", "5:2", "4:5", "9:4", "8:9", "7:8", "6:7", "0:6", "11:0", "10:11"],
            11,
            [7, 10, 3, 8, 4, 1, 11, 6, 2, 0, 9, 5],
            -1151212013,
            [3, 2, 1, null, null]
        ])
    );
    // Holes and `undefined` go last, the holes deleted; what Node says of a bad function.
    let code = "(() => {
        const a = [5, , 3, undefined, 1, , 2];
        a.sort((x, y) => x - y);
        let bad;
        try { [1].sort(5); } catch (e) { bad = e.message; }
        return [a.length, a.slice(0, 5), 5 in a, 6 in a, bad, [].sort.name, [].sort.length];
    })()";
    assert_eq!(
        value(code, &[]),
        json!([
            7,
            [1, 2, 3, 5, null],
            false,
            false,
            "The comparison function must be either a function or undefined",
            "sort",
            1
        ])
    );
}

/// The built-ins pml defines in JavaScript print as native ones do, not their code; and
/// native functions print as V8 prints them (on one line; a bound function without a name).
#[test]
fn built_ins_written_in_javascript_print_as_native() {
    assert_eq!(
        value(
            "[String(JSON.parse), String([].sort), String([].toSorted), String(Math.max), \
              String(Function.prototype.toString), String(Object.getOwnPropertyDescriptor(Map.prototype, 'size').get), \
              String(Math.max.bind(null)), String((function f(a) { return a; }).bind(null)), \
              String(function g(a) { return a; }), String(Function.prototype)]",
            &[]
        ),
        json!([
            "function parse() { [native code] }",
            "function sort() { [native code] }",
            "function toSorted() { [native code] }",
            "function max() { [native code] }",
            "function toString() { [native code] }",
            "function get size() { [native code] }",
            "function () { [native code] }",
            "function () { [native code] }",
            "function g(a) { return a; }",
            "function () { [native code] }"
        ])
    );
}

/// A Date setter given a value that is not a finite number makes the date invalid, as in V8
/// (QuickJS answered NaN and kept the date); an invalid date stays invalid but for the
/// full-year setters, which start from 1970.
#[test]
fn date_setters_given_nan_make_an_invalid_date() {
    let cases = "(() => { const at = () => new Date(Date.UTC(2024, 0, 15, 10, 30)); \
        const out = []; \
        for (const f of [d => d.setUTCDate(NaN), d => d.setUTCHours(5, NaN), d => d.setHours(Infinity), \
            d => d.setMonth(undefined), d => d.setMinutes(), d => d.setUTCDate(20)]) { \
            const d = at(); const r = f(d); out.push([r, d.getTime()]); } \
        const bad = new Date(NaN); out.push([bad.setUTCFullYear(2020), bad.getTime()]); \
        const bad2 = new Date(NaN); out.push([bad2.setUTCDate(3), bad2.getTime()]); \
        out.push([Date.prototype.setHours.length, Date.prototype.setHours.name]); \
        return out; })()";
    // Node 20's answer (JSON: NaN is null).
    assert_eq!(
        value(cases, &[]),
        json!([
            [null, null],
            [null, null],
            [null, null],
            [null, null],
            [null, null],
            [1705746600000_i64, 1705746600000_i64],
            [1577836800000_i64, 1577836800000_i64],
            [null, null],
            [4, "setHours"]
        ])
    );
}
