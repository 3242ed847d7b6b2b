//! The safe server's SQL. Each query is written once and runs on both
//! SQLite and PostgreSQL (see `lab_core::with_pool!`).

use chrono::{DateTime, SubsecRound, Utc};
use lab_core::{Db, StoredResponse, with_pool};
use lab_wire::{IdempotencyKey, LabId, NewOrder, Order};
use uuid::Uuid;

/// Who got the key: this request, or an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This request inserted the key and must do the work.
    Won,
    /// The key was already there; the database said so with a unique violation.
    AlreadyClaimed,
}

/// What the key table says about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyState {
    /// No row: never claimed, or released after a failure.
    Absent,
    /// Claimed, and the request that claimed it has not answered yet.
    InFlight,
    /// Claimed and answered: this is the answer to replay.
    Answered(StoredResponse),
}

type OrderRow = (Uuid, String, i64, String, DateTime<Utc>);

fn order_from_row((id, item, amount_cents, idempotency_key, created_at): OrderRow) -> Order {
    Order {
        id,
        item,
        amount_cents,
        idempotency_key,
        created_at,
    }
}

/// Inserts the key with no response yet; a duplicate is refused by the
/// `safe_idempotency_keys_one_claim` constraint.
pub async fn claim_key(db: &Db, lab: &LabId, key: &IdempotencyKey) -> sqlx::Result<Claim> {
    let inserted = with_pool!(db, |pool| {
        sqlx::query("INSERT INTO safe_idempotency_keys (lab_id, idempotency_key, created_at) VALUES ($1, $2, $3)")
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(Utc::now())
            .execute(pool)
            .await
            .map(|_| ())
    });
    match inserted {
        Ok(()) => Ok(Claim::Won),
        // PostgreSQL SQLSTATE 23505, SQLite extended code 2067.
        Err(sqlx::Error::Database(error)) if error.is_unique_violation() => {
            Ok(Claim::AlreadyClaimed)
        }
        Err(error) => Err(error),
    }
}

/// The state of `key`.
pub async fn key_state(db: &Db, lab: &LabId, key: &IdempotencyKey) -> sqlx::Result<KeyState> {
    let row: Option<(Option<i32>, Option<String>)> = with_pool!(db, |pool| {
        sqlx::query_as(
            "SELECT status_code, response_body FROM safe_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .fetch_optional(pool)
        .await?
    });
    Ok(match row {
        None => KeyState::Absent,
        Some((Some(status), Some(body))) => KeyState::Answered(StoredResponse {
            status: status as u16,
            body,
        }),
        Some(_) => KeyState::InFlight,
    })
}

/// Creates an order.
pub async fn insert_order(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    new: &NewOrder,
) -> sqlx::Result<Order> {
    let order = Order {
        id: Uuid::new_v4(),
        item: new.item.clone(),
        amount_cents: new.amount_cents,
        idempotency_key: key.as_str().to_owned(),
        // PostgreSQL keeps microseconds: trim here so the 201 and later reads agree.
        created_at: Utc::now().trunc_subsecs(6),
    };
    with_pool!(db, |pool| {
        sqlx::query(
            "INSERT INTO safe_orders (id, lab_id, item, amount_cents, idempotency_key, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(order.id)
        .bind(lab.as_str())
        .bind(&order.item)
        .bind(order.amount_cents)
        .bind(&order.idempotency_key)
        .bind(order.created_at)
        .execute(pool)
        .await?;
    });
    Ok(order)
}

/// Records the answer on a key this request claimed.
pub async fn save_response(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    stored: &StoredResponse,
) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        sqlx::query(
            "UPDATE safe_idempotency_keys SET status_code = $1, response_body = $2 \
             WHERE lab_id = $3 AND idempotency_key = $4",
        )
        .bind(i32::from(stored.status))
        .bind(&stored.body)
        .bind(lab.as_str())
        .bind(key.as_str())
        .execute(pool)
        .await?;
    });
    Ok(())
}

/// Deletes an unanswered claim, so a retry can claim the key again.
pub async fn release_key(db: &Db, lab: &LabId, key: &IdempotencyKey) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        sqlx::query(
            "DELETE FROM safe_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 AND status_code IS NULL",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .execute(pool)
        .await?;
    });
    Ok(())
}

/// The lab's orders, oldest first.
pub async fn list_orders(db: &Db, lab: &LabId) -> sqlx::Result<Vec<Order>> {
    let rows: Vec<OrderRow> = with_pool!(db, |pool| {
        sqlx::query_as(
            "SELECT id, item, amount_cents, idempotency_key, created_at FROM safe_orders \
             WHERE lab_id = $1 ORDER BY seq",
        )
        .bind(lab.as_str())
        .fetch_all(pool)
        .await?
    });
    Ok(rows.into_iter().map(order_from_row).collect())
}

/// Deletes the lab's orders and keys together.
pub async fn delete_lab(db: &Db, lab: &LabId) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        let mut tx = pool.begin().await?;
        sqlx::query("DELETE FROM safe_idempotency_keys WHERE lab_id = $1")
            .bind(lab.as_str())
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM safe_orders WHERE lab_id = $1")
            .bind(lab.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?
    });
    Ok(())
}
