//! pml-store: the memory of pml. Capabilities (agent programs saved once per semantic hash,
//! under one or more names) and runs (every `pml run`: what it started from, each call as it
//! starts and ends - the journal `pml run --resume` answers from - and its trace, decisions
//! and outcome).
//!
//! **Input:** a store location (a SQLite file path, `sqlite:...`, or `postgres://...`) and the
//! records the facade computes (this crate analyses nothing: the semantic hash, normalized and
//! parameterized code arrive computed).
//! **Output:** the stored records, as Rust values that serialize to the JSON of
//! `docs/formats.md`.
//!
//! **Invariants:**
//! - One schema and one set of queries for both databases (`sqlx`'s `Any` driver); the schema
//!   is versioned (`pml_meta.schema_version`) and migrated forward on open, in a write
//!   transaction, so concurrent first opens agree. A store of a newer version, a file that is
//!   not a database, or a server that cannot be reached is an error, never a new empty store.
//! - A capability is stored once per `code_hash`; a name points to exactly one capability;
//!   saving under a name that points elsewhere is refused unless the caller asks to move it.
//! - Hashes are computed under one version of the semantic hash (`pml_meta.hash_version`);
//!   [`Store::rehash`] brings a store kept under an older one to the caller's.
//! - Every write is one transaction that takes the write lock first (SQLite `BEGIN IMMEDIATE`,
//!   PostgreSQL an advisory transaction lock): several processes writing at once wait for
//!   each other instead of failing or losing a write.

mod capabilities;
mod journal;
mod rehash;
mod runs;
mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyConnection, AnyPool, Connection, Executor};

pub use capabilities::{Capability, CapabilitySummary, NewCapability, Removed, SaveOutcome, Saved};
pub use journal::{CallState, JournalEntry, JournalWriter, RunStart};
pub use rehash::{Rehashed, Rehasher, FIRST_RECORDED_VERSION};
pub use runs::{new_run_id, LearningRun, NewRun, Run, RunSummary, RESULT_PREVIEW_BYTES};

/// The database behind a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// What can go wrong with a store. Every variant names the store's location.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store {location}: cannot open: {message}")]
    Unreachable { location: String, message: String },
    #[error("store {location}: not a pml store ({message})")]
    Corrupt { location: String, message: String },
    #[error(
        "store {location}: written by a newer pml (schema version {found}; this pml knows versions up to {known})"
    )]
    NewerSchema {
        location: String,
        found: i64,
        known: i64,
    },
    #[error("store {location}: {message}")]
    Database { location: String, message: String },
    /// A name already names another capability.
    #[error("`{name}` already names capability {code_hash} (pass --replace to move the name)")]
    NameTaken { name: String, code_hash: String },
    /// No capability has this name or hash.
    #[error("no capability named or hashed `{0}`")]
    NotFound(String),
    /// No run has this id.
    #[error("no run `{0}`")]
    NoRun(String),
    /// A hash prefix matches several capabilities.
    #[error("`{prefix}` is the start of several capability hashes: {matches}")]
    Ambiguous { prefix: String, matches: String },
}

/// How long opening a store waits for the database to answer.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// Each SQLite connection waits up to 60 s for another process's write lock, enforces foreign
/// keys, and commits without waiting for the disk (`synchronous = NORMAL`: in WAL mode a
/// commit survives the process being killed; only a power loss can take the last ones).
const SQLITE_PRAGMAS: &str =
    "PRAGMA busy_timeout = 60000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;";

/// An open store.
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    location: String,
}

impl Store {
    /// Open (creating it if needed, for SQLite) the store at `location`: a file path, a
    /// `sqlite:` URL, or a `postgres://` / `postgresql://` URL. Migrates the schema forward.
    pub async fn open(location: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let (backend, url) = resolve(location)?;
        if !location.contains(':') {
            // A file path: its folder is made (the default one does not exist at first).
            let parent = Path::new(location)
                .parent()
                .filter(|p| !p.as_os_str().is_empty());
            if let Some(parent) = parent {
                std::fs::create_dir_all(parent).map_err(|e| StoreError::Unreachable {
                    location: location.to_string(),
                    message: format!("cannot create {}: {e}", parent.display()),
                })?;
            }
        }
        let unreachable = |e: sqlx::Error| StoreError::Unreachable {
            location: location.to_string(),
            message: plain(&e),
        };
        // One connection first, for the real reason when there is none (the pool would only
        // say that it timed out).
        let check = match tokio::time::timeout(CONNECT_WAIT, AnyConnection::connect(&url)).await {
            Ok(Ok(mut conn)) => {
                if backend == Backend::Sqlite {
                    // Readers never wait for the writer (persistent: set once per file). The
                    // first statements that read the file: a file that is not a database
                    // says so here.
                    // Several first opens of one new file at once (gateways, tests): the
                    // switch to WAL may find the file busy without waiting for it; it is
                    // tried again, for as long as a busy writer is waited for elsewhere.
                    let mut tries = 0;
                    loop {
                        let set = async {
                            conn.execute(SQLITE_PRAGMAS).await?;
                            conn.execute("PRAGMA journal_mode = WAL").await
                        };
                        match set.await {
                            Ok(_) => break,
                            Err(e) if busy(&e) && tries < BUSY_TRIES => {
                                tries += 1;
                                tokio::time::sleep(BUSY_PAUSE).await;
                            }
                            Err(e) => return Err(classify(backend, location, e)),
                        }
                    }
                }
                conn
            }
            Ok(Err(e)) => return Err(unreachable(e)),
            Err(_) => {
                return Err(StoreError::Unreachable {
                    location: location.to_string(),
                    message: format!("no answer in {} s", CONNECT_WAIT.as_secs()),
                })
            }
        };
        let pool = AnyPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(CONNECT_WAIT)
            // A SQLite file's connection does not go stale: no ping (a round trip to its
            // thread) each time one is taken from the pool.
            .test_before_acquire(backend != Backend::Sqlite)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute(SQLITE_PRAGMAS).await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(unreachable)?;
        // Closed once the pool has a connection: the last connection to close a SQLite file
        // checkpoints its write-ahead log, work for whoever closes the store.
        let _ = check.close().await;
        let store = Store {
            pool,
            backend,
            location: location.to_string(),
        };
        // The same for the first read of a file another opener is switching to WAL.
        let mut tries = 0;
        loop {
            match schema::migrate(&store).await {
                Err(StoreError::Database { message, .. })
                    if message.contains("database is locked") && tries < BUSY_TRIES =>
                {
                    tries += 1;
                    tokio::time::sleep(BUSY_PAUSE).await;
                }
                done => break done?,
            }
        }
        Ok(store)
    }

    /// Where this store is, as it was given to [`Store::open`].
    pub fn location(&self) -> &str {
        &self.location
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Close the connections (waits for them to finish what they do).
    pub async fn close(self) {
        self.pool.close().await;
    }

    /// A database error of this store, classified.
    fn error(&self, e: sqlx::Error) -> StoreError {
        classify(self.backend, &self.location, e)
    }

    /// Run `work` in one write transaction holding the store's write lock: the changes are
    /// all kept or none.
    async fn write<T>(
        &self,
        work: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
        let begin = match self.backend {
            Backend::Sqlite => "BEGIN IMMEDIATE",
            Backend::Postgres => "BEGIN",
        };
        conn.execute(begin).await.map_err(|e| self.error(e))?;
        if self.backend == Backend::Postgres {
            // One writer at a time across processes (released at COMMIT/ROLLBACK).
            let lock = sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(PG_LOCK_KEY);
            if let Err(e) = conn.execute(lock).await {
                let _ = conn.execute("ROLLBACK").await;
                return Err(self.error(e));
            }
        }
        match work(&mut conn).await {
            Ok(value) => {
                conn.execute("COMMIT").await.map_err(|e| self.error(e))?;
                Ok(value)
            }
            Err(e) => {
                if conn.execute("ROLLBACK").await.is_err() {
                    // The connection's state is unknown: do not give it back to the pool.
                    let _ = conn.detach().close().await;
                }
                Err(e)
            }
        }
    }
}

/// What went wrong with the database, in pml's words: the database's own message (without
/// the driver's wrapping and codes), or what kept pml from reaching it.
fn plain(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(d) => d.message().to_owned(),
        sqlx::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused => {
                "nothing answers at that address (connection refused)".to_owned()
            }
            std::io::ErrorKind::NotFound => "no such file or socket".to_owned(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            _ => format!("cannot reach the database: {io}"),
        },
        sqlx::Error::PoolTimedOut => "no connection to the database came free in time".to_owned(),
        sqlx::Error::Tls(e) => format!("TLS: {e}"),
        sqlx::Error::Configuration(e) => format!("the location is not usable: {e}"),
        other => other.to_string(),
    }
}

/// A database error, classified: a SQLite file that is not a database (or is damaged) is
/// [`StoreError::Corrupt`].
/// How often, and how far apart, opening a SQLite file tries again when it is busy.
const BUSY_TRIES: u32 = 200;
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_millis(10);

/// SQLite's `SQLITE_BUSY` (5), `database is locked`.
fn busy(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.code().as_deref() == Some("5")
        || d.message().contains("database is locked"))
}

fn classify(backend: Backend, location: &str, e: sqlx::Error) -> StoreError {
    let message = plain(&e);
    let corrupt = matches!(&e, sqlx::Error::Database(d)
        if backend == Backend::Sqlite
            && (d.code().as_deref() == Some("26") || d.code().as_deref() == Some("11")));
    if corrupt || message.contains("file is not a database") {
        return StoreError::Corrupt {
            location: location.to_string(),
            message,
        };
    }
    StoreError::Database {
        location: location.to_string(),
        message,
    }
}

/// The advisory lock key of pml's writers on PostgreSQL (`"pml"` as bytes).
const PG_LOCK_KEY: i64 = 0x706d6c;

/// pml's per-user data folder: `$XDG_DATA_HOME/pml`, else `$HOME/.local/share/pml`. `None`
/// when neither variable is set.
pub fn data_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| Path::new(&h).join(".local").join("share"))
        })?;
    Some(data.join("pml"))
}

/// The default store: `store.sqlite` in [`data_dir`].
pub fn default_location() -> Option<PathBuf> {
    Some(data_dir()?.join("store.sqlite"))
}

/// The backend and the `sqlx` URL of a location.
fn resolve(location: &str) -> Result<(Backend, String), StoreError> {
    if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        return Ok((Backend::Postgres, location.to_string()));
    }
    if location.starts_with("sqlite:") {
        return Ok((Backend::Sqlite, location.to_string()));
    }
    if location.contains("://") {
        return Err(StoreError::Unreachable {
            location: location.to_string(),
            message: "not a store location (a file path, sqlite:PATH or postgres://...)".into(),
        });
    }
    Ok((
        Backend::Sqlite,
        format!("sqlite://{}?mode=rwc", encode_path(location)),
    ))
}

/// `path` with the bytes a `sqlite:` URL would read as syntax percent-encoded.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        assert_eq!(resolve("postgres://u@h/db").unwrap().0, Backend::Postgres);
        assert_eq!(
            resolve("/tmp/a b/s?.db").unwrap(),
            (
                Backend::Sqlite,
                "sqlite:///tmp/a%20b/s%3F.db?mode=rwc".to_string()
            )
        );
        assert!(resolve("mysql://x").is_err());
    }
}
