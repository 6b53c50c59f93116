//! Semantic hashes kept under an older version of the hash, brought to the current one.
//!
//! The store keys capabilities by their semantic hash and runs by their program's. When the
//! hash's canonical form changes (its version tag, `pml-hash/vN`), what the store keeps would
//! no longer meet what the pipeline computes: saving a program again would make a second
//! capability, and a program's runs would not be found. [`Store::rehash`] re-hashes what the
//! store keeps, once, under the write lock (so concurrent opens agree), and records the
//! version in `pml_meta.hash_version` (a store without it was written under `pml-hash/v3`):
//!
//! - each capability from its code; capabilities that now hash alike (the new form tells them
//!   apart less, as the declaration and arrow forms of one helper) become one, the oldest,
//!   with every name of each;
//! - each run from its program's source (its start), else through the capability its hash
//!   was (runs recorded before starts were);
//! - the capabilities each run's start says it called.
//!
//! A program that no longer hashes (an error under the new version) keeps its old hash. This
//! crate computes no hash: the caller gives the function ([`Rehasher`]).

use std::collections::HashMap;

use sqlx::{Executor, Row};

use crate::{Store, StoreError};

/// The hash version of a store that never recorded one.
pub const FIRST_RECORDED_VERSION: &str = "pml-hash/v3";

/// What the store asks of the pipeline to re-hash: the current version tag; the hash of a
/// program's source under it (`None` when the source has errors), `place` being where it
/// came from (its file, which says its dialect; `None`: a capability's code, or a program
/// sent to the gateway); and a capability's structure (JSON).
pub trait Rehasher: Send + Sync {
    fn version(&self) -> &str;
    fn hash(&self, source: &str, place: Option<&str>) -> Option<String>;
    fn structure(&self, source: &str) -> serde_json::Value;
}

/// What [`Store::rehash`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rehashed {
    /// The version the store was under (`None`: it was current already).
    pub from: Option<String>,
    /// Capabilities whose hash changed.
    pub capabilities: usize,
    /// Capabilities merged into another that hashes alike now.
    pub merged: usize,
    /// Runs whose program hash changed.
    pub runs: usize,
}

/// Whether hash version `stored` (`pml-hash/v3`) is older than `current` (`pml-hash/v4`):
/// their numbers compared. A tag that is not of that form is older than any.
fn older(stored: &str, current: &str) -> bool {
    let number = |tag: &str| -> Option<u64> { tag.rsplit_once("/v")?.1.parse().ok() };
    match (number(stored), number(current)) {
        (Some(stored), Some(current)) => stored < current,
        (None, _) => true,
        (Some(_), None) => false,
    }
}

impl Store {
    /// The version of the semantic hash the store's hashes were computed under.
    pub async fn hash_version(&self) -> Result<String, StoreError> {
        let row = sqlx::query("SELECT value FROM pml_meta WHERE key = 'hash_version'")
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.error(e))?;
        match row {
            Some(row) => row.try_get(0).map_err(|e| self.error(e)),
            None => Ok(FIRST_RECORDED_VERSION.to_owned()),
        }
    }

    /// Brings the store's hashes to `rehasher`'s version (see the module's documentation);
    /// nothing to do (one read) when they are under it already, or under a newer one.
    pub async fn rehash(&self, rehasher: &(dyn Rehasher + Sync)) -> Result<Rehashed, StoreError> {
        let current = rehasher.version();
        let stored = self.hash_version().await?;
        // Only forward: a store a newer pml keeps is left as it is (re-hashing it down would
        // merge what the newer version tells apart, for good).
        if stored == current || !older(&stored, current) {
            return Ok(Rehashed::default());
        }
        // The hashes are computed before the write lock is taken (other processes keep
        // writing meanwhile); what they give is written under it.
        let db = |e| self.error(e);
        let rows = sqlx::query(
            "SELECT code_hash, code FROM pml_capabilities ORDER BY created_at, code_hash",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut capabilities: Vec<(String, String, String)> = Vec::new();
        for row in rows {
            let old: String = row.try_get(0).map_err(db)?;
            let code: String = row.try_get(1).map_err(db)?;
            if let Some(new) = rehasher.hash(&code, None) {
                capabilities.push((old, new, rehasher.structure(&code).to_string()));
            }
        }
        let rows = sqlx::query(
            "SELECT id, program_hash, source, file FROM pml_run_starts
             WHERE program_hash IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut by_source: HashMap<(String, Option<String>), Option<String>> = HashMap::new();
        let mut started = std::collections::HashSet::new();
        let mut runs: Vec<(String, String)> = Vec::new();
        for row in rows {
            let id: String = row.try_get(0).map_err(db)?;
            let old: String = row.try_get(1).map_err(db)?;
            let source: String = row.try_get(2).map_err(db)?;
            let file: Option<String> = row.try_get(3).map_err(db)?;
            started.insert(id.clone());
            let new = by_source
                .entry((source, file))
                .or_insert_with_key(|(source, file)| rehasher.hash(source, file.as_deref()))
                .clone();
            if let Some(new) = new.filter(|new| *new != old) {
                runs.push((id, new));
            }
        }
        self.write(async |conn| {
            // Decided under the lock: another process may have done it meanwhile.
            let found: Option<String> =
                sqlx::query("SELECT value FROM pml_meta WHERE key = 'hash_version'")
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(db)?
                    .map(|row| row.try_get(0))
                    .transpose()
                    .map_err(db)?;
            let from = found
                .clone()
                .unwrap_or_else(|| FIRST_RECORDED_VERSION.to_owned());
            if from == current || !older(&from, current) {
                return Ok(Rehashed::default());
            }
            let mut done = Rehashed {
                from: Some(from),
                ..Rehashed::default()
            };
            // Capabilities, oldest first: the first of those that hash alike now stays.
            let mut moved: HashMap<String, String> = HashMap::new();
            for (old, new, structure) in &capabilities {
                if new == old {
                    sqlx::query("UPDATE pml_capabilities SET structure = $1 WHERE code_hash = $2")
                        .bind(structure)
                        .bind(old)
                        .execute(&mut *conn)
                        .await
                        .map_err(db)?;
                    continue;
                }
                // Another capability has that hash already (kept, or not re-hashed yet and
                // unchanged): this one becomes it.
                let exists = sqlx::query("SELECT 1 FROM pml_capabilities WHERE code_hash = $1")
                    .bind(new)
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(db)?
                    .is_some();
                if exists {
                    done.merged += 1;
                } else {
                    // A copy under the new hash, then what points at the old one moves.
                    sqlx::query(
                        "INSERT INTO pml_capabilities (code_hash, description, code,
                            normalized_code, parameterized_code, parameters, parameter_schema,
                            structure, tools, hil_tools, created_at)
                         SELECT $1, description, code, normalized_code, parameterized_code,
                            parameters, parameter_schema, $2, tools, hil_tools, created_at
                         FROM pml_capabilities WHERE code_hash = $3",
                    )
                    .bind(new)
                    .bind(structure)
                    .bind(old)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                    sqlx::query(
                        "INSERT INTO pml_capability_dependencies (code_hash, depends_on)
                         SELECT $1, depends_on FROM pml_capability_dependencies
                         WHERE code_hash = $2",
                    )
                    .bind(new)
                    .bind(old)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                }
                sqlx::query("UPDATE pml_capability_names SET code_hash = $1 WHERE code_hash = $2")
                    .bind(new)
                    .bind(old)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                sqlx::query("DELETE FROM pml_capabilities WHERE code_hash = $1")
                    .bind(old)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                done.capabilities += 1;
                moved.insert(old.clone(), new.clone());
            }
            // Runs with a start: from their program's source.
            for (id, new) in &runs {
                for sql in [
                    "UPDATE pml_run_starts SET program_hash = $1 WHERE id = $2",
                    "UPDATE pml_runs SET program_hash = $1 WHERE id = $2",
                ] {
                    sqlx::query(sql)
                        .bind(new)
                        .bind(id)
                        .execute(&mut *conn)
                        .await
                        .map_err(db)?;
                }
                done.runs += 1;
            }
            // Runs without a start: through the capability their hash was.
            let rows =
                sqlx::query("SELECT id, program_hash FROM pml_runs WHERE program_hash IS NOT NULL")
                    .fetch_all(&mut *conn)
                    .await
                    .map_err(db)?;
            for row in rows {
                let id: String = row.try_get(0).map_err(db)?;
                let old: String = row.try_get(1).map_err(db)?;
                let Some(new) = moved.get(&old).filter(|_| !started.contains(&id)) else {
                    continue;
                };
                sqlx::query("UPDATE pml_runs SET program_hash = $1 WHERE id = $2")
                    .bind(new)
                    .bind(&id)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                done.runs += 1;
            }
            // The capabilities each start says it called (`{"name": "<hash>"}`).
            for (old, new) in &moved {
                sqlx::query(
                    "UPDATE pml_run_starts SET capabilities = REPLACE(capabilities, $1, $2)
                     WHERE capabilities LIKE $3",
                )
                .bind(format!("\"{old}\""))
                .bind(format!("\"{new}\""))
                .bind(format!("%\"{old}\"%"))
                .execute(&mut *conn)
                .await
                .map_err(db)?;
            }
            let set = match found {
                Some(_) => "UPDATE pml_meta SET value = $1 WHERE key = 'hash_version'",
                None => "INSERT INTO pml_meta (key, value) VALUES ('hash_version', $1)",
            };
            conn.execute(sqlx::query(set).bind(current))
                .await
                .map_err(db)?;
            Ok(done)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn versions_compare_by_number() {
        assert!(super::older("pml-hash/v3", "pml-hash/v4"));
        assert!(super::older("pml-hash/v9", "pml-hash/v10"));
        assert!(!super::older("pml-hash/v5", "pml-hash/v4"));
        assert!(!super::older("pml-hash/v4", "pml-hash/v4"));
        assert!(super::older("something", "pml-hash/v4"));
    }
}
