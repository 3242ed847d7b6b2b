//! The safe server's SQL. Each query is written once and runs on both
//! SQLite and PostgreSQL (see `lab_platform::with_pool!`).

use chrono::{DateTime, SubsecRound, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{
    Db, DemoControls, LabError, OrderTables, ServerStorage, StoredResponse, UniqueInsert,
    with_pool, with_reader, with_tx,
};
use lab_wire::{Gate, IdempotencyKey, LabId, NewOrder, Order};

/// Who got the key: this request, or an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This request inserted the key and must do the work.
    Won,
    /// This request took over a claim made at `claimed_at` whose request
    /// never answered and whose lock has run out; that request may have
    /// written its order before it died.
    TookOver {
        /// When the abandoned claim was first made.
        claimed_at: DateTime<Utc>,
    },
    /// The key was already there; the database said so with a unique violation.
    AlreadyClaimed,
}

/// What the key table says about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyState {
    /// No row: never claimed, or released after a failure.
    Absent,
    /// Claimed, and the request that claimed it has not answered yet.
    InFlight {
        /// The fingerprint of the request that claimed it.
        fingerprint: Option<String>,
    },
    /// Claimed and answered: this is the answer to replay.
    Answered {
        /// The fingerprint of the request that claimed it.
        fingerprint: Option<String>,
        /// Its answer.
        stored: StoredResponse,
    },
}

impl KeyState {
    /// Whether the key was claimed by a request other than the one with `fingerprint`.
    pub fn claimed_by_another_request(&self, fingerprint: &str) -> bool {
        match self {
            Self::Absent => false,
            Self::InFlight {
                fingerprint: claimed,
            }
            | Self::Answered {
                fingerprint: claimed,
                ..
            } => claimed
                .as_deref()
                .is_some_and(|claimed| claimed != fingerprint),
        }
    }
}

/// When a claim was made, and until when.
#[derive(Debug, Clone)]
pub struct ClaimTerms<'a> {
    /// The fingerprint of the claiming request.
    pub fingerprint: &'a str,
    /// When the key stops counting once answered.
    pub expires_at: DateTime<Utc>,
    /// Until when an unanswered claim blocks retries.
    pub locked_until: DateTime<Utc>,
    /// This claim's fencing token, new for each claim and takeover.
    pub token: &'a str,
}

impl<'a> ClaimTerms<'a> {
    /// The terms of a claim by the request with `fingerprint`, as its
    /// demo controls set them (retention, lock), under `token`.
    pub fn of(fingerprint: &'a str, controls: &DemoControls, token: &'a str) -> Self {
        Self {
            fingerprint,
            expires_at: controls.key_expires_at(),
            locked_until: controls.locked_until(),
            token,
        }
    }
}

/// Inserts the key with no response yet; a duplicate is refused by the
/// `safe_idempotency_keys_one_claim` constraint. Two kinds of old claim no
/// longer count and are replaced, once: an answered one whose retention ran
/// out, and an unanswered one whose lock ran out (its request crashed) and
/// that was made for the same request.
pub async fn claim_key(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    terms: &ClaimTerms<'_>,
) -> sqlx::Result<Claim> {
    if insert_claim(db, lab, key, terms).await? == Claim::Won {
        return Ok(Claim::Won);
    }
    if let Some(claimed_at) = take_over_abandoned_claim(db, lab, key, terms).await? {
        tracing::info!(lab = %lab, key = %key, "took over a claim whose request never answered");
        return Ok(Claim::TookOver { claimed_at });
    }
    if delete_expired_claim(db, lab, key).await? {
        // Another retry may have replaced it first: the constraint decides again.
        return insert_claim(db, lab, key, terms).await;
    }
    Ok(Claim::AlreadyClaimed)
}

async fn insert_claim(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    terms: &ClaimTerms<'_>,
) -> sqlx::Result<Claim> {
    let inserted = with_pool!(db, Gate::Claim, |pool| {
        sqlx::query(
            "INSERT INTO safe_idempotency_keys \
             (lab_id, idempotency_key, request_fingerprint, created_at, expires_at, locked_until, claim_token) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(terms.fingerprint)
        // Microseconds, as PostgreSQL keeps them and as orders are stamped,
        // so "orders written since this claim" compares like with like.
        .bind(Utc::now().trunc_subsecs(6))
        .bind(terms.expires_at)
        .bind(terms.locked_until)
        .bind(terms.token)
        .execute(pool)
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

/// Takes over an unanswered claim whose lock has run out, if it was made
/// for the same request (a different body gets its 422 instead); returns
/// when the claim was first made. The `WHERE` makes it atomic: of several
/// retries, one updates the row.
async fn take_over_abandoned_claim(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    terms: &ClaimTerms<'_>,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    with_pool!(db, Gate::TakeOver, |pool| {
        sqlx::query_scalar(
            "UPDATE safe_idempotency_keys SET expires_at = $4, locked_until = $5, claim_token = $7 \
             WHERE lab_id = $1 AND idempotency_key = $2 AND status_code IS NULL AND locked_until <= $6 \
             AND (request_fingerprint IS NULL OR request_fingerprint = $3) \
             RETURNING created_at",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(terms.fingerprint)
        .bind(terms.expires_at)
        .bind(terms.locked_until)
        .bind(Utc::now())
        .bind(terms.token)
        .fetch_optional(pool)
        .await
    })
}

/// Writes the order. With `fence` (the claim's token), only while the key
/// still carries that token: in one transaction, the key's row is checked
/// (and, on PostgreSQL, locked, so a takeover waits for the commit) before
/// the order goes in. `Ok(None)` if the claim was taken over meanwhile:
/// the write is refused.
pub async fn insert_order(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    order: &NewOrder,
    fence: Option<&str>,
) -> Result<Option<Order>, LabError> {
    let Some(token) = fence else {
        let tables = &STORAGE.order_tables;
        return Ok(Some(tables.insert_order(db, lab, key, order).await?));
    };
    let mut tx = db.begin_for(lab).await?;
    let still_ours = with_tx!(&mut tx, Gate::CheckClaim, |conn| {
        sqlx::query(
            "UPDATE safe_idempotency_keys SET claim_token = claim_token \
             WHERE lab_id = $1 AND idempotency_key = $2 AND claim_token = $3",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(token)
        .execute(&mut *conn)
        .await?
        .rows_affected()
    }) == 1;
    if !still_ours {
        drop(tx);
        return Ok(None);
    }
    let created = STORAGE
        .order_tables
        .insert_order_in(&mut tx, db.orders_per_lab(), lab, key, order)
        .await?;
    tx.commit().await?;
    Ok(Some(created))
}

/// After a takeover: the order the abandoned claim's request wrote before
/// it died (at or after `claimed_at`), if it wrote one, with its answer
/// now saved on the key.
pub async fn recover_order(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    claimed_at: DateTime<Utc>,
) -> Result<Option<StoredResponse>, LabError> {
    let tables = &STORAGE.order_tables;
    let Some(earlier) = tables.order_written_since(db, lab, key, claimed_at).await? else {
        return Ok(None);
    };
    let stored = StoredResponse::created(&earlier);
    save_answer(db, lab, key, &stored).await?;
    Ok(Some(stored))
}

/// Deletes the claim on `key` if it was answered and has expired; says whether it did.
async fn delete_expired_claim(db: &Db, lab: &LabId, key: &IdempotencyKey) -> sqlx::Result<bool> {
    let deleted = with_pool!(db, Gate::ClearExpired, |pool| {
        sqlx::query(
            "DELETE FROM safe_idempotency_keys WHERE lab_id = $1 AND idempotency_key = $2 \
             AND status_code IS NOT NULL AND expires_at <= $3",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(Utc::now())
        .execute(pool)
        .await?
        .rows_affected()
    });
    Ok(deleted > 0)
}

/// The state of `key`.
pub async fn key_state(db: &Db, lab: &LabId, key: &IdempotencyKey) -> sqlx::Result<KeyState> {
    let row: Option<(Option<i32>, Option<String>, Option<String>)> =
        with_reader!(db, Gate::LookUp, |pool| {
            sqlx::query_as(
                "SELECT status_code, response_body, request_fingerprint FROM safe_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2",
            )
            .bind(lab.as_str())
            .bind(key.as_str())
            .fetch_optional(pool)
            .await?
        });
    Ok(match row {
        None => KeyState::Absent,
        Some((Some(status), Some(body), fingerprint)) => KeyState::Answered {
            fingerprint,
            stored: StoredResponse {
                status: status as u16,
                body,
            },
        },
        Some((_, _, fingerprint)) => KeyState::InFlight { fingerprint },
    })
}

/// Records the answer on the claimed key, for retries to replay. A
/// statement of its own, after the order's: a crash in between leaves an
/// order whose claim has no answer.
pub async fn save_answer(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
    stored: &StoredResponse,
) -> sqlx::Result<()> {
    with_pool!(db, Gate::SaveAnswer, |pool| {
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

/// Ends the lock of this request's unanswered claim (the one carrying
/// `token`) now, after its work failed: the key stays, so a retry takes the
/// claim over at once and recovers the order if one was written, instead
/// of being stuck behind a key that will never get an answer. Says whether
/// it did; a failure is logged (the lock runs out in the end, and a retry
/// takes the claim over then).
pub async fn let_claim_go(db: &Db, lab: &LabId, key: &IdempotencyKey, token: &str) -> bool {
    let released = with_pool!(db, Gate::ReleaseClaim, |pool| {
        sqlx::query(
            "UPDATE safe_idempotency_keys SET locked_until = $4 \
             WHERE lab_id = $1 AND idempotency_key = $2 AND claim_token = $3 \
             AND status_code IS NULL",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(token)
        .bind(Utc::now())
        .execute(pool)
        .await
        .map(|_| ())
    });
    if let Err(error) = &released {
        tracing::error!(%error, key = %key, "could not release the key of a failed order");
    }
    released.is_ok()
}

/// Where the safe server keeps its orders and keys.
pub static STORAGE: ServerStorage = ServerStorage {
    order_tables: OrderTables {
        server: "safe",
        delete_keys: "DELETE FROM safe_idempotency_keys WHERE lab_id = $1",
    },
    expired_keys: ExpiredKeys {
        table: "safe_idempotency_keys",
        // Deletes up to `$2` keys that expired before `$1`. An unanswered
        // claim stays while its lock holds (its request may still be running,
        // and its retries must get 409); once the lock and the retention are
        // both past, a retry would take it over as expired anyway.
        delete_batch: "DELETE FROM safe_idempotency_keys \
                      WHERE expires_at <= $1 AND (status_code IS NOT NULL OR locked_until IS NULL OR locked_until <= $1) \
                      AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM safe_idempotency_keys \
                      WHERE expires_at <= $1 AND (status_code IS NOT NULL OR locked_until IS NULL OR locked_until <= $1) LIMIT $2)",
        // Deletes up to `$2` keys created before `$1` in labs with no order here since `$1`.
        delete_idle_batch: "DELETE FROM safe_idempotency_keys WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'safe' AND created_at >= $1) \
                           AND (lab_id, idempotency_key) IN (SELECT lab_id, idempotency_key FROM safe_idempotency_keys \
                           WHERE created_at < $1 AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = 'safe' AND created_at >= $1) LIMIT $2)",
    },
    migrations: lab_core::migrations!(),
};
