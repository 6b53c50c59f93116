//! Traces: `tool_start`/`tool_end` events per logical operation, and the executed path.

use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

/// How many characters of a result a trace event keeps.
pub const PREVIEW_CHARS: usize = 200;

/// One trace event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceEvent {
    /// `tool_start` or `tool_end`.
    pub event: &'static str,
    /// The logical task id (`n3`; `call-2` for a call made in sandbox mode).
    pub task_id: String,
    /// The physical task that ran it, when different (a fused task).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physical_task_id: Option<String>,
    /// `server:tool` or `code:<op>`.
    pub tool: String,
    /// Milliseconds since the run started.
    pub ts_ms: f64,
    /// `tool_end` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    /// `tool_end` of a success: the start of the result's JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// `tool_end` of a failure: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Collects events and the executed path; shared by the tasks of one run.
pub(crate) struct Tracer {
    started: Instant,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    events: Vec<TraceEvent>,
    path: Vec<String>,
}

/// One logical operation being traced.
pub(crate) struct Op<'a> {
    pub task_id: &'a str,
    pub physical_task_id: Option<&'a str>,
    pub tool: &'a str,
}

impl Tracer {
    pub(crate) fn new(started: Instant) -> Self {
        Tracer {
            started,
            inner: Mutex::new(Inner::default()),
        }
    }

    pub(crate) fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1e3
    }

    pub(crate) fn start(&self, op: &Op<'_>) -> f64 {
        let ts = self.elapsed_ms();
        self.push(TraceEvent {
            event: "tool_start",
            task_id: op.task_id.to_owned(),
            physical_task_id: op.physical_task_id.map(str::to_owned),
            tool: op.tool.to_owned(),
            ts_ms: ts,
            duration_ms: None,
            success: None,
            preview: None,
            error: None,
        });
        ts
    }

    /// Ends an operation started at `since` (ms); adds it to the executed path.
    pub(crate) fn end(&self, op: &Op<'_>, since: f64, outcome: Result<Option<&Value>, &str>) {
        let ts = self.elapsed_ms();
        let (success, preview, error) = match outcome {
            Ok(value) => (true, value.map(preview), None),
            Err(e) => (false, None, Some(e.to_owned())),
        };
        let event = TraceEvent {
            event: "tool_end",
            task_id: op.task_id.to_owned(),
            physical_task_id: op.physical_task_id.map(str::to_owned),
            tool: op.tool.to_owned(),
            ts_ms: ts,
            duration_ms: Some(ts - since),
            success: Some(success),
            preview,
            error,
        };
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.events.push(event);
        inner.path.push(op.tool.to_owned());
    }

    fn push(&self, event: TraceEvent) {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .events
            .push(event);
    }

    /// Takes the events and the path recorded so far.
    pub(crate) fn take(&self) -> (Vec<TraceEvent>, Vec<String>) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let inner = std::mem::take(&mut *inner);
        (inner.events, inner.path)
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
