//! The call journal: where a run writes each call of the program as it starts and as it ends,
//! and from which a resumed run is answered (the facade keeps it in the capability store).
//!
//! The executor asks the journal about every call the program makes, in the order the program
//! makes them, before anything else (approval, speculation): a call the interrupted run
//! completed is answered from the journal, never run again. Otherwise the journal hears that
//! the call starts (before it goes out: a run killed then knows the call may have happened) and
//! how it ended. The program's reads of the clock and of `Math.random()` go through it too
//! ([`Journal::read`]): a resumed run reads the values the interrupted one read.

use std::sync::Arc;

use pml_sandbox::{Reads, Unrepeatable};
use serde_json::Value;

use crate::host::{BoxFuture, ToolFailure};

/// One call of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalCall {
    /// Its place among the program's calls, from 1, in the order the program made them.
    pub seq: u64,
    /// The structure's node id of the call site, when it has one.
    pub node: Option<String>,
    pub iteration: Vec<u32>,
    /// `server:tool`.
    pub tool: String,
    pub arguments: Value,
}

/// What the journal says about a call before it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Replay {
    /// The interrupted run completed this call: its answer.
    Answer(Result<Value, ToolFailure>),
    /// Run it.
    Live,
}

/// A run's call journal (see the module doc).
pub trait Journal: Send + Sync {
    /// Whether the call was completed by the run being resumed.
    fn replay<'a>(&'a self, call: &'a JournalCall) -> BoxFuture<'a, Replay>;
    /// The call is about to go out. Returns when that is written down.
    fn started<'a>(&'a self, call: &'a JournalCall) -> BoxFuture<'a, ()>;
    /// The call ended (also for an answer taken from a speculative call, or replayed).
    fn finished<'a>(
        &'a self,
        call: &'a JournalCall,
        outcome: Result<&'a Value, &'a ToolFailure>,
    ) -> BoxFuture<'a, ()>;
    /// The program read `what` (the clock, `Math.random()`), `live` being the value now: the
    /// value it gets (resuming: the interrupted run's read at the same place, in order), to
    /// be written down no later than the program's next call. Called on the sandbox's thread
    /// while the program waits: no I/O here. By default the live value, not kept.
    fn read(&self, what: Unrepeatable, live: f64) -> f64 {
        let _ = what;
        live
    }
}

/// A journal as the sandbox's hook for the program's reads.
pub(crate) struct JournalReads(pub Arc<dyn Journal>);

impl Reads for JournalReads {
    fn read(&self, what: Unrepeatable, live: f64) -> f64 {
        self.0.read(what, live)
    }
}
