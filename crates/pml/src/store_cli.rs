//! `pml save` and `pml capabilities`: the command-line side of the capability store.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pml_store::{Capability, CapabilitySummary, SaveOutcome, Saved, Store, StoreError};

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
    Show { key: String },
    /// Remove a name (the capability goes with its last name), or a capability by hash.
    Remove { key: String },
}

/// The exit status of a store error: 1 for an answer ("no such name"), 2 for a store that
/// cannot be used.
fn failed(e: &StoreError) -> ExitCode {
    eprintln!("pml: {e}");
    match e {
        StoreError::NotFound(_) | StoreError::Ambiguous { .. } | StoreError::NameTaken { .. } => {
            ExitCode::from(1)
        }
        _ => ExitCode::from(2),
    }
}

fn location(arg: &StoreArg) -> Result<String, ExitCode> {
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

/// Open the store and run `work` on it, on a small runtime.
fn with_store<T>(
    arg: &StoreArg,
    work: impl AsyncFnOnce(&Store) -> Result<T, StoreError>,
) -> Result<T, ExitCode> {
    let location = location(arg)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("pml: cannot start the async runtime: {e}");
            ExitCode::from(2)
        })?;
    runtime.block_on(async {
        let store = Store::open(&location).await.map_err(|e| failed(&e))?;
        let out = work(&store).await;
        store.close().await;
        out.map_err(|e| failed(&e))
    })
}

/// Names a capability can have: what `capabilities.NAME(...)` or `capabilities["NAME"](...)`
/// can call, and never mistaken for a hash.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 200 {
        return Err("a capability name has 1 to 200 bytes".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "a capability name has no spaces or control characters ({c:?})"
        ));
    }
    if name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("a capability name cannot look like a hash".into());
    }
    Ok(())
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
    if let Err(message) = check_name(&args.name) {
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
        println!("{}", describe_save(&saved));
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
            Ok(list) => print!("{}", table(&list)),
            Err(code) => return code,
        },
        CapabilitiesAction::Show { key } => {
            match with_store(&store, async |s| s.capability(&key).await) {
                Ok(c) if json => print_json(&c),
                Ok(c) => print!("{}", describe(&c)),
                Err(code) => return code,
            }
        }
        CapabilitiesAction::Remove { key } => {
            match with_store(&store, async |s| s.remove_capability(&key).await) {
                Ok(r) if json => print_json(&r),
                Ok(r) if r.capability_removed => println!(
                    "removed capability {} ({})",
                    r.code_hash,
                    match r.names.is_empty() {
                        true => "it had no names".to_string(),
                        false => quoted(&r.names),
                    }
                ),
                Ok(r) => println!(
                    "removed the name {} of capability {} (it keeps its other names)",
                    quoted(&r.names),
                    r.code_hash
                ),
                Err(code) => return code,
            }
        }
    }
    ExitCode::SUCCESS
}

fn table(list: &[CapabilitySummary]) -> String {
    if list.is_empty() {
        return "no capabilities stored\n".into();
    }
    let rows: Vec<[String; 4]> = list
        .iter()
        .map(|c| {
            [
                c.code_hash.chars().take(12).collect(),
                c.names.join(", "),
                date(c.created_at),
                c.tools.join(", "),
            ]
        })
        .collect();
    let header = ["HASH", "NAMES", "SAVED (UTC)", "TOOLS"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header.map(String::from)).chain(rows) {
        let line = (row.iter().zip(widths))
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect::<Vec<_>>()
            .join("  ");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
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
        Ok(json) => println!("{json}"),
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

    #[test]
    fn names() {
        assert!(check_name("summarize").is_ok());
        assert!(check_name("fs:list-files").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("two words").is_err());
        assert!(check_name(&"a".repeat(64)).is_err());
    }
}
