//! Approvals: which calls need a human, and the hook that asks.
//!
//! A tool needs approval when the permission config says `hil` for it, or, when no rule of
//! the config matches it, when its server annotates it `destructiveHint: true` (the MCP
//! default for a tool that is not read-only). Pure operations never ask.

use std::sync::Mutex;

use pml_structure::{Approval, Permissions};
use serde::Serialize;
use serde_json::Value;

use crate::host::BoxFuture;

/// A side-effecting call the program may make (before the run) or is about to make.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideEffect {
    /// The call's node id in the structure (empty for a call the structure has no node for,
    /// e.g. inside a local function).
    pub task_id: String,
    /// `server:tool`.
    pub tool: String,
    /// The arguments, when known (`None` in the list shown before the run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Whether the policy requires a human for it.
    pub needs_approval: bool,
}

/// The approval hook.
pub trait Approver: Send + Sync {
    /// Before execution: every side-effecting call the program may make (every MCP call node
    /// of the structure not annotated read-only, whether or not its branch will be taken).
    /// Returning `false` cancels the run before anything runs.
    fn review<'a>(&'a self, planned: &'a [SideEffect]) -> BoxFuture<'a, bool> {
        let _ = planned;
        Box::pin(async { true })
    }

    /// Just before a call that needs approval runs: `true` lets it run, `false` fails it.
    fn approve<'a>(&'a self, call: &'a SideEffect) -> BoxFuture<'a, bool>;
}

/// Approves everything (`--approve auto`).
pub struct AutoApprove;

impl Approver for AutoApprove {
    fn approve<'a>(&'a self, _: &'a SideEffect) -> BoxFuture<'a, bool> {
        Box::pin(async { true })
    }
}

/// Denies every call that needs approval (`--approve deny`); other calls run.
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve<'a>(&'a self, _: &'a SideEffect) -> BoxFuture<'a, bool> {
        Box::pin(async { false })
    }
}

/// Records what it was asked and answers from a fixed rule (for tests and embedding).
pub struct Recording {
    allow: bool,
    pub reviewed: Mutex<Vec<SideEffect>>,
    pub asked: Mutex<Vec<SideEffect>>,
}

impl Recording {
    pub fn new(allow: bool) -> Self {
        Recording {
            allow,
            reviewed: Mutex::new(Vec::new()),
            asked: Mutex::new(Vec::new()),
        }
    }
}

impl Approver for Recording {
    fn review<'a>(&'a self, planned: &'a [SideEffect]) -> BoxFuture<'a, bool> {
        if let Ok(mut r) = self.reviewed.lock() {
            r.extend(planned.iter().cloned());
        }
        Box::pin(async { true })
    }

    fn approve<'a>(&'a self, call: &'a SideEffect) -> BoxFuture<'a, bool> {
        if let Ok(mut a) = self.asked.lock() {
            a.push(call.clone());
        }
        let allow = self.allow;
        Box::pin(async move { allow })
    }
}

/// Which tools need a human: the permission config first, then the annotations.
#[derive(Debug, Clone, Default)]
pub struct ApprovalPolicy {
    pub permissions: Option<Permissions>,
}

impl ApprovalPolicy {
    /// Does `tool` (`server:tool`) need approval? `destructive` is its `destructiveHint`
    /// (with the MCP default applied), `None` when the tool is not known.
    pub fn needs_approval(&self, tool: &str, destructive: Option<bool>) -> bool {
        if tool.starts_with("code:") {
            return false;
        }
        match self.permissions.as_ref().and_then(|p| p.approval(tool)) {
            Some(Approval::Hil) => true,
            Some(Approval::Auto) => false,
            None => destructive.unwrap_or(false),
        }
    }
}
