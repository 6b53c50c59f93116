//! The types of program mode ([`Sandbox::run_program`](crate::Sandbox::run_program)) and the
//! channels between the caller, the worker running the program and whoever answers its calls.
//!
//! Three parties: the *worker* runs the program's JavaScript and sends [`Event`]s (calls, phase
//! changes, the outcome) to the *caller*, the thread inside `run_program`, which hands each call
//! to `on_call` and keeps the watchdog's clock; the *host* (any thread, e.g. tokio tasks) answers
//! through [`Answers`], straight into the worker's inbox ([`Inbound`]).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::worker::Outcome;

/// One call the program made: `mcp.<server>.<tool>(<arguments>)`, or
/// `capabilities.<tool>(<arguments>)` ([`HostCall::capability`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// Unique within one run, counting from 1 in the order the calls were made: what
    /// [`Answers::answer`] names.
    pub id: u64,
    /// A call of another capability, `capabilities.<tool>(...)` (then `server` is empty).
    pub capability: bool,
    /// The property read on `mcp`: any string but `then`, `toJSON`, `toString` and `valueOf`
    /// (which read as `undefined`, so that `await` and conversions do not make calls).
    pub server: String,
    /// The property read on the server object (on `capabilities`: the capability's name): any
    /// string but the same four.
    pub tool: String,
    /// The call's argument as `JSON.stringify(a || {})` makes it (`{}` when it was called
    /// without one, `null` when there is nothing to send, e.g. a function), strings in pml
    /// text (`pml_jstext`). Any JSON value: the sandbox does not check that it is an object.
    pub arguments: serde_json::Value,
    /// In an instrumented program ([`ProgramTask::probes`]): the probe of the call's site
    /// (`P.s(k, ...)`), 0 for a call made elsewhere.
    pub site: u32,
    /// The iteration vector at the site (empty outside loops).
    pub iteration: Vec<u32>,
    /// For a call without a site: the program's stack where it was made (to say where).
    pub stack: Option<String>,
}

/// The host's answer to a call: the value `await` gives, or an error message the call rejects
/// with (as `new Error(message)`, whose stack is the call's site in the program).
pub type HostAnswer = Result<serde_json::Value, String>;

/// A program: what [`Sandbox::run_program`](crate::Sandbox::run_program) runs.
#[derive(Debug, Clone, Copy)]
pub struct ProgramTask<'a> {
    /// Names the program in messages (`program main.js threw: ...`) and is the file name in its
    /// stack traces, e.g. `program` or the agent's file name.
    pub name: &'a str,
    /// The body of an async function, in plain JavaScript (strict mode): top-level `await` and
    /// `return` are allowed. Line N of the source is line N in stack traces.
    pub source: &'a str,
    /// The value of the global `args`.
    pub args: &'a serde_json::Value,
    /// An instrumented program: the name of the probe object its source reads (see
    /// [`Report`]), a parameter of an outer function around the program's (never one of the
    /// program's arguments, nor a global). The name must be a secret of the run: a program
    /// that knew it could reach the probes through `eval`. `None`: a plain program.
    pub probes: Option<&'a str>,
    /// Probes of operations whose whole value the host wants (reported as
    /// [`Reported::Value`] when it is plain data).
    pub values: &'a [u32],
    /// Sees (and may answer) each read of the clock and of `Math.random()` the program makes
    /// (a journal: what a resumed run reads again). `None`: the program reads them as usual.
    pub reads: Option<&'a Arc<dyn Reads>>,
    /// With [`ProgramTask::probes`]: what `Function.prototype.toString` shows for a function of
    /// the program (its text as written, without the probes). `None`: such functions show as
    /// native code (never the probes, nor the probe object's name).
    pub originals: Option<&'a Arc<dyn OriginalText>>,
    /// Ends the run from outside when aborted (an interrupt, a wall-clock limit), whatever the
    /// program is doing. `None`: only [`Answers::abort`] ends it, when the program next waits.
    pub abort: Option<&'a Abort>,
}

/// The program as written, for the text of one of its functions in the instrumented source.
pub trait OriginalText: Send + Sync {
    /// `text` (a slice of the instrumented source: a function's text) as the program has it;
    /// `None` if it is not one.
    fn original(&self, text: &str) -> Option<String>;

    /// V8's message for error `fault` the program's code threw at (`line`, `column`) of the
    /// source the sandbox ran (1-based: the first line holds the wrapper), naming what the
    /// program's text names there (`o.list.map is not a function`); `None` keeps the engine's.
    /// `operation`: the innermost operation under way (its probe and iteration: started, not
    /// ended) in an instrumented program.
    fn culprit(
        &self,
        fault: Fault,
        line: usize,
        column: usize,
        operation: Option<(u32, &[u32])>,
    ) -> Option<String> {
        let _ = (fault, line, column, operation);
        None
    }
}

/// An error the engine throws whose V8 message names the program's text at its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// A call of something that is not a function.
    NotAFunction,
    /// `new` of something that is not a constructor.
    NotAConstructor,
    /// An iteration (`for ... of`, a spread) over a value that is not iterable; `nullish`: it
    /// is `undefined` or `null`; `null`: it is `null`.
    NotIterable { nullish: bool, null: bool },
    /// Nothing to convert to an object where the program's code is (an object pattern given
    /// `undefined` or `null`).
    NotAnObject,
    /// A write to what cannot be written (`'total' is read-only`): a `const`, or a read-only
    /// property.
    ReadOnly,
}

impl fmt::Debug for dyn OriginalText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OriginalText")
    }
}

/// What a program reads that differs from one run to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unrepeatable {
    /// The clock: `Date.now()`, `new Date()` (no argument), `Date()`; milliseconds since the
    /// epoch.
    Clock,
    /// `Math.random()`.
    Random,
}

impl Unrepeatable {
    /// `Date.now` or `Math.random`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unrepeatable::Clock => "Date.now",
            Unrepeatable::Random => "Math.random",
        }
    }
}

/// Hears every read of an [`Unrepeatable`] value as the program makes it, on the worker's
/// thread (the program waits: keep it short), and says what the program gets.
pub trait Reads: Send + Sync {
    /// The value the program's read of `what` gets, `live` being what it reads now: `live`,
    /// or the value an earlier run read at the same place.
    fn read(&self, what: Unrepeatable, live: f64) -> f64;
}

impl fmt::Debug for dyn Reads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reads")
    }
}

/// What an instrumented program reported, with when (the worker's clock).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub at: Instant,
    pub what: Reported,
}

/// What the probes of an instrumented program report (the probe numbers and iteration vectors
/// are the program's own: `pml_structure`'s `instrument` module says what they mean).
#[derive(Debug, Clone, PartialEq)]
pub enum Reported {
    /// An operation ran from `started` to the report's time: `P.b` then `P.e`. `ok` is false
    /// for one that started and never ended (it threw); its end is when that was noticed.
    Operation {
        probe: u32,
        iteration: Vec<u32>,
        started: Instant,
        ok: bool,
        /// The start of the value, JSON-like (bounded, and read without running program code).
        preview: Option<String>,
    },
    /// The whole value of an operation the host asked for ([`ProgramTask::values`]), when it
    /// is plain data (JSON as `JSON.stringify` would give it, read without running program
    /// code; nothing is reported for other values). Comes right after its `Operation`.
    Value {
        probe: u32,
        iteration: Vec<u32>,
        value: serde_json::Value,
    },
    /// At the end of a run that stopped (an uncaught throw, a limit): an operation that started
    /// and never ended, outermost first (the last one is where the program was).
    Unfinished {
        probe: u32,
        iteration: Vec<u32>,
        started: Instant,
    },
    /// At the end of a run that stopped: the loop body it entered last (where a program that
    /// ran out of time most likely spun).
    LastLoop { probe: u32, iteration: Vec<u32> },
    /// A decision took outcome `outcome` (1/0 for true/false; a switch: the case index, -1 for
    /// `default`).
    Outcome {
        probe: u32,
        iteration: Vec<u32>,
        outcome: i64,
    },
    /// A fork started (`Promise.all` called).
    Fork { probe: u32, iteration: Vec<u32> },
    /// A join settled: resolved (`ok`) or rejected.
    Join {
        probe: u32,
        iteration: Vec<u32>,
        ok: bool,
    },
    /// At the end: how many times a loop body (or fork callback) ran under one iteration
    /// vector of the loops around it.
    Iterations {
        probe: u32,
        iteration: Vec<u32>,
        count: u32,
    },
    /// `console.<level>(...)`: the arguments formatted and joined by spaces.
    Console { level: ConsoleLevel, text: String },
    /// At the end: how many operations ran past the first [`crate::REPORTED_OPERATIONS`],
    /// unreported (neither start, end nor value).
    Unreported { operations: u64 },
    /// Something reached the reporting functions that no probe reports (an iteration vector
    /// that is not one, too deep...): the instrumentation cannot be trusted any more.
    Invalid { why: String },
}

/// The `console` method called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConsoleLevel {
    Log,
    Info,
    Warn,
    Error,
    Debug,
}

impl ConsoleLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            ConsoleLevel::Log => "log",
            ConsoleLevel::Info => "info",
            ConsoleLevel::Warn => "warn",
            ConsoleLevel::Error => "error",
            ConsoleLevel::Debug => "debug",
        }
    }

    pub(crate) fn from_code(code: i64) -> ConsoleLevel {
        match code {
            1 => ConsoleLevel::Info,
            2 => ConsoleLevel::Warn,
            3 => ConsoleLevel::Error,
            4 => ConsoleLevel::Debug,
            _ => ConsoleLevel::Log,
        }
    }
}

/// Where the host sends the answers to one run's calls. Cheap to clone, `Send + Sync`; every
/// [`HostCall`] comes with one.
///
/// Each call must get exactly one answer, from any thread, at any time and in any order;
/// answers to unknown ids, second answers and answers after the run has ended are ignored. If
/// every handle of a run is dropped while calls are still unanswered, the run fails with
/// [`SandboxError::Internal`](crate::SandboxError::Internal) instead of waiting forever.
pub struct Answers {
    line: Arc<AnswerLine>,
}

impl Answers {
    /// A new handle on `line`, counted (see [`AnswerLine::handles`]).
    pub(crate) fn issue(line: &Arc<AnswerLine>) -> Answers {
        line.handles.fetch_add(1, Ordering::AcqRel);
        Answers { line: line.clone() }
    }

    /// Settles call `id`: `Ok(value)` resolves it with `value`, `Err(message)` rejects it with
    /// `new Error(message)`. Never blocks; does nothing once the run has ended.
    pub fn answer(&self, id: u64, answer: HostAnswer) {
        // A closed inbox means the run is over: nobody wants the answer any more.
        let _ = self.line.inbox.send(Inbound::Answer(id, answer));
    }

    /// Ends the run (the host's limits: wall clock, number of calls): the program fails with
    /// [`SandboxError::Aborted`](crate::SandboxError::Aborted) the next time it waits for an
    /// answer. Does nothing once the run has ended.
    pub fn abort(&self) {
        self.line.abort();
    }
}

/// Ends a program's run from outside whatever the program is doing: waiting for answers or for
/// a timer, or running its own JavaScript (the engine stops it at its next interrupt check,
/// every 10,000 ticks). Made before the run ([`ProgramTask::abort`]), so a run can be ended
/// before it makes any call; once aborted, the run fails with
/// [`SandboxError::Aborted`](crate::SandboxError::Aborted), at its start if it had not started.
#[derive(Clone, Default)]
pub struct Abort(Arc<AbortState>);

#[derive(Default)]
struct AbortState {
    requested: AtomicBool,
    /// The run's line, once it started.
    line: Mutex<Option<Arc<AnswerLine>>>,
}

impl Abort {
    pub fn new() -> Abort {
        Abort::default()
    }

    /// Ends the run (see [`Abort`]). Does nothing once the run has ended.
    pub fn abort(&self) {
        self.0.requested.store(true, Ordering::Release);
        let line = self.0.line.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(line) = line.as_ref() {
            line.abort();
        }
    }

    /// Whether [`Abort::abort`] was called.
    pub fn requested(&self) -> bool {
        self.0.requested.load(Ordering::Acquire)
    }

    /// The run on `line` starts: an abort reaches it from now on (or at once, if it came
    /// before).
    pub(crate) fn attach(&self, line: &Arc<AnswerLine>) {
        let mut attached = self.0.line.lock().unwrap_or_else(PoisonError::into_inner);
        *attached = Some(line.clone());
        if self.requested() {
            line.abort();
        }
    }
}

impl fmt::Debug for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Abort")
            .field("requested", &self.requested())
            .finish()
    }
}

impl Clone for Answers {
    fn clone(&self) -> Self {
        Answers::issue(&self.line)
    }
}

impl Drop for Answers {
    fn drop(&mut self) {
        // The last handle: wake the worker in case it waits for answers that cannot come now.
        // Every answer sent through any handle was sent before this.
        if self.line.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _ = self.line.inbox.send(Inbound::HandlesGone);
        }
    }
}

impl fmt::Debug for Answers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Answers")
            .field("handles", &self.line.handles())
            .finish()
    }
}

/// The sending side of one run's inbox, shared by its [`Answers`] handles, the caller (who
/// cancels through it) and the worker (who issues the handles).
pub(crate) struct AnswerLine {
    inbox: Sender<Inbound>,
    /// [`Answers`] handles alive. Only the worker creates handles from nothing (one per call,
    /// before the call leaves), so when this is 0, no answer can come any more but those
    /// already in the inbox.
    handles: AtomicUsize,
    /// Set when the host ends the run: the worker's interrupt handler reads it, so that a
    /// program running its own JavaScript stops too.
    aborted: AtomicBool,
}

impl AnswerLine {
    pub(crate) fn new(inbox: Sender<Inbound>) -> AnswerLine {
        AnswerLine {
            inbox,
            handles: AtomicUsize::new(0),
            aborted: AtomicBool::new(false),
        }
    }

    /// Ends the run: it stops running JavaScript at the engine's next interrupt check, and a
    /// wait for answers or timers ends at once.
    pub(crate) fn abort(&self) {
        self.aborted.store(true, Ordering::Release);
        let _ = self.inbox.send(Inbound::Abort);
    }

    pub(crate) fn aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }

    pub(crate) fn handles(&self) -> usize {
        self.handles.load(Ordering::Acquire)
    }

    /// Tells the worker to give up the run if it is waiting for answers.
    pub(crate) fn cancel(&self) {
        let _ = self.inbox.send(Inbound::Cancel);
    }
}

/// What reaches a worker running a program, besides its job.
pub(crate) enum Inbound {
    /// The host's answer to call `id`.
    Answer(u64, HostAnswer),
    /// The last [`Answers`] handle was dropped (perhaps long ago: check
    /// [`AnswerLine::handles`]).
    HandlesGone,
    /// The caller has given up on the run (its time is up).
    Cancel,
    /// The host ends the run.
    Abort,
}

/// What a worker running a program tells the caller, in this order: calls and phase changes,
/// then exactly one `Done`.
pub(crate) enum Event {
    /// The program made a call; the handle is for its answer.
    Call(HostCall, Answers),
    /// What the probes of an instrumented program reported since the last batch.
    Reports(Vec<Report>),
    /// The worker stopped running JavaScript to wait for answers: its clock is stopped.
    Waiting,
    /// The worker runs JavaScript again (or handled the program's calls for a while, which is
    /// not counted), with this much of its time limit left.
    Running(Duration),
    /// The run is over.
    Done(Outcome),
}
