//! The schema, versioned: `MIGRATIONS[i]` takes a store from version `i` to `i + 1`. The same
//! statements run on SQLite and PostgreSQL (portable types only: `TEXT`, `BIGINT`; times are
//! milliseconds since the Unix epoch, JSON documents are `TEXT`). Tables are prefixed `pml_`
//! so that a PostgreSQL database can be shared with other applications.

use sqlx::{Executor, Row};

use crate::{Store, StoreError};

/// The statements of each version, in order.
const MIGRATIONS: &[&[&str]] = &[
    // 1: capabilities and their names.
    &[
        "CREATE TABLE pml_capabilities (
            code_hash TEXT PRIMARY KEY,
            description TEXT,
            code TEXT NOT NULL,
            normalized_code TEXT NOT NULL,
            parameterized_code TEXT NOT NULL,
            parameters TEXT NOT NULL,
            parameter_schema TEXT NOT NULL,
            structure TEXT NOT NULL,
            tools TEXT NOT NULL,
            hil_tools TEXT NOT NULL,
            created_at BIGINT NOT NULL
        )",
        "CREATE TABLE pml_capability_names (
            name TEXT PRIMARY KEY,
            code_hash TEXT NOT NULL REFERENCES pml_capabilities (code_hash) ON DELETE CASCADE,
            created_at BIGINT NOT NULL
        )",
        "CREATE INDEX pml_capability_names_hash ON pml_capability_names (code_hash)",
        "CREATE TABLE pml_capability_dependencies (
            code_hash TEXT NOT NULL REFERENCES pml_capabilities (code_hash) ON DELETE CASCADE,
            depends_on TEXT NOT NULL,
            PRIMARY KEY (code_hash, depends_on)
        )",
    ],
    // 2: runs.
    &[
        "CREATE TABLE pml_runs (
            id TEXT PRIMARY KEY,
            program_hash TEXT,
            file TEXT,
            args TEXT NOT NULL,
            ok BIGINT NOT NULL,
            result TEXT,
            result_truncated BIGINT NOT NULL,
            error TEXT,
            trace TEXT NOT NULL,
            executed_path TEXT NOT NULL,
            decisions TEXT NOT NULL,
            timings TEXT NOT NULL,
            calls BIGINT NOT NULL,
            started_at BIGINT NOT NULL,
            duration_ms BIGINT NOT NULL
        )",
        "CREATE INDEX pml_runs_program ON pml_runs (program_hash)",
    ],
    // 3: the start of every run (what resuming it needs) and its call journal.
    &[
        "CREATE TABLE pml_run_starts (
            id TEXT PRIMARY KEY,
            program_hash TEXT,
            file TEXT,
            source TEXT NOT NULL,
            args TEXT NOT NULL,
            given_args TEXT NOT NULL,
            resumed_from TEXT,
            started_at BIGINT NOT NULL
        )",
        "CREATE TABLE pml_journal (
            run_id TEXT NOT NULL,
            seq BIGINT NOT NULL,
            node_id TEXT,
            iteration TEXT NOT NULL,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            state TEXT NOT NULL,
            result TEXT,
            error_message TEXT,
            error_detail TEXT,
            PRIMARY KEY (run_id, seq)
        )",
    ],
    // 4: the capabilities a run called, by name, with their hashes (JSON object).
    &["ALTER TABLE pml_run_starts ADD COLUMN capabilities TEXT"],
    // 5: whole results whose start is all `pml_runs` keeps; runs paused for an approval; the
    // trace context a run was part of (W3C `traceparent`, from an MCP client's `_meta`).
    &[
        "ALTER TABLE pml_runs ADD COLUMN trace_context TEXT",
        "CREATE TABLE pml_run_results (
            run_id TEXT PRIMARY KEY,
            result TEXT NOT NULL
        )",
        "CREATE TABLE pml_approvals (
            run_id TEXT PRIMARY KEY,
            plan TEXT NOT NULL,
            state TEXT NOT NULL,
            decided_at BIGINT
        )",
    ],
];

/// The schema version this build writes.
pub(crate) const VERSION: i64 = MIGRATIONS.len() as i64;

/// Bring the store to [`VERSION`], or refuse a newer one.
pub(crate) async fn migrate(store: &Store) -> Result<(), StoreError> {
    // Up to date (the common case): one read, no lock.
    match version(store).await {
        Ok(found) if found == VERSION => return Ok(()),
        Ok(found) if found > VERSION => return Err(newer(store, found)),
        // Older, new (no `pml_meta` yet) or unreadable: decided under the write lock, where
        // concurrent first opens wait for each other (PostgreSQL's `CREATE TABLE IF NOT
        // EXISTS` is not safe against a concurrent one).
        _ => {}
    }
    store
        .write(async |conn| {
            conn.execute(
                "CREATE TABLE IF NOT EXISTS pml_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            )
            .await
            .map_err(|e| store.error(e))?;
            let found = read_version(conn).await.map_err(|e| store.error(e))?;
            if found > VERSION {
                return Err(newer(store, found));
            }
            for statements in &MIGRATIONS[found as usize..] {
                for statement in *statements {
                    conn.execute(*statement).await.map_err(|e| store.error(e))?;
                }
            }
            let set = if found == 0 {
                "INSERT INTO pml_meta (key, value) VALUES ('schema_version', $1)"
            } else {
                "UPDATE pml_meta SET value = $1 WHERE key = 'schema_version'"
            };
            conn.execute(sqlx::query(set).bind(VERSION.to_string()))
                .await
                .map_err(|e| store.error(e))?;
            Ok(())
        })
        .await
}

fn newer(store: &Store, found: i64) -> StoreError {
    StoreError::NewerSchema {
        location: store.location.clone(),
        found,
        known: VERSION,
    }
}

async fn version(store: &Store) -> Result<i64, StoreError> {
    let mut conn = store.pool.acquire().await.map_err(|e| store.error(e))?;
    read_version(&mut conn).await.map_err(|e| store.error(e))
}

async fn read_version(conn: &mut sqlx::AnyConnection) -> Result<i64, sqlx::Error> {
    let row = sqlx::query("SELECT value FROM pml_meta WHERE key = 'schema_version'")
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else { return Ok(0) };
    let value: String = row.try_get(0)?;
    value
        .trim()
        .parse()
        .map_err(|_| sqlx::Error::Protocol(format!("schema_version is `{value}`, not a number")))
}
