//! The MCP client of the tracing executor.
//!
//! **Input:** an [`McpConfig`] in the format MCP clients already use
//! (`{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}`), and calls
//! `(server, tool, arguments)` as `mcp.server.tool(arguments)` makes them.
//! **Output:** [`CallOutcome`]s (the value a program sees, per the value rule of
//! [`CallOutcome::from_result`], plus the `CallToolResult` as the server wrote it: keys and
//! numbers untouched by rmcp's typed model, see `wire.rs`), [`ToolInfo`]s (schemas and
//! annotations for the analysis), or an [`McpError`] naming the server, the tool and the
//! cause, with the tail of the server's stderr.
//!
//! Servers are stdio child processes driven by the official Rust SDK (`rmcp` client). Each
//! is spawned on first use, initialized and asked for `tools/list`; different servers start
//! concurrently, two first calls to one server spawn it once.
//!
//! **Invariants:** no child process outlives [`McpClients`]: [`McpClients::shutdown`] closes
//! stdin, waits, sends SIGTERM then SIGKILL to the server's process group and waits until it
//! is reaped; dropping [`McpClients`] (or a cancelled start) sends SIGKILL at once. A server
//! that crashes, hangs past [`ClientOptions::call_timeout`], never starts, or writes
//! something other than JSON-RPC on stdout fails the call with an error instead of hanging:
//! stdout is relayed line by line and checked, since rmcp itself skips unparsable lines.
//! Start-up banners on stdout before `initialize` completes are tolerated (and shown in the
//! stderr tail). Only this crate (with the executor above it) touches processes.
//!
//! **Strings** in arguments and results are *pml text* (`pml_jstext`): a lone surrogate is
//! written to the server as the `\udXXX` escape Node's SDK writes (`JSON.stringify`), and one
//! a server writes is kept exactly. Both pipes are relayed line by line for that (rmcp's JSON
//! is serde's, which cannot hold a lone surrogate).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use pml_mcp::{ClientOptions, McpClients, McpConfig};
//! let config = McpConfig::from_json(
//!     r#"{"mcpServers": {"everything": {"command": "node",
//!         "args": ["mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"]}}}"#,
//! )?;
//! let clients = McpClients::new(config, ClientOptions::default());
//! let echoed = clients
//!     .call_value("everything", "echo", serde_json::json!({"message": "hi"}))
//!     .await?;
//! assert_eq!(echoed, "Echo: hi");
//! clients.shutdown().await;
//! # Ok(()) }
//! ```

mod client;
mod config;
mod error;
mod outcome;
mod process;
mod wire;

pub use client::{ClientOptions, McpClients, SentCall};
pub use config::{ConfigError, McpConfig, ServerConfig, DEFAULT_CONFIG_TEMPLATE};
pub use error::McpError;
pub use outcome::{CallOutcome, ToolAnnotations, ToolInfo};
pub use process::{relay_from_js_json, relay_js_json};
