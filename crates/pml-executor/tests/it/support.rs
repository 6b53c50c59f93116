//! An in-process [`ToolHost`] for the tests, and helpers that build and run programs.
//!
//! [`FakeHost`] answers `server:tool` calls from a per-tool [`ToolSpec`] (latency, a result
//! computed from the arguments, or a failure; annotations for `tools()`), records every call
//! with its start and end [`Instant`], and counts calls in flight (current and maximum). It
//! has a key-value store (`kv:put {key, value}` writes, `kv:get {key}` reads) so the order of
//! writes and reads is observable in the results. Unknown tools answer deterministically with
//! `{"tool": .., "args": ..}` (and are not read-only).

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pml_dag::{to_dag, DagOptions};
use pml_executor::{
    execute, Approver, AutoApprove, BoxFuture, ExecuteOptions, Program, RunReport, ToolFailure,
    ToolHost, Turn,
};
use pml_mcp::{ToolAnnotations, ToolInfo};
use pml_optimizer::{optimize, OptimizerOptions};
use pml_sandbox::{Sandbox, SandboxOptions};
use pml_structure::{build_structure, strip_types, BuildOptions, Dialect, ToolCatalog, ToolSchema};
use serde_json::{json, Value};

/// A tool's answer computed from its arguments.
pub type Answer = Arc<dyn Fn(&Value) -> Result<Value, ToolFailure> + Send + Sync>;

/// What a tool answers.
#[derive(Clone)]
pub enum Behavior {
    /// `{"tool": "server:tool", "args": arguments}`.
    Echo,
    /// Always this value.
    Value(Value),
    /// Computed from the arguments (or a failure).
    Compute(Answer),
    /// Always this failure.
    Fail(ToolFailure),
    /// Stores `arguments.value` under `arguments.key`; answers `{"ok": true, "key": key}`.
    KvPut,
    /// The value stored under `arguments.key`, or `null`.
    KvGet,
}

/// One tool of the fake host.
#[derive(Clone)]
pub struct ToolSpec {
    pub latency: Duration,
    pub behavior: Behavior,
    pub annotations: ToolAnnotations,
}

impl ToolSpec {
    pub fn new(behavior: Behavior) -> Self {
        ToolSpec {
            latency: Duration::ZERO,
            behavior,
            annotations: ToolAnnotations::default(),
        }
    }

    pub fn read_only(mut self) -> Self {
        self.annotations.read_only_hint = Some(true);
        self
    }

    pub fn destructive(mut self, destructive: bool) -> Self {
        self.annotations.destructive_hint = Some(destructive);
        self
    }

    pub fn latency_ms(mut self, ms: u64) -> Self {
        self.latency = Duration::from_millis(ms);
        self
    }

    pub fn compute(
        f: impl Fn(&Value) -> Result<Value, ToolFailure> + Send + Sync + 'static,
    ) -> Self {
        ToolSpec::new(Behavior::Compute(Arc::new(f)))
    }
}

/// One call the host received.
#[derive(Debug, Clone)]
pub struct CallRecord {
    pub tool: String,
    pub arguments: Value,
    pub start: Instant,
    pub end: Instant,
    /// The call's answer was a failure.
    pub failed: bool,
}

impl CallRecord {
    /// Do the two calls' intervals overlap (strictly)?
    pub fn overlaps(&self, other: &CallRecord) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// The in-process tool host.
pub struct FakeHost {
    tools: HashMap<String, ToolSpec>,
    default_latency: Duration,
    calls: Mutex<Vec<CallRecord>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    store: Mutex<BTreeMap<String, Value>>,
    /// Extra latency of each call: 0 to this many ms, pseudo-random (`jitter` state).
    jitter_ms: u64,
    jitter: AtomicU64,
}

impl Default for FakeHost {
    fn default() -> Self {
        FakeHost::new()
    }
}

impl FakeHost {
    pub fn new() -> Self {
        FakeHost {
            tools: HashMap::new(),
            default_latency: Duration::ZERO,
            calls: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            store: Mutex::new(BTreeMap::new()),
            jitter_ms: 0,
            jitter: AtomicU64::new(0),
        }
    }

    /// Each call takes up to `max_ms` more, pseudo-randomly from `seed` (the same seed, the
    /// same sequence of extra latencies in the order calls arrive).
    pub fn jitter(mut self, seed: u64, max_ms: u64) -> Self {
        self.jitter_ms = max_ms;
        self.jitter = AtomicU64::new(seed.wrapping_mul(6364136223846793005).wrapping_add(1));
        self
    }

    fn next_jitter(&self) -> Duration {
        if self.jitter_ms == 0 {
            return Duration::ZERO;
        }
        let state = self
            .jitter
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::SeqCst)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        // splitmix64
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Duration::from_millis(z % (self.jitter_ms + 1))
    }

    /// A host with the key-value tools: `kv:put` (a write, not destructive), `kv:get`
    /// (read-only), `kv:del` (destructive).
    pub fn kv() -> Self {
        FakeHost::new()
            .tool("kv:put", ToolSpec::new(Behavior::KvPut).destructive(false))
            .tool("kv:get", ToolSpec::new(Behavior::KvGet).read_only())
            .tool(
                "kv:del",
                ToolSpec::compute(|a| Ok(json!({"deleted": a["key"].clone()}))).destructive(true),
            )
    }

    pub fn tool(mut self, name: &str, spec: ToolSpec) -> Self {
        assert!(name.contains(':'), "tools are `server:tool`");
        self.tools.insert(name.to_owned(), spec);
        self
    }

    /// Latency of every tool (unknown tools included) that has none of its own.
    pub fn latency_ms(mut self, ms: u64) -> Self {
        self.default_latency = Duration::from_millis(ms);
        self
    }

    pub fn into_arc(self) -> Arc<FakeHost> {
        Arc::new(self)
    }

    /// A catalog of the configured tools (annotations included), as `pml run` builds it.
    pub fn catalog(&self) -> ToolCatalog {
        let mut catalog = ToolCatalog::default();
        for (name, spec) in &self.tools {
            catalog.insert(ToolSchema {
                name: name.clone(),
                description: None,
                input_schema: Some(json!({"type": "object"})),
                output_schema: None,
                annotations: serde_json::to_value(&spec.annotations).ok(),
            });
        }
        catalog
    }

    /// The annotations of the configured tools (`server:tool` -> annotations).
    pub fn annotations(&self) -> HashMap<String, ToolAnnotations> {
        self.tools
            .iter()
            .map(|(n, s)| (n.clone(), s.annotations.clone()))
            .collect()
    }

    /// Default options with the tools' annotations.
    pub fn options(&self) -> ExecuteOptions {
        ExecuteOptions {
            annotations: self.annotations(),
            ..ExecuteOptions::default()
        }
    }

    /// Every call received so far, in the order they started.
    pub fn calls(&self) -> Vec<CallRecord> {
        let mut calls = self.calls.lock().unwrap().clone();
        calls.sort_by_key(|c| c.start);
        calls
    }

    /// The calls to `tool`, in the order they started.
    pub fn calls_to(&self, tool: &str) -> Vec<CallRecord> {
        self.calls()
            .into_iter()
            .filter(|c| c.tool == tool)
            .collect()
    }

    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    pub fn stored(&self, key: &str) -> Option<Value> {
        self.store.lock().unwrap().get(key).cloned()
    }

    pub fn set(&self, key: &str, value: Value) {
        self.store.lock().unwrap().insert(key.to_owned(), value);
    }

    /// Forgets the calls and in-flight counts (not the store).
    pub fn reset(&self) {
        self.calls.lock().unwrap().clear();
        self.max_in_flight.store(0, Ordering::SeqCst);
    }

    fn answer(
        &self,
        name: &str,
        spec: Option<&ToolSpec>,
        arguments: &Value,
    ) -> Result<Value, ToolFailure> {
        let Some(spec) = spec else {
            return Ok(json!({"tool": name, "args": arguments}));
        };
        match &spec.behavior {
            Behavior::Echo => Ok(json!({"tool": name, "args": arguments})),
            Behavior::Value(v) => Ok(v.clone()),
            Behavior::Compute(f) => f(arguments),
            Behavior::Fail(f) => Err(f.clone()),
            Behavior::KvPut => {
                let key = key_of(arguments)?;
                let value = arguments.get("value").cloned().unwrap_or(Value::Null);
                self.store.lock().unwrap().insert(key.clone(), value);
                Ok(json!({"ok": true, "key": key}))
            }
            Behavior::KvGet => {
                let key = key_of(arguments)?;
                Ok(self
                    .store
                    .lock()
                    .unwrap()
                    .get(&key)
                    .cloned()
                    .unwrap_or(Value::Null))
            }
        }
    }
}

fn key_of(arguments: &Value) -> Result<String, ToolFailure> {
    match arguments.get("key") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Ok(other.to_string()),
        None => Err(ToolFailure::new("kv: missing `key`")),
    }
}

/// Decrements the in-flight count even if the call's future is dropped.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl ToolHost for FakeHost {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Value,
        turn: Turn,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let name = format!("{server}:{tool}");
            let start = Instant::now();
            // Received: the next call may start.
            drop(turn);
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_in_flight.fetch_max(now, Ordering::SeqCst);
            let guard = InFlight(&self.in_flight);
            let spec = self.tools.get(&name);
            let latency = spec
                .map(|s| s.latency)
                .filter(|l| !l.is_zero())
                .unwrap_or(self.default_latency)
                + self.next_jitter();
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
            }
            let answer = self.answer(&name, spec, &arguments);
            let end = Instant::now();
            drop(guard);
            self.calls.lock().unwrap().push(CallRecord {
                tool: name,
                arguments,
                start,
                end,
                failed: answer.is_err(),
            });
            answer
        })
    }

    fn tools<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Vec<ToolInfo>, String>> {
        Box::pin(async move {
            let prefix = format!("{server}:");
            let mut tools: Vec<ToolInfo> = self
                .tools
                .iter()
                .filter_map(|(name, spec)| {
                    Some(ToolInfo {
                        name: name.strip_prefix(&prefix)?.to_owned(),
                        title: None,
                        description: None,
                        input_schema: json!({"type": "object"}),
                        output_schema: None,
                        annotations: spec.annotations.clone(),
                    })
                })
                .collect();
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(tools)
        })
    }
}

/// The structure and logical DAG of `source` (JavaScript; TypeScript types are stripped).
fn stages(source: &str, catalog: &ToolCatalog) -> (String, Program) {
    // A source that does not parse stays as it is: the structure reports the syntax error.
    let js = strip_types(source).unwrap_or_else(|_| source.to_owned());
    let options = BuildOptions {
        dialect: Dialect::JavaScript,
        catalog: Some(catalog.clone()),
        instrument: true,
        // As `pml run` names the probe object: with a secret of the run.
        probe_secret: Some(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_nanos() as u64),
        ),
        ..Default::default()
    };
    let built = build_structure(&js, &options);
    let (structure, instrumented) = (built.structure, built.instrumented);
    let logical = to_dag(
        &structure,
        &DagOptions {
            catalog: Some(catalog.clone()),
        },
    );
    let program = Program {
        source: js.clone(),
        structure,
        physical: logical.clone(),
        logical,
        instrumented,
    };
    (js, program)
}

/// `source` ready to run, with the optimized physical DAG (as `pml run` builds it).
pub fn program(source: &str, catalog: &ToolCatalog) -> Program {
    let (_, mut p) = stages(source, catalog);
    p.physical = optimize(&p.logical, &OptimizerOptions::default()).physical;
    p
}

/// `source` ready to run, the physical DAG being the logical one.
pub fn program_unoptimized(source: &str, catalog: &ToolCatalog) -> Program {
    stages(source, catalog).1
}

/// Sandbox limits for the tests: the defaults, with a shorter time limit.
pub fn sandbox_options() -> SandboxOptions {
    SandboxOptions {
        time_limit: Duration::from_secs(5),
        ..SandboxOptions::default()
    }
}

/// Runs `program` against `host` with automatic approval and a fresh sandbox.
pub async fn run(program: &Program, host: Arc<FakeHost>, options: &ExecuteOptions) -> RunReport {
    run_with(
        program,
        host,
        Arc::new(AutoApprove),
        sandbox_options(),
        options,
    )
    .await
}

/// Runs `program` with the given approver and sandbox options.
pub async fn run_with(
    program: &Program,
    host: Arc<FakeHost>,
    approver: Arc<dyn Approver>,
    sandbox: SandboxOptions,
    options: &ExecuteOptions,
) -> RunReport {
    let sandbox = Arc::new(Sandbox::new(sandbox).expect("sandbox"));
    execute(program, host, approver, sandbox, options).await
}

/// The calls of a report as a sorted multiset of `(tool, arguments as text)`.
pub fn call_multiset(report: &RunReport) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = report
        .calls
        .iter()
        .map(|c| (c.tool.clone(), c.arguments.to_string()))
        .collect();
    v.sort();
    v
}

/// What the host received (speculative calls included): `(tool, arguments)`, sorted. What a
/// logging proxy in front of a server would see.
pub fn received(host: &FakeHost) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = (host.calls().into_iter())
        .map(|c| (c.tool, c.arguments.to_string()))
        .collect();
    v.sort();
    v
}

/// Panics with the report when it is not ok.
#[track_caller]
pub fn assert_ok(report: &RunReport) {
    assert!(report.ok, "the run failed: {:#?}", report.error);
}

/// A human-readable dump of a program's DAGs (for failure messages).
pub fn describe(program: &Program) -> String {
    let tasks = |d: &pml_dag::Dag| {
        d.tasks
            .iter()
            .map(|t| {
                format!(
                    "  {} {} {:?} deps={:?} reads={:?} cond={:?} code={:?}",
                    t.id,
                    t.tool,
                    t.kind,
                    t.depends_on,
                    t.metadata.reads,
                    t.condition
                        .iter()
                        .map(|c| format!("{} => {}", c.expression, c.required_outcome))
                        .collect::<Vec<_>>(),
                    t.code
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "source:\n{}\nlogical:\n{}\nphysical:\n{}\nmapping: {:?}",
        program.source,
        tasks(&program.logical),
        tasks(&program.physical),
        program.physical.physical_to_logical
    )
}
