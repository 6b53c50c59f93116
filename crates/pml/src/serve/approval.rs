//! Approvals asked of the MCP client: the whole plan once through elicitation, else the run
//! pauses until the `approve` tool continues or ends it.

use rmcp::RoleServer;
use serde_json::{json, Value};

/// Asks the client for approvals: the plan through elicitation, else it pauses the run.
pub(super) struct ClientApprover {
    pub(super) peer: rmcp::Peer<RoleServer>,
    /// The client takes elicitation requests.
    pub(super) elicit: bool,
    /// A run the `approve` tool continues: its plan was approved already.
    pub(super) approved_ahead: bool,
    pub(super) plan: pml_executor::ApprovedPlan,
    /// The plan that paused the run (no elicitation).
    pub(super) paused: std::sync::Mutex<Option<Vec<pml_executor::SideEffect>>>,
}

impl ClientApprover {
    /// Asks the client `question` (a yes or no); `None` when it cannot be asked.
    async fn ask(&self, question: String) -> Option<bool> {
        if !self.elicit {
            return None;
        }
        let params: rmcp::model::ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": question,
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "approve": {
                        "type": "boolean",
                        "title": "Approve",
                        "description": "Let these calls run",
                        "default": false,
                    },
                },
                "required": ["approve"],
            },
        }))
        .ok()?;
        let answer = self.peer.create_elicitation(params).await.ok()?;
        Some(
            answer.action == rmcp::model::ElicitationAction::Accept
                && (answer.content.as_ref())
                    .and_then(|c| c.get("approve"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
        )
    }
}

impl pml_executor::Approver for ClientApprover {
    fn review<'a>(
        &'a self,
        planned: &'a [pml_executor::SideEffect],
    ) -> pml_executor::BoxFuture<'a, bool> {
        Box::pin(async move {
            let asked: Vec<pml_executor::SideEffect> = planned
                .iter()
                .filter(|e| e.needs_approval)
                .cloned()
                .collect();
            if asked.is_empty() {
                return true;
            }
            if self.approved_ahead {
                self.plan.approve(&asked);
                return true;
            }
            let question = format!(
                "The program may make these calls, which need approval:\n{}Run it?",
                crate::run::describe_plan(&asked)
            );
            match self.ask(question).await {
                Some(yes) => {
                    if yes {
                        self.plan.approve(&asked);
                    }
                    yes
                }
                None => {
                    *self.paused.lock().unwrap_or_else(|e| e.into_inner()) = Some(asked);
                    false
                }
            }
        })
    }

    fn approve<'a>(
        &'a self,
        call: &'a pml_executor::SideEffect,
    ) -> pml_executor::BoxFuture<'a, bool> {
        Box::pin(async move {
            if self.plan.covers(call) {
                return true;
            }
            let question = format!(
                "A call the approved plan does not cover: {} with {}. Let it run?",
                call.tool,
                (call.arguments.as_ref())
                    .map(pml_executor::preview)
                    .unwrap_or_default()
            );
            self.ask(question).await.unwrap_or(false)
        })
    }
}
