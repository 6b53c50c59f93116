//! Topological layers with petgraph; cycles and dangling dependencies are errors naming tasks.

use std::collections::HashMap;

use petgraph::algo::toposort;
use petgraph::graph::DiGraph;

use crate::model::Task;

/// Layer k holds the tasks whose longest dependency chain has length k.
pub fn layers(tasks: &[Task]) -> Result<Vec<Vec<String>>, String> {
    let mut graph = DiGraph::<usize, ()>::with_capacity(tasks.len(), tasks.len());
    let nodes: Vec<_> = (0..tasks.len()).map(|i| graph.add_node(i)).collect();
    let by_id: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    for (i, t) in tasks.iter().enumerate() {
        for d in &t.depends_on {
            let Some(&j) = by_id.get(d.as_str()) else {
                return Err(format!("task {} depends on {d}, which is not a task", t.id));
            };
            graph.add_edge(nodes[j], nodes[i], ());
        }
    }
    let order = toposort(&graph, None).map_err(|cycle| {
        let t = &tasks[graph[cycle.node_id()]];
        format!("dependency cycle through task {} ({})", t.id, t.tool)
    })?;
    let mut level = vec![0usize; tasks.len()];
    let mut out: Vec<Vec<String>> = Vec::new();
    for n in order {
        let i = graph[n];
        let l = tasks[i]
            .depends_on
            .iter()
            .filter_map(|d| by_id.get(d.as_str()))
            .map(|&j| level[j] + 1)
            .max()
            .unwrap_or(0);
        level[i] = l;
    }
    for (i, t) in tasks.iter().enumerate() {
        let l = level[i];
        if out.len() <= l {
            out.resize(l + 1, Vec::new());
        }
        out[l].push(t.id.clone());
    }
    Ok(out)
}
