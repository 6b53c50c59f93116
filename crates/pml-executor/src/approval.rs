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
    /// The arguments. In the plan shown before the run ([`Approver::review`]): as far as they
    /// are known statically (literals, and `args` as given), the parts computed at run time
    /// as `{"$computed": "<expression>"}`; `None` when the call has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Whether the policy requires a human for it.
    pub needs_approval: bool,
    /// In the plan: the call is in a branch, a loop or a local function: it may run once,
    /// several times, or not at all.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub may_run: bool,
    /// In the plan: where the call is (1-based line and column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// In the plan: the read-only tools the program calls before it (in program order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reads_before: Vec<String>,
}

/// The key that marks a computed part of planned arguments (`{"$computed": "n1.content"}`).
pub const COMPUTED: &str = "$computed";

impl SideEffect {
    /// A call about to run (arguments known).
    pub fn call(task_id: String, tool: String, arguments: Value, needs_approval: bool) -> Self {
        SideEffect {
            task_id,
            tool,
            arguments: Some(arguments),
            needs_approval,
            may_run: false,
            line: None,
            column: None,
            reads_before: Vec::new(),
        }
    }

    /// Whether this planned call covers `call`: the same node and tool, and arguments that
    /// match the plan's (a computed part matches any value, the rest must be equal).
    pub fn covers(&self, call: &SideEffect) -> bool {
        self.task_id == call.task_id
            && self.tool == call.tool
            && match (&self.arguments, &call.arguments) {
                (None, _) => true,
                (Some(planned), Some(actual)) => matches(planned, actual),
                (Some(_), None) => false,
            }
    }
}

/// `actual` fits `planned` (see [`SideEffect::covers`]).
fn matches(planned: &Value, actual: &Value) -> bool {
    match (planned, actual) {
        (Value::Object(p), _) if p.len() == 1 && p.contains_key(COMPUTED) => true,
        (Value::Object(p), Value::Object(a)) => {
            p.len() == a.len()
                && p.iter()
                    .all(|(k, pv)| a.get(k).is_some_and(|av| matches(pv, av)))
        }
        (Value::Array(p), Value::Array(a)) => {
            p.len() == a.len() && p.iter().zip(a).all(|(pv, av)| matches(pv, av))
        }
        _ => planned == actual,
    }
}

/// The plan a human approved at once, before the run ([`Approver::review`]): the calls it
/// covers run without asking again; one it does not (not foreseen, or with other arguments)
/// is for the approver to ask about.
#[derive(Debug, Default)]
pub struct ApprovedPlan {
    approved: Mutex<Vec<SideEffect>>,
}

impl ApprovedPlan {
    /// `planned` was approved.
    pub fn approve(&self, planned: &[SideEffect]) {
        let mut approved = self.approved.lock().unwrap_or_else(|p| p.into_inner());
        approved.extend(planned.iter().cloned());
    }

    /// Whether an approved planned call covers `call`.
    pub fn covers(&self, call: &SideEffect) -> bool {
        let approved = self.approved.lock().unwrap_or_else(|p| p.into_inner());
        approved.iter().any(|planned| planned.covers(call))
    }
}

/// The approval hook.
pub trait Approver: Send + Sync {
    /// Before execution: every side-effecting call the program may make (every MCP call node
    /// of the structure not annotated read-only, whether or not its branch will be taken),
    /// with its arguments as far as they are known, whether it may run, and the reads before
    /// it: the plan to approve at once ([`ApprovedPlan`]). Returning `false` cancels the run
    /// before anything runs.
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn planned(arguments: Value) -> SideEffect {
        SideEffect {
            may_run: true,
            ..SideEffect::call("n2".into(), "fs:write".into(), arguments, true)
        }
    }

    #[test]
    fn a_plan_covers_its_calls_with_any_computed_value() {
        let plan = planned(
            json!({"path": {COMPUTED: "args.root + \"/a\""}, "mode": "w", "tags": [1, {COMPUTED: "x"}]}),
        );
        let call = |task: &str, tool: &str, arguments: Value| {
            SideEffect::call(task.into(), tool.into(), arguments, true)
        };
        assert!(plan.covers(&call(
            "n2",
            "fs:write",
            json!({"path": "/r/a", "mode": "w", "tags": [1, {"any": 1}]})
        )));
        // Another literal, another shape, another node or tool: not covered.
        let tags = json!([1, 2]);
        for (task, tool, arguments) in [
            (
                "n2",
                "fs:write",
                json!({"path": "/r/a", "mode": "a", "tags": tags}),
            ),
            (
                "n2",
                "fs:write",
                json!({"path": "/r/a", "mode": "w", "tags": [1]}),
            ),
            (
                "n2",
                "fs:write",
                json!({"path": "/r/a", "mode": "w", "tags": tags, "more": 1}),
            ),
            (
                "n3",
                "fs:write",
                json!({"path": "/r/a", "mode": "w", "tags": tags}),
            ),
            (
                "n2",
                "fs:delete",
                json!({"path": "/r/a", "mode": "w", "tags": tags}),
            ),
        ] {
            assert!(
                !plan.covers(&call(task, tool, arguments.clone())),
                "{task} {tool} {arguments}"
            );
        }
        let approved = ApprovedPlan::default();
        let ok = call(
            "n2",
            "fs:write",
            json!({"path": "/r/b", "mode": "w", "tags": [1, 3]}),
        );
        assert!(!approved.covers(&ok));
        approved.approve(&[plan]);
        assert!(approved.covers(&ok));
    }
}
