//! `cargo xtask run-pipeline`: each stage's output for one program, or golden checks for a tree
//! of fixtures (`fixtures/<name>/input.ts` + goldens beside it; see `fixtures/README.md`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

/// One golden file: its name beside the input and how to produce its content.
struct Stage {
    file: &'static str,
    render: fn(&Fixture) -> Result<String>,
}

const STAGES: &[Stage] = &[
    Stage {
        file: "structure.json",
        render: render_structure,
    },
    Stage {
        file: "logical.json",
        render: render_logical,
    },
    Stage {
        file: "physical.json",
        render: render_physical,
    },
    Stage {
        file: "hash",
        render: render_hash,
    },
    Stage {
        file: "instrumented.js",
        render: render_instrumented,
    },
];

pub struct Fixture {
    pub dir: PathBuf,
    pub input: PathBuf,
    /// The tools of the servers the program runs against, when no `tools.json` is beside it
    /// (a single file of the main job: the reference servers' annotations).
    pub servers: Option<pml::ToolCatalog>,
}

impl Fixture {
    fn name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

fn options(fx: &Fixture) -> Result<pml::AnalyzeOptions> {
    let tools = fx.dir.join("tools.json");
    let perms = fx.dir.join("permissions.json");
    Ok(pml::AnalyzeOptions {
        dialect: pml::dialect_for(&fx.input),
        catalog: if tools.exists() {
            Some(pml::load_catalog(&tools)?)
        } else {
            fx.servers.clone()
        },
        permissions: if perms.exists() {
            Some(pml::load_permissions(&perms)?)
        } else {
            None
        },
        ..Default::default()
    })
}

fn render_structure(fx: &Fixture) -> Result<String> {
    let code = pml::read_source(&fx.input)?;
    let ret = pml::analyze(&code, &options(fx)?);
    Ok(serde_json::to_string_pretty(&ret.structure)? + "\n")
}

fn logical(fx: &Fixture) -> Result<Option<pml::Dag>> {
    let code = pml::read_source(&fx.input)?;
    let options = options(fx)?;
    let ret = pml::analyze(&code, &options);
    if ret.structure.has_errors() {
        return Ok(None);
    }
    Ok(Some(pml::to_dag(
        &ret.structure,
        &pml::DagOptions {
            catalog: options.catalog,
        },
    )))
}

/// Programs with syntax errors have no DAG: their golden says so.
const NO_DAG: &str = "null\n";

fn render_logical(fx: &Fixture) -> Result<String> {
    Ok(match logical(fx)? {
        Some(dag) => serde_json::to_string_pretty(&dag)? + "\n",
        None => NO_DAG.into(),
    })
}

fn render_physical(fx: &Fixture) -> Result<String> {
    Ok(match logical(fx)? {
        Some(dag) => {
            let physical = pml::optimize(&dag, &Default::default()).physical;
            serde_json::to_string_pretty(&physical)? + "\n"
        }
        None => NO_DAG.into(),
    })
}

/// The program as `pml run` runs it: a header saying which node each probe reports, then the
/// instrumented source (`null` for a program with syntax errors).
fn render_instrumented(fx: &Fixture) -> Result<String> {
    let code = pml::read_source(&fx.input)?;
    let options = pml::AnalyzeOptions {
        instrument: true,
        ..options(fx)?
    };
    let Some(instrumented) = pml::analyze(&code, &options).instrumented else {
        return Ok(NO_DAG.into());
    };
    let mut out = String::new();
    for (i, probe) in instrumented.probes.iter().enumerate() {
        let kind = serde_json::to_value(probe.kind)?;
        let kind = kind.as_str().unwrap_or_default();
        out.push_str(&format!(
            "// probe {}: {kind} {}\n",
            i + 1,
            probe.nodes.join(" ")
        ));
    }
    out.push_str(&instrumented.source);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// The digest, then the canonical form it is the hash of (one line per node field and edge:
/// what changed in a hash is read in the golden's diff); for a program with errors, why it
/// has no hash.
fn render_hash(fx: &Fixture) -> Result<String> {
    let code = pml::read_source(&fx.input)?;
    let ret = pml::analyze(&code, &options(fx)?);
    Ok(match pml::semantic_hash(&ret.structure) {
        Ok(digest) => format!("{digest}\n\n{}", pml::canonical_form(&ret.structure)),
        Err(e) => format!("no hash: {e}\n"),
    })
}

/// Every fixture under `root` (a folder holding `input.ts` or `input.js`), sorted by path.
pub fn discover(root: &Path) -> Result<Vec<Fixture>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            }
        }
        for input in ["input.ts", "input.js"] {
            let path = dir.join(input);
            if path.is_file() {
                out.push(Fixture {
                    dir: dir.clone(),
                    input: path,
                    servers: None,
                });
                break;
            }
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(out)
}

/// The static stages of `fx` as `pml` summarises them on a terminal: the structure, the
/// logical and physical DAGs, the hash.
fn summarise(fx: &Fixture) -> Result<String> {
    let code = pml::read_source(&fx.input)?;
    let options = options(fx)?;
    let ret = pml::analyze(&code, &options);
    let name = fx.input.display().to_string();
    let mut out = format!(
        "== structure\n{}",
        pml::summary::structure(&name, &ret.structure)
    );
    let diagnostics = pml::render_diagnostics(&name, &ret.structure.diagnostics);
    out.push_str(&diagnostics);
    if ret.structure.has_errors() {
        return Ok(out);
    }
    let logical = pml::to_dag(
        &ret.structure,
        &pml::DagOptions {
            catalog: options.catalog,
        },
    );
    let physical = pml::optimize(&logical, &Default::default()).physical;
    out.push_str(&format!(
        "== logical DAG\n{}",
        pml::summary::dag(&name, &logical)
    ));
    out.push_str(&format!(
        "== physical DAG\n{}",
        pml::summary::dag(&name, &physical)
    ));
    if let Ok(digest) = pml::semantic_hash(&ret.structure) {
        out.push_str(&format!("== semantic hash\n{digest}\n"));
    }
    Ok(out)
}

/// The tools of the servers `pml run` gives `file` (its project's `.mcp.json`, else the
/// reference servers), with their annotations: what makes independent reads parallel in the
/// DAGs printed before the run.
fn server_catalog(file: &Path) -> Result<pml::ToolCatalog> {
    let config = match pml::servers::ServerSource::choose_for(None, Some(file)) {
        pml::servers::ServerSource::File { path, .. } => Some(path),
        pml::servers::ServerSource::Reference => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let (listed, failed) = runtime
        .block_on(pml::servers::catalog(config.as_deref(), &[]))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for why in failed {
        eprintln!("run-pipeline: {why}");
    }
    Ok(pml::servers::catalog_of(&listed))
}

/// `target/pipeline/<stem>/` for `file`, created.
fn output_dir(file: &Path) -> Result<PathBuf> {
    let stem = file
        .file_stem()
        .map_or("program".into(), |s| s.to_string_lossy());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/pipeline")
        .join(&*stem);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.canonicalize().unwrap_or(dir))
}

/// The execution stage: runs `file` (default MCP config), prints its summary, writes the
/// report (`run.json`) and the views into `out`; false when the program failed.
fn execute(file: &Path, args: &serde_json::Value, out: &Path) -> Result<bool> {
    println!("== execute (the reference MCP servers)");
    let options = pml::run::RunOptions {
        args: args.clone(),
        ..Default::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(pml::RUNTIME_STACK)
        .build()
        .context("starting the async runtime")?;
    let output = runtime
        .block_on(pml::run::run_file(file, &options))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    print!(
        "{}",
        pml::summary::run(&file.display().to_string(), &output)
    );
    let path = out.join("run.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&output.to_json())? + "\n",
    )
    .with_context(|| format!("writing {}", path.display()))?;
    write_views(out, &output)?;
    Ok(output.report.ok)
}

/// The Definition and Invocation views of a run (Mermaid and DOT), into `dir`.
fn write_views(dir: &Path, output: &pml::run::RunOutput) -> Result<()> {
    let program = &output.program;
    let fused: Vec<Vec<String>> = (program.physical.physical_to_logical.iter())
        .flat_map(|map| map.values())
        .filter(|ids| ids.len() > 1)
        .cloned()
        .collect();
    let mut overlay = pml_view::Overlay::default();
    overlay
        .add_trace(&serde_json::to_string(&output.report.trace)?)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for (name, overlay) in [("definition", None), ("invocation", Some(&overlay))] {
        for (ext, format) in [
            ("mmd", pml_view::Format::Mermaid),
            ("dot", pml_view::Format::Dot),
        ] {
            let text = pml_view::render(&program.structure, &fused, overlay, format);
            let path = dir.join(format!("{name}.{ext}"));
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Print,
    Check,
    Bless,
}

/// Differences between the goldens and the current output, as human-readable reports.
pub fn check_fixtures(fixtures: &[Fixture]) -> Result<Vec<String>> {
    let mut failures = Vec::new();
    for fx in fixtures {
        for stage in STAGES {
            let actual = (stage.render)(fx)?;
            let golden = fx.dir.join(stage.file);
            match std::fs::read_to_string(&golden) {
                Ok(expected) if expected == actual => {}
                Ok(expected) => failures.push(format!(
                    "{}/{}: differs from the current output\n{}",
                    fx.name(),
                    stage.file,
                    diff(&expected, &actual)
                )),
                Err(_) => failures.push(format!(
                    "{}/{}: golden file missing (run `cargo xtask run-pipeline --bless {}`)",
                    fx.name(),
                    stage.file,
                    fx.dir.display()
                )),
            }
        }
    }
    Ok(failures)
}

/// A small line diff: the first differing region with a few lines of context.
fn diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let prefix = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = e[prefix..]
        .iter()
        .rev()
        .zip(a[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let start = prefix.saturating_sub(3);
    let mut out = format!("@@ line {} @@\n", prefix + 1);
    for line in &e[start..prefix] {
        out.push_str(&format!("  {line}\n"));
    }
    for line in e[prefix..e.len() - suffix].iter().take(40) {
        out.push_str(&format!("- {line}\n"));
    }
    for line in a[prefix..a.len() - suffix].iter().take(40) {
        out.push_str(&format!("+ {line}\n"));
    }
    out
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut mode = Mode::Print;
    let mut targets = Vec::new();
    let mut run_args = serde_json::json!({});
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => mode = Mode::Check,
            "--bless" => mode = Mode::Bless,
            "--args" => {
                let text = args.next().context("--args needs a JSON object")?;
                run_args = serde_json::from_str(text).context("--args is not JSON")?;
            }
            flag if flag.starts_with("--") => bail!("unknown flag `{flag}`"),
            path => targets.push(PathBuf::from(path)),
        }
    }
    if targets.is_empty() {
        bail!("usage: cargo xtask run-pipeline FILE|DIR [--check | --bless]");
    }
    let mut fixtures = Vec::new();
    let mut files = Vec::new();
    for target in targets {
        if target.is_dir() {
            fixtures.extend(discover(&target)?);
        } else if target.is_file() {
            files.push(target);
        } else {
            bail!("{}: no such file or directory", target.display());
        }
    }
    if mode != Mode::Print && !files.is_empty() {
        bail!("--check and --bless work on fixture folders, not single files");
    }
    match mode {
        Mode::Print => {
            for fx in &fixtures {
                for stage in STAGES {
                    println!("== {} :: {}", fx.input.display(), stage.file);
                    print!("{}", (stage.render)(fx)?);
                }
            }
            // Single files go all the way: the static stages, then execution, each summarised
            // here and written in full to target/pipeline/<name>/.
            let mut status = ExitCode::SUCCESS;
            for file in &files {
                let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
                let servers = match dir.join("tools.json").exists() {
                    true => None,
                    false => Some(server_catalog(file)?),
                };
                let fx = Fixture {
                    dir,
                    input: file.clone(),
                    servers,
                };
                let out = output_dir(file)?;
                for stage in STAGES {
                    let path = out.join(stage.file);
                    std::fs::write(&path, (stage.render)(&fx)?)
                        .with_context(|| format!("writing {}", path.display()))?;
                }
                print!("{}", summarise(&fx)?);
                if !execute(file, &run_args, &out)? {
                    status = ExitCode::from(1);
                }
                eprintln!(
                    "run-pipeline: every stage in full is in {}: structure.json, logical.json, physical.json, hash (with its canonical form), instrumented.js, run.json; the views: definition.mmd / .dot (the structure), invocation.mmd / .dot (what ran, laid on it): `dot -Tsvg FILE.dot`, or paste the .mmd into any Mermaid viewer",
                    out.display()
                );
            }
            Ok(status)
        }
        Mode::Check => {
            let failures = check_fixtures(&fixtures)?;
            for f in &failures {
                eprintln!("{f}");
            }
            let total = fixtures.len() * STAGES.len();
            if failures.is_empty() {
                eprintln!("run-pipeline --check: {total} golden files match");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!(
                    "run-pipeline --check: {} of {total} golden files differ (review, then `--bless`)",
                    failures.len()
                );
                Ok(ExitCode::from(1))
            }
        }
        Mode::Bless => {
            let mut written = 0;
            for fx in &fixtures {
                for stage in STAGES {
                    let actual = (stage.render)(fx)?;
                    let golden = fx.dir.join(stage.file);
                    if std::fs::read_to_string(&golden).ok().as_deref() != Some(&actual) {
                        std::fs::write(&golden, actual)
                            .with_context(|| format!("writing {}", golden.display()))?;
                        written += 1;
                    }
                }
            }
            eprintln!("run-pipeline --bless: {written} golden files rewritten");
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture suite: every golden file matches the current output.
    #[test]
    fn fixtures_match_goldens() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let fixtures = discover(&root).unwrap();
        assert!(fixtures.len() >= 40, "expected at least 40 fixtures");
        let failures = check_fixtures(&fixtures).unwrap();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
