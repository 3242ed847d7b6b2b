//! The receivers' HTTP, under `/api/receivers`:
//!
//! - `POST /{receiver}/labs/{lab}/webhooks`: the webhook endpoint the
//!   provider delivers to (signed with the lab's secret; `Lab-Fault:
//!   drop-response` loses the answer after the work, as a network would);
//! - `GET /{receiver}/labs/{lab}/webhooks/{event}`: how many shipments one
//!   event made, the count endpoint `probe --webhook` reads;
//! - `GET` and `DELETE /{receiver}/shipments`: what the receiver shipped
//!   for the lab, for the page, and a fresh start.

use std::time::Duration;

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRef, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use lab_platform::access::{CredentialHeaders, LabToChange, LabToRead, TeacherToken};
use lab_platform::headers::single_header;
use lab_platform::limits::Room;
use lab_platform::serve::HangUp;
use lab_platform::{Db, LabError};
use lab_wire::headers::LAB_FAULT;
use lab_wire::webhook::{EventEffects, Receipt, ReceiverDesign, Shipments};
use lab_wire::{LabId, Problem};
use outside::WebhookSecrets;
use utoipa::OpenApi;

use crate::signed::signed_event;
use crate::{inbox, naive, store};

/// A receiver of a lab, as its paths name them.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "describes the path for utoipa; never built")]
struct ReceiverOfLab {
    /// `naive` (ships on every delivery) or `inbox` (ships once per event).
    receiver: ReceiverDesign,
    /// The lab whose secret signs the deliveries.
    #[param(pattern = "^[A-Za-z0-9_-]{1,64}$", example = "default")]
    lab: String,
}

/// The headers a delivery comes with.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code, reason = "describes the headers for utoipa; never built")]
struct DeliveryHeaders {
    /// The event's id, the same on every delivery of it.
    #[param(rename = "webhook-id")]
    webhook_id: String,
    /// When this attempt was sent, in Unix seconds (within 5 minutes of
    /// the receiver's clock).
    #[param(rename = "webhook-timestamp")]
    webhook_timestamp: i64,
    /// `v1,` and the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
    /// under the lab's secret, in base64 (several, space-separated, while
    /// a secret is rotated).
    #[param(rename = "webhook-signature")]
    webhook_signature: String,
    /// `drop-response`: do the work, then close the connection without answering.
    #[param(rename = "Lab-Fault", required = false)]
    lab_fault: ReceiverFault,
}

/// The one fault a receiver takes.
#[derive(utoipa::ToSchema)]
#[allow(dead_code, reason = "describes a header for utoipa; never built")]
enum ReceiverFault {
    #[schema(rename = "drop-response")]
    DropResponse,
}

#[derive(Clone)]
struct Receivers {
    db: Db,
    secrets: WebhookSecrets,
    room: Room,
    teacher: TeacherToken,
}

impl FromRef<Receivers> for TeacherToken {
    fn from_ref(receivers: &Receivers) -> Self {
        receivers.teacher.clone()
    }
}

/// Both receivers over the lab's storage `db`, checking deliveries
/// against `secrets`, each within its lab's share of `room`.
pub fn routes(db: Db, secrets: WebhookSecrets, room: Room, teacher: TeacherToken) -> Router {
    Router::new()
        .route("/receivers/{receiver}/labs/{lab}/webhooks", post(receive))
        .route(
            "/receivers/{receiver}/labs/{lab}/webhooks/{event}",
            get(event_effects),
        )
        .route(
            "/receivers/{receiver}/shipments",
            get(shipments).delete(forget_shipments),
        )
        .with_state(Receivers {
            db,
            secrets,
            room,
            teacher,
        })
}

fn receiver(name: &str) -> Result<ReceiverDesign, LabError> {
    ReceiverDesign::from_name(name).ok_or_else(|| LabError::NoSuchReceiver(name.to_owned()))
}

/// `POST /receivers/{receiver}/labs/{lab}/webhooks`: a delivery.
#[utoipa::path(
    post,
    path = "/receivers/{receiver}/labs/{lab}/webhooks",
    operation_id = "receive_webhook",
    summary = "A receiver's webhook endpoint: the provider delivers charge.succeeded here",
    params(ReceiverOfLab, DeliveryHeaders),
    request_body = lab_wire::webhook::WebhookEvent,
    responses(
        (status = 200, body = Receipt, description = "Accepted: shipped, or (on the inbox) processed before and acknowledged without shipping"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "Malformed JSON, a lab id or header that is not valid"),
        (status = 401, body = Problem, content_type = "application/problem+json", description = "The signature does not hold (wrong secret, changed body, old timestamp, missing headers): nothing is shipped"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "No such receiver"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "A body larger than a receiver reads"),
        (status = 415, body = Problem, content_type = "application/problem+json", description = "A body not sent as JSON"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "Signed, but not an event this shop takes"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab has as many requests in progress as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn receive(
    State(receivers): State<Receivers>,
    path: Result<Path<(String, String)>, PathRejection>,
    request: Request,
) -> Result<Response, LabError> {
    let Path((name, lab)) = path.map_err(|_| LabError::NotFound)?;
    let design = receiver(&name)?;
    let lab = LabId::try_from(lab.as_str())?;
    let _admission = receivers.room.admit(&lab, Duration::ZERO)?;
    let lose_answer = drop_response(request.headers())?;
    let event = signed_event(&receivers.secrets.for_lab(&lab), request).await?;
    let receipt = match design {
        ReceiverDesign::Naive => naive::receive(&receivers.db, &lab, &event).await?,
        ReceiverDesign::Inbox => inbox::receive(&receivers.db, &lab, &event).await?,
    };
    let response = Json(receipt).into_response();
    // The work is done; the provider is not told, so it will send again.
    Ok(if lose_answer {
        HangUp::mark(response)
    } else {
        response
    })
}

/// Whether the lab asks this delivery's answer to be lost.
fn drop_response(headers: &axum::http::HeaderMap) -> Result<bool, LabError> {
    match single_header(headers, LAB_FAULT, "Lab-Fault")? {
        None => Ok(false),
        Some(value) if value.as_bytes().trim_ascii() == b"drop-response" => Ok(true),
        Some(other) => Err(LabError::UnknownFault(
            String::from_utf8_lossy(other.as_bytes()).into_owned(),
        )),
    }
}

/// `GET /receivers/{receiver}/labs/{lab}/webhooks/{event}`: one event's shipments.
#[utoipa::path(
    get,
    path = "/receivers/{receiver}/labs/{lab}/webhooks/{event}",
    operation_id = "webhook_event_effects",
    summary = "How many shipments one event made: the count endpoint probe --webhook reads",
    params(
        ReceiverOfLab,
        ("event" = String, Path, description = "The event's id (its webhook-id)"),
    ),
    responses(
        (status = 200, body = EventEffects, description = "The shipments the event made on this receiver (0 if it never arrived)"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A lab id that is not valid"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "No such receiver"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn event_effects(
    State(receivers): State<Receivers>,
    path: Result<Path<(String, String, String)>, PathRejection>,
) -> Result<Json<EventEffects>, LabError> {
    let Path((name, lab, event)) = path.map_err(|_| LabError::NotFound)?;
    let design = receiver(&name)?;
    let lab = LabId::try_from(lab.as_str())?;
    // An id no delivery could have carried made nothing (and a NUL in it
    // would not even reach PostgreSQL's text).
    let effects = if crate::signed::is_event_id(&event) {
        store::shipments_for_event(&receivers.db, design.name(), &lab, &event).await?
    } else {
        0
    };
    Ok(Json(EventEffects { event, effects }))
}

/// `GET /receivers/{receiver}/shipments`: what the receiver shipped for the lab.
#[utoipa::path(
    get,
    path = "/receivers/{receiver}/shipments",
    operation_id = "receiver_shipments",
    summary = "What a receiver shipped for the lab",
    params(
        ("receiver" = ReceiverDesign, Path, description = "naive or inbox"),
        CredentialHeaders,
    ),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = Shipments, description = "Shipments, and for how many orders"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "No such receiver"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn shipments(
    State(receivers): State<Receivers>,
    path: Result<Path<String>, PathRejection>,
    LabToRead(lab): LabToRead,
) -> Result<Json<Shipments>, LabError> {
    let Path(name) = path.map_err(|_| LabError::NotFound)?;
    let design = receiver(&name)?;
    let (shipments, orders) = store::shipments(&receivers.db, design.name(), &lab).await?;
    Ok(Json(Shipments {
        receiver: design,
        shipments,
        orders,
    }))
}

/// `DELETE /receivers/{receiver}/shipments`: a fresh start for the lab.
#[utoipa::path(
    delete,
    path = "/receivers/{receiver}/shipments",
    operation_id = "forget_shipments",
    summary = "Forget what a receiver shipped (and, on the inbox, the events it processed)",
    params(
        ("receiver" = ReceiverDesign, Path, description = "naive or inbox"),
        CredentialHeaders,
    ),
    responses(
        (status = 204, description = "The lab's shipments on this receiver are gone"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "No such receiver"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn forget_shipments(
    State(receivers): State<Receivers>,
    path: Result<Path<String>, PathRejection>,
    LabToChange(lab): LabToChange,
) -> Result<StatusCode, LabError> {
    let Path(name) = path.map_err(|_| LabError::NotFound)?;
    let design = receiver(&name)?;
    let inbox = design == ReceiverDesign::Inbox;
    store::forget(&receivers.db, design.name(), &lab, inbox).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The receivers' routes in the lab's OpenAPI document.
#[derive(OpenApi)]
#[openapi(
    paths(receive, event_effects, shipments, forget_shipments),
    components(schemas(Receipt, EventEffects, Shipments, ReceiverDesign, ReceiverFault))
)]
pub struct ReceiversApi;
