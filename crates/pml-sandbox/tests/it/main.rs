//! Integration tests of the sandbox: results of pure code (`results`), errors a task can end
//! with (`errors`), what a task can reach and what it leaves behind (`isolation`), programs that
//! try to exhaust time, memory or stack (`hostile`), use from several threads (`concurrency`), and
//! whole programs calling the host (`program`).

mod buffer;
mod concurrency;
mod console;
mod errors;
mod hostile;
mod intl;
mod isolation;
mod math;
mod probes;
mod program;
mod results;
mod web;

use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use pml_sandbox::{CodeTask, Sandbox, SandboxError, SandboxOptions};
use serde_json::Value;

/// One sandbox with default options shared by the tests that do not need their own limits.
pub(crate) fn shared() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| Sandbox::new(SandboxOptions::default()).expect("sandbox"))
}

/// Held by the tests that burn a core up to a time limit (endless loops, memory and stack
/// exhaustion, abandoned workers), so that they run one at a time: on a small machine, several
/// at once slow each other down enough for a task that should overflow its stack in time to
/// time out instead.
pub(crate) fn one_heavy_test_at_a_time() -> MutexGuard<'static, ()> {
    static HEAVY: Mutex<()> = Mutex::new(());
    HEAVY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `code` as task `n1` (`code:test`) with `arguments` in `sandbox`.
pub(crate) fn eval_in(
    sandbox: &Sandbox,
    code: &str,
    arguments: &[(&str, Value)],
) -> Result<Value, SandboxError> {
    let arguments: Vec<(String, Value)> = arguments
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect();
    sandbox.eval(&CodeTask {
        task_id: "n1",
        tool: "code:test",
        code,
        arguments: &arguments,
    })
}

/// Runs `code` in the shared sandbox.
pub(crate) fn eval(code: &str, arguments: &[(&str, Value)]) -> Result<Value, SandboxError> {
    eval_in(shared(), code, arguments)
}

/// The value of `code`, which must succeed.
pub(crate) fn value(code: &str, arguments: &[(&str, Value)]) -> Value {
    eval(code, arguments).unwrap_or_else(|e| panic!("{code}: {e}"))
}

/// The message of the error `code` must end with.
pub(crate) fn error(code: &str, arguments: &[(&str, Value)]) -> String {
    match eval(code, arguments) {
        Ok(v) => panic!("{code}: expected an error, got {v}"),
        Err(e) => e.to_string(),
    }
}
