//! The JavaScript sandbox of the executor: runs pure code tasks in QuickJS (`rquickjs`).
//!
//! **Input:** a [`CodeTask`]: its id and tool (for messages), a JavaScript *expression* and its
//! arguments as `(name, JSON value)` pairs, the names being the expression's free variables (the
//! DAG's `code` and `arguments`, `docs/formats.md`).
//!
//! **Output:** the expression's value as JSON, or a [`SandboxError`] naming the task and tool
//! (`code task n3 (code:map) exceeded 5000 ms`).
//!
//! **How:** the expression becomes the body of a strict-mode function whose parameters are the
//! argument names, `(function (a, b) { return (CODE); })`, called with the arguments parsed from
//! JSON inside the sandbox: values are never spliced into source text. A promise result is
//! awaited (its microtasks run within the time limit). The result goes through `JSON.stringify`
//! semantics (`undefined` at the top is `null`, `NaN` is `null`, a `Date` is its ISO string,
//! `undefined` members are dropped) except that functions, symbols and BigInts anywhere, cycles
//! and nesting deeper than 128 levels are errors ([`SandboxError::NotJson`]).
//!
//! **Invariants:**
//! - No I/O: QuickJS's core has none and no host function is installed: `require`, `process`,
//!   `fetch`, `Deno`, `std`, `os`, timers and `XMLHttpRequest` do not exist. Task contexts have
//!   no parser (no `Eval` intrinsic): QuickJS refuses `new Function(...)` and the generator and
//!   async function constructors ("eval is not supported"), and `eval` itself is removed. Code is
//!   compiled in a separate context of the same worker that never runs anything, and loaded into
//!   the task's context as bytecode (cached per task id and code). The globals are the language,
//!   `JSON`, `Math`, `Date`, `RegExp`, `Map`/`Set`/`WeakMap`/`WeakSet`, `Promise` and
//!   `queueMicrotask`; no typed arrays, `Atomics`, `Proxy`, `WeakRef` or `performance`.
//! - No state crosses tasks: each task gets a fresh context (globals, prototypes) on a reused
//!   runtime; a runtime left with pending jobs is rebuilt before the next task.
//! - Bounded: a task stops at [`SandboxOptions::time_limit`], at
//!   [`SandboxOptions::memory_limit`] (QuickJS's allocation limit for the worker's runtime) and
//!   at [`SandboxOptions::stack_limit`]. QuickJS polls the interrupt handler only every 10,000
//!   interpreter ticks, so a builtin called in a loop (a big sort, a JSON round trip) could run
//!   on long past the limit: at the limit the caller also makes every further allocation of
//!   that task fail, which ends such builtins within milliseconds. A builtin that neither
//!   allocates nor calls back (`indexOf` over a big array) is not stopped by that: the caller
//!   waits `time_limit +` [`SandboxOptions::watchdog_grace`] at most, then abandons that worker
//!   thread (it ends by itself at QuickJS's next poll, burning a core until then) and later tasks
//!   get a fresh worker. The caller never hangs and no script can crash the host process.
//! - Concurrency: [`Sandbox`] is `Send + Sync`; tasks run in parallel on up to
//!   [`SandboxOptions::workers`] threads, each owning one runtime (QuickJS runtimes are not
//!   `Send`); further callers wait for a free worker. Right after a task a worker prepares the
//!   next task's context, so a task that finds an idle worker does not pay for it.
//!
//! Sandbox mode (agent code calling `mcp.*` through the host) is meant to be a second kind of
//! job for the same workers: the worker installs proxy functions in the context and exchanges
//! call/answer messages with the caller while the task's promise settles.
//!
//! ```
//! use pml_sandbox::{CodeTask, Sandbox, SandboxOptions};
//! use serde_json::json;
//!
//! let sandbox = Sandbox::new(SandboxOptions::default()).unwrap();
//! let arguments = [("$receiver".to_owned(), json!([1, 2, 3]))];
//! let task = CodeTask {
//!     task_id: "n3",
//!     tool: "code:map",
//!     code: "$receiver.map(x => x * 2)",
//!     arguments: &arguments,
//! };
//! assert_eq!(sandbox.eval(&task).unwrap(), json!([2, 4, 6]));
//!
//! let task = CodeTask { code: "$receiver.map(x => x.y.z)", ..task };
//! assert_eq!(
//!     sandbox.eval(&task).unwrap_err().to_string(),
//!     "code task n3 (code:map) threw: TypeError: cannot read property 'z' of undefined"
//! );
//! ```

mod bytecode;
mod error;
mod ident;
mod worker;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

pub use error::SandboxError;
use worker::{Failure, Job, Limits, Request, Worker};

/// Limits and pool size of a [`Sandbox`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxOptions {
    /// Wall-clock time one task may run (default 5 s).
    pub time_limit: Duration,
    /// Bytes the QuickJS heap of one worker may hold while a task runs, the context included
    /// (default 256 MiB; at least 1 MiB).
    pub memory_limit: usize,
    /// Bytes of native stack the JavaScript of a task may use (default 1 MiB; 64 KiB to 16 MiB).
    /// Each worker thread gets this plus 4 MiB of headroom.
    pub stack_limit: usize,
    /// Worker threads, i.e. tasks that can run at once (default 2).
    pub workers: usize,
    /// How long after `time_limit` the caller waits for a worker that does not stop before
    /// abandoning it (default 1 s).
    pub watchdog_grace: Duration,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        SandboxOptions {
            time_limit: Duration::from_secs(5),
            memory_limit: 256 * 1024 * 1024,
            stack_limit: 1024 * 1024,
            workers: 2,
            watchdog_grace: Duration::from_secs(1),
        }
    }
}

/// One pure code task: what [`Sandbox::eval`] runs.
#[derive(Debug, Clone, Copy)]
pub struct CodeTask<'a> {
    /// The DAG task id, e.g. `n3` or `n2+n3` (used in messages and stack traces).
    pub task_id: &'a str,
    /// The task's tool, e.g. `code:map` (used in messages).
    pub tool: &'a str,
    /// A JavaScript expression whose free variables are the argument names.
    pub code: &'a str,
    /// Each argument's name (a JavaScript identifier) and JSON value, in parameter order.
    pub arguments: &'a [(String, serde_json::Value)],
}

/// A pool of QuickJS worker threads running code tasks under limits. See the crate doc.
pub struct Sandbox {
    options: SandboxOptions,
    pool: Mutex<Pool>,
    /// Signalled when a worker becomes idle or a slot for a new one frees up.
    freed: Condvar,
    spawned: AtomicUsize,
    /// Job numbers handed out so far.
    jobs: AtomicU64,
}

struct Pool {
    /// Longest idle first: it has had the most time to prepare its next context.
    idle: VecDeque<Worker>,
    /// Workers that exist and are not abandoned: idle or running a task.
    live: usize,
    /// Workers given up by the watchdog so far.
    abandoned: usize,
}

impl Sandbox {
    /// Checks the options and starts [`SandboxOptions::workers`] worker threads.
    pub fn new(options: SandboxOptions) -> Result<Self, SandboxError> {
        check_options(&options)?;
        let sandbox = Sandbox {
            pool: Mutex::new(Pool {
                idle: VecDeque::with_capacity(options.workers),
                live: 0,
                abandoned: 0,
            }),
            options,
            freed: Condvar::new(),
            spawned: AtomicUsize::new(0),
            jobs: AtomicU64::new(0),
        };
        for _ in 0..sandbox.options.workers {
            let worker = sandbox.spawn().map_err(SandboxError::Internal)?;
            let mut pool = sandbox.lock();
            pool.live += 1;
            pool.idle.push_back(worker);
        }
        Ok(sandbox)
    }

    /// The options the sandbox was created with.
    pub fn options(&self) -> &SandboxOptions {
        &self.options
    }

    /// How many worker threads the watchdog has abandoned (tasks that did not stop within
    /// `time_limit + watchdog_grace`).
    pub fn abandoned_workers(&self) -> usize {
        self.lock().abandoned
    }

    /// Evaluates `task.code` with each argument bound as a parameter of that name and returns
    /// the result as JSON. Blocks until a worker is free and the task has ended; never longer
    /// than the wait for a worker plus `time_limit + watchdog_grace`.
    pub fn eval(&self, task: &CodeTask<'_>) -> Result<serde_json::Value, SandboxError> {
        let mut names: Vec<String> = Vec::with_capacity(task.arguments.len());
        for (name, _) in task.arguments {
            let reason = match ident::check_parameter_name(name) {
                Err(reason) => Some(reason),
                Ok(()) if names.contains(name) => Some("is given twice"),
                Ok(()) => None,
            };
            if let Some(reason) = reason {
                return Err(SandboxError::BadArgumentName {
                    task_id: task.task_id.to_owned(),
                    tool: task.tool.to_owned(),
                    name: name.clone(),
                    reason,
                });
            }
            names.push(name.clone());
        }
        let values: Vec<&serde_json::Value> = task.arguments.iter().map(|(_, v)| v).collect();
        let arguments = serde_json::to_string(&values)
            .map_err(|e| SandboxError::Internal(format!("cannot serialise the arguments: {e}")))?;
        let mut request = Request {
            code: task.code.to_owned(),
            names,
            arguments,
            task_id: task.task_id.to_owned(),
        };

        // A worker whose thread has ended (it could not rebuild its runtime) refuses the job:
        // replace it and try again, a few times.
        for _ in 0..3 {
            let worker = self.checkout()?;
            let number = self.jobs.fetch_add(1, Ordering::Relaxed) + 1;
            let (reply, outcome) = mpsc::sync_channel(1);
            match worker.send(Job::Eval {
                number,
                sent: Instant::now(),
                request,
                reply,
            }) {
                Ok(()) => {}
                Err(job) => {
                    let Job::Eval { request: r, .. } = *job;
                    request = r;
                    self.discard(worker, false);
                    continue;
                }
            }
            // At the limit, tell the worker (its allocations start failing, which ends most
            // builtins early); after the grace period, give up on it.
            let received = match outcome.recv_timeout(self.options.time_limit) {
                Err(RecvTimeoutError::Timeout) => {
                    worker.expire(number);
                    outcome.recv_timeout(self.options.watchdog_grace)
                }
                other => other,
            };
            return match received {
                Ok(outcome) => {
                    self.checkin(worker);
                    outcome.map_err(|failure| self.error(task, failure))
                }
                Err(RecvTimeoutError::Timeout) => {
                    // The thread is stuck in a builtin: leave it, it ends when QuickJS polls
                    // the interrupt handler again and finds nobody waiting for its answer.
                    self.discard(worker, true);
                    Err(self.error(task, Failure::Interrupted))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.discard(worker, false);
                    Err(SandboxError::Internal(format!(
                        "the worker running code task {} ({}) died",
                        task.task_id, task.tool
                    )))
                }
            };
        }
        Err(SandboxError::Internal(
            "no worker thread could take the task".to_owned(),
        ))
    }

    fn lock(&self) -> MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn limits(&self) -> Limits {
        Limits {
            time: self.options.time_limit,
            memory: self.options.memory_limit,
            stack: self.options.stack_limit,
        }
    }

    fn spawn(&self) -> Result<Worker, String> {
        let n = self.spawned.fetch_add(1, Ordering::Relaxed);
        Worker::spawn(self.limits(), format!("pml-sandbox-{n}"))
    }

    /// An idle worker, a new one if the pool is not full, or the next one to become idle.
    fn checkout(&self) -> Result<Worker, SandboxError> {
        let mut pool = self.lock();
        loop {
            if let Some(worker) = pool.idle.pop_front() {
                return Ok(worker);
            }
            if pool.live < self.options.workers {
                pool.live += 1;
                drop(pool);
                return self.spawn().map_err(|e| {
                    self.lock().live -= 1;
                    self.freed.notify_one();
                    SandboxError::Internal(e)
                });
            }
            pool = self
                .freed
                .wait(pool)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn checkin(&self, worker: Worker) {
        self.lock().idle.push_back(worker);
        self.freed.notify_one();
    }

    /// Drops `worker` (its thread ends on its own) and frees its slot for a fresh one.
    fn discard(&self, worker: Worker, abandoned: bool) {
        drop(worker);
        let mut pool = self.lock();
        pool.live -= 1;
        if abandoned {
            pool.abandoned += 1;
        }
        drop(pool);
        self.freed.notify_one();
    }

    fn error(&self, task: &CodeTask<'_>, failure: Failure) -> SandboxError {
        let task_id = task.task_id.to_owned();
        let tool = task.tool.to_owned();
        match failure {
            Failure::Interrupted => SandboxError::Timeout {
                task_id,
                tool,
                limit_ms: u64::try_from(self.options.time_limit.as_millis()).unwrap_or(u64::MAX),
            },
            Failure::OutOfMemory => SandboxError::OutOfMemory {
                task_id,
                tool,
                limit_bytes: self.options.memory_limit,
            },
            Failure::StackOverflow => SandboxError::StackOverflow {
                task_id,
                tool,
                limit_bytes: self.options.stack_limit,
            },
            Failure::Syntax(message) => SandboxError::Syntax {
                task_id,
                tool,
                message,
            },
            Failure::Threw { message, stack } => SandboxError::Exception {
                task_id,
                tool,
                message,
                stack,
            },
            Failure::NotJson(message) => SandboxError::NotJson {
                task_id,
                tool,
                message,
            },
            Failure::Internal(message) => SandboxError::Internal(format!(
                "code task {} ({}): {message}",
                task.task_id, task.tool
            )),
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut self.lock().idle);
        for worker in idle {
            worker.shut_down();
        }
    }
}

fn check_options(options: &SandboxOptions) -> Result<(), SandboxError> {
    let bad = |what: String| Err(SandboxError::BadOptions(what));
    if options.time_limit.is_zero() {
        return bad("the time limit is zero".to_owned());
    }
    if options.memory_limit < 1024 * 1024 {
        return bad(format!(
            "the memory limit ({}) is below 1 MiB",
            error::size(options.memory_limit)
        ));
    }
    if !(64 * 1024..=16 * 1024 * 1024).contains(&options.stack_limit) {
        return bad(format!(
            "the stack limit ({}) is not between 64 KiB and 16 MiB",
            error::size(options.stack_limit)
        ));
    }
    if options.workers == 0 {
        return bad("there are no workers".to_owned());
    }
    Ok(())
}
