//! Programs that try to exhaust time, memory or stack end with a clear error, within a bounded
//! time, and leave the sandbox usable.

use std::time::{Duration, Instant};

use pml_sandbox::{Sandbox, SandboxError, SandboxOptions};
use serde_json::json;

use crate::{eval_in, one_heavy_test_at_a_time};

const LIMIT: Duration = Duration::from_millis(300);
const GRACE: Duration = Duration::from_millis(700);

fn limited() -> Sandbox {
    Sandbox::new(SandboxOptions {
        time_limit: LIMIT,
        watchdog_grace: GRACE,
        workers: 1,
        ..Default::default()
    })
    .unwrap()
}

/// Runs `code`, checks it took at most the limit plus the grace (and some slack), and that the
/// sandbox still works afterwards.
fn hostile(sandbox: &Sandbox, code: &str) -> SandboxError {
    let start = Instant::now();
    let error = eval_in(sandbox, code, &[("big", big())]).expect_err(code);
    let took = start.elapsed();
    let bound = sandbox.options().time_limit + sandbox.options().watchdog_grace;
    assert!(
        took < bound + Duration::from_millis(500),
        "{code}: {took:?}"
    );
    assert_eq!(
        eval_in(sandbox, "1 + 1", &[]).unwrap(),
        json!(2),
        "after {code}"
    );
    error
}

fn big() -> serde_json::Value {
    json!((0..2000)
        .map(|i| json!({"id": i, "tags": ["a", "b"]}))
        .collect::<Vec<_>>())
}

fn assert_timeout(error: &SandboxError) {
    assert!(
        matches!(error, SandboxError::Timeout { limit_ms: 300, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "code task n1 (code:test) exceeded 300 ms"
    );
}

#[test]
fn endless_loop_times_out() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited();
    assert_timeout(&hostile(&sandbox, "(() => { while (true) {} })()"));
    assert_timeout(&hostile(
        &sandbox,
        "(() => { for (;;) { try { for (;;) {} } catch (e) {} } })()",
    ));
    assert_timeout(&hostile(
        &sandbox,
        "(() => { const f = () => Promise.resolve().then(f); f(); return 1; })()",
    ));
    assert_timeout(&hostile(
        &sandbox,
        "(async () => { for (;;) await null; })()",
    ));
}

#[test]
fn heavy_builtin_loops_time_out() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = limited();
    assert_timeout(&hostile(
        &sandbox,
        "(() => { for (;;) { [...Array(20000).keys()].sort((a, b) => b - a); } })()",
    ));
    assert_timeout(&hostile(
        &sandbox,
        "(() => { for (;;) { JSON.parse(JSON.stringify(big)); } })()",
    ));
    assert_timeout(&hostile(
        &sandbox,
        "(() => { for (;;) { 'x'.repeat(1e6).split('').reverse(); } })()",
    ));
    assert_timeout(&hostile(&sandbox, "/(a+)+$/.test('a'.repeat(40) + 'b')"));
}

#[test]
fn memory_exhaustion_ends_with_out_of_memory() {
    let _heavy = one_heavy_test_at_a_time();
    let sandbox = Sandbox::new(SandboxOptions {
        time_limit: Duration::from_secs(3),
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    let error = hostile(
        &sandbox,
        "(() => { let a = []; for (;;) a.push(new Array(1e6).fill(1)); })()",
    );
    assert!(
        matches!(error, SandboxError::OutOfMemory { limit_bytes, .. } if limit_bytes == 256 << 20),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "code task n1 (code:test) ran out of memory (limit 256 MiB)"
    );
    let error = hostile(&sandbox, "(() => { let s = 'x'; for (;;) s = s + s; })()");
    assert!(
        matches!(
            error,
            SandboxError::OutOfMemory { .. } | SandboxError::Exception { .. }
        ),
        "{error:?}"
    );
    // Catching the error and trying again ends at the deadline instead.
    let error = hostile(
        &sandbox,
        "(() => { for (;;) { try { let a = []; for (;;) a.push(new Array(1e6).fill(1)); } catch (e) {} } })()",
    );
    assert!(
        matches!(
            error,
            SandboxError::Timeout { .. } | SandboxError::OutOfMemory { .. }
        ),
        "{error:?}"
    );
    // A task after all that gets the whole limit again.
    assert_eq!(
        eval_in(&sandbox, "(() => { const a = []; for (let i = 0; i < 8; i++) a.push(new Array(1e6).fill(1)); return a.length; })()", &[]).unwrap(),
        json!(8)
    );
}

#[test]
fn deep_recursion_ends_with_stack_overflow() {
    let _heavy = one_heavy_test_at_a_time();
    // Time enough for the slower cases on a loaded machine: they must end with a stack
    // overflow, not a timeout. (A 1e5 levels deep `JSON.stringify` reaches the 8 MiB limit at
    // about 32,000 levels, after QuickJS's cycle checks along the path: ~2.5 s unoptimised.)
    let sandbox = Sandbox::new(SandboxOptions {
        time_limit: Duration::from_secs(15),
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    for code in [
        "(() => { function f() { return f(); } return f(); })()",
        "(() => { const f = (n) => [f(n + 1)]; return f(0); })()",
        "(() => { let v = []; for (let i = 0; i < 1e5; i++) v = [v]; return JSON.stringify(v).length; })()",
        "JSON.parse('['.repeat(1e6))",
    ] {
        let error = hostile(&sandbox, code);
        assert!(matches!(error, SandboxError::StackOverflow { limit_bytes, .. } if limit_bytes == 8 << 20), "{code}: {error:?}");
        assert_eq!(
            error.to_string(),
            "code task n1 (code:test) exceeded the stack limit (8 MiB): maximum call stack size exceeded"
        );
    }
}

#[test]
fn a_builtin_that_never_polls_is_abandoned() {
    let _heavy = one_heavy_test_at_a_time();
    // `indexOf` over a large array neither calls back into JavaScript nor allocates: QuickJS
    // polls the interrupt handler only every few thousand calls, seconds apart. The watchdog
    // gives up on the worker, the caller gets its timeout on time, and a fresh worker takes the
    // next task. (The abandoned thread ends on its own at the next poll, seconds later. The
    // array is large enough for that on a fast machine too.)
    let sandbox = limited();
    let code = "(() => { const a = new Array(4e5).fill(0); for (;;) a.indexOf(1); })()";
    assert_timeout(&hostile(&sandbox, code));
    assert_eq!(sandbox.abandoned_workers(), 1);
    assert_eq!(
        eval_in(&sandbox, "[1, 2].map(x => x + 1)", &[]).unwrap(),
        json!([2, 3])
    );
}
