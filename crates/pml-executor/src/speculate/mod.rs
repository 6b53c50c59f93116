//! Speculation: read-only calls started ahead of the program, taken when the program makes
//! the same call. It never shows: the servers receive exactly the calls the program makes.
//!
//! **Plan.** A *target* is an MCP call node of the structure whose tool is read-only (annotated
//! `readOnlyHint`, or in [`crate::ExecuteOptions::read_only`]) and needs no approval, that the
//! program awaits directly (`await mcp.s.t(...)`: it cannot tell when the call completed, only
//! that it did), not in a `catch` handler (it runs only after a throw), not in a `Promise.all`
//! (the program starts those together anyway), outside any loop or directly in a `for ... of`
//! loop (one call per element of the iterable) whose body cannot leave it early (`break`,
//! `return`, `throw`: [`pml_structure::Node::leaves`]) and outside any `try`. A capability
//! call is a write to speculation (a barrier in program order: it may write anything). Nothing
//! is speculated in a program that races promises, keeps a call un-awaited, or may call tools
//! where the structure cannot see (a computed name, a function it does not analyse): there,
//! when a call completes could change what it computes.
//!
//! **When.** A target starts only once the program is certain to make it, given what has
//! been decided so far, and as soon as (1) its arguments can be computed: from `args`,
//! literals and the values known so far: results of the program's calls, values of the
//! operations the arguments read (reported by the instrumented program, or computed here
//! first, in a side sandbox context, from the pure operations whose inputs are known, as the
//! physical DAG runs them: a chain or siblings the optimizer fused, in one sandbox call); for a loop, once its iterable is known, one call per element; (2) the program
//! took an outcome leading to it at every decision it depends on (control dependence over the
//! structure's edges: the branch it is in, and the code after an early `return`, `throw`,
//! `break` or `continue` waits for the decision that could end the path first); (3) the
//! program got past every loop before it that may leave early (a node after the loop
//! reported); (4) in a `try`, or after a `try` whose `catch` may end the path, every node
//! before it there that may throw (calls, operations, calls of local functions) ended without
//! throwing; (5) every call that is not read-only and
//! comes before it in program order (or shares its loop) has finished, at most once (not
//! inside a loop); no call that is not read-only is running; (6) no read before it failed
//! ahead that the program has not got past yet; (7) the run's call limit leaves room: the
//! program's calls so far plus the speculative calls not taken yet count against
//! `--max-calls`; (8) every call to its server before it in the program (outside the loops
//! it is in; a call of a local function that calls that server, itself or through others,
//! counts where it is called, and counts as started once speculation started every call it
//! makes) has been started ahead, or the program got past it (a call in a loop: past the
//! loop), so that each server receives its calls in the program's order, as in Node
//! (speculative calls take their turns in their server's line as they start). What a call of
//! a local function starts waits so for every server the function reaches.
//!
//! **Functions out of sight.** A function the program may call where the structure does not
//! say (a method of an object or a class, a callback, a function named as a value:
//! [`pml_structure::Node::escapes_from`]) may send its servers a call at any time from where
//! it exists: no read to those servers after that point is started ahead. So is a generator
//! (its call runs none of its body; the body runs as far as what consumes it asks).
//!
//! **Local functions.** Each call of a local function (whose parameters are plain names never
//! assigned or changed in place) made in the program outside local functions, where that call
//! is certain, is followed with the call's arguments as the parameters: the reads directly in
//! the function's body, or in a `for ... of` loop there over what the parameters hold that no
//! iteration leaves early (one per element), start; so do, the same way, those of the local
//! functions it calls there, recursion included ([`MAX_DEPTH`] deep: a walk over a tree given
//! as an argument). What the reads' arguments and the decisions leading to them read must be
//! known ahead of the call: the parameters, `args`, constants, results outside local functions,
//! and the pure operations of the body (in no loop of it) over those, computed once per call of
//! the function (`const path = args.root + "/" + name.toLowerCase()`). Computed ahead, the
//! decisions say whether the call is made. Calls alike (same tool and arguments) are one
//! another's: never more are started than the program will make beyond those it made itself.
//! In the function too, each server's order holds: a read is followed only when every call
//! to its server before it in the body is a read followed before it (none in a `try`, none
//! through another local function) and none shares its loop; and once one could not be
//! started at a call (its arguments, decision or loop not known ahead), nothing later to
//! that server starts there.
//!
//! **Values changed in place.** A result the program changes in place after it is made
//! (`rows.shift()`, `cfg.dir = ...`, a helper that changes its parameter:
//! [`pml_structure::Node::changed`]) is not what later code reads: no target reads it, and no
//! operation over it is computed ahead (its value comes from the program itself). So for the
//! program's parameters when it changes them (`args.root = ...`, or passes `args` to a local
//! function that changes its parameter: [`pml_structure::StaticStructure::changed`]): nothing
//! is computed ahead from `args` then. Constants changed in place, also under another name
//! (`const alias = o; alias.x = 1`) or by `Object.defineProperty`, are not constants. A
//! program that changes a name it does not declare (a global: `Math.round = ...`,
//! `globalThis.base = ...`, `String.prototype.x = ...`) gets nothing computed by the side
//! context, which has the globals as they were: only names and literals are known ahead.
//!
//! **Taking.** When the program makes a read-only call, it takes a speculative call with the
//! same tool and the same arguments (canonical JSON) if the program has made no call that is
//! not read-only since that speculative call started (the *write epoch*); a speculative call
//! serves one program call at most, with its answer or its failure (a call is never made
//! twice for one program call). Calls nobody took (the program stopped before them: an
//! uncaught failure, a limit) are counted as wasted and traced with `"taken": false`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use pml_structure::{Arguments, LoopKind, NodeKind, ProbeKind, Scope, StaticStructure};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::values::{Reader, Results, Values};
use crate::{Program, Services, ToolFailure};

mod plan;

use plan::{
    at_element, at_element_all, canonical, enclosing_loops, helpers, in_fork, in_function, in_loop,
    physical_plan, ControlDeps,
};

/// What speculation did in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeculationReport {
    /// Speculative calls started.
    pub planned: usize,
    /// Taken by a call of the program.
    pub served: usize,
    /// Not taken (or failed): reads made for nothing.
    pub wasted: usize,
    /// Sandbox calls that computed pure operations ahead of the program (one per fused task
    /// of the physical DAG, one per other operation), to know the arguments of reads.
    pub computed: usize,
}

/// Most speculative calls running at once.
const IN_FLIGHT: usize = 32;
/// Most speculative calls per loop.
const PER_LOOP: usize = 256;
/// How many calls of local functions deep speculation follows a call of a local function.
const MAX_DEPTH: usize = 16;

/// A speculative call to start: its target's key (and element), where it is.
struct Call<'a> {
    key: (String, Option<usize>),
    node: &'a str,
    server: &'a str,
    tool: &'a str,
    element: Option<usize>,
    at: usize,
    /// Made inside a local function.
    via: bool,
}

/// What [`Speculation::launch`] did.
enum Launch {
    Started,
    Skipped,
    /// The program moved on: nothing more this scan.
    Stop,
}

/// A local function whose parameters are plain names: what it does directly in its body (or
/// in a `for ... of` loop there) that speculation can follow, once its parameters are known.
struct Helper {
    /// Following it starts every call to a server it makes, through the local functions it
    /// calls too (all reads followed, no recursion): a call of it followed to the end counts
    /// as made, in its servers' order.
    complete: bool,
    params: Vec<String>,
    /// Its read-only calls on no path of its own that could skip them.
    reads: Vec<HelperRead>,
    /// Its calls of local functions (that are helpers too).
    calls: Vec<NestedCall>,
    /// The pure operations of its body (in no loop of it) that its reads, calls and decisions
    /// read, those they read first: computed once per call of it, from its parameters.
    ops: Vec<Computable>,
    /// The results outside local functions those operations, its calls and its decisions
    /// read.
    outside: Vec<String>,
}

/// The `for ... of` loop directly in a helper's body a read or a call is in, if any: its
/// iterable expression and the names it reads (parameters only). No iteration of it can leave
/// it early, so each element's call is made.
type Each = Option<(String, Vec<String>)>;

struct HelperRead {
    node: String,
    server: String,
    tool: String,
    arguments: Arguments,
    /// As for [`NestedCall::conditions`].
    conditions: Vec<(String, Vec<String>, Vec<String>)>,
    each: Each,
}

/// A call of a local function made in another's body.
struct NestedCall {
    call: String,
    function: String,
    arguments: Arguments,
    /// The decisions of the body it depends on: each one's condition, what it reads, and the
    /// outcomes leading to the call.
    conditions: Vec<(String, Vec<String>, Vec<String>)>,
    each: Each,
}

/// JavaScript's truthiness of a JSON value.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// One call node that may be speculated.
struct Target {
    node: String,
    server: String,
    tool: String,
    arguments: Arguments,
    /// The `for ... of` loop the call is directly in: its id, iterable expression, and the
    /// names that expression reads.
    each: Option<(String, String, Vec<String>)>,
    /// Write nodes that must have finished first.
    after: Vec<String>,
    /// Node ids the arguments (and the iterable) read.
    reads: Vec<String>,
    /// Where the call is in the program (byte offset).
    at: usize,
    /// The decisions it depends on (control dependence: around it, or before it with an
    /// outcome that leaves, like `if (!x) return;`) and the outcomes that lead to it.
    branches: Vec<(String, Vec<String>)>,
    /// Nodes that must have ended without throwing first: before it in the `try` it is in
    /// (a throw there skips it).
    ended: Vec<String>,
    /// Offsets the program must have got past first: the ends of loops before it that may
    /// leave early (`return`, `throw`, `break` out of them): what follows runs only if they
    /// did not.
    past: Vec<usize>,
    /// For a call inside a local function: the call of the function it is made for (the
    /// site the rest describes).
    via: Option<Via>,
    /// The last call before it in the program to its server (to each server its local
    /// function reaches, for a call of one), outside its loops and local functions: `(node,
    /// offset, startable)`. It goes to the server after them, as in Node: each must have been
    /// started ahead (`startable`: not in a loop; a call of a local function, followed to its
    /// end) or the program must have got past the offset (the call, or the end of the loop
    /// it is in).
    before: Vec<(String, usize, bool)>,
}

impl Target {
    /// What tells it from the other targets: its node, and the call it is made for.
    fn key(&self) -> String {
        match &self.via {
            None => self.node.clone(),
            Some(via) => format!("{}@{}", self.node, via.call),
        }
    }
}

/// The calls to `target`'s server (or to a server named at run time) before it in the
/// program, outside local functions and outside the loops it is in (see [`Target::before`]):
/// one in a loop it is not in counts as the loop's end, where the program is past all of its
/// iterations.
fn calls_before(
    target: &Target,
    servers: &[&str],
    own_loops: &[String],
    candidates: &[Candidate],
) -> Vec<(String, usize, bool)> {
    let mut out: Vec<(String, usize, bool)> = Vec::new();
    for server in servers {
        let reaches = |s: &str| s == *server || s == pml_structure::DYNAMIC_NAME;
        // Only the last one counts: it was started ahead or passed only once those before it
        // were.
        let last = (candidates.iter())
            .filter(|c| c.at < target.at && c.id != target.node)
            .filter(|c| c.servers.iter().any(|s| reaches(s)))
            // Iterations of a loop they share: in the loop's own order, left as it is.
            .filter(|c| !c.loops.iter().any(|l| own_loops.contains(l)))
            .max_by_key(|c| (c.gate, c.at));
        if let Some(c) = last.filter(|c| !out.iter().any(|(id, ..)| *id == c.id)) {
            out.push((c.id.clone(), c.gate, c.startable));
        }
    }
    out
}

/// A call outside local functions that a read started ahead may have to go after (see
/// [`Target::before`]): an MCP call, or a call of a local function that calls servers.
struct Candidate {
    id: String,
    at: usize,
    servers: Vec<String>,
    loops: Vec<String>,
    /// Where the program must be past: the call, or the end of the outermost loop it is in.
    gate: usize,
    /// Started ahead, it counts as made (an MCP call in no loop).
    startable: bool,
}

fn candidates(
    structure: &StaticStructure,
    servers_of: &HashMap<String, HashSet<String>>,
    helpers: &HashMap<String, Helper>,
) -> Vec<Candidate> {
    let by_id: HashMap<&str, &pml_structure::Node> =
        structure.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    // The loops a node is in (outermost last), or `None` inside a local function.
    let around = |n: &pml_structure::Node| -> Option<Vec<String>> {
        let mut loops = Vec::new();
        let mut at = n.scope.clone();
        for _ in 0..structure.nodes.len() {
            let Some(scope) = at else { break };
            let id = match scope {
                Scope::Function { .. } => return None,
                Scope::Loop { id } => {
                    loops.push(id.clone());
                    id
                }
                Scope::Decision { id, .. } | Scope::Fork { id } => id,
            };
            at = by_id.get(id.as_str()).and_then(|n| n.scope.clone());
        }
        Some(loops)
    };
    let mut out = Vec::new();
    for n in &structure.nodes {
        let servers: Vec<String> = match (n.kind, n.tool.as_deref()) {
            (NodeKind::Call, _) => (n.function.as_ref())
                .and_then(|f| servers_of.get(f))
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default(),
            (_, Some(tool)) if n.is_mcp() => vec![crate::host::split_tool(tool).0.to_owned()],
            _ => Vec::new(),
        };
        if servers.is_empty() {
            continue;
        }
        let Some(loops) = around(n) else {
            continue;
        };
        let outer = loops.last().and_then(|l| by_id.get(l.as_str()));
        let (gate, startable) = match outer {
            Some(outer) => (outer.span.end.saturating_sub(1), false),
            // A call of a local function counts as made once speculation started every call
            // it makes ([`Helper::complete`], followed to its end).
            None => {
                let complete = || {
                    (n.function.as_ref())
                        .and_then(|f| helpers.get(f))
                        .is_some_and(|h| h.complete)
                };
                (n.span.start, n.kind != NodeKind::Call || complete())
            }
        };
        out.push(Candidate {
            id: n.id.clone(),
            at: n.span.start,
            servers,
            loops,
            gate,
            startable,
        });
    }
    out
}

/// The servers each local function (by id) calls, itself or through the local functions it
/// calls.
fn servers_of_functions(structure: &StaticStructure) -> HashMap<String, HashSet<String>> {
    let by_id: HashMap<&str, &pml_structure::Node> =
        structure.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    // The local function a node is directly in.
    let function_of = |id: &str| {
        let mut at = by_id.get(id).and_then(|n| n.scope.clone());
        for _ in 0..structure.nodes.len() {
            match at? {
                Scope::Function { id } => return Some(id),
                scope => at = by_id.get(scope.id()).and_then(|n| n.scope.clone()),
            }
        }
        None
    };
    let mut servers: HashMap<String, HashSet<String>> = HashMap::new();
    let mut calls: Vec<(String, String)> = Vec::new();
    for n in &structure.nodes {
        let Some(f) = function_of(&n.id) else {
            continue;
        };
        match (n.kind, n.tool.as_deref(), n.function.as_ref()) {
            (NodeKind::Call, _, Some(callee)) => calls.push((f, callee.clone())),
            (_, Some(tool), _) if n.is_mcp() => {
                let server = crate::host::split_tool(tool).0.to_owned();
                servers.entry(f).or_default().insert(server);
            }
            _ => {}
        }
    }
    let mut grew = true;
    while grew {
        grew = false;
        for (caller, callee) in &calls {
            let Some(reached) = servers.get(callee).cloned() else {
                continue;
            };
            let into = servers.entry(caller.clone()).or_default();
            for server in reached {
                grew |= into.insert(server);
            }
        }
    }
    servers
}

/// A scan's view while it follows calls of local functions: its write epoch, the values known,
/// and where the call it follows them from is.
struct Entered<'a> {
    epoch: u64,
    results: &'a Results,
    at: usize,
}

/// A call of a local function, made in the program outside local functions: what it does is
/// followed from it.
struct Via {
    /// The call node, and the function it calls.
    call: String,
    function: String,
    /// The function's parameters, and the call's arguments by position (`"0"`, `"1"`...).
    params: Vec<String>,
    arguments: Arguments,
}

/// Where a call is made in the program (the call itself, or the call of the local function it
/// is in) and what must hold before it is certain there: see [`Target`].
struct Site {
    each: Option<(String, String, Vec<String>)>,
    after: Vec<String>,
    at: usize,
    branches: Vec<(String, Vec<String>)>,
    ended: Vec<String>,
    past: Vec<usize>,
}

impl Site {
    /// The site `node` (outside local functions), or `None` when a call there cannot be
    /// known certain ahead of the program.
    fn of(
        structure: &StaticStructure,
        node: &pml_structure::Node,
        deps: &ControlDeps<'_>,
        writes: &[&pml_structure::Node],
    ) -> Option<Site> {
        let loops = enclosing_loops(structure, &node.id);
        // Only what the program is certain to reach given the decisions it took: no decision
        // inside a loop or a function (its outcome changes from one run of it to the next).
        let branches = deps.of(&node.id);
        if (branches.iter()).any(|(d, _)| in_loop(structure, d) || in_function(structure, d)) {
            return None;
        }
        let each = match loops.as_slice() {
            [] => None,
            [l] => {
                let l = structure.node(l)?;
                // The next element's call is certain only if no iteration can leave the loop,
                // and no throw inside a `try` can skip the rest of one.
                if l.leaves || node.guarded {
                    return None;
                }
                match (l.loop_kind, &l.condition) {
                    (Some(LoopKind::ForOf), Some(iterable)) => {
                        Some((l.id.clone(), iterable.clone(), l.reads.clone()))
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        // In a `try`: after every node before it that may throw there (conservatively, in any
        // `try` before it), once they ended without a throw. And after a `try` whose handler
        // may end the path: once what may throw in it ended without a throw.
        let ended: Vec<String> = (structure.nodes.iter())
            .filter(|n| (node.guarded && n.guarded) || n.throw_exits)
            .filter(|n| n.span.start < node.span.start)
            .filter(|n| {
                matches!(
                    n.kind,
                    NodeKind::Task | NodeKind::Capability | NodeKind::Call
                )
            })
            .filter(|n| !in_function(structure, &n.id))
            .map(|n| n.id.clone())
            .collect();
        if ended.iter().any(|n| in_loop(structure, n)) {
            return None;
        }
        let past: Vec<usize> = (structure.nodes.iter())
            .filter(|l| l.kind == NodeKind::Loop && l.leaves)
            .filter(|l| l.span.end <= node.span.start && !in_function(structure, &l.id))
            .map(|l| l.span.end)
            .collect();
        // Writes before it in the program, or in its loop, must have finished, once.
        let mut after = Vec::new();
        for w in writes {
            let shares_loop = enclosing_loops(structure, &w.id)
                .iter()
                .any(|l| loops.contains(l));
            if shares_loop || (w.span.start < node.span.start && in_loop(structure, &w.id)) {
                return None;
            }
            if w.span.start < node.span.start {
                after.push(w.id.clone());
            }
        }
        Some(Site {
            each,
            after,
            at: node.span.start,
            branches,
            ended,
            past,
        })
    }

    /// The target `node` (the call, with `arguments`) made at this site (`via` the call of
    /// the local function it is in, if it is in one).
    fn target(
        self,
        structure: &StaticStructure,
        node: &pml_structure::Node,
        server: &str,
        tool: &str,
        arguments: Arguments,
        via: Option<Via>,
    ) -> Target {
        let mut reads: Vec<String> = Vec::new();
        let iterable = (self.each.iter()).flat_map(|(_, _, r)| r.iter().map(String::as_str));
        let passed = (via.iter()).flat_map(|v| v.arguments.values().flat_map(|a| a.reads()));
        let names = (arguments.values().flat_map(|v| v.reads()))
            .chain(iterable)
            .chain(passed);
        for name in names {
            if structure.node(name).is_some() && !reads.iter().any(|r| r == name) {
                reads.push(name.to_owned());
            }
        }
        Target {
            node: node.id.clone(),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments,
            each: self.each,
            after: self.after,
            reads,
            at: self.at,
            branches: self.branches,
            ended: self.ended,
            past: self.past,
            via,
            before: Vec::new(),
        }
    }
}

/// A pure operation of the logical DAG whose value a target needs, computed ahead of the
/// program when its inputs are known.
#[derive(Clone)]
struct Computable {
    id: String,
    tool: String,
    code: String,
    arguments: Arguments,
    reads: Vec<String>,
    yields: Yields,
}

/// Which nodes' values a [`Computable`]'s value gives: one node's (an operation's own, or the
/// last of a chain the physical DAG fuses), or an object of each node's by id (siblings the
/// physical DAG fuses).
#[derive(Clone)]
enum Yields {
    One(String),
    Each(Vec<String>),
}

impl Computable {
    /// Whether `values` has everything it gives.
    fn known_in(&self, values: &Results) -> bool {
        match &self.yields {
            Yields::One(id) => values.contains_key(id),
            Yields::Each(ids) => ids.iter().all(|id| values.contains_key(id)),
        }
    }

    /// Keeps what its `value` gives in `values`.
    fn keep(&self, value: Option<Value>, values: &mut Results) {
        match &self.yields {
            Yields::One(id) => {
                values.insert(id.clone(), value);
            }
            Yields::Each(ids) => {
                for id in ids {
                    let own = match &value {
                        Some(Value::Object(each)) => each.get(id).cloned(),
                        _ => None,
                    };
                    values.insert(id.clone(), own);
                }
            }
        }
    }
}

/// A speculative call.
struct Entry {
    epoch: u64,
    call: JoinHandle<Result<Value, ToolFailure>>,
    /// Its node, and element of its loop.
    node: String,
    element: Option<usize>,
    tool: String,
    /// When it started and ended (ms of the run; the end's bits, 0 while running).
    since: f64,
    until: Arc<std::sync::atomic::AtomicU64>,
}

#[derive(Default)]
struct State {
    values: Results,
    /// Write calls the program has made (bumped when one starts).
    epoch: u64,
    writes_running: usize,
    /// Write nodes that finished (successfully).
    finished: HashSet<String>,
    /// Decision id -> the outcome the program took (decisions outside loops).
    decided: HashMap<String, String>,
    /// Nodes (with where they are) whose speculative call failed: until the program's own
    /// call to them succeeds, nothing after them is speculated (the program is likely to stop
    /// there).
    failed: HashMap<String, usize>,
    /// (node, element) already started, by speculation or by the program.
    started: HashSet<(String, Option<usize>)>,
    /// (tool, canonical arguments) -> how many read-only calls the program made with them
    /// itself (no speculative call answered them).
    made: HashMap<(String, String), usize>,
    /// (tool, canonical arguments) -> calls the program has made and
    /// [`Speculation::before_call`] has not seen yet ([`Speculation::announce`]): none is
    /// started ahead, the program's own request goes at its place in the program's order.
    announced: HashMap<(String, String), usize>,
    /// Calls inside local functions, by (tool, canonical arguments): how many the program is
    /// certain to make (the calls of the functions known so far), and how many were started
    /// ahead. Calls alike are one another's: the program makes as many as there are.
    via_total: HashMap<(String, String), usize>,
    via_started: HashMap<(String, String), usize>,
    /// The (target, element) counted in `via_total` already.
    via_known: HashSet<(String, Option<usize>)>,
    /// The calls of local functions (paths of calls) followed already.
    expanded: HashSet<String>,
    /// Calls of local functions (outside loops) whose every call to a server was started
    /// ahead, in order (see [`Helper::complete`]).
    followed: HashSet<String>,
    /// Those of them that could not start every call to some servers: the servers, nothing
    /// later to which may start (see [`Speculation::enter`]).
    blocked: HashMap<String, HashSet<String>>,
    /// Targets with nothing left to start (every element of a loop's).
    done: HashSet<String>,
    /// Nodes outside loops and functions the program ended without a throw.
    ended: HashSet<String>,
    /// How far the program got: the largest offset of a node outside local functions it
    /// reached (called, decided, computed).
    reached: usize,
    /// (tool, canonical arguments) -> speculative calls not taken yet.
    entries: HashMap<(String, String), Vec<Entry>>,
    /// Speculative calls started and not taken (what they add to the program's calls).
    untaken: usize,
    running: usize,
    report: SpeculationReport,
    over: bool,
}

/// A call the program made that [`Speculation::before_call`] has not seen yet.
pub(crate) struct Announced {
    speculation: Arc<Speculation>,
    key: (String, String),
}

impl Drop for Announced {
    fn drop(&mut self) {
        let mut state = self.speculation.lock();
        if let Some(n) = state.announced.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                state.announced.remove(&self.key);
            }
        }
    }
}

/// The speculation of one run (see the module doc).
pub(crate) struct Speculation {
    targets: Vec<Target>,
    computable: Vec<Computable>,
    state: Mutex<State>,
    wake: Notify,
    services: Services,
    /// The program's parameters; `None` when it may change them (they are then known only to
    /// the program itself, as it goes).
    args: Option<Value>,
    literals: IndexMap<String, Value>,
    /// The names the program declares: one not known ahead is not computed.
    declared: pml_structure::Names,
    /// Whether the side context computes what the program's would (see
    /// [`crate::values::Values::evaluates`]).
    evaluates: bool,
    /// Probes of the operations whose values the targets read.
    wanted: Vec<u32>,
    /// Probe number -> node id, for those.
    wanted_nodes: HashMap<u32, String>,
    /// Where the nodes outside local functions are (byte offset): what tells how far the
    /// program got.
    positions: HashMap<String, usize>,
    /// The run's call limit (`--max-calls`): speculative calls count against it.
    max_calls: usize,
    /// The local functions speculation can follow into, by id.
    helpers: HashMap<String, Helper>,
    /// The servers each local function reaches, itself or through others, by id.
    servers_of: HashMap<String, HashSet<String>>,
    /// Pure operations (or fused tasks) computed in the side context so far.
    computed: std::sync::atomic::AtomicUsize,
}

impl Speculation {
    /// The plan for `program`, or `None` when nothing may be speculated.
    pub(crate) fn plan(
        program: &Program,
        services: &Services,
        args: &Value,
        read_only: &dyn Fn(&str) -> bool,
        max_calls: usize,
    ) -> Option<Arc<Speculation>> {
        let instrumented = program.instrumented.as_ref()?;
        let structure = &program.structure;
        let hidden = structure.diagnostics.iter().any(|d| {
            d.code == pml_structure::diagnostics::DYNAMIC_CALL
                || d.code == pml_structure::diagnostics::UNANALYSED_CODE
        });
        let calls: Vec<_> = (instrumented.probes.iter())
            .filter(|p| p.kind == ProbeKind::Call)
            .collect();
        let unawaited = calls.iter().any(|p| {
            !p.awaited
                && p.nodes.iter().any(|id| {
                    structure
                        .node(id)
                        .is_some_and(|n| !matches!(n.scope, Some(Scope::Fork { .. })))
                })
        });
        if hidden || unawaited || instrumented.observes_timing {
            return None;
        }
        // Awaited calls that run whenever the program gets there (not only after a throw).
        let awaited: HashSet<&str> = (calls.iter())
            .filter(|p| p.awaited && !p.guarded)
            .flat_map(|p| p.nodes.iter().map(String::as_str))
            .collect();
        let writes: Vec<&pml_structure::Node> = (structure.nodes.iter())
            .filter(|n| n.kind == NodeKind::Capability || n.is_mcp())
            .filter(|n| !n.tool.as_deref().is_some_and(read_only))
            .collect();
        // A write inside a local function happens wherever the function is called, which its
        // position in the text does not tell.
        if writes.iter().any(|w| in_function(structure, &w.id)) {
            return None;
        }
        let deps = ControlDeps::new(structure);
        let mut targets = Vec::new();
        for node in structure.nodes.iter().filter(|n| n.is_mcp()) {
            let Some(tool) = node.tool.as_deref() else {
                continue;
            };
            let approval = services
                .policy
                .needs_approval(tool, services.facts.destructive(tool));
            // Calls of a fork run together anyway: the program starts them all at once.
            let in_fork = in_fork(structure, &node.id);
            // A call inside a local function is made once per call of the function, with its
            // arguments: followed from the calls of the function (below).
            let in_helper = in_function(structure, &node.id);
            if !read_only(tool) || approval || !awaited.contains(node.id.as_str()) || in_fork {
                continue;
            }
            let Some(arguments) = node.arguments.clone().filter(|_| !in_helper) else {
                continue;
            };
            let (server, tool) = crate::host::split_tool(tool);
            // Directly in the program: certain where it is.
            let Some(site) = Site::of(structure, node, &deps, &writes) else {
                continue;
            };
            targets.push(site.target(structure, node, server, tool, arguments, None));
        }
        let servers_of = servers_of_functions(structure);
        let helpers = helpers(
            structure,
            instrumented,
            &deps,
            &|n: &pml_structure::Node| {
                let tool = n.tool.as_deref().unwrap_or_default();
                read_only(tool)
                    && awaited.contains(n.id.as_str())
                    && !services
                        .policy
                        .needs_approval(tool, services.facts.destructive(tool))
            },
            &servers_of,
        );
        // Each call of a local function made in the program outside local functions, where that
        // call is certain: what the function does there, with the call's arguments as its
        // parameters, is followed from it.
        let entries = (structure.nodes.iter())
            .filter(|c| c.kind == NodeKind::Call && !c.guarded && !in_function(structure, &c.id));
        for call in entries {
            let Some(function) = call.function.as_deref() else {
                continue;
            };
            let Some(helper) = helpers.get(function) else {
                continue;
            };
            if helper.reads.is_empty() && helper.calls.is_empty() {
                continue;
            }
            let Some(site) = Site::of(structure, call, &deps, &writes) else {
                continue;
            };
            let via = Via {
                call: call.id.clone(),
                function: function.to_owned(),
                params: helper.params.clone(),
                arguments: call.arguments.clone().unwrap_or_default(),
            };
            let mut target = site.target(structure, call, "", "", Arguments::new(), Some(via));
            // The results outside local functions it needs, and those the local functions it
            // calls need.
            let mut seen = HashSet::from([function]);
            let mut queue = vec![helper];
            while let Some(helper) = queue.pop() {
                for r in &helper.outside {
                    if !target.reads.contains(r) {
                        target.reads.push(r.clone());
                    }
                }
                for nested in &helper.calls {
                    if let Some(h) = (helpers.get(&nested.function))
                        .filter(|_| seen.insert(nested.function.as_str()))
                    {
                        queue.push(h);
                    }
                }
            }
            targets.push(target);
        }
        // Each goes to its server after the calls the program sends it first; what a call of
        // a local function starts, to each server the function reaches.
        let candidates = candidates(structure, &servers_of, &helpers);
        let servers_of_target = |target: &Target| -> Vec<String> {
            match &target.via {
                None => vec![target.server.clone()],
                Some(via) => (servers_of.get(&via.function))
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default(),
            }
        };
        for target in targets.iter_mut() {
            let own_loops = enclosing_loops(structure, &target.node);
            let servers = servers_of_target(target);
            let servers: Vec<&str> = servers.iter().map(String::as_str).collect();
            target.before = calls_before(target, &servers, &own_loops, &candidates);
        }
        // A function the program may call where the structure does not say (a method, a
        // callback, one named as a value: `pml_structure::Node::escapes_from`) may send its
        // servers a call before any of them, from where it exists on: nothing to those servers
        // is started ahead from there.
        let escaping: Vec<(usize, &HashSet<String>)> = (structure.nodes.iter())
            .filter_map(|f| Some((f.escapes_from?, servers_of.get(&f.id)?)))
            .collect();
        if !escaping.is_empty() {
            targets.retain(|t| {
                let servers = servers_of_target(t);
                !escaping.iter().any(|(from, reached)| {
                    t.at >= *from
                        && (reached.contains(pml_structure::DYNAMIC_NAME)
                            || servers.iter().any(|s| reached.contains(s)))
                })
            });
        }
        // What reads a result the program changes in place after it is made (`rows.shift()`)
        // cannot be known ahead: the result as made is not what the program reads there.
        let changed = |id: &String| structure.node(id).is_some_and(|n| n.changed);
        targets.retain(|t| !t.reads.iter().any(changed));
        // The same for the program's parameters, when it changes them: what reads them is
        // known only to the program (no use trying to compute it at every scan).
        let args_known = !structure.changed.contains("args");
        if !args_known {
            let reads_args = |a: &Arguments| a.0.values().any(|v| v.reads_parameters());
            targets.retain(|t| {
                !reads_args(&t.arguments)
                    && !(t.each.as_ref()).is_some_and(|(_, _, r)| r.iter().any(|n| n == "args"))
                    && !(t.via.as_ref()).is_some_and(|v| reads_args(&v.arguments))
            });
        }
        if targets.is_empty() {
            return None;
        }
        // The pure operations the targets read, and those these read, transitively.
        let mut read: HashSet<&str> = (targets.iter())
            .flat_map(|t| t.reads.iter().map(String::as_str))
            .collect();
        let mut computable = Vec::new();
        let mut queue: Vec<&str> = read.iter().copied().collect();
        while let Some(id) = queue.pop() {
            let Some(task) = program.logical.task(id) else {
                continue;
            };
            // No arguments: it reads nothing but `args` and constants.
            let Some(code) = &task.code else {
                continue;
            };
            let arguments = task.arguments.clone().unwrap_or_default();
            if task.kind != pml_dag::TaskType::CodeExecution || !task.metadata.pure {
                continue;
            }
            let reads = task.metadata.reads.clone();
            // Over a result changed in place: only the program's own value of it will do; so
            // for what reads a global of the program's context alone.
            if reads.iter().any(changed) || reads.iter().any(|r| crate::values::program_only(r)) {
                continue;
            }
            for r in &reads {
                if let Some(r) = structure.node(r) {
                    if read.insert(r.id.as_str()) {
                        queue.push(r.id.as_str());
                    }
                }
            }
            computable.push(Computable {
                id: task.id.clone(),
                tool: task.tool.clone(),
                code: code.clone(),
                arguments,
                reads,
                yields: Yields::One(task.id.clone()),
            });
        }
        let computable = physical_plan(program, &targets, computable);
        // Their values also come from the program's probes, whichever is first.
        let mut wanted = Vec::new();
        let mut wanted_nodes = HashMap::new();
        for (i, probe) in instrumented.probes.iter().enumerate() {
            if probe.kind != ProbeKind::Operation {
                continue;
            }
            if let [id] = probe.nodes.as_slice() {
                if read.contains(id.as_str()) {
                    let k = i as u32 + 1;
                    wanted.push(k);
                    wanted_nodes.insert(k, id.clone());
                }
            }
        }
        Some(Arc::new(Speculation {
            targets,
            computable,
            state: Mutex::new(State::default()),
            wake: Notify::new(),
            services: services.clone(),
            args: args_known.then(|| args.clone()),
            literals: structure.literal_bindings.clone(),
            declared: structure.declared.clone(),
            evaluates: !changes_globals(structure),
            wanted,
            wanted_nodes,
            positions: (structure.nodes.iter())
                .filter(|n| !in_function(structure, &n.id))
                .map(|n| (n.id.clone(), n.span.start))
                .collect(),
            max_calls,
            helpers,
            servers_of,
            computed: std::sync::atomic::AtomicUsize::new(0),
        }))
    }

    /// The program got to node `id`.
    fn reached(&self, state: &mut State, id: &str) {
        if let Some(&at) = self.positions.get(id) {
            state.reached = state.reached.max(at);
        }
    }

    /// Probes whose values the program should report.
    pub(crate) fn wanted(&self) -> &[u32] {
        &self.wanted
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts what can start now, and again each time the program gets further, until
    /// [`Speculation::finish`].
    pub(crate) fn drive(self: &Arc<Self>) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                let notified = this.wake.notified();
                // Most wakes of a run find nothing to start: no hand-off to a blocking thread
                // for those (a scan may compute in the sandbox, which blocks).
                if this.ready() {
                    let scan = this.clone();
                    if tokio::task::spawn_blocking(move || scan.scan())
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                if this.lock().over {
                    return;
                }
                notified.await;
            }
        })
    }

    /// Whether a scan may start something now (else it would return at once).
    fn ready(&self) -> bool {
        let state = self.lock();
        Self::ready_in(&self.targets, &state)
    }

    fn ready_in(targets: &[Target], state: &State) -> bool {
        !(state.over || state.writes_running > 0 || state.running >= IN_FLIGHT)
            && targets.iter().any(|t| Self::may_start(t, state))
    }

    /// One pass over the targets: starts every one that is ready.
    fn scan(self: &Arc<Self>) {
        let (values, epoch) = {
            let state = self.lock();
            // Nothing to do (most wakes of a long run): no copy of the values either.
            if !Self::ready_in(&self.targets, &state) {
                return;
            }
            (state.values.clone(), state.epoch)
        };
        let values = self.compute(values);
        {
            // Keep what was computed for the next scans.
            let mut state = self.lock();
            for (id, value) in &values {
                if !state.values.contains_key(id) {
                    state.values.insert(id.clone(), value.clone());
                }
            }
        }
        let joins = IndexMap::new();
        let known = Values {
            args: self.args.as_ref(),
            results: &values,
            joins: &joins,
            literals: &self.literals,
            declared: &self.declared,
            evaluates: self.evaluates,
        };
        for target in &self.targets {
            {
                let state = self.lock();
                let read = target.reads.iter().all(|n| values.contains_key(n));
                if !read || !Self::may_start(target, &state) {
                    continue;
                }
            }
            let reader = Reader {
                task_id: &target.node,
                tool: &target.tool,
            };
            let elements: Vec<Option<usize>> = match &target.each {
                None => vec![None],
                Some((_, iterable, names)) => {
                    match known.expression(iterable, names, &self.services.sandbox, &reader) {
                        Ok(Some(Value::Array(items))) => {
                            (0..items.len().min(PER_LOOP)).map(Some).collect()
                        }
                        _ => continue,
                    }
                }
            };
            let mut all_started = true;
            for element in elements {
                // A call in a local function is started once per call of the function.
                let key = (target.key(), element);
                if self.lock().started.contains(&key) {
                    continue;
                }
                all_started = false;
                let Some(via) = &target.via else {
                    let arguments = at_element_all(&target.arguments, element);
                    // Not known at this element: the later ones would reach the server first.
                    let Ok(arguments) = known.object(&arguments, &self.services.sandbox, &reader)
                    else {
                        break;
                    };
                    let call = Call {
                        key,
                        node: &target.node,
                        server: &target.server,
                        tool: &target.tool,
                        element,
                        at: target.at,
                        via: false,
                    };
                    if let Launch::Stop = self.launch(epoch, call, Value::Object(arguments)) {
                        return;
                    }
                    continue;
                };
                // A call of a local function: its parameters hold what the call passes (at
                // this element).
                if via.arguments.has_spread() {
                    break;
                }
                let mut literals = self.literals.clone();
                let mut passed = true;
                for (i, param) in via.params.iter().enumerate() {
                    let argument = via.arguments.get(i.to_string().as_str());
                    let value = argument.map(|a| match element {
                        None => a.clone(),
                        Some(e) => at_element(a, e),
                    });
                    match value.map(|a| known.parameter(&a, &self.services.sandbox, &reader)) {
                        Some(Ok(Some(v))) => {
                            literals.insert(param.clone(), v);
                        }
                        _ => passed = false,
                    }
                }
                if !passed {
                    break;
                }
                let path = format!("{}@{element:?}", via.call);
                let entered = Entered {
                    epoch,
                    results: &values,
                    at: target.at,
                };
                let mut blocked = HashSet::new();
                if self.enter(&entered, &via.function, &literals, &path, 0, &mut blocked) {
                    return;
                }
                // What it could not start at this element comes before the next ones'.
                if !blocked.is_empty() {
                    break;
                }
                if element.is_none() && self.helpers.get(&via.function).is_some_and(|h| h.complete)
                {
                    self.lock().followed.insert(via.call.clone());
                }
                // All it leads to was started (or is not certain).
                self.lock().started.insert(key);
            }
            if all_started {
                self.lock().done.insert(target.key());
            }
        }
    }

    /// Starts speculative call `call` with `arguments`, unless the program moved on (`Stop`:
    /// nothing more this scan), it was started already, or (in a local function) as many as
    /// the program will make beyond its own are started already.
    fn launch(self: &Arc<Self>, epoch: u64, call: Call<'_>, arguments: Value) -> Launch {
        let mut state = self.lock();
        // A call in a local function: counted among those the program will make.
        let same = (
            format!("{}:{}", call.server, call.tool),
            canonical(&arguments),
        );
        if call.via && state.via_known.insert(call.key.clone()) {
            *state.via_total.entry(same.clone()).or_default() += 1;
        }
        // The program may have moved on meanwhile. And no call beyond the run's limit: the
        // program's calls so far and those started ahead count.
        let made = self
            .services
            .made
            .load(std::sync::atomic::Ordering::Acquire);
        if state.over
            || state.epoch != epoch
            || state.writes_running > 0
            || state.running >= IN_FLIGHT
            || made + state.untaken + 1 > self.max_calls
        {
            return Launch::Stop;
        }
        if state.started.contains(&call.key) {
            return Launch::Skipped;
        }
        let announced = state.announced.get(&same).copied().unwrap_or(0);
        if announced > 0 && !call.via {
            // Made by the program already (perhaps at this very node): started ahead now,
            // it would go to the server after calls the program made later.
            return Launch::Skipped;
        }
        // In a local function, never more started than the program will make beyond those it
        // made already (it may have made this one itself): calls alike are one another's.
        if call.via {
            let made = state.made.get(&same).copied().unwrap_or(0) + announced;
            let started = state.via_started.get(&same).copied().unwrap_or(0);
            let total = state.via_total.get(&same).copied().unwrap_or(0);
            if made + started >= total {
                // None to start for it: the program makes it, or another serves it.
                state.started.insert(call.key);
                return Launch::Skipped;
            }
            *state.via_started.entry(same).or_default() += 1;
        }
        state.started.insert(call.key);
        let tool = format!("{}:{}", call.server, call.tool);
        let host = self.services.host.clone();
        let (server, name) = (call.server.to_owned(), call.tool.to_owned());
        let sent = arguments.clone();
        // In line with the program's calls: speculative reads go out in the order they start.
        let turn = self.services.order.take(&server);
        let this = self.clone();
        let (node, at) = (call.node.to_owned(), call.at);
        // A call in a local function has a value per call of it: none to keep by node.
        let keep = call.element.is_none() && !call.via;
        let until = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let ended = until.clone();
        let since = self.services.tracer.elapsed_ms();
        let handle = tokio::spawn(async move {
            turn.wait().await;
            let outcome = host.call(&server, &name, sent, turn).await;
            let at_end = this.services.tracer.elapsed_ms();
            ended.store(at_end.to_bits(), std::sync::atomic::Ordering::Release);
            let mut state = this.lock();
            state.running -= 1;
            match &outcome {
                Err(_) => {
                    state.failed.insert(node, at);
                }
                // A guess for what reads it, until the program's own answer comes (a wrong
                // guess only makes reads nobody takes).
                Ok(value) if keep => {
                    state
                        .values
                        .entry(node)
                        .or_insert_with(|| Some(value.clone()));
                }
                Ok(_) => {}
            }
            drop(state);
            this.wake.notify_one();
            outcome
        });
        state.running += 1;
        state.untaken += 1;
        state.report.planned += 1;
        state
            .entries
            .entry((tool.clone(), canonical(&arguments)))
            .or_default()
            .push(Entry {
                epoch,
                call: handle,
                node: call.node.to_owned(),
                element: call.element,
                tool,
                since,
                until,
            });
        Launch::Started
    }

    /// What `function`, called with parameters `literals` (through `path`, `depth` calls of
    /// local functions deep), is certain to do directly in its body or in a `for ... of` loop
    /// there (once per element): its reads start, with its parameters, and the calls of local
    /// functions it makes are followed the same way, recursion included. Certain: the
    /// decisions of the body each depends on read only the parameters and take an outcome
    /// leading to it. `true`: the program moved on (stop this scan); else everything was
    /// started, or is not certain.
    ///
    /// In each server's order: once a call the body makes to a server (or through a local
    /// function reaching it) could not be started (its arguments, its decisions or its loop
    /// not known here), nothing later to that server starts: `blocked` gets the server (and
    /// keeps it for the caller, whose later calls come after).
    fn enter(
        self: &Arc<Self>,
        entered: &Entered<'_>,
        function: &str,
        literals: &IndexMap<String, Value>,
        path: &str,
        depth: usize,
        blocked: &mut HashSet<String>,
    ) -> bool {
        let reached = |function: &str| -> Vec<String> {
            (self.servers_of.get(function))
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default()
        };
        let Some(helper) = self.helpers.get(function) else {
            blocked.extend(reached(function));
            return false;
        };
        if depth > MAX_DEPTH {
            blocked.extend(reached(function));
            return false;
        }
        {
            let state = self.lock();
            if state.expanded.contains(path) {
                blocked.extend(state.blocked.get(path).into_iter().flatten().cloned());
                return false;
            }
        }
        let before = blocked.clone();
        let joins = IndexMap::new();
        // The pure operations of its body over its parameters, computed for this call: what
        // reads them finds them by node id.
        let mut locals;
        let literals = if helper.ops.is_empty() {
            literals
        } else {
            locals = literals.clone();
            for op in &helper.ops {
                let known = Values {
                    args: self.args.as_ref(),
                    results: entered.results,
                    joins: &joins,
                    literals: &locals,
                    declared: &self.declared,
                    evaluates: self.evaluates,
                };
                // `undefined` (no JSON for it): what reads it is not computed.
                if let Some(Some(value)) = self.operation(&known, op) {
                    locals.insert(op.id.clone(), value);
                }
            }
            &locals
        };
        let known = Values {
            args: self.args.as_ref(),
            results: entered.results,
            joins: &joins,
            literals,
            declared: &self.declared,
            evaluates: self.evaluates,
        };
        for read in &helper.reads {
            if blocked.contains(&read.server) {
                continue;
            }
            let reader = Reader {
                task_id: &read.node,
                tool: &read.tool,
            };
            match self.decides(&known, &read.conditions, &reader) {
                Some(true) => {}
                Some(false) => continue,
                None => {
                    blocked.insert(read.server.clone());
                    continue;
                }
            }
            let (elements, all) = self.elements(&known, &read.each, &reader);
            if !all {
                blocked.insert(read.server.clone());
            }
            for element in elements {
                let arguments = at_element_all(&read.arguments, element);
                let Ok(arguments) = known.object(&arguments, &self.services.sandbox, &reader)
                else {
                    blocked.insert(read.server.clone());
                    break;
                };
                let call = Call {
                    key: (format!("{}@{path}", read.node), element),
                    node: &read.node,
                    server: &read.server,
                    tool: &read.tool,
                    element,
                    at: entered.at,
                    via: true,
                };
                if let Launch::Stop = self.launch(entered.epoch, call, Value::Object(arguments)) {
                    return true;
                }
            }
        }
        for nested in &helper.calls {
            let Some(called) = self.helpers.get(&nested.function) else {
                blocked.extend(reached(&nested.function));
                continue;
            };
            let reader = Reader {
                task_id: &nested.call,
                tool: "",
            };
            match self.decides(&known, &nested.conditions, &reader) {
                Some(true) => {}
                Some(false) => continue,
                None => {
                    blocked.extend(reached(&nested.function));
                    continue;
                }
            }
            let (elements, all) = self.elements(&known, &nested.each, &reader);
            if !all {
                blocked.extend(reached(&nested.function));
            }
            for element in elements {
                let arguments = at_element_all(&nested.arguments, element);
                let mut inner = self.literals.clone();
                let mut passed = true;
                for (i, param) in called.params.iter().enumerate() {
                    let argument = arguments.get(i.to_string().as_str());
                    match argument.map(|a| known.parameter(a, &self.services.sandbox, &reader)) {
                        Some(Ok(Some(v))) => {
                            inner.insert(param.clone(), v);
                        }
                        _ => passed = false,
                    }
                }
                if !passed {
                    blocked.extend(reached(&nested.function));
                    break;
                }
                let path = format!("{path}/{}@{element:?}", nested.call);
                if self.enter(entered, &nested.function, &inner, &path, depth + 1, blocked) {
                    return true;
                }
            }
        }
        let mut state = self.lock();
        state.expanded.insert(path.to_owned());
        let own: HashSet<String> = blocked.difference(&before).cloned().collect();
        if !own.is_empty() {
            state.blocked.insert(path.to_owned(), own);
        }
        false
    }

    /// The elements of loop `each` (computed over `known`) a call in it is made for: `[None]`
    /// outside a loop; none when the iterable is not known to be an array. And whether they
    /// are all of them (not when the iterable is not known, or past [`PER_LOOP`]).
    fn elements(
        &self,
        known: &Values<'_>,
        each: &Each,
        reader: &Reader<'_>,
    ) -> (Vec<Option<usize>>, bool) {
        let Some((iterable, names)) = each else {
            return (vec![None], true);
        };
        match known.expression(iterable, names, &self.services.sandbox, reader) {
            Ok(Some(Value::Array(items))) => (
                (0..items.len().min(PER_LOOP)).map(Some).collect(),
                items.len() <= PER_LOOP,
            ),
            _ => (Vec::new(), false),
        }
    }

    /// Whether every decision of `conditions` (condition, what it reads, the outcomes leading
    /// on), computed over `known`, takes an outcome leading on; `None` when a decision cannot be computed here.
    fn decides(
        &self,
        known: &Values<'_>,
        conditions: &[(String, Vec<String>, Vec<String>)],
        reader: &Reader<'_>,
    ) -> Option<bool> {
        for (condition, reads, outcomes) in conditions {
            let value = known.expression(condition, reads, &self.services.sandbox, reader);
            let taken = match value {
                Ok(Some(v)) => truthy(&v),
                Ok(None) => false,
                Err(_) => return None,
            };
            if !outcomes
                .iter()
                .any(|o| o == if taken { "true" } else { "false" })
            {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Whether `target` may start now, but for its data: not done, the writes before it
    /// finished, its branch taken, no failed read before it.
    fn may_start(target: &Target, state: &State) -> bool {
        !state.done.contains(&target.key())
            && target.after.iter().all(|w| state.finished.contains(w))
            && target.ended.iter().all(|n| state.ended.contains(n))
            && target.past.iter().all(|at| state.reached >= *at)
            // In its server's order: what the program sends that server before it, first.
            && (target.before.iter()).all(|(node, at, startable)| {
                state.reached > *at
                    || (*startable
                        && (state.started.contains(&(node.clone(), None))
                            || state.followed.contains(node)))
            })
            // A read that failed ahead: what follows waits until the program got past it (it
            // caught the failure), if it does.
            && !(state.failed.values()).any(|at| *at < target.at && state.reached <= *at)
            && (target.branches.iter()).all(|(d, outcomes)| {
                state
                    .decided
                    .get(d)
                    .is_some_and(|taken| outcomes.contains(taken))
            })
    }

    /// Computes the pure operations whose inputs are known and whose values are not (in a
    /// side sandbox context): `values` with theirs added.
    fn compute(&self, mut values: Results) -> Results {
        let joins = IndexMap::new();
        loop {
            let mut progress = false;
            for c in &self.computable {
                if c.known_in(&values) || !c.reads.iter().all(|r| values.contains_key(r)) {
                    continue;
                }
                let known = Values {
                    args: self.args.as_ref(),
                    results: &values,
                    joins: &joins,
                    literals: &self.literals,
                    declared: &self.declared,
                    evaluates: self.evaluates,
                };
                if let Some(value) = self.operation(&known, c) {
                    c.keep(value, &mut values);
                    progress = true;
                }
            }
            if !progress {
                return values;
            }
        }
    }

    /// The value of pure operation `c` over `known` (`Some(None)`: `undefined`), unless it
    /// cannot be computed (an argument or the code throws).
    fn operation(&self, known: &Values<'_>, c: &Computable) -> Option<Option<Value>> {
        self.computed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let reader = Reader {
            task_id: &c.id,
            tool: &c.tool,
        };
        let mut given = Vec::with_capacity(c.arguments.len());
        for (name, argument) in &c.arguments {
            // A code task's arguments are its free names: static keys.
            given.push((
                name.to_string(),
                known
                    .argument(argument, &self.services.sandbox, &reader)
                    .ok()?,
            ));
        }
        known
            .code(&c.code, given, &self.services.sandbox, &reader)
            .ok()
    }

    /// The program took `outcome` at decision `id` (outside loops).
    pub(crate) fn decided(&self, id: &str, iteration: &[u32], outcome: &str) {
        let mut state = self.lock();
        self.reached(&mut state, id);
        if iteration.is_empty() {
            state.decided.insert(id.to_owned(), outcome.to_owned());
        }
        drop(state);
        self.wake.notify_one();
    }

    /// The program's operation `id` (a code operation, a call of a local function) ended,
    /// `ok` unless it threw.
    pub(crate) fn operation_ended(&self, id: &str, iteration: &[u32], ok: bool) {
        let mut state = self.lock();
        self.reached(&mut state, id);
        if ok && iteration.is_empty() {
            state.ended.insert(id.to_owned());
        }
        drop(state);
        self.wake.notify_one();
    }

    /// The program makes a call to `tool` (`node`, at `element` of its loop when directly in
    /// one): a speculative call to take, if any. A call that is not read-only opens a new
    /// write epoch.
    /// The program made a call to `tool` with `arguments` (told where it makes them, in its
    /// order): until [`Speculation::before_call`] sees it (the returned mark dropped), no
    /// call like it is started ahead.
    pub(crate) fn announce(self: &Arc<Self>, tool: String, arguments: &Value) -> Announced {
        let key = (tool, canonical(arguments));
        *self.lock().announced.entry(key.clone()).or_default() += 1;
        Announced {
            speculation: self.clone(),
            key,
        }
    }

    pub(crate) fn before_call(
        &self,
        tool: &str,
        read_only: bool,
        arguments: &Value,
        node: Option<(&str, Option<usize>)>,
    ) -> Option<(JoinHandle<Result<Value, ToolFailure>>, f64)> {
        let mut state = self.lock();
        if let Some((node, element)) = node {
            self.reached(&mut state, node);
            state.started.insert((node.to_owned(), element));
        }
        if !read_only {
            state.epoch += 1;
            state.writes_running += 1;
            return None;
        }
        let epoch = state.epoch;
        let key = (tool.to_owned(), canonical(arguments));
        let taken = (state.entries.get_mut(&key)).and_then(|entries| {
            let i = entries.iter().position(|e| e.epoch == epoch)?;
            Some(entries.swap_remove(i))
        });
        match taken {
            Some(_) => state.untaken -= 1,
            // Made by the program itself.
            None => *state.made.entry(key).or_default() += 1,
        }
        drop(state);
        // The program got further: what follows may be certain now.
        self.wake.notify_one();
        taken.map(|entry| (entry.call, entry.since))
    }

    /// Speculative calls started and not taken, but one the program's call to `tool` with
    /// `arguments` would take: what that call's count must be added to, against the limit.
    pub(crate) fn untaken_besides(&self, tool: &str, arguments: &Value) -> usize {
        let state = self.lock();
        let key = (tool.to_owned(), canonical(arguments));
        let epoch = state.epoch;
        let takes = (state.entries.get(&key)).is_some_and(|e| e.iter().any(|e| e.epoch == epoch));
        state.untaken - usize::from(takes)
    }

    /// A speculative call was taken: `served` when it answered, else the program calls afresh.
    pub(crate) fn taken(&self, served: bool) {
        let mut state = self.lock();
        if served {
            state.report.served += 1;
        } else {
            state.report.wasted += 1;
        }
    }

    /// The program's call to `node` ended: `Err` when it failed, else its result when the
    /// call is outside loops.
    pub(crate) fn after_call(
        &self,
        node: Option<&str>,
        read_only: bool,
        outcome: Result<Option<&Value>, ()>,
    ) {
        let mut state = self.lock();
        if !read_only {
            state.writes_running = state.writes_running.saturating_sub(1);
        }
        if let (Some(node), Ok(value)) = (node, outcome) {
            if !read_only {
                state.finished.insert(node.to_owned());
            }
            state.ended.insert(node.to_owned());
            state.failed.remove(node);
            if let Some(value) = value {
                state.values.insert(node.to_owned(), Some(value.clone()));
            }
        }
        drop(state);
        self.wake.notify_one();
    }

    /// An operation's value the program reported (probe `k`, outside loops).
    pub(crate) fn value(&self, k: u32, iteration: &[u32], value: Value) {
        let Some(node) = self.wanted_nodes.get(&k) else {
            return;
        };
        if !iteration.is_empty() {
            return;
        }
        self.lock().values.insert(node.clone(), Some(value));
        self.wake.notify_one();
    }

    /// Ends speculation: calls nobody took are dropped (and counted as wasted), and traced as
    /// such (`"speculative": true, "taken": false`): the servers received them.
    pub(crate) async fn finish(&self) -> SpeculationReport {
        let left: Vec<Entry> = {
            let mut state = self.lock();
            state.over = true;
            let left: Vec<Entry> = state.entries.drain().flat_map(|(_, v)| v).collect();
            state.report.wasted += left.len();
            state.untaken = 0;
            left
        };
        self.wake.notify_one();
        // Calls nobody took are cancelled, and gone (with what they hold) before the run ends.
        for entry in left {
            entry.call.abort();
            let outcome = entry.call.await;
            let until = f64::from_bits(entry.until.load(std::sync::atomic::Ordering::Acquire));
            let (until, outcome) = match outcome {
                Ok(outcome) if until > 0.0 => (until, outcome.map(|_| ())),
                _ => (
                    self.services.tracer.elapsed_ms(),
                    Err(ToolFailure::new("cancelled: not taken by the program")),
                ),
            };
            let iteration: Vec<u32> = entry.element.map(|e| e as u32).into_iter().collect();
            let op = crate::trace::Op {
                task_id: Some(&entry.node),
                tool: &entry.tool,
                iteration: &iteration,
                speculative: true,
                ..Default::default()
            };
            self.services
                .tracer
                .untaken(&op, entry.since, until, outcome.err());
        }
        let mut report = self.lock().report;
        report.computed = self.computed.load(std::sync::atomic::Ordering::Relaxed);
        report
    }
}

/// Whether the program changes, in place or by assignment, a name it does not declare: a
/// global of its context (`Math.round = ...`, `globalThis.base = ...`, `String.prototype.x =
/// ...`, `Object.assign(Math, ...)`, through another name too: `const M = Math; M.max = ...`).
/// Code computed ahead of it, in a side context with the globals as they were, could then
/// compute something else.
fn changes_globals(structure: &StaticStructure) -> bool {
    (structure.changed.iter()).any(|name| name != "args" && !structure.declared.contains(name))
}
