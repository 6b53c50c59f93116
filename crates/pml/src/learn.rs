//! `pml learn`: the learning graph (`pml-learn`) over the runs in the capability store.

use pml_learn::{Learned, Learner};
use pml_store::{Store, StoreError};

/// Why learning stopped.
#[derive(Debug, thiserror::Error)]
pub enum LearnFailure {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored trace or structure that does not parse: the store is damaged (exit 2).
    #[error("{location}: {error}")]
    Damaged {
        location: String,
        error: pml_learn::LearnError,
    },
}

/// What the finished runs in `store` teach (only those of the capability `capability`, a
/// name or hash, when given), with the stored capabilities' names and `provides` edges.
pub async fn learn(store: &Store, capability: Option<&str>) -> Result<Learned, LearnFailure> {
    learn_with(store, capability, Learner::new()).await
}

/// [`learn`] into `learner` ([`Learner::mcp_only`]: MCP calls only).
pub async fn learn_with(
    store: &Store,
    capability: Option<&str>,
    mut learner: Learner,
) -> Result<Learned, LearnFailure> {
    let hash = match capability {
        Some(key) => Some(store.capability(key).await?.code_hash),
        None => None,
    };
    let damaged = |error| LearnFailure::Damaged {
        location: store.location().to_string(),
        error,
    };
    for (code_hash, names, structure) in store.capability_structures().await? {
        if hash.as_ref().is_none_or(|h| *h == code_hash) {
            learner
                .add_structure(&code_hash, &names, &structure)
                .map_err(damaged)?;
        }
    }
    let mut n = 0;
    store
        .learning_runs(hash.as_deref(), |run| {
            n += 1;
            let what = format!("run {n} of the store");
            // The run of the program itself, unless only a capability it called is asked for.
            let own = hash.is_none() || run.program_hash == hash.as_deref();
            if own {
                learner.add_run(
                    &what,
                    run.program_hash,
                    run.ok,
                    run.duration_ms as f64,
                    run.trace,
                    run.decisions,
                )?;
            }
            // The runs of the capabilities it called: each counts for its capability (in
            // the graph too when it is the capability asked for: the caller's run is not).
            for (called_hash, called) in called_runs(&what, &run)? {
                match &hash {
                    None => learner.add_called_run(&what, &called_hash, &called)?,
                    Some(h) if *h == called_hash => learner.add_run(
                        &what,
                        Some(h),
                        called.ok,
                        called.duration_ms,
                        &called.trace,
                        &called.decisions,
                    )?,
                    Some(_) => {}
                }
            }
            Ok(())
        })
        .await?
        .map_err(damaged)?;
    Ok(learner.finish())
}

/// How many times the capability `hash` ran, and how many of those succeeded: its own runs
/// and its calls inside other runs (`capabilities.NAME(...)`, at any depth), as `pml learn
/// --capability` counts them.
pub async fn run_counts(store: &Store, hash: &str) -> Result<(i64, i64), LearnFailure> {
    let (mut runs, mut ok) = store.run_counts(hash).await?;
    let mut n = 0;
    store
        .caller_runs(hash, |run| {
            n += 1;
            for (called_hash, called) in called_runs(&format!("run {n} of the store"), &run)? {
                if called_hash == hash {
                    runs += 1;
                    ok += i64::from(called.ok);
                }
            }
            Ok(())
        })
        .await?
        .map_err(|error| LearnFailure::Damaged {
            location: store.location().to_string(),
            error,
        })?;
    Ok((runs, ok))
}

/// The runs of capabilities made inside `run` (`capabilities.NAME(...)`, at any depth), each
/// with the hash of the capability its name meant when it ran (the run's start records them);
/// none for a run that called none, or whose start does not say (recorded before schema 4).
pub(crate) fn called_runs(
    what: &str,
    run: &pml_store::LearningRun<'_>,
) -> Result<Vec<(String, pml_learn::CalledRun)>, pml_learn::LearnError> {
    let Some(text) = run.capabilities else {
        return Ok(Vec::new());
    };
    let called: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => map,
        Ok(_) => return Ok(Vec::new()),
        Err(e) => {
            return Err(pml_learn::LearnError {
                what: what.to_owned(),
                message: format!("the capabilities it called do not parse: {e}"),
            })
        }
    };
    if called.is_empty() {
        return Ok(Vec::new());
    }
    Ok(pml_learn::called_runs(what, run.trace)?
        .into_iter()
        .filter_map(|c| {
            let hash = called.get(&c.name)?.as_str()?.to_owned();
            Some((hash, c))
        })
        .collect())
}

/// What `pml learn` prints on a terminal: the tools, the successions, each program's paths
/// and decisions.
pub fn describe(learned: &Learned) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "learned from {} runs", learned.runs);
    if learned.runs == 0 {
        return out;
    }
    let _ = writeln!(out, "\noperations (times run, success, mean duration):");
    for n in learned.nodes().iter().filter(|n| n.count > 0) {
        let _ = writeln!(
            out,
            "  {:<40} {:>7} {:>5.0}% {:>9.1} ms",
            n.tool,
            n.count,
            n.success_rate * 100.0,
            n.mean_duration_ms
        );
    }
    let _ = writeln!(out, "\nsuccessions (times seen, success of the second):");
    for e in learned.edges() {
        match e.stats.success_rate {
            Some(rate) => {
                let _ = writeln!(
                    out,
                    "  {} -> {}  {} ({:.0}%)",
                    e.from,
                    e.to,
                    e.stats.count,
                    rate * 100.0
                );
            }
            None => {
                let _ = writeln!(out, "  {} -> {}  provides", e.from, e.to);
            }
        }
    }
    for p in &learned.programs {
        let name = match (p.capability.first(), &p.program_hash) {
            (Some(name), _) => name.clone(),
            (None, Some(hash)) => format!("program {}", hash.get(..12).unwrap_or(hash)),
            (None, None) => "programs without a hash".to_owned(),
        };
        let _ = writeln!(
            out,
            "\n{name}: {} runs, {:.0}% ok, {:.1} ms mean",
            p.runs,
            p.success_rate * 100.0,
            p.mean_duration_ms
        );
        for (i, path) in p.paths.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {} {} runs, {:.0}% ok, {:.1} ms: {}",
                if i == 0 { "dominant:" } else { "        " },
                path.count,
                path.success_rate * 100.0,
                path.mean_duration_ms,
                path.path.join(" -> ")
            );
        }
        for d in &p.decisions {
            let outcomes: Vec<String> = (d.outcomes.iter())
                .map(|(outcome, n)| format!("{outcome} {n}"))
                .collect();
            let _ = writeln!(out, "  decision {}: {}", d.task_id, outcomes.join(", "));
        }
    }
    out
}
