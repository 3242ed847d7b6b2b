//! The naive flow, step by step: check, then act. Read it beside
//! `safe-server/src/handler.rs`: the steps are nearly the same, their
//! order and who decides "first" are not.

use axum::response::Response;
use lab_core::side_effects::charge_and_email_in_request;
use lab_core::{
    Db, LabError, OrderRequest, OrderServer, Outside, ServerStorage, Steps, StoredResponse,
};
use lab_wire::{KeyFound, StepKind};

use crate::store::{self, KeyTable};

/// The naive server: the article's first attempt. Looks the key up, creates
/// the order, then saves the key.
pub struct NaiveServer;

impl OrderServer for NaiveServer {
    const NAME: &'static str = "naive";
    const STORAGE: &'static ServerStorage = store::STORAGE;

    /// The flow of `POST /orders`, run to the end even if the client leaves.
    async fn place_order(
        db: Db,
        request: OrderRequest,
        steps: Steps,
        outside: Outside,
    ) -> Result<Response, LabError> {
        check_then_act(&store::KEYS, db, request, steps, outside).await
    }
}

/// The naive flow over the key table `keys`: look, create, save.
pub async fn check_then_act(
    keys: &KeyTable,
    db: Db,
    request: OrderRequest,
    steps: Steps,
    outside: Outside,
) -> Result<Response, LabError> {
    let OrderRequest {
        lab,
        key,
        order,
        controls,
    } = request;

    // Step 1: have we answered this key before? If so, answer the same.
    let found = keys.find_response(&db, &lab, &key).await?;
    steps.record(StepKind::KeyLookedUp {
        found: if found.is_some() {
            KeyFound::Answer
        } else {
            KeyFound::Nothing
        },
    });
    if let Some(stored) = found {
        return Ok(stored.replay());
    }

    // The race window. Every request with this key that arrives before
    // step 3 also found nothing in step 1, and goes on to create its own order.
    controls.slow_part(&steps).await;

    // Step 2: do the work.
    let order = keys
        .storage
        .order_tables
        .insert_order(&db, &lab, &key, &order)
        .await?;
    steps.record(StepKind::OrderInserted);
    if controls.crashes_after_create() {
        // The order exists; the key is never saved, so a retry orders again.
        return Err(LabError::SimulatedCrash);
    }
    // With side effects: charge the card and e-mail the receipt, here, in
    // the request. Every racing duplicate that got this far charges too.
    let merchant = keys.storage.order_tables.server;
    charge_and_email_in_request(&outside, merchant, &lab, &order, &controls, &steps).await?;

    // Step 3: remember the answer for retries. Nothing stops a second row
    // for the same key: the table has no unique constraint.
    let stored = StoredResponse::created(&order);
    keys.save_response(&db, &lab, &key, &stored, controls.key_expires_at())
        .await?;
    steps.record(StepKind::ResponseSaved);
    Ok(stored.first_response())
}
