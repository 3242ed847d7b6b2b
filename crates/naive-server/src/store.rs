//! The naive server's SQL. Each query is written once and runs on both
//! SQLite and PostgreSQL (see `lab_core::with_pool!`).

use chrono::{DateTime, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{Db, OrderTables, ServerStorage, StoredResponse, with_pool, with_reader};
use lab_wire::{IdempotencyKey, LabId};

/// The response stored for `key`, if any and not expired (the oldest, should there be several).
pub async fn find_response(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
) -> sqlx::Result<Option<StoredResponse>> {
    let row: Option<(i32, String)> = with_reader!(db, |pool| {
        sqlx::query_as(
            "SELECT status_code, response_body FROM naive_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 AND (expires_at IS NULL OR expires_at > $3) \
             ORDER BY created_at LIMIT 1",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(Utc::now())
        .fetch_optional(pool)
        .await?
    });
    Ok(row.map(|(status, body)| StoredResponse {
        status: status as u16,
        body,
    }))
}

/// Stores the response given for `key`, kept until `expires_at`.
pub async fn save_response(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    stored: &StoredResponse,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        sqlx::query(
            "INSERT INTO naive_idempotency_keys \
             (lab_id, idempotency_key, status_code, response_body, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(i32::from(stored.status))
        .bind(&stored.body)
        .bind(Utc::now())
        .bind(expires_at)
        .execute(pool)
        .await?;
    });
    Ok(())
}

/// Where the naive server keeps its orders and keys.
pub static STORAGE: ServerStorage = ServerStorage {
    order_tables: OrderTables {
        server: "naive",
        delete_keys: "DELETE FROM naive_idempotency_keys WHERE lab_id = $1",
    },
    expired_keys: ExpiredKeys {
        table: "naive_idempotency_keys",
        // Deletes up to `$2` keys that expired before `$1`.
        delete_batch: "DELETE FROM naive_idempotency_keys WHERE expires_at <= $1 \
                      AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM naive_idempotency_keys \
                      WHERE expires_at <= $1 LIMIT $2)",
        // Deletes up to `$2` keys created before `$1` in labs with no order here since `$1`.
        delete_idle_batch: "DELETE FROM naive_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'naive' AND created_at >= $1) \
                           AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM naive_idempotency_keys \
                           WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'naive' AND created_at >= $1) LIMIT $2)",
    },
    migrations: lab_core::migrations!(),
};
