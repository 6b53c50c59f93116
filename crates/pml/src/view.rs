//! `pml view`: the Definition view of a program or stored capability (`pml-view`), or its
//! Invocation view with one recorded run, or all of them, laid on.

use std::path::Path;

use pml_store::{Store, StoreError};
use pml_view::{Format, Overlay};

use crate::{dialect_for, DagOptions, OptimizerOptions};

/// What `pml view` draws.
pub struct ViewRequest<'a> {
    /// A program file, or else the name or hash of a stored capability.
    pub target: &'a str,
    /// Lay this recorded run on.
    pub run: Option<&'a str>,
    /// Lay every recorded run of the program on.
    pub runs: bool,
    pub format: Format,
}

/// Why there is no view.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error(transparent)]
    Input(#[from] crate::InputError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The program has errors: no structure to draw.
    #[error("{0}")]
    Source(String),
    /// A stored document (structure, trace) that does not parse.
    #[error("{0}")]
    Damaged(String),
}

/// The view `request` asks for; `store` is opened only when it is needed (a capability, runs).
pub async fn view(request: &ViewRequest<'_>, store: Option<&Store>) -> Result<String, ViewError> {
    let needs_store = || {
        store.ok_or_else(|| {
            ViewError::Source("this view needs the capability store (--store)".to_owned())
        })
    };
    let path = Path::new(request.target);
    // The program text the structure's spans point into (TypeScript blanked in place keeps
    // every offset, so the file as written).
    let (structure, program_hash, source) = if path.is_file() {
        let source = crate::read_source(path)?;
        // The structure `pml run` builds (from the JavaScript, types blanked out): the node
        // ids of its traces.
        let structure = crate::analysis::structure_of(&source, dialect_for(path))
            .map_err(|e| ViewError::Source(format!("{}:{e}", path.display())))?;
        if structure.has_errors() {
            let rendered =
                crate::render_diagnostics(&path.display().to_string(), &structure.diagnostics);
            return Err(ViewError::Source(rendered.trim_end().to_owned()));
        }
        // The hash a run of it records.
        let hash = match request.runs {
            true => crate::semantic_hash(&structure).ok(),
            false => None,
        };
        (structure, hash, source)
    } else {
        let stored = needs_store()?.capability(request.target).await?;
        let structure =
            pml_structure::StaticStructure::from_json(stored.structure).map_err(|e| {
                ViewError::Damaged(format!(
                    "the stored structure of capability {} does not parse: {e}",
                    stored.code_hash
                ))
            })?;
        (structure, Some(stored.code_hash), stored.code)
    };
    let logical = crate::to_dag(&structure, &DagOptions::default());
    let physical = crate::optimize(&logical, &OptimizerOptions::default()).physical;
    let fused: Vec<Vec<String>> = (physical.physical_to_logical.iter())
        .flat_map(|map| map.values())
        .filter(|ids| ids.len() > 1)
        .cloned()
        .collect();
    let damaged = |what: &str, e: pml_view::TraceError| ViewError::Damaged(format!("{what}: {e}"));
    // One run's timeline (the HTML page draws it above the picture).
    let mut timeline = None;
    let mut unfinished = false;
    let overlay = match (request.run, request.runs) {
        (Some(id), _) => {
            let run = needs_store()?.run(id).await?;
            let mut overlay = Overlay::default();
            if !run.finished {
                // Killed (or still running): no trace, only the journal of its calls (the
                // reads of the clock and of `Math.random()`, numbered apart, are not calls).
                let calls = (run.journal.iter())
                    .filter(|e| e.seq < crate::READ_SEQ_BASE)
                    .map(|e| {
                        let state = match e.state {
                            pml_store::CallState::Done => pml_view::Journaled::Done,
                            pml_store::CallState::Failed => pml_view::Journaled::Failed,
                            pml_store::CallState::Started => pml_view::Journaled::InFlight,
                        };
                        (e.node.as_deref(), e.tool.as_str(), state)
                    });
                overlay.add_journal(&structure, calls);
                unfinished = true;
                Some(overlay)
            } else {
                let trace = run.trace.to_string();
                overlay
                    .add_trace(&trace)
                    .map_err(|e| damaged(&format!("run {}", run.id), e))?;
                if request.format == Format::Html {
                    timeline = Some(
                        pml_view::Timeline::from_trace(&trace)
                            .map_err(|e| damaged(&format!("run {}", run.id), e))?,
                    );
                }
                Some(overlay)
            }
        }
        (None, true) => {
            let Some(hash) = program_hash.as_deref() else {
                return Err(ViewError::Source(format!(
                    "{}: the program has no semantic hash, so no runs can be its",
                    request.target
                )));
            };
            let mut overlay = Overlay::default();
            let mut n = 0;
            // Its own runs, and its runs inside others' (`capabilities.NAME(...)`).
            needs_store()?
                .learning_runs(Some(hash), |run| {
                    n += 1;
                    let what = format!("run {n} of the program");
                    if run.program_hash == Some(hash) {
                        overlay
                            .add_trace(run.trace)
                            .map_err(|e| damaged(&what, e))?;
                    }
                    let called = crate::learn::called_runs(&what, &run)
                        .map_err(|e| ViewError::Damaged(e.to_string()))?;
                    for (_, called) in called.iter().filter(|(h, _)| h == hash) {
                        overlay
                            .add_trace(&called.trace)
                            .map_err(|e| damaged(&what, e))?;
                    }
                    Ok::<(), ViewError>(())
                })
                .await??;
            Some(overlay)
        }
        (None, false) => None,
    };
    let title = match (request.run, request.runs) {
        (Some(id), _) if unfinished => {
            format!("{} · run {id} (did not finish)", request.target)
        }
        (Some(id), _) => format!("{} · run {id}", request.target),
        (None, true) => format!("{} · all recorded runs", request.target),
        (None, false) => request.target.to_owned(),
    };
    let options = pml_view::RenderOptions {
        title: &title,
        source: Some(&source),
        timeline: timeline.as_ref(),
    };
    Ok(pml_view::render_with(
        &structure,
        &fused,
        overlay.as_ref(),
        request.format,
        &options,
    ))
}
