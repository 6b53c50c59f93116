//! The start of each run and its call journal: what `pml run --resume` needs.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, Executor, Row};

use crate::{Store, StoreError};

/// A connection kept for writing one run's journal (no pool round trip per write).
pub struct JournalWriter {
    conn: PoolConnection<Any>,
    backend: crate::Backend,
    location: String,
}

impl JournalWriter {
    /// [`Store::start_run`] on this connection.
    pub async fn start_run(&mut self, id: &str, start: &RunStart) -> Result<(), StoreError> {
        insert_start(&mut self.conn, id, start)
            .await
            .map_err(|e| crate::classify(self.backend, &self.location, e))
    }

    /// [`Store::journal_write`] on this connection.
    pub async fn write(
        &mut self,
        run_id: &str,
        entries: &[JournalEntry],
    ) -> Result<(), StoreError> {
        write_journal(&mut self.conn, run_id, entries)
            .await
            .map_err(|e| crate::classify(self.backend, &self.location, e))
    }
}

/// What a run starts from: written before the program's first call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStart {
    pub program_hash: Option<String>,
    pub file: Option<String>,
    /// The program's text, as it ran.
    pub source: String,
    /// The `args` the program saw (with what pml added, such as the scratch `root`).
    pub args: Value,
    /// The `args` the caller gave.
    pub given_args: Value,
    /// The run this one resumes.
    pub resumed_from: Option<String>,
    pub started_at: i64,
    /// The capabilities the program calls (and they call), by the name it calls them, with
    /// the hash each name named then: `{"name": "hash"}` (empty: none; before schema version
    /// 4: not known, `null`).
    #[serde(default)]
    pub capabilities: Value,
}

/// How far a journaled call got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CallState {
    /// It went out and no end was written: it may or may not have happened.
    Started,
    /// It answered (`result`).
    Done,
    /// It failed (`error`).
    Failed,
}

/// One call in a run's journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    pub seq: i64,
    pub node: Option<String>,
    pub iteration: Vec<u32>,
    pub tool: String,
    pub arguments: Value,
    pub state: CallState,
    pub result: Option<Value>,
    /// For a failed call: the message the program saw, and the whole story.
    pub error: Option<(String, String)>,
}

impl Store {
    /// Write down that a run starts (under the id `id`).
    pub async fn start_run(&self, id: &str, start: &RunStart) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
        // One statement: atomic on its own, no lock to take first.
        insert_start(&mut conn, id, start)
            .await
            .map_err(|e| self.error(e))
    }

    /// What the run `id` (or the only run whose id starts with it) started from, with its
    /// full id.
    pub async fn run_start(&self, id: &str) -> Result<(String, RunStart), StoreError> {
        let db = |e| self.error(e);
        let full = self.run_id_of(id).await?;
        let row = sqlx::query(
            "SELECT id, program_hash, file, source, args, given_args, resumed_from, started_at,
                capabilities
             FROM pml_run_starts WHERE id = $1",
        )
        .bind(&full)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?
        // Finished runs recorded before schema version 3 have no start.
        .ok_or_else(|| StoreError::NoRun(id.to_string()))?;
        let row = &row;
        Ok((
            row.try_get(0).map_err(db)?,
            RunStart {
                program_hash: row.try_get(1).map_err(db)?,
                file: row.try_get(2).map_err(db)?,
                source: row.try_get(3).map_err(db)?,
                args: self.json_text(row, 4)?,
                given_args: self.json_text(row, 5)?,
                resumed_from: row.try_get(6).map_err(db)?,
                started_at: row.try_get(7).map_err(db)?,
                capabilities: self.json_text(row, 8)?,
            },
        ))
    }

    /// Write journal entries of run `run_id` (a call that starts: `state` `Started`; one that
    /// ended: its outcome), replacing what an entry of the same `seq` said before. One
    /// statement, committed when it returns: what a run killed afterwards finds.
    pub async fn journal_write(
        &self,
        run_id: &str,
        entries: &[JournalEntry],
    ) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
        write_journal(&mut conn, run_id, entries)
            .await
            .map_err(|e| self.error(e))
    }

    /// A connection of its own for a run's journal.
    pub async fn journal_writer(&self) -> Result<JournalWriter, StoreError> {
        let conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
        Ok(JournalWriter {
            conn,
            backend: self.backend,
            location: self.location.clone(),
        })
    }

    /// The journal of a run, in the order its program made the calls.
    pub async fn journal(&self, run_id: &str) -> Result<Vec<JournalEntry>, StoreError> {
        let db = |e| self.error(e);
        let rows = sqlx::query(
            "SELECT seq, node_id, iteration, tool, arguments, state, result, error_message,
                error_detail
             FROM pml_journal WHERE run_id = $1 ORDER BY seq",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let iteration: Value = self.json_text(&row, 2)?;
            let state: String = row.try_get(5).map_err(db)?;
            let result: Option<String> = row.try_get(6).map_err(db)?;
            let message: Option<String> = row.try_get(7).map_err(db)?;
            let detail: Option<String> = row.try_get(8).map_err(db)?;
            out.push(JournalEntry {
                seq: row.try_get(0).map_err(db)?,
                node: row.try_get(1).map_err(db)?,
                iteration: serde_json::from_value(iteration).unwrap_or_default(),
                tool: row.try_get(3).map_err(db)?,
                arguments: self.json_text(&row, 4)?,
                state: match state.as_str() {
                    "done" => CallState::Done,
                    "failed" => CallState::Failed,
                    _ => CallState::Started,
                },
                result: match result {
                    Some(text) => {
                        Some(pml_jstext::parse(&text).map_err(|e| StoreError::Corrupt {
                            location: self.location.clone(),
                            message: format!("a journaled result does not parse: {e}"),
                        })?)
                    }
                    None => None,
                },
                error: message.map(|m| (m, detail.unwrap_or_default())),
            });
        }
        Ok(out)
    }
}

/// One statement writing `entries` of run `run_id` (see [`Store::journal_write`]).
async fn write_journal(
    conn: &mut AnyConnection,
    run_id: &str,
    entries: &[JournalEntry],
) -> Result<(), sqlx::Error> {
    const COLUMNS: usize = 10;
    for chunk in entries.chunks(100) {
        let mut sql = String::from(
            "INSERT INTO pml_journal (run_id, seq, node_id, iteration, tool, arguments, state,
                result, error_message, error_detail) VALUES ",
        );
        for i in 0..chunk.len() {
            if i > 0 {
                sql.push_str(", ");
            }
            let n = i * COLUMNS;
            let row: Vec<String> = (1..=COLUMNS).map(|c| format!("${}", n + c)).collect();
            sql.push('(');
            sql.push_str(&row.join(", "));
            sql.push(')');
        }
        sql.push_str(
            " ON CONFLICT (run_id, seq) DO UPDATE SET state = excluded.state,
                result = excluded.result, error_message = excluded.error_message,
                error_detail = excluded.error_detail",
        );
        // Only numbered placeholders are built into the text; every value is bound.
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for e in chunk {
            let state = match e.state {
                CallState::Started => "started",
                CallState::Done => "done",
                CallState::Failed => "failed",
            };
            let (message, detail) = match &e.error {
                Some((m, d)) => (Some(m.clone()), Some(d.clone())),
                None => (None, None),
            };
            query = query
                .bind(run_id.to_string())
                .bind(e.seq)
                .bind(e.node.clone())
                .bind(serde_json::to_string(&e.iteration).unwrap_or_else(|_| "[]".into()))
                .bind(e.tool.clone())
                .bind(e.arguments.to_string())
                .bind(state)
                .bind(e.result.as_ref().map(Value::to_string))
                .bind(message)
                .bind(detail);
        }
        conn.execute(query).await?;
    }
    Ok(())
}

async fn insert_start(
    conn: &mut AnyConnection,
    id: &str,
    start: &RunStart,
) -> Result<(), sqlx::Error> {
    let query = sqlx::query(
        "INSERT INTO pml_run_starts (id, program_hash, file, source, args, given_args,
            resumed_from, started_at, capabilities)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(id)
    .bind(start.program_hash.as_deref())
    .bind(start.file.as_deref())
    .bind(&start.source)
    .bind(start.args.to_string())
    .bind(start.given_args.to_string())
    .bind(start.resumed_from.as_deref())
    .bind(start.started_at)
    .bind(start.capabilities.to_string());
    conn.execute(query).await?;
    Ok(())
}
