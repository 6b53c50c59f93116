//! Hash throughput: structures per second for a ~20-node structure and for every fixture, with
//! SHA-256 of the same canonical bytes alone as the machine's baseline.
//!
//! `cargo bench -p pml-hash` (a plain `main`, no harness: `harness = false` in `Cargo.toml`).
//! `BENCH_SECONDS` sets the time per measurement (default 2). The allocator is mimalloc, as in
//! the `pml` binary.

use std::hint::black_box;
use std::time::{Duration, Instant};

use pml_structure::{build_structure, BuildOptions, StaticStructure};
use sha2::{Digest, Sha256};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A realistic agent program of about twenty nodes: directory listing, chained array code,
/// parallel reads, a reduction, an if/else-if/else on file content, writes.
const PROGRAM: &str = r##"
const listing = await mcp.filesystem.list_directory({ path: args.inputDir });
const csvNames = listing.entries
  .filter((e) => e.type === "file" && e.name.endsWith(".csv"))
  .map((e) => e.name);
const raw = await Promise.all(
  csvNames.map((name) => mcp.filesystem.read_text_file({ path: `${args.inputDir}/${name}` })),
);
const rows = raw.flatMap((f) => f.content.split("\n").slice(1)).filter((line) => line.trim() !== "");
const records = rows.map((line) => {
  const [id, email, amount] = line.split(",");
  return { id, email: email.toLowerCase(), amount: Number(amount) };
});
const total = records.reduce((sum, r) => sum + r.amount, 0);
const json = JSON.stringify(records, null, 2);
await mcp.filesystem.create_directory({ path: args.outputDir });
await mcp.filesystem.write_file({ path: `${args.outputDir}/records.json`, content: json });
const file = await mcp.filesystem.read_text_file({ path: args.path });
const firstLine = file.content.split("\n")[0].trim();
if (firstLine.startsWith("{")) {
  const data = JSON.parse(file.content);
  await mcp.memory.create_entities({ entities: [{ name: data.name, entityType: "config", observations: [] }] });
} else if (firstLine.startsWith("#")) {
  await mcp.memory.create_entities({ entities: [{ name: firstLine, entityType: "document", observations: [] }] });
} else {
  await mcp.filesystem.move_file({ source: args.path, destination: args.path + ".unknown" });
}
await mcp.filesystem.write_file({
  path: `${args.outputDir}/summary.txt`,
  content: `records=${records.length} total=${total}`,
});
"##;

/// Calls per second of `f`, measured for at least `min` after a warm-up.
fn rate(min: Duration, mut f: impl FnMut()) -> f64 {
    for _ in 0..200 {
        f();
    }
    let mut n = 0u64;
    let start = Instant::now();
    loop {
        for _ in 0..100 {
            f();
        }
        n += 100;
        let elapsed = start.elapsed();
        if elapsed >= min {
            return n as f64 / elapsed.as_secs_f64();
        }
    }
}

fn fixtures() -> Vec<StaticStructure> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        for name in ["input.ts", "input.js"] {
            if let Ok(code) = std::fs::read_to_string(p.join(name)) {
                let s = build_structure(&code, &BuildOptions::default()).structure;
                if !s.has_errors() {
                    out.push(s);
                }
            }
        }
    }
    out
}

fn main() {
    let min = Duration::from_secs_f64(
        std::env::var("BENCH_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2.0),
    );
    let s = build_structure(PROGRAM, &BuildOptions::default()).structure;
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
    let form = pml_hash::canonical_form(&s);
    println!(
        "structure: {} nodes, {} edges, canonical form {} bytes",
        s.nodes.len(),
        s.edges.len(),
        form.len()
    );
    let hash = rate(min, || {
        let _ = black_box(pml_hash::semantic_hash(black_box(&s)));
    });
    if std::env::var("BENCH_ONLY_HASH").is_ok() {
        println!("semantic_hash: {hash:.0} structures/s");
        return;
    }
    let sha = rate(min, || {
        black_box(Sha256::digest(black_box(form.as_bytes())));
    });
    println!(
        "semantic_hash:                 {hash:>12.0} structures/s ({:.1} us each)",
        1e6 / hash
    );
    println!(
        "baseline sha256(form) alone:   {sha:>12.0} /s ({:.2} us each)",
        1e6 / sha
    );

    let all = fixtures();
    if !all.is_empty() {
        let nodes: usize = all.iter().map(|s| s.nodes.len()).sum();
        let per = rate(min, || {
            for s in &all {
                let _ = black_box(pml_hash::semantic_hash(black_box(s)));
            }
        });
        println!(
            "all {} fixtures ({:.1} nodes on average): {:>12.0} structures/s",
            all.len(),
            nodes as f64 / all.len() as f64,
            per * all.len() as f64
        );
    }
}
