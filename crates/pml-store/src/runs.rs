//! Runs: every `pml run`, its trace and outcome, kept for learning and inspection.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{now_ms, Store, StoreError};

/// Results longer than this (as JSON text) are kept as a preview: their first bytes.
pub const RESULT_PREVIEW_BYTES: usize = 16 * 1024;

/// A finished run, as the facade hands it over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewRun {
    /// The semantic hash of the program that ran (the capability's, when it is stored).
    pub program_hash: Option<String>,
    /// The program's file, as given.
    pub file: Option<String>,
    pub args: Value,
    pub ok: bool,
    pub result: Value,
    pub error: Option<String>,
    /// The trace events (`docs/formats.md`), as JSON text: a run may have a quarter of a
    /// million events, held as a JSON tree they would cost ten times their text.
    pub trace: String,
    /// The path it took (`["server:tool", ...]`), as JSON text.
    pub executed_path: String,
    /// The decisions taken (`[{taskId, outcome, iteration}]`), as JSON text.
    pub decisions: String,
    pub timings: Value,
    /// How many tool calls the run made.
    pub calls: i64,
    /// Milliseconds since the Unix epoch.
    pub started_at: i64,
    pub duration_ms: i64,
    /// The distributed trace the run was part of (`{"traceparent", "tracestate"?}`).
    pub trace_context: Option<Value>,
}

/// A stored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub id: String,
    /// False for a run that started and did not finish (killed, or still running): only its
    /// start and its journal are known. `pml run --resume ID` takes it up.
    pub finished: bool,
    /// The run this one resumed.
    pub resumed_from: Option<String>,
    /// Each call as it started and ended (from schema version 3 on).
    pub journal: Vec<crate::JournalEntry>,
    pub program_hash: Option<String>,
    /// The names of the capability that ran, when the program is a stored one.
    pub capability: Vec<String>,
    pub file: Option<String>,
    pub args: Value,
    pub ok: bool,
    /// The result (JSON), or, when its JSON text was longer than [`RESULT_PREVIEW_BYTES`]
    /// (`result_truncated`), a string holding the start of that text.
    pub result: Value,
    pub result_truncated: bool,
    pub error: Option<String>,
    pub trace: Value,
    pub executed_path: Value,
    pub decisions: Value,
    pub timings: Value,
    pub calls: i64,
    pub started_at: i64,
    pub duration_ms: i64,
    /// The distributed trace the run was part of (`{"traceparent", "tracestate"?}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_context: Option<Value>,
}

/// A finished run as learning reads it ([`Store::learning_runs`]): JSON columns as text,
/// borrowed from the row.
#[derive(Debug, Clone, PartialEq)]
pub struct LearningRun<'a> {
    pub program_hash: Option<&'a str>,
    pub ok: bool,
    pub duration_ms: i64,
    /// The trace events (JSON array).
    pub trace: &'a str,
    /// `[{taskId, outcome, iteration, capability?}]`.
    pub decisions: &'a str,
    /// The capabilities it called, by name, with their hashes (JSON object; `None` for runs
    /// recorded before schema version 4).
    pub capabilities: Option<&'a str>,
}

/// One line of `pml runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub id: String,
    pub program_hash: Option<String>,
    pub capability: Vec<String>,
    pub file: Option<String>,
    pub ok: bool,
    pub error: Option<String>,
    pub calls: i64,
    pub started_at: i64,
    pub duration_ms: i64,
    /// False for a run that started and did not finish (`calls`: those in its journal).
    pub finished: bool,
}

/// A new run id: 12 hex digits of milliseconds, 4 of a counter of this process (ids sort by
/// time, and in order within a process), 4 of randomness (processes apart).
pub fn new_run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "{:012x}{:04x}{:04x}",
        now_ms() & 0xffff_ffff_ffff,
        n & 0xffff,
        h.finish() & 0xffff
    )
}

impl Store {
    /// Keep a finished run (under `id`, the id it started under, or a new one); its id.
    pub async fn record_run(&self, id: Option<&str>, run: &NewRun) -> Result<String, StoreError> {
        let id = id.map_or_else(new_run_id, str::to_string);
        let text = serde_json::to_string(&run.result).unwrap_or_else(|_| "null".into());
        let truncated = text.len() > RESULT_PREVIEW_BYTES;
        let (result, whole) = match truncated {
            false => (text, None),
            true => {
                let mut end = RESULT_PREVIEW_BYTES;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                // The start of the JSON text, as a JSON string; the whole text kept apart.
                (
                    Value::String(text[..end].to_string()).to_string(),
                    Some(text),
                )
            }
        };
        let insert = async |conn: &mut sqlx::AnyConnection| {
            sqlx::query(
                "INSERT INTO pml_runs (id, program_hash, file, args, ok, result, result_truncated,
                    error, trace, executed_path, decisions, timings, calls, started_at,
                    duration_ms, trace_context)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            )
            .bind(&id)
            .bind(run.program_hash.as_deref())
            .bind(run.file.as_deref())
            .bind(run.args.to_string())
            .bind(i64::from(run.ok))
            .bind(result)
            .bind(i64::from(truncated))
            .bind(run.error.as_deref())
            .bind(run.trace.as_str())
            .bind(run.executed_path.as_str())
            .bind(run.decisions.as_str())
            .bind(run.timings.to_string())
            .bind(run.calls)
            .bind(run.started_at)
            .bind(run.duration_ms)
            .bind(run.trace_context.as_ref().map(Value::to_string))
            .execute(&mut *conn)
            .await
            .map_err(|e| self.error(e))?;
            Ok(())
        };
        let Some(whole) = &whole else {
            // One statement: atomic on its own, no lock to take first (most runs: every
            // execute of a gateway ends here, on its way to the answer).
            let mut conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
            insert(&mut conn).await?;
            return Ok(id);
        };
        self.write(async |conn| {
            sqlx::query("INSERT INTO pml_run_results (run_id, result) VALUES ($1, $2)")
                .bind(&id)
                .bind(whole)
                .execute(&mut *conn)
                .await
                .map_err(|e| self.error(e))?;
            insert(conn).await
        })
        .await?;
        Ok(id)
    }

    /// The latest `limit` runs, newest first (of one program when `program_hash` is given).
    pub async fn runs(
        &self,
        program_hash: Option<&str>,
        limit: i64,
    ) -> Result<Vec<RunSummary>, StoreError> {
        let db = |e| self.error(e);
        // Finished runs, and runs that started and never finished (killed: resumable).
        let rows = sqlx::query(
            "SELECT id, program_hash, file, ok, error, calls, started_at, duration_ms,
                CAST(1 AS BIGINT) AS finished
             FROM pml_runs WHERE ($1 = '' OR program_hash = $1)
             UNION ALL
             SELECT s.id, s.program_hash, s.file, CAST(0 AS BIGINT), NULL,
                (SELECT COUNT(*) FROM pml_journal j WHERE j.run_id = s.id),
                s.started_at, CAST(0 AS BIGINT), CAST(0 AS BIGINT)
             FROM pml_run_starts s
             WHERE NOT EXISTS (SELECT 1 FROM pml_runs r WHERE r.id = s.id)
                AND ($1 = '' OR s.program_hash = $1)
             ORDER BY id DESC LIMIT $2",
        )
        .bind(program_hash.unwrap_or(""))
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let program_hash: Option<String> = row.try_get(1).map_err(db)?;
            out.push(RunSummary {
                id: row.try_get(0).map_err(db)?,
                capability: self.capability_names(program_hash.as_deref()).await?,
                program_hash,
                file: row.try_get(2).map_err(db)?,
                ok: row.try_get::<i64, _>(3).map_err(db)? != 0,
                error: row.try_get(4).map_err(db)?,
                calls: row.try_get(5).map_err(db)?,
                started_at: row.try_get(6).map_err(db)?,
                duration_ms: row.try_get(7).map_err(db)?,
                finished: row.try_get::<i64, _>(8).map_err(db)? != 0,
            });
        }
        Ok(out)
    }

    /// What learning reads of every finished run (when `program_hash` is given: those of
    /// that program, and those whose start lists it among the capabilities they called),
    /// oldest first, handed to `each` one at a time as the rows arrive (never all in memory
    /// at once): its JSON documents as stored, unparsed (the reader parses only what it
    /// needs). Stops at the first error of `each`.
    pub async fn learning_runs<E>(
        &self,
        program_hash: Option<&str>,
        each: impl FnMut(LearningRun<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        self.runs_reading(program_hash.unwrap_or(""), false, each)
            .await
    }

    /// [`Store::learning_runs`] of the runs of other programs that called the capability
    /// `program_hash` (their start lists it), without its own.
    pub async fn caller_runs<E>(
        &self,
        program_hash: &str,
        each: impl FnMut(LearningRun<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        self.runs_reading(program_hash, true, each).await
    }

    /// The rows of [`Store::learning_runs`]: every run (`hash` empty), or those of `hash`
    /// and those that called it, or (`callers_only`) those that called it only.
    async fn runs_reading<E>(
        &self,
        hash: &str,
        callers_only: bool,
        mut each: impl FnMut(LearningRun<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        use futures_util::TryStreamExt;
        let db = |e| self.error(e);
        // A hash is hex digits: as a JSON string inside the capabilities object, `"<hash>"`
        // (no LIKE wildcard in it). The reader checks the object itself.
        let mut rows = sqlx::query(
            "SELECT r.program_hash, r.ok, r.duration_ms, r.trace, r.decisions, s.capabilities
             FROM pml_runs r LEFT JOIN pml_run_starts s ON s.id = r.id
             WHERE ($1 = '' OR (r.program_hash = $1 AND $3 = 0) OR s.capabilities LIKE $2)
               AND ($3 = 0 OR r.program_hash IS NULL OR r.program_hash <> $1)
             ORDER BY r.id",
        )
        .bind(hash)
        .bind(format!("%\"{hash}\"%"))
        .bind(i64::from(callers_only))
        .fetch(&self.pool);
        while let Some(row) = rows.try_next().await.map_err(db)? {
            let run = LearningRun {
                program_hash: row.try_get(0).map_err(db)?,
                ok: row.try_get::<i64, _>(1).map_err(db)? != 0,
                duration_ms: row.try_get(2).map_err(db)?,
                trace: row.try_get(3).map_err(db)?,
                decisions: row.try_get(4).map_err(db)?,
                capabilities: row.try_get(5).map_err(db)?,
            };
            if let Err(e) = each(run) {
                return Ok(Err(e));
            }
        }
        Ok(Ok(()))
    }

    /// The stored structure (JSON text) and names of each capability, by hash.
    pub async fn capability_structures(
        &self,
    ) -> Result<Vec<(String, Vec<String>, String)>, StoreError> {
        let db = |e| self.error(e);
        let rows =
            sqlx::query("SELECT code_hash, structure FROM pml_capabilities ORDER BY code_hash")
                .fetch_all(&self.pool)
                .await
                .map_err(db)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let hash: String = row.try_get(0).map_err(db)?;
            let names = self.capability_names(Some(&hash)).await?;
            out.push((hash, names, row.try_get(1).map_err(db)?));
        }
        Ok(out)
    }

    /// The full id of the run `id` names: itself, or the only run (finished or not) whose id
    /// starts with it (6 hexadecimal digits at least).
    pub(crate) async fn run_id_of(&self, id: &str) -> Result<String, StoreError> {
        let key = id.to_ascii_lowercase();
        if key.len() < 6 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(StoreError::NoRun(id.to_string()));
        }
        let rows = sqlx::query(
            "SELECT id FROM pml_run_starts WHERE id >= $1 AND id < $2
             UNION SELECT id FROM pml_runs WHERE id >= $1 AND id < $2
             ORDER BY id LIMIT 2",
        )
        .bind(&key)
        .bind(format!("{key}~"))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.error(e))?;
        let ids: Vec<String> = (rows.iter())
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(e))?;
        match ids.as_slice() {
            [] => Err(StoreError::NoRun(id.to_string())),
            [one] => Ok(one.clone()),
            _ => Err(StoreError::Ambiguous {
                prefix: id.to_string(),
                matches: ids.join(", "),
            }),
        }
    }

    /// How many finished runs are recorded under `program_hash`, and how many of them
    /// succeeded.
    pub async fn run_counts(&self, program_hash: &str) -> Result<(i64, i64), StoreError> {
        let db = |e| self.error(e);
        let mut counts = [0i64; 2];
        for (i, query) in [
            "SELECT COUNT(*) FROM pml_runs WHERE program_hash = $1",
            "SELECT COUNT(*) FROM pml_runs WHERE program_hash = $1 AND ok = 1",
        ]
        .into_iter()
        .enumerate()
        {
            let row = sqlx::query(query)
                .bind(program_hash)
                .fetch_one(&self.pool)
                .await
                .map_err(db)?;
            counts[i] = row.try_get(0).map_err(db)?;
        }
        Ok((counts[0], counts[1]))
    }

    /// The whole result of run `id` (its full id), also when [`Run::result`] holds only its
    /// start.
    pub async fn whole_result(&self, id: &str) -> Result<Value, StoreError> {
        let db = |e| self.error(e);
        let row = sqlx::query("SELECT result FROM pml_run_results WHERE run_id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        let text: String = match row {
            Some(row) => row.try_get(0).map_err(db)?,
            None => {
                let run = self.run(id).await?;
                return Ok(run.result);
            }
        };
        pml_jstext::parse(&text).map_err(|e| StoreError::Corrupt {
            location: self.location.clone(),
            message: format!("the result of run {id} is not JSON: {e}"),
        })
    }

    /// Run `id` ended waiting for an approval of `plan` (the side effects it may make).
    pub async fn pause(&self, id: &str, plan: &Value) -> Result<(), StoreError> {
        self.write(async |conn| {
            sqlx::query(
                "INSERT INTO pml_approvals (run_id, plan, state) VALUES ($1, $2, 'paused')",
            )
            .bind(id)
            .bind(plan.to_string())
            .execute(&mut *conn)
            .await
            .map_err(|e| self.error(e))?;
            Ok(())
        })
        .await
    }

    /// Decides paused run `id` (`approved` or `denied`), once: its plan when this call
    /// decided it; `Err(state)` when it was not paused (`None`) or was decided already
    /// (`Some(that decision)`). Several gateways deciding at once: one wins.
    pub async fn decide(
        &self,
        id: &str,
        decision: &str,
        at: i64,
    ) -> Result<Result<Value, Option<String>>, StoreError> {
        let db = |e| self.error(e);
        let claimed = self
            .write(async |conn| {
                let done = sqlx::query(
                    "UPDATE pml_approvals SET state = $2, decided_at = $3
                     WHERE run_id = $1 AND state = 'paused'",
                )
                .bind(id)
                .bind(decision)
                .bind(at)
                .execute(&mut *conn)
                .await
                .map_err(|e| self.error(e))?;
                Ok(done.rows_affected() == 1)
            })
            .await?;
        let row = sqlx::query("SELECT plan, state FROM pml_approvals WHERE run_id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        let Some(row) = row else { return Ok(Err(None)) };
        if !claimed {
            return Ok(Err(Some(row.try_get(1).map_err(db)?)));
        }
        let plan: String = row.try_get(0).map_err(db)?;
        Ok(Ok(serde_json::from_str(&plan).unwrap_or(Value::Null)))
    }

    /// The run with this id, or the only one whose id starts with it (6 characters at least).
    pub async fn run(&self, id: &str) -> Result<Run, StoreError> {
        let db = |e| self.error(e);
        let id = self.run_id_of(id).await?;
        let row = sqlx::query(
            "SELECT id, program_hash, file, args, ok, result, result_truncated, error, trace,
                executed_path, decisions, timings, calls, started_at, duration_ms, trace_context
             FROM pml_runs WHERE id = $1",
        )
        .bind(&id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        // Started, never finished: what its start and journal say.
        let Some(row) = row else {
            return self.unfinished_run(&id).await;
        };
        let row = &row;
        let program_hash: Option<String> = row.try_get(1).map_err(db)?;
        let full: String = row.try_get(0).map_err(db)?;
        let (resumed_from, journal) = match self.run_start(&full).await {
            Ok((_, start)) => (start.resumed_from, self.journal(&full).await?),
            Err(StoreError::NoRun(_)) => (None, Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(Run {
            id: full,
            finished: true,
            resumed_from,
            journal,
            capability: self.capability_names(program_hash.as_deref()).await?,
            program_hash,
            file: row.try_get(2).map_err(db)?,
            args: self.json_text(row, 3)?,
            ok: row.try_get::<i64, _>(4).map_err(db)? != 0,
            result: self.json_text(row, 5)?,
            result_truncated: row.try_get::<i64, _>(6).map_err(db)? != 0,
            error: row.try_get(7).map_err(db)?,
            trace: self.json_text(row, 8)?,
            executed_path: self.json_text(row, 9)?,
            decisions: self.json_text(row, 10)?,
            timings: self.json_text(row, 11)?,
            calls: row.try_get(12).map_err(db)?,
            started_at: row.try_get(13).map_err(db)?,
            duration_ms: row.try_get(14).map_err(db)?,
            trace_context: match row.try_get::<Option<String>, _>(15).map_err(db)? {
                Some(text) => Some(pml_jstext::parse(&text).map_err(|e| StoreError::Corrupt {
                    location: self.location.clone(),
                    message: format!("the trace context of run {id}: {e}"),
                })?),
                None => None,
            },
        })
    }

    /// A run that started and did not finish (its process was killed, or is still running).
    async fn unfinished_run(&self, id: &str) -> Result<Run, StoreError> {
        let (id, start) = self.run_start(id).await?;
        let journal = self.journal(&id).await?;
        Ok(Run {
            capability: self.capability_names(start.program_hash.as_deref()).await?,
            program_hash: start.program_hash,
            file: start.file,
            args: start.args,
            ok: false,
            finished: false,
            resumed_from: start.resumed_from,
            result: Value::Null,
            result_truncated: false,
            error: None,
            trace: Value::Array(Vec::new()),
            executed_path: Value::Array(Vec::new()),
            decisions: Value::Array(Vec::new()),
            timings: Value::Null,
            calls: journal.len() as i64,
            started_at: start.started_at,
            duration_ms: 0,
            trace_context: None,
            journal,
            id,
        })
    }

    /// The names of the capability with this hash (none when it is not stored).
    async fn capability_names(&self, code_hash: Option<&str>) -> Result<Vec<String>, StoreError> {
        let Some(code_hash) = code_hash else {
            return Ok(Vec::new());
        };
        let mut conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
        self.names_of(&mut conn, code_hash).await
    }

    pub(crate) fn json_text(&self, row: &AnyRow, index: usize) -> Result<Value, StoreError> {
        let text: Option<String> = row.try_get(index).map_err(|e| self.error(e))?;
        match text {
            None => Ok(Value::Null),
            Some(text) => pml_jstext::parse(&text).map_err(|e| StoreError::Corrupt {
                location: self.location.clone(),
                message: format!("a stored JSON document does not parse: {e}"),
            }),
        }
    }
}
