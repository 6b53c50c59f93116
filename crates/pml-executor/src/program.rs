//! Sandbox mode: the whole program runs in QuickJS as written, instrumented (see
//! `pml_structure`'s `instrument` module) so that every node of its structure reports when it
//! runs. Each `mcp.<server>.<tool>(...)` it makes comes to the host, which approves, traces
//! (under the node of the call's site) and runs it on the async runtime while the program
//! waits; what the probes report (code operations, decisions, forks and joins, loop counts,
//! `console` output) becomes trace events. Calls the program makes together (`Promise.all`)
//! run together.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pml_sandbox::{Answers, Fault, HostCall, ProgramTask, Report, Reported, SandboxError};
use pml_structure::{Culprit, Instrumented, NodeKind, ProbeKind, StaticStructure};
use serde_json::Value;

use crate::approval::SideEffect;
use crate::host::{ToolFailure, Turn};
use crate::journal::{JournalCall, Replay};
use crate::speculate::{Speculation, SpeculationReport};
use crate::trace::{EventKind, Op, TraceEvent, Tracer};
use crate::{Call, ConsoleLine, Program, RunError, Services};

/// The name of the program in stack traces (`at f (agent:3:11)`).
const NAME: &str = "agent";

/// Bounds of one run besides the sandbox's own (JavaScript time, memory, stack).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Wall-clock time of the whole run.
    pub wall: Duration,
    /// MCP calls the run may make.
    pub calls: usize,
    /// Start read-only calls ahead of the program.
    pub speculate: bool,
}

/// What the run did besides its result.
pub(crate) struct Ran {
    pub result: Result<Value, RunError>,
    pub calls: Vec<Call>,
    pub console: Vec<ConsoleLine>,
    pub speculation: Option<SpeculationReport>,
    /// A program that threw: what it threw (`Error: ` left out), what a capability call of it
    /// rejects with.
    pub thrown: Option<String>,
}

impl Ran {
    /// A run refused before the program started.
    pub(crate) fn failed(error: RunError) -> Ran {
        Ran {
            result: Err(error),
            calls: Vec::new(),
            console: Vec::new(),
            speculation: None,
            thrown: None,
        }
    }
}

/// What `Function.prototype.toString` shows the program of its own functions: their text as
/// written, without the probes.
impl pml_sandbox::OriginalText for NodeMap {
    fn original(&self, text: &str) -> Option<String> {
        let instrumented = self.instrumented.as_ref()?;
        (instrumented.original_text(&self.source, text)).map(str::to_owned)
    }

    fn culprit(
        &self,
        fault: Fault,
        line: usize,
        column: usize,
        operation: Option<(u32, &[u32])>,
    ) -> Option<String> {
        let (place, probed) = self.probed_place(line, column);
        let offset = self.offset(place)?;
        // The span of the operation's node: the call at fault when calls nest at the place.
        let operation = operation
            .and_then(|(k, it)| self.probe(k, it))
            .filter(|(kind, _)| *kind == ProbeKind::Operation)
            .map(|(_, node)| (node.span.start, node.span.end));
        let culprit = match fault {
            Fault::NotAFunction => Culprit::Callee,
            Fault::NotAConstructor => Culprit::Constructor,
            Fault::NotIterable { nullish, null } => Culprit::Iterable { nullish, null },
            Fault::NotAnObject => Culprit::Parameter,
            Fault::ReadOnly => Culprit::ReadOnly,
        };
        let mut known = self.culprits.lock().unwrap_or_else(|p| p.into_inner());
        // One parse per place: a loop failing at one call asks again and again.
        (known.entry((fault, offset, probed, operation)))
            .or_insert_with(|| {
                pml_structure::culprit_message(&self.source, offset, culprit, probed, operation)
            })
            .clone()
    }
}

/// Runs the program with `args`.
pub(crate) async fn run(program: &Program, args: &Value, cx: Services, limits: Limits) -> Ran {
    let runtime = tokio::runtime::Handle::current();
    let speculation = match limits.speculate {
        true => Speculation::plan(
            program,
            &cx,
            args,
            &|tool| cx.facts.tool_read_only(tool),
            limits.calls,
        ),
        false => None,
    };
    let driver = speculation.as_ref().map(|s| s.drive());
    let wanted: Vec<u32> = speculation
        .as_ref()
        .map(|s| s.wanted().to_vec())
        .unwrap_or_default();
    let map = Arc::new(NodeMap::new(program));
    let shared = Arc::new(Shared {
        speculation,
        ..Shared::default()
    });
    let (source, probes) = match &program.instrumented {
        Some(i) => (i.source.clone(), Some(i.namespace.clone())),
        None => (program.source.clone(), None),
    };
    let args = args.clone();
    let originals: Arc<dyn pml_sandbox::OriginalText> = map.clone();
    let reads: Option<Arc<dyn pml_sandbox::Reads>> = (cx.journal.clone())
        .map(|j| Arc::new(crate::journal::JournalReads(j)) as Arc<dyn pml_sandbox::Reads>);
    let cx = Arc::new(cx);
    let (cx2, map2, shared2) = (cx.clone(), map.clone(), shared.clone());
    let blocking = tokio::task::spawn_blocking(move || {
        let task = ProgramTask {
            name: NAME,
            source: &source,
            args: &args,
            probes: probes.as_deref(),
            values: &wanted,
            reads: reads.as_ref(),
            originals: Some(&originals),
            abort: Some(&shared2.abort),
        };
        let mut on_call = |call: HostCall, answers: Answers| {
            // Interrupted: no new call starts.
            if cx2.interrupt.as_ref().is_some_and(|i| *i.borrow()) {
                shared2.limit(crate::INTERRUPTED.to_owned());
                answers.answer(call.id, Err(crate::INTERRUPTED.to_owned()));
                answers.abort();
                return;
            }
            if call.site != 0 {
                if let Err(why) = map2.check_probe(call.site, &call.iteration, &[ProbeKind::Call]) {
                    shared2.invalid(&why);
                    answers.answer(call.id, Err(crate::INVALID.to_owned()));
                    answers.abort();
                    return;
                }
            }
            let made = cx2.made.fetch_add(1, Ordering::AcqRel) + 1;
            // Calls started ahead and not taken went to the servers too: they count.
            let ahead = match (&shared2.speculation, call.capability) {
                (Some(s), false) => {
                    s.untaken_besides(&format!("{}:{}", call.server, call.tool), &call.arguments)
                }
                _ => 0,
            };
            if made + ahead > limits.calls {
                let (_, at) = map2.site(&call);
                let at = at.map(|(l, c)| format!(" at {l}:{c}")).unwrap_or_default();
                shared2.limit(format!(
                    "the run stopped{at}: it would make more than {} tool calls, its limit (--max-calls raises it)",
                    limits.calls
                ));
                answers.answer(call.id, Err("the run made too many tool calls".to_owned()));
                answers.abort();
                return;
            }
            let (cx, map, shared) = (cx2.clone(), map2.clone(), shared2.clone());
            let nested = call.capability;
            // Taken here, where calls come in the program's order.
            let turn = (!nested).then(|| cx2.order.take(&call.server));
            let announced = match (&shared2.speculation, nested) {
                (Some(s), false) => {
                    Some(s.announce(format!("{}:{}", call.server, call.tool), &call.arguments))
                }
                _ => None,
            };
            let handle = runtime.spawn(async move {
                let id = call.id;
                let answer = match turn {
                    None => capability(&cx, &map, &shared, call, limits).await,
                    Some(turn) => {
                        let place = Place { turn, announced };
                        answer(&cx, &map, &shared, call, made as u64, place).await
                    }
                };
                answers.answer(id, answer);
            });
            shared2
                .running
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((handle, nested));
        };
        let mut on_report = |reports: Vec<Report>| {
            for report in reports {
                map2.record(&cx2.tracer, &shared2, report);
            }
        };
        cx2.sandbox
            .run_observed(&task, &mut on_call, &mut on_report)
    });
    tokio::pin!(blocking);
    let outcome = tokio::select! {
        outcome = &mut blocking => outcome,
        () = interrupted(cx.interrupt.clone()) => {
            shared.limit(crate::INTERRUPTED.to_owned());
            // The program ends, waiting or running (within its engine's next interrupt check);
            // the calls in flight get a short grace, then are cancelled (dropping a call sends
            // the server `notifications/cancelled`).
            shared.abort.abort();
            let mut running: Vec<_> =
                std::mem::take(&mut *shared.running.lock().unwrap_or_else(|p| p.into_inner()));
            // Each handle leaves the list once it has ended (an ended one is not awaited again).
            let graced = tokio::time::timeout(crate::INTERRUPT_GRACE, async {
                while let Some((handle, _)) = running.last_mut() {
                    let _ = handle.await;
                    running.pop();
                }
            });
            let _ = graced.await;
            // A capability's nested run sees the interrupt too and ends its own calls (its
            // trace then kept): it is waited for, not cut short.
            for (handle, nested) in &running {
                if !nested {
                    handle.abort();
                }
            }
            // Gone (the server told) before the run ends.
            for (handle, _) in running {
                let _ = handle.await;
            }
            blocking.await
        }
        _ = tokio::time::sleep(limits.wall) => {
            shared.limit(format!(
                "the run stopped: it ran longer than {} ms, its wall-clock limit (--run-timeout-ms raises it)",
                limits.wall.as_millis()
            ));
            // The program ends, waiting or running; calls in flight are given up.
            shared.abort.abort();
            for (handle, _) in shared.running.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                handle.abort();
            }
            blocking.await
        }
    };
    let limited = shared
        .limited
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    // Calls still running when the program settles (not awaited) run to their end, as they
    // would when running the program directly: the run waits for them. Not after a limit.
    let still_running =
        std::mem::take(&mut *shared.running.lock().unwrap_or_else(|p| p.into_inner()));
    for (handle, _) in still_running {
        if limited.is_some() {
            handle.abort();
        }
        let _ = handle.await;
    }
    let speculation = match &shared.speculation {
        Some(s) => Some(s.finish().await),
        None => None,
    };
    if let Some(driver) = driver {
        let _ = driver.await;
    }
    if shared.forged.load(Ordering::Acquire) {
        // Nothing the instrumentation reported can be trusted: no event of it is kept.
        cx.tracer.clear();
    }
    let calls = std::mem::take(&mut *shared.calls.lock().unwrap_or_else(|p| p.into_inner()));
    let mut console =
        std::mem::take(&mut *shared.console.lock().unwrap_or_else(|p| p.into_inner()));
    let cut = shared.console_cut.load(Ordering::Relaxed);
    if cut > 0 {
        console.push(ConsoleLine {
            level: "warn",
            text: format!(
                "pml: {cut} more console line{} not kept (at most {} bytes per run)",
                if cut == 1 { "" } else { "s" },
                crate::MAX_CONSOLE_BYTES
            ),
            ts_ms: cx.tracer.elapsed_ms(),
        });
    }
    let thrown = match &outcome {
        Ok(Err(SandboxError::Exception { message, .. })) => {
            Some(crate::capability::thrown_message(message))
        }
        _ => None,
    };
    let forged = shared.forged.load(Ordering::Acquire);
    let result = match outcome {
        // A run whose instrumentation cannot be trusted fails, even if the program ended.
        Ok(_) if forged => Err(RunError::internal(limited.unwrap_or_default())),
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) if limited.is_some() => Err(RunError::internal(limited.unwrap_or_default())),
        Ok(Err(e)) => Err(map.error(e, &shared)),
        Err(e) => Err(RunError::internal(format!("the program stopped: {e}"))),
    };
    Ran {
        result,
        calls,
        console,
        speculation,
        thrown,
    }
}

/// A task aborted when this is dropped before it ended.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> std::future::Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Resolves once `interrupt` turns `true`; never without one.
async fn interrupted(interrupt: Option<tokio::sync::watch::Receiver<bool>>) {
    match interrupt {
        Some(mut interrupt) => {
            if interrupt.wait_for(|on| *on).await.is_err() {
                // The sender is gone: nothing can interrupt the run any more.
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

/// State shared by the calls of one run.
#[derive(Default)]
struct Shared {
    calls: Mutex<Vec<Call>>,
    /// The calls that failed, to name the one the program did not catch.
    failures: Mutex<Vec<Failed>>,
    console: Mutex<Vec<ConsoleLine>>,
    /// The calls in flight, each with whether it is a capability's (a nested run).
    running: Mutex<Vec<(tokio::task::JoinHandle<()>, bool)>>,
    /// Ends the run whatever it is doing (an interrupt, the wall-clock limit, a forged report).
    abort: pml_sandbox::Abort,
    /// Why a limit ended the run.
    limited: Mutex<Option<String>>,
    /// The innermost operation that never ended (where the program was when it stopped).
    unfinished: Mutex<Option<String>>,
    /// The loop body a stopped program entered last.
    last_loop: Mutex<Option<String>>,
    speculation: Option<Arc<Speculation>>,
    /// Set when the instrumentation reported something no probe reports.
    forged: std::sync::atomic::AtomicBool,
    /// Bytes of console text reported, and lines not kept ([`crate::MAX_CONSOLE_BYTES`]).
    console_bytes: std::sync::atomic::AtomicUsize,
    console_cut: std::sync::atomic::AtomicUsize,
}

impl Shared {
    fn limit(&self, message: String) {
        let mut limited = self.limited.lock().unwrap_or_else(|p| p.into_inner());
        limited.get_or_insert(message);
    }

    /// The instrumentation reported something no probe reports (`why`): its trace cannot be
    /// trusted, so the run ends (at once, whatever the program is doing).
    fn invalid(&self, why: &str) {
        self.forged.store(true, Ordering::Release);
        self.limit(format!(
            "the run stopped: its instrumentation reported {why}; nothing it reported is kept"
        ));
        self.abort.abort();
    }
}

/// A call that failed: who, and the message the program's `Error` got.
struct Failed {
    task_id: Option<String>,
    tool: String,
    at: Option<(usize, usize)>,
    detail: String,
    js: String,
}

/// Whether `call` is one node `n` makes: the same server and tool (either computed at run time
/// in the structure, `?`) for a tool call, a capability call for a capability's node.
fn node_makes(n: &pml_structure::Node, call: &HostCall) -> bool {
    match (n.tool.as_deref(), call.capability) {
        (Some(tool), false) => {
            let (server, tool) = tool.split_once(':').unwrap_or((tool, ""));
            let matches = |static_name: &str, actual: &str| {
                static_name == pml_structure::DYNAMIC_NAME || static_name == actual
            };
            matches(server, &call.server) && matches(tool, &call.tool)
        }
        (None, true) => n.kind == NodeKind::Capability,
        _ => false,
    }
}

/// What the probes and call sites of the instrumented program stand for.
/// An error's place: its fault, offset in the program, whether in a probe's text, and the
/// span of the operation under way.
type CulpritKey = (Fault, usize, bool, Option<(usize, usize)>);

struct NodeMap {
    instrumented: Option<Instrumented>,
    /// The program as written (columns of stack traces are mapped back into it).
    source: String,
    structure: StaticStructure,
    /// Node id -> index in `structure.nodes`.
    index: HashMap<String, usize>,
    /// Operation node id -> the task of the physical DAG that fuses it with others (`n2+n3`).
    fused: HashMap<String, String>,
    /// The messages of errors at places of the program (see [`pml_sandbox::OriginalText`]).
    culprits: Mutex<HashMap<CulpritKey, Option<String>>>,
}

impl NodeMap {
    fn new(program: &Program) -> Self {
        let index = (program.structure.nodes.iter().enumerate())
            .map(|(i, n)| (n.id.clone(), i))
            .collect();
        let fused = (program.physical.physical_to_logical.iter())
            .flatten()
            .filter(|(_, logical)| logical.len() > 1)
            .flat_map(|(physical, logical)| {
                logical.iter().map(move |id| (id.clone(), physical.clone()))
            })
            .collect();
        NodeMap {
            instrumented: program.instrumented.clone(),
            source: program.source.clone(),
            structure: program.structure.clone(),
            index,
            fused,
            culprits: Mutex::default(),
        }
    }

    fn node(&self, id: &str) -> Option<&pml_structure::Node> {
        self.index.get(id).map(|&i| &self.structure.nodes[i])
    }

    /// The probe `k` and the node it stands for at `iteration`.
    fn probe(&self, k: u32, iteration: &[u32]) -> Option<(ProbeKind, &pml_structure::Node)> {
        let probe = self.instrumented.as_ref()?.probe(k)?;
        let node = self.node(probe.node(iteration)?)?;
        Some((probe.kind, node))
    }

    /// The node of a call's site, if it has one, and where the call is (the node's line and
    /// column, or for a call without a site, its stack's first frame in the program).
    fn site(&self, call: &HostCall) -> (Option<String>, Option<(usize, usize)>) {
        let node = match call.site {
            0 => None,
            // A site names the call it wraps only if that call is its node's: a function the
            // program put where the node's tool was (`mcp = { fs: { read: () => real.db.drop() } }`)
            // makes its own calls under the site, which are not the node's.
            site => (self.probe(site, &call.iteration))
                .filter(|(_, n)| node_makes(n, call))
                .map(|(_, n)| n.id.clone()),
        };
        let at = match (&node, &call.stack) {
            (None, Some(stack)) => self.location(stack),
            (Some(id), _) => self.node(id).map(|n| (n.span.line, n.span.column)),
            _ => None,
        };
        (node, at)
    }

    /// Where in the program (1-based line, column) a stack's first frame in it is.
    fn location(&self, stack: &str) -> Option<(usize, usize)> {
        let marker = format!("({NAME}:");
        let at = stack.find(&marker)? + marker.len();
        let rest = &stack[at..];
        let end = rest.find(')')?;
        let (line, column) = rest[..end].split_once(':')?;
        Some(self.place(line.parse().ok()?, column.parse().ok()?))
    }

    /// The place in the program (1-based line, column) of (`line`, `column`) of the source the
    /// sandbox ran.
    fn place(&self, line: usize, column: usize) -> (usize, usize) {
        let ((line, column), _) = self.probed_place(line, column);
        (line, column)
    }

    /// [`NodeMap::place`], and whether it was in the text of a probe.
    fn probed_place(&self, line: usize, column: usize) -> ((usize, usize), bool) {
        // Line 1 starts with the wrapper the sandbox compiles the program in.
        let column = match line {
            1 => {
                let probes = self.instrumented.as_ref().map(|i| i.namespace.as_str());
                column.saturating_sub(pml_sandbox::first_line_shift(probes))
            }
            _ => column,
        };
        let (column, probed) = match &self.instrumented {
            Some(i) => i.original_place(&self.source, line, column),
            None => (column, false),
        };
        ((line, column), probed)
    }

    /// The byte offset in the program of (`line`, `column`) of it.
    fn offset(&self, (line, column): (usize, usize)) -> Option<usize> {
        let start = match line {
            1 => 0,
            _ => self.source.match_indices('\n').nth(line - 2)?.0 + 1,
        };
        Some(
            start
                + self.source[start..]
                    .char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(0, |(i, _)| i),
        )
    }

    /// The innermost task node whose code contains (`line`, `column`).
    fn task_at(&self, place: (usize, usize)) -> Option<&pml_structure::Node> {
        let offset = self.offset(place)?;
        (self.structure.nodes.iter())
            .filter(|n| n.kind == NodeKind::Task)
            .filter(|n| n.span.start <= offset && offset < n.span.end)
            .min_by_key(|n| n.span.end - n.span.start)
    }

    /// Traces operation probe `k` that ran over `(since, until)` (ms), failed when `error` is
    /// set; its node id.
    fn operation(
        &self,
        tracer: &Tracer,
        k: u32,
        iteration: &[u32],
        (since, until): (f64, f64),
        preview: Option<String>,
        error: Option<String>,
    ) -> Option<String> {
        let (_, node) = self.probe(k, iteration)?;
        if node.kind == NodeKind::Call {
            // A call of a local function: what ran inside it is traced on its own.
            tracer.push(TraceEvent {
                iteration: iteration.to_vec(),
                duration_ms: Some(until - since),
                success: Some(error.is_none()),
                error: error.map(Into::into),
                ..TraceEvent::new(EventKind::Call, Some(&node.id), since)
            });
            return Some(node.id.clone());
        }
        // Each operation with its own time; the fused task it is part of named beside it (a
        // fused task's time is its operations' own, never one figure counted k times).
        let op = Op {
            task_id: Some(&node.id),
            physical_task_id: self.fused.get(&node.id).map(String::as_str),
            tool: node.tool.as_deref().unwrap_or_default(),
            iteration,
            ..Op::default()
        };
        tracer.start_at(&op, since);
        let ok = error.is_none();
        tracer.ended(&op, since, until, ok, preview, error);
        Some(node.id.clone())
    }

    /// The error `message` of the operation `node` (a call, a code operation, a loop), where it
    /// is.
    fn node_error(node: &pml_structure::Node, message: &str) -> RunError {
        let what = node.tool.as_deref().unwrap_or(match node.kind {
            NodeKind::Loop => "loop",
            NodeKind::Function => "function",
            NodeKind::Call => "call",
            _ => "",
        });
        RunError {
            message: format!(
                "{} ({what}): {message} (at {}:{})",
                node.id, node.span.line, node.span.column
            ),
            task_id: Some(node.id.clone()),
            tool: node.tool.clone(),
        }
    }

    /// Whether `what` is a report some probe of the program makes: the probe exists, is of a
    /// kind that reports it, and the iteration vector is as deep as the bodies around the
    /// probe. Else why not.
    fn check(&self, what: &Reported) -> Result<(), String> {
        use ProbeKind as K;
        let (probe, iteration, kinds): (u32, &[u32], &[ProbeKind]) = match what {
            Reported::Operation {
                probe, iteration, ..
            } => (*probe, iteration, &[K::Operation, K::Invoke]),
            Reported::Value {
                probe, iteration, ..
            }
            | Reported::Unfinished {
                probe, iteration, ..
            } => (*probe, iteration, &[K::Operation]),
            Reported::Outcome {
                probe, iteration, ..
            } => (*probe, iteration, &[K::Decision, K::Nullish, K::Switch]),
            Reported::Fork { probe, iteration } => (*probe, iteration, &[K::Fork]),
            Reported::Join {
                probe, iteration, ..
            } => (*probe, iteration, &[K::Join]),
            Reported::Iterations {
                probe, iteration, ..
            }
            | Reported::LastLoop { probe, iteration } => {
                (*probe, iteration, &[K::Loop, K::ForkCallback, K::Function])
            }
            Reported::Console { .. } | Reported::Unreported { .. } => return Ok(()),
            Reported::Invalid { why } => return Err(why.clone()),
        };
        self.check_probe(probe, iteration, kinds)
    }

    /// Whether probe `k` exists, is one of `kinds`, and reports iteration vectors as deep as
    /// `iteration`.
    fn check_probe(&self, k: u32, iteration: &[u32], kinds: &[ProbeKind]) -> Result<(), String> {
        let Some(probe) = self.instrumented.as_ref().and_then(|i| i.probe(k)) else {
            return Err(format!("probe {k}, which the program does not have"));
        };
        if !kinds.contains(&probe.kind) {
            return Err(format!(
                "probe {k} ({:?}) reporting what it does not report",
                probe.kind
            ));
        }
        if iteration.len() != probe.depth as usize {
            return Err(format!(
                "probe {k} with an iteration vector of {} entries (its depth is {})",
                iteration.len(),
                probe.depth
            ));
        }
        if probe.node(iteration).is_none() {
            return Err(format!("probe {k} for an element it has no node for"));
        }
        Ok(())
    }

    /// Turns one report of the program's probes into trace events (or console output).
    fn record(&self, tracer: &Tracer, shared: &Shared, report: Report) {
        if let Err(why) = self.check(&report.what) {
            shared.invalid(&why);
            return;
        }
        let ts = tracer.ms_at(report.at);
        match report.what {
            Reported::Operation {
                probe,
                iteration,
                started,
                ok,
                preview,
            } => {
                let error = (!ok).then(|| "threw".to_owned());
                let span = (tracer.ms_at(started), ts);
                let node = self.operation(tracer, probe, &iteration, span, preview, error);
                if let (Some(s), Some(node)) = (&shared.speculation, node) {
                    s.operation_ended(&node, &iteration, ok);
                }
            }
            Reported::Outcome {
                probe,
                iteration,
                outcome,
            } => {
                let Some((kind, node)) = self.probe(probe, &iteration) else {
                    return;
                };
                let outcome = match (kind, outcome) {
                    (ProbeKind::Switch, -1) => "default".to_owned(),
                    (ProbeKind::Switch, i) => {
                        let mut cases = node.outcomes.iter().filter(|o| *o != "default");
                        match cases.nth(i as usize) {
                            Some(o) => o.clone(),
                            None => return,
                        }
                    }
                    (_, 0) => "false".to_owned(),
                    _ => "true".to_owned(),
                };
                if let Some(s) = &shared.speculation {
                    s.decided(&node.id, &iteration, &outcome);
                }
                tracer.push(TraceEvent {
                    iteration,
                    outcome: Some(outcome.into()),
                    ..TraceEvent::new(EventKind::Decision, Some(&node.id), ts)
                });
            }
            Reported::Fork { probe, iteration } => {
                if let Some((_, node)) = self.probe(probe, &iteration) {
                    tracer.push(TraceEvent {
                        iteration,
                        ..TraceEvent::new(EventKind::Fork, Some(&node.id), ts)
                    });
                }
            }
            Reported::Join {
                probe,
                iteration,
                ok,
            } => {
                if let Some((_, node)) = self.probe(probe, &iteration) {
                    tracer.push(TraceEvent {
                        iteration,
                        success: Some(ok),
                        ..TraceEvent::new(EventKind::Join, Some(&node.id), ts)
                    });
                }
            }
            Reported::Iterations {
                probe,
                iteration,
                count,
            } => {
                let event = match self.probe(probe, &iteration) {
                    Some((ProbeKind::Loop, node)) => Some((EventKind::Loop, node)),
                    Some((ProbeKind::Function, node)) => Some((EventKind::Function, node)),
                    _ => None,
                };
                if let Some((event, node)) = event {
                    tracer.push(TraceEvent {
                        iteration,
                        iterations: Some(count),
                        ..TraceEvent::new(event, Some(&node.id), ts)
                    });
                }
            }
            Reported::Unfinished {
                probe,
                iteration,
                started,
            } => {
                let error = Some("did not finish: the program stopped".to_owned());
                let span = (tracer.ms_at(started), ts);
                if let Some(id) = self.operation(tracer, probe, &iteration, span, None, error) {
                    *shared.unfinished.lock().unwrap_or_else(|p| p.into_inner()) = Some(id);
                }
            }
            Reported::LastLoop { probe, iteration } => {
                if let Some((_, node)) = self.probe(probe, &iteration) {
                    *shared.last_loop.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(node.id.clone());
                }
            }
            Reported::Value {
                probe,
                iteration,
                value,
            } => {
                if let Some(s) = &shared.speculation {
                    s.value(probe, &iteration, value);
                }
            }
            Reported::Invalid { .. } => {}
            // Two events each (a start and an end), past a trace that is full.
            Reported::Unreported { operations } => tracer.not_kept(2 * operations),
            Reported::Console { level, text } => {
                let kept = shared
                    .console_bytes
                    .fetch_add(text.len(), Ordering::Relaxed);
                if kept + text.len() > crate::MAX_CONSOLE_BYTES {
                    shared.console_cut.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                let mut console = shared.console.lock().unwrap_or_else(|p| p.into_inner());
                console.push(ConsoleLine {
                    level: level.as_str(),
                    text,
                    ts_ms: ts,
                });
            }
        }
    }

    /// The error of a program that failed: the uncaught call failure (its node, tool and
    /// where), else the exception and the operation it came from.
    fn error(&self, e: SandboxError, shared: &Shared) -> RunError {
        let message = program_message(&e);
        let failures = shared.failures.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = failures
            .iter()
            .find(|f| message.contains(&format!("Error: {}", f.js)))
        {
            let what = match &f.task_id {
                Some(id) => id.clone(),
                None => "a call".to_owned(),
            };
            return RunError {
                message: placed(&format!("{what} ({}): {}", f.tool, f.detail), f.at),
                task_id: f.task_id.clone(),
                tool: Some(f.tool.clone()),
            };
        }
        // A syntax error the engine found (one the parser before it let through: a name
        // declared twice): where, in the program's own lines and columns.
        if let SandboxError::Syntax { .. } = &e {
            let marker = format!(" ({NAME}:");
            if let Some(cut) = message.rfind(&marker) {
                let place = message[cut + marker.len()..].trim_end_matches(')');
                if let Some((line, column)) = place.split_once(':') {
                    if let (Ok(line), Ok(column)) = (line.parse(), column.parse()) {
                        let (line, column) = self.place(line, column);
                        return RunError::internal(format!(
                            "{} (at {line}:{column})",
                            &message[..cut]
                        ));
                    }
                }
            }
        }
        // Where in the program it was thrown, from the stack's first frame in it.
        let at = match &e {
            SandboxError::Exception {
                stack: Some(stack), ..
            } => self.location(stack),
            _ => None,
        };
        let Some(at) = at else {
            // A limit (time, memory, stack): the operation it stopped in, if one was running;
            // out of time, else the loop it entered last.
            let unfinished = shared
                .unfinished
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            let in_loop = match e {
                SandboxError::Timeout { .. } => shared
                    .last_loop
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone(),
                _ => None,
            };
            return match unfinished
                .or(in_loop)
                .as_deref()
                .and_then(|id| self.node(id))
            {
                Some(node) => Self::node_error(node, &message),
                None => RunError::internal(message),
            };
        };
        match self.task_at(at) {
            // Where the operation is: its own line and column.
            Some(node) => Self::node_error(node, &message),
            // The program's own message, whole (its lines are its own): where, after it.
            None => RunError::internal(format!("{message} (at {}:{})", at.0, at.1)),
        }
    }
}

/// A tool's failure with where it happened (` (at line:column)`) at the end of its first line:
/// before the lines that follow it (a server's stderr tail).
fn placed(message: &str, at: Option<(usize, usize)>) -> String {
    let Some((line, column)) = at else {
        return message.to_owned();
    };
    match message.split_once('\n') {
        Some((first, rest)) => format!("{first} (at {line}:{column})\n{rest}"),
        None => format!("{message} (at {line}:{column})"),
    }
}

/// The sandbox's message about the program, with the program called what users call it.
fn program_message(e: &SandboxError) -> String {
    let message = e.to_string();
    if let SandboxError::Timeout { limit_ms, tool, .. } = e {
        if tool.is_empty() {
            return format!(
                "the program's own JavaScript exceeded {limit_ms} ms, its limit (time waiting for tools not counted; --code-timeout-ms raises it)"
            );
        }
    }
    match message.strip_prefix(&format!("program {NAME} ")) {
        Some(rest) => format!("the program {rest}"),
        None => message,
    }
}

/// One call (the program's `seq`-th): the journal's answer when it has one; else approval,
/// trace, the host's answer, written to the journal.
async fn answer(
    cx: &Services,
    map: &NodeMap,
    shared: &Shared,
    call: HostCall,
    seq: u64,
    place: Place,
) -> Result<Value, String> {
    let Place { turn, announced } = place;
    let tool = format!("{}:{}", call.server, call.tool);
    let (node, at) = map.site(&call);
    let op = Op {
        task_id: node.as_deref(),
        tool: &tool,
        iteration: &call.iteration,
        at: if node.is_none() { at } else { None },
        ..Op::default()
    };
    let fail = |detail: String, js: String| {
        shared
            .failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Failed {
                task_id: node.clone(),
                tool: tool.clone(),
                at,
                detail,
                js: js.clone(),
            });
        Err(js)
    };
    // The end of every answered call: listed, traced, and its failure kept.
    let settle = |op: &Op, since, outcome: Result<Value, ToolFailure>, arguments: Value| {
        shared
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Call {
                tool: tool.clone(),
                arguments,
            });
        match outcome {
            Ok(value) => {
                cx.tracer.end(op, since, Ok(Some(&value)));
                Ok(value)
            }
            Err(failure) => {
                cx.tracer.end(op, since, Err(&failure.detail));
                fail(failure.detail, failure.message)
            }
        }
    };
    let journaled = cx.journal.as_ref().map(|journal| {
        let entry = JournalCall {
            seq,
            node: node.clone(),
            iteration: call.iteration.clone(),
            tool: tool.clone(),
            arguments: call.arguments.clone(),
        };
        (journal, entry)
    });
    if let Some((journal, entry)) = &journaled {
        // Completed by the run being resumed: its answer, not run again (nor asked about).
        if let Replay::Answer(outcome) = journal.replay(entry).await {
            let mut op = op;
            op.replayed = true;
            let since = cx.tracer.start(&op);
            journal.finished(entry, outcome.as_ref()).await;
            return settle(&op, since, outcome, call.arguments);
        }
    }
    if cx.policy.needs_approval(&tool, cx.facts.destructive(&tool)) {
        let node = node.clone().unwrap_or_default();
        let task_id = match &cx.scope {
            Some(scope) => format!("{scope}/{node}"),
            None => node,
        };
        let effect = SideEffect::call(task_id, tool.clone(), call.arguments.clone(), true);
        if !cx.approver.approve(&effect).await {
            let message = format!("the call to {tool} was not approved");
            let since = cx.tracer.start(&op);
            cx.tracer.end(&op, since, Err(&message));
            return fail(message.clone(), message);
        }
    }
    let read_only = cx.facts.tool_read_only(&tool);
    let element = element_of(&call.iteration);
    let ahead = shared.speculation.as_ref().and_then(|s| {
        s.before_call(
            &tool,
            read_only,
            &call.arguments,
            node.as_deref().map(|n| (n, element)),
        )
    });
    drop(announced);
    let mut op = op;
    if let Some((journal, entry)) = &journaled {
        journal.started(entry).await;
    }
    op.speculative = ahead.is_some();
    // A read started ahead is traced from its own start: the overlap speculation won shows.
    let since = match &ahead {
        Some((_, started)) => cx.tracer.started_at(&op, *started),
        None => cx.tracer.start(&op),
    };
    // Ended as cancelled if this call is dropped before its answer (an interrupt, a limit).
    let pending = cx.tracer.pending(&op, since);
    let outcome = match ahead {
        // Cancelled with the program's call: cancelled too. Its answer, a failure as well as
        // a success, is the program's: a call is never made twice for one program call.
        Some((started, _)) => {
            // Its request went out ahead of the program: the next call need not wait.
            drop(turn);
            match AbortOnDrop(started).await {
                Ok(outcome) => {
                    if let Some(s) = &shared.speculation {
                        s.taken(true);
                    }
                    outcome
                }
                // The speculative call itself was cancelled (never answered): call afresh.
                Err(_) => {
                    if let Some(s) = &shared.speculation {
                        s.taken(false);
                    }
                    (cx.host)
                        .call(
                            &call.server,
                            &call.tool,
                            call.arguments.clone(),
                            Turn::free(),
                        )
                        .await
                }
            }
        }
        None => {
            turn.wait().await;
            (cx.host)
                .call(&call.server, &call.tool, call.arguments.clone(), turn)
                .await
        }
    };
    pending.answered();
    if let Some(s) = &shared.speculation {
        let outcome = match &outcome {
            Ok(value) => Ok(Some(value).filter(|_| call.iteration.is_empty())),
            Err(_) => Err(()),
        };
        s.after_call(node.as_deref(), read_only, outcome);
    }
    if let Some((journal, entry)) = &journaled {
        journal.finished(entry, outcome.as_ref()).await;
    }
    settle(&op, since, outcome, call.arguments)
}

/// A program call's place among the run's calls: its turn in its server's line, and its mark
/// keeping speculation from starting it ahead (until speculation sees it).
struct Place {
    turn: Turn,
    announced: Option<crate::speculate::Announced>,
}

/// Directly in one loop, which element a call is at (what speculation keys its calls by);
/// deeper, a mark that matches no element.
fn element_of(iteration: &[u32]) -> Option<usize> {
    match iteration {
        [] => None,
        [i] => Some(*i as usize),
        _ => Some(usize::MAX),
    }
}

/// A call of a capability: its program run as a nested run (module `capability`), traced as
/// the caller's capability node with the nested run's events under it; it resolves with the
/// nested run's value or rejects with what it threw.
///
/// Boxed, with a type of its own: the nested run may call capabilities in turn (never in a
/// cycle: the caller refuses those before anything runs).
fn capability<'a>(
    cx: &'a Services,
    map: &'a NodeMap,
    shared: &'a Shared,
    call: HostCall,
    limits: Limits,
) -> crate::BoxFuture<'a, Result<Value, String>> {
    Box::pin(async move {
        let (node, at) = map.site(&call);
        let name = call.tool;
        let tool = format!("capability:{name}");
        let op = Op {
            task_id: node.as_deref(),
            tool: &tool,
            iteration: &call.iteration,
            at: if node.is_none() { at } else { None },
            ..Op::default()
        };
        let since = cx.tracer.start(&op);
        let fail = |detail: String, js: String| {
            cx.tracer.end(&op, since, Err(&detail));
            shared
                .failures
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Failed {
                    task_id: node.clone(),
                    tool: tool.clone(),
                    at,
                    detail,
                    js: js.clone(),
                });
            Err(js)
        };
        let Some(stored) = cx.capabilities.get(&name) else {
            let message = format!("there is no capability named `{name}` in the store");
            return fail(message.clone(), message);
        };
        let args = match cx.capabilities.args_of(stored, &call.arguments) {
            Ok(args) => args,
            Err(why) => {
                let message = format!("capabilities.{name} {why}");
                return fail(message.clone(), message);
            }
        };
        let sandbox = match crate::capability::sandbox_like(&cx.sandbox).await {
            Ok(sandbox) => sandbox,
            Err(e) => {
                let message = format!("capabilities.{name} could not start: {e}");
                return fail(message.clone(), message);
            }
        };
        let tracer = Arc::new(cx.tracer.child());
        let nested = Services {
            sandbox,
            tracer: tracer.clone(),
            scope: Some(match &cx.scope {
                Some(scope) => format!("{scope}/{name}").into(),
                None => name.as_str().into(),
            }),
            ..cx.clone()
        };
        // To the caller's speculation, the capability's run is a write: nothing started ahead
        // overlaps it, and what comes after it waits for it (it may write anything).
        let element = element_of(&call.iteration);
        if let Some(s) = &shared.speculation {
            s.before_call(
                &tool,
                false,
                &call.arguments,
                node.as_deref().map(|n| (n, element)),
            );
        }
        let ran = run(&stored.program, &args, nested, limits).await;
        if let Some(s) = &shared.speculation {
            let outcome = match &ran.result {
                Ok(_) => Ok(None),
                Err(_) => Err(()),
            };
            s.after_call(node.as_deref(), false, outcome);
        }
        let parent = match (&node, call.iteration.as_slice()) {
            (Some(id), []) => id.clone(),
            (Some(id), iteration) => {
                let iteration: Vec<String> = iteration.iter().map(u32::to_string).collect();
                format!("{id}[{}]", iteration.join(","))
            }
            (None, _) => tool.clone(),
        };
        cx.tracer.absorb(&tracer, &parent, &name);
        shared
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(ran.calls);
        shared
            .console
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(ran.console);
        match ran.result {
            Ok(value) => {
                cx.tracer.end(&op, since, Ok(Some(&value)));
                Ok(value)
            }
            Err(e) => {
                let js = ran.thrown.unwrap_or_else(|| e.message.clone());
                fail(format!("in capability {name}: {}", e.message), js)
            }
        }
    })
}
