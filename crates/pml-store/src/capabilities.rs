//! Capabilities: saved once per semantic hash, reached by any of their names or by hash.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::{now_ms, Store, StoreError};

/// What the facade computed for a program to save.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewCapability {
    /// The semantic hash of the program's structure (the identity of the capability).
    pub code_hash: String,
    pub name: String,
    pub description: Option<String>,
    /// The program as saved.
    pub code: String,
    /// The program with its bound variable names normalized (`_n1`...).
    pub normalized_code: String,
    /// The program with its literals turned into `args.<name>` parameters.
    pub parameterized_code: String,
    /// Each parameter's value in the saved program (what `args` gives back the original).
    pub parameters: Value,
    /// JSON Schema of the parameters.
    pub parameter_schema: Value,
    /// The static structure (as `pml analyze` prints it).
    pub structure: Value,
    /// The MCP tools the program can call (`server:tool`), sorted.
    pub tools: Vec<String>,
    /// The tools that need a human's approval.
    pub hil_tools: Vec<String>,
    /// The capabilities the program calls (`capabilities.NAME(...)`), by name, sorted.
    pub dependencies: Vec<String>,
}

/// A stored capability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    pub code_hash: String,
    /// Its names, oldest first.
    pub names: Vec<String>,
    pub description: Option<String>,
    pub code: String,
    pub normalized_code: String,
    pub parameterized_code: String,
    pub parameters: Value,
    pub parameter_schema: Value,
    pub structure: Value,
    pub tools: Vec<String>,
    pub hil_tools: Vec<String>,
    pub dependencies: Vec<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// One line of `pml capabilities list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilitySummary {
    pub code_hash: String,
    pub names: Vec<String>,
    pub description: Option<String>,
    pub tools: Vec<String>,
    pub created_at: i64,
}

/// What saving did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "outcome")]
pub enum SaveOutcome {
    /// A new capability.
    Created,
    /// The program was already stored (under `names`): the name was added to it.
    Alias { names: Vec<String> },
    /// The program was already stored under this very name: nothing changed.
    Unchanged,
    /// A new capability, or an existing one, now carries the name, which pointed to
    /// `previous` before.
    Moved { previous: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    pub code_hash: String,
    pub name: String,
    #[serde(flatten)]
    pub outcome: SaveOutcome,
}

/// What removing did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    pub code_hash: String,
    /// The names removed.
    pub names: Vec<String>,
    /// Whether the capability itself is gone (removed by hash, or its last name removed).
    pub capability_removed: bool,
}

impl Store {
    /// Save a capability under `new.name`. A program whose hash is stored already is not
    /// stored again: the name becomes one more name of it. A name that names another
    /// capability is refused ([`StoreError::NameTaken`]) unless `replace`, which moves it.
    pub async fn save_capability(
        &self,
        new: &NewCapability,
        replace: bool,
    ) -> Result<Saved, StoreError> {
        self.write(async |conn| {
            let db = |e| self.error(e);
            let stored = sqlx::query("SELECT code_hash FROM pml_capabilities WHERE code_hash = $1")
                .bind(&new.code_hash)
                .fetch_optional(&mut *conn)
                .await
                .map_err(db)?
                .is_some();
            let named = self.hash_of_name(conn, &new.name).await?;
            if let Some(other) = named.as_ref().filter(|h| **h != new.code_hash) {
                if !replace {
                    return Err(StoreError::NameTaken {
                        name: new.name.clone(),
                        code_hash: other.clone(),
                    });
                }
            }
            let names_before = match stored {
                true => self.names_of(conn, &new.code_hash).await?,
                false => Vec::new(),
            };
            if !stored {
                self.insert_capability(conn, new).await?;
            }
            let now = now_ms();
            let outcome = match named {
                Some(h) if h == new.code_hash => SaveOutcome::Unchanged,
                Some(previous) => {
                    sqlx::query(
                        "UPDATE pml_capability_names SET code_hash = $1, created_at = $2 WHERE name = $3",
                    )
                    .bind(&new.code_hash)
                    .bind(now)
                    .bind(&new.name)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                    SaveOutcome::Moved { previous }
                }
                None => {
                    sqlx::query(
                        "INSERT INTO pml_capability_names (name, code_hash, created_at) VALUES ($1, $2, $3)",
                    )
                    .bind(&new.name)
                    .bind(&new.code_hash)
                    .bind(now)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                    match stored {
                        true => SaveOutcome::Alias {
                            names: names_before,
                        },
                        false => SaveOutcome::Created,
                    }
                }
            };
            Ok(Saved {
                code_hash: new.code_hash.clone(),
                name: new.name.clone(),
                outcome,
            })
        })
        .await
    }

    async fn insert_capability(
        &self,
        conn: &mut AnyConnection,
        new: &NewCapability,
    ) -> Result<(), StoreError> {
        let db = |e| self.error(e);
        sqlx::query(
            "INSERT INTO pml_capabilities (code_hash, description, code, normalized_code,
                parameterized_code, parameters, parameter_schema, structure, tools, hil_tools,
                created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&new.code_hash)
        .bind(new.description.as_deref())
        .bind(&new.code)
        .bind(&new.normalized_code)
        .bind(&new.parameterized_code)
        .bind(new.parameters.to_string())
        .bind(new.parameter_schema.to_string())
        .bind(new.structure.to_string())
        .bind(json_list(&new.tools))
        .bind(json_list(&new.hil_tools))
        .bind(now_ms())
        .execute(&mut *conn)
        .await
        .map_err(db)?;
        for dependency in &new.dependencies {
            sqlx::query(
                "INSERT INTO pml_capability_dependencies (code_hash, depends_on) VALUES ($1, $2)",
            )
            .bind(&new.code_hash)
            .bind(dependency)
            .execute(&mut *conn)
            .await
            .map_err(db)?;
        }
        Ok(())
    }

    /// Every capability, oldest first.
    pub async fn capabilities(&self) -> Result<Vec<CapabilitySummary>, StoreError> {
        let db = |e| self.error(e);
        let rows = sqlx::query(
            "SELECT code_hash, description, tools, created_at FROM pml_capabilities
             ORDER BY created_at, code_hash",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let names = sqlx::query(
            "SELECT name, code_hash FROM pml_capability_names ORDER BY created_at, name",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let code_hash: String = row.try_get(0).map_err(db)?;
            let mut own = Vec::new();
            for n in &names {
                let hash: String = n.try_get(1).map_err(db)?;
                if hash == code_hash {
                    own.push(n.try_get(0).map_err(db)?);
                }
            }
            out.push(CapabilitySummary {
                description: row.try_get(1).map_err(db)?,
                tools: self.json_list_column(&row, 2)?,
                created_at: row.try_get(3).map_err(db)?,
                names: own,
                code_hash,
            });
        }
        Ok(out)
    }

    /// The capability named `key`, or whose hash is `key` or starts with it (6 characters at
    /// least).
    pub async fn capability(&self, key: &str) -> Result<Capability, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(|e| self.error(e))?;
        let code_hash = self.resolve(&mut conn, key).await?;
        let db = |e| self.error(e);
        let row = sqlx::query(
            "SELECT code_hash, description, code, normalized_code, parameterized_code,
                parameters, parameter_schema, structure, tools, hil_tools, created_at
             FROM pml_capabilities WHERE code_hash = $1",
        )
        .bind(&code_hash)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db)?
        .ok_or_else(|| StoreError::NotFound(key.to_string()))?;
        let dependencies = sqlx::query(
            "SELECT depends_on FROM pml_capability_dependencies WHERE code_hash = $1
             ORDER BY depends_on",
        )
        .bind(&code_hash)
        .fetch_all(&mut *conn)
        .await
        .map_err(db)?
        .iter()
        .map(|r| r.try_get::<String, _>(0))
        .collect::<Result<_, _>>()
        .map_err(db)?;
        Ok(Capability {
            names: self.names_of(&mut conn, &code_hash).await?,
            code_hash,
            description: row.try_get(1).map_err(db)?,
            code: row.try_get(2).map_err(db)?,
            normalized_code: row.try_get(3).map_err(db)?,
            parameterized_code: row.try_get(4).map_err(db)?,
            parameters: self.json_column(&row, 5)?,
            parameter_schema: self.json_column(&row, 6)?,
            structure: self.json_column(&row, 7)?,
            tools: self.json_list_column(&row, 8)?,
            hil_tools: self.json_list_column(&row, 9)?,
            created_at: row.try_get(10).map_err(db)?,
            dependencies,
        })
    }

    /// Remove a name (the capability goes with its last name), or, given a hash, the
    /// capability and all its names.
    pub async fn remove_capability(&self, key: &str) -> Result<Removed, StoreError> {
        self.write(async |conn| {
            let db = |e| self.error(e);
            if let Some(code_hash) = self.hash_of_name(conn, key).await? {
                sqlx::query("DELETE FROM pml_capability_names WHERE name = $1")
                    .bind(key)
                    .execute(&mut *conn)
                    .await
                    .map_err(db)?;
                let last = self.names_of(conn, &code_hash).await?.is_empty();
                if last {
                    self.delete_capability(conn, &code_hash).await?;
                }
                return Ok(Removed {
                    code_hash,
                    names: vec![key.to_string()],
                    capability_removed: last,
                });
            }
            let code_hash = self.resolve(conn, key).await?;
            let names = self.names_of(conn, &code_hash).await?;
            self.delete_capability(conn, &code_hash).await?;
            Ok(Removed {
                code_hash,
                names,
                capability_removed: true,
            })
        })
        .await
    }

    async fn delete_capability(
        &self,
        conn: &mut AnyConnection,
        code_hash: &str,
    ) -> Result<(), StoreError> {
        // Children first: no reliance on ON DELETE CASCADE being enforced.
        for delete in [
            "DELETE FROM pml_capability_names WHERE code_hash = $1",
            "DELETE FROM pml_capability_dependencies WHERE code_hash = $1",
            "DELETE FROM pml_capabilities WHERE code_hash = $1",
        ] {
            sqlx::query(delete)
                .bind(code_hash)
                .execute(&mut *conn)
                .await
                .map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// The hash `key` names: a name, a whole hash, or the unique hash starting with it.
    async fn resolve(&self, conn: &mut AnyConnection, key: &str) -> Result<String, StoreError> {
        if let Some(hash) = self.hash_of_name(conn, key).await? {
            return Ok(hash);
        }
        let hexadecimal = key.len() >= 6 && key.bytes().all(|b| b.is_ascii_hexdigit());
        if !hexadecimal {
            return Err(StoreError::NotFound(key.to_string()));
        }
        let db = |e| self.error(e);
        let rows = sqlx::query(
            "SELECT code_hash FROM pml_capabilities WHERE code_hash >= $1 AND code_hash < $2
             ORDER BY code_hash LIMIT 6",
        )
        .bind(key.to_ascii_lowercase())
        .bind(format!("{}~", key.to_ascii_lowercase()))
        .fetch_all(&mut *conn)
        .await
        .map_err(db)?;
        let hashes: Vec<String> = rows
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(db)?;
        match hashes.as_slice() {
            [] => Err(StoreError::NotFound(key.to_string())),
            [one] => Ok(one.clone()),
            many => Err(StoreError::Ambiguous {
                prefix: key.to_string(),
                matches: many.join(", "),
            }),
        }
    }

    async fn hash_of_name(
        &self,
        conn: &mut AnyConnection,
        name: &str,
    ) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT code_hash FROM pml_capability_names WHERE name = $1")
            .bind(name)
            .fetch_optional(&mut *conn)
            .await
            .map_err(|e| self.error(e))?;
        row.map(|r| r.try_get(0))
            .transpose()
            .map_err(|e| self.error(e))
    }

    pub(crate) async fn names_of(
        &self,
        conn: &mut AnyConnection,
        code_hash: &str,
    ) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT name FROM pml_capability_names WHERE code_hash = $1 ORDER BY created_at, name",
        )
        .bind(code_hash)
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| self.error(e))?;
        rows.iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(e))
    }

    fn json_column(&self, row: &AnyRow, index: usize) -> Result<Value, StoreError> {
        let text: String = row.try_get(index).map_err(|e| self.error(e))?;
        pml_jstext::parse(&text).map_err(|e| StoreError::Corrupt {
            location: self.location.clone(),
            message: format!("a stored JSON document does not parse: {e}"),
        })
    }

    fn json_list_column(&self, row: &AnyRow, index: usize) -> Result<Vec<String>, StoreError> {
        serde_json::from_value(self.json_column(row, index)?).map_err(|e| StoreError::Corrupt {
            location: self.location.clone(),
            message: format!("a stored list is not a list of strings: {e}"),
        })
    }
}

fn json_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}
