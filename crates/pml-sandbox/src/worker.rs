//! A worker thread that owns one QuickJS runtime and runs one job at a time in a fresh context:
//! a code task ([`Job::Eval`]) or a program ([`Job::Program`], see [`event_loop`]).
//!
//! The runtime is reused across jobs; contexts are not. Right after a job the worker builds
//! the next code task's context while it waits, so a task that finds its worker idle pays only
//! for compiling (or finding in the cache) and running its code. (A program gets a context of
//! its own kind, built when it starts.) A runtime is rebuilt only when a job leaves work behind
//! in it (pending promise jobs, e.g. after a timeout).

mod event_loop;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use rquickjs::allocator::{Allocator, RustAllocator};
use rquickjs::context::intrinsic;
use rquickjs::function::Rest;
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, FromJs, Function, Persistent, Runtime, Value};

use crate::bytecode;
use crate::intl::{self, IntlCache};
use crate::program::Event;
use event_loop::Program;
pub(crate) use event_loop::{Link, CREDIT_NOTICE};

/// Limits a worker applies to every task, copied from [`SandboxOptions`](crate::SandboxOptions).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub time: Duration,
    pub memory: usize,
    pub stack: usize,
}

/// One code task as the worker sees it: names already checked, arguments already JSON text.
pub(crate) struct Request {
    /// The JavaScript expression.
    pub code: String,
    /// Parameter names, valid and distinct.
    pub names: Vec<String>,
    /// A JSON array with one value per name.
    pub arguments: String,
    /// Used as the script's file name in stack traces.
    pub task_id: String,
}

/// A program as the worker sees it: its arguments already JSON text.
pub(crate) struct ProgramRequest {
    /// Used as the script's file name in stack traces.
    pub name: String,
    /// The body of the program's async function.
    pub source: String,
    /// The value of `args` as JSON text.
    pub args: String,
    /// The name of the probe object of an instrumented program.
    pub probes: Option<String>,
    /// Probes whose values the host wants.
    pub values: Vec<u32>,
    /// Hears the program's reads of the clock and `Math.random()`.
    pub reads: Option<std::sync::Arc<dyn crate::Reads>>,
    /// The text as written of the instrumented program's functions.
    pub originals: Option<std::sync::Arc<dyn crate::OriginalText>>,
}

/// How a task ended when it did not produce a value. The pool adds the task id and tool.
#[derive(Debug)]
pub(crate) enum Failure {
    Interrupted,
    OutOfMemory,
    StackOverflow,
    Syntax(String),
    Threw {
        message: String,
        stack: Option<String>,
    },
    NotJson(String),
    /// A program's promise is pending with no job queued and no call outstanding.
    Stalled,
    /// The host aborted the run.
    Aborted,
    /// Every [`Answers`](crate::Answers) handle is gone with this many calls unanswered.
    Unanswered(usize),
    Internal(String),
}

pub(crate) type Outcome = Result<serde_json::Value, Failure>;

/// What a worker is asked to do.
pub(crate) enum Job {
    /// A code task; the outcome goes to `reply`.
    Eval {
        /// Unique per sandbox, never 0: what [`Worker::expire`] names.
        number: u64,
        /// When the caller's timer started.
        sent: Instant,
        request: Request,
        reply: SyncSender<Outcome>,
    },
    /// A program; its calls, phases and outcome go to `link.events`.
    Program {
        /// As for `Eval`.
        number: u64,
        /// As for `Eval`: the program's first slice of execution time starts here.
        sent: Instant,
        request: ProgramRequest,
        link: Link,
    },
}

impl Job {
    /// Gives the job its number and starts its clock, just before it is sent.
    pub(crate) fn stamp(&mut self, now: Instant, job_number: u64) {
        match self {
            Job::Eval { number, sent, .. } | Job::Program { number, sent, .. } => {
                *number = job_number;
                *sent = now;
            }
        }
    }
}

/// The handle of a worker thread. Dropping it closes the job channel: the thread exits when it has
/// finished its current task (at once if it is idle).
pub(crate) struct Worker {
    jobs: Sender<Job>,
    /// The number of the job whose time is up (see [`TaskClock`]).
    expired: Arc<AtomicU64>,
    thread: JoinHandle<()>,
}

impl Worker {
    /// Starts a thread and waits until its runtime exists.
    pub(crate) fn spawn(limits: Limits, name: String) -> Result<Worker, String> {
        let (jobs, inbox) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::sync_channel(1);
        let expired = Arc::new(AtomicU64::new(0));
        let clock = expired.clone();
        // The JavaScript stack limit is measured from where the runtime was created; the rest of
        // the thread's stack is headroom for native frames below the JavaScript ones.
        let stack = limits.stack + 4 * 1024 * 1024;
        let thread = thread::Builder::new()
            .name(name)
            .stack_size(stack)
            .spawn(move || worker_main(limits, clock, inbox, ready_tx))
            .map_err(|e| format!("cannot start a worker thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Worker {
                jobs,
                expired,
                thread,
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("a worker thread died while starting".to_owned()),
        }
    }

    /// Hands `job` to the thread; gives it back if the thread is gone.
    pub(crate) fn send(&self, job: Job) -> Result<(), Box<Job>> {
        self.jobs.send(job).map_err(|e| Box::new(e.0))
    }

    /// Tells the thread that job `number` is out of time: from now on its allocations fail, so
    /// a builtin that would run long without polling the interrupt handler gives up early.
    pub(crate) fn expire(&self, number: u64) {
        self.expired.store(number, Ordering::Relaxed);
    }

    /// Closes the job channel and waits for the (idle) thread to end.
    pub(crate) fn shut_down(self) {
        drop(self.jobs);
        let _ = self.thread.join();
    }
}

/// What the interrupt handler and the allocator know about the running task.
struct TaskClock {
    /// The running job's number; 0 between tasks.
    running: Cell<u64>,
    /// When the running task must stop; `None` while a program waits for answers (its clock
    /// is stopped). pml's own work while a program runs moves it later ([`TaskClock::credit`]).
    deadline: Cell<Option<Instant>>,
    /// Set when the interrupt handler stopped the task.
    interrupted: Cell<bool>,
    /// The running program's line, whose abort the interrupt handler hears; and set when the
    /// handler stopped the program for it.
    line: RefCell<Option<Arc<crate::program::AnswerLine>>>,
    aborted: Cell<bool>,
    /// Set by the calling thread (its own timer): the number of the job whose time is up.
    expired: Arc<AtomicU64>,
    /// Bytes the runtime holds (usable sizes, as QuickJS counts them, without its per-block
    /// overhead), and its memory limit.
    used: Cell<usize>,
    limit: usize,
    /// Set when the running task's memory came within [`NEAR_LIMIT`] of the limit: a `null`
    /// it then throws is QuickJS out of memory (it had no memory left for the error).
    near_limit: Cell<bool>,
}

/// How close to the memory limit counts as having reached it (QuickJS also counts a few bytes
/// per block that [`TaskClock::used`] does not).
const NEAR_LIMIT: usize = 1 << 20;

impl TaskClock {
    /// `delta` bytes more (or fewer) held.
    fn hold(&self, more: usize, less: usize) {
        let used = (self.used.get() + more).saturating_sub(less);
        self.used.set(used);
        if self.limit > 0 && used + NEAR_LIMIT >= self.limit {
            self.near_limit.set(true);
        }
    }

    /// `spent` of the running program's time was pml's own work (calls sent, answers turned
    /// into values, reports kept), not the program's JavaScript: its deadline moves later by
    /// as much.
    fn credit(&self, spent: Duration) {
        if let Some(deadline) = self.deadline.get() {
            self.deadline.set(deadline.checked_add(spent));
        }
    }

    /// Whether the running task is past its deadline.
    fn over(&self) -> bool {
        self.deadline
            .get()
            .is_some_and(|deadline| Instant::now() > deadline)
    }

    /// Stops the clock (a program waits for answers): the time left.
    fn pause(&self) -> Duration {
        self.deadline.take().map_or(Duration::MAX, |d| {
            d.saturating_duration_since(Instant::now())
        })
    }

    /// Starts the clock again at `now` with `left` to run.
    fn resume(&self, now: Instant, left: Duration) {
        self.deadline.set(now.checked_add(left));
    }

    /// Whether allocations must fail: the running task is past its time, and the interrupt
    /// handler has not stopped it yet (the uncatchable "interrupted" error needs memory).
    fn starving(&self) -> bool {
        let running = self.running.get();
        running != 0 && !self.interrupted.get() && self.expired.load(Ordering::Relaxed) == running
    }
}

/// Rust's allocator, refusing memory to a task whose time is up (see [`TaskClock::starving`]).
/// The memory limit itself is QuickJS's (`JS_SetMemoryLimit`, which quickjs-ng applies to
/// custom allocators too).
struct TimedAllocator {
    inner: RustAllocator,
    clock: Rc<TaskClock>,
}

// SAFETY: every call is forwarded to `RustAllocator`, or answered with a null pointer, which the
// trait allows for `alloc`, `calloc` and `realloc`.
unsafe impl Allocator for TimedAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if self.clock.starving() {
            return std::ptr::null_mut();
        }
        let ptr = self.inner.alloc(size);
        if !ptr.is_null() {
            // SAFETY: `ptr` was just allocated by `RustAllocator`.
            self.clock
                .hold(unsafe { RustAllocator::usable_size(ptr) }, 0);
        }
        ptr
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        // `RustAllocator::calloc` panics on overflow, and a panic must not cross into C.
        if self.clock.starving() || count.checked_mul(size).is_none() {
            return std::ptr::null_mut();
        }
        let ptr = self.inner.calloc(count, size);
        if !ptr.is_null() {
            // SAFETY: `ptr` was just allocated by `RustAllocator`.
            self.clock
                .hold(unsafe { RustAllocator::usable_size(ptr) }, 0);
        }
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: forwarded; the caller guarantees `ptr` came from this allocator.
        unsafe {
            self.clock.hold(0, RustAllocator::usable_size(ptr));
            self.inner.dealloc(ptr)
        }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded; the caller guarantees `ptr` came from this allocator.
        unsafe {
            let old = match ptr.is_null() {
                true => 0,
                false => RustAllocator::usable_size(ptr),
            };
            if self.clock.starving() && new_size > old {
                return std::ptr::null_mut();
            }
            let moved = self.inner.realloc(ptr, new_size);
            match moved.is_null() {
                // Freed (a zero size), or refused (the block kept).
                true if new_size == 0 => self.clock.hold(0, old),
                true => {}
                false => self.clock.hold(RustAllocator::usable_size(moved), old),
            }
            moved
        }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: forwarded; the caller guarantees `ptr` came from this allocator.
        unsafe { RustAllocator::usable_size(ptr) }
    }
}

/// `atob`, `btoa`, `structuredClone`, `TextEncoder`, `TextDecoder`, `URL`, `URLSearchParams`
/// and `DOMException` as Node's (`worker/web.js`), for programs: a function of the global
/// object and the URL natives ([`crate::url`]) that defines them.
const WEB: &str = include_str!("worker/web.js");

/// Node's `Buffer`, for programs (`worker/buffer.js`: a function of the global object that
/// defines it, made on first use, and returns the `isBuffer` test `console`'s inspector uses).
const BUFFER: &str = include_str!("worker/buffer.js");

/// What QuickJS has of standards later than Node 20's, deleted from every context
/// (`worker/node20.js`: a function of the global object).
const NODE20: &str = include_str!("worker/node20.js");

/// `Date.parse` and `new Date(text)` as V8's, in every context, run after [`NODE20`]
/// (`worker/date.js`: a function of the global object that replaces `Date`).
const DATE: &str = include_str!("worker/date.js");

/// In a code task's context, what reads the clock (`Date.now()`, `Date()`, `new Date()`) or
/// `Math.random()` throws: a code task is computed ahead of the program (speculation), where
/// the program would read another time or number (a read started with it would carry other
/// arguments than the program's). The reader [`event_loop::READS`] routes those reads to.
const AHEAD: &str = r#"(function () {
  throw new ReferenceError("the clock and Math.random() are the program's to read: not computed ahead of it");
})"#;

/// The intrinsics of a code task's context: the language, `JSON`, `Date`, `RegExp`, `Map`/`Set`,
/// `Promise`. Left out: `Eval` (so QuickJS refuses `eval` and every `Function` constructor),
/// and, as pure code has no use for them and each one costs set-up time in every context, typed
/// arrays/`SharedArrayBuffer`/`Atomics`, `Proxy`, `WeakRef`/`FinalizationRegistry` (whose
/// callbacks would run as jobs after the task) and `performance`.
type Intrinsics = (
    intrinsic::Date,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::MapSet,
    intrinsic::Promise,
);

/// The intrinsics of a program's context: a code task's and `Proxy` (which `mcp` is made of),
/// typed arrays, weak references and `eval`: the whole language QuickJS has (`Atomics` and
/// `SharedArrayBuffer` are then removed: nothing may block the worker).
type ProgramIntrinsics = (
    Intrinsics,
    intrinsic::Proxy,
    intrinsic::TypedArrays,
    intrinsic::WeakRef,
    intrinsic::Eval,
);

/// `JSON.stringify` as Node's: functions, symbols and `undefined` dropped in objects and `null`
/// in arrays, `toJSON` honoured, `undefined` when there is nothing to write; what it refuses
/// (BigInts, cycles) throws a `TypeError` with V8's message. The cycle is found again by
/// reading own data properties only (as V8 reports it: the object where it starts, the path,
/// the key that closes it); if it hides behind a getter or `toJSON`, the message is V8's first
/// line alone. The script also makes this the context's `JSON.stringify`, so the code's own
/// calls throw the same messages (the function used here is the original, whatever the code
/// does to `JSON`).
const STRINGIFY: &str = r#"(function () {
  const stringify = JSON.stringify;
  const TypeErr = TypeError;
  const describe = Object.getOwnPropertyDescriptor;
  const protoOf = Object.getPrototypeOf;
  const keys = Object.keys;
  const hasOwn = Object.hasOwn;
  const isArray = Array.isArray;
  const named = (v) => {
    for (let p = protoOf(v), n = 0; p !== null && n < 64; p = protoOf(p), n++) {
      const d = describe(p, "constructor");
      if (d !== undefined && hasOwn(d, "value") && typeof d.value === "function") {
        const name = describe(d.value, "name");
        if (name !== undefined && typeof name.value === "string" && name.value !== "") return name.value;
        break;
      }
    }
    return "Object";
  };
  const CIRCULAR = "Converting circular structure to JSON";
  const circular = (value) => {
    const stack = [];
    const steps = [];
    const done = new Set();
    let budget = 100000;
    const find = (v) => {
      if (typeof v !== "object" || v === null || done.has(v) || --budget < 0) return -1;
      for (let i = 0; i < stack.length; i++) if (stack[i] === v) return i;
      stack[stack.length] = v;
      const names = keys(v);
      for (let i = 0; i < names.length; i++) {
        const d = describe(v, names[i]);
        if (d === undefined || !hasOwn(d, "value")) continue;
        steps[stack.length - 1] = isArray(v) ? `index ${names[i]}` : `property '${names[i]}'`;
        const at = find(d.value);
        if (at >= 0) return at;
      }
      stack.length = stack.length - 1;
      done.add(v);
      return -1;
    };
    let at;
    try { at = find(value); } catch (e) { return CIRCULAR; }
    if (at < 0) return CIRCULAR;
    let lines = [`\n    --> starting at object with constructor '${named(stack[at])}'`];
    const middle = [];
    for (let i = at + 1; i < stack.length; i++) {
      middle[middle.length] = `\n    |     ${steps[i - 1]} -> object with constructor '${named(stack[i])}'`;
    }
    if (middle.length > 3) {
      lines[1] = middle[0];
      lines[2] = middle[1];
      lines[3] = "\n    |     ...";
      lines[4] = middle[middle.length - 1];
    } else {
      for (let i = 0; i < middle.length; i++) lines[lines.length] = middle[i];
    }
    lines[lines.length] = `\n    --- ${steps[stack.length - 1]} closes the circle`;
    let out = CIRCULAR;
    for (let i = 0; i < lines.length; i++) out += lines[i];
    return out;
  };
  const nodeStringify = {
    stringify(value, replacer, space) {
      try {
        return stringify(value, replacer, space);
      } catch (e) {
        if (e instanceof TypeErr && e.message === "circular reference") throw new TypeErr(circular(value));
        if (e instanceof TypeErr && e.message === "BigInt are forbidden in JSON.stringify") {
          throw new TypeErr("Do not know how to serialize a BigInt");
        }
        throw e;
      }
    },
  }.stringify;
  // The code's own `JSON.stringify` throws V8's messages too.
  Object.defineProperty(JSON, "stringify", { value: nodeStringify, writable: true, enumerable: false, configurable: true });
  return (value) => nodeStringify(value);
})()"#;

/// Compiled wrappers kept per worker; the cache is emptied when full.
const CACHE_ENTRIES: usize = 256;

/// A program is compiled as `WRAPPER_OPEN + probes + ", " + PROGRAM_PARAMETERS +
/// WRAPPER_PARAMETERS_END + source + WRAPPER_CLOSE` (no probes: `WRAPPER_OPEN +
/// PROGRAM_PARAMETERS + ...`), the wrapper all on the source's first line: an outer function
/// whose parameters are the probe object and what the program names `mcp`, `args` and
/// `capabilities`, returning the program's async function. The probe object is a binding of
/// the outer function's scope, never an argument of the program's own function (its
/// `arguments` is empty), nor a global: only its name reaches it, and that name is a secret of
/// the run. `mcp`, `args` and `capabilities` are no globals either, as in Node, where they are
/// the parameters of the function the program runs as: a program that sets
/// `globalThis.mcp` changes no call it makes.
pub(crate) const WRAPPER_OPEN: &str = "(function (";
pub(crate) const PROGRAM_PARAMETERS: &str = "mcp, args, capabilities";
pub(crate) const WRAPPER_PARAMETERS_END: &str = ") { return async function () {";
pub(crate) const WRAPPER_CLOSE: &str = "\n}})";

/// A context ready for a task: its stringify is loaded.
struct Warm {
    /// Declared first: dropped before the context it lives in.
    stringify: Persistent<Function<'static>>,
    context: Context,
}

/// A program context made ready ahead of its program.
struct ReadyProgram {
    /// Declared first: dropped before the context it lives in.
    ready: event_loop::Ready,
    context: Context,
}

/// The runtime of a worker, the state its interrupt handler and allocator read, the context
/// that compiles, and the context prepared for the next task.
struct Engine {
    warm: Option<Warm>,
    /// The program context made ready for the next program ([`event_loop::ready`]).
    program: Option<ReadyProgram>,
    /// The context of the last task, until its reply is sent (freeing it takes a while).
    spent: Option<Context>,
    /// Compiles (never runs) scripts for the task contexts.
    compiler: Context,
    stringify: Vec<u8>,
    /// Bytecode of [`event_loop::SETUP`].
    setup: Vec<u8>,
    /// Bytecode of [`event_loop::INSPECT`].
    inspect: Vec<u8>,
    /// Bytecode of [`event_loop::READS`] and [`event_loop::TO_STRING`].
    reads: Vec<u8>,
    to_string: Vec<u8>,
    /// Bytecode of [`WEB`].
    web: Vec<u8>,
    /// Bytecode of [`BUFFER`].
    buffer: Vec<u8>,
    /// Bytecode of [`NODE20`].
    node20: Vec<u8>,
    /// Bytecode of [`DATE`].
    date: Vec<u8>,
    /// Bytecode of [`AHEAD`].
    ahead: Vec<u8>,
    /// Bytecode of [`intl::INTL`], run in a context when it first uses it.
    intl: Rc<[u8]>,
    /// Bytecode of [`intl::LAZY`], run in every context.
    intl_lazy: Vec<u8>,
    /// The collators and number formatters of this worker.
    intl_cache: Rc<IntlCache>,
    /// Bytecode of task wrappers by task id and source text.
    cache: HashMap<String, Rc<[u8]>>,
    runtime: Runtime,
    clock: Rc<TaskClock>,
    /// The program's promises rejected with no handler (the runtime's rejection tracker).
    unhandled: event_loop::Unhandled,
}

impl Engine {
    fn new(limits: Limits, expired: Arc<AtomicU64>) -> Result<Engine, String> {
        crate::math::install();
        let clock = Rc::new(TaskClock {
            running: Cell::new(0),
            deadline: Cell::new(None),
            interrupted: Cell::new(false),
            line: RefCell::new(None),
            aborted: Cell::new(false),
            expired,
            used: Cell::new(0),
            limit: limits.memory,
            near_limit: Cell::new(false),
        });
        let runtime = Runtime::new_with_alloc(TimedAllocator {
            inner: RustAllocator,
            clock: clock.clone(),
        })
        .map_err(|e| format!("cannot create a quickjs runtime: {e}"))?;
        runtime.set_memory_limit(limits.memory);
        runtime.set_max_stack_size(limits.stack);
        let unhandled = event_loop::Unhandled::default();
        let tracked = unhandled.clone();
        runtime.set_host_promise_rejection_tracker(Some(Box::new(
            move |ctx, promise, reason, handled| {
                event_loop::track_rejection(&tracked, ctx, promise, reason, handled)
            },
        )));
        let c = clock.clone();
        // QuickJS calls this every 10,000 interpreter ticks (backward jumps and calls); a builtin
        // that runs long without calling back into JavaScript is only stopped when it returns
        // (or, once the caller has expired the task, when an allocation fails).
        runtime.set_interrupt_handler(Some(Box::new(move || {
            if c.line.borrow().as_ref().is_some_and(|line| line.aborted()) {
                c.aborted.set(true);
                c.interrupted.set(true);
                return true;
            }
            match c.deadline.get() {
                Some(deadline) if Instant::now() >= deadline => {
                    c.interrupted.set(true);
                    true
                }
                _ => false,
            }
        })));
        let compiler = Context::custom::<(intrinsic::Eval, intrinsic::RegExpCompiler)>(&runtime)
            .map_err(|e| format!("cannot create a quickjs context: {e}"))?;
        let (stringify, setup, inspect, intl, intl_lazy) = compiler
            .with(|ctx| {
                Ok::<_, rquickjs::Error>((
                    bytecode::compile_builtin(&ctx, STRINGIFY, "stringify")?,
                    bytecode::compile_builtin(&ctx, event_loop::SETUP, "mcp")?,
                    bytecode::compile_builtin(&ctx, event_loop::INSPECT, "console")?,
                    bytecode::compile_builtin(&ctx, intl::INTL, "intl")?,
                    bytecode::compile_builtin(&ctx, intl::LAZY, "intl")?,
                ))
            })
            .map_err(|e| format!("cannot compile the built-in scripts: {e}"))?;
        let (reads, to_string, web, buffer, node20, date, ahead) = compiler
            .with(|ctx| {
                Ok::<_, rquickjs::Error>((
                    bytecode::compile_builtin(&ctx, event_loop::READS, "reads")?,
                    bytecode::compile_builtin(&ctx, event_loop::TO_STRING, "toString")?,
                    bytecode::compile_builtin(&ctx, WEB, "web")?,
                    bytecode::compile_builtin(&ctx, BUFFER, "buffer")?,
                    bytecode::compile_builtin(&ctx, NODE20, "node20")?,
                    bytecode::compile_builtin(&ctx, DATE, "date")?,
                    bytecode::compile_builtin(&ctx, AHEAD, "ahead")?,
                ))
            })
            .map_err(|e| format!("cannot compile the built-in scripts: {e}"))?;
        Ok(Engine {
            warm: None,
            program: None,
            spent: None,
            compiler,
            stringify,
            setup,
            inspect,
            reads,
            to_string,
            web,
            buffer,
            node20,
            date,
            ahead,
            intl: intl.into(),
            intl_lazy,
            intl_cache: Rc::default(),
            cache: HashMap::new(),
            runtime,
            clock,
            unhandled,
        })
    }

    /// Builds the context for the next task, unless there is one.
    fn prepare(&mut self) -> Result<(), Failure> {
        if self.warm.is_some() {
            return Ok(());
        }
        let context = fresh_context::<Intrinsics>(&self.runtime, false)?;
        let stringify = context.with(|ctx| {
            self.only_node20(&ctx)
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            // The program's routing of its reads of the clock and randomness (`READS`), to a
            // reader that refuses them.
            bytecode::run(&ctx, &self.ahead)
                .and_then(|refuse| {
                    let install = Function::from_js(&ctx, bytecode::run(&ctx, &self.reads)?)?;
                    install.call::<_, ()>((refuse,))
                })
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            bytecode::run(&ctx, &self.stringify)
                .and_then(|v| Function::from_js(&ctx, v))
                .map(|f| Persistent::save(&ctx, f))
                .map_err(|e| failure(&ctx, e, Phase::Run))
        })?;
        self.warm = Some(Warm { stringify, context });
        Ok(())
    }

    /// Makes a program context ready for the next program, unless there is one.
    fn prepare_program(&mut self) -> Result<(), Failure> {
        if self.program.is_some() {
            return Ok(());
        }
        let context = fresh_context::<ProgramIntrinsics>(&self.runtime, true)?;
        let ready = context.with(|ctx| {
            let culprits = self
                .only_node20(&ctx)
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            self.install_intl(&ctx)
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            bytecode::run(&ctx, &self.web)
                .and_then(|v| Function::from_js(&ctx, v))
                .and_then(|install| {
                    install.call::<_, ()>((ctx.globals(), crate::url::natives(&ctx)?))
                })
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            let is_buffer = bytecode::run(&ctx, &self.buffer)
                .and_then(|v| Function::from_js(&ctx, v))
                .and_then(|install| install.call::<_, Function>((ctx.globals(),)))
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            let stringify = bytecode::run(&ctx, &self.stringify)
                .and_then(|v| Function::from_js(&ctx, v))
                .map_err(|e| failure(&ctx, e, Phase::Run))?;
            event_loop::ready(
                &ctx,
                &self.setup,
                &self.inspect,
                stringify,
                is_buffer,
                culprits,
                &self.unhandled,
            )
        })?;
        self.program = Some(ReadyProgram { ready, context });
        Ok(())
    }

    /// Deletes from `ctx` what Node 20 has not, and makes it answer as Node 20 does
    /// ([`NODE20`], then [`DATE`]). Returns the function a program's run gives the native that
    /// reads the culprits of its errors.
    fn only_node20<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Function<'js>> {
        let delete = Function::from_js(ctx, bytecode::run(ctx, &self.node20)?)?;
        let culprits = delete.call((ctx.globals(),))?;
        let date = Function::from_js(ctx, bytecode::run(ctx, &self.date)?)?;
        date.call::<_, ()>((ctx.globals(),))?;
        Ok(culprits)
    }

    /// Gives `ctx` `Intl` and the locale methods ([`intl::LAZY`]: made on first use, so a
    /// context that never uses them does not pay for them).
    fn install_intl(&self, ctx: &Ctx<'_>) -> rquickjs::Result<()> {
        let script = self.intl.clone();
        let cache = self.intl_cache.clone();
        let load = Function::new(ctx.clone(), move |ctx: Ctx<'_>| {
            let (canonical, collate, format) = intl::natives(&ctx, &cache)?;
            // A locale's table, parsed when a context first formats a date in it (~40 KB).
            let dates = Function::new(ctx.clone(), intl::dates)?;
            let install = Function::from_js(&ctx, bytecode::run(&ctx, &script)?)?;
            let tables = Function::new(ctx.clone(), intl::table)?;
            let relative = Function::new(ctx.clone(), intl::relative)?;
            let zone_offset = Function::new(ctx.clone(), intl::zone_offset)?;
            // More natives than a tuple of arguments holds.
            let mut natives = rquickjs::function::Args::new(ctx.clone(), 8);
            natives.push_arg(canonical)?;
            natives.push_arg(collate)?;
            natives.push_arg(format)?;
            natives.push_arg(dates)?;
            natives.push_arg(intl::local_zone())?;
            natives.push_arg(tables)?;
            natives.push_arg(relative)?;
            natives.push_arg(zone_offset)?;
            install.call_arg::<()>(natives)
        })?;
        let lazy = Function::from_js(ctx, bytecode::run(ctx, &self.intl_lazy)?)?;
        lazy.call::<_, ()>((load, intl::local_zone_long_name()))
    }

    /// The bytecode of `(function (names) { return (code); })`, compiled or from the cache.
    fn wrapper(&mut self, request: &Request) -> Result<Rc<[u8]>, Failure> {
        // The task id is the file name in stack traces, so it is part of the key.
        let mut key = String::with_capacity(request.task_id.len() + request.code.len() + 64);
        key.push_str(&request.task_id);
        key.push('\0');
        let source_start = key.len();
        key.push_str("(function (");
        key.push_str(&request.names.join(", "));
        key.push_str(") {\n  return (\n");
        key.push_str(&request.code);
        key.push_str("\n  );\n})");
        if let Some(bytecode) = self.cache.get(&key) {
            return Ok(bytecode.clone());
        }
        let bytecode: Rc<[u8]> = self
            .compiler
            .with(|ctx| {
                bytecode::compile(&ctx, &key[source_start..], &request.task_id)
                    .map_err(|e| failure(&ctx, e, Phase::Compile))
            })?
            .into();
        if self.cache.len() >= CACHE_ENTRIES {
            self.cache.clear();
        }
        self.cache.insert(key, bytecode.clone());
        Ok(bytecode)
    }

    /// Runs job `number`, started by the caller at `sent`. The used context is kept in
    /// `self.spent`, to be dropped after the reply is sent.
    fn run(&mut self, number: u64, sent: Instant, request: &Request, limits: Limits) -> Outcome {
        // The caller's timer started when it sent the job: count from there, so that the
        // interrupt handler and the caller's `expire` agree.
        let deadline = sent + limits.time;
        self.clocked(number, Some(deadline), |worker| {
            worker.run_timed(request, deadline)
        })
    }

    /// Runs `job` as job `number` with the clock armed (`deadline` for the interrupt handler),
    /// then disarms it. `Interrupted` when the job was interrupted, expired by the caller, or
    /// ended past its deadline; else its JSON answer, parsed.
    fn clocked(
        &mut self,
        number: u64,
        deadline: Option<Instant>,
        job: impl FnOnce(&mut Self) -> Result<String, Failure>,
    ) -> Outcome {
        self.clock.deadline.set(deadline);
        self.clock.interrupted.set(false);
        self.clock.aborted.set(false);
        self.clock.near_limit.set(false);
        self.clock.running.set(number);
        let outcome = job(self);
        if self.clock.aborted.get() {
            self.clock.running.set(0);
            self.clock.deadline.set(None);
            return Err(Failure::Aborted);
        }
        let expired = self.clock.interrupted.get()
            || self.clock.expired.load(Ordering::Relaxed) == number
            || self.clock.over();
        self.clock.running.set(0);
        self.clock.deadline.set(None);
        if expired {
            return Err(Failure::Interrupted);
        }
        let json = match outcome {
            // QuickJS out of memory with none left for its error throws `null`, or its
            // `InternalError` without the message (which it had no memory left to set).
            Err(Failure::Threw {
                message,
                stack: None,
            }) if (message == "null" || message == "InternalError")
                && self.clock.near_limit.get() =>
            {
                return Err(Failure::OutOfMemory);
            }
            other => other?,
        };
        // Lone surrogates (`\udXXX` escapes) become pml text (see `pml_jstext`).
        pml_jstext::parse_js_json(&json).map_err(|e| Failure::NotJson(e.to_string()))
    }

    fn run_timed(&mut self, request: &Request, deadline: Instant) -> Result<String, Failure> {
        let wrapper = self.wrapper(request)?;
        self.prepare()?;
        let Some(Warm { stringify, context }) = self.warm.take() else {
            return Err(Failure::Internal("no context".to_owned()));
        };
        let outcome = context.with(|ctx| {
            let stringify = stringify
                .restore(&ctx)
                .map_err(|e| Failure::Internal(e.to_string()))?;
            // `Intl` and the locale methods cost a task context more than most tasks do: only
            // code that names them gets them (`localeCompare`, `toLocale*String`, `Intl`, and
            // `Date`, whose text ends with the zone's name as V8 writes it). Code
            // reaching them through a computed name gets QuickJS's own, which differ from
            // Node's: a speculated call computed that way is not the program's (wasted, never
            // wrong), as the program itself always has them.
            let code = &request.code;
            if code.contains("ocale") || code.contains("Intl") || code.contains("Date") {
                self.install_intl(&ctx)
                    .map_err(|e| failure(&ctx, e, Phase::Run))?;
            }
            run_in(&ctx, &wrapper, request, stringify, deadline)
        });
        self.spent = Some(context);
        outcome
    }

    /// Runs program job `number`, started by the caller at `sent`, talking to the caller and
    /// the host through `link`. Its time limit is execution time: it runs down only while
    /// JavaScript runs, not while the program waits for the host's answers. As for code tasks,
    /// the context is kept in `self.spent`.
    fn run_program(
        &mut self,
        number: u64,
        sent: Instant,
        request: &ProgramRequest,
        link: &Link,
        limits: Limits,
    ) -> Outcome {
        // Counted from when the caller sent the job, as its watchdog counts.
        *self.clock.line.borrow_mut() = Some(link.line.clone());
        let outcome = self.clocked(number, sent.checked_add(limits.time), |worker| {
            worker.program_timed(request, link)
        });
        *self.clock.line.borrow_mut() = None;
        outcome
    }

    fn program_timed(&mut self, request: &ProgramRequest, link: &Link) -> Result<String, Failure> {
        // The prefix shares the first line with the source: line N of the source is line N of
        // the script in stack traces and syntax errors.
        let mut source = String::with_capacity(request.source.len() + 32);
        source.push_str(WRAPPER_OPEN);
        if let Some(probes) = &request.probes {
            source.push_str(probes);
            source.push_str(", ");
        }
        source.push_str(PROGRAM_PARAMETERS);
        source.push_str(WRAPPER_PARAMETERS_END);
        source.push_str(&request.source);
        source.push_str(WRAPPER_CLOSE);
        let wrapper = self.compiler.with(|ctx| {
            bytecode::compile(&ctx, &source, &request.name).map_err(|e| match e {
                // With where it is: a program is long enough for that to matter.
                rquickjs::Error::Exception => match classify(&ctx, ctx.catch()) {
                    Failure::Threw { message, stack } => {
                        let at = stack
                            .as_deref()
                            .and_then(|s| s.lines().next())
                            .map(str::trim);
                        Failure::Syntax(match at.and_then(|at| at.strip_prefix("at ")) {
                            Some(place) => match redeclared(&message, place, &source) {
                                Some((message, place)) => format!("{message} ({place})"),
                                None => format!("{message} ({place})"),
                            },
                            None => message,
                        })
                    }
                    other => other,
                },
                other => failure(&ctx, other, Phase::Compile),
            })
        })?;
        drop(source);
        self.prepare_program()?;
        let Some(ReadyProgram { ready, context }) = self.program.take() else {
            return Err(Failure::Internal("no program context".to_owned()));
        };
        let outcome = context.with(|ctx| {
            let program = Program {
                name: &request.name,
                wrapper: &wrapper,
                args: &request.args,
                probes: request.probes.as_deref(),
                originals: request.originals.clone(),
                values: &request.values,
                reads: request.reads.clone(),
                reads_script: &self.reads,
                to_string_script: &self.to_string,
                link,
                clock: self.clock.clone(),
                unhandled: self.unhandled.clone(),
            };
            event_loop::run_in(&ctx, program, ready)
        });
        self.spent = Some(context);
        outcome
    }
}

fn worker_main(
    limits: Limits,
    expired: Arc<AtomicU64>,
    inbox: Receiver<Job>,
    ready: SyncSender<Result<(), String>>,
) {
    let mut engine = match Engine::new(limits, expired.clone()) {
        Ok(engine) => engine,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    if let Err(e) = engine.prepare().and_then(|()| engine.prepare_program()) {
        let _ = ready.send(Err(format!("cannot prepare a context: {e:?}")));
        return;
    }
    let _ = ready.send(Ok(()));
    drop(ready);
    let mut next = None;
    loop {
        let job = match next.take() {
            Some(job) => job,
            None => match inbox.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        // The caller may have given up on us (watchdog): then nobody listens any more.
        let (failed, delivered) = match job {
            Job::Eval {
                number,
                sent,
                request,
                reply,
            } => {
                let outcome = engine.run(number, sent, &request, limits);
                (outcome.is_err(), reply.send(outcome).is_ok())
            }
            Job::Program {
                number,
                sent,
                request,
                link,
            } => {
                let outcome = engine.run_program(number, sent, &request, &link, limits);
                (
                    outcome.is_err(),
                    link.events.send(Event::Done(outcome)).is_ok(),
                )
            }
        };
        if !delivered {
            return;
        }
        engine.spent = None;
        // Jobs left in the queue belong to a dead context and would run in the next task:
        // start over with a clean runtime. After a failure, collect the task's garbage
        // now so it does not count against the next task's memory limit.
        if engine.runtime.is_job_pending() {
            drop(engine);
            engine = match Engine::new(limits, expired.clone()) {
                Ok(engine) => engine,
                Err(_) => return,
            };
        } else if failed {
            engine.runtime.run_gc();
        }
        // If this fails, the next task tries again and reports the error.
        let _ = engine.prepare();
        // The next program's context once the caller is done with this job's answer (it
        // would take a core from it on a small machine), unless a job comes first (its
        // context is made then).
        match inbox.recv_timeout(PREPARE_AFTER) {
            Ok(job) => next = Some(job),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = engine.prepare_program();
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// How long a worker leaves the caller alone after a job before it makes the next program's
/// context ready (a run's answer and record take about this).
const PREPARE_AFTER: Duration = Duration::from_micros(600);

/// Runs the task whose wrapper is `wrapper` (bytecode) in `ctx`; its result as JSON text.
fn run_in<'js>(
    ctx: &Ctx<'js>,
    wrapper: &[u8],
    request: &Request,
    stringify: Function<'js>,
    deadline: Instant,
) -> Result<String, Failure> {
    let wrapper = bytecode::run(ctx, wrapper)
        .and_then(|v| Function::from_js(ctx, v))
        .map_err(|e| failure(ctx, e, Phase::Run))?;

    let arguments: Value = ctx
        .json_parse(pml_jstext::to_js_json(&request.arguments).as_bytes())
        .map_err(|e| failure(ctx, e, Phase::Run))?;
    let arguments = arguments
        .into_array()
        .ok_or_else(|| Failure::Internal("the arguments are not a json array".into()))?;
    let arguments = arguments
        .iter::<Value>()
        .collect::<rquickjs::Result<Vec<_>>>()
        .map_err(|e| failure(ctx, e, Phase::Run))?;

    let mut result: Value = wrapper
        .call((Rest(arguments),))
        .map_err(|e| failure(ctx, e, Phase::Run))?;

    // Run the microtasks the task queued (a promise result settles here), within the deadline.
    while ctx.execute_pending_job() {
        if Instant::now() >= deadline {
            return Err(Failure::Interrupted);
        }
    }
    if let Some(promise) = result.as_promise() {
        result = settled(ctx, promise)
            .unwrap_or_else(|| Err(Failure::NotJson("a promise that never settled".into())))?;
    }
    to_json(ctx, result, stringify)
}

/// The value of a settled promise, the failure it was rejected with, or `None` while pending.
fn settled<'js>(
    ctx: &Ctx<'js>,
    promise: &rquickjs::Promise<'js>,
) -> Option<Result<Value<'js>, Failure>> {
    match promise.state() {
        PromiseState::Resolved => Some(
            promise
                .result::<Value>()
                .unwrap_or(Ok(Value::new_undefined(ctx.clone())))
                .map_err(|e| failure(ctx, e, Phase::Run)),
        ),
        PromiseState::Rejected => {
            let reason: Value = match promise.result::<Value>() {
                Some(Err(rquickjs::Error::Exception)) => ctx.catch(),
                Some(Ok(v)) => v,
                _ => Value::new_undefined(ctx.clone()),
            };
            Some(Err(classify(ctx, reason)))
        }
        PromiseState::Pending => None,
    }
}

/// `value` as JSON text through [`STRINGIFY`] (`null` when there is nothing to write).
fn to_json<'js>(
    ctx: &Ctx<'js>,
    value: Value<'js>,
    stringify: Function<'js>,
) -> Result<String, Failure> {
    match stringify.call::<_, Value>((value,)) {
        Ok(text) => match text.as_string() {
            Some(text) => text
                .to_string()
                .map_err(|e| Failure::Internal(format!("cannot read the result: {e}"))),
            None => Ok("null".to_owned()),
        },
        Err(e) => Err(failure(ctx, e, Phase::ToJson)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Parsing the wrapper: a JavaScript error here means the code does not parse.
    Compile,
    Run,
    /// `JSON.stringify` of the result: an error here means the result is not JSON.
    ToJson,
}

/// A new context with intrinsics `I`. Code tasks' contexts have no parser: without `eval`
/// (calling it would fail anyway, "eval is not supported"; gone, it cannot even be found).
/// Programs keep it: `eval` and `new Function(...)` are the language, as in Node, and bounded
/// by the same limits.
fn fresh_context<I: rquickjs::context::Intrinsic>(
    runtime: &Runtime,
    keep_eval: bool,
) -> Result<Context, Failure> {
    let context = match Context::custom::<I>(runtime) {
        Ok(context) => context,
        Err(rquickjs::Error::Allocation) => return Err(Failure::OutOfMemory),
        Err(e) => return Err(Failure::Internal(format!("cannot create a context: {e}"))),
    };
    if !keep_eval {
        context.with(|ctx| {
            ctx.globals()
                .remove("eval")
                .map_err(|e| failure(&ctx, e, Phase::Run))
        })?;
    }
    Ok(context)
}

fn failure(ctx: &Ctx<'_>, error: rquickjs::Error, phase: Phase) -> Failure {
    match error {
        rquickjs::Error::Exception => {
            let thrown = ctx.catch();
            match (classify(ctx, thrown), phase) {
                (Failure::Threw { message, .. }, Phase::Compile) => Failure::Syntax(message),
                (Failure::Threw { message, .. }, Phase::ToJson) => Failure::NotJson(message),
                (failure, _) => failure,
            }
        }
        rquickjs::Error::Allocation => Failure::OutOfMemory,
        other => Failure::Internal(other.to_string()),
    }
}

/// V8's words for QuickJS's `invalid redefinition of ...` syntax errors at `place`
/// (`name:line:column` in `script`, the token after the name declared again):
/// `SyntaxError: Identifier 'x' has already been declared`, placed at the name, as Node says it
/// before anything runs.
fn redeclared(message: &str, place: &str, script: &str) -> Option<(String, String)> {
    if !message.starts_with("SyntaxError: invalid redefinition of") {
        return None;
    }
    let mut parts = place.rsplitn(3, ':');
    let column: usize = parts.next()?.parse().ok()?;
    let line: usize = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    let text = script.split('\n').nth(line.checked_sub(1)?)?;
    // Columns count characters (QuickJS's, 1-based).
    let before: String = text.chars().take(column.checked_sub(1)?).collect();
    let trimmed = before.trim_end();
    let start = trimmed
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c == '$' || c == '_' || c.is_alphanumeric())
        .last()
        .map(|(i, _)| i)?;
    let name = &trimmed[start..];
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let at = trimmed[..start].chars().count() + 1;
    Some((
        format!("SyntaxError: Identifier '{name}' has already been declared"),
        format!("{file}:{line}:{at}"),
    ))
}

/// Sorts a thrown value into out of memory, stack overflow or an ordinary exception.
fn classify<'js>(ctx: &Ctx<'js>, thrown: Value<'js>) -> Failure {
    if let Some(object) = thrown.as_object().filter(|o| o.is_error()) {
        let name = string_property(ctx, object, "name").unwrap_or_else(|| "Error".to_owned());
        let message = string_property(ctx, object, "message").unwrap_or_default();
        match (name.as_str(), message.as_str()) {
            ("InternalError", "out of memory") => return Failure::OutOfMemory,
            ("RangeError", "Maximum call stack size exceeded") => return Failure::StackOverflow,
            _ => {}
        }
        let stack = string_property(ctx, object, "stack").filter(|s| !s.is_empty());
        let message = if message.is_empty() {
            name
        } else {
            format!("{name}: {message}")
        };
        return Failure::Threw { message, stack };
    }
    if thrown.type_of() == rquickjs::Type::Uninitialized {
        // Nothing was thrown: QuickJS could not even allocate the "out of memory" error.
        return Failure::OutOfMemory;
    }
    let message = if let Some(s) = thrown.as_string() {
        message_of(ctx, s)
    } else if thrown.is_object() {
        // What `String(value)` says (`[object Object]`, what Node prints for it), then what
        // the object holds.
        let said = match thrown.get::<rquickjs::convert::Coerced<String>>() {
            Ok(s) => Some(s.0),
            Err(_) => {
                ctx.catch();
                None
            }
        };
        let json = match ctx.json_stringify(thrown.clone()) {
            Ok(Some(text)) => text.to_string().ok(),
            _ => {
                ctx.catch();
                None
            }
        };
        match (said, json) {
            (Some(said), Some(json)) if said != json => format!("{said} {json}"),
            (Some(text), _) | (None, Some(text)) => text,
            (None, None) => "a non-error object".to_owned(),
        }
    } else {
        match thrown.get::<rquickjs::convert::Coerced<String>>() {
            Ok(s) => s.0,
            Err(_) => {
                ctx.catch();
                thrown.type_name().to_owned()
            }
        }
    };
    Failure::Threw {
        message,
        stack: None,
    }
}

/// `object[key]` when it is a string; `None` (and the exception cleared) otherwise.
fn string_property<'js>(
    ctx: &Ctx<'js>,
    object: &rquickjs::Object<'js>,
    key: &str,
) -> Option<String> {
    match object.get::<_, Value>(key) {
        Ok(v) => v.as_string().map(|s| message_of(ctx, s)),
        Err(_) => {
            ctx.catch();
            None
        }
    }
}

/// The pml text (`pml_jstext`) of a JavaScript string: exact, lone surrogates included.
pub(crate) fn text_of<'js>(ctx: &Ctx<'js>, s: &rquickjs::String<'js>) -> Option<String> {
    // Fails on lone surrogates only (quickjs writes them as WTF-8).
    if let Ok(text) = s.to_string() {
        return Some(text);
    }
    let json = match ctx.json_stringify(s.clone()) {
        Ok(json) => json?.to_string().ok()?,
        Err(_) => {
            ctx.catch();
            return None;
        }
    };
    serde_json::from_str(&pml_jstext::from_js_json(&json)).ok()
}

/// A JavaScript string as a message for people: lone surrogates as U+FFFD, as Node prints them.
pub(crate) fn message_of<'js>(ctx: &Ctx<'js>, s: &rquickjs::String<'js>) -> String {
    text_of(ctx, s).map_or_else(String::new, |text| pml_jstext::lossy(&text).into_owned())
}
