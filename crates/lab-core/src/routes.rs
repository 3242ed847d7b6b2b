//! The routes every server serves, around the one handler that differs:
//! `POST /orders`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use lab_wire::Order;
use lab_wire::headers::IDEMPOTENT_REPLAYED;

use crate::Db;
use crate::access::{LabToChange, LabToRead};
use crate::controls::DemoControls;
use crate::error::{LabError, method_not_allowed, not_found};
use crate::fault::Fault;
use crate::request::OrderRequest;
use crate::state::ServerState;
use crate::step_stream::stream_steps;
use crate::steps::Steps;
use crate::work::finish_even_if_client_leaves;

/// `POST /orders` through the server's `place_order` flow, the shared
/// `GET` and `DELETE`, and `GET /steps` (the steps of this server's
/// requests, as they happen).
pub fn order_routes<F, W>(state: ServerState, place_order: F) -> Router
where
    F: FnOnce(Db, OrderRequest, Steps) -> W + Clone + Send + Sync + 'static,
    W: Future<Output = Result<Response, LabError>> + Send + 'static,
{
    let create_order = move |State(state): State<ServerState>, request: OrderRequest| {
        run_order_flow(state, request, place_order)
    };
    Router::new()
        .route(
            "/orders",
            post(create_order).get(list_orders).delete(delete_orders),
        )
        .route("/steps", get(stream_steps))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(state)
}

/// Runs a server's order flow to the end (even if the client leaves, unless
/// the request asked for `Lab-Cancellation: on-disconnect`), reporting how
/// it ended, then applies the request's demo fault to the response.
pub async fn run_order_flow<F, W>(
    state: ServerState,
    request: OrderRequest,
    flow: F,
) -> Result<Response, LabError>
where
    F: FnOnce(Db, OrderRequest, Steps) -> W,
    W: Future<Output = Result<Response, LabError>> + Send + 'static,
{
    let DemoControls {
        fault,
        cancel_on_disconnect,
        ..
    } = request.controls;
    // Taken before any work, and held by the work itself: a client that
    // hangs up frees its lab's place only once the work it left has ended.
    let admission = state.room.admit(&request.lab, request.controls.delay)?;
    let steps = state.steps.start_request(&request.lab, &request.key);
    let flow_steps = steps.clone();
    let work = flow(state.db, request, flow_steps.clone());
    let work = async move {
        let result = work.await;
        drop(admission);
        flow_steps.record_end(&result, |response: &Response| {
            let replayed = response.headers().contains_key(IDEMPOTENT_REPLAYED);
            (response.status().as_u16(), replayed)
        });
        result
    };
    let response = if cancel_on_disconnect {
        // Awaited here, the work is part of the handler's future, which
        // hyper drops when the client hangs up: it stops at its next `.await`.
        work.await?
    } else {
        finish_even_if_client_leaves(work).await?
    };
    Ok(match fault {
        Some(fault) => {
            if fault == Fault::DropResponse {
                steps.record(lab_wire::StepKind::ResponseDropped);
            }
            fault.apply(response)
        }
        None => response,
    })
}

/// `GET /orders`: this lab's orders, oldest first.
async fn list_orders(
    State(state): State<ServerState>,
    LabToRead(lab): LabToRead,
) -> Result<Json<Vec<Order>>, LabError> {
    Ok(Json(state.tables.list_orders(&state.db, &lab).await?))
}

/// `DELETE /orders`: forget this lab's orders and keys.
async fn delete_orders(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
) -> Result<Response, LabError> {
    state.tables.delete_lab(&state.db, &lab).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
