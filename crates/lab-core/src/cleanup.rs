//! The cleanup job: expired idempotency keys are deleted in batches, so the
//! key tables do not grow forever. (A retry after expiry is already treated
//! as new by the servers; this only reclaims the space.)

use std::time::Duration;

use chrono::Utc;
use tokio::task::JoinHandle;

use crate::{Db, with_pool};

/// Rows deleted per statement, so a big backlog never holds a long lock.
pub const BATCH: i64 = 500;

/// One key table's cleanup: its name for the log, and its delete statement
/// (`$1` now, `$2` the batch size).
#[derive(Debug, Clone, Copy)]
pub struct ExpiredKeys {
    /// The table, for log lines.
    pub table: &'static str,
    /// Deletes up to `$2` rows that expired before `$1`.
    pub delete_batch: &'static str,
}

/// Deletes every key in `job`'s table that has expired by now, a batch at a
/// time; returns how many.
pub async fn delete_expired_keys(db: &Db, job: ExpiredKeys) -> sqlx::Result<u64> {
    let now = Utc::now();
    let mut total = 0;
    loop {
        let deleted = with_pool!(db, |pool| {
            sqlx::query(job.delete_batch)
                .bind(now)
                .bind(BATCH)
                .execute(pool)
                .await?
                .rows_affected()
        });
        total += deleted;
        if deleted < BATCH as u64 {
            return Ok(total);
        }
    }
}

/// Runs every job now and then every `every`, logging what each deleted.
pub fn spawn_cleanup(db: Db, jobs: Vec<ExpiredKeys>, every: Duration) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            for job in &jobs {
                match delete_expired_keys(&db, *job).await {
                    Ok(0) => {}
                    Ok(deleted) => tracing::info!(
                        table = job.table,
                        deleted,
                        "deleted expired idempotency keys"
                    ),
                    Err(error) => {
                        tracing::warn!(table = job.table, %error, "expired-key cleanup failed; retrying later")
                    }
                }
            }
        }
    })
}
