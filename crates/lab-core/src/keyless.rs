//! A `POST /orders` without an `Idempotency-Key`, made on purpose
//! (`Lab-Missing-Key: create`): a plain POST, as an API whose key is
//! optional takes it. There is nothing to look up, claim or save, so every
//! design does the same thing — it makes the order — and a retry of it
//! makes another: no server can tell a repeat from a new purchase unless
//! the client names the purchase.

use axum::response::Response;
use lab_wire::StepKind;

use crate::outside::Outside;
use crate::request::KeylessOrderRequest;
use crate::side_effects::charge_and_email_in_request;
use crate::{OrderTables, Steps, StoredResponse, WorkPoint};
use lab_platform::{Db, LabError};

/// Makes the order for a request that sent no key, and answers `201`.
pub async fn place_without_key(
    db: Db,
    tables: &'static OrderTables,
    request: KeylessOrderRequest,
    steps: Steps,
    outside: Outside,
) -> Result<Response, LabError> {
    let KeylessOrderRequest {
        lab,
        order,
        controls,
    } = request;
    controls.slow_part(&steps).await;
    controls.fails_at(WorkPoint::BeforeCreate)?;
    let order = tables.insert_order_without_key(&db, &lab, &order).await?;
    steps.record(StepKind::OrderInserted);
    controls.fails_at(WorkPoint::AfterCreate)?;
    charge_and_email_in_request(&outside, tables.server, &lab, &order, &controls, &steps).await?;
    // Nothing is saved for a retry to find: it has no key to find it by.
    Ok(StoredResponse::created(&order).first_response())
}
