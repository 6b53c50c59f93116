//! `pml serve`: pml as an MCP server. Agents send programs (`execute`), find the tools they
//! may call (`search_tools`, `describe_tools`), and save, find and run capabilities; every
//! program runs exactly as `pml run` runs it ([`crate::run::run_shared`]), on downstream
//! servers that stay up between programs and are shared by the programs running at once.
//!
//! Nothing the gateway keeps in memory is needed for correctness: capabilities and runs live
//! in the store, so several gateways on one PostgreSQL store behave as one. What it keeps is a
//! cache (the servers' tool listings) and the servers themselves.
//!
//! The tools' inputs and outputs are in `docs/formats.md` ("pml serve").

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pml_mcp::{ClientOptions, McpClients, McpConfig, ToolInfo};
use pml_trace::{EventKind, TraceEvent};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::run::{ProgramSource, RunOptions, RunOutput, RunSetupError, SharedEnv};

mod approval;
mod transport;

use crate::servers::Listings;
use crate::types::CapabilityType;
use approval::ClientApprover;
pub use transport::{
    default_config, scratch, serve_http, serve_stdio, without_gateways, HttpOptions, HTTP_PATH,
};

/// Most programs running at once, by default; later ones wait for a place.
pub const DEFAULT_MAX_CONCURRENT: usize = 8;
/// How much of a result `execute` returns: its JSON text up to this many bytes; the whole
/// result stays in the store (`pml://runs/{runId}`).
pub const RESULT_LIMIT: usize = 64 * 1024;
/// How long the `mcp` declarations in `execute`'s description may be; past it the description
/// lists the tools by name and points to `search_tools` and `describe_tools`.
pub const DECLARATIONS_BUDGET: usize = 16 * 1024;
/// The most hits `search_tools` returns.
const MAX_HITS: usize = 50;
/// The name a program sent to `execute` has in errors and in the store.
const EXECUTE_PLACE: &str = "execute";

/// What `pml serve` is given.
#[derive(Clone)]
pub struct ServeOptions {
    /// The downstream servers.
    pub config: McpConfig,
    /// Arguments every program gets unless it passes its own (`root`: the folder of the
    /// default filesystem server).
    pub inherited: Map<String, Value>,
    /// The store's location (`None`: runs are not recorded, capabilities cannot be used).
    pub store: Option<String>,
    /// Start every server now rather than at first use.
    pub warm: bool,
    /// Most programs running at once.
    pub max_concurrent: usize,
    /// How calls that need approval are decided.
    pub approve: Approvals,
    /// Export each run as OpenTelemetry spans to this OTLP/HTTP endpoint, under the span of
    /// the client's call when its `_meta` carries a `traceparent`.
    pub otlp: Option<String>,
    /// Offer each stored capability as a tool of its own (`cap_<name>`), and tell clients
    /// when the list changes.
    pub capabilities_as_tools: bool,
    /// The limits and policies of each program's run (`args`, `resume`, `interrupt`,
    /// `on_event` and the approver are set per run).
    pub run: RunOptions,
}

/// The gateway: the servers, the store, and the bound on programs running at once.
#[derive(Clone)]
pub struct Gateway {
    inner: Arc<Inner>,
}

struct Inner {
    env: SharedEnv,
    run: RunOptions,
    permits: Arc<Semaphore>,
    max_concurrent: usize,
    approve: Approvals,
    otlp: Option<String>,
    capabilities_as_tools: bool,
    /// The clients connected (to tell of `tools/list_changed`).
    peers: std::sync::Mutex<Vec<rmcp::Peer<RoleServer>>>,
    /// What the store's capabilities were when the clients were last told
    /// ([`capabilities_fingerprint`]).
    told: std::sync::Mutex<Option<u64>>,
}

/// How often a gateway with capabilities as tools looks at the store for capabilities saved,
/// renamed or removed through other gateways (or `pml save`).
const CAPABILITY_POLL: Duration = Duration::from_secs(2);

/// The store's capabilities and their names, as one number: it changes when one is saved,
/// named, renamed or removed.
async fn capabilities_fingerprint(store: &pml_store::Store) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let summaries = store.capabilities().await.ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for summary in &summaries {
        summary.code_hash.hash(&mut hasher);
        summary.names.hash(&mut hasher);
    }
    Some(hasher.finish())
}

/// How `pml serve` decides the calls that need approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approvals {
    /// Ask the client: the whole plan once, through MCP elicitation when the client offers
    /// it; else the run pauses, and the `approve` tool continues or ends it.
    Client,
    /// Run them.
    Auto,
    /// Fail them (the program may catch the failure).
    Deny,
}

/// Why the gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Store(#[from] pml_store::StoreError),
    #[error("{0}")]
    Transport(String),
}

impl Gateway {
    /// Opens the store and, with `warm`, starts every server.
    pub async fn new(options: ServeOptions) -> Result<Self, ServeError> {
        let store = match &options.store {
            Some(location) => Some(Arc::new(crate::capability::open_store(location).await?)),
            None => None,
        };
        let clients = Arc::new(McpClients::new(
            options.config,
            ClientOptions {
                call_timeout: Duration::from_millis(options.run.timeout_ms),
                restart: true,
                ..ClientOptions::default()
            },
        ));
        let gateway = Gateway {
            inner: Arc::new(Inner {
                env: SharedEnv {
                    clients,
                    store,
                    inherited: options.inherited,
                    sandboxes: Some(crate::run::Spares::new(
                        &options.run,
                        options.max_concurrent.max(1),
                    )),
                },
                run: RunOptions {
                    print_warnings: false,
                    ..options.run
                },
                permits: Arc::new(Semaphore::new(options.max_concurrent.max(1))),
                max_concurrent: options.max_concurrent.max(1),
                approve: options.approve,
                otlp: options.otlp,
                capabilities_as_tools: options.capabilities_as_tools,
                peers: Default::default(),
                told: Default::default(),
            }),
        };
        if gateway.inner.capabilities_as_tools {
            gateway.watch_capabilities().await;
        }
        if options.warm {
            for (server, listed) in gateway.listings_with_errors().await.1 {
                eprintln!("pml serve: server {server} did not start: {listed}");
            }
        }
        Ok(gateway)
    }

    /// Stops every server (and closes the store).
    pub async fn shutdown(&self) {
        self.inner.env.clients.shutdown().await;
    }

    fn clients(&self) -> &Arc<McpClients> {
        &self.inner.env.clients
    }

    fn store(&self) -> Result<&pml_store::Store, String> {
        self.inner.env.store.as_deref().ok_or_else(|| {
            "this gateway has no store (started with --no-store): capabilities and runs are not kept"
                .to_owned()
        })
    }

    /// Every server's tools (servers started as needed, concurrently), in config order, and
    /// why each server that did not list its tools did not.
    async fn listings_with_errors(&self) -> (Listings, Vec<(String, String)>) {
        let clients = self.clients().clone();
        let mut tasks = tokio::task::JoinSet::new();
        let names: Vec<String> = clients.server_names().map(str::to_owned).collect();
        for (i, server) in names.iter().cloned().enumerate() {
            let clients = clients.clone();
            tasks.spawn(async move {
                let listed = clients.list_tools(&server).await;
                (i, server, listed)
            });
        }
        let mut done = Vec::new();
        while let Some(Ok(one)) = tasks.join_next().await {
            done.push(one);
        }
        done.sort_by_key(|(i, _, _)| *i);
        let mut listings = Vec::new();
        let mut errors = Vec::new();
        for (_, server, listed) in done {
            match listed {
                Ok(tools) => listings.push((server, tools)),
                Err(e) => errors.push((server, e.to_string())),
            }
        }
        (listings, errors)
    }

    async fn listings(&self) -> Listings {
        self.listings_with_errors().await.0
    }

    /// The stored capabilities as programs call them (`None` without a store).
    async fn capability_types(&self) -> Result<Option<Vec<CapabilityType>>, String> {
        let Some(store) = self.inner.env.store.as_deref() else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for summary in store.capabilities().await.map_err(|e| e.to_string())? {
            let stored = (store.capability(&summary.code_hash).await).map_err(|e| e.to_string())?;
            for name in &summary.names {
                out.push(CapabilityType {
                    name: name.clone(),
                    description: stored.description.clone(),
                    parameters: stored.parameter_schema.clone(),
                });
            }
        }
        Ok(Some(out))
    }

    /// The declarations of the `mcp` API and the stored capabilities (`pml types`).
    async fn declarations(&self) -> String {
        self.declarations_of(&self.listings().await).await
    }

    /// The declarations of `listings` and the stored capabilities.
    async fn declarations_of(&self, listings: &Listings) -> String {
        let capabilities = self.capability_types().await.ok().flatten();
        crate::types::declarations(listings, capabilities.as_deref())
    }

    /// `execute`'s description: what it does, then the declarations when they fit the
    /// budget, else the tools by name.
    async fn execute_description(&self) -> String {
        let mut out = String::from(
            "Run a TypeScript program against the MCP tools below and return what it returns. \
             The program is the body of an async function: `mcp.<server>.<tool>(args)` calls a \
             tool (await it), `args` holds the `args` given here, `capabilities.<name>(args)` runs \
             a saved capability, `console.log` is collected. Independent reads run in parallel; \
             side effects that need approval are asked for first. Returns {ok, result, error?, \
             runId, calls, durationMs, console?}; a failing program returns isError with the \
             error and its line:col.\n\n",
        );
        let listings = self.listings().await;
        let declarations = self.declarations_of(&listings).await;
        if declarations.len() <= DECLARATIONS_BUDGET {
            out.push_str("```ts\n");
            out.push_str(&declarations);
            out.push_str("```\n");
            return out;
        }
        out.push_str(
            "The tools (call search_tools to find one and describe_tools for its exact \
             TypeScript signature):\n",
        );
        for (server, tools) in listings {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            out.push_str(&format!("- mcp.{server}: {}\n", names.join(", ")));
        }
        out
    }

    /// Runs `source` with `args` (or resumes a run), told of cancellation by `context`; its
    /// approvals asked per [`Approvals`].
    async fn run(
        &self,
        source: ProgramSource,
        args: Value,
        how: How,
        context: &RequestContext<RoleServer>,
    ) -> Result<Ran, RunSetupError> {
        let permit = self.permit(context).await?;
        let started = Instant::now();
        let (interrupt, interrupted) = tokio::sync::watch::channel(false);
        let ct = context.ct.clone();
        let cancelled = tokio::spawn(async move {
            ct.cancelled().await;
            let _ = interrupt.send(true);
        });
        let client = match self.inner.approve {
            Approvals::Client => Some(Arc::new(ClientApprover {
                elicit: context
                    .peer
                    .supported_elicitation_modes()
                    .contains(&rmcp::service::ElicitationMode::Form),
                peer: context.peer.clone(),
                approved_ahead: how.resume.is_some(),
                plan: Default::default(),
                paused: Default::default(),
            })),
            _ => None,
        };
        // The client's trace (SEP-414: W3C trace context in `_meta`), when it sent a valid one.
        let trace_context = (context.meta.get_traceparent())
            .filter(|t| crate::otlp::remote_parent(t).is_some())
            .map(|traceparent| {
                let mut trace = json!({ "traceparent": traceparent });
                if let Some(state) = context.meta.get_tracestate() {
                    trace["tracestate"] = json!(state);
                }
                trace
            });
        let (on_event, forwarding) = match progress_observer(context) {
            Some((observer, forwarding)) => (Some(observer), Some(forwarding)),
            None => (None, None),
        };
        let options = RunOptions {
            args,
            interrupt: Some(interrupted),
            trace_context,
            on_event,
            program_hash: how.program_hash,
            resume: how.resume,
            approve: match self.inner.approve {
                Approvals::Deny => crate::run::ApproveMode::Deny,
                _ => crate::run::ApproveMode::Auto,
            },
            approver: client.clone().map(|c| c as Arc<dyn pml_executor::Approver>),
            ..self.inner.run.clone()
        };
        let place = source.place.clone();
        // On a task of its own: a client that cancels drops this future, and the run must
        // still see the interrupt, stop its calls and be recorded.
        let env = self.inner.env.clone();
        let output = tokio::spawn(async move {
            let output = crate::run::run_shared(source, &env, &options).await;
            cancelled.abort();
            drop(permit);
            output
        })
        .await
        .map_err(|e| RunSetupError::Setup(format!("the run stopped: {e}")))?;
        // Every progress notification goes out before the answer.
        if let Some(forwarding) = forwarding {
            let _ = tokio::time::timeout(Duration::from_secs(5), forwarding).await;
        }
        let paused = client.and_then(|c| c.paused.lock().unwrap_or_else(|e| e.into_inner()).take());
        if let (Some(url), Ok(output)) = (&self.inner.otlp, &output) {
            export_spans(url.clone(), place, output);
        }
        output.map(|output| Ran {
            output,
            took: started.elapsed(),
            paused,
        })
    }

    /// A place among the programs running at once (waiting for one as long as it takes,
    /// unless the client cancels).
    async fn permit(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<OwnedSemaphorePermit, RunSetupError> {
        tokio::select! {
            permit = self.inner.permits.clone().acquire_owned() => {
                permit.map_err(|_| RunSetupError::Setup("the gateway is stopping".into()))
            }
            _ = context.ct.cancelled() => Err(RunSetupError::Setup(
                "cancelled by the client before it started".into(),
            )),
        }
    }

    async fn execute(
        &self,
        input: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let code = match input.get("code") {
            // A lone surrogate the client's string held, as the escape that writes it.
            Some(Value::String(code)) => pml_jstext::to_js_source(code).into_owned(),
            _ => return failure("execute needs `code`: the program, as a string"),
        };
        let args = match input.get("args") {
            None | Some(Value::Null) => json!({}),
            Some(Value::Object(args)) => Value::Object(args.clone()),
            Some(_) => return failure("`args` is an object (the program reads it as `args`)"),
        };
        let source = ProgramSource {
            place: EXECUTE_PLACE.to_owned(),
            file: None,
            text: code,
            dialect: pml_structure::Dialect::TypeScript,
        };
        let ran = self.run(source, args, How::default(), context).await;
        self.answer(ran).await
    }

    /// The answer to a run: `{ok, result, error?, runId, calls, durationMs, console?,
    /// warnings?}`, the result cut past [`RESULT_LIMIT`].
    async fn answer(&self, ran: Result<Ran, RunSetupError>) -> CallToolResult {
        let Ran {
            output,
            took,
            paused,
        } = match ran {
            Ok(ran) => ran,
            Err(e) => return setup_failure(e),
        };
        if let Some(plan) = paused {
            return self.pause(&output, &plan).await;
        }
        let report = &output.report;
        let calls = (report.trace.iter())
            .filter(|e| e.event == EventKind::ToolEnd && !e.tool.starts_with("code:"))
            .filter(|e| e.taken != Some(false))
            .count();
        // A result past the limit is not copied: the start of its text (as Node writes it)
        // is shown instead.
        let text = js_text(report.result.to_string());
        let shown = cut_at(&text, RESULT_LIMIT);
        let rest = output.run_id.as_ref().map(|id| format!("pml://runs/{id}"));
        let mut out = json!({
            "ok": report.ok,
            "result": match shown {
                None => report.result.clone(),
                Some(cut) => json!(&text[..cut]),
            },
            "calls": calls,
            "durationMs": took.as_secs_f64() * 1e3,
        });
        if let Some(id) = &output.run_id {
            out["runId"] = json!(id);
        }
        if let Some(cut) = shown {
            out["resultTruncated"] = json!({
                "bytes": text.len(),
                "shown": cut,
                "rest": rest,
            });
        }
        if let Some(error) = &report.error {
            // An error's message can be the program's own, of any length: cut as a result is.
            out["error"] = match cut_at(&error.message, RESULT_LIMIT) {
                None => json!(error.message),
                Some(cut) => json!(format!(
                    "{}... ({} bytes in all{})",
                    &error.message[..cut],
                    error.message.len(),
                    rest.as_deref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                )),
            };
            if let Some(tool) = &error.tool {
                out["errorTool"] = json!(tool);
            }
        }
        if !report.console.is_empty() {
            // One line per call: its text, after `[warn] ` or `[error] ` for those levels; as
            // many as fit in the limit of a result, the rest counted (all kept in the run).
            let mut lines: Vec<String> = Vec::new();
            let mut bytes = 0;
            for line in &report.console {
                let text = match line.level {
                    "warn" | "error" => format!("[{}] {}", line.level, line.text),
                    _ => line.text.clone(),
                };
                if bytes + text.len() > RESULT_LIMIT {
                    let left = report.console.len() - lines.len();
                    out["consoleTruncated"] = json!({
                        "lines": report.console.len(),
                        "shown": lines.len(),
                        "rest": rest,
                    });
                    lines.push(format!(
                        "[pml] {left} more console line{} not shown ({RESULT_LIMIT} bytes at most){}",
                        if left == 1 { "" } else { "s" },
                        rest.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                    ));
                    break;
                }
                bytes += text.len();
                lines.push(text);
            }
            out["console"] = json!(lines);
        }
        if !output.warnings.is_empty() {
            out["warnings"] = json!(output.warnings);
        }
        match report.ok {
            true => structured(out),
            false => structured_error(out),
        }
    }

    async fn search_tools(&self, input: &Map<String, Value>) -> CallToolResult {
        let query = input.get("query").and_then(Value::as_str).unwrap_or("");
        let limit = (input.get("limit").and_then(Value::as_u64))
            .map_or(10, |l| (l as usize).clamp(1, MAX_HITS));
        let listings = self.listings().await;
        let mut hits: Vec<(f64, &str, &ToolInfo)> = Vec::new();
        for (server, tools) in &listings {
            for tool in tools {
                let score = score(query, server, tool);
                if score > 0.0 || query.trim().is_empty() {
                    hits.push((score, server, tool));
                }
            }
        }
        hits.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| (a.1, &a.2.name).cmp(&(b.1, &b.2.name)))
        });
        let tools: Vec<Value> = hits
            .iter()
            .take(limit)
            .map(|(score, server, tool)| {
                json!({
                    "name": format!("{server}:{}", tool.name),
                    "call": format!("mcp.{}.{}", server, tool.name),
                    "description": tool.description,
                    "signature": crate::types::tool_declaration(tool, "").trim_end(),
                    "score": score,
                })
            })
            .collect();
        structured(json!({ "tools": tools, "total": hits.len() }))
    }

    async fn describe_tools(&self, input: &Map<String, Value>) -> CallToolResult {
        let Some(names) = input.get("names").and_then(Value::as_array) else {
            return failure(
                "describe_tools needs `names`: tools as `server:tool` (or `server.tool`)",
            );
        };
        let listings = self.listings().await;
        let mut tools = Vec::new();
        let mut unknown = Vec::new();
        for name in names {
            let Some(name) = name.as_str() else {
                return failure("each of `names` is a string, `server:tool`");
            };
            let (server, tool) = name
                .split_once(':')
                .or_else(|| name.split_once('.'))
                .unwrap_or((name, ""));
            let server = server.strip_prefix("mcp.").unwrap_or(server);
            let found = (listings.iter())
                .filter(|(s, _)| s == server)
                .flat_map(|(s, tools)| tools.iter().map(move |t| (s, t)))
                .filter(|(_, t)| tool.is_empty() || t.name == tool)
                .collect::<Vec<_>>();
            if found.is_empty() {
                unknown.push(name.to_owned());
            }
            for (server, tool) in found {
                tools.push(json!({
                    "name": format!("{server}:{}", tool.name),
                    "declaration": format!(
                        "declare const mcp: {{\n  {}: {{\n{}  }};\n}};",
                        server,
                        crate::types::tool_declaration(tool, "    ")
                    ),
                    "inputSchema": tool.input_schema,
                    "outputSchema": tool.output_schema,
                    "annotations": tool.annotations,
                }));
            }
        }
        let mut out = json!({ "tools": tools });
        if !unknown.is_empty() {
            out["unknown"] = json!(unknown);
        }
        structured(out)
    }

    async fn save_capability(&self, input: &Map<String, Value>) -> CallToolResult {
        let store = match self.store() {
            Ok(store) => store,
            Err(e) => return failure(&e),
        };
        let (Some(code), Some(name)) = (
            input.get("code").and_then(Value::as_str),
            input.get("name").and_then(Value::as_str),
        ) else {
            return failure("save_capability needs `code` and `name` (strings)");
        };
        let code = &*pml_jstext::to_js_source(code);
        if let Err(why) = crate::capability::check_name(name) {
            return failure(&format!("name {name:?}: {why}"));
        }
        let description = input.get("description").and_then(Value::as_str);
        let replace = input
            .get("replace")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let options = crate::AnalyzeOptions {
            dialect: pml_structure::Dialect::TypeScript,
            permissions: self.permissions(),
            ..Default::default()
        };
        let new = match crate::capability::prepare(code, &options, name, description) {
            Ok(new) => new,
            Err(errors) => {
                return failure(&format!(
                    "not saved: the program has errors\n{}",
                    crate::render_diagnostics("code", &errors)
                ))
            }
        };
        match store.save_capability(&new, replace).await {
            Ok(saved) => {
                let mut out = serde_json::to_value(&saved).unwrap_or_default();
                out["parameters"] = new.parameter_schema.clone();
                if self.inner.capabilities_as_tools {
                    self.tools_changed().await;
                }
                structured(out)
            }
            // Said in this tool's terms, not the command line's (`--replace`).
            Err(pml_store::StoreError::NameTaken { name, code_hash }) => failure(&format!(
                "`{name}` already names capability {code_hash} (pass \"replace\": true to move the name)"
            )),
            Err(e) => failure(&e.to_string()),
        }
    }

    /// With capabilities as tools, on a store others write too: every [`CAPABILITY_POLL`],
    /// tells the clients when the store's capabilities changed since they were last told (a
    /// save through this gateway tells them at once). Ends with the gateway.
    async fn watch_capabilities(&self) {
        let Some(store) = self.inner.env.store.clone() else {
            return;
        };
        *self.inner.told.lock().unwrap_or_else(|e| e.into_inner()) =
            capabilities_fingerprint(&store).await;
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(CAPABILITY_POLL).await;
                let Some(inner) = inner.upgrade() else { return };
                let now = capabilities_fingerprint(&store).await;
                let told = *inner.told.lock().unwrap_or_else(|e| e.into_inner());
                if now.is_some() && now != told {
                    Gateway { inner }.tools_changed().await;
                }
            }
        });
    }

    /// Tells every connected client that the tool list changed (those gone are forgotten).
    async fn tools_changed(&self) {
        if let Some(store) = &self.inner.env.store {
            let now = capabilities_fingerprint(store).await;
            *self.inner.told.lock().unwrap_or_else(|e| e.into_inner()) = now;
        }
        let peers: Vec<rmcp::Peer<RoleServer>> = self
            .inner
            .peers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut gone = Vec::new();
        for (i, peer) in peers.iter().enumerate() {
            if peer.notify_tool_list_changed().await.is_err() {
                gone.push(i);
            }
        }
        if !gone.is_empty() {
            let mut peers = self.inner.peers.lock().unwrap_or_else(|e| e.into_inner());
            let mut i = 0;
            peers.retain(|_| {
                i += 1;
                !gone.contains(&(i - 1))
            });
        }
    }

    /// The stored capabilities as tools: `(tool name, capability name, description,
    /// parameter schema)`, in name order; a name that maps to a tool name taken already is
    /// left out.
    async fn capability_tools(&self) -> Vec<(String, String, Option<String>, Value)> {
        let Ok(Some(capabilities)) = self.capability_types().await else {
            return Vec::new();
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut capabilities = capabilities;
        capabilities.sort_by(|a, b| a.name.cmp(&b.name));
        for c in capabilities {
            let tool = capability_tool_name(&c.name);
            if seen.insert(tool.clone()) {
                out.push((tool, c.name, c.description, c.parameters));
            }
        }
        out
    }

    fn permissions(&self) -> Option<pml_structure::Permissions> {
        (self.inner.run.permissions.as_deref()).and_then(|p| crate::load_permissions(p).ok())
    }

    async fn search_capabilities(&self, input: &Map<String, Value>) -> CallToolResult {
        let store = match self.store() {
            Ok(store) => store,
            Err(e) => return failure(&e),
        };
        let query = input.get("query").and_then(Value::as_str).unwrap_or("");
        let words = words(query);
        let summaries = match store.capabilities().await {
            Ok(summaries) => summaries,
            Err(e) => return failure(&e.to_string()),
        };
        let mut found = Vec::new();
        for summary in summaries {
            let text = format!(
                "{} {} {}",
                summary.names.join(" "),
                summary.description.as_deref().unwrap_or(""),
                summary.tools.join(" ")
            )
            .to_lowercase();
            let score = words.iter().filter(|w| text.contains(w.as_str())).count();
            if !words.is_empty() && score == 0 {
                continue;
            }
            let stored = match store.capability(&summary.code_hash).await {
                Ok(stored) => stored,
                Err(e) => return failure(&e.to_string()),
            };
            let (runs, ok) = match crate::learn::run_counts(store, &summary.code_hash).await {
                Ok(counts) => counts,
                Err(e) => return failure(&e.to_string()),
            };
            found.push((
                score,
                json!({
                    "name": summary.names.first(),
                    "names": summary.names,
                    "description": summary.description,
                    "parameters": stored.parameter_schema,
                    "hash": summary.code_hash,
                    "tools": summary.tools,
                    "runs": runs,
                    "successRate": (runs > 0).then(|| ok as f64 / runs as f64),
                }),
            ));
        }
        found.sort_by_key(|c| std::cmp::Reverse(c.0));
        let capabilities: Vec<Value> = found.into_iter().map(|(_, c)| c).collect();
        structured(json!({ "capabilities": capabilities }))
    }

    async fn run_capability(
        &self,
        input: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let store = match self.store() {
            Ok(store) => store,
            Err(e) => return failure(&e),
        };
        let Some(name) = input.get("name").and_then(Value::as_str) else {
            return failure("run_capability needs `name`");
        };
        let given = match input.get("args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args.clone(),
            Some(_) => return failure("`args` is an object"),
        };
        let stored = match store.capability(name).await {
            Ok(stored) => stored,
            Err(pml_store::StoreError::NotFound(_)) => {
                return failure(&format!(
                    "there is no capability named `{name}` (search_capabilities lists them)"
                ))
            }
            Err(e) => return failure(&e.to_string()),
        };
        // Its literals are parameters whose saved values are the defaults.
        let mut args = stored.parameters.as_object().cloned().unwrap_or_default();
        args.extend(given);
        let args = Value::Object(args);
        // As `capabilities.NAME(args)` in a program is checked: a misspelt parameter would
        // otherwise run the saved default in silence (a write to the saved path).
        let schema = crate::capability::call_schema(&stored);
        let misfits = crate::checks::value_misfits(&args, &schema, "capability");
        if !misfits.is_empty() {
            return failure(&format!(
                "capability `{name}`: {}; nothing ran",
                misfits.join("; ")
            ));
        }
        let source = ProgramSource {
            place: format!("capability {name}"),
            file: None,
            text: stored.parameterized_code.clone(),
            dialect: pml_structure::Dialect::TypeScript,
        };
        let how = How {
            program_hash: Some(stored.code_hash.clone()),
            resume: None,
        };
        let ran = self.run(source, args, how, context).await;
        self.answer(ran).await
    }

    /// A run the client could not be asked about: kept as paused in the store, for the
    /// `approve` tool (of this gateway or another) to continue or end.
    async fn pause(&self, output: &RunOutput, plan: &[pml_executor::SideEffect]) -> CallToolResult {
        let (Some(store), Some(id)) = (self.inner.env.store.as_deref(), &output.run_id) else {
            return failure(
                "the program makes calls that need approval, the client cannot be asked (no elicitation), and without a store the run cannot wait for the approve tool: nothing ran",
            );
        };
        let plan = serde_json::to_value(plan).unwrap_or_default();
        if let Err(e) = store.pause(id, &plan).await {
            return failure(&format!("the run could not be paused: {e}"));
        }
        structured(json!({
            "ok": false,
            "status": "paused",
            "runId": id,
            "plan": plan,
            "message": format!(
                "nothing ran: the program may make calls that need approval (plan); call approve {{\"runId\": \"{id}\", \"decision\": \"approve\"}} to run it, or \"deny\" to end it"
            ),
        }))
    }

    async fn approve(
        &self,
        input: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let store = match self.store() {
            Ok(store) => store,
            Err(e) => return failure(&e),
        };
        let Some(run_id) = input.get("runId").and_then(Value::as_str) else {
            return failure("approve needs `runId`: the id of the paused run");
        };
        let decision = match input.get("decision").and_then(Value::as_str) {
            Some("approve") => "approved",
            Some("deny") => "denied",
            _ => return failure("`decision` is \"approve\" or \"deny\""),
        };
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        match store.decide(run_id, decision, at).await {
            Err(e) => return failure(&e.to_string()),
            Ok(Err(None)) => {
                return failure(&format!("run {run_id} is not waiting for an approval"))
            }
            Ok(Err(Some(state))) => return failure(&format!("run {run_id} was {state} already")),
            Ok(Ok(_plan)) => {}
        }
        if decision == "denied" {
            return structured(json!({
                "ok": false,
                "status": "denied",
                "runId": run_id,
            }));
        }
        let start = match store.run_start(run_id).await {
            Ok((_, start)) => start,
            Err(e) => return failure(&e.to_string()),
        };
        let source = ProgramSource {
            place: start
                .file
                .clone()
                .unwrap_or_else(|| EXECUTE_PLACE.to_owned()),
            file: None,
            text: start.source.clone(),
            dialect: pml_structure::Dialect::TypeScript,
        };
        let how = How {
            program_hash: start.program_hash.clone(),
            resume: Some(crate::run::ResumeOptions {
                run_id: run_id.to_owned(),
                uncertain: None,
                args_given: false,
            }),
        };
        let ran = self.run(source, start.args.clone(), how, context).await;
        self.answer(ran).await
    }

    fn tools(&self, execute_description: String) -> Vec<Tool> {
        let object = |properties: Value, required: &[&str]| {
            let schema = json!({
                "type": "object",
                "properties": properties,
                "required": required,
            });
            Arc::new(schema.as_object().cloned().unwrap_or_default())
        };
        let read_only = rmcp::model::ToolAnnotations::new().read_only(true);
        vec![
            Tool::new(
                "execute",
                execute_description,
                object(
                    json!({
                        "code": {"type": "string", "description": "The TypeScript program: the body of an async function with `mcp`, `args` and `capabilities` in scope; what it returns is the result."},
                        "args": {"type": "object", "description": "What the program reads as `args`."},
                    }),
                    &["code"],
                ),
            )
            .with_annotations(rmcp::model::ToolAnnotations::new().open_world(true)),
            Tool::new(
                "search_tools",
                "Find the MCP tools a program can call: ranked over names, descriptions and parameter names, each with its TypeScript signature.",
                object(
                    json!({
                        "query": {"type": "string", "description": "Words to look for."},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_HITS, "description": "Most hits (default 10)."},
                    }),
                    &["query"],
                ),
            )
            .with_annotations(read_only.clone()),
            Tool::new(
                "describe_tools",
                "The full TypeScript declarations and schemas of tools, by name (`server:tool`, or `server` for all of its tools).",
                object(
                    json!({"names": {"type": "array", "items": {"type": "string"}}}),
                    &["names"],
                ),
            )
            .with_annotations(read_only.clone()),
            Tool::new(
                "save_capability",
                "Save a program as a capability other programs call as `capabilities.<name>(args)`: stored once by its semantic hash (the same program saved under another name becomes an alias), its literals lifted into parameters.",
                object(
                    json!({
                        "code": {"type": "string"},
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "replace": {"type": "boolean", "description": "Move the name when it names another capability."},
                    }),
                    &["code", "name"],
                ),
            )
            .with_annotations(rmcp::model::ToolAnnotations::new().idempotent(true).destructive(false)),
            Tool::new(
                "search_capabilities",
                "The saved capabilities (matching `query` when given): names, description, parameters, hash, runs and success rate.",
                object(json!({"query": {"type": "string"}}), &[]),
            )
            .with_annotations(read_only),
            Tool::new(
                "run_capability",
                "Run a saved capability with `args` (its parameters; the saved values are the defaults).",
                object(
                    json!({"name": {"type": "string"}, "args": {"type": "object"}}),
                    &["name"],
                ),
            )
            .with_annotations(rmcp::model::ToolAnnotations::new().open_world(true)),
            Tool::new(
                "approve",
                "Continue a run that paused for approval (`execute` answered status \"paused\" with its plan): `approve` runs it with that plan approved, `deny` ends it. Each paused run is decided once.",
                object(
                    json!({
                        "runId": {"type": "string"},
                        "decision": {"type": "string", "enum": ["approve", "deny"]},
                    }),
                    &["runId", "decision"],
                ),
            )
            .with_annotations(rmcp::model::ToolAnnotations::new().open_world(true)),
        ]
    }

    async fn read(&self, uri: &str) -> Result<(String, String), String> {
        if uri == TYPES_URI {
            return Ok(("text/x-typescript".into(), self.declarations().await));
        }
        if let Some(name) = uri.strip_prefix("pml://capabilities/") {
            let store = self.store()?;
            let stored = store.capability(name).await.map_err(|e| e.to_string())?;
            let doc = json!({
                "name": name,
                "names": stored.names,
                "hash": stored.code_hash,
                "description": stored.description,
                "code": stored.code,
                "parameters": stored.parameter_schema,
                "tools": stored.tools,
            });
            return Ok(("application/json".into(), pretty(&doc)));
        }
        if let Some(id) = uri.strip_prefix("pml://runs/") {
            let store = self.store()?;
            let run = store.run(id).await.map_err(|e| e.to_string())?;
            let mut doc = serde_json::to_value(&run).unwrap_or_default();
            if run.result_truncated {
                let whole = store
                    .whole_result(&run.id)
                    .await
                    .map_err(|e| e.to_string())?;
                doc["result"] = whole;
                doc["resultTruncated"] = json!(false);
            }
            return Ok(("application/json".into(), pretty(&doc)));
        }
        Err(format!("no resource {uri}"))
    }
}

const TYPES_URI: &str = "pml://types/mcp.d.ts";

/// How a run is made beyond its program and args.
#[derive(Default)]
struct How {
    /// Recorded under this hash (a capability's).
    program_hash: Option<String>,
    /// Continues a paused run.
    resume: Option<crate::run::ResumeOptions>,
}

/// A run that ended, how long it took, and the plan it paused on.
struct Ran {
    output: RunOutput,
    took: Duration,
    paused: Option<Vec<pml_executor::SideEffect>>,
}

/// A resource's JSON text, pretty, as JavaScript writes it (see [`js_text`]).
fn pretty(value: &Value) -> String {
    js_text(serde_json::to_string_pretty(value).unwrap_or_default())
}

/// JSON text whose strings are pml text as Node's `JSON.stringify` writes the same values:
/// lone surrogates as `\udXXX` escapes, numbers as JavaScript writes them (a client parsing
/// it gets the values the program made, and the text an agent reads is Node's).
fn js_text(text: String) -> String {
    match pml_jstext::to_js_json(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(js) => js,
    }
}

/// A tool's answer: `value` as structured content and, as its text block, its JSON text as
/// JavaScript writes it ([`js_text`]; rmcp's `CallToolResult::structured` writes
/// `serde_json`'s).
fn structured(value: Value) -> CallToolResult {
    let text = rmcp::model::ContentBlock::text(js_text(value.to_string()));
    let mut result = CallToolResult::success(vec![text]);
    result.structured_content = Some(value);
    result
}

/// A failed tool's answer, as [`structured`] writes it.
fn structured_error(value: Value) -> CallToolResult {
    let text = rmcp::model::ContentBlock::text(js_text(value.to_string()));
    let mut result = CallToolResult::error(vec![text]);
    result.structured_content = Some(value);
    result
}

/// Exports the run as spans, on a thread of its own, after the answer (a failure is said
/// on stderr).
fn export_spans(url: String, place: String, output: &RunOutput) {
    let report = &output.report;
    let spans = crate::otlp::RunSpans {
        file: place,
        started: output.executed_at,
        duration: Duration::from_secs_f64(report.timings.execute_ms.max(0.0) / 1e3),
        ok: report.ok,
        error: report.error.as_ref().map(|e| e.message.clone()),
        run_id: output.run_id.clone(),
        trace: report.trace.clone(),
        parent: (output.trace_context.as_ref())
            .and_then(|t| t.get("traceparent"))
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    std::thread::spawn(move || {
        if let Err(e) = crate::otlp::export(&url, spans) {
            eprintln!("pml serve: {e}");
        }
    });
}

/// A progress notification per tool call done, when the client asked for them: the
/// observer, and the task that sends them in order (it ends once the observer is dropped,
/// so the answer can wait until they are all sent: a client forgets a request's progress
/// once it has its answer).
fn progress_observer(
    context: &RequestContext<RoleServer>,
) -> Option<(pml_executor::Observer, tokio::task::JoinHandle<()>)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (send, mut sent) = tokio::sync::mpsc::unbounded_channel::<String>();
    let forwarder = tokio::spawn(async move {
        let mut done = 0u64;
        while let Some(tool) = sent.recv().await {
            done += 1;
            let params = ProgressNotificationParam::new(token.clone(), done as f64)
                .with_message(format!("{tool} done"));
            let _ = peer.notify_progress(params).await;
        }
    });
    let observer: pml_executor::Observer = Arc::new(move |event: &TraceEvent| {
        let call = event.event == EventKind::ToolEnd
            && !event.tool.starts_with("code:")
            && event.taken != Some(false);
        if call {
            let _ = send.send(event.tool.to_string());
        }
    });
    Some((observer, forwarder))
}

/// Where to cut `text` to show at most `limit` bytes of it (a character boundary), or `None`
/// when it fits.
fn cut_at(text: &str, limit: usize) -> Option<usize> {
    if text.len() <= limit {
        return None;
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(cut)
}

/// The tool a capability is offered as (`--capabilities-as-tools`): `cap_` and its name,
/// characters clients refuse in tool names as `_`, at most 64 characters.
fn capability_tool_name(name: &str) -> String {
    let mut tool = String::from("cap_");
    for c in name.chars() {
        if tool.len() >= 64 {
            break;
        }
        tool.push(match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        });
    }
    tool
}

/// A tool answer saying what was wrong, with `isError`.
fn failure(message: &str) -> CallToolResult {
    structured_error(json!({ "ok": false, "error": message }))
}

/// A program that did not start: its problems (`execute:line:col: why`).
fn setup_failure(e: RunSetupError) -> CallToolResult {
    let mut out = json!({ "ok": false, "error": e.to_string() });
    if let RunSetupError::Checks { problems } = &e {
        out["problems"] = json!(problems);
    }
    structured_error(out)
}

/// The lowercase words of `text` (identifiers split at `_`, `-` and case changes).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && previous_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            previous_lower = c.is_lowercase();
            word.extend(c.to_lowercase());
        } else {
            previous_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// How well `tool` of `server` matches `query`: per query word, a word of its name counts 4
/// (3 when the word only starts one), its server 2, a parameter name 2, its description 1;
/// all words found doubles the score; a tool its description says is deprecated counts half.
fn score(query: &str, server: &str, tool: &ToolInfo) -> f64 {
    let name = words(&tool.name);
    let server = words(server);
    let description: HashSet<String> = words(tool.description.as_deref().unwrap_or(""))
        .into_iter()
        .collect();
    let parameters: Vec<String> = (tool.input_schema.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().flat_map(|k| words(k)).collect())
        .unwrap_or_default();
    let query = words(query);
    let mut total = 0.0;
    let mut found = 0;
    for q in &query {
        let stem = |w: &String| w.starts_with(q.as_str()) || q.starts_with(w.as_str());
        let mut s = 0.0;
        if name.contains(q) {
            s += 4.0;
        } else if name.iter().any(stem) {
            s += 3.0;
        }
        if server.contains(q) {
            s += 2.0;
        }
        if parameters.iter().any(|p| p == q || stem(p)) {
            s += 2.0;
        }
        if description.contains(q) || description.iter().any(|d| d.len() > 3 && stem(d)) {
            s += 1.0;
        }
        if s > 0.0 {
            found += 1;
        }
        total += s;
    }
    if found == query.len() && found > 1 {
        total *= 2.0;
    }
    if description.contains("deprecated") {
        total *= 0.5;
    }
    total
}

impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        let capabilities = match self.inner.capabilities_as_tools {
            true => ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .build(),
            false => ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("pml", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "pml runs TypeScript programs that call MCP tools (`execute`), in parallel where \
                 they may, with approvals before side effects, and keeps each run. Find tools \
                 with search_tools/describe_tools (declarations: {TYPES_URI}); save programs \
                 that work as capabilities (save_capability) and reuse them \
                 (search_capabilities, run_capability, or `capabilities.<name>(args)` inside \
                 a program). At most {} programs run at once; others wait.",
                self.inner.max_concurrent
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let description = self.execute_description().await;
        let mut tools = self.tools(description);
        if self.inner.capabilities_as_tools {
            for (tool, name, description, parameters) in self.capability_tools().await {
                let mut schema = parameters.as_object().cloned().unwrap_or_default();
                schema.remove("required");
                schema.remove("$schema");
                schema.insert("type".into(), json!("object"));
                let description = format!(
                    "The saved capability `{name}`{}; its parameters default to the saved values.",
                    description.map(|d| format!(": {d}")).unwrap_or_default()
                );
                tools.push(Tool::new(tool, description, Arc::new(schema)));
            }
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if self.inner.capabilities_as_tools {
            (self.inner.peers.lock().unwrap_or_else(|e| e.into_inner())).push(context.peer);
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let input = request.arguments.clone().unwrap_or_default();
        let result = match request.name.as_ref() {
            "execute" => self.execute(&input, &context).await,
            "search_tools" => self.search_tools(&input).await,
            "describe_tools" => self.describe_tools(&input).await,
            "save_capability" => self.save_capability(&input).await,
            "search_capabilities" => self.search_capabilities(&input).await,
            "run_capability" => self.run_capability(&input, &context).await,
            "approve" => self.approve(&input, &context).await,
            other if self.inner.capabilities_as_tools && other.starts_with("cap_") => {
                let found = (self.capability_tools().await.into_iter())
                    .find(|(tool, ..)| tool == other)
                    .map(|(_, name, ..)| name);
                match found {
                    Some(name) => {
                        let mut call = Map::new();
                        call.insert("name".into(), json!(name));
                        call.insert("args".into(), Value::Object(input.clone()));
                        self.run_capability(&call, &context).await
                    }
                    None => {
                        return Err(ErrorData::invalid_params(
                            format!("no tool `{other}` (tools/list lists them)"),
                            None,
                        ))
                    }
                }
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool `{other}` (tools/list lists them)"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = vec![json!({
            "uri": TYPES_URI,
            "name": "mcp.d.ts",
            "description": "TypeScript declarations of the `mcp` API and the saved capabilities",
            "mimeType": "text/x-typescript",
        })];
        if let Ok(Some(capabilities)) = self.capability_types().await {
            for c in capabilities {
                resources.push(json!({
                    "uri": format!("pml://capabilities/{}", c.name),
                    "name": c.name,
                    "description": c.description,
                    "mimeType": "application/json",
                }));
            }
        }
        serde_json::from_value(json!({ "resources": resources }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        serde_json::from_value(json!({ "resourceTemplates": [
            {
                "uriTemplate": "pml://capabilities/{name}",
                "name": "capability",
                "description": "A saved capability: its code, parameter schema and hash",
                "mimeType": "application/json",
            },
            {
                "uriTemplate": "pml://runs/{runId}",
                "name": "run",
                "description": "A recorded run: its whole result, error, trace and timings",
                "mimeType": "application/json",
            },
        ]}))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    /// rmcp hands here a request whose params do not fit its method (`tools/call` with
    /// `arguments` that are no object, no `name`; `resources/read` with no `uri`) as well as
    /// methods it does not know: the first are invalid params (-32602), saying why, the others
    /// not found (-32601).
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let rmcp::model::CustomRequest { method, params, .. } = request;
        let params = params.unwrap_or(Value::Null);
        let why = match method.as_str() {
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
            "resources/read" => serde_json::from_value::<ReadResourceRequestParams>(params).err(),
            "initialize"
            | "ping"
            | "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
            | "logging/setLevel" => None,
            _ => {
                return Err(ErrorData::new(
                    rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                    method,
                    None,
                ));
            }
        };
        let why = why.map_or_else(
            || "they do not fit the method".to_owned(),
            |e| e.to_string(),
        );
        Err(ErrorData::invalid_params(
            format!("{method}: invalid params: {why}"),
            None,
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        match self.read(uri).await {
            Ok((mime, text)) => serde_json::from_value::<rmcp::model::ReadResourceResult>(
                json!({ "contents": [{ "uri": uri, "mimeType": mime, "text": text }] }),
            )
            .map(Into::into)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
            Err(why) => Err(ErrorData::resource_not_found(why, None)),
        }
    }
}
