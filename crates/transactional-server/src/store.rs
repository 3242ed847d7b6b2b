//! The transactional server's SQL. Each query is written once and runs on
//! both SQLite and PostgreSQL (see `lab_platform::with_pool!`); the writes run
//! inside the request's one transaction (`lab_platform::with_tx!`).

use chrono::{DateTime, SubsecRound, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{
    Db, DbTx, OrderTables, ServerStorage, StoredResponse, UniqueInsert, with_reader, with_tx,
};
use lab_wire::{Gate, IdempotencyKey, LabId};

/// Who got the key: this request, or a committed earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This request inserted the key (not yet committed) and must do the work.
    Won,
    /// A committed request holds the key; the database said so with a unique violation.
    AlreadyClaimed,
}

/// What a claim records about the request that made it.
#[derive(Debug, Clone)]
pub struct ClaimTerms<'a> {
    /// The fingerprint of the claiming request.
    pub fingerprint: &'a str,
    /// When the key stops counting.
    pub expires_at: DateTime<Utc>,
}

/// The fingerprint and saved answer of `key`, if a request holding it has
/// committed and the key has not expired.
pub async fn find_answer(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
) -> sqlx::Result<Option<(String, StoredResponse)>> {
    let row: Option<(String, Option<i32>, Option<String>)> =
        with_reader!(db, Gate::LookUp, |pool| {
            sqlx::query_as(
                "SELECT request_fingerprint, status_code, response_body \
             FROM transactional_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 AND expires_at > $3",
            )
            .bind(lab.as_str())
            .bind(key.as_str())
            .bind(Utc::now())
            .fetch_optional(pool)
            .await?
        });
    Ok(row.and_then(|(fingerprint, status, body)| {
        Some((
            fingerprint,
            StoredResponse {
                status: status? as u16,
                body: body?,
            },
        ))
    }))
}

/// Inserts the key, inside `tx`, with no answer yet; a second claim is
/// refused by the `transactional_idempotency_keys_one_claim` constraint.
/// An expired key no longer counts: it is deleted first, in the same
/// transaction, so of several late retries the constraint still lets one in.
pub async fn claim_key(
    tx: &mut DbTx,
    lab: &LabId,
    key: &IdempotencyKey,
    terms: &ClaimTerms<'_>,
) -> sqlx::Result<Claim> {
    let now = Utc::now().trunc_subsecs(6);
    let inserted = with_tx!(tx, Gate::Claim, |conn| {
        sqlx::query(
            "DELETE FROM transactional_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 AND expires_at <= $3",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(now)
        .execute(&mut *conn)
        .await?;
        sqlx::query(
            "INSERT INTO transactional_idempotency_keys \
             (lab_id, idempotency_key, request_fingerprint, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(terms.fingerprint)
        .bind(now)
        .bind(terms.expires_at)
        .execute(&mut *conn)
        .await
        .map(|_| ())
    });
    // The database decides: of racing inserts of one key, one goes in and
    // every other gets a unique violation.
    Ok(match UniqueInsert::of(inserted)? {
        UniqueInsert::Inserted => Claim::Won,
        UniqueInsert::Refused => Claim::AlreadyClaimed,
    })
}

/// Records the answer on the key claimed in the request's transaction,
/// `tx`: it commits with the claim and the order, or not at all.
pub async fn save_answer_in(
    tx: &mut DbTx,
    lab: &LabId,
    key: &IdempotencyKey,
    stored: &StoredResponse,
) -> sqlx::Result<()> {
    with_tx!(tx, Gate::SaveAnswer, |conn| {
        sqlx::query(
            "UPDATE transactional_idempotency_keys SET status_code = $1, response_body = $2 \
             WHERE lab_id = $3 AND idempotency_key = $4",
        )
        .bind(i32::from(stored.status))
        .bind(&stored.body)
        .bind(lab.as_str())
        .bind(key.as_str())
        .execute(conn)
        .await?;
    });
    Ok(())
}

/// Where the transactional server keeps its orders and keys.
pub static STORAGE: ServerStorage = ServerStorage {
    order_tables: OrderTables {
        server: "transactional",
        delete_keys: "DELETE FROM transactional_idempotency_keys WHERE lab_id = $1",
    },
    expired_keys: ExpiredKeys {
        table: "transactional_idempotency_keys",
        // Deletes up to `$2` keys that expired before `$1`. Every committed key
        // has its answer, so there are no half-done claims to spare.
        delete_batch: "DELETE FROM transactional_idempotency_keys \
                      WHERE expires_at <= $1 \
                      AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key \
                      FROM transactional_idempotency_keys WHERE expires_at <= $1 LIMIT $2)",
        // Deletes up to `$2` keys created before `$1` in labs with no order here since `$1`.
        delete_idle_batch: "DELETE FROM transactional_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'transactional' AND created_at >= $1) \
                           AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM transactional_idempotency_keys \
                           WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'transactional' AND created_at >= $1) LIMIT $2)",
    },
    migrations: lab_core::migrations!(),
};
