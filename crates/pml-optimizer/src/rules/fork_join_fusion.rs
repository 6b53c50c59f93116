//! `fork_join_fusion`: independent pure code tasks with the same dependencies, conditions and
//! dependents (branches of one `Promise.all` that meet at the join with no MCP call between)
//! run as one task returning each branch's value.

use pml_dag::Dag;

use indexmap::IndexMap;

use super::{fusable, fusion, merge_groups, size, Usage};
use crate::codegen::Outputs;
use crate::driver::{OptimizerOptions, Rule};

pub struct ForkJoinFusion;

const NAME: &str = "fork_join_fusion";

impl Rule for ForkJoinFusion {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Groups candidates by (dependencies, conditions, dependents) in one pass. Tasks with the
    /// same dependencies cannot read each other (a read is a dependency), so a group is
    /// independent by construction; it is fused in chunks of at most `max_fused` operations.
    fn apply(&self, dag: &mut Dag, logical: &Dag, options: &OptimizerOptions) -> bool {
        let usage = Usage::of(dag);
        let mut buckets: IndexMap<String, Vec<usize>> = IndexMap::new();
        for (i, t) in dag.tasks.iter().enumerate() {
            if !fusable(t) || !matches!(fusion(t), None | Some(NAME)) {
                continue;
            }
            let mut deps = t.depends_on.clone();
            deps.sort();
            let mut after: Vec<&str> = usage
                .dependents(&t.id)
                .iter()
                .map(|&j| dag.tasks[j].id.as_str())
                .collect();
            if after.is_empty() {
                continue;
            }
            after.sort();
            let key = format!(
                "{}|{}|{}",
                deps.join(","),
                serde_json::to_string(&t.condition).unwrap_or_default(),
                after.join(",")
            );
            buckets.entry(key).or_default().push(i);
        }
        let mut groups: Vec<Vec<String>> = Vec::new();
        for members in buckets.values().filter(|m| m.len() > 1) {
            let mut group: Vec<String> = Vec::new();
            let mut total = 0;
            for &i in members {
                let n = size(dag, &dag.tasks[i].id);
                if total + n > options.max_fused && !group.is_empty() {
                    if group.len() > 1 {
                        groups.push(std::mem::take(&mut group));
                    }
                    group.clear();
                    total = 0;
                }
                group.push(dag.tasks[i].id.clone());
                total += n;
            }
            if group.len() > 1 {
                groups.push(group);
            }
        }
        if groups.is_empty() {
            return false;
        }
        merge_groups(dag, logical, &groups, NAME, Outputs::Each);
        true
    }
}
