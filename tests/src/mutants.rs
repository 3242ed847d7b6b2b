//! Two broken variants of the safe server, for proving the checkers: the
//! explorer and the model must both find them broken, with the same
//! shortest counterexample (`tests/tests/model.rs`). Test code only; the
//! lab never serves them.
//!
//! - [`SafeWithoutUnique`]: the safe flow over a key table without its
//!   UNIQUE constraint, so every copy's claim goes in;
//! - [`SafeCheckThenInsert`]: looks the key up first and claims only when
//!   it found nothing, over the same table: the naive mistake, moved into
//!   the claim.

use axum::response::Response;
use chrono::{Duration, Utc};
use lab_core::server::ExpiredKeys;
use lab_core::{
    Db, LabError, OrderRequest, OrderServer, OrderTables, ServerStorage, Shop, StoredResponse,
    with_pool, with_reader,
};
use lab_wire::{Gate, IdempotencyKey, KeyFound, LabId, StepKind};

/// The safe flow with a claim nothing refuses.
pub struct SafeWithoutUnique;

/// A claim made only after a look-up found nothing.
pub struct SafeCheckThenInsert;

static STORAGE: ServerStorage = ServerStorage {
    order_tables: OrderTables {
        server: "mutant",
        delete_keys: "DELETE FROM mutant_idempotency_keys WHERE lab_id = $1",
    },
    expired_keys: ExpiredKeys {
        table: "mutant_idempotency_keys",
        delete_batch: "DELETE FROM mutant_idempotency_keys WHERE expires_at <= $1 \
            AND lab_id IN (SELECT lab_id FROM mutant_idempotency_keys WHERE expires_at <= $1 LIMIT $2)",
        delete_idle_batch: "DELETE FROM mutant_idempotency_keys WHERE created_at < $1 \
            AND lab_id IN (SELECT lab_id FROM mutant_idempotency_keys WHERE created_at < $1 LIMIT $2)",
    },
    migrations: lab_core::migrations!(),
};

impl OrderServer for SafeWithoutUnique {
    const NAME: &'static str = "safe-without-unique";
    const STORAGE: &'static ServerStorage = &STORAGE;

    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        claim_then_work(request, shop).await
    }
}

impl OrderServer for SafeCheckThenInsert {
    const NAME: &'static str = "safe-check-then-insert";
    const STORAGE: &'static ServerStorage = &STORAGE;

    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        let found = find_claim(&shop.db, &request.lab, &request.key).await?;
        shop.steps.record(StepKind::KeyLookedUp {
            found: match &found {
                None => KeyFound::Nothing,
                Some(None) => KeyFound::InProgress,
                Some(Some(_)) => KeyFound::Answer,
            },
        });
        match found {
            Some(Some(stored)) => Ok(stored.replay()),
            Some(None) => Err(LabError::KeyInFlight),
            None => claim_then_work(request, shop).await,
        }
    }
}

/// Claims the key (an insert that nothing refuses), writes the order, saves the answer.
async fn claim_then_work(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
    let Shop { db, steps, .. } = shop;
    let (lab, key) = (&request.lab, &request.key);
    with_pool!(&db, Gate::Claim, |pool| {
        sqlx::query(
            "INSERT INTO mutant_idempotency_keys (lab_id, idempotency_key, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .bind(Utc::now())
        .bind(Utc::now() + Duration::days(1))
        .execute(pool)
        .await?;
    });
    steps.record(StepKind::KeyClaimed);
    let order = STORAGE
        .order_tables
        .insert_order(&db, lab, key, &request.order)
        .await?;
    steps.record(StepKind::OrderInserted);
    let stored = StoredResponse::created(&order);
    with_pool!(&db, Gate::SaveAnswer, |pool| {
        sqlx::query(
            "UPDATE mutant_idempotency_keys SET status_code = $1, response_body = $2 \
             WHERE lab_id = $3 AND idempotency_key = $4 AND status_code IS NULL",
        )
        .bind(i32::from(stored.status))
        .bind(&stored.body)
        .bind(lab.as_str())
        .bind(key.as_str())
        .execute(pool)
        .await?;
    });
    steps.record(StepKind::ResponseSaved);
    Ok(stored.first_response())
}

/// The key's claim, if any: with its answer, or `None` while unanswered.
async fn find_claim(
    db: &Db,
    lab: &LabId,
    key: &IdempotencyKey,
) -> Result<Option<Option<StoredResponse>>, LabError> {
    let row: Option<(Option<i32>, Option<String>)> = with_reader!(db, Gate::LookUp, |pool| {
        sqlx::query_as(
            "SELECT status_code, response_body FROM mutant_idempotency_keys \
             WHERE lab_id = $1 AND idempotency_key = $2 ORDER BY status_code IS NULL LIMIT 1",
        )
        .bind(lab.as_str())
        .bind(key.as_str())
        .fetch_optional(pool)
        .await?
    });
    Ok(row.map(|(status, body)| match (status, body) {
        (Some(status), Some(body)) => Some(StoredResponse {
            status: status as u16,
            body,
        }),
        _ => None,
    }))
}
