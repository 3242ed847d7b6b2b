//! The one-trip server's SQL. On PostgreSQL its write is one statement,
//! a data-modifying `WITH` whose key insert and order insert succeed or
//! fail together; SQLite has no data-modifying `WITH`, so there the same
//! three steps run as one transaction on the one writer connection.

use chrono::{DateTime, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{Db, OrderTables, ServerStorage, StoredResponse, gates, with_reader};
use lab_wire::{Gate, IdempotencyKey, LabId, Order};

/// What the one write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The key, its answer and the order are stored, together.
    All,
    /// A live key was already there: nothing was written.
    KeyTaken,
    /// The lab holds all the orders it may on this server: nothing was written.
    LabFull,
}

/// What the claim records about the request that made it.
#[derive(Debug, Clone)]
pub struct ClaimTerms<'a> {
    /// The fingerprint of the claiming request.
    pub fingerprint: &'a str,
    /// When the key stops counting.
    pub expires_at: DateTime<Utc>,
    /// The most orders the lab may hold on this server.
    pub orders_per_lab: u32,
}

/// Whether the lab has room for one more order on this server: `$1` lab,
/// `$2` the limit. The count stops at the limit, so it costs no more than
/// that. (Macros, not constants, so that `concat!` can build statements.)
macro_rules! has_room {
    () => {
        "(SELECT COUNT(*) FROM (SELECT 1 FROM lab_orders \
         WHERE server = 'onetrip' AND lab_id = $1 LIMIT $2) AS held) < $2"
    };
}

/// Claims the key with its answer, from `$select` (a `VALUES` or a
/// `SELECT` of lab, key, fingerprint, status, body, created at, expires
/// at), or takes over a row of the key that has expired. A live key makes
/// the `DO UPDATE` write nothing: no row changed, none returned.
macro_rules! claim_key {
    ($select:literal) => {
        concat!(
            "INSERT INTO onetrip_idempotency_keys \
             (lab_id, idempotency_key, request_fingerprint, status_code, response_body, created_at, expires_at) ",
            $select,
            " ON CONFLICT (lab_id, idempotency_key) DO UPDATE SET \
             request_fingerprint = excluded.request_fingerprint, status_code = excluded.status_code, \
             response_body = excluded.response_body, created_at = excluded.created_at, \
             expires_at = excluded.expires_at \
             WHERE onetrip_idempotency_keys.expires_at <= excluded.created_at"
        )
    };
}

/// The whole write on PostgreSQL, in one statement: the room check (`$1`
/// lab, `$2` limit), the claim (`$3` key, `$4` fingerprint, `$5` status,
/// `$6` body, `$7` created at, `$8` expires at), and the order (`$9` id,
/// `$10` item, `$11` amount), inserted only if the claim returned its row. Returns whether there was room and
/// how many orders it inserted (0 or 1). A racing copy's claim of the same
/// key waits for this statement to commit, then finds the key taken.
const WRITE_ALL_POSTGRES: &str = concat!(
    "WITH room AS (SELECT ",
    has_room!(),
    " AS has_room), claim AS (",
    claim_key!("SELECT $1, $3, $4, $5, $6, $7, $8 FROM room WHERE has_room"),
    " RETURNING 1), \
     ordered AS (INSERT INTO lab_orders \
     (server, id, lab_id, item, amount_cents, idempotency_key, created_at) \
     SELECT 'onetrip', $9, $1, $10, $11, $3, $7 FROM claim RETURNING 1) \
     SELECT (SELECT has_room FROM room), (SELECT COUNT(*) FROM ordered)"
);

/// Writes the key with its answer `stored` and the order `order`, all or
/// nothing, in one round trip to the database.
pub async fn write_all(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    terms: &ClaimTerms<'_>,
    order: &Order,
    stored: &StoredResponse,
) -> sqlx::Result<Written> {
    gates::wait_at(Gate::ClaimAndOrder).await;
    let limit = i64::from(terms.orders_per_lab);
    let created_at = DateTime::<Utc>::from(order.created_at);
    match db {
        Db::Postgres(postgres) => {
            let (has_room, ordered): (bool, i64) = sqlx::query_as(WRITE_ALL_POSTGRES)
                .bind(lab.as_str())
                .bind(limit)
                .bind(key.as_str())
                .bind(terms.fingerprint)
                .bind(i32::from(stored.status))
                .bind(&stored.body)
                .bind(created_at)
                .bind(terms.expires_at)
                .bind(order.id)
                .bind(&order.item)
                .bind(order.amount_cents)
                .fetch_one(&postgres.statements)
                .await?;
            Ok(match (has_room, ordered) {
                (false, _) => Written::LabFull,
                (true, 0) => Written::KeyTaken,
                (true, _) => Written::All,
            })
        }
        Db::Sqlite { writer, .. } => {
            // The writer is the only connection that writes: nothing can
            // come between these statements, and a failure rolls all back.
            let mut tx = writer.begin().await?;
            let has_room: bool = sqlx::query_scalar(concat!("SELECT ", has_room!()))
                .bind(lab.as_str())
                .bind(limit)
                .fetch_one(&mut *tx)
                .await?;
            if !has_room {
                return Ok(Written::LabFull);
            }
            let claimed = sqlx::query(claim_key!("VALUES ($1, $2, $3, $4, $5, $6, $7)"))
                .bind(lab.as_str())
                .bind(key.as_str())
                .bind(terms.fingerprint)
                .bind(i32::from(stored.status))
                .bind(&stored.body)
                .bind(created_at)
                .bind(terms.expires_at)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if claimed == 0 {
                return Ok(Written::KeyTaken);
            }
            sqlx::query(
                "INSERT INTO lab_orders \
                 (server, id, lab_id, item, amount_cents, idempotency_key, created_at) \
                 VALUES ('onetrip', $1, $2, $3, $4, $5, $6)",
            )
            .bind(order.id)
            .bind(lab.as_str())
            .bind(&order.item)
            .bind(order.amount_cents)
            .bind(key.as_str())
            .bind(created_at)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Written::All)
        }
    }
}

/// The fingerprint and saved answer of `key`, if it is live.
pub async fn find_answer(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
) -> sqlx::Result<Option<(String, StoredResponse)>> {
    let row: Option<(String, i32, String)> = with_reader!(db, Gate::LookUp, |pool| {
        sqlx::query_as(
            "SELECT request_fingerprint, status_code, response_body \
             FROM onetrip_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 AND expires_at > $3",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(Utc::now())
        .fetch_optional(pool)
        .await?
    });
    Ok(row.map(|(fingerprint, status, body)| {
        (
            fingerprint,
            StoredResponse {
                status: status as u16,
                body,
            },
        )
    }))
}

/// Where the one-trip server keeps its orders and keys.
pub static STORAGE: ServerStorage = ServerStorage {
    order_tables: OrderTables {
        server: "onetrip",
        delete_keys: "DELETE FROM onetrip_idempotency_keys WHERE lab_id = $1",
    },
    expired_keys: ExpiredKeys {
        table: "onetrip_idempotency_keys",
        // Deletes up to `$2` keys that expired before `$1`: every key row
        // has its answer, so there is no unanswered claim to spare.
        delete_batch: "DELETE FROM onetrip_idempotency_keys \
                      WHERE expires_at <= $1 \
                      AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key \
                      FROM onetrip_idempotency_keys WHERE expires_at <= $1 LIMIT $2)",
        // Deletes up to `$2` keys created before `$1` in labs with no order here since `$1`.
        delete_idle_batch: "DELETE FROM onetrip_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'onetrip' AND created_at >= $1) \
                           AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM onetrip_idempotency_keys \
                           WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'onetrip' AND created_at >= $1) LIMIT $2)",
    },
    migrations: lab_core::migrations!(),
};
