//! Shared helpers: installing the reference servers, configs, temp dirs, process checks.

use std::fs::File;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pml_mcp::{ClientOptions, McpClients, McpConfig, ServerConfig, DEFAULT_CONFIG_TEMPLATE};

pub fn mcp_servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../mcp-servers")
        .canonicalize()
        .expect("mcp-servers/ exists next to crates/")
}

/// `mcp-servers/node_modules`, installed with `npm ci` on first use when missing or stale.
/// Guarded by a file lock, since a test runner may run tests in several processes.
pub fn node_modules() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let dir = mcp_servers_dir();
            if !installed(&dir) {
                let lock_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-servers-npm.lock");
                let lock = File::create(&lock_path).expect("create the npm lock file");
                lock.lock().expect("lock the npm lock file");
                if !installed(&dir) {
                    let status = Command::new("npm")
                        .arg("ci")
                        .arg("--prefix")
                        .arg(&dir)
                        .status()
                        .expect("run `npm ci` (is Node/npm installed?)");
                    assert!(
                        status.success(),
                        "`npm ci --prefix {}` failed",
                        dir.display()
                    );
                }
                assert!(installed(&dir), "npm ci did not install the pinned servers");
            }
            dir.join("node_modules")
        })
        .clone()
}

/// Every dependency pinned in package.json is in node_modules at that version.
fn installed(dir: &Path) -> bool {
    let read = |p: PathBuf| -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
    };
    let Some(manifest) = read(dir.join("package.json")) else {
        return false;
    };
    let Some(deps) = manifest["dependencies"].as_object() else {
        return false;
    };
    deps.iter().all(|(name, version)| {
        read(dir.join("node_modules").join(name).join("package.json"))
            .is_some_and(|p| p["version"] == *version)
    })
}

/// A directory under the target dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("pml-mcp-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path.canonicalize().expect("canonical temp dir"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn str(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The shipped default config, filled in: filesystem rooted at `root`, memory in `scratch`.
pub fn reference_config(root: &TempDir, scratch: &TempDir) -> McpConfig {
    let modules = node_modules();
    let mut config = McpConfig::from_json(DEFAULT_CONFIG_TEMPLATE).expect("template parses");
    config
        .expand(&[
            ("ROOT", root.str()),
            ("MCP_SERVERS", modules.to_str().expect("utf-8 path")),
            ("SCRATCH", scratch.str()),
        ])
        .expect("template expands");
    config
}

/// `node mcp-servers/misbehaving-server.mjs FLAGS...`
pub fn misbehaving(flags: &[&str]) -> ServerConfig {
    let script = mcp_servers_dir().join("misbehaving-server.mjs");
    let mut args = vec![script.to_string_lossy().into_owned()];
    args.extend(flags.iter().map(|f| (*f).to_owned()));
    ServerConfig {
        command: "node".into(),
        args,
        ..ServerConfig::default()
    }
}

pub fn clients(servers: Vec<(&str, ServerConfig)>, options: ClientOptions) -> McpClients {
    let config = McpConfig {
        servers: servers
            .into_iter()
            .map(|(n, s)| (n.to_owned(), s))
            .collect(),
        ignored: Vec::new(),
        origin: None,
    };
    McpClients::new(config, options)
}

/// Short limits so fault tests finish fast.
pub fn quick() -> ClientOptions {
    ClientOptions {
        call_timeout: Duration::from_secs(20),
        start_timeout: Duration::from_secs(20),
        shutdown_grace: Duration::from_millis(500),
        restart: false,
    }
}

/// `kill(pid, 0)` succeeds: the pid names a process (possibly a zombie).
pub fn pid_exists(pid: u32) -> bool {
    let pid = i32::try_from(pid).expect("pid fits i32");
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// A process that exited but was not reaped by its parent (here, a grandchild whose new
/// parent may not reap): dead for our purposes.
pub fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .map(|rest| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Our own child must be gone entirely (reaped): `kill(pid, 0)` fails.
pub async fn assert_gone(pid: u32, within: Duration) {
    let start = Instant::now();
    while pid_exists(pid) {
        assert!(
            start.elapsed() < within,
            "process {pid} still exists {within:?} later"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A grandchild must not be running (gone, or a zombie its new parent has not reaped yet).
pub async fn assert_not_running(pid: u32, within: Duration) {
    let start = Instant::now();
    while pid_exists(pid) && !is_zombie(pid) {
        assert!(
            start.elapsed() < within,
            "process {pid} still runs {within:?} later"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Fail instead of hanging the suite.
pub async fn within<T>(secs: u64, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .unwrap_or_else(|_| panic!("test did not finish within {secs} s"))
}

#[track_caller]
pub fn assert_contains(haystack: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            haystack.contains(needle),
            "expected {needle:?} in:\n{haystack}"
        );
    }
}
