//! The receivers' SQL. Each statement is written once with `$1`
//! placeholders and runs on SQLite and PostgreSQL.

use chrono::{DateTime, SubsecRound, Utc};
use lab_platform::{Db, DbTx, with_pool, with_reader, with_tx};
use lab_wire::LabId;
use lab_wire::webhook::WebhookEvent;

const INSERT_SHIPMENT: &str = "INSERT INTO shipments \
     (id, receiver, lab_id, event_id, order_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)";
/// `ON CONFLICT DO NOTHING`: a second delivery inserts no row (and, while
/// the first is uncommitted, waits to see whether it commits).
const RECORD_EVENT: &str = "INSERT INTO processed_events (lab_id, event_id, processed_at) \
     VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
const COUNT_FOR_EVENT: &str = "SELECT COUNT(*) FROM shipments \
     WHERE lab_id = $1 AND receiver = $2 AND event_id = $3";
const COUNT_SHIPMENTS: &str = "SELECT COUNT(*), COUNT(DISTINCT order_id) FROM shipments \
     WHERE lab_id = $1 AND receiver = $2";
const FORGET_SHIPMENTS: &str = "DELETE FROM shipments WHERE lab_id = $1 AND receiver = $2";
const FORGET_PROCESSED: &str = "DELETE FROM processed_events WHERE lab_id = $1";
const DELETE_OLD_SHIPMENTS: &str = "DELETE FROM shipments WHERE created_at < $1";
const DELETE_OLD_PROCESSED: &str = "DELETE FROM processed_events WHERE processed_at < $1";

/// The insert of one shipment, for either backend.
macro_rules! shipment {
    ($receiver:expr, $lab:expr, $event:expr) => {
        sqlx::query(INSERT_SHIPMENT)
            .bind(format!("sh_{}", uuid::Uuid::new_v4().simple()))
            .bind($receiver)
            .bind($lab.as_str())
            .bind($event.id.as_str())
            .bind($event.data.order.as_str())
            .bind(Utc::now().trunc_subsecs(6))
    };
}

/// Whether an event was new to the inbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// This delivery recorded it (not yet committed): it ships.
    Now,
    /// It was processed before: nothing to do.
    Before,
}

/// Records `event_id` as processed for `lab`, inside `tx`.
pub async fn record_processed(
    tx: &mut DbTx,
    lab: &LabId,
    event_id: &str,
) -> sqlx::Result<Recorded> {
    let inserted = with_tx!(tx, |conn| {
        sqlx::query(RECORD_EVENT)
            .bind(lab.as_str())
            .bind(event_id)
            .bind(Utc::now().trunc_subsecs(6))
            .execute(&mut *conn)
            .await?
            .rows_affected()
    });
    Ok(if inserted == 1 {
        Recorded::Now
    } else {
        Recorded::Before
    })
}

/// Ships the order `event` paid for, as `receiver`, inside `tx`.
pub async fn ship_in(
    tx: &mut DbTx,
    receiver: &str,
    lab: &LabId,
    event: &WebhookEvent,
) -> sqlx::Result<()> {
    with_tx!(tx, |conn| {
        shipment!(receiver, lab, event).execute(&mut *conn).await?;
    });
    Ok(())
}

/// Ships the order `event` paid for, as `receiver`, on its own.
pub async fn ship(db: &Db, receiver: &str, lab: &LabId, event: &WebhookEvent) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        shipment!(receiver, lab, event).execute(pool).await?;
    });
    Ok(())
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// How many shipments `receiver` made for `lab` on `event_id`.
pub async fn shipments_for_event(
    db: &Db,
    receiver: &str,
    lab: &LabId,
    event_id: &str,
) -> sqlx::Result<u64> {
    let (n,): (i64,) = with_reader!(db, |pool| {
        sqlx::query_as(COUNT_FOR_EVENT)
            .bind(lab.as_str())
            .bind(receiver)
            .bind(event_id)
            .fetch_one(pool)
            .await?
    });
    Ok(count(n))
}

/// How many shipments `receiver` made for `lab`, and for how many orders.
pub async fn shipments(db: &Db, receiver: &str, lab: &LabId) -> sqlx::Result<(u64, u64)> {
    let (all, orders): (i64, i64) = with_reader!(db, |pool| {
        sqlx::query_as(COUNT_SHIPMENTS)
            .bind(lab.as_str())
            .bind(receiver)
            .fetch_one(pool)
            .await?
    });
    Ok((count(all), count(orders)))
}

/// Forgets what `receiver` shipped for `lab` (and, for the inbox, which
/// events it processed), as if the shop were new.
pub async fn forget(db: &Db, receiver: &str, lab: &LabId, inbox: bool) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        let mut tx = pool.begin().await?;
        sqlx::query(FORGET_SHIPMENTS)
            .bind(lab.as_str())
            .bind(receiver)
            .execute(&mut *tx)
            .await?;
        if inbox {
            sqlx::query(FORGET_PROCESSED)
                .bind(lab.as_str())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
    });
    Ok(())
}

/// Deletes shipments and processed events from before `before`; how many went.
pub async fn delete_older_than(db: &Db, before: DateTime<Utc>) -> sqlx::Result<u64> {
    let mut deleted = 0;
    for statement in [DELETE_OLD_SHIPMENTS, DELETE_OLD_PROCESSED] {
        deleted += with_pool!(db, |pool| {
            sqlx::query(statement)
                .bind(before)
                .execute(pool)
                .await?
                .rows_affected()
        });
    }
    Ok(deleted)
}
