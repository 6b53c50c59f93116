//! `pml save` and `pml capabilities`: the command-line side of the capability store.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pml_store::{
    Capability, CapabilitySummary, Run, RunSummary, SaveOutcome, Saved, Store, StoreError,
};
use pml_trace::{EventKind, TraceEvent};
use serde::Deserialize;

/// Where the store is: `--store`, else `$PML_STORE`, else the default location.
#[derive(clap::Args, Clone)]
pub struct StoreArg {
    /// The capability store: a SQLite file, `sqlite:PATH` or `postgres://...` [default:
    /// $XDG_DATA_HOME/pml/store.sqlite, else ~/.local/share/pml/store.sqlite].
    #[arg(long, value_name = "LOCATION", env = "PML_STORE", global = true)]
    pub store: Option<String>,
}

#[derive(clap::Subcommand, Clone)]
pub enum CapabilitiesAction {
    /// Every capability: hash, names, tools, when saved (the default).
    List,
    /// One capability, by name or hash (or the start of a hash, 6 characters at least).
    Show {
        /// A name, a hash, or the start of a hash (6 characters at least).
        key: String,
    },
    /// Remove a name (the capability goes with its last name), or a capability by hash.
    Remove {
        /// A name (the capability goes with its last name), or a hash.
        key: String,
    },
}

#[derive(clap::Subcommand, Clone)]
pub enum RunsAction {
    /// The latest runs, newest first (the default).
    List,
    /// One run in full: args, result, error, trace, decisions, timings.
    Show {
        /// The run's id, or its start (6 characters at least).
        id: String,
    },
    /// Where two finished runs went different ways: decisions, calls, arguments, outcomes,
    /// loops, results (exit status 0 the same, 1 different, 2 an error).
    Diff {
        /// The first run's id, or its start (6 characters at least).
        a: String,
        /// The second run's id, or its start (6 characters at least).
        b: String,
    },
}

/// The exit status of a store error: 1 for an answer ("no such name"), 2 for a store that
/// cannot be used.
fn failed(e: &StoreError) -> ExitCode {
    eprintln!("pml: {e}");
    match e {
        StoreError::NotFound(_)
        | StoreError::NoRun(_)
        | StoreError::Ambiguous { .. }
        | StoreError::NameTaken { .. } => ExitCode::from(1),
        _ => ExitCode::from(2),
    }
}

/// The store location, or none with `--no-store`.
pub fn location_unless(no_store: bool, arg: &StoreArg) -> Result<Option<String>, ExitCode> {
    match no_store {
        true => Ok(None),
        false => location(arg).map(Some),
    }
}

/// The store location: `--store`, `$PML_STORE`, or the default.
pub fn location(arg: &StoreArg) -> Result<String, ExitCode> {
    if let Some(store) = arg.store.as_ref().filter(|s| !s.is_empty()) {
        return Ok(store.clone());
    }
    match pml_store::default_location() {
        Some(path) => Ok(path.display().to_string()),
        None => {
            eprintln!("pml: no store location: give --store or PML_STORE (HOME is not set)");
            Err(ExitCode::from(2))
        }
    }
}

/// The stored capabilities as `pml types` declares them; `None` when there is no store yet
/// (none is created for this).
pub fn capability_types(
    arg: &StoreArg,
) -> Result<Option<Vec<pml::types::CapabilityType>>, ExitCode> {
    let Ok(location) = location(arg) else {
        return Ok(None);
    };
    let remote = location.starts_with("postgres://") || location.starts_with("postgresql://");
    let file = location.strip_prefix("sqlite:").unwrap_or(&location);
    if !remote && !Path::new(file).exists() {
        return Ok(None);
    }
    with_store(arg, async |store: &Store| {
        let mut out = Vec::new();
        for summary in store.capabilities().await? {
            let stored = store.capability(&summary.code_hash).await?;
            for name in &summary.names {
                out.push(pml::types::CapabilityType {
                    name: name.clone(),
                    description: stored.description.clone(),
                    parameters: stored.parameter_schema.clone(),
                });
            }
        }
        Ok(out)
    })
    .map(Some)
}

/// A runtime on this thread, for the store's work (exit 2 when it cannot start).
fn small_runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("pml: cannot start the async runtime: {e}");
            ExitCode::from(2)
        })
}

/// Open the store and run `work` on it, on a small runtime.
fn with_store<T>(
    arg: &StoreArg,
    work: impl AsyncFnOnce(&Store) -> Result<T, StoreError>,
) -> Result<T, ExitCode> {
    let location = location(arg)?;
    let runtime = small_runtime()?;
    runtime.block_on(async {
        let store = pml::capability::open_store(&location)
            .await
            .map_err(|e| failed(&e))?;
        let out = work(&store).await;
        store.close().await;
        out.map_err(|e| failed(&e))
    })
}

pub struct SaveArgs {
    pub file: PathBuf,
    pub name: String,
    pub description: Option<String>,
    pub replace: bool,
    pub permissions: Option<PathBuf>,
    pub store: StoreArg,
    pub json: bool,
}

/// `pml save`.
pub fn save(args: SaveArgs) -> ExitCode {
    if let Err(message) = pml::capability::check_name(&args.name) {
        eprintln!("pml: --name {:?}: {message}", args.name);
        return ExitCode::from(2);
    }
    let prepared = (|| {
        let code = pml::read_source(&args.file)?;
        let options = pml::AnalyzeOptions {
            dialect: pml::dialect_for(&args.file),
            permissions: args
                .permissions
                .as_deref()
                .map(pml::load_permissions)
                .transpose()?,
            ..Default::default()
        };
        Ok::<_, pml::InputError>(pml::capability::prepare(
            &code,
            &options,
            &args.name,
            args.description.as_deref(),
        ))
    })();
    let new = match prepared {
        Ok(Ok(new)) => new,
        Ok(Err(errors)) => {
            eprint!("{}", pml::render_diagnostics(&display(&args.file), &errors));
            eprintln!("pml: not saved: the program has errors");
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    };
    let saved = match with_store(&args.store, async |s| {
        s.save_capability(&new, args.replace).await
    }) {
        Ok(saved) => saved,
        Err(code) => return code,
    };
    if args.json {
        print_json(&saved);
    } else {
        crate::out::line(&describe_save(&saved));
    }
    ExitCode::SUCCESS
}

fn describe_save(saved: &Saved) -> String {
    let hash = &saved.code_hash;
    let name = &saved.name;
    match &saved.outcome {
        SaveOutcome::Created => format!("saved `{name}`: new capability {hash}"),
        SaveOutcome::Alias { names } => format!(
            "`{name}` is now a name of capability {hash}, stored already as {}: the same program (same semantic hash)",
            quoted(names)
        ),
        SaveOutcome::Unchanged => format!("`{name}` is capability {hash} already: nothing to save"),
        SaveOutcome::Moved { previous } => {
            format!("`{name}` moved from capability {previous} to {hash}")
        }
    }
}

/// `pml capabilities`.
pub fn capabilities(action: Option<CapabilitiesAction>, store: StoreArg, json: bool) -> ExitCode {
    match action.unwrap_or(CapabilitiesAction::List) {
        CapabilitiesAction::List => match with_store(&store, async |s| s.capabilities().await) {
            Ok(list) if json => print_json(&list),
            Ok(list) => crate::out::text(&table(&list)),
            Err(code) => return code,
        },
        CapabilitiesAction::Show { key } => {
            match with_store(&store, async |s| s.capability(&key).await) {
                Ok(c) if json => print_json(&c),
                Ok(c) => crate::out::text(&describe(&c)),
                Err(code) => return code,
            }
        }
        CapabilitiesAction::Remove { key } => {
            match with_store(&store, async |s| s.remove_capability(&key).await) {
                Ok(r) if json => print_json(&r),
                Ok(r) if r.capability_removed => crate::out::line(&format!(
                    "removed capability {} ({})",
                    r.code_hash,
                    match r.names.is_empty() {
                        true => "it had no names".to_string(),
                        false => quoted(&r.names),
                    }
                )),
                Ok(r) => crate::out::line(&format!(
                    "removed the name {} of capability {} (it keeps its other names)",
                    quoted(&r.names),
                    r.code_hash
                )),
                Err(code) => return code,
            }
        }
    }
    ExitCode::SUCCESS
}

/// `pml view`: the store is opened only when the view needs it (a capability, runs).
pub fn view(
    request: &pml::view::ViewRequest<'_>,
    store: StoreArg,
    output: Option<&Path>,
) -> ExitCode {
    let needs_store = request.run.is_some() || request.runs || !Path::new(request.target).is_file();
    let location = match needs_store {
        true => match location(&store) {
            Ok(location) => Some(location),
            Err(code) => return code,
        },
        false => None,
    };
    let runtime = match small_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let drawn = runtime.block_on(async {
        let store = match &location {
            Some(location) => Some(pml::capability::open_store(location).await?),
            None => None,
        };
        let drawn = pml::view::view(request, store.as_ref()).await;
        if let Some(store) = store {
            store.close().await;
        }
        drawn
    });
    let text = match drawn {
        Ok(text) => text,
        Err(pml::view::ViewError::Store(e)) => return failed(&e),
        Err(pml::view::ViewError::Source(message)) => {
            eprintln!("pml: {message}");
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    };
    match output {
        None => crate::out::text(&text),
        Some(path) => {
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("pml: {}: cannot write the view: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

/// `pml learn`.
pub fn learn(
    capability: Option<String>,
    mcp_only: bool,
    store: StoreArg,
    json: bool,
    dot: bool,
) -> ExitCode {
    let location = match location(&store) {
        Ok(location) => location,
        Err(code) => return code,
    };
    let runtime = match small_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let learned = runtime.block_on(async {
        let store = pml::capability::open_store(&location).await?;
        let learner = match mcp_only {
            true => pml_learn::Learner::mcp_only(),
            false => pml_learn::Learner::new(),
        };
        let learned = pml::learn::learn_with(&store, capability.as_deref(), learner).await;
        store.close().await;
        learned
    });
    match learned {
        Ok(learned) if json => print_json(&learned.to_json()),
        Ok(learned) if dot => crate::out::text(&learned.to_dot()),
        Ok(learned) => crate::out::text(&pml::learn::describe(&learned)),
        Err(pml::learn::LearnFailure::Store(e)) => return failed(&e),
        Err(e) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// Which runs `pml runs` lists.
#[derive(clap::Args, Clone)]
pub struct RunsFilter {
    /// How many (the latest).
    #[arg(long, default_value_t = 20, global = true)]
    pub limit: i64,
    /// Only the runs of this capability (name or hash).
    #[arg(long, value_name = "NAME|HASH", global = true)]
    pub capability: Option<String>,
}

/// `pml runs`.
pub fn runs(
    action: Option<RunsAction>,
    filter: RunsFilter,
    store: StoreArg,
    json: bool,
) -> ExitCode {
    let RunsFilter { limit, capability } = filter;
    match action.unwrap_or(RunsAction::List) {
        RunsAction::List => {
            let listed = with_store(&store, async |s| {
                let hash = match &capability {
                    Some(key) => Some(s.capability(key).await?.code_hash),
                    None => None,
                };
                s.runs(hash.as_deref(), limit.max(0)).await
            });
            match listed {
                Ok(list) if json => print_json(&list),
                Ok(list) => crate::out::text(&runs_table(&list)),
                Err(code) => return code,
            }
        }
        RunsAction::Show { id } => match with_store(&store, async |s| s.run(&id).await) {
            Ok(run) if json => print_json(&run),
            Ok(run) => crate::out::text(&describe_run(&run)),
            Err(code) => return code,
        },
        RunsAction::Diff { a, b } => return runs_diff(&a, &b, &store, json),
    }
    ExitCode::SUCCESS
}

/// Why two runs cannot be compared.
enum DiffFailure {
    Store(StoreError),
    /// A run that started and did not finish: it has a journal, no trace.
    Unfinished {
        id: String,
        file: Option<String>,
    },
}

/// Finished run `id` and its whole result (also when its record keeps only its start).
async fn finished_run(store: &Store, id: &str) -> Result<(Run, serde_json::Value), DiffFailure> {
    let run = store.run(id).await.map_err(DiffFailure::Store)?;
    if !run.finished {
        return Err(DiffFailure::Unfinished {
            id: run.id,
            file: run.file,
        });
    }
    let result = match run.result_truncated {
        true => (store.whole_result(&run.id).await).map_err(DiffFailure::Store)?,
        false => run.result.clone(),
    };
    Ok((run, result))
}

/// `pml runs diff A B`: exit status 0 when the runs are the same, 1 when they differ, 2 when
/// they cannot be compared (an unknown or ambiguous id, a run that did not finish, a store
/// that cannot be used). Unlike `show`, an unknown id is 2: 1 means "they differ".
fn runs_diff(a: &str, b: &str, store: &StoreArg, json: bool) -> ExitCode {
    let location = match location(store) {
        Ok(location) => location,
        Err(code) => return code,
    };
    let runtime = match small_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let compared = runtime.block_on(async {
        let store = pml::capability::open_store(&location)
            .await
            .map_err(DiffFailure::Store)?;
        let loaded = async {
            Ok::<_, DiffFailure>((
                finished_run(&store, a).await?,
                finished_run(&store, b).await?,
            ))
        }
        .await;
        store.close().await;
        let ((ra, va), (rb, vb)) = loaded?;
        Ok(crate::diff::diff(&ra, &va, &rb, &vb))
    });
    let compared = match compared {
        Ok(compared) => compared,
        Err(DiffFailure::Store(e)) => {
            eprintln!("pml: {e}");
            return ExitCode::from(2);
        }
        Err(DiffFailure::Unfinished { id, file }) => {
            eprintln!(
                "pml: run {id} did not finish (killed, or still running): it has a journal and no trace to compare; `pml runs show {id}` lists its journal, `pml run {} --resume {id}` finishes it",
                file.as_deref().unwrap_or("FILE")
            );
            return ExitCode::from(2);
        }
    };
    match json {
        true => print_json(&compared),
        false => crate::out::text(&crate::diff::describe(&compared)),
    }
    match compared.same {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
}

fn runs_table(list: &[RunSummary]) -> String {
    if list.is_empty() {
        return "no runs recorded\n".into();
    }
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                date(r.started_at),
                match (r.finished, r.ok) {
                    (false, _) => "unfinished".into(),
                    (true, true) => "ok".into(),
                    (true, false) if r.error.as_deref() == Some(pml_executor::INTERRUPTED) => {
                        "interrupted".into()
                    }
                    (true, false) => "failed".into(),
                },
                match r.finished {
                    true => format!("{} ms", r.duration_ms),
                    false => "-".into(),
                },
                r.calls.to_string(),
                match (r.capability.first(), &r.file) {
                    (Some(name), _) => name.clone(),
                    (None, Some(file)) => file.clone(),
                    (None, None) => "-".into(),
                },
            ]
        })
        .collect();
    aligned(
        &["RUN", "STARTED (UTC)", "STATUS", "TOOK", "CALLS", "PROGRAM"],
        rows,
    )
}

fn describe_run(r: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "run          {}", r.id);
    let _ = match r.finished {
        true => writeln!(
            out,
            "started      {} UTC, took {} ms",
            date(r.started_at),
            r.duration_ms
        ),
        false => writeln!(
            out,
            "started      {} UTC, did not finish",
            date(r.started_at)
        ),
    };
    if let Some(file) = &r.file {
        let _ = writeln!(out, "file         {file}");
    }
    if let Some(hash) = &r.program_hash {
        let names = match r.capability.is_empty() {
            true => String::new(),
            false => format!(" (capability {})", quoted(&r.capability)),
        };
        let _ = writeln!(out, "program      {hash}{names}");
    }
    let _ = writeln!(out, "args         {}", r.args);
    if let Some(from) = &r.resumed_from {
        let _ = writeln!(out, "resumed      {from}");
    }
    if !r.finished {
        let file = r.file.as_deref().unwrap_or("FILE");
        let _ = writeln!(
            out,
            "interrupted  after {} journaled calls: pml run {file} --resume {}",
            r.calls, r.id
        );
        for e in &r.journal {
            // Reads of the clock and of Math.random() are numbered apart from the calls.
            if e.seq >= pml::READ_SEQ_BASE {
                let value = e.result.as_ref().map(preview).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  read {:<3} {} gave {value}",
                    e.seq - pml::READ_SEQ_BASE + 1,
                    e.tool
                );
                continue;
            }
            let state = match e.state {
                pml_store::CallState::Done => "done",
                pml_store::CallState::Failed => "failed",
                pml_store::CallState::Started => "in flight (may or may not have happened)",
            };
            let _ = writeln!(
                out,
                "  call {:<3} {:<6} {} {}  {state}",
                e.seq,
                e.node.as_deref().unwrap_or("-"),
                e.tool,
                preview(&e.arguments)
            );
        }
        return out;
    }
    match &r.error {
        Some(e) => {
            let _ = writeln!(out, "failed       {e}");
        }
        None => {
            let more = if r.result_truncated {
                " (truncated)"
            } else {
                ""
            };
            let _ = writeln!(out, "result       {}{more}", preview(&r.result));
        }
    }
    let _ = writeln!(out, "calls        {}", r.calls);
    let _ = writeln!(out, "\ntrace:");
    let events = (r.trace.as_array().into_iter().flatten()).map(TraceEvent::deserialize);
    for e in events {
        let e = match e {
            Ok(e) => e,
            Err(why) => {
                let _ = writeln!(out, "  (an event that does not read: {why})");
                continue;
            }
        };
        if e.event == EventKind::ToolStart {
            continue;
        }
        let iteration = match e.iteration.is_empty() {
            false => {
                let i: Vec<String> = e.iteration.iter().map(u32::to_string).collect();
                format!(" [{}]", i.join(", "))
            }
            true => String::new(),
        };
        let within = match &e.capability {
            Some(name) => format!(" (in capability {name})"),
            None => String::new(),
        };
        let detail = match e.event {
            EventKind::Decision => e.outcome.as_deref().unwrap_or_default().to_owned(),
            EventKind::Loop | EventKind::Function => {
                format!("{} times", e.iterations.unwrap_or(0))
            }
            _ => e.tool.to_string(),
        };
        let speculative = match e.speculative {
            Some(true) => " (speculated)",
            _ => "",
        };
        let failed = match e.success {
            Some(false) => " FAILED",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  {:<6} {:<10} {detail}{iteration}{}{speculative}{failed}{within}",
            e.task_id.as_deref().unwrap_or("-"),
            e.event.as_str(),
            e.duration_ms
                .map(|ms| format!("  {ms:.1} ms"))
                .unwrap_or_default(),
        );
    }
    out
}

/// A value on one line, cut at 200 characters.
fn preview(v: &serde_json::Value) -> String {
    let text = pml_jstext::to_js_json(&v.to_string()).into_owned();
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

/// Rows under a header, columns padded to their widest cell.
fn aligned(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(header).chain(rows) {
        let line = (row.iter().zip(&widths))
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect::<Vec<_>>()
            .join("  ");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

fn table(list: &[CapabilitySummary]) -> String {
    if list.is_empty() {
        return "no capabilities stored\n".into();
    }
    let rows = list
        .iter()
        .map(|c| {
            vec![
                c.code_hash.chars().take(12).collect(),
                c.names.join(", "),
                date(c.created_at),
                c.tools.join(", "),
            ]
        })
        .collect();
    aligned(&["HASH", "NAMES", "SAVED (UTC)", "TOOLS"], rows)
}

fn describe(c: &Capability) -> String {
    let mut out = String::new();
    let none = || "-".to_string();
    let _ = writeln!(out, "capability   {}", c.code_hash);
    let _ = writeln!(out, "names        {}", c.names.join(", "));
    if let Some(d) = &c.description {
        let _ = writeln!(out, "description  {d}");
    }
    let _ = writeln!(out, "saved        {} UTC", date(c.created_at));
    let list = |xs: &[String]| if xs.is_empty() { none() } else { xs.join(", ") };
    let _ = writeln!(out, "tools        {}", list(&c.tools));
    let _ = writeln!(out, "approval     {}", list(&c.hil_tools));
    let _ = writeln!(out, "calls        {}", list(&c.dependencies));
    let parameters = match c.parameters.as_object() {
        Some(p) if !p.is_empty() => p
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => none(),
    };
    let _ = writeln!(out, "parameters   {parameters}");
    let _ = writeln!(out, "\n{}", c.parameterized_code.trim_end());
    out
}

/// `2026-11-25 07:42` from milliseconds since the epoch (UTC).
fn date(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        // Strings are pml text: lone surrogates written as JavaScript writes them.
        Ok(json) => crate::out::line(&pml_jstext::to_js_json(&json)),
        Err(e) => eprintln!("pml: cannot write JSON: {e}"),
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01 00:00");
        assert_eq!(date(1_795_591_320_000), "2026-11-25 07:22");
        assert_eq!(date(951_782_400_000), "2000-02-29 00:00");
    }

    fn run(finished: bool) -> Run {
        Run {
            id: "01a2".into(),
            finished,
            resumed_from: None,
            journal: Vec::new(),
            program_hash: None,
            capability: Vec::new(),
            file: Some("p.ts".into()),
            args: serde_json::json!({}),
            ok: true,
            result: serde_json::json!(1),
            result_truncated: false,
            error: None,
            trace: serde_json::json!([
                {"event": "tool_end", "taskId": "n1", "tool": "fs:read", "iteration": [0, 1], "durationMs": 1.0},
                {"event": "tool_end", "taskId": "n1", "tool": "fs:read", "capability": "archive", "durationMs": 2.0},
            ]),
            executed_path: serde_json::json!([]),
            decisions: serde_json::json!([]),
            timings: serde_json::json!({}),
            calls: 2,
            started_at: 0,
            duration_ms: if finished { 12 } else { 0 },
            trace_context: None,
        }
    }

    #[test]
    fn a_run_is_told_plainly() {
        let text = describe_run(&run(true));
        assert!(text.contains("fs:read [0, 1]  1.0 ms"), "{text}");
        assert!(text.contains("2.0 ms (in capability archive)"), "{text}");
        let mut killed = run(false);
        killed.journal = vec![
            pml_store::JournalEntry {
                seq: 1,
                node: Some("n1".into()),
                iteration: Vec::new(),
                tool: "fs:read".into(),
                arguments: serde_json::json!({"path": "a"}),
                state: pml_store::CallState::Done,
                result: Some(serde_json::json!("x")),
                error: None,
            },
            pml_store::JournalEntry {
                seq: pml::READ_SEQ_BASE,
                node: None,
                iteration: Vec::new(),
                tool: "Date.now".into(),
                arguments: serde_json::Value::Null,
                state: pml_store::CallState::Done,
                result: Some(serde_json::json!(1700000000000u64)),
                error: None,
            },
        ];
        let text = describe_run(&killed);
        assert!(text.contains("did not finish"), "{text}");
        assert!(!text.contains("took 0 ms"), "{text}");
        assert!(text.contains("call 1   n1     fs:read"), "{text}");
        assert!(
            text.contains("read 1   Date.now gave 1700000000000"),
            "{text}"
        );
        assert!(!text.contains("1099511627776"), "{text}");
    }

    #[test]
    fn every_column_of_runs_list_has_a_header() {
        let summary = RunSummary {
            id: "01a2".into(),
            program_hash: None,
            capability: Vec::new(),
            file: Some("p.ts".into()),
            ok: true,
            error: None,
            calls: 1,
            started_at: 0,
            duration_ms: 3,
            finished: true,
        };
        let table = runs_table(&[summary]);
        let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
        assert!(header.contains(&"STATUS"), "{table}");
    }

    #[test]
    fn names() {
        use pml::capability::check_name;
        assert!(check_name("summarize").is_ok());
        assert!(check_name("fs:list-files").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("two words").is_err());
        assert!(check_name(&"a".repeat(64)).is_err());
    }
}
