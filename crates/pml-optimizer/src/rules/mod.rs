//! Optimizer rules, one per file; each struct's `name()` is its file name.

pub mod fork_join_fusion;
pub mod sequential_fusion;

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

/// Tasks that read `id`'s result.
pub(crate) fn readers<'d>(dag: &'d Dag, id: &str) -> Vec<&'d Task> {
    dag.tasks
        .iter()
        .filter(|t| t.metadata.reads.iter().any(|r| r == id))
        .collect()
}

/// Tasks that must run after `id`.
pub(crate) fn dependents<'d>(dag: &'d Dag, id: &str) -> Vec<&'d Task> {
    dag.tasks
        .iter()
        .filter(|t| t.depends_on.iter().any(|d| d == id))
        .collect()
}

/// Replace tasks `a` and `b` (in this order) by one fused task; rewires dependencies, reads and
/// the physical-to-logical map. The fused task takes `a`'s place in the task list.
pub(crate) fn merge(dag: &mut Dag, logical: &Dag, a: &str, b: &str, rule: &str, outputs: Outputs) {
    let map = dag.physical_to_logical.get_or_insert_with(Default::default);
    let mut ids: Vec<String> = map.get(a).cloned().unwrap_or_else(|| vec![a.to_string()]);
    ids.extend(map.get(b).cloned().unwrap_or_else(|| vec![b.to_string()]));
    let fused_id = ids.join("+");
    map.shift_remove(a);
    map.shift_remove(b);
    map.insert(fused_id.clone(), ids.clone());

    let steps: Vec<&Task> = ids.iter().filter_map(|id| logical.task(id)).collect();
    let (code, arguments) = codegen::fused(&steps, outputs);
    let (ta, tb) = (dag.task(a).cloned(), dag.task(b).cloned());
    let (Some(ta), Some(tb)) = (ta, tb) else {
        return;
    };
    let merged_ids = [a, b];
    let mut depends: Vec<String> = ta
        .depends_on
        .iter()
        .chain(&tb.depends_on)
        .filter(|d| !merged_ids.contains(&d.as_str()))
        .cloned()
        .collect();
    depends.dedup();
    depends.sort();
    depends.dedup();
    let mut reads: Vec<String> = ta
        .metadata
        .reads
        .iter()
        .chain(&tb.metadata.reads)
        .filter(|d| !merged_ids.contains(&d.as_str()))
        .cloned()
        .collect();
    reads.sort();
    reads.dedup();
    let mut literals = ta.literals.clone();
    literals.extend(tb.literals.clone());
    let mut fused = ta.clone();
    fused.id = fused_id.clone();
    fused.tool = "code:fused".into();
    fused.depends_on = depends;
    fused.code = Some(code);
    fused.arguments = Some(arguments);
    fused.literals = literals;
    fused.metadata.reads = reads;
    fused.metadata.fused_from = ids;
    fused.metadata.fusion = Some(rule.to_string());
    let at = dag.tasks.iter().position(|t| t.id == a).unwrap_or(0);
    dag.tasks.retain(|t| t.id != a && t.id != b);
    dag.tasks.insert(at.min(dag.tasks.len()), fused);
    for t in &mut dag.tasks {
        for list in [&mut t.depends_on, &mut t.metadata.reads] {
            let before = list.len();
            list.retain(|d| !merged_ids.contains(&d.as_str()));
            if list.len() != before && t.id != fused_id {
                list.push(fused_id.clone());
                list.sort();
                list.dedup();
            }
        }
    }
}
