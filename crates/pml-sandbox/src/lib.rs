//! The JavaScript sandbox of the executor: runs pure code tasks, and whole agent programs whose
//! `mcp` calls the host answers, in QuickJS (`rquickjs`).
//!
//! # Code tasks
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
//! awaited (its microtasks run within the time limit). The result is what Node's
//! `JSON.stringify` makes of it (`undefined`, a function or a symbol at the top is `null`;
//! in objects they are dropped, in arrays `null`; `NaN` is `null`; `toJSON` is honoured, so a
//! `Date` is its ISO string). Where `JSON.stringify` throws (a BigInt, a cycle), the task
//! fails with V8's message ([`SandboxError::NotJson`]), as it does past
//! [`pml_jstext::MAX_DEPTH`] levels of nesting. The code's own `JSON.stringify` throws V8's
//! messages too, and so do `JSON.parse` and the engine's own errors where QuickJS words them
//! otherwise (`worker/node20.js`, which also takes away the built-ins of standards later than
//! Node 20's, and sorts with a comparison function as V8's TimSort does). `Math` and `**`
//! compute V8's digits ([`math`]: `1.0725 ** 3` is `1.233649828125`, not glibc's
//! `1.2336498281250001`). Strings holding lone surrogates are kept exactly, as *pml text*
//! (`pml_jstext`: `"\ud83d"` is `"\u{FDD0}d83d"` in the `serde_json::Value`), in results,
//! arguments, `args`, call arguments and answers alike.
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
//!     "code task n3 (code:map) threw: TypeError: Cannot read properties of undefined (reading 'z')"
//! );
//! ```
//!
//! # Programs (what the executor runs)
//!
//! **Input:** a [`ProgramTask`]: agent code, the body of an async function (top-level `await`
//! and `return`; plain strict-mode JavaScript, no modules), its name (for messages and stack
//! traces) and `args`. It runs whole, on the same workers, with `mcp`, `args` (a JSON value)
//! and `capabilities` as the parameters of the function it runs in (as in Node, not globals:
//! `globalThis.mcp = ...` changes no call), and the globals: timers as Node's (`setTimeout`, `setInterval`, `setImmediate` and their `clear*`:
//! callbacks run in order of when they are due, then of when they were set, each followed by
//! the jobs it queued; waiting for one is not the program's time), the web platform's data
//! functions as Node's (`atob`, `btoa`, `structuredClone`, `TextEncoder`, `TextDecoder`,
//! `URL` and `URLSearchParams` over the URL Standard's parser, `Event`, `EventTarget`, `AbortController`,
//! `AbortSignal`, `crypto.getRandomValues` and
//! `crypto.randomUUID` drawing from `Math.random`, `crypto.subtle.digest` (SHA-1, SHA-2),
//! `performance.now()` over the program's
//! clock, `DOMException`: `worker/web.js`), Node's
//! `Buffer` (`worker/buffer.js`: `from`/`toString` in every encoding Node knows, `byteLength`,
//! `concat`, `compare`, search, the number reads, `toJSON`), `console` (its output is reported, never printed: each call one text, formatted as
//! Node 20's `util.format` formats it, objects as `util.inspect` prints them by default, read
//! without running program code (`worker/inspect.js`); every method of Node's console, `group`,
//! `count`, `assert`, `dir`, `table`, `trace` and `time*` as in Node) and `mcp`:
//! `await mcp.fs.read_file({path})` becomes a [`HostCall`] for the host, and resolves with the
//! host's answer or rejects with `new Error(message)`; so does `capabilities.<name>(args)`
//! (marked [`HostCall::capability`]: the host runs the stored program). With a [`Reads`] hook
//! ([`ProgramTask::reads`]), every read of the clock (`Date.now()`, `new Date()`, `Date()`, `performance.now()`) and
//! of `Math.random()` goes through it, which may answer with an earlier run's value (a resumed
//! run's journal). An *instrumented* program
//! ([`ProgramTask::probes`], see `pml_structure`'s `instrument` module) also gets the probe
//! object as a parameter of its wrapper: what its probes report (operations with their times
//! and values, decisions, forks and joins, loop counts) reaches the caller as [`Report`]s
//! ([`Sandbox::run_observed`]), and its calls carry their site.
//!
//! **Output:** the program's return value as JSON (as for code tasks; `undefined` is `null`),
//! or a [`SandboxError`] naming the program (`program agent.js threw: Error: ...`): an uncaught
//! throw or rejection is [`SandboxError::Exception`] with the stack. So is, as in Node 20
//! (`--unhandled-rejections=throw`), any promise still rejected with no handler once a turn's
//! jobs have run (an unawaited call or local function that fails): the run ends there, with the
//! error, or Node's `UnhandledPromiseRejection` words for a reason that is not one; probes that
//! watch a promise settle do not count as its handler.
//!
//! **How, on the worker:** the program is compiled as `(function (P, mcp, args, capabilities)
//! { return async function () {SOURCE\n}})` (`P` the probe object of an instrumented program), the
//! prefix on the first source line so that line N of the source is line N in stack traces and
//! syntax errors, and loaded into a fresh context with the whole language (`Proxy`, typed
//! arrays, `WeakRef`, `eval`; not `Atomics`/`SharedArrayBuffer`). `mcp` and its server
//! objects are proxies: a string key names a server, then a tool, a function
//! `(arguments) => Promise` whose arguments go through `JSON.stringify` as Node's MCP SDK
//! sends them (`arguments: a || {}`: a falsy argument sends `{}`, nothing to send leaves them
//! out, `null` in [`HostCall::arguments`]); where `JSON.stringify` throws, the promise rejects
//! with its `TypeError` (V8's message) and no call is made. `then`, `toJSON`, `toString`, `valueOf` and symbol keys read
//! as `undefined`, so `await mcp.fs` and conversions make no call. Behind the proxies is one
//! native function, `call(server, tool, argumentsJson) -> id`, which is never a global: it and
//! the table of pending calls live in the closures of a setup script run before the program,
//! out of the program's reach. Then the event loop: run the pending promise jobs; if the
//! program's promise has settled, that is the outcome; else a timer that is due runs; else if
//! calls are outstanding or a timer is set, block until answers arrive (a channel) or the next
//! timer is due, and settle the answered calls' promises; else the program waits for something
//! that never happens: [`SandboxError::Stalled`].
//!
//! **How, on the caller:** `run_program` (blocking, e.g. on a `spawn_blocking` thread) receives
//! the worker's events on one channel, in order: each call as it is made, handed to `on_call`
//! with an [`Answers`] handle (several calls can be outstanding, e.g. under `Promise.all`);
//! `Waiting`/`Running` phase changes; the outcome. Answers go straight from the host (any
//! thread, any order, any time) to the worker's inbox; answers to unknown or already answered
//! calls, and answers after the run, are ignored. If every handle is dropped while calls are
//! unanswered, the run fails instead of waiting forever.
//!
//! **Time:** [`SandboxOptions::time_limit`] bounds a program's *execution* time: it runs down
//! only while the worker runs JavaScript, summed over the slices between waits, not while the
//! program waits for answers, nor while pml handles its calls (arguments read, answers turned
//! into values, probe reports kept: that time moves the deadline later). (How long the host
//! takes is not bounded here: that is the host's business, e.g. call timeouts.) The worker
//! enforces it itself: its interrupt handler's deadline is set at each slice to what is left.
//! The caller's watchdog clock runs only from each `Running` message (which says what is left;
//! the run starts running, or pml's handling moved the deadline) to the next `Waiting`, with a
//! margin for handling not told yet, so its deadline is never earlier than the worker's; past
//! it, the caller cuts the
//! program's allocations, wakes it if it is waiting, and abandons the worker after
//! `watchdog_grace`, as for code tasks. Calls still unanswered when the program settles are not
//! waited for.
//!
//! ```
//! use std::sync::mpsc;
//! use std::thread;
//!
//! use pml_sandbox::{Answers, HostCall, ProgramTask, Sandbox, SandboxOptions};
//! use serde_json::json;
//!
//! let sandbox = Sandbox::new(SandboxOptions::default()).unwrap();
//! // The host: answers each call from its own thread (an executor would spawn a task per call).
//! let (calls, received) = mpsc::channel::<(HostCall, Answers)>();
//! let host = thread::spawn(move || {
//!     for (call, answers) in received {
//!         let answer = match call.tool.as_str() {
//!             "list_directory" => Ok(json!(["a.txt", "b.txt"])),
//!             _ => Err(format!("{}.{}: no such tool", call.server, call.tool)),
//!         };
//!         answers.answer(call.id, answer);
//!     }
//! });
//! let mut on_call = |call, answers| calls.send((call, answers)).unwrap();
//!
//! let source = "const names = await mcp.fs.list_directory({ path: args.dir });
//! return names.map((name) => `${args.dir}/${name}`);";
//! let task = ProgramTask {
//!     name: "agent.js",
//!     source,
//!     args: &json!({"dir": "/tmp"}),
//!     probes: None,
//!     values: &[],
//!     reads: None,
//!     originals: None,
//!     abort: None,
//! };
//! let result = sandbox.run_program(&task, &mut on_call);
//! assert_eq!(result.unwrap(), json!(["/tmp/a.txt", "/tmp/b.txt"]));
//!
//! let task = ProgramTask { source: "await mcp.fs.delete_everything();", ..task };
//! assert_eq!(
//!     sandbox.run_program(&task, &mut on_call).unwrap_err().to_string(),
//!     "program agent.js threw: Error: fs.delete_everything: no such tool"
//! );
//! drop(on_call);
//! drop(calls);
//! host.join().unwrap();
//! ```
//!
//! # Invariants (of both)
//!
//! - No I/O: QuickJS's core has none and no host function is installed but the one behind a
//!   program's `mcp`: `require`, `process`, `fetch`, `Deno`, `std`, `os`, timers and
//!   `XMLHttpRequest` do not exist. Task contexts have no parser (no `Eval` intrinsic): QuickJS
//!   refuses `new Function(...)` and the generator and async function constructors ("eval is
//!   not supported"), and `eval` itself is removed. Code is compiled in a separate context of
//!   the same worker that never runs anything, and loaded into the task's context as bytecode
//!   (for code tasks, cached per task id and code). The globals are the language, `JSON`,
//!   `Math`, `Date`, `RegExp`, `Map`/`Set`/`WeakMap`/`WeakSet`, `Promise` and
//!   `queueMicrotask`; no typed arrays, `Atomics`, `Proxy`, `WeakRef` or `performance`.
//!   Programs get the whole language QuickJS has, `eval` and the function constructors
//!   included (as in Node: what they build has no more reach than the program), but not
//!   `Atomics`/`SharedArrayBuffer` (nothing may block the worker); `console`, and the
//!   parameters `mcp`, `args` and `capabilities`. Programs, and code tasks whose code names them, get `Intl.Collator`,
//!   `Intl.NumberFormat`, `localeCompare` and the `toLocale*String` of numbers, BigInts and
//!   dates answering as Node's ICU does for its default locale, en-US (`intl.rs`: ICU4X with
//!   compiled CLDR data; made on first use).
//! - No state crosses jobs: each gets a fresh context (globals, prototypes) on a reused
//!   runtime; a runtime left with pending jobs is rebuilt before the next one.
//! - Bounded: a job stops at [`SandboxOptions::time_limit`] (for programs, of execution time,
//!   see above), at [`SandboxOptions::memory_limit`] (QuickJS's allocation limit for the
//!   worker's runtime) and at [`SandboxOptions::stack_limit`]. QuickJS polls the interrupt
//!   handler only every 10,000 interpreter ticks, so a builtin called in a loop (a big sort, a
//!   JSON round trip) could run on long past the limit: at the limit the caller also makes
//!   every further allocation of that job fail, which ends such builtins within milliseconds.
//!   A builtin that neither allocates nor calls back (`indexOf` over a big array) is not
//!   stopped by that: the caller waits `time_limit +` [`SandboxOptions::watchdog_grace`] of
//!   running time at most, then abandons that worker thread (it ends by itself at QuickJS's
//!   next poll, burning a core until then) and later jobs get a fresh worker. No script can
//!   make the caller hang or crash the host process (a program's caller does wait as long as
//!   the host takes to answer).
//! - Concurrency: [`Sandbox`] is `Send + Sync`; jobs run in parallel on up to
//!   [`SandboxOptions::workers`] threads, each owning one runtime (QuickJS runtimes are not
//!   `Send`); further callers wait for a free worker (a program holds its worker while it
//!   waits for answers). Right after a job a worker prepares the next code task's context, so
//!   a task that finds an idle worker does not pay for it.

mod bytecode;
mod error;
mod ident;
mod intl;
pub mod math;
mod program;
mod url;
mod worker;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

pub use error::SandboxError;
use error::Subject;
pub use program::{
    Abort, Answers, ConsoleLevel, Fault, HostAnswer, HostCall, OriginalText, ProgramTask, Reads,
    Report, Reported, Unrepeatable,
};
use program::{AnswerLine, Event};
use worker::{Failure, Job, Limits, Link, ProgramRequest, Request, Worker, CREDIT_NOTICE};

/// The longest iteration vector a probe report may hold: as deep as programs may nest
/// (`pml_structure`'s `MAX_NESTING`).
pub const MAX_ITERATION_DEPTH: usize = 100_000;

/// How many operations a program reports at most (a start and an end each, see
/// [`Reported::Operation`]): past it they run unreported, and the run reports how many
/// ([`Reported::Unreported`]). A host that keeps at most twice this many trace events has kept
/// all it can by then; the probes of a long loop then cost little (a loop of millions of
/// operations runs ~3x faster).
pub const REPORTED_OPERATIONS: u32 = 125_000;

/// How many columns the wrapper a program is compiled in (`(function (P, mcp, args,
/// capabilities) { return async function () {`) adds before the program's first line: a
/// column on line 1 of a stack trace minus this is the program's own. `probes` as in
/// [`ProgramTask::probes`].
pub fn first_line_shift(probes: Option<&str>) -> usize {
    worker::WRAPPER_OPEN.len()
        + probes.map_or(0, |p| p.len() + ", ".len())
        + worker::PROGRAM_PARAMETERS.len()
        + worker::WRAPPER_PARAMETERS_END.len()
}

/// Limits and pool size of a [`Sandbox`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxOptions {
    /// Wall-clock time one code task may run (default 5 s). For a program, the wall-clock time
    /// its JavaScript may run in all, the time it waits for the host's answers not counted.
    pub time_limit: Duration,
    /// Bytes the QuickJS heap of one worker may hold while a task runs, the context included
    /// (default 256 MiB; at least 1 MiB).
    pub memory_limit: usize,
    /// Bytes of native stack the JavaScript of a task may use (default 8 MiB; 64 KiB to
    /// 16 MiB). Each worker thread gets this plus 4 MiB of headroom. At 8 MiB a program's local
    /// function recurses about 3,200 levels deep (Node: about 11,000; at 1 MiB, about 400: the
    /// probes around each call of a local function make its levels deep), and `JSON.stringify`
    /// goes about 32,000 levels deep (Node: about 4,000), at a cost that grows with the square
    /// of the depth (QuickJS looks for cycles along the path): a larger limit lets a hostile
    /// value run into the time limit instead of the stack error.
    pub stack_limit: usize,
    /// Worker threads, i.e. code tasks or programs that can run at once (default 2). A program
    /// keeps its worker while it waits for answers.
    pub workers: usize,
    /// How long after `time_limit` the caller waits for a worker that does not stop before
    /// abandoning it (default 1 s).
    pub watchdog_grace: Duration,
}

/// The largest [`SandboxOptions::stack_limit`]: rquickjs takes a larger one for no limit at
/// all (a runaway recursion would then overflow the worker's stack and abort the process).
const MAX_STACK_LIMIT: usize = 16 * 1024 * 1024;

impl Default for SandboxOptions {
    fn default() -> Self {
        SandboxOptions {
            time_limit: Duration::from_secs(5),
            memory_limit: 256 * 1024 * 1024,
            stack_limit: 8 * 1024 * 1024,
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

/// A pool of QuickJS worker threads running code tasks and programs under limits. See the
/// crate doc.
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
        let request = Request {
            code: task.code.to_owned(),
            names,
            arguments,
            task_id: task.task_id.to_owned(),
        };
        let (reply, outcome) = mpsc::sync_channel(1);
        let (worker, number) = self.start(Job::Eval {
            number: 0,
            sent: Instant::now(),
            request,
            reply,
        })?;
        let error = |failure| self.error(task.task_id, task.tool, failure);
        // At the limit, tell the worker (its allocations start failing, which ends most
        // builtins early); after the grace period, give up on it.
        let received = match outcome.recv_timeout(self.options.time_limit) {
            Err(RecvTimeoutError::Timeout) => {
                worker.expire(number);
                outcome.recv_timeout(self.options.watchdog_grace)
            }
            other => other,
        };
        match received {
            Ok(outcome) => {
                self.checkin(worker);
                outcome.map_err(error)
            }
            Err(RecvTimeoutError::Timeout) => {
                // The thread is stuck in a builtin: leave it, it ends when QuickJS polls
                // the interrupt handler again and finds nobody waiting for its answer.
                self.discard(worker, true);
                Err(error(Failure::Interrupted))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.discard(worker, false);
                Err(SandboxError::Internal(format!(
                    "the worker running code task {} ({}) died",
                    task.task_id, task.tool
                )))
            }
        }
    }

    /// Runs a program (agent code, see the crate doc) and returns its return value as JSON.
    ///
    /// Each call the program makes (`await mcp.fs.read_file({path})`) reaches `on_call`, on the
    /// calling thread, as soon as it is made (several can be outstanding at once, e.g. under
    /// `Promise.all`), with an [`Answers`] handle. `on_call` must not block: it hands the call
    /// on (e.g. spawns a tokio task) and the answer is given later, from any thread, through the
    /// handle; the program resumes when it arrives. Every call must be answered (or all handles
    /// dropped, which fails the run): the sandbox puts no limit on how long the host takes.
    ///
    /// Blocks until the program has settled. `time_limit` bounds the time its JavaScript runs,
    /// not the time it waits for answers; memory and stack limits are as for [`Sandbox::eval`].
    /// Errors: [`SandboxError::Syntax`], [`SandboxError::Exception`] (an uncaught throw or
    /// rejection, with the stack), [`SandboxError::NotJson`] (the return value),
    /// [`SandboxError::Stalled`], [`SandboxError::Timeout`], [`SandboxError::OutOfMemory`],
    /// [`SandboxError::StackOverflow`], [`SandboxError::Internal`]; each names the program.
    /// Calls still unanswered when the program settles are left to the host: their answers are
    /// ignored.
    pub fn run_program(
        &self,
        task: &ProgramTask<'_>,
        on_call: &mut dyn FnMut(HostCall, Answers),
    ) -> Result<serde_json::Value, SandboxError> {
        self.run_observed(task, on_call, &mut |_| {})
    }

    /// [`Sandbox::run_program`], and what the probes of an instrumented program
    /// ([`ProgramTask::probes`]) report reaches `on_report`, in batches, in the order it
    /// happened (a batch before each call, and the last one, with the loop counts and the
    /// operations left unfinished, before the outcome). Plain programs report only `console`
    /// output.
    pub fn run_observed(
        &self,
        task: &ProgramTask<'_>,
        on_call: &mut dyn FnMut(HostCall, Answers),
        on_report: &mut dyn FnMut(Vec<Report>),
    ) -> Result<serde_json::Value, SandboxError> {
        if let Some(name) = task.probes {
            if let Err(reason) = ident::check_parameter_name(name) {
                return Err(SandboxError::Internal(format!(
                    "{}: the probe object's name `{name}` {reason}",
                    program(task)
                )));
            }
        }
        let args = serde_json::to_string(task.args).map_err(|e| {
            SandboxError::Internal(format!(
                "cannot serialise the args of {}: {e}",
                program(task)
            ))
        })?;
        let (events_tx, events) = mpsc::channel();
        let (inbox_tx, inbox) = mpsc::channel();
        let line = Arc::new(AnswerLine::new(inbox_tx));
        if let Some(abort) = task.abort {
            abort.attach(&line);
        }
        let (worker, number) = self.start(Job::Program {
            number: 0,
            sent: Instant::now(),
            request: ProgramRequest {
                name: task.name.to_owned(),
                source: task.source.to_owned(),
                args,
                probes: task.probes.map(str::to_owned),
                values: task.values.to_vec(),
                reads: task.reads.cloned(),
                originals: task.originals.cloned(),
            },
            link: Link {
                line: line.clone(),
                inbox,
                events: events_tx,
            },
        })?;
        let mut lease = Lease {
            sandbox: self,
            worker: Some(worker),
            number,
            line: &line,
        };
        let error = |failure| self.error(task.name, "", failure);
        let died = || SandboxError::Internal(format!("the worker running {} died", program(task)));

        // The watchdog's clock runs only while the worker says it runs JavaScript: from the
        // start, and from each `Running` (with what it has left) to the next `Waiting`. Its
        // deadline is never earlier than the worker's own, which is counted from before each
        // message was sent, and moved later by the time pml handled the program's calls since
        // (told once it reaches `CREDIT_NOTICE`). (`None` while the program waits for answers.)
        let watchdog = |left: Duration| Instant::now().checked_add(left + CREDIT_NOTICE);
        let mut deadline = watchdog(self.options.time_limit);
        loop {
            let event = match deadline {
                // Takes a message already there even when the deadline has passed.
                Some(deadline) => {
                    events.recv_timeout(deadline.saturating_duration_since(Instant::now()))
                }
                None => events.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match event {
                Ok(Event::Call(call, answers)) => on_call(call, answers),
                Ok(Event::Reports(reports)) => on_report(reports),
                Ok(Event::Waiting) => deadline = None,
                Ok(Event::Running(left)) => deadline = watchdog(left),
                Ok(Event::Done(outcome)) => {
                    lease.checkin();
                    return outcome.map_err(error);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    lease.discard(false);
                    return Err(died());
                }
            }
        }

        // Out of time: as for code tasks, then give up on the worker after the grace period.
        // Calls made meanwhile are dropped unanswered.
        lease.expire();
        let grace = Instant::now().checked_add(self.options.watchdog_grace);
        loop {
            let wait = grace.map_or(Duration::MAX, |g| {
                g.saturating_duration_since(Instant::now())
            });
            match events.recv_timeout(wait) {
                Ok(Event::Done(outcome)) => {
                    lease.checkin();
                    return outcome.map_err(error);
                }
                // What the program reported up to where it stopped still says where that was.
                Ok(Event::Reports(reports)) => on_report(reports),
                Ok(Event::Call(..) | Event::Waiting | Event::Running(_)) => {}
                Err(RecvTimeoutError::Timeout) => {
                    lease.discard(true);
                    return Err(error(Failure::Interrupted));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    lease.discard(false);
                    return Err(died());
                }
            }
        }
    }

    /// Hands `job` to a worker, numbered and stamped with the time; the worker and the number.
    fn start(&self, mut job: Job) -> Result<(Worker, u64), SandboxError> {
        // A worker whose thread has ended (it could not rebuild its runtime) refuses the job:
        // replace it and try again, a few times.
        for _ in 0..3 {
            let worker = self.checkout()?;
            let number = self.jobs.fetch_add(1, Ordering::Relaxed) + 1;
            job.stamp(Instant::now(), number);
            match worker.send(job) {
                Ok(()) => return Ok((worker, number)),
                Err(refused) => {
                    job = *refused;
                    self.discard(worker, false);
                }
            }
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

    /// The error for `failure` of code task `task_id` (`tool`), or of a program named
    /// `task_id` when `tool` is empty.
    fn error(&self, task_id: &str, tool: &str, failure: Failure) -> SandboxError {
        let subject = Subject(task_id, tool).to_string();
        let task_id = task_id.to_owned();
        let tool = tool.to_owned();
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
            Failure::Stalled => SandboxError::Stalled { task_id, tool },
            Failure::Aborted => SandboxError::Aborted { task_id, tool },
            Failure::Unanswered(calls) => SandboxError::Internal(format!(
                "{subject}: the host dropped every answer handle with {calls} call(s) unanswered"
            )),
            Failure::Internal(message) => SandboxError::Internal(format!("{subject}: {message}")),
        }
    }
}

/// `program NAME`, for messages.
fn program(task: &ProgramTask<'_>) -> String {
    Subject(task.name, "").to_string()
}

/// The worker running a program, until it is checked in or discarded. Dropped with the worker
/// still in it (`on_call` panicked), it stops the run and frees the worker's slot.
struct Lease<'a> {
    sandbox: &'a Sandbox,
    worker: Option<Worker>,
    number: u64,
    line: &'a AnswerLine,
}

impl Lease<'_> {
    /// Makes the program's allocations fail and wakes it if it waits for answers: it ends soon.
    fn expire(&self) {
        if let Some(worker) = &self.worker {
            worker.expire(self.number);
        }
        self.line.cancel();
    }

    fn checkin(&mut self) {
        if let Some(worker) = self.worker.take() {
            self.sandbox.checkin(worker);
        }
    }

    fn discard(&mut self, abandoned: bool) {
        if let Some(worker) = self.worker.take() {
            self.sandbox.discard(worker, abandoned);
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self.worker.is_some() {
            self.expire();
            self.discard(false);
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
    if !(64 * 1024..=MAX_STACK_LIMIT).contains(&options.stack_limit) {
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
