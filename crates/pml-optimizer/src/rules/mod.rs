//! Optimizer rules, one per file; each struct's `name()` is its file name.

pub mod fork_join_fusion;
pub mod sequential_fusion;

use std::collections::{HashMap, HashSet};

use pml_dag::{Dag, Task, TaskType};

use crate::codegen::{self, Outputs};

/// Pure code whose every name is provided: safe to run inside a fused task.
pub(crate) fn fusable(t: &Task) -> bool {
    t.kind == TaskType::CodeExecution && t.metadata.pure && t.metadata.unresolved.is_empty()
}

/// How the task was fused so far (`None`: a single logical operation).
pub(crate) fn fusion(t: &Task) -> Option<&str> {
    t.metadata.fusion.as_deref()
}

/// The reader index standing for the program's result in [`Usage::readers`].
pub(crate) const RESULT_READER: usize = usize::MAX;

/// How many tasks read each task's result, and how many must run after it.
pub(crate) struct Usage {
    pub(crate) readers: HashMap<String, Vec<usize>>,
    pub(crate) dependents: HashMap<String, Vec<usize>>,
}

impl Usage {
    pub(crate) fn of(dag: &Dag) -> Self {
        let mut readers: HashMap<String, Vec<usize>> = HashMap::new();
        let mut dependents: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in dag.tasks.iter().enumerate() {
            for r in &t.metadata.reads {
                readers.entry(r.clone()).or_default().push(i);
            }
            for d in &t.depends_on {
                dependents.entry(d.clone()).or_default().push(i);
            }
        }
        // The program's result reads too: a value it needs must stay some task's output.
        for r in dag.result.iter().flat_map(|r| &r.reads) {
            readers.entry(r.clone()).or_default().push(RESULT_READER);
        }
        Usage {
            readers,
            dependents,
        }
    }

    pub(crate) fn readers(&self, id: &str) -> &[usize] {
        self.readers.get(id).map_or(&[], Vec::as_slice)
    }

    pub(crate) fn dependents(&self, id: &str) -> &[usize] {
        self.dependents.get(id).map_or(&[], Vec::as_slice)
    }
}

/// Logical operations a physical task runs.
pub(crate) fn size(dag: &Dag, id: &str) -> usize {
    dag.physical_to_logical
        .as_ref()
        .and_then(|m| m.get(id))
        .map_or(1, Vec::len)
}

/// Replace each group of tasks (physical ids, in execution order) by one fused task; rewires
/// dependencies, reads and the physical-to-logical map in one pass. A fused task takes the
/// place of its group's first task in the task list.
pub(crate) fn merge_groups(
    dag: &mut Dag,
    logical: &Dag,
    groups: &[Vec<String>],
    rule: &str,
    outputs: Outputs,
) {
    let logical_index: HashMap<&str, &Task> =
        logical.tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let index: HashMap<String, usize> = dag
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    let map = dag.physical_to_logical.take().unwrap_or_default();
    let mut fused_map: HashMap<String, Vec<String>> = HashMap::new();
    let mut rename: HashMap<String, String> = HashMap::new();
    let mut replacement: HashMap<usize, Task> = HashMap::new();
    let mut removed: HashSet<usize> = HashSet::new();
    for group in groups {
        let members: Vec<&Task> = group
            .iter()
            .filter_map(|id| index.get(id).map(|&i| &dag.tasks[i]))
            .collect();
        if members.len() != group.len() || members.len() < 2 {
            continue;
        }
        let ids: Vec<String> = group
            .iter()
            .flat_map(|id| map.get(id).cloned().unwrap_or_else(|| vec![id.clone()]))
            .collect();
        let fused_id = ids.join("+");
        let steps: Vec<&Task> = ids
            .iter()
            .filter_map(|id| logical_index.get(id.as_str()).copied())
            .collect();
        let (code, arguments) = codegen::fused(&steps, outputs);
        let inside: HashSet<&str> = group.iter().map(String::as_str).collect();
        let collect = |f: fn(&Task) -> &Vec<String>| {
            let mut v: Vec<String> = members
                .iter()
                .flat_map(|t| f(t).iter())
                .filter(|d| !inside.contains(d.as_str()))
                .cloned()
                .collect();
            v.sort();
            v.dedup();
            v
        };
        let mut fused = members[0].clone();
        fused.depends_on = collect(|t| &t.depends_on);
        fused.metadata.reads = collect(|t| &t.metadata.reads);
        for m in &members[1..] {
            fused.literals.extend(m.literals.clone());
        }
        fused.id = fused_id.clone();
        fused.tool = "code:fused".into();
        fused.code = Some(code);
        fused.arguments = Some(arguments);
        fused.metadata.fused_from = ids.clone();
        fused.metadata.fusion = Some(rule.to_string());
        for id in group {
            rename.insert(id.clone(), fused_id.clone());
            removed.insert(index[id]);
        }
        fused_map.insert(fused_id, ids);
        replacement.insert(index[&group[0]], fused);
    }
    let old = std::mem::take(&mut dag.tasks);
    for (i, t) in old.into_iter().enumerate() {
        if let Some(f) = replacement.remove(&i) {
            dag.tasks.push(f);
        } else if !removed.contains(&i) {
            dag.tasks.push(t);
        }
    }
    // Rebuild the map in task order (removing entries one by one from an IndexMap is O(n)).
    dag.physical_to_logical = Some(
        dag.tasks
            .iter()
            .map(|t| {
                let ids = fused_map
                    .remove(&t.id)
                    .or_else(|| map.get(&t.id).cloned())
                    .unwrap_or_else(|| vec![t.id.clone()]);
                (t.id.clone(), ids)
            })
            .collect(),
    );
    for t in &mut dag.tasks {
        let own = t.id.clone();
        for list in [&mut t.depends_on, &mut t.metadata.reads] {
            let mut changed = false;
            for d in list.iter_mut() {
                if let Some(n) = rename.get(d.as_str()) {
                    *d = n.clone();
                    changed = true;
                }
            }
            if changed {
                list.retain(|d| *d != own);
                list.sort();
                list.dedup();
            }
        }
    }
    if let Some(result) = &mut dag.result {
        for r in &mut result.reads {
            if let Some(n) = rename.get(r.as_str()) {
                *r = n.clone();
            }
        }
        result.reads.sort();
        result.reads.dedup();
    }
}
