//! The executor's call journal, kept in the capability store: each call written as it starts
//! and as it ends; on `pml run --resume`, the calls the interrupted run completed answered from
//! its journal, in the order the program makes them, checked by tool and arguments.
//!
//! What must be on disk when: before a call that is not read-only (by its annotations or
//! `--read-only`) goes out, everything journaled before it (the answers of reads, the program's
//! reads of the clock and `Math.random()`) and the call itself as started are committed in one
//! statement; its end is committed before the program sees its answer. So a run killed at any
//! instant knows every change it made, and the reads that decided each of them. An idempotent
//! call is no exception: run again after a kill, it would not be alone again, since the reads
//! before it, answered live, would see what it changed. `idempotentHint` only decides what a
//! resume does with such a call found started and not ended (run it again without asking:
//! `check_uncertain` in `run.rs`). A read-only call changes nothing: its end is queued and
//! written with the next write or at the end of the run, and a read found in flight, or not
//! written at all, is run again on resume; the journal stays in program order, and a read is
//! never missing before a write that came after it.

use std::sync::Mutex;

use pml_executor::{BoxFuture, Journal, JournalCall, Replay, ToolFailure};
use pml_store::{CallState, JournalEntry};
use serde_json::Value;

/// What to do with a call the interrupted run started and may or may not have finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncertain {
    /// Run it again.
    Rerun,
    /// Do not run it: the program's call fails with a message saying why.
    Skip,
}

/// Fault injection for tests (`PML_FAULT_PAUSE_AFTER_CALL=N`, `PML_FAULT_PAUSE_IN_CALL=N`):
/// stop still (so that a test can kill the process there) after the N-th call is written as
/// done, or after it answered but before that is written.
#[derive(Debug, Clone, Copy, Default)]
struct Faults {
    after: Option<u64>,
    within: Option<u64>,
}

impl Faults {
    fn from_env() -> Faults {
        let n = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse().ok());
        Faults {
            after: n("PML_FAULT_PAUSE_AFTER_CALL"),
            within: n("PML_FAULT_PAUSE_IN_CALL"),
        }
    }

    fn pause(&self, which: &str, seq: u64) {
        eprintln!("pml-fault: paused {which} call {seq}");
        loop {
            std::thread::park();
        }
    }
}

/// The writing of a run's start, on the connection its journal then keeps.
pub(crate) type Starting =
    tokio::task::JoinHandle<Result<pml_store::JournalWriter, pml_store::StoreError>>;

/// The connection a run's journal is written on.
enum Writer {
    /// The run's start is being written on it.
    Starting(Starting),
    Ready(pml_store::JournalWriter),
    /// The start could not be written (nothing of this run's journal can be), or the run is
    /// over.
    Failed,
}

pub(crate) struct StoreJournal {
    run_id: String,
    /// Read-only tools: what they answer is queued, not written before the next write.
    read_only: std::collections::HashSet<String>,
    /// Entries not written yet (ends of read-only calls), in program order, and the
    /// connection the journal is written on.
    queue: tokio::sync::Mutex<(Vec<JournalEntry>, Writer)>,
    /// The interrupted run's journal.
    earlier: Earlier,
    uncertain: Option<Uncertain>,
    faults: Faults,
    /// The first store error (said once; the run goes on, without the journal's guarantee).
    failed: Mutex<bool>,
    /// Reads of the clock and `Math.random()` not written yet (with the next write), and how
    /// many were read.
    reads: Mutex<Vec<JournalEntry>>,
    read_count: std::sync::atomic::AtomicI64,
    /// Microseconds the program's calls waited for journal writes.
    waited_us: std::sync::atomic::AtomicU64,
}

/// An earlier run's journal, given out entry by entry: to a resumed run, or to a replay.
pub(crate) struct Earlier(Mutex<Vec<(JournalEntry, bool)>>);

impl Earlier {
    pub(crate) fn new(entries: Vec<JournalEntry>) -> Earlier {
        Earlier(Mutex::new(
            entries.into_iter().map(|e| (e, false)).collect(),
        ))
    }

    /// The first call of the earlier run not given out yet with this tool and these arguments
    /// (the program makes its calls in the same order, but calls made at once may be listed
    /// in another), given out now.
    pub(crate) fn take_call(&self, tool: &str, arguments: &Value) -> Option<JournalEntry> {
        let mut earlier = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let found = (earlier.iter_mut()).find(|(e, used)| {
            !*used && e.seq < READ_SEQ_BASE && e.tool == tool && e.arguments == *arguments
        });
        found.map(|(e, used)| {
            *used = true;
            e.clone()
        })
    }

    /// The earlier run's next read of `what` (the clock, `Math.random()`), given out now.
    pub(crate) fn take_read(&self, what: &str) -> Option<f64> {
        let mut earlier = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let found = (earlier.iter_mut())
            .find(|(e, used)| !*used && e.seq >= READ_SEQ_BASE && e.tool == what);
        found.and_then(|(e, used)| {
            *used = true;
            e.result.as_ref()?.as_f64()
        })
    }
}

/// Reads of the clock and `Math.random()` are journal entries numbered from here, in the
/// order the program made them (calls count from 1: the two never meet).
pub const READ_SEQ_BASE: i64 = 1 << 40;

/// Journal entries (answers of reads, clock and random reads) that wait in memory for the next
/// write at most: past it they are written at once (in one statement).
const MAX_QUEUED: usize = 64;

/// Reads journaled per run at most: a program polling the clock in a loop would otherwise
/// write an entry per turn. Past it, reads are live and not written (said once on stderr).
const MAX_READS: i64 = 10_000;

impl StoreJournal {
    /// The journal of run `run_id`, whose start `starting` is writing (on the connection the
    /// journal then keeps: one connection for the whole run). The program runs meanwhile: the
    /// journal's first write, and its end, wait for the start.
    pub(crate) fn new(
        run_id: String,
        starting: Starting,
        read_only: std::collections::HashSet<String>,
        earlier: Vec<JournalEntry>,
        uncertain: Option<Uncertain>,
    ) -> StoreJournal {
        StoreJournal {
            run_id,
            read_only,
            queue: tokio::sync::Mutex::new((Vec::new(), Writer::Starting(starting))),
            earlier: Earlier::new(earlier),
            uncertain,
            faults: Faults::from_env(),
            failed: Mutex::new(false),
            reads: Mutex::new(Vec::new()),
            read_count: std::sync::atomic::AtomicI64::new(0),
            waited_us: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// How long the program's calls waited for the journal (ms).
    pub(crate) fn waited_ms(&self) -> f64 {
        self.waited_us.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e3
    }

    /// [`StoreJournal::write`], which a call waits for: counted in [`StoreJournal::waited_ms`].
    async fn write_waited(&self, entry: Option<JournalEntry>) {
        let started = std::time::Instant::now();
        self.write(entry).await;
        let us = started.elapsed().as_micros() as u64;
        self.waited_us
            .fetch_add(us, std::sync::atomic::Ordering::Relaxed);
    }

    /// The run's start written (waited for, the first time), and the connection it was
    /// written on: `None` when the start could not be written (said once).
    async fn started<'w>(
        &self,
        writer: &'w mut Writer,
    ) -> Option<&'w mut pml_store::JournalWriter> {
        if let Writer::Starting(starting) = writer {
            *writer = match starting.await {
                Ok(Ok(w)) => Writer::Ready(w),
                Ok(Err(e)) => {
                    self.said(e);
                    Writer::Failed
                }
                Err(e) => {
                    self.said(format!("the run's start was not written: {e}"));
                    Writer::Failed
                }
            };
        }
        match writer {
            Writer::Ready(w) => Some(w),
            Writer::Starting(_) | Writer::Failed => None,
        }
    }

    /// Write what is queued, and `entry` after it.
    async fn write(&self, entry: Option<JournalEntry>) {
        let mut guard = self.queue.lock().await;
        let (queue, writer) = &mut *guard;
        // What the program read before this call: written with it (or before it).
        queue.append(&mut self.reads.lock().unwrap_or_else(|p| p.into_inner()));
        queue.extend(entry);
        if queue.is_empty() {
            return;
        }
        let Some(writer) = self.started(writer).await else {
            return;
        };
        match writer.write(&self.run_id, queue).await {
            Ok(()) => queue.clear(),
            Err(e) => self.said(e),
        }
    }

    /// Write everything still queued (at the end of the run), the run's start included however
    /// little the program did, and give the connection back.
    pub(crate) async fn finish(&self) {
        self.write(None).await;
        let mut guard = self.queue.lock().await;
        let _ = self.started(&mut guard.1).await;
        guard.1 = Writer::Failed;
    }

    fn said(&self, e: impl std::fmt::Display) {
        let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
        if !*failed {
            *failed = true;
            eprintln!(
                "pml: the call journal could not be written ({e}): this run cannot be resumed"
            );
        }
    }
}

fn entry(call: &JournalCall) -> JournalEntry {
    JournalEntry {
        seq: call.seq as i64,
        node: call.node.clone(),
        iteration: call.iteration.clone(),
        tool: call.tool.clone(),
        arguments: call.arguments.clone(),
        state: CallState::Started,
        result: None,
        error: None,
    }
}

impl Journal for StoreJournal {
    fn replay<'a>(&'a self, call: &'a JournalCall) -> BoxFuture<'a, Replay> {
        Box::pin(async move {
            let Some(e) = self.earlier.take_call(&call.tool, &call.arguments) else {
                return Replay::Live;
            };
            match e.state {
                CallState::Done => Replay::Answer(Ok(e.result.clone().unwrap_or(Value::Null))),
                CallState::Failed => {
                    let (message, detail) = e.error.clone().unwrap_or_default();
                    Replay::Answer(Err(ToolFailure { message, detail }))
                }
                // Checked before the run: only read-only or idempotent calls, or what the
                // user chose, get here.
                CallState::Started => match self.uncertain {
                    Some(Uncertain::Skip) => Replay::Answer(Err(ToolFailure::new(format!(
                        "{} was not run again on resume: the interrupted run started it and it may or may not have happened",
                        call.tool
                    )))),
                    _ => Replay::Live,
                },
            }
        })
    }

    fn started<'a>(&'a self, call: &'a JournalCall) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // A read in flight at a kill is run again: nothing to write before it goes out.
            if !self.read_only.contains(&call.tool) {
                self.write_waited(Some(entry(call))).await;
            }
        })
    }

    fn finished<'a>(
        &'a self,
        call: &'a JournalCall,
        outcome: Result<&'a Value, &'a ToolFailure>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if self.faults.within == Some(call.seq) {
                self.faults.pause("inside", call.seq);
            }
            let mut e = entry(call);
            match outcome {
                Ok(value) => {
                    e.state = CallState::Done;
                    e.result = Some(value.clone());
                }
                Err(failure) => {
                    e.state = CallState::Failed;
                    e.error = Some((failure.message.clone(), failure.detail.clone()));
                }
            }
            if self.read_only.contains(&call.tool) && self.faults.after != Some(call.seq) {
                let full = {
                    let mut queue = self.queue.lock().await;
                    queue
                        .0
                        .append(&mut self.reads.lock().unwrap_or_else(|p| p.into_inner()));
                    queue.0.push(e);
                    queue.0.len() >= MAX_QUEUED
                };
                // Bounded: past that many, what waits is written now.
                if full {
                    self.write_waited(None).await;
                }
            } else {
                self.write_waited(Some(e)).await;
            }
            if self.faults.after == Some(call.seq) {
                self.faults.pause("after", call.seq);
            }
        })
    }

    fn read(&self, what: pml_executor::Unrepeatable, live: f64) -> f64 {
        let tool = what.as_str();
        let value = self.earlier.take_read(tool).unwrap_or(live);
        let n = (self.read_count).fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n >= MAX_READS {
            if n == MAX_READS {
                eprintln!(
                    "pml: the program read the clock or Math.random() more than {MAX_READS} times: later reads are not journaled (resumed, they may read other values)"
                );
            }
            return value;
        }
        self.reads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(JournalEntry {
                seq: READ_SEQ_BASE + n,
                node: None,
                iteration: Vec::new(),
                tool: tool.to_owned(),
                arguments: Value::Null,
                state: CallState::Done,
                result: serde_json::Number::from_f64(value).map(Value::Number),
                error: None,
            });
        value
    }
}
