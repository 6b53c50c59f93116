//! `pml replay RUN_ID [FILE]`: a program run against a recorded run's answers, no server
//! started: for trying an edited program offline on what the servers said once.
//!
//! The program (the recorded one, or `FILE`) runs as `pml run` runs it (instrumented, in the
//! sandbox, traced) with the recorded run's `args` (unless others are given), and a journal
//! that answers every call from the recorded run's journal: the first recorded call with the
//! same tool and arguments not answered yet, with what it answered (or how it failed). A call
//! the recorded run did not make (or did not finish) fails, as a call to a server that is not
//! there would, with a message that says so; the program may catch it. Its reads of the clock
//! and of `Math.random()` get the recorded values, in order. Nothing is approved, written or
//! recorded: no call goes out.

use std::path::Path;
use std::sync::{Arc, Mutex};

use pml_executor::{
    AutoApprove, BoxFuture, ExecuteOptions, Journal, JournalCall, Replay, ToolFailure, ToolHost,
    Turn,
};
use pml_mcp::ToolInfo;
use pml_store::{CallState, JournalEntry, Store};
use serde_json::Value;

use crate::journal::Earlier;
use crate::run::{Analyzed, ProgramSource, RunOutput, RunSetupError, StageTimings};
use crate::{dialect_for, ToolCatalog};

/// What a replay did: the run's output, the recorded run, and the calls the recorded run could
/// not answer (`tool` with its arguments, in the order the program made them).
pub struct Replayed {
    pub output: RunOutput,
    pub recorded: pml_store::Run,
    pub unanswered: Vec<String>,
    /// How many calls the recorded run answered.
    pub answered: usize,
}

impl Replayed {
    /// Whether the program gave what the recorded run gave (its result, or both failed).
    pub fn same_result(&self) -> bool {
        let report = &self.output.report;
        match (report.ok, self.recorded.ok) {
            (true, true) => {
                !self.recorded.result_truncated && report.result == self.recorded.result
            }
            (false, false) => true,
            _ => false,
        }
    }
}

/// Replays run `id` of `store` (see the module doc): `file`'s program instead of the recorded
/// one, and `args` instead of the recorded ones, when given.
pub async fn replay(
    store: &Store,
    id: &str,
    file: Option<&Path>,
    args: Option<Value>,
) -> Result<Replayed, RunSetupError> {
    let setup = |e: pml_store::StoreError| RunSetupError::Setup(e.to_string());
    let (full, start) = store.run_start(id).await.map_err(setup)?;
    let recorded = store.run(&full).await.map_err(setup)?;
    let source = match file {
        Some(file) => ProgramSource::read(file)?,
        None => {
            let place = start.file.clone().unwrap_or_else(|| format!("run {full}"));
            ProgramSource {
                dialect: dialect_for(Path::new(&place)),
                place,
                file: None,
                text: start.source.clone(),
            }
        }
    };
    let analyzed = Analyzed::of(source)?;
    if analyzed.analysis.calls_capabilities() {
        return Err(RunSetupError::Setup(format!(
            "{}: the program calls capabilities, which a replay does not run (their calls would go out): replay the capability's own run instead",
            analyzed.source.place
        )));
    }
    let program = (analyzed.analysis).program(&ToolCatalog::default(), None, true);
    let journal = Arc::new(RecordedAnswers {
        earlier: Earlier::new(recorded.journal.clone()),
        run: full.clone(),
        answered: Mutex::new(0),
        unanswered: Mutex::new(Vec::new()),
    });
    let sandbox = Arc::new(
        pml_sandbox::Sandbox::new(pml_sandbox::SandboxOptions::default())
            .map_err(|e| RunSetupError::Setup(format!("cannot start the sandbox: {e}")))?,
    );
    let options = ExecuteOptions {
        args: args.unwrap_or_else(|| start.args.clone()),
        // No server: nothing to start ahead, calls answered in the program's order.
        speculate: false,
        journal: Some(journal.clone()),
        ..ExecuteOptions::default()
    };
    let executed_at = std::time::SystemTime::now();
    let report = pml_executor::execute(
        &program,
        Arc::new(NoServers),
        Arc::new(AutoApprove),
        sandbox,
        &options,
    )
    .await;
    let output = RunOutput {
        report,
        stages: StageTimings::default(),
        program,
        run_id: None,
        warnings: Vec::new(),
        trace_context: None,
        executed_at,
    };
    let unanswered =
        std::mem::take(&mut *journal.unanswered.lock().unwrap_or_else(|p| p.into_inner()));
    let answered = *journal.answered.lock().unwrap_or_else(|p| p.into_inner());
    Ok(Replayed {
        output,
        recorded,
        unanswered,
        answered,
    })
}

/// The recorded run's journal as the replay's: it answers every call (see the module doc).
struct RecordedAnswers {
    earlier: Earlier,
    run: String,
    answered: Mutex<usize>,
    unanswered: Mutex<Vec<String>>,
}

impl Journal for RecordedAnswers {
    fn replay<'a>(&'a self, call: &'a JournalCall) -> BoxFuture<'a, Replay> {
        Box::pin(async move {
            let entry: Option<JournalEntry> = self.earlier.take_call(&call.tool, &call.arguments);
            let answer = match entry {
                Some(e) if e.state == CallState::Done => Ok(e.result.unwrap_or(Value::Null)),
                Some(e) if e.state == CallState::Failed => {
                    let (message, detail) = e.error.unwrap_or_default();
                    Err(ToolFailure { message, detail })
                }
                started_or_none => {
                    let why = match started_or_none {
                        Some(_) => "started it and did not finish it",
                        None => "did not make it",
                    };
                    let said = format!(
                        "{} with {}",
                        call.tool,
                        pml_executor::preview(&call.arguments)
                    );
                    self.unanswered
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(said);
                    return Replay::Answer(Err(ToolFailure::new(format!(
                        "the recorded run {} {why} (this tool with these arguments), so a replay has no answer for it",
                        self.run
                    ))));
                }
            };
            *self.answered.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            Replay::Answer(answer)
        })
    }

    fn started<'a>(&'a self, _: &'a JournalCall) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }

    fn finished<'a>(
        &'a self,
        _: &'a JournalCall,
        _: Result<&'a Value, &'a ToolFailure>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }

    fn read(&self, what: pml_executor::Unrepeatable, live: f64) -> f64 {
        self.earlier.take_read(what.as_str()).unwrap_or(live)
    }
}

/// The host of a replay: there is no server (every call is answered by the journal first).
struct NoServers;

impl ToolHost for NoServers {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        _: Value,
        _: Turn,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            Err(ToolFailure::new(format!(
                "{server}:{tool}: no server runs in a replay"
            )))
        })
    }

    fn tools<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Vec<ToolInfo>, String>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
