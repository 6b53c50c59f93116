//! `sequential_fusion`: a -> b where both are pure code, b reads a, a has no other dependent,
//! b depends on nothing but a (and what a depends on), both under the same conditions: one task
//! running a then b.
//! Covers method chains (`xs.filter(..).map(..)`) and variable-to-variable chains
//! (`const a = xs.filter(..); const b = a.map(..);`) alike: both are data edges here.

use pml_dag::Dag;

use super::{dependents, fusable, fusion, merge, readers};
use crate::codegen::Outputs;
use crate::driver::{OptimizerOptions, Rule};

pub struct SequentialFusion;

const NAME: &str = "sequential_fusion";

impl Rule for SequentialFusion {
    fn name(&self) -> &'static str {
        NAME
    }

    fn apply(&self, dag: &mut Dag, logical: &Dag, options: &OptimizerOptions) -> bool {
        let size = |id: &str| {
            dag.physical_to_logical
                .as_ref()
                .and_then(|m| m.get(id))
                .map_or(1, Vec::len)
        };
        let mut found = None;
        for b in &dag.tasks {
            if !fusable(b) || !matches!(fusion(b), None | Some(NAME)) {
                continue;
            }
            // `a`: the dependency of `b` that covers all of b's other dependencies (a condition
            // both share may make b depend on the same earlier result as a).
            let Some(a) = b.depends_on.iter().filter_map(|d| dag.task(d)).find(|a| {
                b.depends_on
                    .iter()
                    .all(|d| *d == a.id || a.depends_on.contains(d))
            }) else {
                continue;
            };
            let a_id = &a.id;
            let ok = fusable(a)
                && matches!(fusion(a), None | Some(NAME))
                && a.condition == b.condition
                && b.metadata.reads.iter().any(|r| r == a_id)
                && readers(dag, a_id).iter().all(|t| t.id == b.id)
                && dependents(dag, a_id).iter().all(|t| t.id == b.id)
                && size(a_id) + size(&b.id) <= options.max_fused;
            if ok {
                found = Some((a_id.clone(), b.id.clone()));
                break;
            }
        }
        match found {
            Some((a, b)) => {
                merge(dag, logical, &a, &b, NAME, Outputs::Last);
                true
            }
            None => false,
        }
    }
}
