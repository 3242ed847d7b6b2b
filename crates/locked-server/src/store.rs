//! The locked server's SQL: the naive statements over its own key table,
//! `locked_idempotency_keys`, so its keys and the naive server's never mix.

use lab_core::server::ExpiredKeys;
use lab_core::{OrderTables, ServerStorage};
use naive_server::store::KeyTable;

/// The locked server's keys: `locked_idempotency_keys` (no unique constraint).
pub const KEYS: KeyTable = KeyTable {
    find: "SELECT status_code, response_body FROM locked_idempotency_keys \
           WHERE lab_id = $1 AND idempotency_key = $2 AND (expires_at IS NULL OR expires_at > $3) \
           ORDER BY created_at LIMIT 1",
    save: "INSERT INTO locked_idempotency_keys \
           (lab_id, idempotency_key, status_code, response_body, created_at, expires_at) \
           VALUES ($1, $2, $3, $4, $5, $6)",
    storage: &ServerStorage {
        order_tables: OrderTables {
            server: "locked",
            delete_keys: "DELETE FROM locked_idempotency_keys WHERE lab_id = $1",
        },
        expired_keys: ExpiredKeys {
            table: "locked_idempotency_keys",
            delete_batch: "DELETE FROM locked_idempotency_keys WHERE expires_at <= $1 \
                AND (lab_id, idempotency_key) IN \
                (SELECT lab_id, idempotency_key FROM locked_idempotency_keys WHERE expires_at <= $1 LIMIT $2)",
            delete_idle_batch: "DELETE FROM locked_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN \
                (SELECT lab_id FROM lab_orders WHERE server = 'locked' AND created_at >= $1) \
                AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM locked_idempotency_keys \
                WHERE created_at < $1 AND lab_id NOT IN \
                (SELECT lab_id FROM lab_orders WHERE server = 'locked' AND created_at >= $1) LIMIT $2)",
        },
        migrations: lab_core::migrations!(),
    },
};
