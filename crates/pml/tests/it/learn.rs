//! `pml learn` over runs of a branching, looping program with known inputs.

use serde_json::{json, Value};

use crate::store::pml_in;

/// Lists the folder, reads the first `take` files (a loop), writes their total size when it is
/// over 5 (a decision).
const TALLY: &str = r#"const listing = await mcp.filesystem.list_directory({ path: args.root });
const names = listing.content
  .split("\n")
  .filter((line: string) => line.startsWith("[FILE]"))
  .map((line: string) => line.slice(7))
  .sort()
  .slice(0, args.take);
let total = 0;
for (const name of names) {
  const file = await mcp.filesystem.read_text_file({ path: `${args.root}/${name}` });
  total += file.content.length;
}
if (total > 5) {
  await mcp.filesystem.write_file({ path: `${args.root}/total.txt`, content: String(total) });
  return { total, written: true };
}
return { total, written: false };
"#;

#[test]
fn learning_counts_paths_and_outcomes_of_the_stored_runs_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let program = dir.path().join("tally.ts");
    std::fs::write(&program, TALLY).unwrap();
    let data = dir.path().join("tally");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("a.txt"), "hello").unwrap();
    std::fs::write(data.join("b.txt"), "world!").unwrap();
    let file = program.display().to_string();
    // Another program's run in the same store: not this capability's.
    let other = dir.path().join("other.ts");
    std::fs::write(&other, "return 1;\n").unwrap();
    assert_eq!(pml_in(&store, &["run", &other.display().to_string()]).0, 0);

    // take 2: both files (11 bytes), written; take 1: a.txt (5), not; take 0: nothing.
    let mut paths: Vec<(u32, Value)> = Vec::new();
    for take in [2, 1, 2, 0, 1, 2] {
        let args = json!({ "take": take }).to_string();
        let (code, out, err) = pml_in(&store, &["run", &file, "--args", &args]);
        assert_eq!(code, 0, "{err}");
        let ran: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(ran["result"]["written"], take == 2);
        paths.push((take, ran["executedPath"].clone()));
    }
    let path_of = |take: u32| paths.iter().find(|(t, _)| *t == take).unwrap().1.clone();
    let (code, _, err) = pml_in(&store, &["save", &file, "--name", "tally"]);
    assert_eq!(code, 0, "{err}");

    let (code, out, err) = pml_in(&store, &["learn", "--capability", "tally", "--json"]);
    assert_eq!(code, 0, "{err}");
    let learned: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(learned["runs"], 6);
    let count = |tool: &str| {
        (learned["nodes"].as_array().unwrap().iter())
            .find(|n| n["tool"] == tool)
            .map(|n| n["count"].clone())
    };
    assert_eq!(count("filesystem:list_directory"), Some(json!(6)));
    assert_eq!(count("filesystem:read_text_file"), Some(json!(3 * 2 + 2)));
    assert_eq!(count("filesystem:write_file"), Some(json!(3)));
    assert_eq!(count("code:sort"), Some(json!(6)));
    let edge = |from: &str, to: &str| {
        (learned["edges"].as_array().unwrap().iter())
            .find(|e| e["from"] == from && e["to"] == to && e["type"] == "sequence")
            // (A rate as JavaScript writes it: `1`, not `1.0`.)
            .map(|e| (e["count"].clone(), e["successRate"].as_f64()))
    };
    // Read after read: only when both files are read.
    assert_eq!(
        edge("filesystem:read_text_file", "filesystem:read_text_file"),
        Some((json!(3), Some(1.0)))
    );
    assert_eq!(
        edge("code:slice", "filesystem:read_text_file"),
        Some((json!(5), Some(1.0)))
    );
    assert_eq!(
        edge("filesystem:read_text_file", "filesystem:write_file"),
        Some((json!(3), Some(1.0)))
    );
    assert_eq!(learned["programs"].as_array().unwrap().len(), 1);
    let tally = &learned["programs"][0];
    assert_eq!(tally["capability"], json!(["tally"]));
    assert_eq!(tally["runs"], 6);
    assert_eq!(tally["successRate"], 1.0);
    let counted: Vec<(Value, Value)> = (tally["paths"].as_array().unwrap().iter())
        .map(|p| (p["path"].clone(), p["count"].clone()))
        .collect();
    assert_eq!(
        counted,
        [
            (path_of(2), json!(3)),
            (path_of(1), json!(2)),
            (path_of(0), json!(1)),
        ]
    );
    assert_eq!(tally["dominantPath"], path_of(2));
    assert_eq!(
        tally["decisions"],
        json!([{ "taskId": "d1", "outcomes": { "false": 3, "true": 3 } }])
    );

    // Without a filter: the other program too; on a terminal, a summary; as DOT, a graph.
    let (_, out, _) = pml_in(&store, &["learn", "--json"]);
    let all: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(all["runs"], 7);
    assert_eq!(all["programs"].as_array().unwrap().len(), 2);
    let (code, out, _) = pml_in(&store, &["learn", "--capability", "tally"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("learned from 6 runs"), "{out}");
    assert!(out.contains("tally: 6 runs, 100% ok"), "{out}");
    assert!(out.contains("decision d1: false 3, true 3"), "{out}");
    let (code, out, _) = pml_in(&store, &["learn", "--dot"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("digraph {"), "{out}");
    assert!(out.contains("filesystem:list_directory"), "{out}");
    // MCP calls only: the same runs, no pure operation left.
    let (code, out, _) = pml_in(&store, &["learn", "--mcp-only", "--json"]);
    assert_eq!(code, 0);
    let calls: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(calls["runs"], 7);
    assert!(!out.contains("\"code:"), "{out}");
    assert!(out.contains("filesystem:list_directory"), "{out}");
    let (code, _, err) = pml_in(&store, &["learn", "--capability", "nobody"]);
    assert_eq!(
        (code, err.trim()),
        (1, "pml: no capability named or hashed `nobody`")
    );
}

/// Reads a number and says whether it is over the caller's limit (a decision).
const GAUGE: &str = r#"const file = await mcp.filesystem.read_text_file({ path: args.root + "/n.txt" });
if (Number(file.content) > args.limit) return "over";
return "under";
"#;

/// Calls `gauge` from inside another capability (two levels down from the program).
const OUTER: &str = "return await capabilities.gauge({ limit: 0 });\n";

const CALLER: &str = r#"const a = await capabilities.gauge({ limit: 1 });
const b = await capabilities.gauge({ limit: 5 });
const c = await capabilities.outer({});
return [a, b, c];
"#;

#[test]
fn runs_made_through_capability_calls_count_for_the_capability() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite").display().to_string();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let gauge = write("gauge.ts", GAUGE);
    let outer = write("outer.ts", OUTER);
    let caller = write("caller.ts", CALLER);
    for folder in ["gauge", "caller"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
        std::fs::write(dir.path().join(folder).join("n.txt"), "3").unwrap();
    }
    for (file, name) in [(&gauge, "gauge"), (&outer, "outer")] {
        let (code, _, err) = pml_in(&store, &["save", file, "--name", name]);
        assert_eq!(code, 0, "{err}");
    }
    // Once on its own (3 > 10: under), and three times through capability calls: from the
    // program (3 > 1: over; 3 > 5: under) and from `outer` (3 > 0: over).
    let (code, _, err) = pml_in(&store, &["run", &gauge, "--args", r#"{"limit": 10}"#]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = pml_in(&store, &["run", &caller]);
    assert_eq!(code, 0, "{err}");
    let ran: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(ran["result"], json!(["over", "under", "over"]));

    let (code, out, err) = pml_in(&store, &["learn", "--capability", "gauge", "--json"]);
    assert_eq!(code, 0, "{err}");
    let learned: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(learned["runs"], 4, "{learned:#}");
    let reads = (learned["nodes"].as_array().unwrap().iter())
        .find(|n| n["tool"] == "filesystem:read_text_file")
        .unwrap();
    assert_eq!(reads["count"], 4);
    // The caller's own operations are not the capability's.
    assert!(
        !(learned["nodes"].as_array().unwrap().iter())
            .any(|n| n["tool"].as_str().unwrap().starts_with("capability:")),
        "{learned:#}"
    );
    let programs = learned["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 1, "{learned:#}");
    let program = &programs[0];
    assert_eq!(program["capability"], json!(["gauge"]));
    assert_eq!(program["runs"], 4);
    assert_eq!(program["successRate"], 1.0);
    let taken: u64 = (program["paths"].as_array().unwrap().iter())
        .map(|p| p["count"].as_u64().unwrap())
        .sum();
    assert_eq!(taken, 4);
    assert_eq!(
        program["decisions"],
        json!([{ "taskId": "d1", "outcomes": { "false": 2, "true": 2 } }])
    );

    // The whole store: two runs learned from; `gauge` has its four, `outer` its one.
    let (code, out, err) = pml_in(&store, &["learn", "--json"]);
    assert_eq!(code, 0, "{err}");
    let all: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(all["runs"], 2);
    let runs_of = |name: &str| {
        (all["programs"].as_array().unwrap().iter())
            .find(|p| p["capability"] == json!([name]))
            .map(|p| (p["runs"].clone(), p["decisions"].clone()))
    };
    assert_eq!(
        runs_of("gauge"),
        Some((
            json!(4),
            json!([{ "taskId": "d1", "outcomes": { "false": 2, "true": 2 } }])
        ))
    );
    assert_eq!(
        runs_of("outer"),
        Some((
            json!(1),
            json!([{ "taskId": "gauge/d1", "outcomes": { "true": 1 } }])
        ))
    );
    // Reads counted once in the graph, though each is in a program's run and a capability's.
    let reads = (all["nodes"].as_array().unwrap().iter())
        .find(|n| n["tool"] == "filesystem:read_text_file")
        .unwrap();
    assert_eq!(reads["count"], 4);

    // The capability's Invocation view over its runs has the four.
    let (code, dot, err) = pml_in(&store, &["view", "gauge", "--runs", "--format", "dot"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        dot.contains("n1 · filesystem:read_text_file\\nran 4, "),
        "{dot}"
    );
    assert!(dot.contains("\\ntaken: false 2, true 2\""), "{dot}");
}
