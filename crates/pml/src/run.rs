//! `pml run`: the whole pipeline on one file, against MCP servers.
//!
//! Source -> (TypeScript types blanked out, positions kept) -> static structure -> the servers
//! it names are started concurrently and asked for their tools -> structure again with their
//! schemas -> logical DAG (with `readOnlyHint`s) -> physical DAG -> execution.
//!
//! With no config file (neither `--mcp-config` nor a project's `.mcp.json`: [`crate::servers`])
//! the reference servers run, the filesystem server rooted in a
//! scratch copy of the program's data folder (`<stem>/` beside the file, if there is one),
//! whose path the program gets as `args.root` unless it passes its own.

use std::collections::{BTreeSet, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use pml_executor::{
    execute, ApprovalPolicy, Approver, AutoApprove, CapabilityProgram, DenyAll, ExecuteOptions,
    Program, RunReport, SideEffect, ToolHost,
};
use pml_mcp::{ClientOptions, McpClients, McpConfig};
use pml_sandbox::{Sandbox, SandboxOptions};
use serde_json::Value;

use crate::analysis::Analysis;
pub use crate::journal::Uncertain;
use crate::servers::ServerSource;
use crate::{dialect_for, load_permissions, read_source, Dialect, InputError, ToolCatalog};

/// How `approve`-requiring calls are decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApproveMode {
    Auto,
    Deny,
    /// Ask on the terminal (stderr + stdin); no answer is a no.
    Prompt,
}

/// Options of `pml run`.
#[derive(Clone)]
pub struct RunOptions {
    pub mcp_config: Option<PathBuf>,
    pub args: Value,
    pub approve: ApproveMode,
    /// Longest an MCP call may take.
    pub timeout_ms: u64,
    /// Longest one code task (or the sandbox-mode program's own JavaScript) may run.
    pub code_time_limit_ms: u64,
    /// Longest the whole run may take, wall clock.
    pub run_timeout_ms: u64,
    /// Most tool calls the run may make.
    pub max_calls: usize,
    /// Start read-only calls ahead of the program.
    pub speculate: bool,
    /// Tools to treat as read-only besides those annotated so.
    pub read_only: Vec<String>,
    pub permissions: Option<PathBuf>,
    /// The capability store to record the run and its call journal in (`None`: not recorded).
    pub store: Option<String>,
    /// Resume an interrupted run (needs `store`).
    pub resume: Option<ResumeOptions>,
    /// Turns `true` to interrupt the run (`pml run` sets it on SIGINT/SIGTERM):
    /// [`ExecuteOptions::interrupt`].
    pub interrupt: Option<tokio::sync::watch::Receiver<bool>>,
    /// Keep the default config's scratch folder after the run (said on stderr).
    pub keep_scratch: bool,
    /// Told of each trace event as it happens ([`ExecuteOptions::on_event`]).
    pub on_event: Option<pml_executor::Observer>,
    /// Decides the calls that need approval, in place of [`RunOptions::approve`].
    pub approver: Option<Arc<dyn Approver>>,
    /// The distributed trace the run is part of (`{"traceparent", "tracestate"?}`: an MCP
    /// client's `_meta`), kept in its record.
    pub trace_context: Option<Value>,
    /// The semantic hash the run is recorded under, in place of its program's own (a run of
    /// a capability's parameterized code is a run of that capability).
    pub program_hash: Option<String>,
    /// Print the warnings of the checks on stderr as the run starts (they are in
    /// [`RunOutput::warnings`] either way).
    pub print_warnings: bool,
}

/// `pml run --resume RUN_ID`.
#[derive(Debug, Clone)]
pub struct ResumeOptions {
    pub run_id: String,
    /// What to do with a call that may or may not have happened; `None`: refuse to resume
    /// when there is one that is neither read-only nor idempotent.
    pub uncertain: Option<Uncertain>,
    /// Whether [`RunOptions::args`] were given (then they must be those of the run resumed).
    pub args_given: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            mcp_config: None,
            args: Value::Object(Default::default()),
            approve: ApproveMode::Auto,
            timeout_ms: 60_000,
            code_time_limit_ms: 5_000,
            run_timeout_ms: pml_executor::DEFAULT_RUN_TIMEOUT.as_millis() as u64,
            max_calls: pml_executor::DEFAULT_MAX_CALLS,
            speculate: true,
            read_only: Vec::new(),
            permissions: None,
            store: None,
            resume: None,
            interrupt: None,
            keep_scratch: false,
            on_event: None,
            approver: None,
            trace_context: None,
            program_hash: None,
            print_warnings: true,
        }
    }
}

/// Timings of the stages before execution, in milliseconds: reading, stripping types and the
/// syntax check (`analyze_ms`, plus installing the servers on first use); starting the servers
/// the program names, listing their tools and building the DAGs (`servers_ms`).
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StageTimings {
    pub analyze_ms: f64,
    pub servers_ms: f64,
    /// With a store: how long the run waited for it (opening it and writing the start beyond
    /// the servers' start, the journal writes calls waited for, writing the run and closing
    /// beyond the servers' stop): what recording the run cost.
    pub store_ms: Option<f64>,
    /// With a store: the part of `store_ms` the program's calls waited for journal writes
    /// (before and after each call that is not read-only).
    pub journal_ms: Option<f64>,
}

/// What `pml run` prints: the executor's report plus the stages' timings.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub report: RunReport,
    pub stages: StageTimings,
    pub program: Program,
    /// The run's id in the store, when it is recorded there.
    pub run_id: Option<String>,
    /// What the checks found that did not keep the program from running.
    pub warnings: Vec<String>,
    /// [`RunOptions::trace_context`].
    pub trace_context: Option<Value>,
    /// When the program started (the trace's `tsMs` count from here).
    pub executed_at: std::time::SystemTime,
}

impl RunOutput {
    /// What `pml run` prints: `{ok, result, executedPath, trace, timings, error?,
    /// droppedEvents?, console?, speculation?, runId?}` (`docs/formats.md`), borrowed from the
    /// report: the result and the trace are written where they are, never copied (a result
    /// can be most of a run's memory).
    pub fn to_json(&self) -> RunJson<'_> {
        let report = &self.report;
        RunJson {
            ok: report.ok,
            result: &report.result,
            executed_path: &report.executed_path,
            trace: &report.trace,
            timings: RunJsonTimings {
                analyze_ms: self.stages.analyze_ms,
                servers_ms: self.stages.servers_ms,
                execute_ms: report.timings.execute_ms,
                store_ms: self.stages.store_ms,
                journal_ms: self.stages.journal_ms,
            },
            error: report.error.as_ref().map(|e| e.message.as_str()),
            dropped_events: (report.dropped_events > 0).then_some(report.dropped_events),
            console: &report.console,
            speculation: report.speculation.as_ref(),
            run_id: self.run_id.as_deref(),
            replay: None,
        }
    }
}

/// [`RunOutput::to_json`]: the printed report, fields in the order they are printed.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunJson<'a> {
    pub ok: bool,
    pub result: &'a Value,
    pub executed_path: &'a [String],
    pub trace: &'a [pml_executor::TraceEvent<'static>],
    pub timings: RunJsonTimings,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_events: Option<u64>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub console: &'a [pml_executor::ConsoleLine],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculation: Option<&'a pml_executor::SpeculationReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<&'a str>,
    /// `pml replay`: which run answered the calls and whether the result is the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<Value>,
}

/// [`RunJson::timings`].
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunJsonTimings {
    pub analyze_ms: f64,
    pub servers_ms: f64,
    pub execute_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal_ms: Option<f64>,
}

/// Everything that can stop a run before the program starts (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum RunSetupError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// The source cannot run (`file:line:col: why`).
    #[error("{file}:{message}")]
    Source { file: String, message: String },
    #[error("{0}")]
    Setup(String),
    #[error(transparent)]
    Store(#[from] pml_store::StoreError),
    /// Calls that cannot be made as written (no such server or tool, arguments that do not
    /// fit its schema): nothing ran (exit status 1). One `place:line:col: why` per problem.
    #[error("{}", problems.join("\n"))]
    Checks { problems: Vec<String> },
    /// `--resume` cannot go on (the program or its args changed, an uncertain call...).
    #[error("cannot resume run {run}: {why}")]
    Resume { run: String, why: String },
}

/// A scratch directory removed on drop.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub(crate) fn new() -> Result<Self, RunSetupError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("pml-run-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(dir.join("root"))
            .map_err(|e| RunSetupError::Setup(format!("cannot create {}: {e}", dir.display())))?;
        // Canonical: the filesystem server compares resolved paths.
        let dir = dir.canonicalize().unwrap_or(dir);
        Ok(Scratch { dir })
    }

    /// The scratch folder whose `root` is `root` (left by a run that was killed).
    fn reuse(root: &Path) -> Result<Self, RunSetupError> {
        match (root.is_dir(), root.parent()) {
            (true, Some(dir)) if root.ends_with("root") => Ok(Scratch {
                dir: dir.to_path_buf(),
            }),
            _ => Err(RunSetupError::Setup(format!(
                "the scratch folder of the run, {}, is gone, and resuming needs the files the run left there: run the program afresh (a run keeps its scratch folder when it is interrupted or killed, or with --keep-scratch)",
                root.display()
            ))),
        }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.join("root")
    }

    /// The folder, left in place.
    pub fn keep(self) -> PathBuf {
        let dir = self.dir.clone();
        std::mem::forget(self);
        dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The data folder of a program: `<stem>/` beside it (`examples/etl.ts` -> `examples/etl/`).
pub fn data_dir_of(file: &Path) -> Option<PathBuf> {
    let stem = file.file_stem()?;
    let dir = file.with_file_name(stem);
    dir.is_dir().then_some(dir)
}

/// The MCP config of a run and, for the default one, its scratch directory (a new copy of the
/// program's data folder, or, resuming a run, that run's: `reuse`, its `root`).
pub fn load_config(
    options: &RunOptions,
    file: &Path,
) -> Result<(McpConfig, Option<Scratch>), RunSetupError> {
    load_config_reusing(options, file, None)
}

fn load_config_reusing(
    options: &RunOptions,
    file: &Path,
    reuse: Option<&Path>,
) -> Result<(McpConfig, Option<Scratch>), RunSetupError> {
    if let ServerSource::File { path, found } =
        ServerSource::choose_for(options.mcp_config.as_deref(), Some(file))
    {
        if found && std::io::stderr().is_terminal() {
            eprintln!("pml: the MCP servers of {}", path.display());
        }
        return Ok((crate::servers::read_config(&path)?, None));
    }
    let scratch = match reuse {
        Some(root) => Scratch::reuse(root)?,
        None => Scratch::new()?,
    };
    match (reuse, data_dir_of(file)) {
        (None, Some(data)) => {
            copy_dir(&data, &scratch.root()).map_err(|e| {
                RunSetupError::Setup(format!(
                    "cannot copy {} to the scratch folder: {e}",
                    data.display()
                ))
            })?;
        }
        // Said to a person, who may have expected their files there.
        (None, None) if std::io::stderr().is_terminal() => {
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
            eprintln!(
                "pml: {} has no data folder beside it ({}/): the filesystem server serves an empty folder (args.root)",
                file.display(),
                file.with_file_name(stem.unwrap_or_default()).display()
            );
        }
        _ => {}
    }
    let config = crate::servers::reference_config(&scratch.root(), &scratch.dir)?;
    Ok((config, Some(scratch)))
}

/// JavaScript for the program: TypeScript types blanked out (positions kept).
pub fn javascript_of(file: &Path, source: &str) -> Result<String, RunSetupError> {
    javascript_in(&file.display().to_string(), dialect_for(file), source)
}

/// [`javascript_of`] for a program that is not a file: `place` names it in errors.
fn javascript_in(place: &str, dialect: Dialect, source: &str) -> Result<String, RunSetupError> {
    match dialect {
        Dialect::JavaScript => Ok(source.to_owned()),
        Dialect::TypeScript => {
            pml_structure::strip_types(source).map_err(|e| RunSetupError::Source {
                file: place.to_owned(),
                message: e.to_string(),
            })
        }
    }
}

/// A program to run and where it comes from.
#[derive(Debug, Clone)]
pub struct ProgramSource {
    /// How errors and the run record name it: the file's path, or what the gateway calls a
    /// program sent to it.
    pub place: String,
    /// The file it was read from (the default servers work in a copy of its data folder).
    pub file: Option<PathBuf>,
    pub text: String,
    pub dialect: Dialect,
}

impl ProgramSource {
    /// The program in `file`.
    pub fn read(file: &Path) -> Result<Self, RunSetupError> {
        Ok(ProgramSource {
            place: file.display().to_string(),
            file: Some(file.to_path_buf()),
            text: read_source(file)?,
            dialect: dialect_for(file),
        })
    }
}

/// A program checked before anything starts: its JavaScript (types blanked out), free of
/// syntax errors, and whether it calls capabilities.
#[derive(Debug, Clone)]
pub struct Analyzed {
    pub source: ProgramSource,
    /// Its JavaScript, analysed once.
    pub analysis: Analysis,
}

impl Analyzed {
    pub fn of(source: ProgramSource) -> Result<Self, RunSetupError> {
        let analysis = Analysis::of_source(&source.text, source.dialect).map_err(|e| {
            RunSetupError::Source {
                file: source.place.clone(),
                message: e.to_string(),
            }
        })?;
        if let Some(d) = analysis.first_error() {
            return Err(RunSetupError::Source {
                file: source.place.clone(),
                message: d.located(),
            });
        }
        Ok(Analyzed { source, analysis })
    }
}

/// The structure, DAGs and tool facts for `source`, asking `host` for the tools of the
/// servers the program names.
pub async fn prepare(
    source: &str,
    host: Arc<dyn ToolHost>,
    permissions: Option<pml_structure::Permissions>,
    optimize: bool,
) -> (
    Program,
    HashMap<String, pml_mcp::ToolAnnotations>,
    Vec<String>,
) {
    let analysis = Analysis::of(source.to_owned());
    let (catalog, annotations, warnings, _) = tool_catalog(analysis.servers(), host).await;
    let program = analysis.program(&catalog, permissions.as_ref(), optimize);
    (program, annotations, warnings)
}

/// The tools of every server of `servers` (started at once), with their annotations, the
/// listing errors of those that did not start, and the servers that listed their tools.
pub async fn tool_catalog(
    servers: BTreeSet<String>,
    host: Arc<dyn ToolHost>,
) -> (
    ToolCatalog,
    HashMap<String, pml_mcp::ToolAnnotations>,
    Vec<String>,
    BTreeSet<String>,
) {
    // Start every named server at once; one that fails is reported when a call reaches it.
    let mut starts = tokio::task::JoinSet::new();
    for server in servers {
        let host = host.clone();
        starts.spawn(async move {
            let listing = host.tools(&server).await;
            (server, listing)
        });
    }
    let mut listings = Vec::new();
    while let Some(joined) = starts.join_next().await {
        if let Ok(listing) = joined {
            listings.push(listing);
        }
    }
    listings.sort_by(|a, b| a.0.cmp(&b.0));
    let mut catalog = ToolCatalog::default();
    let mut annotations = HashMap::new();
    let mut warnings = Vec::new();
    let mut listed = BTreeSet::new();
    for (server, listing) in listings {
        match listing {
            Ok(tools) => {
                listed.insert(server.clone());
                for t in tools {
                    let name = format!("{server}:{}", t.name);
                    catalog.insert(pml_structure::ToolSchema {
                        name: name.clone(),
                        description: t.description.clone(),
                        input_schema: Some(t.input_schema.clone()),
                        output_schema: t.output_schema.clone(),
                        annotations: serde_json::to_value(&t.annotations).ok(),
                    });
                    annotations.insert(name, t.annotations);
                }
            }
            Err(e) => warnings.push(e),
        }
    }
    (catalog, annotations, warnings, listed)
}

/// A secret for the name of a run's probe object: 64 bits from the operating system's random
/// source (else from the standard library's hasher keys, which come from it too).
pub(crate) fn probe_secret() -> u64 {
    getrandom::u64().unwrap_or_else(|_| {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH))
                .map_or(0, |d| d.as_nanos()),
        );
        hasher.finish()
    })
}

/// Asks on the terminal: the plan of side effects once, before anything runs; then only about
/// a call the plan did not foresee, or foresaw with other arguments.
#[derive(Default)]
struct Prompt {
    plan: pml_executor::ApprovedPlan,
    /// An interrupt answers the question no.
    interrupt: Option<tokio::sync::watch::Receiver<bool>>,
}

impl Prompt {
    /// Asks `question` on stderr and reads a yes or no from stdin (no answer is a no; an
    /// interrupt too, without waiting for the answer).
    async fn ask(&self, question: String) -> bool {
        let answer = read_answer(question);
        match self.interrupt.clone() {
            Some(mut interrupt) => tokio::select! {
                yes = answer => yes,
                _ = interrupt.wait_for(|on| *on) => false,
            },
            None => answer.await,
        }
    }
}

/// Asks `question` on stderr and reads a yes or no from stdin (no answer is a no).
async fn read_answer(question: String) -> bool {
    use std::sync::atomic::Ordering;
    crate::summary::ASKING.store(true, Ordering::Release);
    let yes = tokio::task::spawn_blocking(move || {
        use std::io::{BufRead, IsTerminal, Write};
        {
            // Not held while waiting for the answer: others (Ctrl-C's notice) write to stderr.
            let mut err = std::io::stderr().lock();
            // On a terminal, from the start of a clean line (a progress line may be there).
            if err.is_terminal() {
                let _ = err.write_all(b"\r\x1b[2K");
            }
            let _ = err.write_all(question.as_bytes());
            let _ = err.flush();
        }
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(n) if n > 0 => matches!(line.trim(), "y" | "Y" | "yes"),
            _ => false,
        }
    })
    .await
    .unwrap_or(false);
    crate::summary::ASKING.store(false, Ordering::Release);
    yes
}

/// The plan of side effects as the prompt shows it, one call per line (and its notes).
pub fn describe_plan(planned: &[SideEffect]) -> String {
    let mut out = String::new();
    for effect in planned.iter().filter(|e| e.needs_approval) {
        let at = match (effect.line, effect.column) {
            (Some(line), Some(column)) => format!(" (at {line}:{column})"),
            _ => String::new(),
        };
        let arguments = (effect.arguments.as_ref())
            .map(|a| format!(" {}", planned_arguments(a)))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{arguments}{at}\n",
            effect.task_id, effect.tool
        ));
        let mut notes = Vec::new();
        if effect.may_run {
            notes.push(
                "may run (in a branch, a loop or a function: maybe not, maybe several times)"
                    .to_owned(),
            );
        }
        if !effect.reads_before.is_empty() {
            notes.push(format!(
                "after reading with {}",
                effect.reads_before.join(", ")
            ));
        }
        if !notes.is_empty() {
            out.push_str(&format!("      {}\n", notes.join("; ")));
        }
    }
    out
}

/// Planned arguments as JSON, computed parts as `<expression>`.
fn planned_arguments(value: &Value) -> String {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key(pml_executor::COMPUTED) => {
            format!("<{}>", map[pml_executor::COMPUTED].as_str().unwrap_or("?"))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), planned_arguments(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(planned_arguments).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

impl Approver for Prompt {
    fn review<'a>(&'a self, planned: &'a [SideEffect]) -> pml_executor::BoxFuture<'a, bool> {
        Box::pin(async move {
            let asked: Vec<SideEffect> = planned
                .iter()
                .filter(|e| e.needs_approval)
                .cloned()
                .collect();
            if asked.is_empty() {
                return true;
            }
            let question = format!(
                "pml: the program may make these calls, which need approval:\n{}pml: run it? [y/N] ",
                describe_plan(&asked)
            );
            let yes = self.ask(question).await;
            if yes {
                self.plan.approve(&asked);
            }
            yes
        })
    }

    fn approve<'a>(&'a self, call: &'a SideEffect) -> pml_executor::BoxFuture<'a, bool> {
        Box::pin(async move {
            if self.plan.covers(call) {
                return true;
            }
            let question = format!(
                "pml: a call the approved plan does not cover: {} ({}) with {}? [y/N] ",
                call.tool,
                call.task_id,
                call.arguments
                    .as_ref()
                    .map(pml_executor::preview)
                    .unwrap_or_default()
            );
            self.ask(question).await
        })
    }
}

/// Runs `file` per `options`. `Err` for problems before the program starts (exit 2); a
/// program that fails is an `Ok` report with `ok: false` (exit 1). With a store, the run is
/// written there as it starts, each call as it starts and ends (the journal), and the whole
/// run when it ends; with `resume`, the calls the interrupted run completed are answered from
/// its journal. The servers start for this run and stop after it.
pub async fn run_file(file: &Path, options: &RunOptions) -> Result<RunOutput, RunSetupError> {
    let started = Instant::now();
    let started_at = now_ms();
    let analyzed = Analyzed::of(ProgramSource::read(file)?)?;
    // The store opens while the servers start, unless what comes before them needs it (the
    // run to resume, the capabilities the program calls).
    let mut opening = options.store.clone().map(|location| {
        tokio::spawn(async move { crate::capability::open_store(&location).await.map(Arc::new) })
    });
    let mut store_ms = 0.0;
    let mut store: Option<Arc<pml_store::Store>> = None;
    if options.resume.is_some() || analyzed.analysis.calls_capabilities() {
        let waited = Instant::now();
        store = open_store(opening.take()).await?;
        store_ms += waited.elapsed().as_secs_f64() * 1e3;
    }
    let (resumed, called) = before_servers(&analyzed, store.as_deref(), options).await?;
    let reuse = resumed.as_ref().and_then(|(_, start, _)| {
        start
            .args
            .get("root")
            .and_then(Value::as_str)
            .map(PathBuf::from)
    });
    let reuse = reuse.filter(|_| options.mcp_config.is_none());
    let (config, scratch) = load_config_reusing(options, file, reuse.as_deref())?;
    let mut inherited = serde_json::Map::new();
    if let Some(scratch) = &scratch {
        // The folder the default config's filesystem server serves.
        let root = scratch.root().to_string_lossy().into_owned();
        inherited.insert("root".to_owned(), Value::String(root));
    }
    let clients = Arc::new(McpClients::new(
        config,
        ClientOptions {
            call_timeout: std::time::Duration::from_millis(options.timeout_ms),
            ..ClientOptions::default()
        },
    ));
    let output = run_set_up(
        SetUp {
            analyzed,
            called,
            resumed,
            inherited,
            clients,
            owns_clients: true,
            sandboxes: None,
            store: StoreState { store, opening },
            store_ms,
            started,
            started_at,
        },
        options,
    )
    .await;
    // An interrupted run that was recorded can be resumed: what it left in its scratch folder
    // is kept for that.
    let resumable = (output.as_ref().ok())
        .filter(|o| {
            (o.report.error.as_ref()).is_some_and(|e| e.message == pml_executor::INTERRUPTED)
        })
        .and_then(|o| o.run_id.clone());
    // A resume that could not start (an uncertain call to decide, a server that did not
    // start, a check) leaves the folder it was to resume in place, for the next attempt.
    let resumable = match (&output, &options.resume) {
        (Err(_), Some(resume)) if reuse.is_some() => Some(resume.run_id.clone()),
        _ => resumable,
    };
    match (scratch, resumable) {
        (Some(scratch), _) if options.keep_scratch => {
            eprintln!(
                "pml: the scratch folder is kept: {}",
                scratch.keep().display()
            );
        }
        (Some(scratch), Some(id)) => {
            eprintln!(
                "pml: the scratch folder is kept for `pml run {} --resume {id}`: {}",
                file.display(),
                scratch.keep().display()
            );
        }
        (scratch, _) => drop(scratch),
    }
    output
}

/// What runs share when they run on servers that stay up (`pml serve`): the servers, the
/// store, the arguments every program gets unless it passes its own, and sandboxes made
/// ahead.
#[derive(Clone)]
pub struct SharedEnv {
    pub clients: Arc<McpClients>,
    pub store: Option<Arc<pml_store::Store>>,
    /// `args` given to every program that does not pass them (the default filesystem
    /// server's folder as `root`).
    pub inherited: serde_json::Map<String, Value>,
    pub sandboxes: Option<Arc<Spares>>,
}

/// Sandboxes ready for the next runs: made ahead (making one starts its worker threads and
/// their QuickJS runtimes: ~10 ms of CPU), and given back by the runs that used them. A
/// sandbox runs every task in a fresh context (`pml_sandbox`: nothing a task defines
/// survives it), so a run sees nothing of the runs that used its sandbox before; one run
/// uses a sandbox at a time.
pub struct Spares {
    options: SandboxOptions,
    ready: std::sync::Mutex<Vec<Sandbox>>,
    /// How many are kept ready.
    keep: usize,
}

impl Spares {
    /// Keeps up to `keep` sandboxes with the limits of `options` (`code_time_limit_ms`)
    /// ready, two of them made now.
    pub fn new(options: &RunOptions, keep: usize) -> Arc<Self> {
        let spares = Arc::new(Spares {
            options: sandbox_options(options),
            ready: std::sync::Mutex::new(Vec::new()),
            keep,
        });
        spares.refill_to(keep.min(2));
        spares
    }

    /// A ready sandbox, or a new one when none is; when that was the last one, another is
    /// made behind it.
    fn take(self: &Arc<Self>) -> Result<Sandbox, RunSetupError> {
        let (spare, left) = {
            let mut ready = self.ready.lock().unwrap_or_else(|e| e.into_inner());
            (ready.pop(), ready.len())
        };
        if left == 0 {
            self.refill_to(1);
        }
        match spare {
            Some(sandbox) => Ok(sandbox),
            None => {
                Sandbox::new(self.options.clone()).map_err(|e| RunSetupError::Setup(e.to_string()))
            }
        }
    }

    /// A sandbox a run used, for the next ones (dropped when enough are ready).
    fn give_back(&self, sandbox: Sandbox) {
        let mut ready = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        if ready.len() < self.keep {
            ready.push(sandbox);
        }
    }

    /// Makes sandboxes on a blocking thread until `count` are ready.
    fn refill_to(self: &Arc<Self>, count: usize) {
        let spares = self.clone();
        let make = move || loop {
            if spares.ready.lock().unwrap_or_else(|e| e.into_inner()).len() >= count {
                return;
            }
            let Ok(sandbox) = Sandbox::new(spares.options.clone()) else {
                return;
            };
            spares
                .ready
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(sandbox);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(make)),
            Err(_) => make(),
        }
    }
}

fn sandbox_options(options: &RunOptions) -> SandboxOptions {
    SandboxOptions {
        time_limit: std::time::Duration::from_millis(options.code_time_limit_ms.max(1)),
        ..SandboxOptions::default()
    }
}

/// Runs `source` per `options` on servers and a store that outlive the run (they are neither
/// started nor stopped here): as [`run_file`] does otherwise, resuming included.
pub async fn run_shared(
    source: ProgramSource,
    env: &SharedEnv,
    options: &RunOptions,
) -> Result<RunOutput, RunSetupError> {
    let started = Instant::now();
    let started_at = now_ms();
    let analyzed = Analyzed::of(source)?;
    let (resumed, called) = before_servers(&analyzed, env.store.as_deref(), options).await?;
    run_set_up(
        SetUp {
            analyzed,
            called,
            resumed,
            inherited: env.inherited.clone(),
            clients: env.clients.clone(),
            owns_clients: false,
            sandboxes: env.sandboxes.clone(),
            store: StoreState {
                store: env.store.clone(),
                opening: None,
            },
            store_ms: 0.0,
            started,
            started_at,
        },
        options,
    )
    .await
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// An interrupted run being resumed: its full id, start and journal.
type Resumed = (String, pml_store::RunStart, Vec<pml_store::JournalEntry>);

/// Before any server starts: the run to resume (checked against what runs now) and the
/// capabilities the program calls (and those they call), from `store`.
async fn before_servers(
    analyzed: &Analyzed,
    store: Option<&pml_store::Store>,
    options: &RunOptions,
) -> Result<(Option<Resumed>, Vec<crate::capability::Called>), RunSetupError> {
    let resumed = match (&options.resume, store) {
        (Some(resume), Some(store)) => {
            Some(resumable(store, resume, options, &analyzed.source.text).await?)
        }
        (Some(resume), None) => {
            return Err(RunSetupError::Resume {
                run: resume.run_id.clone(),
                why: "there is no store to resume from (--no-store)".into(),
            })
        }
        _ => None,
    };
    let called = match analyzed.analysis.calls_capabilities() {
        true => {
            let (place, structure) = (&analyzed.source.place, &analyzed.analysis.structure);
            crate::capability::resolve_called(store, place, structure).await?
        }
        false => Vec::new(),
    };
    // Resuming: the capabilities it calls must be those it called.
    if let Some((id, start, _)) = &resumed {
        for c in &called {
            let then = start.capabilities.get(&c.name).and_then(Value::as_str);
            if then.is_some_and(|then| then != c.stored.code_hash) {
                return Err(RunSetupError::Resume {
                    run: id.clone(),
                    why: format!(
                        "capabilities.{} is not the program it called: `{}` names capability {} now, {} then",
                        c.name,
                        c.name,
                        short_hash(&c.stored.code_hash),
                        short_hash(then.unwrap_or_default())
                    ),
                });
            }
        }
    }
    Ok((resumed, called))
}

/// The store of a run: open, being opened, or none.
struct StoreState {
    store: Option<Arc<pml_store::Store>>,
    opening: Option<tokio::task::JoinHandle<Result<Arc<pml_store::Store>, pml_store::StoreError>>>,
}

/// A run whose program is analysed and whose servers are configured.
struct SetUp {
    analyzed: Analyzed,
    called: Vec<crate::capability::Called>,
    resumed: Option<Resumed>,
    /// `args` the program gets unless it passes its own.
    inherited: serde_json::Map<String, Value>,
    clients: Arc<McpClients>,
    /// Stop the servers when the run ends.
    owns_clients: bool,
    /// Where its sandbox comes from (`None`: made for it).
    sandboxes: Option<Arc<Spares>>,
    store: StoreState,
    /// How long the run waited for the store so far.
    store_ms: f64,
    started: Instant,
    started_at: i64,
}

/// The rest of a run, shared by [`run_file`] and [`run_shared`]: the servers list their tools
/// while the run's start is written, the program is checked against them, runs, and is
/// recorded.
async fn run_set_up(set_up: SetUp, options: &RunOptions) -> Result<RunOutput, RunSetupError> {
    let SetUp {
        analyzed,
        called,
        resumed,
        inherited,
        clients,
        owns_clients,
        sandboxes,
        store: StoreState { store, mut opening },
        mut store_ms,
        started,
        started_at,
    } = set_up;
    let place = analyzed.source.place.clone();
    let file = analyzed
        .source
        .file
        .as_ref()
        .map(|f| f.display().to_string());
    let source = &analyzed.source.text;
    let permissions = options
        .permissions
        .as_deref()
        .map(load_permissions)
        .transpose()?;
    let mut args = match &resumed {
        Some((_, start, _)) => start.args.clone(),
        None => options.args.clone(),
    };
    if let Value::Object(map) = &mut args {
        for (key, value) in &inherited {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    let stop = |clients: Arc<McpClients>| async move {
        if owns_clients {
            clients.shutdown().await;
        }
    };
    let analyze_ms = started.elapsed().as_secs_f64() * 1e3;
    let servers_started = Instant::now();
    let servers: BTreeSet<String> = std::iter::once(&analyzed.analysis)
        .chain(called.iter().map(|c| &c.analysis))
        .flat_map(Analysis::servers)
        .collect();
    let start = pml_store::RunStart {
        program_hash: None,
        file: Some(place.clone()),
        source: source.clone(),
        args: args.clone(),
        given_args: match &resumed {
            Some((_, start, _)) => start.given_args.clone(),
            None => options.args.clone(),
        },
        resumed_from: resumed.as_ref().map(|(id, _, _)| id.clone()),
        started_at,
        capabilities: (called.iter())
            .map(|c| (c.name.clone(), Value::String(c.stored.code_hash.clone())))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    };
    // The servers start and list their tools while the run's start is written (the store
    // opened, the program hashed): what the run waits for is the longer of the two.
    let servers = async {
        let listed = tool_catalog(servers, clients.clone()).await;
        (listed, servers_started.elapsed())
    };
    let recording = async {
        let store = match store.clone() {
            Some(store) => Some(store),
            None => open_store(opening.take()).await?,
        };
        let Some(store) = store else {
            return Ok(None);
        };
        let mut start = start;
        start.program_hash = match &options.program_hash {
            Some(hash) => Some(hash.clone()),
            None => analyzed.analysis.hash(),
        };
        let id = pml_store::new_run_id();
        // One connection for the start and the journal; the start is written once the run
        // is checked, while it runs.
        let writer = store.journal_writer().await?;
        Ok::<_, RunSetupError>(Some((store, id, writer, start)))
    };
    let (((catalog, annotations, _warnings, listed), listing), recorded) =
        tokio::join!(servers, recording);
    let recorded = match recorded {
        Ok(recorded) => recorded,
        Err(e) => {
            stop(clients).await;
            return Err(e);
        }
    };
    if recorded.is_some() {
        store_ms += (servers_started.elapsed().saturating_sub(listing)).as_secs_f64() * 1e3;
    }
    let program = (analyzed.analysis).program(&catalog, permissions.as_ref(), true);
    let capabilities = (called.iter())
        .map(|c| {
            let program = CapabilityProgram {
                code_hash: c.stored.code_hash.clone(),
                program: c.analysis.program(&catalog, permissions.as_ref(), true),
                defaults: c.stored.parameters.as_object().cloned().unwrap_or_default(),
            };
            (c.name.clone(), Arc::new(program))
        })
        .collect::<HashMap<String, Arc<CapabilityProgram>>>();
    // Checked before anything runs: every call names a server and a tool that exist, with
    // arguments that fit; else nothing runs (and the run's start is taken back).
    let configured: Vec<String> = clients.server_names().map(str::to_owned).collect();
    let schemas = crate::capability::call_schemas(&called);
    let offered = crate::checks::Offered {
        capabilities: &schemas,
        configured: &configured,
        origin: clients.origin(),
        listed: &listed,
        catalog: &catalog,
    };
    let structures =
        std::iter::once((place.clone(), &program.structure)).chain(called.iter().map(|c| {
            let structure = &capabilities[&c.name].program.structure;
            (format!("capability {}", c.name), structure)
        }));
    let CallProblems {
        certain: problems,
        warnings,
    } = problems_of(structures, &offered);
    if !problems.is_empty() {
        let problems = problems.into_iter().chain(warnings).collect();
        stop(clients).await;
        // Nothing of the refused run was written.
        drop(recorded);
        return Err(RunSetupError::Checks { problems });
    }
    let mut notes = warnings;
    if resumed.is_none() {
        for p in crate::checks::missing_args(&program.structure, &args) {
            notes.push(format!("{place}{p} (a warning)"));
        }
    }
    if options.print_warnings {
        for note in &notes {
            // `file:line:col: why (a warning)`, as editors and CI annotations read it.
            eprintln!("{note}");
        }
    }
    let servers_ms = servers_started.elapsed().as_secs_f64() * 1e3;
    let (store, journal, run_id, program_hash) = match recorded {
        Some((store, id, mut writer, start)) => {
            let program_hash = start.program_hash.clone();
            let read_only = |tool: &str| {
                options.read_only.iter().any(|t| t == tool)
                    || annotations.get(tool).is_some_and(|a| a.read_only())
            };
            // Calls whose answers may wait for the next write to reach the disk.
            let read_only_tools = (annotations.keys())
                .filter(|tool| read_only(tool))
                .cloned()
                .chain(options.read_only.iter().cloned())
                .collect();
            let earlier = match &resumed {
                Some((id, _, journal)) => {
                    if let Err(e) = check_uncertain(id, journal, options, &annotations, &read_only)
                    {
                        stop(clients).await;
                        return Err(e);
                    }
                    journal.clone()
                }
                None => Vec::new(),
            };
            let uncertain = options.resume.as_ref().and_then(|r| r.uncertain);
            // The run's start: written while the program runs (its journal's first write
            // waits for it, as the run's record does).
            let starting = {
                let id = id.clone();
                tokio::spawn(async move { writer.start_run(&id, &start).await.map(|()| writer) })
            };
            let journal = Arc::new(crate::journal::StoreJournal::new(
                id.clone(),
                starting,
                read_only_tools,
                earlier,
                uncertain,
            ));
            (Some(store), Some(journal), Some(id), program_hash)
        }
        None => (None, None, None, None),
    };
    let sandbox = match &sandboxes {
        Some(spares) => spares.take(),
        None => {
            Sandbox::new(sandbox_options(options)).map_err(|e| RunSetupError::Setup(e.to_string()))
        }
    };
    let sandbox = match sandbox {
        Ok(sandbox) => sandbox,
        Err(e) => {
            stop(clients).await;
            return Err(e);
        }
    };
    let approver: Arc<dyn Approver> = match (&options.approver, options.approve) {
        (Some(approver), _) => approver.clone(),
        (None, ApproveMode::Auto) => Arc::new(AutoApprove),
        (None, ApproveMode::Deny) => Arc::new(DenyAll),
        (None, ApproveMode::Prompt) => Arc::new(Prompt {
            interrupt: options.interrupt.clone(),
            ..Prompt::default()
        }),
    };
    let execute_options = ExecuteOptions {
        args: args.clone(),
        policy: ApprovalPolicy { permissions },
        annotations,
        run_timeout: std::time::Duration::from_millis(options.run_timeout_ms),
        max_calls: options.max_calls,
        // Resuming: the journal answers the earlier calls; reads started ahead would not be.
        speculate: options.speculate && resumed.is_none(),
        read_only: options.read_only.clone(),
        journal: journal.clone().map(|j| j as Arc<dyn pml_executor::Journal>),
        capabilities,
        inherited_args: inherited.keys().cloned().collect(),
        interrupt: options.interrupt.clone(),
        on_event: options.on_event.clone(),
    };
    let executed_at = std::time::SystemTime::now();
    let sandbox = Arc::new(sandbox);
    let report = execute(
        &program,
        clients.clone(),
        approver,
        sandbox.clone(),
        &execute_options,
    )
    .await;
    drop(execute_options);
    if let (Some(spares), Some(sandbox)) = (&sandboxes, Arc::into_inner(sandbox)) {
        // A sandbox with a worker the watchdog gave up on is not handed on.
        if sandbox.abandoned_workers() == 0 {
            spares.give_back(sandbox);
        }
    }
    let journal_ms = journal.as_ref().map(|j| j.waited_ms());
    store_ms += journal_ms.unwrap_or(0.0);
    let mut output = RunOutput {
        report,
        stages: StageTimings {
            analyze_ms,
            servers_ms,
            store_ms: store.as_ref().map(|_| store_ms),
            journal_ms,
        },
        program,
        run_id: None,
        warnings: notes,
        trace_context: options.trace_context.clone(),
        executed_at,
    };
    // The servers stop while the run is written down.
    let stopping = async {
        let stopped = Instant::now();
        stop(clients).await;
        stopped.elapsed()
    };
    let recording = async {
        let store = store?;
        if let Some(journal) = &journal {
            journal.finish().await;
        }
        let record = crate::capability::run_record(
            program_hash,
            file.as_deref().or(Some(place.as_str())),
            &args,
            &output,
            started_at,
            started.elapsed().as_millis() as i64,
        );
        let id = run_id?;
        let recorded = store.record_run(Some(&id), &record).await;
        // Closed, not dropped: the journal's connection goes back first, and closing the
        // last connection checkpoints SQLite's write-ahead log (left to grow, it makes every
        // later open slower). A store shared with other runs stays open.
        drop(journal);
        if let Some(store) = Arc::into_inner(store) {
            store.close().await;
        }
        Some(recorded)
    };
    let ended = Instant::now();
    let (shutdown, recorded) = tokio::join!(stopping, recording);
    match recorded {
        Some(Ok(id)) => {
            output.run_id = Some(id);
            let waited = ended.elapsed().saturating_sub(shutdown).as_secs_f64() * 1e3;
            if let Some(ms) = &mut output.stages.store_ms {
                *ms += waited;
            }
        }
        Some(Err(e)) => eprintln!("pml: the run was not recorded: {e}"),
        None => {}
    }
    Ok(output)
}

/// The problems of each `(place, structure)`'s calls, as `place:line:col: why`.
/// What [`problems_of`] finds: `place:line:col: why` per call the program is certain to make
/// and that would fail (the run is refused), and per call it may not make or whose failure it
/// may catch (warnings: the run goes on, as running it directly would).
#[derive(Debug, Default)]
pub struct CallProblems {
    pub certain: Vec<String>,
    pub warnings: Vec<String>,
}

/// The calls of the program (the first structure) and of the capabilities it calls (the others,
/// placed `capability NAME`) that do not fit the servers. A capability's problem is certain
/// when it is certain in the capability and the program certainly calls the capability.
fn problems_of<'a>(
    mut structures: impl Iterator<Item = (String, &'a pml_structure::StaticStructure)>,
    offered: &crate::checks::Offered<'_>,
) -> CallProblems {
    let mut out = CallProblems::default();
    let Some((place, main)) = structures.next() else {
        return out;
    };
    let certain = crate::checks::certain_nodes(main);
    let certainly_called: std::collections::HashSet<&str> = (main.nodes.iter())
        .filter(|n| certain.contains(n.id.as_str()))
        .filter_map(|n| n.capability_id.as_deref())
        .collect();
    let mut add = |place: &str, problem: crate::checks::Problem, certain: bool| {
        match certain {
        true => out.certain.push(format!("{place}{problem}")),
        false => out.warnings.push(format!(
            "{place}{problem} (a warning: the program may not make this call, or may catch its failure)"
        )),
    }
    };
    for p in crate::checks::check_calls(main, offered) {
        let certain = p.certain;
        add(&place, p, certain);
    }
    for (place, structure) in structures {
        let called =
            (place.strip_prefix("capability ")).is_some_and(|name| certainly_called.contains(name));
        for p in crate::checks::check_calls(structure, offered) {
            let certain = p.certain && called;
            add(&place, p, certain);
        }
    }
    out
}

/// `pml check --mcp-config`: the checks `pml run` makes before anything runs (every call names
/// a configured server and one of its tools, literal arguments fit its input schema, and the
/// same for the capabilities it calls when `store` has them), made against the servers
/// (started, listed, stopped), without running anything. The problems, `place:line:col: why`
/// each: those that would refuse the run, and warnings; an `Err` for a program with errors
/// (exit 1) or servers that cannot be set up (2). `analyzed` is the program of `file`.
pub async fn check_analyzed(
    file: &Path,
    Analyzed { analysis, .. }: Analyzed,
    mcp_config: Option<&Path>,
    store: Option<String>,
) -> Result<CallProblems, RunSetupError> {
    let calls_capabilities = analysis.calls_capabilities();
    let store = match (calls_capabilities, store) {
        (true, Some(location)) => Some(crate::capability::open_store(&location).await?),
        _ => None,
    };
    let called = match calls_capabilities {
        true => {
            let place = file.display().to_string();
            crate::capability::resolve_called(store.as_ref(), &place, &analysis.structure).await?
        }
        false => Vec::new(),
    };
    let options = RunOptions {
        mcp_config: mcp_config.map(Path::to_path_buf),
        ..RunOptions::default()
    };
    let (config, scratch) = load_config(&options, file)?;
    let clients = Arc::new(McpClients::new(config, ClientOptions::default()));
    let servers: BTreeSet<String> = std::iter::once(&analysis)
        .chain(called.iter().map(|c| &c.analysis))
        .flat_map(Analysis::servers)
        .collect();
    let (catalog, _, _, listed) = tool_catalog(servers, clients.clone()).await;
    clients.shutdown().await;
    drop(scratch);
    let configured: Vec<String> = clients.server_names().map(str::to_owned).collect();
    let schemas = crate::capability::call_schemas(&called);
    let offered = crate::checks::Offered {
        capabilities: &schemas,
        configured: &configured,
        origin: clients.origin(),
        listed: &listed,
        catalog: &catalog,
    };
    let structures: Vec<(String, pml_structure::StaticStructure)> =
        std::iter::once((file.display().to_string(), &analysis))
            .chain((called.iter()).map(|c| (format!("capability {}", c.name), &c.analysis)))
            .map(|(place, analysis)| (place, analysis.program(&catalog, None, false).structure))
            .collect();
    Ok(problems_of(
        structures.iter().map(|(place, s)| (place.clone(), s)),
        &offered,
    ))
}

/// The first 12 characters of a hash (as `pml capabilities` shows them).
fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// The store being opened, once open (`None`: no store).
async fn open_store(
    opening: Option<tokio::task::JoinHandle<Result<Arc<pml_store::Store>, pml_store::StoreError>>>,
) -> Result<Option<Arc<pml_store::Store>>, RunSetupError> {
    match opening {
        None => Ok(None),
        Some(opening) => match opening.await {
            Ok(opened) => Ok(Some(opened?)),
            Err(e) => Err(RunSetupError::Setup(format!(
                "opening the store failed: {e}"
            ))),
        },
    }
}

/// The run to resume: its full id, start and journal, when the program and its args are
/// those it ran with.
async fn resumable(
    store: &pml_store::Store,
    resume: &ResumeOptions,
    options: &RunOptions,
    source: &str,
) -> Result<(String, pml_store::RunStart, Vec<pml_store::JournalEntry>), RunSetupError> {
    let (id, start) = store.run_start(&resume.run_id).await?;
    let refuse = |why: String| RunSetupError::Resume {
        run: id.clone(),
        why,
    };
    if start.source != source {
        return Err(refuse(
            "the program is not the one it ran (its text changed)".into(),
        ));
    }
    if resume.args_given && options.args != start.given_args {
        return Err(refuse(format!(
            "its args were {}, not {}",
            start.given_args, options.args
        )));
    }
    let journal = store.journal(&id).await?;
    Ok((id, start, journal))
}

/// Refuse to resume when the interrupted run left a call that may or may not have happened
/// and that cannot safely run again (neither read-only nor idempotent), unless the user said
/// what to do with it.
fn check_uncertain(
    id: &str,
    journal: &[pml_store::JournalEntry],
    options: &RunOptions,
    annotations: &std::collections::HashMap<String, pml_mcp::ToolAnnotations>,
    read_only: &dyn Fn(&str) -> bool,
) -> Result<(), RunSetupError> {
    if options.resume.as_ref().and_then(|r| r.uncertain).is_some() {
        return Ok(());
    }
    let unsafe_call = journal.iter().find(|e| {
        e.state == pml_store::CallState::Started
            && !read_only(&e.tool)
            && annotations
                .get(&e.tool)
                .is_none_or(|a| a.idempotent_hint != Some(true))
    });
    match unsafe_call {
        None => Ok(()),
        Some(e) => Err(RunSetupError::Resume {
            run: id.to_string(),
            why: format!(
                "call {} ({}{}, arguments {}) was in flight when the run stopped: it may or may not have happened; pass --resume-uncertain rerun or --resume-uncertain skip",
                e.seq,
                e.tool,
                e.node.as_deref().map(|n| format!(" at node {n}")).unwrap_or_default(),
                e.arguments
            ),
        }),
    }
}
