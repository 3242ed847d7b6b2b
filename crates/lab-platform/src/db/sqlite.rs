//! The embedded SQLite file: one connection that writes, read-only ones
//! beside it, and the log's checkpoints kept off the writer's path.
//!
//! Why a checkpointer of its own: in WAL mode a commit appends its pages
//! to the log, and by default the commit that takes the log past 1,000
//! pages also copies the log back into the database file and syncs both
//! to disk, on the writer, while every other write waits behind it. On
//! these machines that sync takes 15–25 ms and came about once per hundred
//! orders: it was the whole of SQLite's p99 (p50 0.7 ms, p99 17 ms with
//! one request in flight; docs/benchmarks.md). Here the writer never
//! checkpoints; a connection of its own does, a few times a second, a
//! *passive* checkpoint, which copies what no reader still needs and never
//! blocks a writer or a reader. Commits stay as durable as before
//! (`synchronous = NORMAL`: a commit survives a crash of the lab, the log
//! is synced at checkpoints).

use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqlitePool, SqlitePoolOptions};
use sqlx::{ConnectOptions, Connection};

/// How often the checkpointer copies the log into the database file. At
/// the most this machine writes (about 2,000 statements a second) the log
/// grows by a few hundred pages in between, under SQLite's own threshold.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// The connections to one SQLite file.
pub(crate) struct SqliteFile {
    /// The one connection that writes (never checkpoints).
    pub writer: SqlitePool,
    /// Read-only connections beside it.
    pub readers: SqlitePool,
    /// The task that checkpoints instead.
    pub checkpoints: Checkpoints,
}

/// The task that checkpoints the file's log; it stops when the last clone
/// of this handle is dropped (the storage it belongs to is gone) or
/// [`Checkpoints::stop`] is called.
#[derive(Debug, Clone)]
pub struct Checkpoints(std::sync::Arc<StopOnDrop>);

#[derive(Debug)]
struct StopOnDrop(tokio::task::AbortHandle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Checkpoints {
    /// Stops checkpointing; the file's last connection to close still
    /// checkpoints what is left.
    pub fn stop(&self) {
        self.0.0.abort();
    }
}

/// Opens `options`' file (creating it if asked): the writer first, since
/// it creates the file, then the checkpointer and the readers.
pub(crate) async fn open(options: SqliteConnectOptions) -> sqlx::Result<SqliteFile> {
    // No ping before each use: a file does not hang up, and the writer is
    // the queue every write waits in.
    let writer = SqlitePoolOptions::new()
        .max_connections(1)
        .test_before_acquire(false)
        .connect_with(options.clone().pragma("wal_autocheckpoint", "0"))
        .await?;
    let checkpointer = options.clone().connect().await?;
    let readers = SqlitePoolOptions::new()
        .max_connections(8)
        .test_before_acquire(false)
        .connect_with(options.create_if_missing(false).read_only(true))
        .await?;
    let task = tokio::spawn(checkpoint_every_little_while(checkpointer));
    Ok(SqliteFile {
        writer,
        readers,
        checkpoints: Checkpoints(std::sync::Arc::new(StopOnDrop(task.abort_handle()))),
    })
}

/// Copies the log into the database file every [`CHECKPOINT_EVERY`],
/// until stopped. A checkpoint that fails (the disk is full, say) is
/// logged and tried again next time; the log only grows meanwhile.
async fn checkpoint_every_little_while(mut connection: SqliteConnection) {
    let mut ticks = tokio::time::interval(CHECKPOINT_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&mut connection)
            .await
        {
            tracing::warn!(%error, "checkpointing the SQLite log failed");
            if connection.ping().await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;
    use std::time::Instant;

    use sqlx::sqlite::SqliteJournalMode;

    use super::*;

    #[tokio::test]
    async fn the_checkpointer_not_the_writer_copies_the_log_into_the_file() {
        let path = std::env::temp_dir().join(format!(
            "idempotency-lab-checkpoints-{}.db",
            uuid::Uuid::new_v4().simple()
        ));
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
            .unwrap()
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal);
        let file = open(options).await.unwrap();
        let writer_checkpoints: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&file.writer)
            .await
            .unwrap();
        assert_eq!(writer_checkpoints, 0, "the writer never checkpoints");

        sqlx::query("CREATE TABLE filler (body BLOB)")
            .execute(&file.writer)
            .await
            .unwrap();
        let before = std::fs::metadata(&path).unwrap().len();
        for _ in 0..20 {
            sqlx::query("INSERT INTO filler VALUES (zeroblob(8192))")
                .execute(&file.writer)
                .await
                .unwrap();
        }
        // Committed pages reach the database file only by a checkpoint:
        // wait for it (it comes within CHECKPOINT_EVERY on an idle machine).
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::fs::metadata(&path).unwrap().len() < before + 20 * 8192 {
            assert!(
                Instant::now() < deadline,
                "no checkpoint copied the log into {} in 30 s",
                path.display()
            );
            tokio::time::sleep(CHECKPOINT_EVERY / 4).await;
        }
        file.checkpoints.stop();
        file.writer.close().await;
        file.readers.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}
