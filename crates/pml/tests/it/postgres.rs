//! PostgreSQL for the tests that run `pml` on it: the server `scripts/with-postgres.sh`
//! started (`PML_TEST_POSTGRES_URL`), a fresh database per store.

/// The server's URL; `None` (the test skips PostgreSQL) unless `PML_REQUIRE_POSTGRES` is set,
/// as the README's test command sets it.
pub(crate) fn url() -> Option<String> {
    match std::env::var("PML_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("PML_REQUIRE_POSTGRES").is_none(),
                "PML_REQUIRE_POSTGRES is set but PML_TEST_POSTGRES_URL is not"
            );
            None
        }
    }
}

/// A new, empty database on the server of `url`: its URL.
pub(crate) fn fresh_database(url: &str) -> String {
    use sqlx::Connection;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "pml_cli_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut admin = sqlx::PgConnection::connect(url)
            .await
            .expect("connect to PostgreSQL");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut admin)
            .await
            .unwrap();
        admin.close().await.unwrap();
    });
    // The database is the URL's path segment (before any `?`).
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let authority = base.find("://").map_or(0, |i| i + 3);
    let end = base[authority..]
        .find('/')
        .map_or(base.len(), |j| authority + j);
    match query {
        "" => format!("{}/{name}", &base[..end]),
        query => format!("{}/{name}?{query}", &base[..end]),
    }
}
