//! The naive flow, step by step: check, then act. Read it beside
//! `safe-server/src/handler.rs`: the steps are nearly the same, their
//! order and who decides "first" are not.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lab_core::{
    Db, LabError, LabScope, OrderRequest, StoredResponse, finish_even_if_client_leaves,
};
use lab_wire::Order;

use crate::store;

/// `POST /orders`: create an order unless this key was answered before.
pub async fn create_order(
    State(db): State<Db>,
    request: OrderRequest,
) -> Result<Response, LabError> {
    let fault = request.controls.fault;
    let response = finish_even_if_client_leaves(place_order(db, request)).await?;
    Ok(match fault {
        Some(fault) => fault.apply(response),
        None => response,
    })
}

async fn place_order(db: Db, request: OrderRequest) -> Result<Response, LabError> {
    let OrderRequest {
        lab,
        key,
        order,
        controls,
    } = request;

    // Step 1: have we answered this key before? If so, answer the same.
    if let Some(stored) = store::find_response(&db, &lab, &key).await? {
        return Ok(stored.replay());
    }

    // The race window. Every request with this key that arrives before
    // step 3 also found nothing in step 1, and goes on to create its own order.
    controls.pause().await;

    // Step 2: do the work.
    let order = store::insert_order(&db, &lab, &key, &order).await?;

    // Step 3: remember the answer for retries. Nothing stops a second row
    // for the same key: the table has no unique constraint.
    let stored = StoredResponse::created(&order);
    store::save_response(&db, &lab, &key, &stored).await?;
    Ok(stored.first_response())
}

/// `GET /orders`: this lab's orders, oldest first.
pub async fn list_orders(
    State(db): State<Db>,
    LabScope(lab): LabScope,
) -> Result<Json<Vec<Order>>, LabError> {
    Ok(Json(store::list_orders(&db, &lab).await?))
}

/// `DELETE /orders`: forget this lab's orders and keys.
pub async fn delete_orders(
    State(db): State<Db>,
    LabScope(lab): LabScope,
) -> Result<Response, LabError> {
    store::delete_lab(&db, &lab).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
