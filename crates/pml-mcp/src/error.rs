//! Why a server or a tool call failed. Every message names the server (and the tool when
//! there is one) and the cause, and ends with the tail of the server's stderr when it said
//! anything.

use std::fmt;

/// A failed start, call or listing. Cheap to clone: a server that failed to start keeps its
/// error and hands a copy (with the calling tool filled in) to every later call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error(
        "unknown mcp server `{server}`{} (configured: {}{})",
        ForTool(tool),
        list(known),
        In(origin)
    )]
    UnknownServer {
        server: String,
        tool: Option<String>,
        known: Vec<String>,
        /// The config file the servers come from, if any.
        origin: Option<String>,
    },
    #[error(
        "mcp server `{server}`{} could not be started{}: cannot run `{command}`: {cause}",
        From(origin),
        ForTool(tool)
    )]
    Spawn {
        server: String,
        tool: Option<String>,
        command: String,
        cause: String,
        origin: Option<String>,
    },
    #[error(
        "mcp server `{server}`{} failed to initialize{}: {cause}{}",
        From(origin),
        ForTool(tool),
        Tail(stderr_tail)
    )]
    Initialize {
        server: String,
        tool: Option<String>,
        cause: String,
        stderr_tail: String,
        origin: Option<String>,
    },
    #[error(
        "mcp tool `{server}.{tool}` timed out after {after_ms} ms (--timeout-ms raises the limit){}",
        Tail(stderr_tail)
    )]
    Timeout {
        server: String,
        tool: String,
        after_ms: u64,
        stderr_tail: String,
    },
    #[error(
        "mcp server `{server}` crashed during tool `{tool}`: {cause}{}",
        Tail(stderr_tail)
    )]
    Crashed {
        server: String,
        tool: String,
        cause: String,
        stderr_tail: String,
    },
    #[error(
        "mcp server `{server}` broke the protocol during tool `{tool}`: {cause}{}",
        Tail(stderr_tail)
    )]
    Protocol {
        server: String,
        tool: String,
        cause: String,
        stderr_tail: String,
    },
    /// The tool answered with `isError: true`; `message` is its text content.
    #[error("mcp tool `{server}.{tool}` returned an error: {message}")]
    Tool {
        server: String,
        tool: String,
        message: String,
    },
    /// The server answered `tools/call` with a JSON-RPC error object.
    #[error("mcp tool `{server}.{tool}` failed: json-rpc error {code}: {message}")]
    Rpc {
        server: String,
        tool: String,
        code: i32,
        message: String,
    },
    /// [`McpClients::shutdown`](crate::McpClients::shutdown) ran (or the clients were
    /// dropped) before or during the call.
    #[error("mcp server `{server}` was shut down{}", ForTool(tool))]
    Closed {
        server: String,
        tool: Option<String>,
    },
}

impl McpError {
    /// The server the error is about.
    pub fn server(&self) -> &str {
        match self {
            McpError::UnknownServer { server, .. }
            | McpError::Spawn { server, .. }
            | McpError::Initialize { server, .. }
            | McpError::Timeout { server, .. }
            | McpError::Crashed { server, .. }
            | McpError::Protocol { server, .. }
            | McpError::Tool { server, .. }
            | McpError::Rpc { server, .. }
            | McpError::Closed { server, .. } => server,
        }
    }

    /// A start error (stored once per server) as seen by a call of `tool`.
    pub(crate) fn for_tool(mut self, name: Option<&str>) -> Self {
        if let McpError::UnknownServer { tool, .. }
        | McpError::Spawn { tool, .. }
        | McpError::Initialize { tool, .. }
        | McpError::Closed { tool, .. } = &mut self
        {
            *tool = name.map(str::to_owned);
        }
        self
    }
}

struct ForTool<'a>(&'a Option<String>);

impl fmt::Display for ForTool<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(tool) => write!(f, " (calling tool `{tool}`)"),
            None => Ok(()),
        }
    }
}

/// ` (from FILE)`: the config file a server comes from.
struct From<'a>(&'a Option<String>);

impl fmt::Display for From<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(file) => write!(f, " (from {file})"),
            None => Ok(()),
        }
    }
}

/// ` in FILE`.
struct In<'a>(&'a Option<String>);

impl fmt::Display for In<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(file) => write!(f, " in {file}"),
            None => Ok(()),
        }
    }
}

struct Tail<'a>(&'a str);

impl fmt::Display for Tail<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "\nserver stderr (last lines):\n{}", self.0)
        }
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
