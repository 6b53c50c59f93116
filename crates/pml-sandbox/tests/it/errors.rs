//! How a task fails: exceptions, syntax errors, results that are not JSON, bad argument names.

use pml_sandbox::SandboxError;
use serde_json::json;

use crate::{error, eval, value};

#[test]
fn exceptions_name_task_tool_and_error() {
    assert_eq!(
        error("x.y.z", &[("x", json!({}))]),
        "code task n1 (code:test) threw: TypeError: Cannot read properties of undefined (reading 'z')"
    );
    assert_eq!(
        error("missing + 1", &[]),
        "code task n1 (code:test) threw: ReferenceError: missing is not defined"
    );
    assert_eq!(
        error("JSON.parse(s)", &[("s", json!("{oops"))]),
        "code task n1 (code:test) threw: SyntaxError: Expected property name or '}' in JSON at position 1"
    );
    assert_eq!(
        error("(() => { throw new RangeError('too big'); })()", &[]),
        "code task n1 (code:test) threw: RangeError: too big"
    );
}

/// What Node 20 says (`node -e 'try { JSON.parse(t) } catch (e) { console.log(e.message) }'`).
#[test]
fn json_parse_errors_say_what_v8_says() {
    let cases = [
        ("{", "Expected property name or '}' in JSON at position 1"),
        ("[", "Unexpected end of JSON input"),
        (
            "[1",
            "Expected ',' or ']' after array element in JSON at position 2",
        ),
        (
            "{\"a\"",
            "Expected ':' after property name in JSON at position 4",
        ),
        (
            "{\"a\":1",
            "Expected ',' or '}' after property value in JSON at position 6",
        ),
        (
            "{\"a\":1,}",
            "Expected double-quoted property name in JSON at position 7",
        ),
        (
            "{\"a\":1, \"b\" 2}",
            "Unexpected number in JSON at position 12",
        ),
        ("01", "Unexpected number in JSON at position 1"),
        ("-a", "No number after minus sign in JSON at position 1"),
        ("1.", "Unterminated fractional number in JSON at position 2"),
        (
            "1e+",
            "Exponent part is missing a number in JSON at position 3",
        ),
        ("\"\\x\"", "Bad escaped character in JSON at position 2"),
        ("\"\\u12g4\"", "Bad Unicode escape in JSON at position 5"),
        (
            "\"a\nb\"",
            "Bad control character in string literal in JSON at position 2",
        ),
        ("\"abc", "Unterminated string in JSON at position 4"),
        ("tr\"", "Unexpected string in JSON at position 2"),
        ("nul", "Unexpected end of JSON input"),
        ("undefined", "\"undefined\" is not valid JSON"),
        ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
        (
            "{\"a\":1}}",
            "Unexpected non-whitespace character after JSON at position 7",
        ),
        (
            "Error: file not found at /tmp/x",
            "Unexpected token 'E', \"Error: fil\"... is not valid JSON",
        ),
        (
            "{\"key\": \"value\", \"other\": tru }",
            "Unexpected token ' ', ...\"ther\": tru }\" is not valid JSON",
        ),
        (
            "[\"abcdefghij\", \"klmnopqrstu\" + 1]",
            "Expected ',' or ']' after array element in JSON at position 29",
        ),
    ];
    for (text, expected) in cases {
        let message = value(
            "(() => { try { JSON.parse(t); return null; } catch (e) { return e.message; } })()",
            &[("t", json!(text))],
        );
        assert_eq!(message, json!(expected), "{text}");
    }
    // What the code replaces of the built-ins changes nothing.
    let message = value(
        "(() => { Object.getPrototypeOf = () => { throw 1; }; Array.prototype.push = () => { throw 2; }; String.prototype.slice = () => 'x'; const m = []; for (const t of ['[{', 'Error: a long enough text']) { try { JSON.parse(t); } catch (e) { m[m.length] = e.message; } } try { null.y; } catch (e) { m[m.length] = e.message; } return m; })()",
        &[],
    );
    assert_eq!(
        message,
        json!([
            "Expected property name or '}' in JSON at position 2",
            "Unexpected token 'E', \"Error: a l\"... is not valid JSON",
            "Cannot read properties of null (reading 'y')"
        ])
    );
    // An error of the reviver is its own.
    let message = value(
        "(() => { try { JSON.parse('[1]', () => { throw new SyntaxError('mine'); }); } catch (e) { return e.message; } })()",
        &[],
    );
    assert_eq!(message, json!("mine"));
    assert_eq!(
        value(
            "[JSON.parse.name, JSON.parse.length, JSON.parse('[1,{\"a\":2}]')]",
            &[]
        ),
        json!(["parse", 2, [1, {"a": 2}]])
    );
    // A reviver gets the key and the value, and the holder as `this`, as in Node 20 (QuickJS
    // adds `{ source }`, which a reviver keeping big ids exact would use).
    assert_eq!(
        value(
            "JSON.parse('{\"id\":9007199254740993,\"a\":[1]}', function (k, v, ctx) { return k === 'id' ? [arguments.length, typeof ctx, Array.isArray(this.a)] : v; })",
            &[]
        ),
        json!({"id": [2, "undefined", true], "a": [1]})
    );
}

/// QuickJS words some of the errors it throws otherwise than V8: a program that catches one
/// sees Node's message.
#[test]
fn engine_errors_say_what_v8_says() {
    let cases = [
        (
            "x.y.z",
            "TypeError: Cannot read properties of undefined (reading 'z')",
        ),
        (
            "null.y",
            "TypeError: Cannot read properties of null (reading 'y')",
        ),
        (
            "(() => { const o = {}; o.a.b = 1; })()",
            "TypeError: Cannot set properties of undefined (setting 'b')",
        ),
        (
            "Object.keys(undefined)",
            "TypeError: Cannot convert undefined or null to object",
        ),
        ("new Array(-1)", "RangeError: Invalid array length"),
        (
            "new Date(NaN).toISOString()",
            "RangeError: Invalid time value",
        ),
        (
            "(1).toFixed(101)",
            "RangeError: toFixed() digits argument must be between 0 and 100",
        ),
        (
            "(1).toPrecision(0)",
            "RangeError: toPrecision() argument must be between 1 and 100",
        ),
        (
            "(() => { const f = () => later; f(); let later = 1; })()",
            "ReferenceError: Cannot access 'later' before initialization",
        ),
        // Node 20's answers for the same lines.
        (
            "[].reduce((a, b) => a + b)",
            "TypeError: Reduce of empty array with no initial value",
        ),
        (
            "[].reduceRight((a, b) => a + b)",
            "TypeError: Reduce of empty array with no initial value",
        ),
        (
            "`${Symbol('x')}`",
            "TypeError: Cannot convert a Symbol value to a string",
        ),
        (
            "Symbol('x') * 2",
            "TypeError: Cannot convert a Symbol value to a number",
        ),
        ("decodeURIComponent('%')", "URIError: URI malformed"),
        ("decodeURI('%E0%A4%A')", "URIError: URI malformed"),
        ("encodeURIComponent('\\uD800')", "URIError: URI malformed"),
        (
            "'a'.normalize('x')",
            "RangeError: The normalization form should be one of NFC, NFD, NFKC, NFKD.",
        ),
        (
            "(() => { const B = class {}; return B(); })()",
            "TypeError: Class constructor B cannot be invoked without 'new'",
        ),
        (
            "Math.max(1n)",
            "TypeError: Cannot convert a BigInt value to a number",
        ),
        ("1n / 0n", "RangeError: Division by zero"),
        (
            "({}) instanceof undefined",
            "TypeError: Right-hand side of 'instanceof' is not an object",
        ),
        (
            "+1n",
            "TypeError: Cannot convert a BigInt value to a number",
        ),
        (
            "1n + 1",
            "TypeError: Cannot mix BigInt and other types, use explicit conversions",
        ),
        (
            "2n ** 0.5",
            "TypeError: Cannot mix BigInt and other types, use explicit conversions",
        ),
        ("2n ** -1n", "RangeError: undefined must be positive"),
        (
            "1n >>> 1n",
            "TypeError: BigInts have no unsigned right shift, use >> instead",
        ),
        (
            "'a'.padStart(Infinity)",
            "RangeError: Invalid string length",
        ),
        (
            "new WeakMap().set(1, 1)",
            "TypeError: Invalid value used as weak map key",
        ),
        (
            "new WeakSet().add(1)",
            "TypeError: Invalid value used in weak set",
        ),
        (
            "Date.prototype.getTime.call({})",
            "TypeError: this is not a Date object.",
        ),
        (
            "String.prototype.trim.call(null)",
            "TypeError: String.prototype.trim called on null or undefined",
        ),
        (
            "''.padEnd.call(undefined, 2)",
            "TypeError: String.prototype.padEnd called on null or undefined",
        ),
        (
            "'abc'.replaceAll(/a/, 'b')",
            "TypeError: String.prototype.replaceAll called with a non-global RegExp argument",
        ),
        // What the program throws itself is left as it is.
        (
            "(() => { throw new URIError('expecting hex digit'); })()",
            "URIError: expecting hex digit",
        ),
        (
            "(() => { throw new TypeError('empty array'); })()",
            "TypeError: empty array",
        ),
    ];
    for (code, expected) in cases {
        let message = value(
            &format!("(() => {{ try {{ {code}; return null; }} catch (e) {{ return `${{e.name}}: ${{e.message}}`; }} }})()"),
            &[("x", json!({}))],
        );
        assert_eq!(message, json!(expected), "{code}");
    }
    // The frames are QuickJS's as ever, the hook out of sight.
    let stack = value(
        "(() => { try { null.y; } catch (e) { return [e.stack.startsWith('    at '), typeof Error.prepareStackTrace, 'prepareStackTrace' in Error]; } })()",
        &[],
    );
    assert_eq!(stack, json!([true, "undefined", false]));
}

/// A callback that is not a function, named as Node 20 names it (each expected line is what
/// `node -e` printed for the same code), checked only where V8 checks it: after the receiver
/// and its `length` are read.
#[test]
fn callbacks_that_are_not_functions_are_named_as_v8_names_them() {
    let cases = [
        ("xs.map(x.handler)", "undefined is not a function"),
        ("xs.forEach(3)", "3 is not a function"),
        ("xs.filter('f')", "f is not a function"),
        ("xs.find({})", "#<Object> is not a function"),
        ("xs.reduce(null)", "null is not a function"),
        ("[].reduce(x.f)", "undefined is not a function"),
        ("xs.some([1, [2]])", "[object Array] is not a function"),
        ("xs.every(10n)", "10 is not a function"),
        ("xs.findIndex(Symbol('s'))", "Symbol(s) is not a function"),
        (
            "xs.findLast(new Date(0))",
            "[object Date] is not a function",
        ),
        ("xs.map(new Map())", "#<Map> is not a function"),
        ("xs.map(new (class Foo {})())", "#<Foo> is not a function"),
        (
            "xs.map(Object.create(null))",
            "[object Object] is not a function",
        ),
        (
            "xs.map({ toString() { return 'T'; } })",
            "[object Object] is not a function",
        ),
        ("xs.map(new Error('boom'))", "Error: boom is not a function"),
        ("xs.map(/x/g)", "[object RegExp] is not a function"),
        ("xs.flatMap(1)", "flatMap mapper function is not callable"),
        ("Array.from(xs, 3)", "3 is not a function"),
        ("new Set(xs).forEach(2)", "number 2 is not a function"),
        ("new Map().forEach('f')", "string \"f\" is not a function"),
        ("new Set().forEach({})", "object is not a function"),
        ("new Set().forEach(null)", "object null is not a function"),
        (
            "Array.prototype.map.call(null, (v) => v)",
            "Array.prototype.map called on null or undefined",
        ),
    ];
    for (code, expected) in cases {
        let message = value(
            &format!("(() => {{ try {{ {code}; return null; }} catch (e) {{ return `${{e.name}}: ${{e.message}}`; }} }})()"),
            &[("x", json!({})), ("xs", json!([1, 2]))],
        );
        assert_eq!(message, json!(format!("TypeError: {expected}")), "{code}");
    }
    // What V8 reads first is read first, once, and a function runs as ever.
    let reads = value(
        "(() => { let n = 0; const p = { get length() { n++; return 2; }, 0: 1, 1: 2 }; \
         let failed; try { Array.prototype.map.call(p, 3); } catch (e) { failed = n; } \
         n = 0; const mapped = Array.prototype.map.call(p, (v) => v * 2); \
         return [failed, n, mapped, [].map.length, [].reduce.length, Array.from.length, [].map.name, typeof [].map.prototype, String([].map), [1, 2].reduce((a, b) => a + b), [1].reduce((a, b) => a, undefined)]; })()",
        &[],
    );
    assert_eq!(
        reads,
        json!([
            1,
            1,
            [2, 4],
            1,
            1,
            1,
            "map",
            "undefined",
            "function map() { [native code] }",
            3,
            null
        ])
    );
}

#[test]
fn thrown_non_errors() {
    assert_eq!(
        error("(() => { throw 'boom'; })()", &[]),
        "code task n1 (code:test) threw: boom"
    );
    assert_eq!(
        error("(() => { throw 42; })()", &[]),
        "code task n1 (code:test) threw: 42"
    );
    assert_eq!(
        error("(() => { throw null; })()", &[]),
        "code task n1 (code:test) threw: null"
    );
    assert_eq!(
        error("(() => { throw { code: 7 }; })()", &[]),
        "code task n1 (code:test) threw: [object Object] {\"code\":7}"
    );
    // An object that says what it is: Node prints its message (`String(e.message || e)`).
    assert_eq!(
        error(
            "(() => { throw { message: 'gone', toString() { return 'Gone: ' + this.message; } }; })()",
            &[]
        ),
        "code task n1 (code:test) threw: Gone: gone {\"message\":\"gone\"}"
    );
    assert_eq!(
        error("Promise.reject(new Error('no'))", &[]),
        "code task n1 (code:test) threw: Error: no"
    );
}

#[test]
fn exception_carries_stack() {
    let Err(SandboxError::Exception { stack, .. }) =
        eval("[1].map(function inner() { return null.x; })", &[])
    else {
        panic!("expected an exception");
    };
    let stack = stack.expect("a stack trace");
    assert!(stack.contains("inner") && stack.contains("n1"), "{stack}");
    // As V8's, it ends with its last frame.
    assert!(!stack.ends_with('\n'), "{stack:?}");
}

#[test]
fn syntax_errors() {
    let e = eval("x +", &[("x", json!(1))]).unwrap_err();
    assert!(matches!(e, SandboxError::Syntax { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("code task n1 (code:test) does not parse: SyntaxError:"),
        "{e}"
    );
    // Statements are not expressions.
    assert!(matches!(
        eval("const a = 1; a", &[]),
        Err(SandboxError::Syntax { .. })
    ));
    // Strict mode: `with` and octal literals are refused.
    assert!(matches!(
        eval("(() => { with (o) return a; })()", &[("o", json!({}))]),
        Err(SandboxError::Syntax { .. })
    ));
}

#[test]
fn results_convert_like_json_stringify() {
    // Node prints a result through `JSON.stringify`: functions and symbols are dropped in
    // objects, `null` in arrays and at the top.
    for (code, expected) in [
        ("() => 1", json!(null)),
        ("Symbol('s')", json!(null)),
        ("({ f() {}, s: Symbol('s'), n: 1 })", json!({"n": 1})),
        ("[1, () => 1, Symbol()]", json!([1, null, null])),
        ("({ toJSON() { return 'me'; } })", json!("me")),
        (
            "({ when: new Date(0) })",
            json!({"when": "1970-01-01T00:00:00.000Z"}),
        ),
        (
            "({ nested: { toJSON: (key) => key } })",
            json!({"nested": "nested"}),
        ),
    ] {
        assert_eq!(value(code, &[]), expected, "{code}");
    }
}

#[test]
fn results_that_are_not_json() {
    // Where `JSON.stringify` throws, the task fails with V8's message.
    for code in ["10n", "({ deep: { n: [1n] } })"] {
        assert_eq!(
            error(code, &[]),
            "code task n1 (code:test) returned a value that is not json: TypeError: Do not know how to serialize a BigInt",
            "{code}"
        );
    }
    assert_eq!(
        error("(() => { const a = {}; a.self = a; return a; })()", &[]),
        "code task n1 (code:test) returned a value that is not json: TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'self' closes the circle"
    );
    assert_eq!(
        error(
            "(() => { const b = {}; b.a = { b: { c: { d: { e: { 'x y': b } } } } }; return [b]; })()",
            &[]
        ),
        "code task n1 (code:test) returned a value that is not json: TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    |     property 'a' -> object with constructor 'Object'\n    |     property 'b' -> object with constructor 'Object'\n    |     ...\n    |     property 'e' -> object with constructor 'Object'\n    --- property 'x y' closes the circle"
    );
    assert_eq!(
        error("new Promise(() => {})", &[]),
        "code task n1 (code:test) returned a value that is not json: a promise that never settled"
    );
    // Deeper than serde_json alone reads: whole, as Node's `JSON.stringify` writes it.
    let mut deep = value(
        "(() => { let v = 0; for (let i = 0; i < 200; i++) v = [v]; return v; })()",
        &[],
    );
    for _ in 0..200 {
        deep = deep[0].take();
    }
    assert_eq!(deep, 0);
}

#[test]
fn bad_argument_names() {
    for (name, reason) in [
        ("1x", "is not a javascript identifier"),
        ("a-b", "is not a javascript identifier"),
        ("x){}; (function(", "is not a javascript identifier"),
        ("", "is empty"),
        ("class", "is a reserved word"),
        ("eval", "is a reserved word"),
    ] {
        assert_eq!(
            error("1", &[(name, json!(1))]),
            format!("code task n1 (code:test) has argument `{name}` that {reason}")
        );
    }
    assert_eq!(
        error("a", &[("a", json!(1)), ("a", json!(2))]),
        "code task n1 (code:test) has argument `a` that is given twice"
    );
    assert!(matches!(
        eval("1", &[("1x", json!(1))]),
        Err(SandboxError::BadArgumentName { .. })
    ));
}

#[test]
fn bad_options() {
    use pml_sandbox::{Sandbox, SandboxOptions};
    let bad = |options: SandboxOptions| Sandbox::new(options).err().map(|e| e.to_string());
    assert_eq!(
        bad(SandboxOptions {
            workers: 0,
            ..Default::default()
        }),
        Some("invalid sandbox options: there are no workers".to_owned())
    );
    assert_eq!(
        bad(SandboxOptions {
            stack_limit: 64 << 20,
            ..Default::default()
        }),
        Some(
            "invalid sandbox options: the stack limit (64 MiB) is not between 64 KiB and 16 MiB"
                .to_owned()
        )
    );
    assert_eq!(
        bad(SandboxOptions {
            memory_limit: 1000,
            ..Default::default()
        }),
        Some("invalid sandbox options: the memory limit (1000 bytes) is below 1 MiB".to_owned())
    );
}
