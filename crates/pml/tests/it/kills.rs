//! A journal that survives any kill: `pml run` killed with SIGKILL at random instants, then
//! `pml run --resume`, must end with the uninterrupted run's result and the servers' final
//! state, on SQLite and on PostgreSQL (`PML_TEST_POSTGRES_URL`, set by
//! `scripts/with-postgres.sh`).
//!
//! The program mixes parallel reads, an idempotent write whose content comes from a read
//! (`write_file`), a non-idempotent write (`edit_file`, in a helper), a read-only wait on a
//! second server, a capability call whose nested run makes a non-idempotent `move_file`, and
//! reads of the clock. A kill that lands
//! while a non-idempotent call is in flight leaves a call that may or may not have happened:
//! resuming refuses until told, and the test tells what the servers' state shows (it did not
//! happen: `rerun`). When the state shows it did happen, no choice can give the uninterrupted
//! result (its answer is lost): that kill point is checked for the refusal and for `skip`
//! repeating nothing, and another instant is drawn.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const PROGRAM: &str = r#"const dir = args.dir;
const note = async (line) => {
  await mcp.filesystem.edit_file({
    path: `${dir}/log.txt`,
    edits: [{ oldText: "end", newText: `${line}\nend` }],
  });
};
const started = Date.now();
for (let i = 1; i <= 4; i++) {
  const [counter, log] = await Promise.all([
    mcp.filesystem.read_text_file({ path: `${dir}/counter.txt` }),
    mcp.filesystem.read_text_file({ path: `${dir}/log.txt` }),
  ]);
  const n = Number(counter.content) + 1;
  await mcp.filesystem.write_file({ path: `${dir}/counter.txt`, content: String(n) });
  await note(`step ${n} after ${log.content.split("\n").length} lines`);
  await mcp.everything["trigger-long-running-operation"]({ duration: 0.15, steps: 1 });
}
const archived = await capabilities.archive({ dir });
const [final, log] = await Promise.all([
  mcp.filesystem.read_text_file({ path: `${dir}/final.txt` }),
  mcp.filesystem.read_text_file({ path: `${dir}/log.txt` }),
]);
return { final: final.content, log: log.content, archived, clockRead: Date.now() >= started };
"#;

/// A capability the program calls: its move is a non-idempotent write made in a nested run.
const ARCHIVE: &str = r#"await mcp.filesystem.move_file({
  source: `${args.dir}/counter.txt`,
  destination: `${args.dir}/final.txt`,
});
const listed = await mcp.filesystem.list_directory({ path: args.dir });
return listed.content.split("\n").length;
"#;

/// Kill points that must compare equal, per store.
const POINTS: usize = 32;

/// One run's world: its data folder (what the servers change), its config, its program.
struct World {
    _dir: tempfile::TempDir,
    data: PathBuf,
    config: PathBuf,
    program: PathBuf,
    store: String,
}

impl World {
    fn new(store: impl FnOnce(&Path) -> String) -> World {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let data = data.canonicalize().unwrap();
        std::fs::write(data.join("counter.txt"), "0").unwrap();
        std::fs::write(data.join("log.txt"), "end").unwrap();
        let modules = pml::servers::mcp_servers_dir().join("node_modules/@modelcontextprotocol");
        let config = dir.path().join("mcp.json");
        let json = serde_json::json!({ "mcpServers": {
            "filesystem": {
                "command": "node",
                "args": [modules.join("server-filesystem/dist/index.js"), &data],
            },
            "everything": {
                "command": "node",
                "args": [modules.join("server-everything/dist/index.js"), "stdio"],
            },
        } });
        std::fs::write(&config, json.to_string()).unwrap();
        let program = dir.path().join("bump.ts");
        std::fs::write(&program, PROGRAM).unwrap();
        let store = store(dir.path());
        let archive = dir.path().join("archive.ts");
        std::fs::write(&archive, ARCHIVE).unwrap();
        let saved = Command::new(env!("CARGO_BIN_EXE_pml"))
            .arg("save")
            .arg(&archive)
            .args(["--name", "archive"])
            .env("PML_STORE", &store)
            .output()
            .unwrap();
        assert!(saved.status.success(), "{saved:?}");
        World {
            _dir: dir,
            data,
            config,
            program,
            store,
        }
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pml"));
        command
            .arg("run")
            .arg(&self.program)
            .arg("--mcp-config")
            .arg(&self.config)
            .args(extra)
            .env("PML_STORE", &self.store);
        command
    }

    fn args(&self) -> String {
        serde_json::json!({ "dir": self.data }).to_string()
    }

    fn run(&self, extra: &[&str]) -> (i32, Value, String) {
        let out = self.command(extra).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            serde_json::from_slice(&out.stdout).unwrap_or_default(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The files of the data folder, by name.
    fn state(&self) -> Vec<(String, String)> {
        crate::store::files_in(&self.data)
    }

    /// Waits until no process (the servers of a killed run) still serves the data folder:
    /// one could still be finishing a call.
    fn servers_gone(&self) {
        let marker = self.data.display().to_string();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let alive = std::fs::read_dir("/proc").unwrap().any(|e| {
                let path = e.unwrap().path().join("cmdline");
                std::fs::read(path).is_ok_and(|c| String::from_utf8_lossy(&c).contains(&marker))
            });
            if !alive {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the killed run's servers did not exit");
    }

    /// The run in the store, if the killed one got as far as recording its start: its id,
    /// and whether it was recorded finished (killed while it stopped its servers).
    fn killed_run(&self) -> Option<(String, bool)> {
        let out = Command::new(env!("CARGO_BIN_EXE_pml"))
            .args(["runs", "--json"])
            .env("PML_STORE", &self.store)
            .output()
            .unwrap();
        let runs: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let run = runs.as_array()?.first()?;
        Some((run["id"].as_str()?.to_owned(), run["finished"] == true))
    }
}

/// splitmix64: the kill instants, reproducible from the seed the test prints.
struct Instants(u64);

impl Instants {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A call found in flight on resume: tool and arguments, from the refusal's message.
fn uncertain_call(err: &str) -> (String, Value) {
    let after = err.split_once("call ").unwrap().1;
    let tool = after.split_once(" (").unwrap().1;
    let tool = tool.split([' ', ',']).next().unwrap().to_owned();
    let args = after.split_once("arguments ").unwrap().1;
    let args = args.split_once(") was in flight").unwrap().0;
    (tool, serde_json::from_str(args).unwrap())
}

/// Whether the in-flight call `tool` with `args` changed the data folder.
fn happened(world: &World, tool: &str, args: &Value) -> bool {
    match tool {
        "filesystem:edit_file" => {
            let log = std::fs::read_to_string(world.data.join("log.txt")).unwrap();
            let line = args["edits"][0]["newText"].as_str().unwrap();
            log.contains(line)
        }
        "filesystem:move_file" => world.data.join("final.txt").exists(),
        other => panic!("unexpected uncertain call {other}"),
    }
}

fn kills_resume_to_the_uninterrupted_end(store: &dyn Fn(&Path) -> String, label: &str) {
    let whole = World::new(store);
    let args = whole.args();
    let started = Instant::now();
    let (code, expected, err) = whole.run(&["--args", &args]);
    let duration = started.elapsed();
    assert_eq!(code, 0, "{err}");
    let expected_state = whole.state();
    assert_eq!(expected["result"]["final"], "4", "{}", expected["result"]);
    let seed = std::env::var("PML_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_u64);
    eprintln!("{label}: uninterrupted run {duration:?}; kill instants from seed {seed}");
    let mut instants = Instants(seed);
    let (mut compared, mut drawn, mut undecidable) = (0, 0, 0);
    let (mut unrecorded, mut reran) = (0, 0);
    while compared < POINTS {
        drawn += 1;
        assert!(
            drawn < POINTS * 3,
            "{label}: too many kill points fell outside the run"
        );
        let at = duration.mul_f64(instants.next());
        let world = World::new(store);
        let mut child = world
            .command(&["--args", &world.args()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        if child.try_wait().unwrap().is_some() {
            continue; // it ended first: not a kill
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        world.servers_gone();
        let what = format!("{label}: killed at {at:?} (point {drawn})");
        let Some((id, finished)) = world.killed_run() else {
            // Killed before the run was recorded: nothing went out.
            assert_eq!(
                world.state(),
                vec![
                    ("counter.txt".into(), "0".into()),
                    ("log.txt".into(), "end".into())
                ],
                "{what}"
            );
            compared += 1;
            unrecorded += 1;
            continue;
        };
        if finished {
            // Killed after it had ended: all it did is done.
            assert_eq!(world.state(), expected_state, "{what}");
            compared += 1;
            continue;
        }
        let (mut code, mut resumed, mut err) = world.run(&["--resume", &id]);
        if code == 2 && err.contains("--resume-uncertain") {
            let (tool, call_args) = uncertain_call(&err);
            if happened(&world, &tool, &call_args) {
                // Its answer is lost: skipping it fails the program's call, and nothing
                // before it runs again.
                let before = world.state();
                let (code, out, _) = world.run(&["--resume", &id, "--resume-uncertain", "skip"]);
                assert_eq!(code, 1, "{what}: {out}");
                assert!(
                    out["error"]
                        .as_str()
                        .unwrap()
                        .contains("may or may not have happened"),
                    "{what}: {out}"
                );
                assert_eq!(world.state(), before, "{what}: skip changed something");
                undecidable += 1;
                continue;
            }
            (code, resumed, err) = world.run(&["--resume", &id, "--resume-uncertain", "rerun"]);
            reran += 1;
        }
        assert_eq!(code, 0, "{what}: {err}");
        assert_eq!(resumed["result"], expected["result"], "{what}");
        assert_eq!(world.state(), expected_state, "{what}");
        compared += 1;
    }
    eprintln!(
        "{label}: {compared} kill points resumed to the uninterrupted end ({unrecorded} before the run was recorded, {reran} with a write in flight that had not happened); {undecidable} more left a write that happened with its answer lost"
    );
}

#[test]
fn killed_at_random_instants_runs_resume_to_the_same_end_on_sqlite() {
    kills_resume_to_the_uninterrupted_end(
        &|dir| dir.join("store.sqlite").display().to_string(),
        "sqlite",
    );
}

#[test]
fn killed_at_random_instants_runs_resume_to_the_same_end_on_postgres() {
    let Some(url) = crate::postgres::url() else {
        return;
    };
    kills_resume_to_the_uninterrupted_end(&|_| crate::postgres::fresh_database(&url), "postgres");
}
