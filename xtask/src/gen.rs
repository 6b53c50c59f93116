//! `cargo xtask gen`: a deterministic generator of realistic agent programs, the input of `cargo xtask bench`.
//!
//! An agent program is the BODY of an async function: top-level `await` and `return` are allowed and `args` is
//! the parameter object (`pml analyze` and `bench/swc-parse.mjs` both parse it wrapped as
//! `async function __pml_agent__(){...\n}`). The generator emits it as a sequence of independent-looking
//! "steps", each a few statements of the shapes agents actually write against MCP tools:
//!
//! - `await mcp.server.tool({...})` calls (a few `mcp.server["tool-name"](...)` and `capabilities.name(...)`)
//!   with nested object arguments, template literals and `args.*` fields;
//! - `JSON.parse(...)` followed by `filter` / `map` / `sort` / `slice` / `reduce` chains with arrow callbacks;
//! - `if` / `else`, `switch`, ternaries, `try` / `catch`, `for ... of` loops with calls inside;
//! - `const [a, b] = await Promise.all([...])` and `Promise.all(list.map((p) => mcp...))` fan-outs;
//! - literal bindings with foldable arithmetic, `Object.keys`, `Math.max`, TypeScript annotations and `as` casts.
//!
//! Steps read the variables earlier steps bound, so the program has real data dependencies. Every binding name
//! is suffixed with its step number, hence unique. The output depends only on `(target_bytes, seed)`: a seeded
//! xorshift64* drives every choice, and a longer program with the same seed starts with the shorter one's steps.
//!
//! ```text
//! cargo xtask gen --bytes 360000 [--seed 7] [--out target/bench/agent-1x.ts]
//! ```

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _};

/// The seed `cargo xtask gen` and `cargo xtask bench` use unless told otherwise.
pub const DEFAULT_SEED: u64 = 0x5eed_a6e7;

/// `cargo xtask gen --bytes N [--seed S] [--out FILE]`; `args` are the words after `gen`.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    let mut bytes: Option<usize> = None;
    let mut seed = DEFAULT_SEED;
    let mut out: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .with_context(|| format!("gen: {name} needs a value"))
        };
        match arg.as_str() {
            "--bytes" => {
                let v = value("--bytes")?;
                bytes = Some(parse_size(v).with_context(|| format!("gen: bad --bytes value `{v}`"))?);
            }
            "--seed" => {
                let v = value("--seed")?;
                seed = v.parse().with_context(|| format!("gen: bad --seed value `{v}`"))?;
            }
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "-h" | "--help" => {
                println!("usage: cargo xtask gen --bytes N[k|K|m|M] [--seed S] [--out FILE]");
                return Ok(());
            }
            other => bail!("gen: unknown argument `{other}` (usage: cargo xtask gen --bytes N [--seed S] [--out FILE])"),
        }
    }
    let Some(bytes) = bytes else {
        bail!("gen: --bytes N is required")
    };
    let program = generate(bytes, seed);
    match out {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("gen: cannot create {}", dir.display()))?;
            }
            std::fs::write(&path, &program)
                .with_context(|| format!("gen: cannot write {}", path.display()))?;
            let stats = stats(&program);
            eprintln!(
                "gen: wrote {} ({} bytes, {} lines, {} MCP call sites, seed {seed})",
                path.display(),
                stats.bytes,
                stats.lines,
                stats.mcp_calls
            );
        }
        None => print!("{program}"),
    }
    Ok(())
}

/// `360000`, `360k`, `1.5M` (k = 1000, M = 1000000).
fn parse_size(s: &str) -> anyhow::Result<usize> {
    let (num, mult) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1_000.0),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1_000_000.0),
        _ => (s, 1.0),
    };
    let n: f64 = num.parse()?;
    if !(n.is_finite() && n >= 0.0) {
        bail!("size must be a non-negative number");
    }
    Ok((n * mult).round() as usize)
}

/// What a generated program contains, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgramStats {
    pub bytes: usize,
    pub lines: usize,
    /// Syntactic MCP call sites (`mcp.server.tool(`), each counted once even inside a loop or a `.map`.
    pub mcp_calls: usize,
}

/// Counts bytes, lines and MCP call sites of a program.
pub fn stats(program: &str) -> ProgramStats {
    ProgramStats {
        bytes: program.len(),
        lines: program.lines().count(),
        mcp_calls: program
            .match_indices("mcp.")
            .filter(|(i, _)| is_call_site(program, *i))
            .count(),
    }
}

fn is_call_site(program: &str, at: usize) -> bool {
    let before = program[..at].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        return false;
    }
    let rest = &program[at + 4..];
    let ident = |s: &str| {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let server = ident(rest);
    if server == 0 || !(rest[server..].starts_with('.') || rest[server..].starts_with("[\"")) {
        return false;
    }
    let rest = &rest[server..];
    if let Some(rest) = rest.strip_prefix("[\"") {
        // mcp.server["tool-name"](...)
        return rest
            .find('"')
            .is_some_and(|end| rest[end..].starts_with("\"]("));
    }
    let rest = &rest[1..];
    let tool = ident(rest);
    tool > 0 && rest[tool..].starts_with('(')
}

/// A program of at least `target_bytes` bytes (it overshoots by at most one step and the final `return`),
/// fully determined by `(target_bytes, seed)`.
pub fn generate(target_bytes: usize, seed: u64) -> String {
    let mut g = Gen::new(seed);
    g.prologue();
    while g.out.0.len() < target_bytes {
        g.step();
    }
    g.epilogue();
    g.out.0
}

// ---------------------------------------------------------------------------------------------------------------

/// xorshift64* (Vigna): tiny, fast, good enough to pick templates.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // splitmix64 of the seed, so that 0 and small seeds are fine.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 1 } else { z })
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + (self.next() >> 11) % (hi - lo + 1)
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[(self.next() >> 11) as usize % items.len()]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.range(1, 100) <= percent
    }
}

const FIELDS: &[&str] = &[
    "score", "size", "count", "priority", "age", "weight", "total", "rank",
];
const NAMES: &[&str] = &["name", "title", "label", "path", "owner", "kind", "status"];
const ENTITY_TYPES: &[&str] = &[
    "issue", "file", "person", "service", "dataset", "incident", "release",
];
const CHANNELS: &[&str] = &["#alerts", "#eng", "#release", "#data", "#oncall"];
const STATES: &[&str] = &["open", "closed", "all"];
const MODES: &[&str] = &["full", "summary", "diff", "audit"];
const DIRS: &[&str] = &["data", "reports", "logs", "config", "exports", "docs"];
const TABLES: &[&str] = &[
    "orders",
    "users",
    "events",
    "invoices",
    "deployments",
    "tickets",
];
const FILES: &[&[&str]] = &[
    &["README.md", "CHANGELOG.md", "LICENSE"],
    &["a.json", "b.json", "c.json", "d.json"],
    &["src/index.ts", "src/main.ts", "package.json"],
    &["2024-01.csv", "2024-02.csv", "2024-03.csv"],
    &["users.json", "teams.json"],
];

/// The program text being written.
struct Out(String);

impl Out {
    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.0.push_str("  ");
        }
        self.0.push_str(text);
        self.0.push('\n');
    }
}

struct Gen {
    rng: Rng,
    out: Out,
    step: u64,
    /// Array-valued bindings earlier steps made (most recent last).
    arrays: Vec<String>,
    /// String-valued bindings earlier steps made.
    strings: Vec<String>,
    /// Number-valued bindings earlier steps made.
    numbers: Vec<String>,
    /// Every binding the final `return` may mention, in order.
    results: Vec<String>,
}

/// Each step template; `step` dispatches by weight.
#[derive(Clone, Copy)]
enum Step {
    ReadParseChain,
    Branch,
    Switch,
    Ternary,
    PromiseAll,
    Sequence,
    PromiseAllMap,
    ForOf,
    Constants,
    Stats,
    WriteReport,
    TryCatch,
    Query,
}

const STEPS: &[(Step, u64)] = &[
    (Step::ReadParseChain, 11),
    (Step::Branch, 11),
    (Step::Switch, 5),
    (Step::Ternary, 5),
    (Step::PromiseAll, 20),
    (Step::Sequence, 18),
    (Step::PromiseAllMap, 6),
    (Step::ForOf, 7),
    (Step::Constants, 4),
    (Step::Stats, 4),
    (Step::WriteReport, 6),
    (Step::TryCatch, 4),
    (Step::Query, 4),
];

impl Gen {
    fn new(seed: u64) -> Self {
        Gen {
            rng: Rng::new(seed),
            out: Out(String::new()),
            step: 0,
            arrays: Vec::new(),
            strings: Vec::new(),
            numbers: Vec::new(),
            results: Vec::new(),
        }
    }

    /// A recent array binding, or a fresh read when none exists yet.
    fn recent(pool: &[String], rng: &mut Rng) -> Option<String> {
        if pool.is_empty() {
            return None;
        }
        let window = pool.len().min(24) as u64;
        let back = rng.range(1, window) as usize;
        Some(pool[pool.len() - back].clone())
    }

    fn array(&mut self) -> String {
        Self::recent(&self.arrays, &mut self.rng).unwrap_or_else(|| "args.items".to_string())
    }

    fn string(&mut self) -> String {
        Self::recent(&self.strings, &mut self.rng).unwrap_or_else(|| "args.label".to_string())
    }

    fn number(&mut self) -> String {
        Self::recent(&self.numbers, &mut self.rng).unwrap_or_else(|| "args.limit".to_string())
    }

    fn field(&mut self) -> &'static str {
        self.rng.pick(FIELDS)
    }

    fn name(&mut self) -> &'static str {
        self.rng.pick(NAMES)
    }

    fn prologue(&mut self) {
        self.out.line(0, "// Generated by `cargo xtask gen`: a synthetic agent program for benchmarks. Do not edit.");
        self.out.line(0, "if (args.dryRun) {");
        self.out
            .line(1, "return { skipped: true, reason: \"dry run\" };");
        self.out.line(0, "}");
        self.out
            .line(0, "const root = args.root ?? \"/workspace\";");
        self.out.line(0, "const started = Date.now();");
    }

    fn epilogue(&mut self) {
        let n = self.results.len();
        let keep: Vec<String> = self.results[n.saturating_sub(8)..].to_vec();
        self.out.line(0, "return {");
        self.out.line(1, "ok: true,");
        self.out.line(1, &format!("steps: {},", self.step));
        self.out.line(1, "elapsedMs: Date.now() - started,");
        for r in keep {
            self.out.line(1, &format!("{r},"));
        }
        self.out.line(0, "};");
    }

    fn step(&mut self) {
        self.step += 1;
        let total: u64 = STEPS.iter().map(|(_, w)| w).sum();
        let mut roll = self.rng.range(1, total);
        let mut chosen = STEPS[0].0;
        for &(s, w) in STEPS {
            if roll <= w {
                chosen = s;
                break;
            }
            roll -= w;
        }
        let n = self.step;
        self.out.0.push('\n');
        match chosen {
            Step::ReadParseChain => self.read_parse_chain(n),
            Step::Branch => self.branch(n),
            Step::Switch => self.switch(n),
            Step::Ternary => self.ternary(n),
            Step::PromiseAll => self.promise_all(n),
            Step::Sequence => self.sequence(n),
            Step::PromiseAllMap => self.promise_all_map(n),
            Step::ForOf => self.for_of(n),
            Step::Constants => self.constants(n),
            Step::Stats => self.stats(n),
            Step::WriteReport => self.write_report(n),
            Step::TryCatch => self.try_catch(n),
            Step::Query => self.query(n),
        }
    }

    fn read_parse_chain(&mut self, n: u64) {
        let dir = self.rng.pick(DIRS);
        let f = self.field();
        let nm = self.name();
        let k = self.rng.range(1, 9);
        self.out.line(
            0,
            &format!("// step {n}: load {dir}/f{n}.json and rank it by {f}"),
        );
        self.out.line(0, &format!("const f{n} = await mcp.filesystem.read_text_file({{ path: root + \"/{dir}/f{n}.json\" }});"));
        let mut chain = format!("const items{n} = JSON.parse(f{n}.content).items");
        let _ = write!(
            chain,
            "\n  .filter((it) => it.{f} > {k} && it.{nm} !== undefined)"
        );
        if self.rng.chance(60) {
            let g = self.field();
            let _ = write!(
                chain,
                "\n  .map((it) => ({{ id: it.id, {nm}: String(it.{nm}).toLowerCase(), {f}: it.{f} * {m}, {g}: it.{g} ?? 0 }}))",
                m = self.rng.range(2, 5)
            );
        } else {
            let _ = write!(
                chain,
                "\n  .map((it) => ({{ ...it, tag: `{dir}-${{it.id}}` }}))"
            );
        }
        if self.rng.chance(70) {
            let _ = write!(chain, "\n  .sort((a, b) => b.{f} - a.{f})");
        }
        if self.rng.chance(40) {
            let _ = write!(chain, "\n  .slice(0, {})", self.rng.range(5, 50));
        }
        chain.push(';');
        self.out.line(0, &chain);
        if self.rng.chance(45) {
            self.out.line(0, &format!("await mcp.filesystem.write_file({{ path: root + \"/{dir}/f{n}.ranked.json\", content: JSON.stringify(items{n}) }});"));
        }
        self.arrays.push(format!("items{n}"));
        self.results.push(format!("items{n}"));
    }

    fn branch(&mut self, n: u64) {
        let xs = self.array();
        let k = self.rng.range(1, 10);
        let ty = self.rng.pick(ENTITY_TYPES);
        let nm = self.name();
        let ch = self.rng.pick(CHANNELS);
        self.out.line(
            0,
            &format!("// step {n}: remember the interesting {ty}s, or say there are none"),
        );
        self.out.line(0, &format!("let stored{n} = 0;"));
        self.out.line(0, &format!("if ({xs}.length > {k}) {{"));
        self.out.line(
            1,
            &format!("const created{n} = await mcp.memory.create_entities({{"),
        );
        self.out
            .line(2, &format!("entities: {xs}.slice(0, {k}).map((e) => ({{"));
        self.out.line(3, &format!("name: `{ty}-${{e.id}}`,"));
        self.out.line(3, &format!("entityType: \"{ty}\","));
        self.out.line(
            3,
            &format!("observations: [`{nm}: ${{e.{nm}}}`, \"source: step {n}\"],"),
        );
        self.out.line(2, "})),");
        self.out.line(1, "});");
        self.out.line(1, &format!("stored{n} = created{n}.length;"));
        if self.rng.chance(50) {
            let rel = self
                .rng
                .pick(&["depends_on", "mentions", "owned_by", "blocks"]);
            self.out.line(1, &format!("await mcp.memory.create_relations({{ relations: [{{ from: `{ty}-${{{xs}[0].id}}`, to: args.project, relationType: \"{rel}\" }}] }});"));
        }
        if self.rng.chance(40) {
            let q = self.string();
            self.out
                .line(0, &format!("}} else if ({xs}.length === 0 && {q}) {{"));
            self.out.line(
                1,
                &format!(
                    "const found{n} = await mcp.memory.search_nodes({{ query: String({q}) }});"
                ),
            );
            self.out
                .line(1, &format!("stored{n} = found{n}.entities?.length ?? 0;"));
        }
        self.out.line(0, "} else {");
        self.out.line(1, &format!("await mcp.slack.post_message({{ channel_id: \"{ch}\", text: `only ${{{xs}.length}} {ty}s at step {n}` }});"));
        if self.rng.chance(30) {
            self.out.line(1, &format!("await mcp.notion[\"append-block\"]({{ page_id: args.page, text: `step {n}: nothing to store` }});"));
        }
        self.out.line(0, "}");
        self.numbers.push(format!("stored{n}"));
        self.results.push(format!("stored{n}"));
    }

    fn switch(&mut self, n: u64) {
        let modes = MODES;
        let xs = self.array();
        let st = self.rng.pick(STATES);
        self.out.line(
            0,
            &format!("// step {n}: what to fetch depends on the requested mode"),
        );
        self.out.line(0, &format!("let summary{n}: string;"));
        self.out.line(
            0,
            &format!("switch (args.mode ?? \"{}\") {{", modes[(n % 4) as usize]),
        );
        self.out.line(1, &format!("case \"{}\": {{", modes[0]));
        self.out.line(2, &format!("const issues{n} = await mcp.github.list_issues({{ owner: args.owner, repo: args.repo, state: \"{st}\", per_page: {} }});", self.rng.range(10, 100)));
        self.out.line(
            2,
            &format!(
                "summary{n} = issues{n}.map((i) => `#${{i.number}} ${{i.title}}`).join(\"\\n\");"
            ),
        );
        self.out.line(2, "break;");
        self.out.line(1, "}");
        self.out.line(1, &format!("case \"{}\":", modes[1]));
        self.out.line(2, &format!("summary{n} = (await mcp.memory.search_nodes({{ query: `${{{xs}.length}} entries` }})).entities.map((e) => e.name).join(\", \");"));
        self.out.line(2, "break;");
        self.out.line(1, &format!("case \"{}\": {{", modes[2]));
        self.out.line(2, &format!("const diff{n} = await mcp.github.get_pull_request_diff({{ owner: args.owner, repo: args.repo, pull_number: args.pr ?? {} }});", self.rng.range(1, 900)));
        self.out.line(2, &format!("summary{n} = diff{n}.split(\"\\n\").filter((l) => l.startsWith(\"+\")).length + \" added lines\";"));
        self.out.line(2, "break;");
        self.out.line(1, "}");
        self.out.line(1, "default:");
        self.out.line(
            2,
            &format!("summary{n} = \"mode not handled at step {n}\";"),
        );
        self.out.line(
            2,
            &format!(
                "await mcp.slack.post_message({{ channel_id: \"#oncall\", text: summary{n} }});"
            ),
        );
        self.out.line(0, "}");
        self.strings.push(format!("summary{n}"));
        self.results.push(format!("summary{n}"));
    }

    fn ternary(&mut self, n: u64) {
        let xs = self.array();
        let lo = self.rng.range(1, 5);
        let hi = lo + self.rng.range(5, 20);
        let f = self.field();
        self.out.line(0, &format!("// step {n}: label the batch"));
        self.out.line(0, &format!("const label{n} = {xs}.length > {hi} ? \"many\" : {xs}.length > {lo} ? \"some\" : \"few\";"));
        self.out.line(
            0,
            &format!("const top{n} = {xs}.length ? {xs}[0].{f} : null;"),
        );
        self.out.line(
            0,
            &format!(
                "const title{n} = `${{label{n}}} (${{{xs}.length}}) top ${{top{n} ?? \"-\"}}`;"
            ),
        );
        let ch = self.rng.pick(CHANNELS);
        self.out.line(0, &format!("await mcp.slack.post_message({{ channel_id: label{n} === \"many\" ? \"{ch}\" : \"#digest\", text: title{n} }});"));
        if self.rng.chance(60) {
            self.out.line(0, &format!("const more{n} = label{n} === \"few\" ? await mcp.memory.read_graph({{}}) : await mcp.github.list_issues({{ owner: args.owner, repo: args.repo, state: \"open\", per_page: {} }});", self.rng.range(5, 50)));
        }
        self.strings.push(format!("title{n}"));
        self.results.push(format!("label{n}"));
    }

    fn promise_all(&mut self, n: u64) {
        let k = self.rng.range(2, 6) as usize;
        // Pick k distinct fetchers, keeping their order.
        let mut chosen: Vec<usize> = Vec::new();
        while chosen.len() < k {
            let i = self.rng.range(0, 6) as usize;
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
        chosen.sort_unstable();
        let names = ["issues", "pulls", "hits", "cfg", "nodes", "page", "rows"];
        let bindings = chosen
            .iter()
            .map(|&i| format!("{}{n}", names[i]))
            .collect::<Vec<_>>()
            .join(", ");
        self.out.line(0, &format!("// step {n}: fetch in parallel"));
        self.out
            .line(0, &format!("const [{bindings}] = await Promise.all(["));
        for &i in &chosen {
            let call = match i {
                0 => format!(
                    "mcp.github.list_issues({{ owner: args.owner, repo: args.repo, state: \"{}\", labels: [\"{}\"] }}),",
                    self.rng.pick(STATES),
                    self.rng.pick(&["bug", "enhancement", "security", "docs", "good first issue"])
                ),
                1 => format!(
                    "mcp.github.list_pull_requests({{ owner: args.owner, repo: args.repo, state: \"{}\", sort: \"updated\" }}),",
                    self.rng.pick(STATES)
                ),
                2 => {
                    let q = self.string();
                    format!("mcp.github.search_code({{ q: `${{{q}}} repo:${{args.owner}}/${{args.repo}}`, per_page: {} }}),", self.rng.range(5, 30))
                }
                3 => format!("mcp.filesystem.read_text_file({{ path: root + \"/{}/settings-{n}.json\" }}),", self.rng.pick(DIRS)),
                4 => format!("mcp.memory.search_nodes({{ query: \"{}\" }}),", self.rng.pick(ENTITY_TYPES)),
                5 => format!("mcp.fetch.fetch({{ url: `https://status.example.com/api/${{args.env ?? \"prod\"}}/{n}`, max_length: 5000 }}),"),
                _ => format!("mcp.postgres.query({{ sql: \"SELECT id, status FROM {} LIMIT {}\" }}),", self.rng.pick(TABLES), self.rng.range(10, 200)),
            };
            self.out.line(1, &call);
        }
        self.out.line(0, "]);");
        if chosen.contains(&0) {
            self.out.line(0, &format!("const stale{n} = issues{n}.filter((i) => Date.parse(i.updated_at) < started - {} * 24 * 3600 * 1000);", self.rng.range(7, 90)));
            self.arrays.push(format!("issues{n}"));
            self.arrays.push(format!("stale{n}"));
            self.results.push(format!("stale{n}"));
        }
        if chosen.contains(&1) {
            self.arrays.push(format!("pulls{n}"));
            self.results.push(format!("pulls{n}"));
        }
        if chosen.contains(&6) {
            self.arrays.push(format!("rows{n}.rows"));
        }
        if chosen.contains(&5) {
            self.strings.push(format!("page{n}.content"));
        }
    }

    fn sequence(&mut self, n: u64) {
        let num = self.number();
        let label = self
            .rng
            .pick(&["triaged", "needs-info", "stale", "p1", "wontfix"]);
        self.out.line(0, &format!("// step {n}: triage one issue"));
        self.out.line(0, &format!("const issue{n} = await mcp.github.get_issue({{ owner: args.owner, repo: args.repo, issue_number: Number({num}) || {} }});", self.rng.range(1, 5000)));
        self.out.line(0, &format!("const labels{n} = issue{n}.labels.map((l) => l.name).filter((l) => l !== \"{label}\");"));
        self.out.line(0, &format!("await mcp.github.update_issue({{ owner: args.owner, repo: args.repo, issue_number: issue{n}.number, labels: [...labels{n}, \"{label}\"] }});"));
        if self.rng.chance(25) {
            self.out.line(0, &format!("const gist{n} = await capabilities.summarize_text({{ text: issue{n}.body ?? issue{n}.title, maxWords: {} }});", self.rng.range(20, 80)));
            self.strings.push(format!("gist{n}.text"));
        }
        if self.rng.chance(80) {
            self.out.line(0, &format!("await mcp.memory.add_observations({{ observations: [{{ entityName: `issue-${{issue{n}.number}}`, contents: [issue{n}.title, \"{label}\"] }}] }});"));
        }
        if self.rng.chance(60) {
            self.out.line(0, &format!("await mcp.github.add_issue_comment({{ owner: args.owner, repo: args.repo, issue_number: issue{n}.number, body: `Labelled {label} (${{labels{n}.length}} other labels).` }});"));
        }
        self.arrays.push(format!("labels{n}"));
        self.results.push(format!("labels{n}"));
    }

    fn promise_all_map(&mut self, n: u64) {
        let files = self.rng.pick(FILES);
        let dir = self.rng.pick(DIRS);
        let list = files
            .iter()
            .map(|f| format!("\"{f}\""))
            .collect::<Vec<_>>()
            .join(", ");
        self.out.line(
            0,
            &format!("// step {n}: read a fixed set of files at once"),
        );
        if self.rng.chance(50) {
            self.out.line(0, &format!("const docs{n} = await Promise.all([{list}].map((p) => mcp.filesystem.read_text_file({{ path: `${{root}}/{dir}/${{p}}` }})));"));
        } else {
            self.out
                .line(0, &format!("const docs{n} = await Promise.all("));
            self.out.line(1, &format!("[{list}].map(async (p) => {{"));
            self.out.line(2, &format!("const info = await mcp.filesystem.get_file_info({{ path: root + \"/{dir}/\" + p }});"));
            self.out.line(
                2,
                "return { path: p, size: info.size, modified: info.modified };",
            );
            self.out.line(1, "}),");
            self.out.line(0, ");");
        }
        self.out.line(
            0,
            &format!(
                "const sizes{n} = docs{n}.map((d) => (d.content ?? \"\").length + (d.size ?? 0));"
            ),
        );
        self.arrays.push(format!("docs{n}"));
        self.results.push(format!("sizes{n}"));
    }

    fn for_of(&mut self, n: u64) {
        let xs = self.array();
        let lim = self.rng.range(3, 12);
        let f = self.field();
        let k = self.rng.range(1, 20);
        self.out.line(
            0,
            &format!("// step {n}: walk the first few entries one by one"),
        );
        self.out.line(0, &format!("const notes{n}: string[] = [];"));
        self.out.line(
            0,
            &format!("for (const entry{n} of {xs}.slice(0, {lim})) {{"),
        );
        match self.rng.range(0, 2) {
            0 => {
                self.out.line(1, &format!("const detail{n} = await mcp.github.get_issue({{ owner: args.owner, repo: args.repo, issue_number: entry{n}.number ?? entry{n}.id }});"));
                self.out
                    .line(1, &format!("if (detail{n}.comments > {k}) {{"));
                self.out.line(2, &format!("await mcp.github.add_issue_comment({{ owner: args.owner, repo: args.repo, issue_number: detail{n}.number, body: `Busy thread (${{detail{n}.comments}} comments), summarised at step {n}.` }});"));
                self.out.line(1, "}");
                self.out
                    .line(1, &format!("notes{n}.push(detail{n}.title);"));
            }
            1 => {
                self.out.line(
                    1,
                    &format!("if (!entry{n}.{f} || entry{n}.{f} < {k}) continue;"),
                );
                self.out.line(1, &format!("const page{n} = await mcp.fetch.fetch({{ url: `https://api.example.com/v1/items/${{entry{n}.id}}`, max_length: {} }});", self.rng.range(1, 20) * 1000));
                self.out.line(
                    1,
                    &format!(
                        "notes{n}.push(page{n}.content.slice(0, {}));",
                        self.rng.range(40, 200)
                    ),
                );
                self.out.line(1, &format!("await mcp.filesystem.write_file({{ path: `${{root}}/cache/${{entry{n}.id}}.html`, content: page{n}.content }});"));
            }
            _ => {
                self.out.line(1, &format!("const listing{n} = await mcp.filesystem.list_directory({{ path: `${{root}}/${{entry{n}.path ?? entry{n}.id}}` }});"));
                self.out.line(1, &format!("for (const child{n} of listing{n}.entries.filter((e) => e.type === \"file\")) {{"));
                self.out.line(2, &format!("notes{n}.push(child{n}.name);"));
                self.out.line(2, &format!("if (child{n}.name.endsWith(\".json\")) await mcp.filesystem.get_file_info({{ path: `${{root}}/${{child{n}.name}}` }});"));
                self.out.line(1, "}");
                self.out.line(
                    1,
                    &format!("if (notes{n}.length > {}) break;", self.rng.range(10, 100)),
                );
            }
        }
        self.out.line(0, "}");
        self.arrays.push(format!("notes{n}"));
        self.results.push(format!("notes{n}"));
    }

    fn constants(&mut self, n: u64) {
        let a = self.rng.range(2, 60);
        let b = self.rng.range(2, 24);
        let c = self.rng.range(1, 9);
        let dir = self.rng.pick(DIRS);
        self.out
            .line(0, &format!("// step {n}: settings for the next batch"));
        self.out
            .line(0, &format!("const batch{n} = {a} * {b} + {c};"));
        self.out.line(
            0,
            &format!("const timeout{n} = 1000 * 60 * {};", self.rng.range(1, 30)),
        );
        self.out.line(
            0,
            &format!(
                "const prefix{n} = \"{dir}\" + \"/\" + \"batch-\" + {};",
                self.rng.range(1, 999)
            ),
        );
        self.out
            .line(0, &format!("const ratio{n} = (batch{n} - {c}) / {b};"));
        {
            self.out.line(0, &format!("const listing{n} = await mcp.filesystem.search_files({{ path: root + \"/\" + prefix{n}, pattern: \"*.json\", excludePatterns: [\"node_modules\", \".git\"] }});"));
            self.out.line(0, &format!("const picked{n} = listing{n}.slice(0, batch{n}).map((p) => ({{ path: p, budget: timeout{n} / batch{n} }}));"));
            self.arrays.push(format!("picked{n}"));
        }
        self.numbers.push(format!("batch{n}"));
        self.numbers.push(format!("ratio{n}"));
        self.strings.push(format!("prefix{n}"));
        self.results.push(format!("ratio{n}"));
    }

    fn stats(&mut self, n: u64) {
        let xs = self.array();
        let f = self.field();
        let nm = self.name();
        let num = self.number();
        self.out.line(0, &format!("// step {n}: aggregate by {nm}"));
        self.out.line(
            0,
            &format!("const groups{n}: Record<string, number> = {{}};"),
        );
        self.out.line(0, &format!("for (const row{n} of {xs}) groups{n}[String(row{n}.{nm})] = (groups{n}[String(row{n}.{nm})] ?? 0) + (row{n}.{f} ?? 1);"));
        self.out.line(
            0,
            &format!("const keys{n} = Object.keys(groups{n}).sort();"),
        );
        self.out.line(
            0,
            &format!("const max{n} = Math.max(0, ...Object.values(groups{n}));"),
        );
        self.out.line(0, &format!("const mean{n} = keys{n}.length ? {xs}.reduce((acc, r) => acc + (r.{f} ?? 0), 0) / keys{n}.length : 0;"));
        self.out.line(0, &format!("const over{n} = keys{n}.filter((k) => groups{n}[k] > Math.min(max{n}, Number({num}) || {}));", self.rng.range(2, 50)));
        {
            self.out.line(0, &format!("if (over{n}.length) await mcp.memory.add_observations({{ observations: over{n}.map((k) => ({{ entityName: k, contents: [`{f} ${{groups{n}[k]}} (max ${{max{n}}}, mean ${{mean{n}.toFixed(2)}})`] }})) }});"));
        }
        self.out.line(0, &format!("await mcp.filesystem.write_file({{ path: `${{root}}/stats/{nm}-{n}.json`, content: JSON.stringify({{ keys: keys{n}, max: max{n}, mean: mean{n} }}) }});"));
        self.arrays.push(format!("over{n}"));
        self.numbers.push(format!("max{n}"));
        self.numbers.push(format!("mean{n}"));
        self.results.push(format!("max{n}"));
    }

    fn write_report(&mut self, n: u64) {
        let xs = self.array();
        let s = self.string();
        let num = self.number();
        let dir = self.rng.pick(DIRS);
        let lim = self.rng.range(5, 40);
        self.out.line(0, &format!("// step {n}: write the report"));
        self.out.line(0, &format!("const report{n} = {{"));
        self.out.line(1, &format!("id: \"report-{n}\","));
        self.out.line(1, &format!("summary: {{ total: {xs}.length, label: {s}, threshold: {num}, generated: {{ by: \"agent\", run: args.runId, step: {n} }} }},"));
        self.out.line(
            1,
            &format!(
                "items: {xs}.slice(0, {lim}).map((x) => ({{ id: x.id, value: x.{} ?? null }})),",
                self.rng.pick(FIELDS)
            ),
        );
        self.out.line(
            1,
            &format!(
                "tags: [\"{dir}\", args.env ?? \"dev\", `v${{args.version ?? {}}}`],",
                self.rng.range(1, 9)
            ),
        );
        self.out.line(0, "};");
        self.out.line(0, &format!("await mcp.filesystem.write_file({{ path: `${{root}}/{dir}/report-{n}.json`, content: JSON.stringify(report{n}, null, 2) }});"));
        if self.rng.chance(70) {
            let ch = self.rng.pick(CHANNELS);
            self.out.line(0, &format!("await mcp.slack.post_message({{ channel_id: \"{ch}\", text: `report-{n}: ${{report{n}.summary.total}} items`, blocks: [{{ type: \"section\", text: {{ type: \"mrkdwn\", text: `*${{report{n}.id}}*` }} }}] }});"));
        }
        self.results.push(format!("report{n}"));
    }

    fn try_catch(&mut self, n: u64) {
        let dir = self.rng.pick(DIRS);
        self.out
            .line(0, &format!("// step {n}: optional config, with a fallback"));
        self.out.line(
            0,
            &format!("let config{n}: {{ limit: number; tags: string[] }};"),
        );
        self.out.line(0, "try {");
        self.out.line(1, &format!("const raw{n} = await mcp.filesystem.read_text_file({{ path: `${{root}}/{dir}/config-{n}.json` }});"));
        self.out.line(
            1,
            &format!(
                "config{n} = JSON.parse(raw{n}.content) as {{ limit: number; tags: string[] }};"
            ),
        );
        self.out.line(0, &format!("}} catch (err{n}) {{"));
        self.out.line(1, &format!("await mcp.slack.post_message({{ channel_id: \"#oncall\", text: `config-{n} unreadable: ${{String(err{n})}}` }});"));
        self.out.line(
            1,
            &format!(
                "config{n} = {{ limit: {}, tags: [] }};",
                self.rng.range(5, 100)
            ),
        );
        self.out.line(0, "}");
        self.numbers.push(format!("config{n}.limit"));
        self.results.push(format!("config{n}"));
    }

    fn query(&mut self, n: u64) {
        let t = self.rng.pick(TABLES);
        let num = self.number();
        let days = self.rng.range(1, 60);
        self.out
            .line(0, &format!("// step {n}: numbers from the warehouse"));
        self.out
            .line(0, &format!("const rows{n} = (await mcp.postgres.query({{"));
        self.out.line(1, &format!("sql: `SELECT id, status, total FROM {t} WHERE created_at > now() - interval '{days} days' LIMIT ${{Number({num}) || {}}}`,", self.rng.range(10, 500)));
        self.out.line(
            0,
            "})).rows as Array<{ id: number; status: string; total: number }>;",
        );
        self.out.line(
            0,
            &format!("const byStatus{n} = new Map<string, number>();"),
        );
        self.out.line(0, &format!("for (const r{n} of rows{n}) byStatus{n}.set(r{n}.status, (byStatus{n}.get(r{n}.status) ?? 0) + r{n}.total);"));
        self.out.line(0, &format!("const worst{n} = [...byStatus{n}.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? \"none\";"));
        self.arrays.push(format!("rows{n}"));
        if self.rng.chance(60) {
            self.out.line(0, &format!("await mcp.slack.post_message({{ channel_id: \"#data\", text: `{t}: worst status ${{worst{n}}}` }});"));
        }
        self.strings.push(format!("worst{n}"));
        self.results.push(format!("worst{n}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_prefix_stable() {
        let a = generate(20_000, 7);
        assert_eq!(a, generate(20_000, 7));
        assert_ne!(a, generate(20_000, 8));
        let long = generate(80_000, 7);
        let cut = a.rfind("\nreturn {").unwrap();
        assert!(long.starts_with(&a[..cut]));
    }

    #[test]
    fn size_and_calls() {
        let p = generate(50_000, DEFAULT_SEED);
        let s = stats(&p);
        assert!(s.bytes >= 50_000 && s.bytes < 52_000, "{s:?}");
        assert!(s.mcp_calls > 100, "{s:?}");
    }

    #[test]
    fn call_site_counting() {
        let s =
            stats("await mcp.a.b({}); xmcp.a.b(); mcp.a(); mcp.a.b; foo.mcp.a.b();\nmcp.fs.read()");
        assert_eq!(s.mcp_calls, 2);
        assert_eq!(
            stats("mcp.n[\"a-b\"]({}); mcp.n[\"a\"]; mcp.n[x]()").mcp_calls,
            1
        );
    }

    /// The benchmark programs exercise every part of the builder; building one on two threads
    /// (as `pml analyze` does from 64 KiB on) must give what one thread gives.
    #[test]
    fn two_threads_build_the_same_structure() {
        for seed in [DEFAULT_SEED, 7, 99] {
            let code = generate(120_000, seed);
            let build = |one_thread| {
                let options = pml::AnalyzeOptions {
                    one_thread,
                    ..Default::default()
                };
                let ret = pml::analyze(&code, &options);
                assert!(
                    !ret.structure.has_errors(),
                    "{:?}",
                    ret.structure.diagnostics
                );
                serde_json::to_string(&ret.structure).unwrap()
            };
            assert_eq!(build(true), build(false), "seed {seed}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("360k").unwrap(), 360_000);
        assert_eq!(parse_size("1.5M").unwrap(), 1_500_000);
        assert_eq!(parse_size("42").unwrap(), 42);
        assert!(parse_size("x").is_err());
    }
}
