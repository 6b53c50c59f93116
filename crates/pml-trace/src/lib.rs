//! The trace event of a pml run: one type for every stage that touches a trace.
//!
//! **Input / output:** [`TraceEvent`] values, as `pml-executor` records them, and their JSON
//! (`docs/formats.md`, "trace"), as the store keeps them and `pml-learn`, `pml-view` and the
//! facade read them back. Reading borrows the strings of the JSON text where it can
//! ([`TraceEvent<'a>`](TraceEvent) holds [`Cow`]s): learning reads thousands of stored runs.
//!
//! **Invariants:**
//! - One type: what the executor writes is exactly what readers parse, so a field added here
//!   is written and read everywhere (a reader that rewrites a trace, e.g. a called
//!   capability's events as a run of their own, keeps every field).
//! - Writing then reading an event gives the same event (`tests` below); fields a reader does
//!   not know stop nothing (serde skips them), a missing optional field is its default.
//! - No dependency but serde: the executor, the store's readers and the views share it without
//!   depending on each other.
//!
//! ```
//! use pml_trace::{EventKind, TraceEvent};
//!
//! let text = r#"{"event":"tool_end","taskId":"n1","tool":"fs:read","tsMs":2.5,"durationMs":2.0,"success":true}"#;
//! let event: TraceEvent<'_> = serde_json::from_str(text).unwrap();
//! assert_eq!(event.event, EventKind::ToolEnd);
//! assert_eq!(event.task_id.as_deref(), Some("n1"));
//! assert_eq!(serde_json::to_string(&event).unwrap(), text);
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What a [`TraceEvent`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// An operation (an MCP call, a `code:*` operation, a capability call) started.
    ToolStart,
    /// An operation ended: its duration, success, preview or error.
    ToolEnd,
    /// A decision took an outcome.
    Decision,
    /// A `Promise.all` started its branches.
    Fork,
    /// A `Promise.all` settled.
    Join,
    /// At the end: how many times a loop body ran.
    Loop,
    /// A call of a local function: its start, duration and success.
    Call,
    /// At the end: how many times a local function was called.
    Function,
}

impl EventKind {
    /// The name the JSON gives it (`tool_end`).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::ToolStart => "tool_start",
            EventKind::ToolEnd => "tool_end",
            EventKind::Decision => "decision",
            EventKind::Fork => "fork",
            EventKind::Join => "join",
            EventKind::Loop => "loop",
            EventKind::Call => "call",
            EventKind::Function => "function",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind is equal to its JSON name.
impl PartialEq<&str> for EventKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One trace event (`docs/formats.md`, "trace"). The executor's events are
/// `TraceEvent<'static>` (owned strings); readers borrow from the JSON they parse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceEvent<'a> {
    pub event: EventKind,
    /// The structure's node id (`n3`, `d1`, `l2`): the ids `pml analyze` prints. `None` for a
    /// call the structure has no node for (then `line`/`column` say where it was made).
    #[serde(borrow)]
    pub task_id: Option<Cow<'a, str>>,
    /// The physical task that ran it, when different (a fused task).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub physical_task_id: Option<Cow<'a, str>>,
    /// `server:tool`, `code:<op>` or `capability:<name>` (empty for decisions, forks, joins,
    /// loops, calls and functions).
    #[serde(borrow, default, skip_serializing_if = "str::is_empty")]
    pub tool: Cow<'a, str>,
    /// Inside loops (and callbacks run per element) and local functions: the index of the
    /// iteration (or call) of each enclosing loop or function, outermost first. For a `loop`
    /// event: the iterations of the loops around it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iteration: Vec<u32>,
    /// Where an operation without a node was made (1-based, in the program's file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// `decision`: the outcome taken (`true`/`false`, `case:<value>`, `default`).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Cow<'a, str>>,
    /// `loop`: how many times the body ran; `function`: how many times it was called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// An MCP call started ahead of the program (speculation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative: Option<bool>,
    /// With `speculative`: whether the program took it (made the same call, which it
    /// answered). A call not taken was still received by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken: Option<bool>,
    /// An MCP call answered from the journal of the run being resumed (not run again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
    /// An event of a capability the program called: the capability's name (`taskId` is a
    /// node of its program).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<Cow<'a, str>>,
    /// With `capability`: the node of the call in the caller, with its iteration in brackets
    /// when in a loop (`n4`, `n4[2]`); through nested capabilities, each caller's outermost
    /// first, `/`-separated (`n4/n2`).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<Cow<'a, str>>,
    /// Milliseconds since the run started.
    #[serde(default)]
    pub ts_ms: f64,
    /// `tool_end` and `call`: how long it took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    /// `tool_end` of a success: the start of the result's JSON text.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Cow<'a, str>>,
    /// `tool_end` of a failure: why.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Cow<'a, str>>,
}

impl<'a> TraceEvent<'a> {
    /// An event of `kind` at `ts_ms`, with nothing else set.
    pub fn new(event: EventKind, task_id: Option<&str>, ts_ms: f64) -> TraceEvent<'static> {
        TraceEvent {
            event,
            task_id: task_id.map(|id| Cow::Owned(id.to_owned())),
            physical_task_id: None,
            tool: Cow::Borrowed(""),
            iteration: Vec::new(),
            line: None,
            column: None,
            outcome: None,
            iterations: None,
            speculative: None,
            taken: None,
            replayed: None,
            capability: None,
            parent: None,
            ts_ms,
            duration_ms: None,
            success: None,
            preview: None,
            error: None,
        }
    }

    /// An operation's start or end (`tool_start`, `tool_end`).
    pub fn is_operation(&self) -> bool {
        matches!(self.event, EventKind::ToolStart | EventKind::ToolEnd)
    }

    /// A speculative call the program did not make: received by the server, not part of what
    /// the program did.
    pub fn not_taken(&self) -> bool {
        self.taken == Some(false)
    }
}

/// One outcome a decision took in a run: the store keeps a run's decisions, in the order they
/// were taken, beside its trace (`[{taskId, outcome, iteration, capability?}]`), and learning
/// and `pml diff` read them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision<'a> {
    /// The decision node (`d1`).
    #[serde(borrow, default)]
    pub task_id: Option<Cow<'a, str>>,
    /// As [`TraceEvent::outcome`].
    #[serde(borrow, default)]
    pub outcome: Option<Cow<'a, str>>,
    #[serde(default)]
    pub iteration: Vec<u32>,
    /// A decision inside a capability the program called: its name.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<Cow<'a, str>>,
}

impl<'a> TraceEvent<'a> {
    /// The decision a `decision` event reports (`None` for other events).
    pub fn decision(&self) -> Option<Decision<'a>> {
        (self.event == EventKind::Decision).then(|| Decision {
            task_id: self.task_id.clone(),
            outcome: self.outcome.clone(),
            iteration: self.iteration.clone(),
            capability: self.capability.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field set: written, then read back, then written again, byte for byte.
    #[test]
    fn an_event_reads_back_as_it_was_written() {
        let event = TraceEvent {
            physical_task_id: Some("n2+n3".into()),
            tool: "code:filter".into(),
            iteration: vec![1, 0],
            line: Some(3),
            column: Some(9),
            outcome: Some("case:\"a\"".into()),
            iterations: Some(4),
            speculative: Some(true),
            taken: Some(false),
            replayed: Some(true),
            capability: Some("gauge".into()),
            parent: Some("c2[1]/c1".into()),
            duration_ms: Some(1.25),
            success: Some(false),
            preview: Some("[1,2]".into()),
            error: Some("boom\n\u{1F600}".into()),
            ..TraceEvent::new(EventKind::ToolEnd, Some("n2"), 7.5)
        };
        let text = serde_json::to_string(&event).unwrap();
        let back: TraceEvent<'_> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, event);
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }

    /// What is not set is not written, but `taskId` (`null` for a call without a node).
    #[test]
    fn only_set_fields_are_written() {
        let event = TraceEvent::new(EventKind::Decision, None, 1.0);
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"event":"decision","taskId":null,"tsMs":1.0}"#
        );
        let bare: TraceEvent<'_> = serde_json::from_str(r#"{"event":"loop","more":1}"#).unwrap();
        assert_eq!(bare, TraceEvent::new(EventKind::Loop, None, 0.0));
        assert!(serde_json::from_str::<TraceEvent<'_>>(r#"{"event":"nope"}"#).is_err());
    }

    #[test]
    fn decisions_are_written_with_their_iteration() {
        let event = TraceEvent {
            outcome: Some("false".into()),
            ..TraceEvent::new(EventKind::Decision, Some("d1"), 1.0)
        };
        let decision = event.decision().unwrap();
        assert_eq!(
            serde_json::to_string(&decision).unwrap(),
            r#"{"taskId":"d1","outcome":"false","iteration":[]}"#
        );
        assert_eq!(
            TraceEvent::new(EventKind::Loop, Some("l1"), 1.0).decision(),
            None
        );
    }

    #[test]
    fn kinds_are_their_json_names() {
        for kind in [
            EventKind::ToolStart,
            EventKind::ToolEnd,
            EventKind::Decision,
            EventKind::Fork,
            EventKind::Join,
            EventKind::Loop,
            EventKind::Call,
            EventKind::Function,
        ] {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
            assert!(kind == kind.as_str());
        }
    }
}
