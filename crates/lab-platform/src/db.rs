//! The storage connection: an SQLite file by default, PostgreSQL when the
//! URL says so. Each server keeps its own SQL; this module only connects,
//! runs migrations and lets one query be written once for both backends.

use std::str::FromStr;
use std::time::Duration;

use lab_wire::{Gate, LabId};
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqliteSynchronous};

use crate::LabError;
use crate::gates;
use crate::limits::{LabPermit, PerLab};

mod both_backends;
mod sqlite;
mod statements;
pub use sqlite::Checkpoints;
pub use statements::Statements;

/// How an `INSERT` into a column the database keeps UNIQUE ended: the row
/// went in, or the database refused it because another request's row holds
/// that value already. This refusal, not an `if` in a handler, is what lets
/// exactly one of several racing requests claim a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniqueInsert {
    /// The row went in: this request holds the key.
    Inserted,
    /// A unique violation (PostgreSQL SQLSTATE 23505, SQLite extended code
    /// 2067): another request holds the key.
    Refused,
}

impl UniqueInsert {
    /// What `result`, an insert's outcome, says; any other error stays an error.
    pub fn of(result: sqlx::Result<()>) -> sqlx::Result<Self> {
        match result {
            Ok(()) => Ok(Self::Inserted),
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => Ok(Self::Refused),
            Err(error) => Err(error),
        }
    }
}

/// A set of migrations, one folder per backend so column types stay native.
#[derive(Debug)]
pub struct Migrations {
    /// The SQLite migrations.
    pub sqlite: Migrator,
    /// The PostgreSQL migrations.
    pub postgres: Migrator,
}

/// The migrations of the crate that calls it, from its `migrations/sqlite`
/// and `migrations/postgres` folders (a closure, for the crate that owns them).
#[macro_export]
macro_rules! migrations {
    () => {
        || $crate::Migrations {
            sqlite: ::sqlx::migrate!("migrations/sqlite"),
            postgres: ::sqlx::migrate!("migrations/postgres"),
        }
    };
}

/// Connections to one of the two supported databases.
#[derive(Debug, Clone)]
pub enum Db {
    /// An embedded SQLite file.
    Sqlite {
        /// The one connection that writes. SQLite lets one writer in at a
        /// time; queueing writers here, fairly, beats letting several
        /// connections collide and sleep in SQLite's busy handler (which
        /// showed as 9× p99/p50 tails in the benchmark).
        writer: SqlitePool,
        /// Read-only connections, which run beside the writer (WAL), so
        /// the naive server's look-ups really do overlap.
        readers: SqlitePool,
        /// The task that checkpoints the file's log, so the writer never does.
        checkpoints: Checkpoints,
        /// The most orders a lab may hold on each server (see [`Db::orders_per_lab`]).
        orders_per_lab: u32,
    },
    /// A PostgreSQL server.
    Postgres(Postgres),
}

/// The connections to a PostgreSQL server: some for statements, one pool for
/// transactions, shared fairly between labs.
#[derive(Debug, Clone)]
pub struct Postgres {
    /// Statements on their own (each holds its connection for a few
    /// milliseconds), and the short transactions of the shared code.
    pub statements: Statements,
    /// Migrations, and those short transactions ([`Statements::begin`]).
    pub pool: PgPool,
    /// The transactional server's transactions, which may hold their
    /// connection for a learner's whole `Lab-Delay-Ms` (the pause runs inside
    /// the transaction), or wait that long on another's lock. A pool of their
    /// own, so that however many of them pause, the statements of every other
    /// request still find a connection.
    pub transactions: PgPool,
    /// At most [`TRANSACTIONS_PER_LAB`] of those at once per lab, so one
    /// lab cannot take the whole transactions pool either.
    pub per_lab: PerLab,
    /// The most orders a lab may hold on each server (see [`Db::orders_per_lab`]).
    pub orders_per_lab: u32,
}

/// The transactional server's pool of `connections`, to the database of
/// `pool`. Opened as needed: most runs never pause in a transaction.
fn transactions_pool(pool: &PgPool, connections: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(connections)
        .acquire_timeout(Duration::from_secs(30))
        .test_before_acquire(false)
        .connect_lazy_with(pool.connect_options().as_ref().clone())
}

/// Connections for statements and the shared code's short transactions,
/// [`SHORT_TRANSACTION_CONNECTIONS`] of them for those (see [`Postgres::pool`]).
pub const STATEMENT_CONNECTIONS: u32 = 16;
/// Of [`STATEMENT_CONNECTIONS`], those for the shared code's short
/// transactions: with one, 200 learners saving their runs at once waited
/// up to 1.2 s for it (`bench --classroom`); with four, 0.26 s at most
/// (docs/benchmarks.md).
pub const SHORT_TRANSACTION_CONNECTIONS: u32 = 4;
/// Connections in the transactions pool, unless `--transaction-connections`
/// says otherwise. The transactional server holds one through a learner's
/// pause: with 24, 200 learners' ordinary orders waited up to 2.1 s for
/// one; with 64, 0.43 s (`bench --classroom`, docs/benchmarks.md). With the
/// 16 for statements, 80 of PostgreSQL's default 100 `max_connections`.
pub const TRANSACTION_CONNECTIONS: u32 = 64;
/// Transactions one lab may hold open at once on PostgreSQL; a lab's next
/// one waits (holding no connection) until one of them ends. Six copies
/// sent at once still race: four claim together, two right after.
pub const TRANSACTIONS_PER_LAB: u32 = 4;
/// Orders one lab may hold on each server unless the settings say
/// otherwise: a lesson places dozens, a curious learner's loop thousands.
pub const DEFAULT_ORDERS_PER_LAB: u32 = 1000;

/// An open transaction on whichever database a [`Db`] holds (on SQLite, on
/// its one writer connection). Dropped without [`DbTx::commit`], it rolls back.
#[derive(Debug)]
pub enum DbTx {
    /// A transaction on the SQLite writer.
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
    /// A transaction on a PostgreSQL connection, and the lab's share it holds.
    Postgres(sqlx::Transaction<'static, sqlx::Postgres>, LabPermit),
}

impl DbTx {
    /// Makes everything the transaction wrote visible, at once.
    pub async fn commit(self) -> sqlx::Result<()> {
        gates::wait_in_transaction(Gate::Commit, self.is_sqlite()).await;
        match self {
            Self::Sqlite(tx) => tx.commit().await,
            Self::Postgres(tx, _) => tx.commit().await,
        }
    }

    /// Undoes everything the transaction wrote.
    pub async fn rollback(self) -> sqlx::Result<()> {
        gates::wait_in_transaction(Gate::RollBack, self.is_sqlite()).await;
        match self {
            Self::Sqlite(tx) => tx.rollback().await,
            Self::Postgres(tx, _) => tx.rollback().await,
        }
    }

    /// Whether it runs on SQLite's one writer (see [`gates::wait_in_transaction`]).
    pub fn is_sqlite(&self) -> bool {
        matches!(self, Self::Sqlite(_))
    }
}

impl Db {
    /// Opens a transaction for writing on behalf of `lab`, which may hold
    /// it open for a while. On PostgreSQL it waits first for one of the
    /// lab's [`TRANSACTIONS_PER_LAB`] places, then takes a connection of the
    /// transactions pool; on SQLite the one writer serves everyone in turn.
    pub async fn begin_for(&self, lab: &LabId) -> sqlx::Result<DbTx> {
        gates::wait_at(Gate::Begin).await;
        Ok(match self {
            Self::Sqlite { writer, .. } => DbTx::Sqlite(writer.begin().await?),
            Self::Postgres(postgres) => {
                let place = postgres.per_lab.take(lab).await;
                let mut tx = postgres.transactions.begin().await?;
                if gates::is_scheduled() {
                    gates::runs_on(statements::backend_pid(&mut tx).await?, true);
                }
                DbTx::Postgres(tx, place)
            }
        })
    }

    /// The backends that keep PostgreSQL backend `pid` waiting for a lock
    /// (see [`Statements::blocking_backends`]); none on SQLite, where no
    /// request holds the writer across a gate.
    pub async fn blocking_backends(&self, pid: i32) -> sqlx::Result<Vec<i32>> {
        match self {
            Self::Sqlite { .. } => Ok(Vec::new()),
            Self::Postgres(postgres) => postgres.statements.blocking_backends(pid).await,
        }
    }

    /// The most orders one lab may hold on each server: an order past it is
    /// refused (`409 /problems/lab-orders-limit`) until the lab is cleared,
    /// so no lab can fill the disk of a shared server.
    pub fn orders_per_lab(&self) -> u32 {
        match self {
            Self::Sqlite { orders_per_lab, .. } => *orders_per_lab,
            Self::Postgres(postgres) => postgres.orders_per_lab,
        }
    }

    /// The same storage, with `limit` orders per lab and server.
    pub fn with_orders_per_lab(mut self, limit: u32) -> Self {
        match &mut self {
            Self::Sqlite { orders_per_lab, .. } => *orders_per_lab = limit,
            Self::Postgres(postgres) => postgres.orders_per_lab = limit,
        }
        self
    }

    /// The same storage, with `connections` in the transactions pool
    /// (PostgreSQL; SQLite has its one writer). The pool opens lazily, so it
    /// is rebuilt, not resized.
    pub fn with_transaction_connections(mut self, connections: u32) -> Self {
        if let Self::Postgres(postgres) = &mut self {
            postgres.transactions = transactions_pool(&postgres.pool, connections);
        }
        self
    }

    /// Whether a write transaction held open blocks only the rows it wrote
    /// (PostgreSQL) rather than every other writer of the database (SQLite,
    /// which lets one writer in at a time, every lab's included).
    pub fn locks_only_written_rows(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// Connects to `url` (`sqlite://…` or `postgres://…`), creating an SQLite file if needed.
    pub async fn connect(url: &str) -> Result<Self, LabError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let connect_error = |source| LabError::Connect {
                url: redact(url),
                source,
            };
            // No ping before each use (sqlx's default): it doubled the
            // round trips of every statement. A connection that broke is
            // dropped when its query fails; that request answers 500 once.
            let pool = PgPoolOptions::new()
                .max_connections(SHORT_TRANSACTION_CONNECTIONS)
                .acquire_timeout(Duration::from_secs(10))
                .test_before_acquire(false)
                .connect(url)
                .await
                .map_err(connect_error)?;
            let transactions = transactions_pool(&pool, TRANSACTION_CONNECTIONS);
            let statements = Statements::new(
                pool.clone(),
                STATEMENT_CONNECTIONS - SHORT_TRANSACTION_CONNECTIONS,
                Duration::from_secs(10),
            );
            return Ok(Self::Postgres(Postgres {
                statements,
                pool,
                transactions,
                per_lab: PerLab::new(TRANSACTIONS_PER_LAB),
                orders_per_lab: DEFAULT_ORDERS_PER_LAB,
            }));
        }
        if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .map_err(|source| LabError::Connect {
                    url: redact(url),
                    source,
                })?
                .create_if_missing(true)
                // WAL lets readers run beside the one writer, and the busy
                // timeout makes writers queue instead of failing: several
                // connections can then really overlap, which the naive race needs.
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10));
            let sqlite::SqliteFile {
                writer,
                readers,
                checkpoints,
            } = sqlite::open(options)
                .await
                .map_err(|source| LabError::Connect {
                    url: redact(url),
                    source,
                })?;
            return Ok(Self::Sqlite {
                writer,
                readers,
                checkpoints,
                orders_per_lab: DEFAULT_ORDERS_PER_LAB,
            });
        }
        Err(LabError::UnsupportedDatabaseUrl(redact(url)))
    }

    /// Applies one set of migrations (lab-core's or a server's), the folder
    /// that matches this backend.
    ///
    /// Every set records its migrations in the same bookkeeping table, so
    /// each must ignore the others' entries there.
    pub async fn migrate(&self, migrations: Migrations) -> Result<(), LabError> {
        let Migrations {
            mut sqlite,
            mut postgres,
        } = migrations;
        sqlite.set_ignore_missing(true);
        postgres.set_ignore_missing(true);
        match self {
            Self::Sqlite { writer, .. } => sqlite.run(writer).await?,
            Self::Postgres(pg) => postgres.run(&pg.pool).await?,
        }
        Ok(())
    }

    /// `sqlite` or `postgres`, for start-up messages.
    pub fn backend_name(&self) -> &'static str {
        match self {
            Self::Sqlite { .. } => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }

    /// Closes every connection, waiting for queries in progress.
    pub async fn close(&self) {
        match self {
            Self::Sqlite {
                writer,
                readers,
                checkpoints,
                ..
            } => {
                checkpoints.stop();
                readers.close().await;
                writer.close().await;
            }
            Self::Postgres(postgres) => {
                postgres.transactions.close().await;
                postgres.statements.close().await;
                postgres.pool.close().await;
            }
        }
    }
}

/// The URL without its password, safe to print and log.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _password)) => {
                    format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..])
                }
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_from_printed_urls() {
        assert_eq!(
            redact("postgres://ann:secret@db:5432/lab"),
            "postgres://ann:***@db:5432/lab"
        );
        assert_eq!(redact("postgres://ann@db/lab"), "postgres://ann@db/lab");
        assert_eq!(redact("sqlite://lab.db"), "sqlite://lab.db");
    }

    #[tokio::test]
    async fn an_unknown_scheme_is_refused_with_its_name() {
        let err = Db::connect("mysql://localhost/lab").await.unwrap_err();
        assert!(err.to_string().contains("mysql://localhost/lab"), "{err}");
    }
}
