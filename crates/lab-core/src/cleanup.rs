//! The cleanup job, so that nothing a shared server stores grows forever:
//! expired idempotency keys are deleted (a retry after expiry is already
//! treated as new; this reclaims the space), claims whose request never
//! answered go once their lock and retention are both past, and the orders
//! and keys of a lab that has placed no order on a server for a while
//! (`--forget-idle-labs-after-days`, a week) are forgotten there. Every
//! delete runs in batches, so a big backlog never holds a long lock.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::task::JoinHandle;

use crate::server::{ExpiredKeys, ServerStorage};
use lab_platform::{Db, with_pool};

/// Rows deleted per statement, so a big backlog never holds a long lock.
pub const BATCH: i64 = 500;

/// Deletes every key in `job`'s table that has expired by now; returns how many.
pub async fn delete_expired_keys(db: &Db, job: ExpiredKeys) -> sqlx::Result<u64> {
    delete_expired_keys_at(db, job, Utc::now()).await
}

/// Deletes every key in `job`'s table that has expired by `now`, a batch
/// at a time; returns how many.
pub async fn delete_expired_keys_at(
    db: &Db,
    job: ExpiredKeys,
    now: DateTime<Utc>,
) -> sqlx::Result<u64> {
    delete_in_batches(db, job.delete_batch, None, now).await
}

/// What forgetting idle labs on one server deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Orders deleted.
    pub orders: u64,
    /// Idempotency keys deleted.
    pub keys: u64,
}

/// Forgets, on the server of `storage`, the orders and keys of every lab
/// that has placed no order there since `idle_since`.
pub async fn forget_idle_labs(
    db: &Db,
    storage: &ServerStorage,
    idle_since: DateTime<Utc>,
) -> sqlx::Result<Forgotten> {
    // Keys first: while its orders are still there, a lab's keys and
    // orders are judged by the same orders.
    let keys =
        delete_in_batches(db, storage.expired_keys.delete_idle_batch, None, idle_since).await?;
    let orders = delete_in_batches(
        db,
        crate::orders::DELETE_IDLE_ORDERS,
        Some(storage.order_tables.server),
        idle_since,
    )
    .await?;
    Ok(Forgotten { orders, keys })
}

/// Runs `statement` (`$1` the time, `$2` the batch size; with `server`,
/// `$1` the server and `$2`, `$3` the others) until a batch comes back short.
async fn delete_in_batches(
    db: &Db,
    statement: &'static str,
    server: Option<&'static str>,
    at: DateTime<Utc>,
) -> sqlx::Result<u64> {
    let mut total = 0;
    loop {
        let deleted = with_pool!(db, |pool| {
            let query = match server {
                Some(server) => sqlx::query(statement).bind(server),
                None => sqlx::query(statement),
            };
            query
                .bind(at)
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

/// What the cleanup job does, and how often.
#[derive(Debug, Clone)]
pub struct Cleanup {
    /// The servers whose tables it cleans.
    pub servers: Vec<&'static ServerStorage>,
    /// The pause between two runs.
    pub every: Duration,
    /// How long a lab may place no order on a server before its orders and
    /// keys there are forgotten.
    pub forget_idle_labs_after: Duration,
}

/// Runs the cleanup now and then every `cleanup.every`, logging what it deleted.
pub fn spawn_cleanup(db: Db, cleanup: Cleanup) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(cleanup.every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let idle_for = chrono::Duration::from_std(cleanup.forget_idle_labs_after)
            .unwrap_or(chrono::Duration::MAX);
        loop {
            ticks.tick().await;
            let idle_since = Utc::now()
                .checked_sub_signed(idle_for)
                .unwrap_or(DateTime::<Utc>::MIN_UTC);
            for storage in &cleanup.servers {
                run_once(&db, storage, idle_since).await;
            }
        }
    })
}

async fn run_once(db: &Db, storage: &ServerStorage, idle_since: DateTime<Utc>) {
    let table = storage.expired_keys.table;
    match delete_expired_keys(db, storage.expired_keys).await {
        Ok(0) => {}
        Ok(deleted) => tracing::info!(table, deleted, "deleted expired idempotency keys"),
        Err(error) => {
            tracing::warn!(table, %error, "expired-key cleanup failed; retrying later")
        }
    }
    let server = storage.order_tables.server;
    match forget_idle_labs(db, storage, idle_since).await {
        Ok(Forgotten { orders: 0, keys: 0 }) => {}
        Ok(Forgotten { orders, keys }) => {
            tracing::info!(
                server,
                orders,
                keys,
                "forgot the orders and keys of idle labs"
            )
        }
        Err(error) => {
            tracing::warn!(server, %error, "forgetting idle labs failed; retrying later")
        }
    }
}
