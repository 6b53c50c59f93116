//! Which MCP servers a command talks to, and what they offer.
//!
//! `--mcp-config FILE`, else the project's `.mcp.json` (in the current directory or the nearest
//! parent that has one, as MCP clients look for it), else the reference servers of
//! `mcp-servers/`: the source tree's when pml runs from a clone, else installed from npm (the
//! pinned lock file is in the binary) into the per-user data folder on first use, so an
//! installed `pml` works from any directory. Config files may refer to environment variables
//! (`${VAR}`, `${VAR:-default}`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use pml_mcp::{ClientOptions, McpClients, McpConfig, ToolInfo, DEFAULT_CONFIG_TEMPLATE};
use serde_json::Value;

use crate::run::RunSetupError;
use crate::{read_source, InputError, ToolCatalog};

/// The file name of a project's server config.
pub const PROJECT_CONFIG: &str = ".mcp.json";

const PACKAGE_JSON: &str = include_str!("../../../mcp-servers/package.json");
const PACKAGE_LOCK: &str = include_str!("../../../mcp-servers/package-lock.json");

/// Each server's name and the tools it listed, in config order.
pub type Listings = Vec<(String, Vec<ToolInfo>)>;

/// Where a command's servers come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSource {
    /// A config file: the one given (`--mcp-config`) or the project's (`found`).
    File { path: PathBuf, found: bool },
    /// The built-in reference servers (filesystem, memory, everything).
    Reference,
}

impl ServerSource {
    /// `flag` when given, else the project's `.mcp.json` seen from the current directory,
    /// else the reference servers.
    pub fn choose(flag: Option<&Path>) -> ServerSource {
        ServerSource::choose_for(flag, None)
    }

    /// [`ServerSource::choose`] for the program `program`: without a project config seen
    /// from the current directory, the one seen from the program's folder.
    pub fn choose_for(flag: Option<&Path>, program: Option<&Path>) -> ServerSource {
        if let Some(path) = flag {
            return ServerSource::File {
                path: path.to_path_buf(),
                found: false,
            };
        }
        let beside = || {
            let dir = program?.parent()?;
            let dir = match dir.as_os_str().is_empty() {
                true => Path::new("."),
                false => dir,
            };
            project_config(&dir.canonicalize().ok()?)
        };
        let found = (std::env::current_dir().ok())
            .and_then(|dir| project_config(&dir))
            .or_else(beside);
        match found {
            Some(path) => ServerSource::File { path, found: true },
            None => ServerSource::Reference,
        }
    }
}

/// The `.mcp.json` of `dir` or of its nearest parent that has one.
pub fn project_config(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(PROJECT_CONFIG))
        .find(|p| p.is_file())
}

/// A config file, its `${VAR}`s replaced from the environment.
pub fn read_config(path: &Path) -> Result<McpConfig, RunSetupError> {
    let bad = |message: String| InputError::BadConfig {
        path: path.to_path_buf(),
        message,
    };
    let text = read_source(path)?;
    let mut config = McpConfig::from_json(&text).map_err(|e| bad(e.to_string()))?;
    config
        .expand_env(&|name| std::env::var(name).ok())
        .map_err(|e| bad(e.to_string()))?;
    config.origin = Some(path.display().to_string());
    Ok(config)
}

/// Where the reference servers live: `PML_MCP_SERVERS`; else the source tree's
/// `mcp-servers/` when pml was built from a clone that is still there; else
/// `mcp-servers/` in the per-user data folder ([`pml_store::data_dir`]).
pub fn mcp_servers_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PML_MCP_SERVERS").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mcp-servers");
    if tree.join("package-lock.json").is_file() {
        return tree.canonicalize().unwrap_or(tree);
    }
    match pml_store::data_dir() {
        Some(data) => data.join("mcp-servers"),
        // Not a shared temporary folder (another user could plant servers there): a folder
        // that does not exist, which the install then says it cannot create.
        None => PathBuf::from("/nonexistent/pml-needs-HOME-or-PML_MCP_SERVERS"),
    }
}

/// Installs the reference servers into `dir` (`npm ci` from the lock file pml was built with)
/// unless they are there. Several processes installing at once take turns.
pub fn ensure_servers_installed(dir: &Path) -> Result<(), RunSetupError> {
    // Installed from this lock file, to the end: npm writes `node_modules/.package-lock.json`
    // when an install completes (`npm ci` removes `node_modules` first). A half-done or failed
    // install, or one from another lock file (an older pml), is installed again.
    let tree = dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let current = || {
        tree.exists()
            && dir.join("node_modules/.package-lock.json").exists()
            && std::fs::read_to_string(dir.join("package-lock.json"))
                .is_ok_and(|lock| lock == PACKAGE_LOCK)
    };
    if current() {
        return Ok(());
    }
    let setup = |what: &str, e: std::io::Error| {
        RunSetupError::Setup(format!("{}: cannot {what}: {e}", dir.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| setup("create the folder", e))?;
    let lock = std::fs::File::create(dir.join(".install.lock"))
        .map_err(|e| setup("create .install.lock", e))?;
    lock.lock().map_err(|e| setup("lock .install.lock", e))?;
    // Installed by another process while this one waited.
    if current() {
        return Ok(());
    }
    for (name, text) in [
        ("package.json", PACKAGE_JSON),
        ("package-lock.json", PACKAGE_LOCK),
    ] {
        std::fs::write(dir.join(name), text).map_err(|e| setup(&format!("write {name}"), e))?;
    }
    eprintln!(
        "pml: installing the reference MCP servers into {} (npm ci, first use only)",
        dir.display()
    );
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| {
            RunSetupError::Setup(format!("cannot run npm to install the MCP servers: {e}"))
        })?;
    if !status.success() || !current() {
        return Err(RunSetupError::Setup(format!(
            "npm ci in {} failed ({status}); install the servers by hand with `npm ci --prefix {}`",
            dir.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// The reference servers' config: the filesystem server rooted in `root`, the memory server's
/// file in `scratch`. Installs them first when needed.
pub fn reference_config(root: &Path, scratch: &Path) -> Result<McpConfig, RunSetupError> {
    let servers = mcp_servers_dir();
    ensure_servers_installed(&servers)?;
    let mut config = McpConfig::from_json(DEFAULT_CONFIG_TEMPLATE)
        .map_err(|e| RunSetupError::Setup(format!("the embedded default config: {e}")))?;
    let modules = servers.join("node_modules");
    let modules = modules.canonicalize().unwrap_or(modules);
    config
        .expand(&[
            ("ROOT", &root.to_string_lossy()),
            ("MCP_SERVERS", &modules.to_string_lossy()),
            ("SCRATCH", &scratch.to_string_lossy()),
        ])
        .map_err(|e| RunSetupError::Setup(format!("the embedded default config: {e}")))?;
    Ok(config)
}

/// The tools of the servers a command talks to (`flag`, else the project's config, else the
/// reference servers on an empty folder), only those of `only` when it names some: the
/// servers that listed their tools, and `server: why` for each that did not.
pub async fn catalog(
    flag: Option<&Path>,
    only: &[String],
) -> Result<(Listings, Vec<String>), RunSetupError> {
    let (mut config, scratch) = match ServerSource::choose(flag) {
        ServerSource::File { path, .. } => (read_config(&path)?, None),
        ServerSource::Reference => {
            let scratch = crate::run::Scratch::new()?;
            (
                reference_config(&scratch.root(), &scratch.dir)?,
                Some(scratch),
            )
        }
    };
    if !only.is_empty() {
        if let Some(unknown) = only.iter().find(|s| !config.servers.contains_key(*s)) {
            let known: Vec<&str> = config.servers.keys().map(String::as_str).collect();
            return Err(RunSetupError::Setup(format!(
                "no server `{unknown}` is configured (configured: {})",
                known.join(", ")
            )));
        }
        config.servers.retain(|name, _| only.contains(name));
    }
    let mut listed = Vec::new();
    let mut failed = Vec::new();
    for (server, tools) in list_tools(config, ClientOptions::default()).await {
        match tools {
            Ok(tools) => listed.push((server, tools)),
            Err(why) => failed.push(format!("{server}: {why}")),
        }
    }
    drop(scratch);
    Ok((listed, failed))
}

/// Every server of `config` started at once and asked for its tools: the listings in config
/// order, each server's tools or why it gave none. The servers are stopped before it returns.
pub async fn list_tools(
    config: McpConfig,
    options: ClientOptions,
) -> Vec<(String, Result<Vec<ToolInfo>, String>)> {
    let names: Vec<String> = config.servers.keys().cloned().collect();
    let clients = Arc::new(McpClients::new(config, options));
    let mut listing = tokio::task::JoinSet::new();
    for (i, name) in names.iter().enumerate() {
        let (clients, name) = (clients.clone(), name.clone());
        listing.spawn(async move {
            let tools = clients.list_tools(&name).await.map_err(|e| e.to_string());
            (i, tools)
        });
    }
    let mut found = BTreeMap::new();
    while let Some(joined) = listing.join_next().await {
        if let Ok((i, tools)) = joined {
            found.insert(i, tools);
        }
    }
    clients.shutdown().await;
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let tools = found
                .remove(&i)
                .unwrap_or_else(|| Err("the listing task failed".into()));
            (name, tools)
        })
        .collect()
}

/// The catalog `--tools` reads (`{"tools": [{"name": "server:tool", ...}]}`), from listings.
pub fn catalog_json(listings: &[(String, Vec<ToolInfo>)]) -> Value {
    let tools: Vec<Value> = listings
        .iter()
        .flat_map(|(server, tools)| {
            tools.iter().map(move |t| {
                let mut entry = serde_json::to_value(t).unwrap_or(Value::Null);
                if let Value::Object(map) = &mut entry {
                    map.insert("name".into(), format!("{server}:{}", t.name).into());
                    if map.get("annotations") == Some(&Value::Object(Default::default())) {
                        map.remove("annotations");
                    }
                }
                entry
            })
        })
        .collect();
    serde_json::json!({ "tools": tools })
}

/// The catalog of `listings`, as `--tools` would read it from [`catalog_json`].
pub fn catalog_of(listings: &[(String, Vec<ToolInfo>)]) -> ToolCatalog {
    ToolCatalog::from_json(&catalog_json(listings).to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_project_config_wins() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("a/b/c");
        std::fs::create_dir_all(&inner).unwrap();
        assert_eq!(project_config(&inner), None);
        std::fs::write(dir.path().join(".mcp.json"), "{}").unwrap();
        assert_eq!(project_config(&inner), Some(dir.path().join(".mcp.json")));
        std::fs::write(dir.path().join("a/b/.mcp.json"), "{}").unwrap();
        assert_eq!(
            project_config(&inner),
            Some(dir.path().join("a/b/.mcp.json"))
        );
        // A folder of that name is not a config.
        std::fs::create_dir_all(inner.join(".mcp.json")).unwrap();
        assert_eq!(
            project_config(&inner),
            Some(dir.path().join("a/b/.mcp.json"))
        );
    }
}
