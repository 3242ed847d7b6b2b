//! The naive flow, step by step: check, then act. Read it beside
//! `safe-server/src/handler.rs`: the steps are nearly the same, their
//! order and who decides "first" are not.

use axum::response::Response;
use lab_core::side_effects::charge_and_email_in_request;
use lab_core::{
    LabError, OrderRequest, OrderServer, ServerStorage, Shop, StoredResponse, WorkPoint,
};
use lab_wire::StepKind;

use crate::store::{self, KeyTable};

/// The naive server: the article's first attempt. Looks the key up, creates
/// the order, then saves the key.
pub struct NaiveServer;

impl OrderServer for NaiveServer {
    const NAME: &'static str = "naive";
    const STORAGE: &'static ServerStorage = store::STORAGE;

    /// The flow of `POST /orders`, run to the end even if the client leaves.
    async fn place_order(request: OrderRequest, shop: Shop) -> Result<Response, LabError> {
        check_then_act(&store::KEYS, request, shop).await
    }
}

/// The naive flow over the key table `keys`: look, create, save.
pub async fn check_then_act(
    keys: &KeyTable,
    request: OrderRequest,
    shop: Shop,
) -> Result<Response, LabError> {
    let Shop { db, steps, outside } = shop;
    let (lab, key, controls) = (&request.lab, &request.key, &request.controls);

    // Step 1: have we answered this key before? If so, answer the same.
    let found = keys.find_response(&db, lab, key).await?;
    steps.record_lookup(found.is_some());
    if let Some(stored) = found {
        return Ok(stored.replay());
    }

    // The race window. Every request with this key that arrives before
    // step 3 also found nothing in step 1, and goes on to create its own order.
    controls.slow_part(&steps).await;

    // Step 2: do the work. A failure before it leaves nothing behind; a
    // crash or an error after it leaves the order without its key, so a
    // retry orders again.
    controls.fails_at(WorkPoint::BeforeCreate)?;
    let tables = &keys.storage.order_tables;
    let order = tables.insert_order(&db, lab, key, &request.order).await?;
    steps.record(StepKind::OrderInserted);
    controls.fails_at(WorkPoint::AfterCreate)?;
    // With side effects: charge the card and e-mail the receipt, here, in
    // the request. Every racing duplicate that got this far charges too.
    charge_and_email_in_request(&outside, tables.server, lab, &order, controls, &steps).await?;

    // Step 3: remember the answer for retries. Nothing stops a second row
    // for the same key: the table has no unique constraint.
    let stored = StoredResponse::created(&order);
    let expires_at = controls.key_expires_at();
    keys.save_response(&db, lab, key, &stored, expires_at)
        .await?;
    steps.record(StepKind::ResponseSaved);
    Ok(stored.first_response())
}
