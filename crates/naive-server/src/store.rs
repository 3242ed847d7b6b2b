//! The naive server's SQL. Each query is written once and runs on both
//! SQLite and PostgreSQL (see `lab_core::with_pool!`).

use chrono::{DateTime, SubsecRound, Utc};
use lab_core::{Db, StoredResponse, with_pool};
use lab_wire::{IdempotencyKey, LabId, NewOrder, Order};
use uuid::Uuid;

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

/// The response stored for `key`, if any (the oldest, should there be several).
pub async fn find_response(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
) -> sqlx::Result<Option<StoredResponse>> {
    let row: Option<(i32, String)> = with_pool!(db, |pool| {
        sqlx::query_as(
            "SELECT status_code, response_body FROM naive_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 ORDER BY created_at LIMIT 1",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .fetch_optional(pool)
        .await?
    });
    Ok(row.map(|(status, body)| StoredResponse {
        status: status as u16,
        body,
    }))
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
            "INSERT INTO naive_orders (id, lab_id, item, amount_cents, idempotency_key, created_at) \
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

/// Stores the response given for `key`.
pub async fn save_response(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    stored: &StoredResponse,
) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        sqlx::query(
            "INSERT INTO naive_idempotency_keys (lab_id, idempotency_key, status_code, response_body, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(i32::from(stored.status))
        .bind(&stored.body)
        .bind(Utc::now())
        .execute(pool)
        .await?;
    });
    Ok(())
}

/// The lab's orders, oldest first.
pub async fn list_orders(db: &Db, lab: &LabId) -> sqlx::Result<Vec<Order>> {
    let rows: Vec<OrderRow> = with_pool!(db, |pool| {
        sqlx::query_as(
            "SELECT id, item, amount_cents, idempotency_key, created_at FROM naive_orders \
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
        sqlx::query("DELETE FROM naive_idempotency_keys WHERE lab_id = $1")
            .bind(lab.as_str())
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM naive_orders WHERE lab_id = $1")
            .bind(lab.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?
    });
    Ok(())
}
