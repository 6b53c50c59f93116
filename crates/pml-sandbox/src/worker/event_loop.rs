//! Program mode on the worker: the `mcp` object, the one native function behind it, and the
//! event loop that runs the program's promise jobs and feeds it the host's answers.
//!
//! The program's context gets one native function, which never becomes a global: it is an
//! argument of [`SETUP`], whose closures keep it, the table of unsettled calls and the
//! `JSON.stringify` and `Error` they use (taken before any program code runs, so a program that
//! replaces globals changes nothing here). The program sees only `mcp`, and no code can reach
//! those closures' variables.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rquickjs::{Array, Ctx, Exception, FromJs, Function, IntoJs, Value};

use super::{failure, settled, to_json, Failure, Phase, TaskClock};
use crate::bytecode;
use crate::program::{AnswerLine, Answers, Event, HostAnswer, HostCall, Inbound};

/// Builds `mcp` around the native `call(server, tool, argumentsJson) -> id` and returns
/// `[mcp, settle]`, where `settle(id, ok, payload)` resolves call `id` with `payload` or rejects
/// it with an `Error` whose message is `payload`.
///
/// `mcp` and each server object are proxies over a frozen empty object: a string key names a
/// server (a tool), the same object each time, except `then`, `toJSON`, `toString` and
/// `valueOf`, which `await`, `JSON.stringify` and conversions to strings and numbers probe:
/// they are `undefined`, like symbol keys, so probing never makes a call. Writes fail, `in` and
/// key listings find nothing. A tool is `(arguments) => Promise`; it never throws: arguments
/// that are not JSON make a rejected promise (a `TypeError`). The error a call rejects with is
/// made when the call is, so its stack points at the program's line that made the call.
pub(super) const SETUP: &str = r#"(function (call, replacer) {
  const Err = Error;
  const TypeErr = TypeError;
  const capture = typeof Err.captureStackTrace === "function" ? Err.captureStackTrace : undefined;
  const P = Promise;
  const Px = Proxy;
  const stringify = JSON.stringify;
  const create = Object.create;
  const freeze = Object.freeze;
  const pending = create(null);
  const reserved = create(null);
  reserved.then = reserved.toJSON = reserved.toString = reserved.valueOf = true;
  const isName = (key) => typeof key === "string" && reserved[key] !== true;
  const rejected = (error) => new P((resolve, reject) => reject(error));

  const tool = (server, name) => {
    // Every error it makes gets the program's stack: frames from `invoke` on are left out.
    const invoke = (args) => {
      let id;
      try {
        const text = args === undefined ? "{}" : stringify(args, replacer);
        if (typeof text !== "string") {
          throw new TypeErr("nothing to send");
        }
        id = call(server, name, text);
      } catch (e) {
        if (!(e instanceof TypeErr)) return rejected(e);
        const error = new TypeErr(`the arguments of ${server}.${name} are not json: ${e.message}`);
        if (capture !== undefined) capture(error, invoke);
        return rejected(error);
      }
      const error = new Err("");
      if (capture !== undefined) capture(error, invoke);
      return new P((resolve, reject) => {
        pending[id] = { resolve, reject, error };
      });
    };
    return invoke;
  };

  const table = (make) => {
    const made = create(null);
    return new Px(freeze(create(null)), {
      __proto__: null,
      get(target, key) {
        if (!isName(key)) return undefined;
        const known = made[key];
        return known !== undefined ? known : (made[key] = make(key));
      },
    });
  };

  const mcp = table((server) => table((name) => tool(server, name)));

  const settle = (id, ok, payload) => {
    const entry = pending[id];
    if (entry === undefined) return;
    delete pending[id];
    if (ok) {
      entry.resolve(payload);
    } else {
      entry.error.message = payload;
      entry.reject(entry.error);
    }
  };

  return [mcp, settle];
})"#;

/// One program's connection to its caller and its host.
pub(crate) struct Link {
    /// Issues the [`Answers`] handle sent with each call.
    pub line: Arc<AnswerLine>,
    /// Answers (and the caller's cancel).
    pub inbox: Receiver<Inbound>,
    /// To the caller: calls, phases, the outcome.
    pub events: Sender<Event>,
}

/// The time limit as execution time: it runs down only while the worker runs JavaScript.
pub(crate) struct Budget {
    /// What was left when the current slice started (or when the worker started waiting).
    remaining: Duration,
    /// When the current slice started; `None` while waiting for answers.
    since: Option<Instant>,
}

impl Budget {
    /// `limit` of execution time, the first slice starting at `start`.
    pub(crate) fn new(start: Instant, limit: Duration) -> Budget {
        Budget {
            remaining: limit,
            since: Some(start),
        }
    }

    /// When the current slice must end (`None` while waiting, or if too far to represent).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.since
            .and_then(|since| since.checked_add(self.remaining))
    }

    /// Whether the current slice has run past what was left.
    pub(crate) fn over(&self) -> bool {
        self.since
            .is_some_and(|since| since.elapsed() > self.remaining)
    }

    /// Ends the current slice; what is left.
    fn pause(&mut self) -> Duration {
        if let Some(since) = self.since.take() {
            self.remaining = self.remaining.saturating_sub(since.elapsed());
        }
        self.remaining
    }

    /// Starts a slice at `now`.
    fn resume(&mut self, now: Instant) {
        self.since = Some(now);
    }
}

/// The state behind the native function: the calls made and where they go.
struct Calls {
    /// The last id given out.
    last: Cell<u64>,
    /// Ids of calls made and not answered yet.
    outstanding: RefCell<HashSet<u64>>,
    events: Sender<Event>,
    line: Arc<AnswerLine>,
    /// Set when a call could not be sent: the caller is gone.
    caller_gone: Cell<bool>,
}

impl Calls {
    /// The native `call(server, tool, argumentsJson)`: sends the call, returns its id.
    fn call(
        &self,
        ctx: &Ctx<'_>,
        server: String,
        tool: String,
        text: &str,
    ) -> rquickjs::Result<f64> {
        // `JSON.stringify` output, but serde is stricter (lone surrogates, nesting past 128).
        // The tool function adds which call it was to the message.
        let arguments: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Exception::throw_type(ctx, &e.to_string()))?;
        let id = self.last.get() + 1;
        self.last.set(id);
        let call = HostCall {
            id,
            server,
            tool,
            arguments,
        };
        if self
            .events
            .send(Event::Call(call, Answers::issue(&self.line)))
            .is_err()
        {
            self.caller_gone.set(true);
            return Err(Exception::throw_internal(ctx, "the host is gone"));
        }
        self.outstanding.borrow_mut().insert(id);
        // Exact: a run cannot make 2^53 calls.
        Ok(id as f64)
    }
}

/// The compiled scripts a program run needs, and its limits' state.
pub(crate) struct Program<'a> {
    /// Bytecode of [`SETUP`].
    pub setup: &'a [u8],
    /// Bytecode of `(async function () {SOURCE\n})`.
    pub wrapper: &'a [u8],
    /// `args` as JSON text.
    pub args: &'a str,
    pub link: &'a Link,
    pub budget: &'a mut Budget,
    pub clock: &'a TaskClock,
}

/// Runs the program in `ctx` (a fresh program context) to the end: its result as JSON text.
pub(crate) fn run_in<'js>(
    ctx: &Ctx<'js>,
    program: Program<'_>,
    replacer: Function<'js>,
) -> Result<String, Failure> {
    let Program {
        setup,
        wrapper,
        args,
        link,
        budget,
        clock,
    } = program;
    let run = |e| failure(ctx, e, Phase::Run);
    let calls = Rc::new(Calls {
        last: Cell::new(0),
        outstanding: RefCell::new(HashSet::new()),
        events: link.events.clone(),
        line: link.line.clone(),
        caller_gone: Cell::new(false),
    });
    let native = {
        let calls = calls.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, server: String, tool: String, text: String| {
                calls.call(&ctx, server, tool, &text)
            },
        )
        .map_err(run)?
    };
    let made: Array = bytecode::run(ctx, setup)
        .and_then(|v| Function::from_js(ctx, v))
        .and_then(|setup| setup.call((native, replacer.clone())))
        .map_err(run)?;
    let mcp: Value = made.get(0).map_err(run)?;
    let settle: Function = made.get(1).map_err(run)?;
    let globals = ctx.globals();
    globals.set("mcp", mcp).map_err(run)?;
    let args: Value = ctx.json_parse(args).map_err(run)?;
    globals.set("args", args).map_err(run)?;

    let result: Value = bytecode::run(ctx, wrapper)
        .and_then(|v| Function::from_js(ctx, v))
        .and_then(|program| program.call(()))
        .map_err(run)?;
    // Not a promise only if the source closed the wrapper and made it something else.
    let Some(promise) = result.as_promise().cloned() else {
        return to_json(ctx, result, replacer);
    };
    let value = loop {
        while ctx.execute_pending_job() {
            if budget.over() || clock.interrupted.get() {
                return Err(Failure::Interrupted);
            }
        }
        if calls.caller_gone.get() {
            return Err(Failure::Internal("the caller stopped listening".to_owned()));
        }
        if let Some(outcome) = settled(ctx, &promise) {
            break outcome?;
        }
        if calls.outstanding.borrow().is_empty() {
            return Err(Failure::Stalled);
        }
        for (id, answer) in wait(link, &calls, budget, clock)? {
            let (ok, payload) = match answer {
                Ok(value) => {
                    let text = serde_json::to_string(&value).map_err(|e| {
                        Failure::Internal(format!("cannot serialise an answer: {e}"))
                    })?;
                    (true, ctx.json_parse(text).map_err(run)?)
                }
                Err(message) => (false, message.into_js(ctx).map_err(run)?),
            };
            settle
                .call::<_, ()>((id as f64, ok, payload))
                .map_err(run)?;
        }
    };
    to_json(ctx, value, replacer)
}

/// The answers to some outstanding calls: those already in the inbox, or else the next ones to
/// come, the clock stopped meanwhile (the caller is told both when it stops and when it starts
/// again).
fn wait(
    link: &Link,
    calls: &Calls,
    budget: &mut Budget,
    clock: &TaskClock,
) -> Result<Vec<(u64, HostAnswer)>, Failure> {
    let caller_gone = |_| Failure::Internal("the caller stopped listening".to_owned());
    let mut answers = Vec::new();
    drain(link, calls, &mut answers)?;
    if !answers.is_empty() {
        return Ok(answers);
    }

    let left = budget.pause();
    clock.deadline.set(None);
    if left.is_zero() {
        return Err(Failure::Interrupted);
    }
    link.events.send(Event::Waiting).map_err(caller_gone)?;
    while answers.is_empty() {
        // No handle left: only the answers already in the inbox can come (see `AnswerLine`).
        if link.line.handles() == 0 {
            drain(link, calls, &mut answers)?;
            if answers.is_empty() {
                return Err(Failure::Unanswered(calls.outstanding.borrow().len()));
            }
            break;
        }
        let message = link
            .inbox
            .recv()
            .map_err(|_| Failure::Internal("the answer channel closed".to_owned()))?;
        accept(message, calls, &mut answers)?;
        drain(link, calls, &mut answers)?;
    }

    let now = Instant::now();
    budget.resume(now);
    clock.deadline.set(budget.deadline());
    link.events
        .send(Event::Running(left))
        .map_err(caller_gone)?;
    Ok(answers)
}

/// Takes everything already in the inbox.
fn drain(link: &Link, calls: &Calls, answers: &mut Vec<(u64, HostAnswer)>) -> Result<(), Failure> {
    loop {
        match link.inbox.try_recv() {
            Ok(message) => accept(message, calls, answers)?,
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => return Ok(()),
        }
    }
}

/// Keeps the first answer to each outstanding call; a cancel ends the run.
fn accept(
    message: Inbound,
    calls: &Calls,
    answers: &mut Vec<(u64, HostAnswer)>,
) -> Result<(), Failure> {
    match message {
        Inbound::Answer(id, answer) => {
            if calls.outstanding.borrow_mut().remove(&id) {
                answers.push((id, answer));
            }
        }
        // `wait` checks the count itself.
        Inbound::HandlesGone => {}
        Inbound::Cancel => return Err(Failure::Interrupted),
    }
    Ok(())
}
