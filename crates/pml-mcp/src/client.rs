//! [`McpClients`]: one lazily started rmcp client per configured server.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, CustomRequest, Implementation, ProtocolVersion, RequestId,
    ServerResult,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestHandle, RunningService, ServiceError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::time::Instant;

use crate::process::{Health, Killer, Process, Signal};
use crate::wire::{RawResults, Wire};
use crate::{CallOutcome, McpConfig, McpError, ServerConfig, ToolInfo};

/// Time limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest a `tools/call` may take (`--timeout-ms`); default 60 s.
    pub call_timeout: Duration,
    /// Longest spawn + `initialize` + `tools/list` may take; default 30 s.
    pub start_timeout: Duration,
    /// At shutdown, how long a server gets after its stdin is closed, and again after
    /// SIGTERM, before it is killed; default 2 s.
    pub shutdown_grace: Duration,
    /// Start a server again at its next use after it crashed (or wrote garbage), or after
    /// it failed to start: servers that outlive a run (`pml serve`). Default false: a run's
    /// server fails the same way at every later call.
    pub restart: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            call_timeout: Duration::from_secs(60),
            start_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(2),
            restart: false,
        }
    }
}

/// The MCP servers of one run. Each server is spawned on first use (two concurrent first
/// uses spawn it once; different servers start concurrently), initialized and asked for its
/// tools. A server that fails to start keeps failing with the same error; one that crashes is
/// not restarted (unless [`ClientOptions::restart`]: then the next use starts it again). [`McpClients::shutdown`] closes all of them; dropping without it kills
/// them (SIGKILL to each server's process group).
pub struct McpClients {
    slots: IndexMap<String, Arc<Slot>>,
    /// The config file the servers come from, if any.
    origin: Option<String>,
    options: ClientOptions,
    closed: Arc<AtomicBool>,
}

struct Slot {
    name: String,
    config: ServerConfig,
    /// The config file it comes from, if any.
    origin: Option<String>,
    state: tokio::sync::Mutex<SlotState>,
    pid: AtomicU32,
    killer: Mutex<Option<Killer>>,
}

enum SlotState {
    Idle,
    Running(Arc<Server>),
    Failed(McpError),
    Closed,
}

impl McpClients {
    pub fn new(config: McpConfig, options: ClientOptions) -> Self {
        let origin = config.origin;
        let slots = config
            .servers
            .into_iter()
            .map(|(name, config)| {
                let slot = Slot {
                    name: name.clone(),
                    config,
                    origin: origin.clone(),
                    state: tokio::sync::Mutex::new(SlotState::Idle),
                    pid: AtomicU32::new(0),
                    killer: Mutex::new(None),
                };
                (name, Arc::new(slot))
            })
            .collect();
        McpClients {
            slots,
            origin,
            options,
            closed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The config file the servers come from, if any.
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Configured server names, in config order.
    pub fn server_names(&self) -> impl Iterator<Item = &str> {
        self.slots.keys().map(String::as_str)
    }

    /// The process id of the server's latest process, once spawned (for traces and tests).
    pub fn process_id(&self, server: &str) -> Option<u32> {
        let pid = self.slots.get(server)?.pid.load(Ordering::SeqCst);
        (pid != 0).then_some(pid)
    }

    /// Start the server now rather than at its first call (to overlap start-ups).
    pub async fn start(&self, server: &str) -> Result<(), McpError> {
        self.server(server, None).await.map(drop)
    }

    /// The server's tools with their schemas and annotations (listed at start-up, listed
    /// again after the server announced `notifications/tools/list_changed`).
    pub async fn list_tools(&self, server: &str) -> Result<Vec<ToolInfo>, McpError> {
        let s = self.server(server, None).await?;
        s.tools(self.options.call_timeout).await
    }

    /// Call `tool` of `server`. `Ok` also for a result with `isError: true` (see
    /// [`CallOutcome::is_error`]); `Err` when there is no result to show.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<CallOutcome, McpError> {
        self.send(server, tool, arguments).await?.outcome().await
    }

    /// [`McpClients::call`] in two steps: starts the server if needed and returns once the
    /// request is queued for it, before its answer ([`SentCall::outcome`]). Requests to one
    /// server reach it in the order they were queued: a caller that must keep calls in order
    /// (the program's concurrent calls, as Node sends them) waits for one `send` before the
    /// next.
    pub async fn send(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<SentCall, McpError> {
        let s = self.server(server, Some(tool)).await?;
        s.send(tool, arguments, self.options.call_timeout).await
    }

    /// The value of `await mcp.server.tool(arguments)`: like [`McpClients::call`], with an
    /// `isError` result turned into [`McpError::Tool`].
    pub async fn call_value(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<Value, McpError> {
        self.call(server, tool, arguments)
            .await?
            .into_value(server, tool)
    }

    /// Close every started server: close its stdin, wait for it to exit, SIGTERM then
    /// SIGKILL its process group if it does not, and wait until it is reaped. Servers close
    /// concurrently. Later calls fail with [`McpError::Closed`].
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let grace = self.options.shutdown_grace;
        let mut tasks = tokio::task::JoinSet::new();
        for slot in self.slots.values() {
            let slot = slot.clone();
            tasks.spawn(async move {
                let previous = std::mem::replace(&mut *slot.state.lock().await, SlotState::Closed);
                if let SlotState::Running(server) = previous {
                    server.close(grace).await;
                }
            });
        }
        while tasks.join_next().await.is_some() {}
    }

    async fn server(&self, server: &str, tool: Option<&str>) -> Result<Arc<Server>, McpError> {
        let Some(slot) = self.slots.get(server) else {
            return Err(McpError::UnknownServer {
                server: server.to_owned(),
                tool: tool.map(str::to_owned),
                known: self.slots.keys().cloned().collect(),
                origin: self.origin.clone(),
            });
        };
        let mut state = slot.state.lock().await;
        match &*state {
            SlotState::Running(s) if self.options.restart && s.process.health().is_faulty() => {
                // What is left of it goes (its process group killed) before a fresh one starts.
                s.close(Duration::ZERO).await;
            }
            SlotState::Running(s) => return Ok(s.clone()),
            SlotState::Failed(_) if self.options.restart => {}
            SlotState::Failed(e) => return Err(e.clone().for_tool(tool)),
            SlotState::Closed => {
                return Err(McpError::Closed {
                    server: server.to_owned(),
                    tool: tool.map(str::to_owned),
                })
            }
            SlotState::Idle => {}
        }
        if self.closed.load(Ordering::SeqCst) {
            *state = SlotState::Closed;
            return Err(McpError::Closed {
                server: server.to_owned(),
                tool: tool.map(str::to_owned),
            });
        }
        match start(slot, &self.options, self.closed.clone()).await {
            Ok(s) => {
                *state = SlotState::Running(s.clone());
                Ok(s)
            }
            Err(e) => {
                *state = SlotState::Failed(e.clone());
                Err(e.for_tool(tool))
            }
        }
    }
}

impl Drop for McpClients {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        for slot in self.slots.values() {
            let killer = slot.killer.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(killer) = killer.as_ref() {
                killer.kill_now();
            }
        }
    }
}

/// The rmcp client handler: declares pml, notices tool-list changes.
#[derive(Clone)]
struct Handler {
    tools_changed: Arc<AtomicBool>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("pml", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
    }
}

struct Server {
    name: String,
    peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    tools: tokio::sync::Mutex<Vec<ToolInfo>>,
    tools_changed: Arc<AtomicBool>,
    process: Process,
    closing: AtomicBool,
    clients_closed: Arc<AtomicBool>,
    /// A call was given up before its answer (timed out, or cancelled by dropping it): the
    /// server may be stuck in it, so closing does not wait on it.
    abandoned: AtomicBool,
    /// `tools/call` results as the server wrote them (see [`crate::wire`]).
    raw_results: Arc<RawResults>,
}

/// Marks the server's call abandoned unless the answer came ([`Answered::answered`]).
struct Answered<'a>(Option<&'a AtomicBool>);

impl Answered<'_> {
    fn answered(mut self) {
        self.0 = None;
    }
}

impl Drop for Answered<'_> {
    fn drop(&mut self) {
        if let Some(abandoned) = self.0 {
            abandoned.store(true, Ordering::SeqCst);
        }
    }
}

/// A call whose request is queued for its server ([`McpClients::send`]).
pub struct SentCall {
    server: Arc<Server>,
    tool: String,
    handle: RequestHandle<RoleClient>,
    deadline: Instant,
    timeout: Duration,
}

impl SentCall {
    /// The server's answer, as [`McpClients::call`] gives it. Dropped before the answer (a
    /// cancelled run), the call is cancelled: the server is sent `notifications/cancelled`.
    pub async fn outcome(self) -> Result<CallOutcome, McpError> {
        let SentCall {
            server,
            tool,
            handle,
            deadline,
            timeout,
        } = self;
        let id = handle.id.clone();
        // However this ends, its result is no longer waited for.
        let _forget = ForgetResult(&server.raw_results, &id);
        let cancel = CancelOnDrop(Some((server.peer.clone(), handle.id.clone())));
        let pending = Answered(Some(&server.abandoned));
        let response = tokio::select! {
            biased;
            r = handle.await_response() => r,
            _ = server.process.faulted() => return Err(server.failure(&tool).await),
            _ = tokio::time::sleep_until(deadline) => return Err(server.timeout(&tool, timeout)),
        };
        pending.answered();
        cancel.answered();
        let written = server.raw_results.take(&id);
        match response {
            // The result as the server wrote it (rmcp's typed copy lacks its content).
            Ok(ServerResult::CallToolResult(_)) if written.is_some() => {
                Ok(CallOutcome::from_result(written.unwrap_or_default()))
            }
            Ok(ServerResult::CallToolResult(result)) => serde_json::to_value(&result)
                .map(CallOutcome::from_result)
                .map_err(|e| server.protocol(&tool, format!("unreadable result: {e}"))),
            Ok(ServerResult::InputRequiredResult(_) | ServerResult::CreateTaskResult(_)) => {
                Err(server.protocol(
                    &tool,
                    "answered with an input request or a task, which pml does not support".into(),
                ))
            }
            // A call sent as a custom request (arguments that are no object) comes back as
            // whichever result its shape reads as.
            Ok(_) if written.is_some() => Ok(CallOutcome::from_result(written.unwrap_or_default())),
            Ok(_) => Err(server
                .service_error(&tool, ServiceError::UnexpectedResponse)
                .await),
            Err(e) => Err(server.service_error(&tool, e).await),
        }
    }

    /// The value of `await mcp.server.tool(arguments)`, as [`McpClients::call_value`] gives it.
    pub async fn value(self) -> Result<Value, McpError> {
        let (server, tool) = (self.server.name.clone(), self.tool.clone());
        self.outcome().await?.into_value(&server, &tool)
    }
}

/// Stops keeping a call's result as written when the call ends, however it ends.
struct ForgetResult<'a>(&'a RawResults, &'a RequestId);

impl Drop for ForgetResult<'_> {
    fn drop(&mut self) {
        self.0.take(self.1);
    }
}

/// Sends the server `notifications/cancelled` for a request given up before its answer.
struct CancelOnDrop(Option<(Peer<RoleClient>, RequestId)>);

impl CancelOnDrop {
    fn answered(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((peer, id)) = self.0.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let cancelled = CancelledNotificationParam::new(
            Some(id),
            Some("request abandoned by the caller".to_owned()),
        );
        runtime.spawn(async move {
            let _ = peer.notify_cancelled(cancelled).await;
        });
    }
}

/// How long a server that has a call it may be stuck in gets, at each step of closing.
const ABANDONED_GRACE: Duration = Duration::from_millis(100);

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Why start-up stopped, before the process is put down.
enum StartFailure {
    Timeout(String),
    Other(String),
}

async fn start(
    slot: &Slot,
    options: &ClientOptions,
    clients_closed: Arc<AtomicBool>,
) -> Result<Arc<Server>, McpError> {
    let name = slot.name.clone();
    let (process, pipes) = Process::spawn(&slot.config).map_err(|e| McpError::Spawn {
        server: name.clone(),
        tool: None,
        command: slot.config.command.clone(),
        cause: e.to_string(),
        origin: slot.origin.clone(),
    })?;
    slot.pid.store(process.pid, Ordering::SeqCst);
    *slot.killer.lock().unwrap_or_else(|e| e.into_inner()) = Some(process.killer.clone());

    let deadline = Instant::now() + options.start_timeout;
    let limit = ms(options.start_timeout);
    let tools_changed = Arc::new(AtomicBool::new(false));
    let raw_results = Arc::new(RawResults::default());
    let handler = Handler {
        tools_changed: tools_changed.clone(),
    };
    let started = tokio::select! {
        biased;
        r = tokio::time::timeout_at(deadline, handler.serve(Wire::new(pipes, raw_results.clone()))) => match r {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(e)) => Err(StartFailure::Other(format!("initialize failed: {e}"))),
            Err(_) => Err(StartFailure::Timeout(format!(
                "no answer to `initialize` within {limit} ms"
            ))),
        },
        h = process.faulted() => Err(StartFailure::Other(fault_cause(&h))),
    };
    let service = match started {
        Ok(service) => service,
        Err(failure) => return Err(fail_start(&process, slot, failure).await),
    };
    process.set_strict();
    let peer = service.peer().clone();
    let has_tools = service
        .peer_info()
        .is_some_and(|info| info.capabilities.tools.is_some());
    let tools = if has_tools {
        let listed = tokio::select! {
            biased;
            r = tokio::time::timeout_at(deadline, peer.list_all_tools()) => match r {
                Ok(Ok(tools)) => Ok(tools),
                Ok(Err(e)) => Err(StartFailure::Other(format!("tools/list failed: {e}"))),
                Err(_) => Err(StartFailure::Timeout(format!(
                    "no answer to `tools/list` within the {limit} ms start-up limit"
                ))),
            },
            h = process.faulted() => Err(StartFailure::Other(fault_cause(&h))),
        };
        match listed.and_then(|tools| convert_tools(tools).map_err(StartFailure::Other)) {
            Ok(tools) => tools,
            Err(failure) => {
                drop(service);
                return Err(fail_start(&process, slot, failure).await);
            }
        }
    } else {
        Vec::new()
    };
    Ok(Arc::new(Server {
        name,
        peer,
        service: tokio::sync::Mutex::new(Some(service)),
        tools: tokio::sync::Mutex::new(tools),
        tools_changed,
        process,
        closing: AtomicBool::new(false),
        abandoned: AtomicBool::new(false),
        clients_closed,
        raw_results,
    }))
}

fn fault_cause(health: &Health) -> String {
    match (&health.garbage, &health.exit) {
        (Some(garbage), _) => format!("server {garbage}"),
        (None, Some(exit)) => format!("server exited ({exit})"),
        (None, None) => "connection to the server closed".to_owned(),
    }
}

/// Put a server that failed to start down and describe why, with its last words.
async fn fail_start(process: &Process, slot: &Slot, failure: StartFailure) -> McpError {
    let server = slot.name.as_str();
    let cause = match failure {
        StartFailure::Timeout(cause) => cause,
        // A closed connection usually means the process is on its way out: say how it ended.
        StartFailure::Other(cause) => {
            if process.wait_exit(Duration::from_millis(500)).await {
                format!("{} during start-up", fault_cause(&process.health()))
            } else {
                cause
            }
        }
    };
    process.signal(Signal::Kill);
    process.wait_exit(Duration::from_secs(5)).await;
    McpError::Initialize {
        server: server.to_owned(),
        tool: None,
        cause,
        stderr_tail: process.stderr.settled(Duration::from_millis(500)).await,
        origin: slot.origin.clone(),
    }
}

fn convert_tools(tools: Vec<rmcp::model::Tool>) -> Result<Vec<ToolInfo>, String> {
    tools
        .into_iter()
        .map(|tool| {
            serde_json::to_value(&tool)
                .and_then(serde_json::from_value::<ToolInfo>)
                .map_err(|e| format!("tool `{}` has an unusable description: {e}", tool.name))
        })
        .collect()
}

impl Server {
    fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst) || self.clients_closed.load(Ordering::SeqCst)
    }

    fn closed_error(&self, tool: &str) -> McpError {
        McpError::Closed {
            server: self.name.clone(),
            tool: Some(tool.to_owned()),
        }
    }

    async fn tools(&self, timeout: Duration) -> Result<Vec<ToolInfo>, McpError> {
        let mut tools = self.tools.lock().await;
        if self.tools_changed.swap(false, Ordering::SeqCst) {
            const LIST: &str = "tools/list";
            let listed = tokio::select! {
                biased;
                r = tokio::time::timeout(timeout, self.peer.list_all_tools()) => r,
                _ = self.process.faulted() => return Err(self.failure(LIST).await),
            };
            match listed {
                Ok(Ok(listed)) => {
                    *tools = convert_tools(listed).map_err(|cause| self.protocol(LIST, cause))?;
                }
                Ok(Err(e)) => return Err(self.service_error(LIST, e).await),
                Err(_) => return Err(self.timeout(LIST, timeout)),
            }
        }
        Ok(tools.clone())
    }

    async fn send(
        self: &Arc<Self>,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<SentCall, McpError> {
        if self.closing() {
            return Err(self.closed_error(tool));
        }
        if self.process.health().is_faulty() {
            return Err(self.failure(tool).await);
        }
        let request = match arguments {
            Value::Object(arguments) => ClientRequest::CallToolRequest(CallToolRequest::new(
                CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
            )),
            Value::Null => ClientRequest::CallToolRequest(CallToolRequest::new(
                CallToolRequestParams::new(tool.to_owned()),
            )),
            // Arguments that are no object go as they are, as Node's client sends them: the
            // server answers (rmcp's typed request holds only an object).
            other => ClientRequest::CustomRequest(CustomRequest::new(
                crate::wire::TOOLS_CALL,
                Some(serde_json::json!({ "name": tool, "arguments": other })),
            )),
        };
        let deadline = Instant::now() + timeout;
        let queued = tokio::select! {
            biased;
            r = self.peer.send_request_with_option(request, PeerRequestOptions::no_options()) => r,
            _ = self.process.faulted() => return Err(self.failure(tool).await),
        };
        match queued {
            Ok(handle) => Ok(SentCall {
                server: self.clone(),
                tool: tool.to_owned(),
                handle,
                deadline,
                timeout,
            }),
            Err(e) => Err(self.service_error(tool, e).await),
        }
    }

    async fn service_error(&self, tool: &str, error: ServiceError) -> McpError {
        match error {
            ServiceError::McpError(e) => McpError::Rpc {
                server: self.name.clone(),
                tool: tool.to_owned(),
                code: e.code.0,
                message: e.message.to_string(),
            },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                self.failure(tool).await
            }
            ServiceError::UnexpectedResponse => self.protocol(
                tool,
                "answered with something that is not the expected result".into(),
            ),
            _ if self.closing() => self.closed_error(tool),
            other => self.protocol(tool, other.to_string()),
        }
    }

    fn timeout(&self, tool: &str, after: Duration) -> McpError {
        McpError::Timeout {
            server: self.name.clone(),
            tool: tool.to_owned(),
            after_ms: ms(after),
            stderr_tail: self.process.stderr.snapshot(),
        }
    }

    fn protocol(&self, tool: &str, cause: String) -> McpError {
        McpError::Protocol {
            server: self.name.clone(),
            tool: tool.to_owned(),
            cause,
            stderr_tail: self.process.stderr.snapshot(),
        }
    }

    /// The connection broke: say whether the server exited or wrote garbage.
    async fn failure(&self, tool: &str) -> McpError {
        if self.closing() {
            return self.closed_error(tool);
        }
        // rmcp may notice the closed pipe a moment before the waiter has reaped the process.
        let _ = tokio::time::timeout(Duration::from_secs(1), self.process.faulted()).await;
        let health = self.process.health();
        let stderr_tail = self
            .process
            .stderr
            .settled(Duration::from_millis(500))
            .await;
        let (server, tool) = (self.name.clone(), tool.to_owned());
        match (health.garbage, health.exit) {
            (Some(garbage), _) => McpError::Protocol {
                server,
                tool,
                cause: format!("server {garbage}"),
                stderr_tail,
            },
            (None, Some(exit)) => McpError::Crashed {
                server,
                tool,
                cause: format!("server exited ({exit})"),
                stderr_tail,
            },
            (None, None) => McpError::Crashed {
                server,
                tool,
                cause: "the server closed its stdout".into(),
                stderr_tail,
            },
        }
    }

    async fn close(&self, grace: Duration) {
        self.closing.store(true, Ordering::SeqCst);
        // A server still busy with a call pml gave up on is not waited for.
        let grace = match self.abandoned.load(Ordering::SeqCst) {
            true => grace.min(ABANDONED_GRACE),
            false => grace,
        };
        if let Some(mut service) = self.service.lock().await.take() {
            // Cancels the client loop, which closes the server's stdin.
            let _ = service.close_with_timeout(grace).await;
        }
        self.process.stop(grace).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The executor runs calls on a multi-threaded runtime: every future here must be `Send`
    /// (checked at compile time; the futures are never polled).
    #[test]
    fn futures_are_send_and_clients_are_sync() {
        fn send<T: Send>(_: T) {}
        fn sync<T: Send + Sync>() {}
        let clients = McpClients::new(McpConfig::default(), ClientOptions::default());
        send(clients.call("s", "t", Value::Null));
        send(clients.call_value("s", "t", Value::Null));
        send(clients.send("s", "t", Value::Null));
        send(clients.list_tools("s"));
        send(clients.start("s"));
        send(clients.shutdown());
        sync::<McpClients>();
    }
}
