//! The `pml` command: `pml analyze FILE`, `pml parameterize FILE`.
//!
//! Exit status: 0 success, 1 the program has errors (syntax), 2 usage, input or config errors.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod diff;
mod out;
mod store_cli;

// The builder allocates many small objects; mimalloc halves the time glibc malloc takes.
#[global_allocator]
static GLOBAL: Mimalloc = Mimalloc;

/// mimalloc as the global allocator, asked for plain blocks where their alignment suffices.
///
/// The `mimalloc` crate's allocator asks for every block with `mi_malloc_aligned`, even for the
/// word alignment every mimalloc block has. In mimalloc v3 that call takes its fast path only
/// when the size's free list happens to have a block, and otherwise over-allocates (`size +
/// align - 1`, from the next size class) unless the size is a power of two: a 24-, 40- or
/// 56-byte block (most of the builder's) never gets a page of its own size and every such
/// allocation takes the slow path. Every block mimalloc hands out is at least word aligned (its
/// size classes are multiples of a word, its free lists are stored in the blocks), so for
/// alignments up to a word `mi_malloc` is asked instead; larger ones keep the aligned calls.
struct Mimalloc;

/// The alignment of every block `mi_malloc` returns: a word.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: every block comes from mimalloc with at least the layout's alignment (a word
// suffices below `WORD`, the aligned calls otherwise) and goes back to it through `mi_free`,
// which takes blocks from either call.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: plain mimalloc calls; the caller's layout has a non-zero size.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_malloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_zalloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator, hence from mimalloc.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; mimalloc keeps the alignment
        // it is asked for (a word, always).
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

/// mimalloc's `mi_option_purge_delay` (its v3 `mimalloc.h`: the 16th option; the crate's
/// bindings name v2's options only).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Memory a process freed goes back to the system after 10 ms instead of mimalloc's 1 s: the
/// builder frees the parse's and the walk's memory as it goes, and with transparent huge pages
/// the arenas kept it resident; on the 1.44 MB benchmark program the peak drops from 90-100 to
/// 84-91 MiB and the CPU time from ~165 to ~140 ms (fewer huge pages zeroed), see
/// docs/benchmarks.md.
fn tune_allocator() {
    // SAFETY: sets an option of the global allocator; mimalloc reads options atomically.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
}

#[derive(Parser)]
#[command(
    name = "pml",
    version,
    about = "Inspect, optimise and run the code agents write against MCP tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the static structure of an agent program as JSON.
    Analyze {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// Tool catalog with input/output schemas (`{"tools": [...]}`): adds `provides` edges.
        #[arg(long, value_name = "CATALOG.json")]
        tools: Option<PathBuf>,
        /// Permission config (`{"permissions": {"server:*": "hil"}}`): fills `hilRequiredTools`.
        #[arg(long, value_name = "PERMS.json")]
        permissions: Option<PathBuf>,
        /// Write one JSON line with phase timings to stderr.
        #[arg(long)]
        timings: bool,
        /// Pretty-printed JSON (on a terminal the default is a summary).
        #[arg(long)]
        pretty: bool,
        /// The JSON document even on a terminal (piped, it is always JSON).
        #[arg(long)]
        json: bool,
    },
    /// Check an agent program: its syntax (diagnostics on stderr); with --mcp-config or
    /// --servers, also what `pml run` checks before anything runs (every call names a
    /// configured server and one of its tools, literal arguments fit the tool's input schema),
    /// against the servers, without running the program. Exit 0 when it passes, 1 when not.
    Check {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// Check the calls against these MCP servers (`{"mcpServers": {...}}`).
        #[arg(long, value_name = "CONFIG.json")]
        mcp_config: Option<PathBuf>,
        /// Check the calls against the servers `pml run` would use (the project's .mcp.json,
        /// else the reference servers).
        #[arg(long, conflicts_with = "mcp_config")]
        servers: bool,
        #[command(flatten)]
        store: store_cli::StoreArg,
        /// Write one JSON line with timings to stderr (`parse_ms`: the bare, one-thread parse;
        /// when the calls are checked, the parse of the program's analysis).
        #[arg(long)]
        timings: bool,
    },
    /// Print the tools of the MCP servers (names, descriptions, annotations, schemas) as the
    /// catalog JSON that `--tools` reads.
    Tools {
        /// The servers (`{"mcpServers": {...}}`) [default: the project's .mcp.json, else the
        /// reference servers].
        #[arg(long, value_name = "CONFIG.json")]
        mcp_config: Option<PathBuf>,
        /// Only this server (repeatable).
        #[arg(long, value_name = "NAME")]
        server: Vec<String>,
        /// Pretty-printed JSON.
        #[arg(long)]
        pretty: bool,
    },
    /// Print TypeScript declarations of the `mcp` API (each tool typed from its schemas, its
    /// description as a doc comment): the file to give a model so that its code type-checks.
    Types {
        /// The servers (`{"mcpServers": {...}}`) [default: the project's .mcp.json, else the
        /// reference servers].
        #[arg(long, value_name = "CONFIG.json")]
        mcp_config: Option<PathBuf>,
        /// Only this server (repeatable).
        #[arg(long, value_name = "NAME")]
        server: Vec<String>,
        /// Write the declarations to this file instead of stdout.
        #[arg(short = 'o', long, value_name = "FILE.d.ts")]
        output: Option<PathBuf>,
        /// The capabilities stored here are declared by name (when the store exists).
        #[command(flatten)]
        store: store_cli::StoreArg,
    },
    /// Print the logical DAG (tasks, dependencies, conditions) of an agent program as JSON.
    Dag {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// The physical DAG instead: pure code chains fused, with `physicalToLogical`.
        #[arg(long)]
        optimized: bool,
        /// With --optimized: also print the DAG after each optimizer rule (to stderr).
        #[arg(long, requires = "optimized")]
        explain: bool,
        /// Most logical operations per fused task.
        #[arg(long, default_value_t = 10)]
        max_fused: usize,
        /// Tool catalog with input/output schemas and annotations (`{"tools": [...]}`): read-only tools make their calls independent.
        /// [default: the tools of the project's .mcp.json servers, when there is one]
        #[arg(long, value_name = "CATALOG.json")]
        tools: Option<PathBuf>,
        /// Take the tools' annotations from these MCP servers (`{"mcpServers": {...}}`).
        #[arg(long, value_name = "CONFIG.json", conflicts_with = "tools")]
        mcp_config: Option<PathBuf>,
        /// Take the tools' annotations from the servers `pml run` would use (the project's
        /// .mcp.json, else the reference servers).
        #[arg(long, conflicts_with_all = ["tools", "mcp_config"])]
        servers: bool,
        /// Pretty-printed JSON (on a terminal the default is a summary).
        #[arg(long)]
        pretty: bool,
        /// The JSON document even on a terminal (piped, it is always JSON).
        #[arg(long)]
        json: bool,
    },
    /// Run a program against a recorded run's answers, no server started: the recorded
    /// program, or FILE (an edited one), each call answered by the recorded run's call with
    /// the same tool and arguments; a call it did not make fails. Nothing is recorded. Exit 1
    /// when the program fails.
    Replay {
        /// The recorded run (its id, or the start of it).
        run: String,
        /// The program to run instead of the recorded one.
        file: Option<PathBuf>,
        /// The program's `args` (a JSON object) [default: the recorded run's].
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        #[command(flatten)]
        store: store_cli::StoreArg,
        /// Pretty-printed JSON (on a terminal the default is a summary).
        #[arg(long)]
        pretty: bool,
        /// The JSON document even on a terminal (piped, it is always JSON).
        #[arg(long)]
        json: bool,
    },
    /// Print the semantic hash of an agent program (one line, lowercase hex SHA-256).
    Hash {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// Print the canonical form that is hashed instead.
        #[arg(long)]
        explain: bool,
    },
    /// Print the program with bound variable names rewritten to `_n1`, `_n2`...
    Normalize {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
    },
    /// Replace the literals inside code-template arguments by `${args.<name>}` parameters.
    Parameterize {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// Pretty-printed JSON.
        #[arg(long)]
        pretty: bool,
    },
    /// Serve pml as an MCP server over stdio: agents send programs (`execute`), search the
    /// tools, and save, find and run capabilities. The downstream servers start once and stay
    /// up; every program runs as `pml run` runs it and is recorded in the store.
    Serve {
        /// The downstream MCP servers (`{"mcpServers": {...}}`) [default: the project's
        /// .mcp.json, else the reference servers, the filesystem one serving --root].
        #[arg(long, value_name = "CONFIG.json")]
        mcp_config: Option<PathBuf>,
        /// The folder the reference filesystem server serves, given to programs as
        /// `args.root` [default: the current directory].
        #[arg(long, value_name = "DIR", conflicts_with = "mcp_config")]
        root: Option<PathBuf>,
        /// Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0: any free
        /// one; the address is said on stderr). Beyond 127.0.0.1/::1 a token is required.
        #[arg(long, value_name = "HOST:PORT")]
        http: Option<std::net::SocketAddr>,
        /// The bearer token every HTTP request must carry (`Authorization: Bearer TOKEN`).
        #[arg(long, value_name = "TOKEN", env = "PML_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// A browser origin allowed to call the HTTP endpoint, besides the loopback ones
        /// (`https://app.example.com:443`; repeatable).
        #[arg(long, value_name = "ORIGIN", requires = "http")]
        allow_origin: Vec<String>,
        /// Start every downstream server now, not at first use.
        #[arg(long)]
        warm: bool,
        /// Most programs running at once; later ones wait for a place.
        #[arg(long, value_name = "N", default_value_t = pml::serve::DEFAULT_MAX_CONCURRENT)]
        max_concurrent: usize,
        /// Calls that need approval: ask the client (MCP elicitation, else the run pauses
        /// for the `approve` tool), run them, or fail them.
        #[arg(long, value_enum, default_value_t = ServeApprove::Client)]
        approve: ServeApprove,
        #[command(flatten)]
        limits: Limits,
        /// Export each run as OpenTelemetry spans to this OTLP/HTTP endpoint
        /// (`http://localhost:4318`), under the client's span when its request carries a
        /// `traceparent` in `_meta`.
        #[arg(long, value_name = "URL")]
        otlp: Option<String>,
        /// Offer each saved capability as a tool of its own (`cap_NAME`), with
        /// `notifications/tools/list_changed` when one is saved.
        #[arg(long)]
        capabilities_as_tools: bool,
        /// Keep no runs and no capabilities.
        #[arg(long)]
        no_store: bool,
        #[command(flatten)]
        store: store_cli::StoreArg,
    },
    /// Run an agent program as written (instrumented, reads speculated ahead) against MCP
    /// servers; print {ok, result, error, executedPath, trace, console, speculation, timings}
    /// as JSON. Exit 0 when it succeeded, 1 when it failed, 2 for bad input.
    Run {
        /// The agent program (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// MCP servers (`{"mcpServers": {...}}`); default: the reference servers from npm,
        /// the filesystem one rooted in a scratch copy of `<file stem>/` (given as `args.root`).
        #[arg(long, value_name = "CONFIG.json")]
        mcp_config: Option<PathBuf>,
        /// The program's `args` (a JSON object) [default: {}; resuming: those of the run].
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        /// Calls that need a human: run them (`auto`), fail them (`deny`), or ask (`prompt`:
        /// the plan once, before anything runs) [default: prompt on a terminal, else auto].
        #[arg(long, value_enum)]
        approve: Option<Approve>,
        #[command(flatten)]
        limits: Limits,
        /// Append the trace events as JSON lines to this file.
        #[arg(long, value_name = "FILE.jsonl")]
        trace_out: Option<PathBuf>,
        /// Export the run as OpenTelemetry spans to this OTLP/HTTP endpoint
        /// (`http://localhost:4318`; JSON encoding).
        #[arg(long, value_name = "URL")]
        otlp: Option<String>,
        /// Do not record the run in the store (nor journal its calls: it cannot be resumed).
        #[arg(long, conflicts_with = "resume")]
        no_store: bool,
        /// Keep the scratch folder the reference servers work in (its path is said on stderr);
        /// it is removed after the run otherwise, interrupted or not.
        #[arg(long, conflicts_with = "mcp_config")]
        keep_scratch: bool,
        /// Run an interrupted run again: the calls it completed are answered from its journal,
        /// the rest run live.
        #[arg(long, value_name = "RUN_ID")]
        resume: Option<String>,
        /// Resuming: what to do with a call the interrupted run started and may or may not
        /// have finished, when it is neither read-only nor idempotent (default: refuse).
        #[arg(long, value_enum, value_name = "WHAT", requires = "resume")]
        resume_uncertain: Option<ResumeUncertain>,
        #[command(flatten)]
        store: store_cli::StoreArg,
        /// Pretty-printed JSON (on a terminal the default is a summary).
        #[arg(long)]
        pretty: bool,
        /// The JSON document even on a terminal (piped, it is always JSON).
        #[arg(long)]
        json: bool,
    },
    /// Save an agent program as a capability: analysed, hashed, its names normalized and its
    /// literals parameterized, stored once per semantic hash (saving the same program again
    /// adds a name to it). Exit 1 when the program has errors or the name is taken.
    Save {
        /// The agent program to save (TypeScript, or JavaScript for .js files).
        file: PathBuf,
        /// The name other programs call it by (`capabilities.NAME(...)`).
        #[arg(long)]
        name: String,
        /// What the capability does, for whoever looks for one (`search_capabilities`, `pml capabilities`).
        #[arg(long)]
        description: Option<String>,
        /// Move the name when it names another capability.
        #[arg(long)]
        replace: bool,
        /// Permission config: which tools need a human (stored with the capability).
        #[arg(long, value_name = "PERMS.json")]
        permissions: Option<PathBuf>,
        #[command(flatten)]
        store: store_cli::StoreArg,
        /// JSON instead of a sentence.
        #[arg(long)]
        json: bool,
    },
    /// The recorded runs: the latest (a table, or JSON with --json), or one in full.
    Runs {
        #[command(subcommand)]
        action: Option<store_cli::RunsAction>,
        #[command(flatten)]
        filter: store_cli::RunsFilter,
        #[command(flatten)]
        store: store_cli::StoreArg,
        /// JSON (`docs/formats.md`) instead of a table or text.
        #[arg(long, global = true)]
        json: bool,
    },
    /// What the recorded runs teach: operations and their successions, each program's paths
    /// (the dominant one first) and decision outcomes.
    Learn {
        /// Only the runs of this capability (name or hash).
        #[arg(long, value_name = "NAME|HASH")]
        capability: Option<String>,
        /// MCP calls (and capability calls) only: pure JavaScript operations (`code:*`) left
        /// out of the graph, the paths and the successions.
        #[arg(long)]
        mcp_only: bool,
        /// JSON (`docs/formats.md`).
        #[arg(long, conflicts_with = "dot")]
        json: bool,
        /// The graph in Graphviz's DOT.
        #[arg(long)]
        dot: bool,
        #[command(flatten)]
        store: store_cli::StoreArg,
    },
    /// Draw a program (a file, or a stored capability's name or hash): its Definition view,
    /// or with --run / --runs its Invocation view (what ran, laid on).
    View {
        /// A program file, or a stored capability's name or hash.
        target: String,
        /// Lay this recorded run on (its id, or the first 6+ characters of it).
        #[arg(long, value_name = "RUN_ID", conflicts_with = "runs")]
        run: Option<String>,
        /// Lay every recorded run of the program on (counts aggregated).
        #[arg(long)]
        runs: bool,
        /// The drawing: Mermaid (Markdown renders it), Graphviz DOT, or a standalone HTML page.
        #[arg(long, value_enum, default_value = "mermaid")]
        format: ViewFormat,
        /// Write the view to this file instead of stdout.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        store: store_cli::StoreArg,
    },
    /// List, show or remove the stored capabilities (a table, or JSON with --json).
    Capabilities {
        #[command(subcommand)]
        action: Option<store_cli::CapabilitiesAction>,
        #[command(flatten)]
        store: store_cli::StoreArg,
        /// JSON (`docs/formats.md`) instead of a table or text.
        #[arg(long, global = true)]
        json: bool,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ViewFormat {
    Mermaid,
    Dot,
    /// One self-contained HTML page.
    Html,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ResumeUncertain {
    /// Run it again.
    Rerun,
    /// Do not run it: the program's call fails.
    Skip,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Approve {
    Auto,
    Deny,
    Prompt,
}

/// How a program may run: approvals policy, limits, speculation (`pml run`, `pml serve`).
#[derive(clap::Args)]
struct Limits {
    /// Permission config (`{"permissions": {"server:*": "hil"}}`): which tools need approval
    /// (default: those annotated `destructiveHint`).
    #[arg(long, value_name = "PERMS.json")]
    permissions: Option<PathBuf>,
    /// Longest an MCP call may take.
    #[arg(long, value_name = "N", default_value_t = 60_000)]
    timeout_ms: u64,
    /// Longest a program's own JavaScript may run (time waiting for servers not counted).
    #[arg(long, value_name = "N", default_value_t = 5_000)]
    code_timeout_ms: u64,
    /// Longest one run may take, wall clock.
    #[arg(long, value_name = "N", default_value_t = 600_000)]
    run_timeout_ms: u64,
    /// Most tool calls one run may make.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    max_calls: usize,
    /// Do not start read-only calls ahead of the program.
    #[arg(long)]
    no_speculate: bool,
    /// Treat this tool (`server:tool`) as read-only, like a `readOnlyHint` (repeatable).
    #[arg(long, value_name = "TOOL")]
    read_only: Vec<String>,
}

impl Limits {
    /// `options` with these limits and policies.
    fn apply(self, options: pml::run::RunOptions) -> pml::run::RunOptions {
        pml::run::RunOptions {
            permissions: self.permissions,
            timeout_ms: self.timeout_ms,
            code_time_limit_ms: self.code_timeout_ms,
            run_timeout_ms: self.run_timeout_ms,
            max_calls: self.max_calls,
            speculate: !self.no_speculate,
            read_only: self.read_only,
            ..options
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ServeApprove {
    Client,
    Auto,
    Deny,
}

fn main() -> ExitCode {
    tune_allocator();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pml: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, pml::InputError> {
    match cli.command {
        Command::Analyze {
            file,
            tools,
            permissions,
            timings,
            pretty,
            json,
        } => {
            let started = std::time::Instant::now();
            let code = pml::read_source(&file)?;
            let options = pml::AnalyzeOptions {
                dialect: pml::dialect_for(&file),
                catalog: tools.as_deref().map(pml::load_catalog).transpose()?,
                permissions: permissions
                    .as_deref()
                    .map(pml::load_permissions)
                    .transpose()?,
                // What it prints has no hash.
                no_hash: true,
                ..Default::default()
            };
            let read_ms = started.elapsed().as_secs_f64() * 1e3;
            let ret = pml::analyze(&code, &options);
            let json_started = std::time::Instant::now();
            match summary_wanted(pretty, json) {
                true => print_text(&pml::summary::structure(&display(&file), &ret.structure)),
                false => emit_structure(&ret.structure, pretty),
            }
            let diagnostics = pml::render_diagnostics(&display(&file), &ret.structure.diagnostics);
            eprint!("{diagnostics}");
            if timings {
                let line = serde_json::json!({
                    "read_ms": read_ms,
                    "parse_ms": ret.timings.parse_ms,
                    "structure_ms": ret.timings.structure_ms,
                    "scan_ms": ret.timings.scan_ms,
                    "walk_ms": ret.timings.walk_ms,
                    "output_ms": json_started.elapsed().as_secs_f64() * 1e3,
                    "total_ms": started.elapsed().as_secs_f64() * 1e3,
                    "bytes": code.len(),
                    "nodes": ret.structure.nodes.len(),
                });
                eprintln!("{line}");
            }
            let status = if ret.structure.has_errors() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
            // The process ends here: freeing thousands of nodes one by one would only add time.
            std::mem::forget(ret);
            Ok(status)
        }
        Command::Check {
            file,
            mcp_config,
            servers,
            store,
            timings,
        } => {
            let started = std::time::Instant::now();
            let code = pml::read_source(&file)?;
            let bytes = code.len();
            let dialect = pml::dialect_for(&file);
            // The calls are checked against the servers named, or the project's.
            let project = match pml::servers::ServerSource::choose_for(None, Some(&file)) {
                pml::servers::ServerSource::File { path, .. } => Some(path),
                pml::servers::ServerSource::Reference => None,
            };
            let calls_checked = servers || mcp_config.is_some() || project.is_some();
            // Checking the calls reads the program's structure: it is analysed, from its one
            // parse; the syntax alone is the bare parse.
            let (diagnostics, phases, analyzed) = match calls_checked {
                true => {
                    let source = pml::run::ProgramSource {
                        place: file.display().to_string(),
                        file: Some(file.clone()),
                        text: code,
                        dialect,
                    };
                    match pml::analysis::Analysis::of_source(&source.text, dialect) {
                        Ok(analysis) => {
                            let errors = (analysis.structure.diagnostics.iter())
                                .filter(|d| d.severity == pml::Severity::Error)
                                .cloned()
                                .collect();
                            let phases = analysis.timings;
                            (
                                errors,
                                phases,
                                Some(pml::run::Analyzed { source, analysis }),
                            )
                        }
                        // A syntax error stops the analysis at the first one: every one is
                        // said, as without the call checks (a parse again, on this path only).
                        Err(pml_structure::StripError::Syntax { .. }) => {
                            let (diagnostics, phases) = pml::check_syntax(&source.text, dialect);
                            (diagnostics, phases, None)
                        }
                        Err(e) => (vec![e.to_diagnostic()], Default::default(), None),
                    }
                }
                false => {
                    let (diagnostics, phases) = pml::check_syntax(&code, dialect);
                    (diagnostics, phases, None)
                }
            };
            eprint!("{}", pml::render_diagnostics(&display(&file), &diagnostics));
            if timings {
                let line = serde_json::json!({
                    "parse_ms": phases.parse_ms,
                    "scan_ms": phases.scan_ms,
                    "total_ms": started.elapsed().as_secs_f64() * 1e3,
                    "bytes": bytes,
                });
                eprintln!("{line}");
            }
            let status = exit_status(&diagnostics);
            if status != ExitCode::SUCCESS {
                return Ok(status);
            }
            let Some(analyzed) = analyzed else {
                eprintln!(
                    "pml: {}: syntax checked; its calls were not checked against any server (no .mcp.json here or beside the program: --servers checks them against the reference servers, --mcp-config against others)",
                    display(&file)
                );
                return Ok(status);
            };
            let config = mcp_config.or(if servers { None } else { project });
            Ok(check_calls(&file, analyzed, config.as_deref(), &store))
        }
        Command::Tools {
            mcp_config,
            server,
            pretty,
        } => Ok(match listings(mcp_config.as_deref(), &server) {
            Ok((listed, status)) => {
                emit(&pml::servers::catalog_json(&listed), pretty);
                status
            }
            Err(code) => code,
        }),
        Command::Types {
            mcp_config,
            server,
            output,
            store,
        } => Ok(match listings(mcp_config.as_deref(), &server) {
            Ok((listed, status)) => {
                let capabilities = match store_cli::capability_types(&store) {
                    Ok(capabilities) => capabilities,
                    Err(code) => return Ok(code),
                };
                let text = pml::types::declarations(&listed, capabilities.as_deref());
                match write_output(output.as_deref(), &text) {
                    Ok(()) => status,
                    Err(code) => code,
                }
            }
            Err(code) => code,
        }),
        Command::Dag {
            file,
            optimized,
            explain,
            max_fused,
            tools,
            mcp_config,
            servers,
            pretty,
            json,
        } => {
            // The annotations come from the catalog given, else from the servers named or the
            // project's (started, listed, stopped).
            let project = match pml::servers::ServerSource::choose_for(None, Some(&file)) {
                pml::servers::ServerSource::File { path, .. } => Some(path),
                pml::servers::ServerSource::Reference => None,
            };
            let flagged = servers || mcp_config.is_some();
            let config = mcp_config.or(if servers { None } else { project });
            let catalog = match tools.as_deref() {
                Some(path) => Some(pml::load_catalog(path)?),
                None if servers || config.is_some() => match listings(config.as_deref(), &[]) {
                    Ok((listed, _)) => Some(pml::servers::catalog_of(&listed)),
                    Err(code) if flagged => return Ok(code),
                    // The project's config, not asked for: the DAG without its annotations.
                    Err(_) => {
                        eprintln!("pml: the DAG is drawn without the servers' annotations");
                        None
                    }
                },
                None => None,
            };
            let Some((_, structure)) = structure_of(&file, catalog.clone())? else {
                return Ok(ExitCode::from(1));
            };
            let logical = pml::to_dag(&structure, &pml::DagOptions { catalog });
            let dag = if optimized {
                let out = pml::optimize(
                    &logical,
                    &pml::OptimizerOptions {
                        max_fused: max_fused.max(1),
                        explain,
                    },
                );
                for step in &out.steps {
                    eprintln!(
                        "== after {} ({} applications)\n{}",
                        step.rule,
                        step.applications,
                        serde_json::to_string_pretty(&step.dag).unwrap_or_default()
                    );
                }
                out.physical
            } else {
                logical
            };
            eprint!(
                "{}",
                pml::render_diagnostics(&display(&file), &dag.diagnostics)
            );
            match summary_wanted(pretty, json) {
                true => print_text(&pml::summary::dag(&display(&file), &dag)),
                false => emit(&dag, pretty),
            }
            let failed = dag
                .diagnostics
                .iter()
                .any(|d| d.severity == pml::Severity::Error);
            Ok(if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Replay {
            run,
            file,
            args,
            store,
            pretty,
            json,
        } => Ok(replay_command(
            &run,
            file.as_deref(),
            args,
            &store,
            pretty,
            json,
        )),
        Command::Hash { file, explain } => {
            // The hash of what runs (TypeScript's JavaScript), as `pml save` keys it and a
            // run records it.
            let code = pml::read_source(&file)?;
            let structure = pml::analysis::structure_of(&code, pml::dialect_for(&file))
                .unwrap_or_else(|e| pml::StaticStructure {
                    diagnostics: vec![e.to_diagnostic()],
                    ..Default::default()
                });
            eprint!(
                "{}",
                pml::render_diagnostics(&display(&file), &structure.diagnostics)
            );
            if structure.has_errors() {
                return Ok(ExitCode::from(1));
            }
            match pml::semantic_hash(&structure) {
                Ok(_) if explain => out::text(&pml::canonical_form(&structure)),
                Ok(digest) => out::line(&digest),
                Err(e) => {
                    eprintln!("{}: {e}", display(&file));
                    return Ok(ExitCode::from(1));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Normalize { file } => {
            let Some((code, structure)) = structure_of(&file, None)? else {
                return Ok(ExitCode::from(1));
            };
            let out = pml::normalize_variable_names(&code, &structure.variable_bindings);
            eprint!(
                "{}",
                pml::render_diagnostics(&display(&file), &out.diagnostics)
            );
            out::text(&out.code);
            Ok(exit_status(&out.diagnostics))
        }
        command @ Command::Run { .. } => Ok(run_program(command)),
        command @ Command::Serve { .. } => Ok(serve(command)),
        Command::Save {
            file,
            name,
            description,
            replace,
            permissions,
            store,
            json,
        } => Ok(store_cli::save(store_cli::SaveArgs {
            file,
            name,
            description,
            replace,
            permissions,
            store,
            json,
        })),
        Command::Capabilities {
            action,
            store,
            json,
        } => Ok(store_cli::capabilities(action, store, json)),
        Command::Runs {
            action,
            filter,
            store,
            json,
        } => Ok(store_cli::runs(action, filter, store, json)),
        Command::Learn {
            capability,
            mcp_only,
            json,
            dot,
            store,
        } => Ok(store_cli::learn(capability, mcp_only, store, json, dot)),
        Command::View {
            target,
            run,
            runs,
            format,
            output,
            store,
        } => {
            let request = pml::view::ViewRequest {
                target: &target,
                run: run.as_deref(),
                runs,
                format: match format {
                    ViewFormat::Mermaid => pml_view::Format::Mermaid,
                    ViewFormat::Dot => pml_view::Format::Dot,
                    ViewFormat::Html => pml_view::Format::Html,
                },
            };
            Ok(store_cli::view(&request, store, output.as_deref()))
        }
        Command::Parameterize { file, pretty } => {
            let code = pml::read_source(&file)?;
            let ret = pml_structure::parameterize(&code, pml::dialect_for(&file));
            emit(&ret, pretty);
            let diagnostics = pml::render_diagnostics(&display(&file), &ret.diagnostics);
            eprint!("{diagnostics}");
            Ok(exit_status(&ret.diagnostics))
        }
    }
}

/// Read and analyse `file` for the commands that need a valid program; prints the diagnostics.
/// `Ok(None)`: the program has errors (exit status 1).
fn structure_of(
    file: &Path,
    catalog: Option<pml::ToolCatalog>,
) -> Result<Option<(String, pml::StaticStructure)>, pml::InputError> {
    let code = pml::read_source(file)?;
    let options = pml::AnalyzeOptions {
        dialect: pml::dialect_for(file),
        catalog,
        ..Default::default()
    };
    let ret = pml::analyze(&code, &options);
    eprint!(
        "{}",
        pml::render_diagnostics(&display(file), &ret.structure.diagnostics)
    );
    if ret.structure.has_errors() {
        return Ok(None);
    }
    Ok(Some((code, ret.structure)))
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// 1 when any diagnostic is an error, else 0.
fn exit_status(diagnostics: &[pml::Diagnostic]) -> ExitCode {
    match diagnostics
        .iter()
        .any(|d| d.severity == pml::Severity::Error)
    {
        true => ExitCode::from(1),
        false => ExitCode::SUCCESS,
    }
}

/// A summary for a person: stdout is a terminal and no JSON was asked for.
fn summary_wanted(pretty: bool, json: bool) -> bool {
    !pretty && !json && std::io::stdout().is_terminal()
}

fn print_text(text: &str) {
    out::text(text);
}

fn emit<T: serde::Serialize>(value: &T, pretty: bool) {
    let stdout = std::io::stdout();
    let pretty = pretty || stdout.is_terminal();
    let text = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    if let Ok(text) = text {
        // Strings are pml text: lone surrogates written as JavaScript writes them (`\udXXX`).
        let text = pml_jstext::to_js_json(&text);
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        if let Err(e) = (out.write_all(text.as_bytes()))
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
        {
            out::failed(e)
        }
    }
}

/// [`emit`] for a structure: compact output is the structure's own writer (the same bytes as
/// serde_json's, in a fraction of the time), pretty output serde_json's.
fn emit_structure(structure: &pml::StaticStructure, pretty: bool) {
    let stdout = std::io::stdout();
    if pretty || stdout.is_terminal() {
        return emit(structure, true);
    }
    // Written in 64 KiB blocks through a copy of the descriptor, not the line-buffered
    // `Stdout`, which looks for the last newline in every block it is given (~1.5M
    // instructions on a 1.4 MB structure).
    #[cfg(unix)]
    let Ok(mut out) = std::os::fd::AsFd::as_fd(&stdout)
        .try_clone_to_owned()
        .map(std::fs::File::from)
    else {
        return emit(structure, false);
    };
    #[cfg(not(unix))]
    let mut out = stdout.lock();
    if let Err(e) = structure
        .write_json_to(&mut out)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        out::failed(e)
    }
}

/// A runtime for the commands that talk to servers.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(pml::RUNTIME_STACK)
        .build()
        .map_err(|e| {
            eprintln!("pml: cannot start the async runtime: {e}");
            ExitCode::from(2)
        })
}

/// `pml check --mcp-config|--servers`: the program's calls against the servers.
fn check_calls(
    file: &Path,
    analyzed: pml::run::Analyzed,
    mcp_config: Option<&Path>,
    store: &store_cli::StoreArg,
) -> ExitCode {
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    // A store only matters for the capabilities the program calls; none is not an error.
    let store = store_cli::location(store).ok();
    match runtime.block_on(pml::run::check_analyzed(file, analyzed, mcp_config, store)) {
        Ok(problems) => {
            for problem in problems.certain.iter().chain(&problems.warnings) {
                eprintln!("{problem}");
            }
            match problems.certain.is_empty() {
                true => ExitCode::SUCCESS,
                false => ExitCode::from(1),
            }
        }
        Err(e @ pml::run::RunSetupError::Source { .. }) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("pml: {e}");
            ExitCode::from(2)
        }
    }
}

/// The servers' tool listings for `pml tools` and `pml types`, and the exit status: 1 when a
/// server gave none (said on stderr; the others are still listed).
fn listings(
    mcp_config: Option<&Path>,
    only: &[String],
) -> Result<(pml::servers::Listings, ExitCode), ExitCode> {
    let runtime = runtime()?;
    match runtime.block_on(pml::servers::catalog(mcp_config, only)) {
        Ok((listed, failed)) => {
            for why in &failed {
                eprintln!("pml: {why}");
            }
            let status = match failed.is_empty() {
                true => ExitCode::SUCCESS,
                false => ExitCode::from(1),
            };
            Ok((listed, status))
        }
        Err(e) => {
            eprintln!("pml: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// `text` to `path`, or to stdout.
fn write_output(path: Option<&Path>, text: &str) -> Result<(), ExitCode> {
    match path {
        Some(path) => std::fs::write(path, text).map_err(|e| {
            eprintln!("pml: {}: cannot write: {e}", path.display());
            ExitCode::from(2)
        }),
        None => {
            out::text(text);
            Ok(())
        }
    }
}

/// `pml serve`.
fn serve(command: Command) -> ExitCode {
    let Command::Serve {
        mcp_config,
        root,
        http,
        token,
        allow_origin,
        warm,
        max_concurrent,
        approve,
        limits,
        otlp,
        capabilities_as_tools,
        no_store,
        store,
    } = command
    else {
        return ExitCode::from(2);
    };
    if let Some(address) = http.filter(|a| !a.ip().is_loopback() && token.is_none()) {
        eprintln!(
            "pml: listening on {address} (beyond the loopback interface) needs a bearer token: --token or PML_TOKEN"
        );
        return ExitCode::from(2);
    }
    let store = match store_cli::location_unless(no_store, &store) {
        Ok(store) => store,
        Err(code) => return code,
    };
    if let Some(path) = &limits.permissions {
        if let Err(e) = pml::load_permissions(path) {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    }
    // The reference servers keep their files (the memory server's) here while it serves.
    let mut scratch = None;
    let mut servers = match pml::servers::ServerSource::choose(mcp_config.as_deref()) {
        pml::servers::ServerSource::File { path, found } => {
            pml::servers::read_config(&path).map(|mut config| {
                for name in pml::serve::without_gateways(&mut config) {
                    eprintln!(
                        "pml serve: server `{name}` of {} is a pml gateway itself: left out",
                        path.display()
                    );
                }
                // A project's config that only declares this gateway: the reference servers.
                (!(found && config.servers.is_empty())).then_some((config, serde_json::Map::new()))
            })
        }
        pml::servers::ServerSource::Reference => Ok(None),
    };
    if let Ok(None) = servers {
        servers = pml::serve::scratch().and_then(|dir| {
            let root = match root.map(|r| r.canonicalize().map_err(|e| (r, e))) {
                Some(Ok(root)) => root,
                Some(Err((r, e))) => {
                    return Err(pml::run::RunSetupError::Setup(format!(
                        "--root {}: {e}",
                        r.display()
                    )))
                }
                None => std::env::current_dir()
                    .map_err(|e| pml::run::RunSetupError::Setup(e.to_string()))?,
            };
            let config = pml::serve::default_config(&root, &dir.dir);
            scratch = Some(dir);
            config.map(Some)
        });
    }
    let servers = servers.map(|s| s.unwrap_or_default());
    let (config, inherited) = match servers {
        Ok(servers) => servers,
        Err(e) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    };
    let options = pml::serve::ServeOptions {
        config,
        inherited,
        store,
        warm,
        max_concurrent,
        otlp,
        capabilities_as_tools,
        approve: match approve {
            ServeApprove::Client => pml::serve::Approvals::Client,
            ServeApprove::Auto => pml::serve::Approvals::Auto,
            ServeApprove::Deny => pml::serve::Approvals::Deny,
        },
        run: limits.apply(pml::run::RunOptions::default()),
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let code = runtime.block_on(async move {
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            if let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                stop.send_replace(true);
            }
        });
        let gateway = match pml::serve::Gateway::new(options).await {
            Ok(gateway) => gateway,
            Err(e) => {
                eprintln!("pml: {e}");
                return ExitCode::from(2);
            }
        };
        let served = match http {
            Some(address) => {
                let options = pml::serve::HttpOptions {
                    address,
                    token,
                    allowed_origins: allow_origin,
                };
                pml::serve::serve_http(gateway, options, stopped, |bound| {
                    eprintln!(
                        "pml serve: listening on http://{bound}{}",
                        pml::serve::HTTP_PATH
                    );
                })
                .await
            }
            None => pml::serve::serve_stdio(gateway, stopped).await,
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("pml: {e}");
                ExitCode::from(1)
            }
        }
    });
    drop(scratch);
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    code
}

/// `pml run`.
fn run_program(command: Command) -> ExitCode {
    let Command::Run {
        file,
        mcp_config,
        args,
        approve,
        limits,
        trace_out,
        otlp,
        no_store,
        keep_scratch,
        resume,
        resume_uncertain,
        store,
        pretty,
        json,
    } = command
    else {
        return ExitCode::from(2);
    };
    let args_given = args.is_some();
    // As JavaScript reads it: a lone surrogate (`\udXXX`) becomes pml text.
    let args = args.as_deref().map(pml_jstext::from_js_json);
    let args: serde_json::Value = match serde_json::from_str(args.as_deref().unwrap_or("{}")) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => {
            eprintln!("pml: --args must be a JSON object");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("pml: --args is not JSON: {e}");
            return ExitCode::from(2);
        }
    };
    let store = match store_cli::location_unless(no_store, &store) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let resume = resume.map(|run_id| pml::run::ResumeOptions {
        run_id,
        uncertain: resume_uncertain.map(|u| match u {
            ResumeUncertain::Rerun => pml::run::Uncertain::Rerun,
            ResumeUncertain::Skip => pml::run::Uncertain::Skip,
        }),
        args_given,
    });
    let options = limits.apply(pml::run::RunOptions {
        mcp_config,
        args,
        // On a terminal, a call that needs a human is asked about (the plan, once, before
        // anything runs), as agent clients ask before destructive tools; piped, it runs.
        approve: match approve {
            Some(Approve::Auto) => pml::run::ApproveMode::Auto,
            Some(Approve::Deny) => pml::run::ApproveMode::Deny,
            Some(Approve::Prompt) => pml::run::ApproveMode::Prompt,
            None if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => {
                pml::run::ApproveMode::Prompt
            }
            None => pml::run::ApproveMode::Auto,
        },
        store,
        resume,
        keep_scratch,
        ..pml::run::RunOptions::default()
    });
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (interrupt, interrupted) = tokio::sync::watch::channel(false);
    let options = pml::run::RunOptions {
        interrupt: Some(interrupted.clone()),
        ..options
    };
    runtime.spawn(on_signals(interrupt));
    // Live progress on a terminal (never over an approval question: `summary::ASKING`).
    let progress = (std::io::stderr().is_terminal())
        .then(|| std::sync::Arc::new(pml::summary::Progress::default()));
    let options = pml::run::RunOptions {
        on_event: progress.clone().map(|p| {
            std::sync::Arc::new(move |e: &pml_trace::TraceEvent| p.event(e))
                as pml_executor::Observer
        }),
        ..options
    };
    let output = runtime.block_on(pml::run::run_file(&file, &options));
    // Not waiting for a question still reading stdin (an interrupted approval prompt).
    runtime.shutdown_background();
    if let Some(progress) = &progress {
        progress.finish();
    }
    let output = match output {
        Ok(output) => output,
        // The program's calls do not fit the servers: a "no", like a syntax error.
        // Said as `file:line:col: why`, which editors and CI annotations pick up.
        Err(pml::run::RunSetupError::Checks { problems }) => {
            for problem in problems {
                eprintln!("{problem}");
            }
            return ExitCode::from(1);
        }
        // The program has errors (syntax, an unknown or cyclic capability): exit 1, as for
        // every other command.
        Err(e @ pml::run::RunSetupError::Source { .. }) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
        Err(pml::run::RunSetupError::Store(
            e @ (pml_store::StoreError::Unreachable { .. }
            | pml_store::StoreError::Corrupt { .. }
            | pml_store::StoreError::NewerSchema { .. }),
        )) => {
            eprintln!("pml: {e}");
            eprintln!(
                "pml: run it without recording with --no-store, or name another store with --store (or PML_STORE)"
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    };
    let report = &output.report;
    if let Some(url) = &otlp {
        let spans = pml::otlp::RunSpans {
            file: display(&file),
            started: output.executed_at,
            duration: std::time::Duration::from_secs_f64(report.timings.execute_ms.max(0.0) / 1e3),
            ok: report.ok,
            error: report.error.as_ref().map(|e| e.message.clone()),
            run_id: output.run_id.clone(),
            trace: report.trace.clone(),
            parent: None,
        };
        if let Err(e) = pml::otlp::export(url, spans) {
            eprintln!("pml: {e}");
        }
    }
    if let Some(path) = &trace_out {
        // Each line says which run it is from (runs append to the same file); an unrecorded
        // run gets an id of its own.
        let run_id = (output.run_id.clone()).unwrap_or_else(pml_store::new_run_id);
        if let Err(e) = append_trace(path, &run_id, &report.trace) {
            eprintln!("pml: {}: cannot write the trace: {e}", path.display());
        }
    }
    // The program's console output goes to stderr, never into stdout's JSON.
    for line in &report.console {
        eprintln!("{}", line.text);
    }
    if let Some(error) = &report.error {
        eprintln!("pml: {}: {}", display(&file), error.message);
    }
    match summary_wanted(pretty, json) {
        true => print_text(&pml::summary::run(&display(&file), &output)),
        false => emit(&output.to_json(), pretty),
    }
    if report.ok {
        ExitCode::SUCCESS
    } else if *interrupted.borrow() {
        // As a shell reports a process the signal ended: 130 for SIGINT, 143 for SIGTERM.
        ExitCode::from(128 + SIGNALLED.load(std::sync::atomic::Ordering::SeqCst))
    } else {
        ExitCode::from(1)
    }
}

/// `pml replay RUN [FILE]`: the program against the recorded run's answers; its report as
/// `pml run` prints it, with `replay` (the run, calls answered, calls it had no answer for,
/// whether the result is the recorded one).
fn replay_command(
    run: &str,
    file: Option<&Path>,
    args: Option<String>,
    store: &store_cli::StoreArg,
    pretty: bool,
    json: bool,
) -> ExitCode {
    let args = match args
        .as_deref()
        .map(serde_json::from_str::<serde_json::Value>)
    {
        None => None,
        Some(Ok(v @ serde_json::Value::Object(_))) => Some(v),
        Some(_) => {
            eprintln!("pml: --args must be a JSON object");
            return ExitCode::from(2);
        }
    };
    let location = match store_cli::location_unless(false, store) {
        Ok(Some(location)) => location,
        Ok(None) => return ExitCode::from(2),
        Err(code) => return code,
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let replayed = runtime.block_on(async {
        let store = pml::capability::open_store(&location)
            .await
            .map_err(|e| pml::run::RunSetupError::Setup(e.to_string()))?;
        let replayed = pml::replay::replay(&store, run, file, args).await;
        store.close().await;
        replayed
    });
    let replayed = match replayed {
        Ok(replayed) => replayed,
        Err(e) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    };
    let report = &replayed.output.report;
    let place = match file {
        Some(file) => display(file),
        None => (replayed.recorded.file.clone())
            .unwrap_or_else(|| format!("run {}", replayed.recorded.id)),
    };
    for line in &report.console {
        eprintln!("{}", line.text);
    }
    if let Some(error) = &report.error {
        eprintln!("pml: {place}: {}", error.message);
    }
    let same = replayed.same_result();
    match summary_wanted(pretty, json) {
        true => {
            let mut text = pml::summary::run(&place, &replayed.output);
            text.push_str(&format!(
                "replayed against run {}: {} {} answered from it{}; {}\n",
                replayed.recorded.id,
                replayed.answered,
                if replayed.answered == 1 {
                    "call"
                } else {
                    "calls"
                },
                match replayed.unanswered.len() {
                    0 => String::new(),
                    n => format!(
                        ", {n} it has no answer for ({})",
                        replayed.unanswered.join("; ")
                    ),
                },
                if same {
                    "the same result as it gave"
                } else {
                    "not the result it gave"
                },
            ));
            print_text(&text);
        }
        false => {
            let mut out = replayed.output.to_json();
            out.replay = Some(serde_json::json!({
                "run": replayed.recorded.id,
                "answered": replayed.answered,
                "unanswered": replayed.unanswered,
                "sameResult": same,
            }));
            emit(&out, pretty);
        }
    }
    match report.ok {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
}

/// SIGINT (Ctrl-C) or SIGTERM: the run is interrupted (no new call, the calls in flight
/// cancelled after a short grace, servers stopped, the scratch folder removed unless the run
/// can be resumed, the report so far printed); a second one ends the process at once.
async fn on_signals(interrupt: tokio::sync::watch::Sender<bool>) {
    use std::sync::atomic::Ordering;
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return;
    };
    let signo = tokio::select! {
        _ = int.recv() => libc_signal::SIGINT,
        _ = term.recv() => libc_signal::SIGTERM,
    };
    SIGNALLED.store(signo, Ordering::SeqCst);
    eprintln!("pml: interrupted: stopping the run (again to quit at once)");
    interrupt.send_replace(true);
    let signo = tokio::select! {
        _ = int.recv() => libc_signal::SIGINT,
        _ = term.recv() => libc_signal::SIGTERM,
    };
    std::process::exit(128 + i32::from(signo));
}

/// The signal that interrupted the run (its number).
static SIGNALLED: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The numbers of the signals `pml run` handles (the same on every Unix).
mod libc_signal {
    pub const SIGINT: u8 = 2;
    pub const SIGTERM: u8 = 15;
}

fn append_trace(
    path: &Path,
    run_id: &str,
    events: &[pml_trace::TraceEvent],
) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut text = String::new();
    for e in events {
        let mut line = serde_json::Map::new();
        line.insert("runId".into(), run_id.into());
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(e) {
            line.extend(fields);
        }
        text.push_str(&serde_json::Value::Object(line).to_string());
        text.push('\n');
    }
    // Strings are pml text: lone surrogates written as JavaScript writes them.
    file.write_all(pml_jstext::to_js_json(&text).as_bytes())
}

#[cfg(test)]
mod help_tests {
    use clap::CommandFactory;

    /// Every flag and argument of every command says what it is for in `--help`.
    #[test]
    fn every_flag_has_help_text() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {}", arg.get_id()));
                }
            }
            for sub in command.get_subcommands() {
                if sub.get_about().is_none() && sub.get_long_about().is_none() {
                    missing.push(format!("{path} {} (the command)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "pml", &mut missing);
        assert!(missing.is_empty(), "without help text: {missing:#?}");
    }
}
