//! The atomic-phases server's SQL. Each statement is written once with `$1`
//! placeholders and runs on SQLite and PostgreSQL. Every phase moves the
//! key's recovery point from the one it started at, and only from there:
//! a request that finds the point moved has lost the key to another.

use chrono::{DateTime, SubsecRound, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{
    Db, DbTx, LabError, OrderTables, ServerStorage, StoredResponse, UniqueInsert, with_pool,
    with_reader, with_tx,
};
use lab_wire::{Gate, IdempotencyKey, LabId, NewOrder, Order};

/// How far a key's request got: each point is a phase that has committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryPoint {
    /// The key is claimed; nothing else is done.
    Started,
    /// The order is stored; the card is not charged yet.
    OrderCreated,
    /// The provider charged the card, and the charge is recorded.
    Charged,
    /// The e-mail is staged and the answer saved: nothing is left to do.
    Finished,
}

impl RecoveryPoint {
    fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::OrderCreated => "order-created",
            Self::Charged => "charged",
            Self::Finished => "finished",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [
            Self::Started,
            Self::OrderCreated,
            Self::Charged,
            Self::Finished,
        ]
        .into_iter()
        .find(|point| point.as_str() == text)
    }
}

/// What claiming a key came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// A new key: this request does every phase.
    New,
    /// An unfinished key whose lock had run out (its request crashed) or
    /// was let go (its request failed): this request resumes it.
    Resume(RecoveryPoint),
    /// A finished key: its answer, and whose request it was.
    Answered {
        fingerprint: String,
        stored: StoredResponse,
    },
    /// Another request holds the key's lock now, or the key belongs to a
    /// different request.
    Held { fingerprint: String },
}

/// What a claim records.
pub struct ClaimTerms<'a> {
    pub fingerprint: &'a str,
    pub expires_at: DateTime<Utc>,
    pub locked_until: DateTime<Utc>,
}

const DELETE_EXPIRED_KEY: &str = "DELETE FROM phased_idempotency_keys \
     WHERE lab_id = $1 AND idempotency_key = $2 AND recovery_point = 'finished' AND expires_at <= $3";
const INSERT_KEY: &str = "INSERT INTO phased_idempotency_keys \
     (lab_id, idempotency_key, request_fingerprint, recovery_point, locked_until, created_at, expires_at) \
     VALUES ($1, $2, $3, 'started', $4, $5, $6)";
/// Takes the lock of an unfinished key whose lock has passed, for the same request.
const TAKE_LOCK: &str = "UPDATE phased_idempotency_keys SET locked_until = $3 \
     WHERE lab_id = $1 AND idempotency_key = $2 AND recovery_point <> 'finished' \
     AND locked_until <= $4 AND request_fingerprint = $5 RETURNING recovery_point";
const FIND_KEY: &str = "SELECT request_fingerprint, recovery_point, status_code, response_body \
     FROM phased_idempotency_keys WHERE lab_id = $1 AND idempotency_key = $2";
/// Moves the recovery point from `$3` to `$4` (and records a charge `$5`, if any).
const ADVANCE: &str = "UPDATE phased_idempotency_keys \
     SET recovery_point = $4, charge_id = COALESCE($5, charge_id) \
     WHERE lab_id = $1 AND idempotency_key = $2 AND recovery_point = $3";
const FINISH: &str = "UPDATE phased_idempotency_keys \
     SET recovery_point = 'finished', status_code = $3, response_body = $4, locked_until = $5 \
     WHERE lab_id = $1 AND idempotency_key = $2 AND recovery_point = 'charged'";
const UNLOCK: &str = "UPDATE phased_idempotency_keys SET locked_until = $3 \
     WHERE lab_id = $1 AND idempotency_key = $2 AND recovery_point <> 'finished'";
const STAGE_EMAIL: &str = "INSERT INTO phased_outbox (id, lab_id, order_id, subject, created_at) \
     VALUES ($1, $2, $3, $4, $5)";

/// Claims `key`, or says who has it: see [`Claim`].
pub async fn claim(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    terms: &ClaimTerms<'_>,
) -> sqlx::Result<Claim> {
    let now = Utc::now().trunc_subsecs(6);
    // A finished key past its retention no longer counts: a late retry is
    // a new request.
    with_pool!(db, Gate::ClearExpired, |pool| {
        sqlx::query(DELETE_EXPIRED_KEY)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(now)
            .execute(pool)
            .await?;
    });
    let inserted = with_pool!(db, Gate::Claim, |pool| {
        sqlx::query(INSERT_KEY)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(terms.fingerprint)
            .bind(terms.locked_until)
            .bind(now)
            .bind(terms.expires_at)
            .execute(pool)
            .await
            .map(|_| ())
    });
    if UniqueInsert::of(inserted)? == UniqueInsert::Inserted {
        return Ok(Claim::New);
    }
    // One statement takes the lock: of racing retries, one gets the row back.
    let resumed: Option<(String,)> = with_pool!(db, Gate::TakeOver, |pool| {
        sqlx::query_as(TAKE_LOCK)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(terms.locked_until)
            .bind(now)
            .bind(terms.fingerprint)
            .fetch_optional(pool)
            .await?
    });
    if let Some(point) = resumed.and_then(|(point,)| RecoveryPoint::parse(&point)) {
        return Ok(Claim::Resume(point));
    }
    let row: Option<(String, String, Option<i32>, Option<String>)> =
        with_pool!(db, Gate::LookUp, |pool| {
            sqlx::query_as(FIND_KEY)
                .bind(lab.as_str())
                .bind(key.as_str())
                .fetch_optional(pool)
                .await?
        });
    Ok(match row {
        Some((fingerprint, point, Some(status), Some(body))) if point == "finished" => {
            Claim::Answered {
                fingerprint,
                stored: StoredResponse {
                    status: u16::try_from(status).unwrap_or(500),
                    body,
                },
            }
        }
        Some((fingerprint, ..)) => Claim::Held { fingerprint },
        // Deleted between our statements (the lab was cleared): retry.
        None => Claim::Held {
            fingerprint: terms.fingerprint.to_owned(),
        },
    })
}

/// Phase "order": stores the order and moves the key to
/// [`RecoveryPoint::OrderCreated`], in one transaction.
pub async fn create_order(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    order: &NewOrder,
) -> Result<Order, LabError> {
    let mut tx = db.begin_for(lab).await?;
    let created = STORAGE
        .order_tables
        .insert_order_in(&mut tx, db.orders_per_lab(), lab, key, order)
        .await?;
    let moved = advance_in(
        &mut tx,
        lab,
        key,
        RecoveryPoint::Started,
        RecoveryPoint::OrderCreated,
        None,
    )
    .await?;
    if !moved {
        // Another request took the key over and got further: ours is late.
        drop(tx);
        return Err(LabError::KeyInFlight);
    }
    tx.commit().await?;
    Ok(created)
}

/// The order an earlier request stored for `key`.
pub async fn stored_order(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
) -> sqlx::Result<Option<Order>> {
    STORAGE
        .order_tables
        .order_written_since(db, lab, key, DateTime::<Utc>::UNIX_EPOCH)
        .await
}

/// Phase "charged": records the provider's charge and moves the key to
/// [`RecoveryPoint::Charged`]; `false` if another request moved it first.
pub async fn record_charge(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    charge_id: Option<&str>,
) -> sqlx::Result<bool> {
    let moved = with_pool!(db, Gate::SavePhase, |pool| {
        sqlx::query(ADVANCE)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(RecoveryPoint::OrderCreated.as_str())
            .bind(RecoveryPoint::Charged.as_str())
            .bind(charge_id)
            .execute(pool)
            .await?
            .rows_affected()
    });
    Ok(moved == 1)
}

/// Phase "finished": stages the confirmation e-mail in the outbox (if
/// `stage_email`), saves the answer and finishes the key, in one transaction.
pub async fn finish(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    order: &Order,
    stored: &StoredResponse,
    stage_email: bool,
) -> Result<(), LabError> {
    let now = Utc::now().trunc_subsecs(6);
    let mut tx = db.begin_for(lab).await?;
    if stage_email {
        with_tx!(&mut tx, Gate::QueueEmail, |conn| {
            sqlx::query(STAGE_EMAIL)
                .bind(format!("msg_{}", uuid::Uuid::new_v4().simple()))
                .bind(lab.as_str())
                .bind(order.id.to_string())
                .bind(lab_core::outside::confirmation_subject(order))
                .bind(now)
                .execute(&mut *conn)
                .await?;
        });
    }
    let finished = with_tx!(&mut tx, Gate::SaveAnswer, |conn| {
        sqlx::query(FINISH)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(i32::from(stored.status))
            .bind(&stored.body)
            .bind(now)
            .execute(&mut *conn)
            .await?
            .rows_affected()
    });
    if finished != 1 {
        drop(tx);
        return Err(LabError::KeyInFlight);
    }
    tx.commit().await?;
    Ok(())
}

/// Lets go of the key's lock after a failure, so a retry may resume at once.
pub async fn unlock(db: &Db, lab: &LabId, key: &IdempotencyKey) -> sqlx::Result<()> {
    with_pool!(db, Gate::ReleaseClaim, |pool| {
        sqlx::query(UNLOCK)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(Utc::now().trunc_subsecs(6))
            .execute(pool)
            .await?;
    });
    Ok(())
}

async fn advance_in(
    tx: &mut DbTx,
    lab: &LabId,
    key: &IdempotencyKey,
    from: RecoveryPoint,
    to: RecoveryPoint,
    charge_id: Option<&str>,
) -> sqlx::Result<bool> {
    let moved = with_tx!(tx, Gate::SavePhase, |conn| {
        sqlx::query(ADVANCE)
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(from.as_str())
            .bind(to.as_str())
            .bind(charge_id)
            .execute(conn)
            .await?
            .rows_affected()
    });
    Ok(moved == 1)
}

/// Counts what a lab's outbox still holds.
const WAITING_EMAILS: &str =
    "SELECT COUNT(*) FROM phased_outbox WHERE lab_id = $1 AND sent_at IS NULL";

/// How many e-mails of `lab` wait in the outbox.
pub async fn waiting_emails(db: &Db, lab: &LabId) -> sqlx::Result<u64> {
    let (count,): (i64,) = with_reader!(db, |pool| {
        sqlx::query_as(WAITING_EMAILS)
            .bind(lab.as_str())
            .fetch_one(pool)
            .await?
    });
    Ok(u64::try_from(count).unwrap_or(0))
}

/// Where the atomic-phases server keeps its orders and keys.
pub static STORAGE: ServerStorage = ServerStorage {
    order_tables: OrderTables {
        server: "phased",
        delete_keys: "DELETE FROM phased_idempotency_keys WHERE lab_id = $1",
    },
    expired_keys: ExpiredKeys {
        table: "phased_idempotency_keys",
        // Deletes up to `$2` keys that expired before `$1` and hold no lock:
        // a finished key past its retention, or an abandoned one past both.
        delete_batch: "DELETE FROM phased_idempotency_keys \
                      WHERE expires_at <= $1 AND locked_until <= $1 \
                      AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key \
                      FROM phased_idempotency_keys WHERE expires_at <= $1 AND locked_until <= $1 LIMIT $2)",
        // Deletes up to `$2` keys created before `$1` in labs with no order here since `$1`.
        delete_idle_batch: "DELETE FROM phased_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'phased' AND created_at >= $1) \
                           AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM phased_idempotency_keys \
                           WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'phased' AND created_at >= $1) LIMIT $2)",
    },
    migrations: lab_core::migrations!(),
};
