//! The naive server's SQL. Each query is written once and runs on both
//! SQLite and PostgreSQL (see `lab_platform::with_pool!`).
//!
//! The flow reads and writes keys through a [`KeyTable`], so the locked
//! server (the same flow behind a lock in process memory) runs it over a
//! table of its own, with statements of its own (its `store.rs`).

use chrono::{DateTime, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{Db, OrderTables, ServerStorage, StoredResponse, with_pool, with_reader};
use lab_wire::{Gate, IdempotencyKey, LabId};

/// A key table of the naive design: where its flow looks keys up and saves them.
#[derive(Debug)]
pub struct KeyTable {
    /// The stored response for `$1` lab, `$2` key, live at `$3`.
    pub find: &'static str,
    /// Saves `$1` lab, `$2` key, `$3` status, `$4` body, `$5` created at, `$6` expiry.
    pub save: &'static str,
    /// The orders and keys the shared code cleans, for the same server.
    pub storage: &'static ServerStorage,
}

/// The naive server's keys: `naive_idempotency_keys` (no unique constraint).
pub const KEYS: KeyTable = KeyTable {
    find: "SELECT status_code, response_body FROM naive_idempotency_keys \
           WHERE lab_id = $1 AND idempotency_key = $2 AND (expires_at IS NULL OR expires_at > $3) \
           ORDER BY created_at LIMIT 1",
    save: "INSERT INTO naive_idempotency_keys \
           (lab_id, idempotency_key, status_code, response_body, created_at, expires_at) \
           VALUES ($1, $2, $3, $4, $5, $6)",
    storage: &ServerStorage {
        order_tables: OrderTables {
            server: "naive",
            delete_keys: "DELETE FROM naive_idempotency_keys WHERE lab_id = $1",
        },
        expired_keys: ExpiredKeys {
            table: "naive_idempotency_keys",
            delete_batch: "DELETE FROM naive_idempotency_keys WHERE expires_at <= $1 \
                AND (lab_id, idempotency_key) IN \
                (SELECT lab_id, idempotency_key FROM naive_idempotency_keys WHERE expires_at <= $1 LIMIT $2)",
            delete_idle_batch: "DELETE FROM naive_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN \
                (SELECT lab_id FROM lab_orders WHERE server = 'naive' AND created_at >= $1) \
                AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM naive_idempotency_keys \
                WHERE created_at < $1 AND lab_id NOT IN \
                (SELECT lab_id FROM lab_orders WHERE server = 'naive' AND created_at >= $1) LIMIT $2)",
        },
        migrations: lab_core::migrations!(),
    },
};

/// Where the naive server keeps its orders and keys.
pub const STORAGE: &ServerStorage = KEYS.storage;

impl KeyTable {
    /// The response stored for `key`, if any and not expired (the oldest, should there be several).
    pub async fn find_response(
        &self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
    ) -> sqlx::Result<Option<StoredResponse>> {
        let row: Option<(i32, String)> = with_reader!(db, Gate::LookUp, |pool| {
            sqlx::query_as(self.find)
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
        &self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
        stored: &StoredResponse,
        expires_at: DateTime<Utc>,
    ) -> sqlx::Result<()> {
        with_pool!(db, Gate::SaveAnswer, |pool| {
            sqlx::query(self.save)
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
}
