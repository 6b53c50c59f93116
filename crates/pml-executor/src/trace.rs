//! Traces: `tool_start`/`tool_end` events per logical operation (`decision`, `fork`, `join`
//! and `loop` events besides), and the executed path.

use std::borrow::Cow;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

pub use pml_trace::{EventKind, TraceEvent};

/// How many characters of a result a trace event keeps.
pub const PREVIEW_CHARS: usize = 200;

/// How many events a run's trace keeps at most (with the executed path, the host's memory of a
/// run that loops for long). Past it, events are counted, not kept: the report says how many
/// (`droppedEvents`); the executed path still gets every MCP and capability call.
pub const MAX_EVENTS: usize = 250_000;

// A program's operations stop being reported only once they filled the trace (two events each).
const _: () = assert!(2 * pml_sandbox::REPORTED_OPERATIONS as usize >= MAX_EVENTS);

/// Collects events and the executed path; shared by the tasks of one run.
pub(crate) struct Tracer {
    started: Instant,
    inner: Mutex<Inner>,
    /// Told of each event as it is recorded ([`crate::ExecuteOptions::on_event`]).
    observer: Option<Observer>,
}

/// See [`crate::ExecuteOptions::on_event`].
pub type Observer = std::sync::Arc<dyn Fn(&TraceEvent<'static>) + Send + Sync>;

#[derive(Default)]
struct Inner {
    events: Vec<TraceEvent<'static>>,
    /// (end time, tool) of each operation that ended.
    path: Vec<(f64, String)>,
    /// Events past [`MAX_EVENTS`], not kept.
    dropped: u64,
}

impl Inner {
    fn push(&mut self, event: TraceEvent<'static>) {
        match self.events.len() < MAX_EVENTS {
            true => self.events.push(event),
            false => self.dropped += 1,
        }
    }

    /// Adds `tool` to the executed path: every call, and operations while the trace keeps
    /// events.
    fn path(&mut self, until: f64, tool: &str) {
        if self.events.len() < MAX_EVENTS || !tool.starts_with("code:") {
            self.path.push((until, tool.to_owned()));
        }
    }
}

/// One logical operation being traced.
#[derive(Default)]
pub(crate) struct Op<'a> {
    pub task_id: Option<&'a str>,
    pub physical_task_id: Option<&'a str>,
    pub tool: &'a str,
    pub iteration: &'a [u32],
    /// Where a call without a node was made.
    pub at: Option<(usize, usize)>,
    /// Answered by speculation.
    pub speculative: bool,
    /// Answered from the journal.
    pub replayed: bool,
}

/// An event of `kind` for the operation `op`.
fn event_of(kind: EventKind, op: &Op<'_>, ts_ms: f64) -> TraceEvent<'static> {
    TraceEvent {
        physical_task_id: op.physical_task_id.map(|id| Cow::Owned(id.to_owned())),
        tool: Cow::Owned(op.tool.to_owned()),
        iteration: op.iteration.to_vec(),
        line: op.at.map(|(line, _)| line),
        column: op.at.map(|(_, column)| column),
        speculative: op.speculative.then_some(true),
        taken: op.speculative.then_some(true),
        replayed: op.replayed.then_some(true),
        ..TraceEvent::new(kind, op.task_id, ts_ms)
    }
}

/// See [`Tracer::pending`].
pub(crate) struct Pending<'t> {
    tracer: &'t Tracer,
    /// The end to record if the answer never comes (its `ts_ms`: the start).
    ended: Option<TraceEvent<'static>>,
}

impl Pending<'_> {
    /// The answer came: the caller ends the operation.
    pub(crate) fn answered(mut self) {
        self.ended = None;
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        let Some(mut event) = self.ended.take() else {
            return;
        };
        let since = event.ts_ms;
        let until = self.tracer.elapsed_ms();
        event.ts_ms = until;
        event.duration_ms = Some(until - since);
        event.success = Some(false);
        event.error = Some("cancelled: the run stopped before its answer".into());
        // In the executed path: the call went out (the server may have acted on it).
        self.tracer.observe(&event);
        let mut inner = self.tracer.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.path(until, &event.tool);
        inner.push(event);
    }
}

impl Tracer {
    pub(crate) fn new(started: Instant) -> Self {
        Tracer {
            started,
            inner: Mutex::new(Inner::default()),
            observer: None,
        }
    }

    /// A tracer for a nested run (a capability call): the same clock, events of its own.
    pub(crate) fn child(&self) -> Self {
        Tracer {
            observer: self.observer.clone(),
            ..Tracer::new(self.started)
        }
    }

    /// With `observer` told of each event as it is recorded.
    pub(crate) fn observed(self, observer: Option<Observer>) -> Self {
        Tracer { observer, ..self }
    }

    fn observe(&self, event: &TraceEvent<'static>) {
        if let Some(observer) = &self.observer {
            observer(event);
        }
    }

    /// Takes in what `child` traced, its events marked as the capability `name`'s, under the
    /// call `parent` (its events of nested capabilities under `parent/...`).
    pub(crate) fn absorb(&self, child: &Tracer, parent: &str, name: &str) {
        let taken = std::mem::take(&mut *child.inner.lock().unwrap_or_else(|p| p.into_inner()));
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        for mut event in taken.events {
            event.parent = Some(match event.parent.take() {
                Some(inner) => format!("{parent}/{inner}").into(),
                None => parent.to_owned().into(),
            });
            event
                .capability
                .get_or_insert_with(|| name.to_owned().into());
            inner.push(event);
        }
        inner.dropped += taken.dropped;
        for (until, tool) in taken.path {
            inner.path(until, &tool);
        }
    }

    pub(crate) fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1e3
    }

    /// Milliseconds from the start of the run to `at`.
    pub(crate) fn ms_at(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.started).as_secs_f64() * 1e3
    }

    /// An operation started at `since` (ms), recorded after the fact.
    pub(crate) fn start_at(&self, op: &Op<'_>, since: f64) {
        self.push(event_of(EventKind::ToolStart, op, since));
    }

    pub(crate) fn start(&self, op: &Op<'_>) -> f64 {
        let ts = self.elapsed_ms();
        self.push(event_of(EventKind::ToolStart, op, ts));
        ts
    }

    /// Starts an operation that began at `since` (ms), before it was traced: a read started
    /// ahead of the program, which the program takes now. Its events show when it really ran.
    pub(crate) fn started_at(&self, op: &Op<'_>, since: f64) -> f64 {
        self.push(event_of(EventKind::ToolStart, op, since));
        since
    }

    /// Ends an operation started at `since` (ms); adds it to the executed path.
    pub(crate) fn end(&self, op: &Op<'_>, since: f64, outcome: Result<Option<&Value>, &str>) {
        let (success, preview, error) = match outcome {
            Ok(value) => (true, value.map(preview), None),
            Err(e) => (false, None, Some(e.to_owned())),
        };
        self.ended(op, since, self.elapsed_ms(), success, preview, error);
    }

    /// An operation that ran from `since` to `until` (ms), both events at once (reported by
    /// the program's probes after the fact); adds it to the executed path.
    pub(crate) fn ended(
        &self,
        op: &Op<'_>,
        since: f64,
        until: f64,
        success: bool,
        preview: Option<String>,
        error: Option<String>,
    ) {
        let event = TraceEvent {
            duration_ms: Some(until - since),
            success: Some(success),
            preview: preview.map(Into::into),
            error: error.map(Into::into),
            ..event_of(EventKind::ToolEnd, op, until)
        };
        self.observe(&event);
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.path(until, op.tool);
        inner.push(event);
    }

    /// A speculative call `op` the program did not take, from `since` to `until` (ms), failed
    /// with `error` if it did: traced (`"taken": false`), not in the executed path (the
    /// program did not make it).
    pub(crate) fn untaken(
        &self,
        op: &Op<'_>,
        since: f64,
        until: f64,
        error: Option<crate::ToolFailure>,
    ) {
        let start = TraceEvent {
            taken: Some(false),
            ..event_of(EventKind::ToolStart, op, since)
        };
        let end = TraceEvent {
            taken: Some(false),
            duration_ms: Some(until - since),
            success: Some(error.is_none()),
            error: error.map(|e| e.detail.into()),
            ..event_of(EventKind::ToolEnd, op, until)
        };
        self.push(start);
        self.push(end);
    }

    /// A guard for the operation `op` started at `since`: dropped before
    /// [`Pending::answered`], it ends the operation as cancelled (its call was dropped: the
    /// run was interrupted or stopped at a limit).
    pub(crate) fn pending(&self, op: &Op<'_>, since: f64) -> Pending<'_> {
        Pending {
            tracer: self,
            ended: Some(event_of(EventKind::ToolEnd, op, since)),
        }
    }

    /// Records `event` as it is.
    pub(crate) fn push(&self, event: TraceEvent<'static>) {
        self.observe(&event);
        (self.inner.lock().unwrap_or_else(|p| p.into_inner())).push(event);
    }

    /// Counts `n` events as not kept: those of the operations the program ran without
    /// reporting them ([`pml_sandbox::REPORTED_OPERATIONS`]), past a full trace.
    pub(crate) fn not_kept(&self, n: u64) {
        (self.inner.lock().unwrap_or_else(|p| p.into_inner())).dropped += n;
    }

    /// Forgets the events and the executed path so far (what an instrumentation that cannot be
    /// trusted reported).
    pub(crate) fn clear(&self) {
        *self.inner.lock().unwrap_or_else(|p| p.into_inner()) = Inner::default();
    }

    /// Takes the events (by time), the executed path (by completion time) and the number of
    /// events not kept ([`MAX_EVENTS`]) so far.
    pub(crate) fn take(&self) -> (Vec<TraceEvent<'static>>, Vec<String>, u64) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut inner = std::mem::take(&mut *inner);
        // Stable: events recorded at the same time keep their order (a start before its end).
        inner.events.sort_by(|a, b| a.ts_ms.total_cmp(&b.ts_ms));
        inner.path.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path = inner.path.into_iter().map(|(_, tool)| tool).collect();
        (inner.events, path, inner.dropped)
    }
}

/// The first [`PREVIEW_CHARS`] characters of a value's JSON text (`…` when cut).
pub fn preview(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
