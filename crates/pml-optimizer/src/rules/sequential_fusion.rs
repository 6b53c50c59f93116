//! `sequential_fusion`: a -> b where both are pure code, b reads a, a has no other dependent,
//! b depends on nothing but a (and what a depends on), both under the same conditions: one task
//! running a then b.
//! Covers method chains (`xs.filter(..).map(..)`) and variable-to-variable chains
//! (`const a = xs.filter(..); const b = a.map(..);`) alike: both are data edges here.

use pml_dag::Dag;

use std::collections::{HashMap, HashSet};

use super::{fusable, fusion, merge_groups, size, Usage};
use crate::codegen::Outputs;
use crate::driver::{OptimizerOptions, Rule};

pub struct SequentialFusion;

const NAME: &str = "sequential_fusion";

impl Rule for SequentialFusion {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Fuses every eligible pair at once, a pair whose first task ends a group of this
    /// application growing that group while it holds at most `max_fused` operations: a chain
    /// is cut into full tasks in program order (20 links, at most 5: four tasks of 5), in one
    /// application, O(tasks).
    fn apply(&self, dag: &mut Dag, logical: &Dag, options: &OptimizerOptions) -> bool {
        let usage = Usage::of(dag);
        let index: HashMap<&str, usize> = dag
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id.as_str(), i))
            .collect();
        let mut taken: HashSet<usize> = HashSet::new();
        let mut groups: Vec<Vec<String>> = Vec::new();
        // Each group's operations, and the group each task ends.
        let mut sizes: Vec<usize> = Vec::new();
        let mut ends: HashMap<usize, usize> = HashMap::new();
        for (bi, b) in dag.tasks.iter().enumerate() {
            if !fusable(b) || !matches!(fusion(b), None | Some(NAME)) || taken.contains(&bi) {
                continue;
            }
            // `a`: the dependency of `b` that covers all of b's other dependencies (a condition
            // both share may make b depend on the same earlier result as a).
            let Some((ai, a)) = b
                .depends_on
                .iter()
                .filter_map(|d| index.get(d.as_str()).map(|&i| (i, &dag.tasks[i])))
                .find(|(_, a)| {
                    b.depends_on
                        .iter()
                        .all(|d| *d == a.id || a.depends_on.contains(d))
                })
            else {
                continue;
            };
            let grows = ends.get(&ai).copied();
            let room = match grows {
                Some(g) => sizes[g] + size(dag, &b.id) <= options.max_fused,
                None => {
                    !taken.contains(&ai) && size(dag, &a.id) + size(dag, &b.id) <= options.max_fused
                }
            };
            let ok = room
                && fusable(a)
                && matches!(fusion(a), None | Some(NAME))
                && a.condition == b.condition
                && b.metadata.reads.contains(&a.id)
                && usage.readers(&a.id).iter().all(|&r| r == bi)
                && usage.dependents(&a.id).iter().all(|&r| r == bi)
                // Never across a call: what lies between them in program order is code.
                && (dag.tasks.get(ai + 1..bi)).is_some_and(|between| {
                    between
                        .iter()
                        .all(|t| t.kind == pml_dag::TaskType::CodeExecution)
                });
            if ok {
                let g = match grows {
                    Some(g) => {
                        ends.remove(&ai);
                        groups[g].push(b.id.clone());
                        sizes[g] += size(dag, &b.id);
                        g
                    }
                    None => {
                        taken.insert(ai);
                        groups.push(vec![a.id.clone(), b.id.clone()]);
                        sizes.push(size(dag, &a.id) + size(dag, &b.id));
                        groups.len() - 1
                    }
                };
                taken.insert(bi);
                ends.insert(bi, g);
            }
        }
        if groups.is_empty() {
            return false;
        }
        merge_groups(dag, logical, &groups, NAME, Outputs::Last);
        true
    }
}
