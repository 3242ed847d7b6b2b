//! The routes every server serves, around the one handler that differs:
//! `POST /orders`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::future::{AbortHandle, Abortable, Either};
use lab_wire::headers::{IDEMPOTENCY_TTL, IDEMPOTENT_REPLAYED};
use lab_wire::{Gate, NewOrder, Order, Problem};

use crate::controls::DemoControls;
use crate::exploration_routes::{read_exploration, start_exploration, stop_exploration};
use crate::fault::Fault;
use crate::keyless::place_without_key;
use crate::request::{OrderHeaders, OrderPost, OrderRequest};
use crate::schedule_routes::{
    ScheduleHeader, close_schedule, crash_copy, open_schedule, read_schedule, release_copy,
};
use crate::shop::Shop;
use crate::state::ServerState;
use crate::step_stream::stream_steps;
use crate::work::finish_even_if_client_leaves;
use lab_platform::access::{CredentialHeaders, LabToChange, LabToRead};
use lab_platform::error::LabError;
use lab_platform::error::response::{method_not_allowed, not_found};
use lab_platform::gates;

/// `POST /orders` through the server's `place_order` flow, the shared
/// `GET` and `DELETE`, and `GET /steps` (the steps of this server's
/// requests, as they happen).
pub fn order_routes<F, W>(state: ServerState, place_order: F) -> Router
where
    F: FnOnce(OrderRequest, Shop) -> W + Clone + Send + Sync + 'static,
    W: Future<Output = Result<Response, LabError>> + Send + 'static,
{
    let create_order =
        move |State(state): State<ServerState>, schedule: ScheduleHeader, request: OrderPost| {
            run_order_flow(state, schedule, request, place_order)
        };
    Router::new()
        .route(
            "/orders",
            post(create_order).get(list_orders).delete(delete_orders),
        )
        .route("/steps", get(stream_steps))
        .route("/schedules", post(open_schedule))
        .route("/schedules/{id}", get(read_schedule).delete(close_schedule))
        .route("/schedules/{id}/copies/{copy}/release", post(release_copy))
        .route("/schedules/{id}/copies/{copy}/crash", post(crash_copy))
        .route("/explorations", post(start_exploration))
        .route(
            "/explorations/{id}",
            get(read_exploration).delete(stop_exploration),
        )
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(state)
}

/// `POST /orders`: runs a server's order flow to the end (even if the client leaves, unless
/// the request asked for `Lab-Cancellation: on-disconnect`), reporting how
/// it ended, then applies the request's demo fault to the response.
#[utoipa::path(
    post,
    path = "/orders",
    operation_id = "create_order",
    summary = "Place an order, once per Idempotency-Key",
    description = "Each server checks the key its own way (see its `handler.rs`): the naive one looks first and inserts after, the safe and transactional ones let a UNIQUE constraint decide. A retry with the same key is answered with the first request's order, marked `Idempotent-Replayed: true`.",
    params(OrderHeaders, CredentialHeaders),
    request_body(content = NewOrder, content_type = "application/json"),
    responses(
        (status = 201, body = Order, headers(("Idempotent-Replayed" = String, description = "`true` when this is the saved answer of an earlier request with the same key"), ("Idempotency-TTL" = u64, description = "On the answer that stored the key: how long it is kept, in seconds (`Lab-Key-Retention-Secs`, default a day)")),
            description = "The order: made by this request, or (replayed) by an earlier one with the same key"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A missing or invalid Idempotency-Key, Lab-* header or body: the detail says which"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, a secret of another lab, or the teacher's read-only token"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "`Lab-Schedule` names no open schedule of the lab (`/problems/unknown-schedule`)"),
        (status = 409, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "A request with this key is still in progress (retry later), the lab holds all the orders it may, or the Lab-Schedule holds all the copies it may"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "The body is over 64 KiB"),
        (status = 415, body = Problem, content_type = "application/problem+json", description = "The body is not sent as JSON"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "Not a valid order, or a key already used for another order"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab has as many requests or as much delay in progress as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline; the work goes on, so retry with the same key"),
    ),
)]
pub async fn run_order_flow<F, W>(
    state: ServerState,
    ScheduleHeader(schedule): ScheduleHeader,
    request: OrderPost,
    flow: F,
) -> Result<Response, LabError>
where
    F: FnOnce(OrderRequest, Shop) -> W,
    W: Future<Output = Result<Response, LabError>> + Send + 'static,
{
    let DemoControls {
        fault,
        cancel_on_disconnect,
        delay,
        key_retention,
        ..
    } = *request.controls();
    let keyed = matches!(request, OrderPost::WithKey(_));
    // Taken before any work, and held by the work itself: a client that
    // hangs up frees its lab's place only once the work it left has ended.
    let admission = state.room.admit(request.lab(), delay)?;
    let steps = state.steps.start_request(request.lab(), request.key_text());
    let (scheduled, crash) = match schedule {
        None => (None, None),
        Some(id) => {
            let (crash, crash_point) = AbortHandle::new_pair();
            match state.schedules.join(request.lab(), &id, &steps, crash) {
                Ok(copy) => (Some(Arc::new(copy)), Some(crash_point)),
                Err(refused) => {
                    let refused = Err(refused);
                    steps.record_end(&refused, |_: &Response| (0, false));
                    return refused;
                }
            }
        }
    };
    let flow_steps = steps.clone();
    // Without a key there is nothing for a design to guard: every server
    // does the same, and only a request with a key reaches the server's flow.
    let work = match request {
        OrderPost::WithKey(request) => {
            let shop = Shop {
                db: state.db,
                steps: flow_steps.clone(),
                outside: state.outside,
            };
            Either::Left(flow(request, shop))
        }
        OrderPost::WithoutKey(request) => Either::Right(place_without_key(
            state.db,
            state.tables,
            request,
            flow_steps.clone(),
            state.outside,
        )),
    };
    let copy = scheduled.clone();
    let work = async move {
        let result = work.await;
        if !matches!(result, Err(LabError::SimulatedCrash)) {
            gates::wait_at(Gate::Answer).await;
        }
        result
    };
    let work = async move {
        let result = match crash {
            // Crashed by its schedule: dropped at the gate it waited at.
            Some(crash) => Abortable::new(work, crash)
                .await
                .unwrap_or(Err(LabError::SimulatedCrash)),
            None => work.await,
        };
        drop(admission);
        if let Some(copy) = copy {
            copy.finish();
        }
        flow_steps.record_end(&result, |response: &Response| {
            let replayed = response.headers().contains_key(IDEMPOTENT_REPLAYED);
            (response.status().as_u16(), replayed)
        });
        result
    };
    // A scheduled request's statements wait at their gates; any other's
    // pass them untouched.
    let work = match scheduled {
        Some(copy) => Either::Left(gates::run_scheduled(copy, work)),
        None => Either::Right(work),
    };
    let mut response = if cancel_on_disconnect {
        // Awaited here, the work is part of the handler's future, which
        // hyper drops when the client hangs up: it stops at its next `.await`.
        work.await?
    } else {
        finish_even_if_client_leaves(work).await?
    };
    // The answer that stored the key says how long it is kept (a replay
    // comes from a key stored earlier, whose time has partly run).
    let replayed = response.headers().contains_key(IDEMPOTENT_REPLAYED);
    if keyed && response.status() == StatusCode::CREATED && !replayed {
        let secs = HeaderValue::from(key_retention.as_secs());
        response.headers_mut().insert(IDEMPOTENCY_TTL, secs);
    }
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
#[utoipa::path(
    get,
    path = "/orders",
    params(CredentialHeaders),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = Vec<Order>, description = "The lab's orders on this server, oldest first"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn list_orders(
    State(state): State<ServerState>,
    LabToRead(lab): LabToRead,
) -> Result<Json<Vec<Order>>, LabError> {
    Ok(Json(state.tables.list_orders(&state.db, &lab).await?))
}

/// `DELETE /orders`: forget this lab's orders and keys.
#[utoipa::path(
    delete,
    path = "/orders",
    params(CredentialHeaders),
    responses(
        (status = 204, description = "The lab's orders and keys on this server are gone"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn delete_orders(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
) -> Result<Response, LabError> {
    state.tables.delete_lab(&state.db, &lab).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
