//! Where MCP calls go: the [`ToolHost`] trait, implemented for [`McpClients`] (real servers)
//! and by in-process hosts in tests and benchmarks (faults, latency, no-op tools).

use std::future::Future;
use std::pin::Pin;

use pml_mcp::{McpClients, McpError, ToolInfo};
use serde_json::Value;

pub use crate::order::Turn;

/// A boxed, sendable future (the trait is object-safe without an extra crate).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailure {
    /// The message of the `Error` the program's `await` throws: for a tool that answered
    /// `isError: true`, its text content (what the program would see running directly).
    pub message: String,
    /// The whole story for people: server, tool, cause, the server's stderr tail.
    pub detail: String,
}

impl ToolFailure {
    /// A failure whose message and detail are the same text.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        ToolFailure {
            message: text.clone(),
            detail: text,
        }
    }
}

/// The program sees the message Node's MCP client (`@modelcontextprotocol/sdk`) rejects with
/// for the same failure: a tool's own error text, `MCP error <code>: <message>` for a JSON-RPC
/// error, its time-out and closed-connection errors; pml's fuller account goes to the trace.
impl From<McpError> for ToolFailure {
    fn from(e: McpError) -> Self {
        let detail = e.to_string();
        let message = match e {
            McpError::Tool { message, .. } => message,
            McpError::Rpc { code, message, .. } => format!("MCP error {code}: {message}"),
            McpError::Timeout { .. } => "MCP error -32001: Request timed out".to_owned(),
            McpError::Crashed { .. } | McpError::Protocol { .. } => {
                "MCP error -32000: Connection closed".to_owned()
            }
            McpError::Closed { .. } => "Not connected".to_owned(),
            _ => return ToolFailure::new(detail),
        };
        ToolFailure { message, detail }
    }
}

impl ToolFailure {
    /// A call that failed before its request was on its way: to a server whose connection
    /// already broke, Node's client rejects with `Not connected`.
    fn unsent(e: McpError) -> Self {
        match e {
            McpError::Crashed { .. } | McpError::Protocol { .. } => ToolFailure {
                detail: e.to_string(),
                message: "Not connected".to_owned(),
            },
            e => e.into(),
        }
    }
}

/// Runs `mcp.<server>.<tool>(arguments)` calls.
pub trait ToolHost: Send + Sync {
    /// The value the program's `await` gives (the value rule of `pml_mcp::CallOutcome`), or
    /// why the call rejects. `turn` is dropped once the request is on its way to the server
    /// (or the call failed before): the program's next call to that server waits for it, so
    /// calls reach a server in the order the program made them.
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
        turn: Turn,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>>;

    /// The server's tools (schemas and annotations), starting the server if needed.
    fn tools<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Vec<ToolInfo>, String>>;
}

impl ToolHost for McpClients {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
        turn: Turn,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let sent = self.send(server, tool, arguments).await;
            drop(turn);
            Ok(sent.map_err(ToolFailure::unsent)?.value().await?)
        })
    }

    fn tools<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Vec<ToolInfo>, String>> {
        Box::pin(async move { self.list_tools(server).await.map_err(|e| e.to_string()) })
    }
}

/// `server:tool` -> (`server`, `tool`).
pub(crate) fn split_tool(tool: &str) -> (&str, &str) {
    tool.split_once(':').unwrap_or((tool, ""))
}
