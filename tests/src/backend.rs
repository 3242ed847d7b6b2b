//! The two storage backends the tests run against.

use std::path::PathBuf;

use lab_core::Db;
use sqlx::Connection;

/// Where a test server keeps its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file per server.
    Sqlite,
    /// The PostgreSQL database named by `TEST_DATABASE_URL`
    /// (default: database `idempotency_lab_test` on 127.0.0.1:5432).
    Postgres,
}

/// The PostgreSQL server the tests use unless `TEST_DATABASE_URL` says otherwise.
pub const DEFAULT_TEST_DATABASE_URL: &str =
    "postgres://postgres@127.0.0.1:5432/idempotency_lab_test";

impl Backend {
    /// Connects to a database for one test server, creating it if needed.
    pub async fn connect(self) -> Db {
        let url = self.database_url().await;
        Db::connect(&url).await.unwrap_or_else(|error| {
            panic!("{error}\n(the tests need PostgreSQL; `cargo xtask test` starts it)")
        })
    }

    /// A database URL for one test server: a new SQLite file, or the shared
    /// PostgreSQL test database (created if missing).
    pub async fn database_url(self) -> String {
        match self {
            Self::Sqlite => {
                let dir = std::env::temp_dir().join("idempotency-lab-tests");
                std::fs::create_dir_all(&dir).expect("create the test database folder");
                let file: PathBuf = dir.join(format!("{}.db", uuid::Uuid::new_v4()));
                format!("sqlite://{}", file.display())
            }
            Self::Postgres => {
                let url = std::env::var("TEST_DATABASE_URL")
                    .unwrap_or_else(|_| DEFAULT_TEST_DATABASE_URL.to_owned());
                create_postgres_database_if_missing(&url).await;
                url
            }
        }
    }

    /// Like [`Self::database_url`], but on PostgreSQL a database of the
    /// test's own (the test database's name and `_{purpose}`), for a test
    /// whose client uses the shared default lab.
    pub async fn own_database_url(self, purpose: &str) -> String {
        match self {
            Self::Sqlite => self.database_url().await,
            Self::Postgres => {
                let shared = self.database_url().await;
                let (before_query, query) = shared.split_once('?').unwrap_or((&shared, ""));
                let mut url = format!("{before_query}_{purpose}");
                if !query.is_empty() {
                    url = format!("{url}?{query}");
                }
                create_postgres_database_if_missing(&url).await;
                url
            }
        }
    }
}

async fn create_postgres_database_if_missing(url: &str) {
    let (server, name) = url
        .rsplit_once('/')
        .expect("a PostgreSQL URL ends in /DATABASE");
    let name = name.split('?').next().unwrap_or(name);
    assert!(
        name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "test database name {name:?} must be letters, digits and underscores"
    );
    let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres"))
        .await
        .unwrap_or_else(|error| {
            panic!("cannot reach PostgreSQL at {server}: {error}\n(`cargo xtask test` starts it)")
        });
    let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(&mut admin)
        .await
        .expect("look up the test database");
    if exists.is_none() {
        // Tests start in parallel: another one may create it first, which is fine.
        let create = format!("CREATE DATABASE {name}");
        if let Err(error) = sqlx::query(sqlx::AssertSqlSafe(create))
            .execute(&mut admin)
            .await
        {
            let already = error
                .as_database_error()
                .and_then(|db| db.code())
                .is_some_and(|code| code == "42P04" || code == "23505");
            assert!(already, "cannot create the test database {name}: {error}");
        }
    }
    let _ = admin.close().await;
}
