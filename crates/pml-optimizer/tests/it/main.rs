//! Optimizer tests on real programs: what fuses, what must not, and the driver's invariants.

use pml_dag::{to_dag, Dag};
use pml_optimizer::{optimize, OptimizerOptions, Rule};
use pml_structure::{build_structure, BuildOptions};

fn logical(code: &str) -> Dag {
    let s = build_structure(code, &BuildOptions::default()).structure;
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
    to_dag(&s, &Default::default())
}

/// `physical id <- logical ids` per task, one per line.
fn groups(code: &str) -> String {
    let physical = optimize(&logical(code), &Default::default()).physical;
    assert!(physical
        .diagnostics
        .iter()
        .all(|d| d.code != "internal-error"));
    let map = physical.physical_to_logical.unwrap();
    physical
        .tasks
        .iter()
        .map(|t| format!("{} {} <- {}", t.id, t.tool, map[&t.id].join(",")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn method_chains_fuse() {
    expect_test::expect![[r#"
        n1 db:query <- n1
        n2+n3+n4 code:fused <- n2,n3,n4"#]]
    .assert_eq(&groups(
        "const users = await mcp.db.query({}); return users.filter(u => u.active).map(u => u.name).sort();",
    ));
}

#[test]
fn variable_to_variable_chains_fuse() {
    expect_test::expect![[r#"
        n1 db:query <- n1
        n2+n3+n4 code:fused <- n2,n3,n4
        n5 fs:write <- n5"#]]
    .assert_eq(&groups(
        r#"const users = await mcp.db.query({});
const active = users.filter(u => u.active);
const names = active.map(u => u.name);
const sorted = names.sort();
await mcp.fs.write({ data: sorted });"#,
    ));
}

#[test]
fn never_across_an_mcp_call_or_a_decision_or_when_the_middle_is_read() {
    expect_test::expect![[r#"
        n1 db:query <- n1
        n2 code:filter <- n2
        n3 log:write <- n3
        n4 code:map <- n4
        n5+n6 code:fused <- n5,n6
        n7 out:put <- n7"#]]
    .assert_eq(&groups(
        r#"const users = await mcp.db.query({});
const active = users.filter(u => u.active);
await mcp.log.write({ n: 1 });
const names = active.map(u => u.name);
if (names.length > 0) {
  const upper = names.map(n => n.toUpperCase());
  const line = upper.join(",");
  await mcp.out.put({ line, names });
}"#,
    ));
}

#[test]
fn impure_code_is_not_fused() {
    expect_test::expect![[r#"
        n1 db:query <- n1
        n2 code:map <- n2
        n3 code:filter <- n3"#]]
    .assert_eq(&groups(
        r#"const xs = await mcp.db.query({});
const ys = xs.map(x => fetch(x.url));
const zs = ys.filter(y => y);"#,
    ));
}

#[test]
fn the_limit_splits_long_chains() {
    let code = format!(
        "const xs = await mcp.db.q({{}}); return xs{};",
        ".map(x => x + 1)".repeat(23)
    );
    let physical = optimize(
        &logical(&code),
        &OptimizerOptions {
            max_fused: 10,
            explain: false,
        },
    )
    .physical;
    let sizes: Vec<usize> = physical
        .physical_to_logical
        .unwrap()
        .values()
        .map(Vec::len)
        .collect();
    // 23 chained maps under a limit of 10: every fused task within the limit, all 23 covered,
    // and as few sandbox invocations as the limit allows (3).
    assert_eq!(sizes[0], 1);
    assert!(sizes[1..].iter().all(|&n| n <= 10), "{sizes:?}");
    assert_eq!(sizes[1..].iter().sum::<usize>(), 23);
    assert_eq!(sizes.len() - 1, 3, "{sizes:?}");
}

/// A chain is cut into full tasks in program order (the original's "respects maxFusionSize":
/// 20 maps under a limit of 5 are four tasks of 5; they were five of 4, pairs merging in
/// rounds stopping at 4 + 4 > 5).
#[test]
fn the_limit_packs_chains_into_full_tasks() {
    for (links, max, expected) in [
        (20, 5, vec![5, 5, 5, 5]),
        (6, 3, vec![3, 3]),
        (23, 10, vec![10, 10, 3]),
        (7, 2, vec![2, 2, 2, 1]),
    ] {
        let code = format!(
            "const xs = await mcp.db.q({{}}); return xs{};",
            ".map(x => x + 1)".repeat(links)
        );
        let physical = optimize(
            &logical(&code),
            &OptimizerOptions {
                max_fused: max,
                explain: false,
            },
        )
        .physical;
        let map = physical.physical_to_logical.unwrap();
        let sizes: Vec<usize> = (physical.tasks.iter().skip(1))
            .map(|t| map[&t.id].len())
            .collect();
        assert_eq!(sizes, expected, "{links} links, at most {max}");
    }
}

#[test]
fn siblings_in_promise_all_fuse_into_one_task() {
    expect_test::expect![[r#"
        n1 db:q <- n1
        n2+n3 code:fused <- n2,n3
        n4 out:put <- n4"#]]
    .assert_eq(&groups(
        r#"const xs = await mcp.db.q({});
const [a, b] = await Promise.all([xs.filter(x => x.ok), xs.map(x => x.id)]);
await mcp.out.put({ a, b });"#,
    ));
}

#[test]
fn optimizing_twice_is_optimizing_once_and_every_logical_task_is_mapped_once() {
    for fixture in
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures")).unwrap()
    {
        let dir = fixture.unwrap().path();
        let input = ["input.ts", "input.js"]
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.exists());
        let Some(input) = input else { continue };
        let code = std::fs::read_to_string(&input).unwrap();
        let s = build_structure(&code, &BuildOptions::default()).structure;
        if s.has_errors() {
            continue;
        }
        let l = to_dag(&s, &Default::default());
        let once = optimize(&l, &Default::default()).physical;
        pml_optimizer_check(&once, &l, &dir);
        // Optimizing the physical DAG again (as logical input) changes nothing.
        let twice = optimize(&once, &Default::default()).physical;
        assert_eq!(
            once.tasks.iter().map(|t| &t.id).collect::<Vec<_>>(),
            twice.tasks.iter().map(|t| &t.id).collect::<Vec<_>>(),
            "{}",
            dir.display()
        );
    }
}

fn pml_optimizer_check(physical: &Dag, logical: &Dag, dir: &std::path::Path) {
    let map = physical.physical_to_logical.as_ref().unwrap();
    let mut all: Vec<&String> = map.values().flatten().collect();
    all.sort();
    let mut expected: Vec<&String> = logical.tasks.iter().map(|t| &t.id).collect();
    expected.sort();
    assert_eq!(all, expected, "{}", dir.display());
    assert!(
        physical
            .diagnostics
            .iter()
            .all(|d| d.code != "internal-error"),
        "{}: {:?}",
        dir.display(),
        physical.diagnostics
    );
}

/// Apply one rule alone, to its fixpoint, and list the groups.
fn apply_alone(rule: &dyn pml_optimizer::Rule, code: &str) -> Vec<Vec<String>> {
    let l = logical(code);
    let mut dag = l.clone();
    dag.physical_to_logical = Some(
        dag.tasks
            .iter()
            .map(|t| (t.id.clone(), vec![t.id.clone()]))
            .collect(),
    );
    while rule.apply(&mut dag, &l, &OptimizerOptions::default()) {
        pml_dag::revalidate(&mut dag);
    }
    dag.physical_to_logical.unwrap().into_values().collect()
}

#[test]
fn sequential_fusion_alone_leaves_siblings_apart() {
    use pml_optimizer::rules::sequential_fusion::SequentialFusion;
    assert_eq!(SequentialFusion.name(), "sequential_fusion");
    let groups = apply_alone(
        &SequentialFusion,
        "const xs = await mcp.db.q({}); const ys = xs.filter(x => x.ok).map(x => x.id); const [a, b] = await Promise.all([ys.slice(0, 2), ys.slice(2)]); await mcp.out.put({ a, b });",
    );
    assert_eq!(
        groups,
        [
            vec!["n1"],
            vec!["n2", "n3"],
            vec!["n4"],
            vec!["n5"],
            vec!["n6"]
        ]
    );
}

#[test]
fn fork_join_fusion_alone_leaves_chains_apart() {
    use pml_optimizer::rules::fork_join_fusion::ForkJoinFusion;
    assert_eq!(ForkJoinFusion.name(), "fork_join_fusion");
    let groups = apply_alone(
        &ForkJoinFusion,
        "const xs = await mcp.db.q({}); const ys = xs.filter(x => x.ok).map(x => x.id); const [a, b] = await Promise.all([ys.slice(0, 2), ys.slice(2)]); await mcp.out.put({ a, b });",
    );
    assert_eq!(
        groups,
        [
            vec!["n1"],
            vec!["n2"],
            vec!["n3"],
            vec!["n4", "n5"],
            vec!["n6"]
        ]
    );
}

/// A fused task depends on everything each task it fuses depended on outside it (each such
/// dependency as the physical task that holds it), over every fixture and a chain that reads
/// two results.
#[test]
fn a_fused_task_keeps_the_outside_dependencies_of_every_task_it_fuses() {
    let mut programs: Vec<String> = vec![r#"const a = await mcp.db.q({});
const b = await mcp.db.r({});
const ok = a.filter((v) => v.ok);
const both = ok.concat(b.rows);
const ids = both.map((v) => v.id);
await mcp.out.put({ ids });"#
        .to_owned()];
    for fixture in
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures")).unwrap()
    {
        let input = fixture.unwrap().path().join("input.ts");
        if let Ok(code) = std::fs::read_to_string(&input) {
            programs.push(code);
        }
    }
    let mut fused = 0;
    for code in programs {
        let s = build_structure(&code, &BuildOptions::default()).structure;
        if s.has_errors() {
            continue;
        }
        let logical = to_dag(&s, &Default::default());
        let physical = optimize(&logical, &Default::default()).physical;
        let map = physical.physical_to_logical.clone().unwrap();
        let holder = |logical_id: &str| {
            map.iter()
                .find(|(_, ids)| ids.iter().any(|i| i == logical_id))
                .map(|(p, _)| p.clone())
        };
        for task in physical.tasks.iter() {
            let members = &map[&task.id];
            if members.len() < 2 {
                continue;
            }
            fused += 1;
            for member in members {
                let Some(l) = logical.tasks.iter().find(|t| &t.id == member) else {
                    continue;
                };
                for dep in l.depends_on.iter().filter(|d| !members.contains(d)) {
                    let outside = holder(dep).unwrap_or_else(|| dep.clone());
                    assert!(
                        task.depends_on.contains(&outside),
                        "{}: {member} depends on {dep} ({outside}), the fused task does not: {:?}\n{code}",
                        task.id,
                        task.depends_on
                    );
                }
            }
        }
    }
    assert!(fused > 5, "{fused} fused tasks checked");
}
