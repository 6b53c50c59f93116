//! The rule driver: fixpoint per rule, validation after every application, explain trace.

use indexmap::IndexMap;
use pml_dag::Dag;
use pml_structure::Severity;

use crate::rules;

/// Knobs of the optimizer.
#[derive(Debug, Clone)]
pub struct OptimizerOptions {
    /// Most logical operations one fused task may run.
    pub max_fused: usize,
    /// Record the DAG after each rule (`pml dag --optimized --explain`).
    pub explain: bool,
}

impl Default for OptimizerOptions {
    fn default() -> Self {
        OptimizerOptions {
            max_fused: 10,
            explain: false,
        }
    }
}

/// One rewrite rule. `apply` makes at most one change and says whether it did; the driver
/// calls it again until it returns false.
pub trait Rule {
    fn name(&self) -> &'static str;
    fn apply(&self, dag: &mut Dag, logical: &Dag, options: &OptimizerOptions) -> bool;
}

/// The DAG after one rule ran to its fixpoint.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RuleStep {
    pub rule: &'static str,
    pub applications: usize,
    pub dag: Dag,
}

#[derive(Debug, Clone)]
pub struct OptimizeReturn {
    pub physical: Dag,
    /// With `explain`: the DAG after each rule, in order.
    pub steps: Vec<RuleStep>,
}

/// The rules, in order. Sequential chains first (they are the common case and produce
/// single-output tasks), then siblings that can share one sandbox invocation.
fn rule_list() -> Vec<Box<dyn Rule>> {
    vec![
        // a -> b -> c pure code, nothing else reads a or b: one task.
        Box::new(rules::sequential_fusion::SequentialFusion),
        // independent pure tasks with the same inputs, conditions and readers: one task.
        Box::new(rules::fork_join_fusion::ForkJoinFusion),
    ]
}

/// Optimize a logical DAG into a physical one.
pub fn optimize(logical: &Dag, options: &OptimizerOptions) -> OptimizeReturn {
    let mut dag = logical.clone();
    let identity: IndexMap<String, Vec<String>> = dag
        .tasks
        .iter()
        .map(|t| (t.id.clone(), vec![t.id.clone()]))
        .collect();
    dag.physical_to_logical = Some(identity);
    let mut steps = Vec::new();
    for rule in rule_list() {
        let mut applications = 0;
        // Each application removes at least one task, so this terminates.
        while applications <= logical.tasks.len() && rule.apply(&mut dag, logical, options) {
            applications += 1;
            pml_dag::revalidate(&mut dag);
            if let Err(message) = check_mapping(&dag, logical) {
                dag.diagnostics.push(pml_structure::Diagnostic {
                    line: None,
                    column: None,
                    ..pml_structure::Diagnostic::at(
                        Severity::Error,
                        pml_dag::diagnostics::INTERNAL,
                        format!("after rule {}: {message}", rule.name()),
                        (1, 1),
                    )
                });
                return OptimizeReturn {
                    physical: dag,
                    steps,
                };
            }
        }
        if options.explain {
            steps.push(RuleStep {
                rule: rule.name(),
                applications,
                dag: dag.clone(),
            });
        }
    }
    OptimizeReturn {
        physical: dag,
        steps,
    }
}

/// Every logical task appears in exactly one physical task, and every physical task is mapped.
pub fn check_mapping(dag: &Dag, logical: &Dag) -> Result<(), String> {
    let Some(map) = &dag.physical_to_logical else {
        return Err("physicalToLogical is missing".into());
    };
    let mut seen = std::collections::HashMap::new();
    let ids: std::collections::HashSet<&str> = dag.tasks.iter().map(|t| t.id.as_str()).collect();
    for (p, ls) in map {
        if !ids.contains(p.as_str()) {
            return Err(format!("physical task {p} is mapped but does not exist"));
        }
        for l in ls {
            if let Some(other) = seen.insert(l.as_str(), p.as_str()) {
                return Err(format!("logical task {l} is in both {other} and {p}"));
            }
        }
    }
    for t in &logical.tasks {
        if !seen.contains_key(t.id.as_str()) {
            return Err(format!("logical task {} is not in any physical task", t.id));
        }
    }
    for t in &dag.tasks {
        if !map.contains_key(&t.id) {
            return Err(format!("physical task {} has no logical tasks", t.id));
        }
    }
    Ok(())
}
