//! `fork_join_fusion`: independent pure code tasks with the same dependencies, conditions and
//! dependents (branches of one `Promise.all` that meet at the join with no MCP call between)
//! run as one task returning each branch's value.

use pml_dag::Dag;

use super::{dependents, fusable, fusion, merge};
use crate::codegen::Outputs;
use crate::driver::{OptimizerOptions, Rule};

pub struct ForkJoinFusion;

const NAME: &str = "fork_join_fusion";

impl Rule for ForkJoinFusion {
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
        let candidates: Vec<usize> = (0..dag.tasks.len())
            .filter(|&i| {
                fusable(&dag.tasks[i]) && matches!(fusion(&dag.tasks[i]), None | Some(NAME))
            })
            .collect();
        let mut found = None;
        'outer: for (x, &i) in candidates.iter().enumerate() {
            for &j in &candidates[x + 1..] {
                let (a, b) = (&dag.tasks[i], &dag.tasks[j]);
                let mut da = a.depends_on.clone();
                let mut db = b.depends_on.clone();
                da.sort();
                db.sort();
                if da != db || a.condition != b.condition {
                    continue;
                }
                if a.metadata.reads.contains(&b.id) || b.metadata.reads.contains(&a.id) {
                    continue;
                }
                let mut ra: Vec<&str> = dependents(dag, &a.id)
                    .iter()
                    .map(|t| t.id.as_str())
                    .collect();
                let mut rb: Vec<&str> = dependents(dag, &b.id)
                    .iter()
                    .map(|t| t.id.as_str())
                    .collect();
                ra.sort();
                rb.sort();
                if ra.is_empty() || ra != rb || size(&a.id) + size(&b.id) > options.max_fused {
                    continue;
                }
                found = Some((a.id.clone(), b.id.clone()));
                break 'outer;
            }
        }
        match found {
            Some((a, b)) => {
                merge(dag, logical, &a, &b, NAME, Outputs::Each);
                true
            }
            None => false,
        }
    }
}
