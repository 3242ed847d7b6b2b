//! The lab's way to the provider's webhooks, for the page and the tests:
//! `POST /webhooks/deliveries` pays for an order (a real charge at the
//! provider) and has the provider tell one of the lab's receivers, with
//! the delivery plan the learner chose (once, twice, an answer lost, two
//! at once, out of order), and answers with every attempt it made;
//! `GET /webhooks/endpoints` gives the lab's webhook secret and where its
//! receivers listen, for `probe --webhook`.
//!
//! The provider only ever delivers to the lab's own receivers, at the
//! lab's own address: the page names a receiver, never a URL.

use axum::extract::{FromRef, Request, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::SubsecRound;
use lab_platform::access::{CredentialHeaders, LabToChange, LabToRead, TeacherToken};
use lab_platform::limits::Room;
use lab_platform::{Db, LabError};
use lab_wire::order::MAX_AMOUNT_CENTS;
use lab_wire::outside::NewCharge;
use lab_wire::webhook::{
    CHARGE_SUCCEEDED, ChargeSucceeded, DeliveryAsk, DeliveryAttempt, DeliveryPlan, DeliveryRun,
    ReceiverDesign, ReceiverPath, Signing, WebhookEndpoints, WebhookEvent,
};
use lab_wire::{LabId, Problem};
use utoipa::OpenApi;

use crate::services::read_json;
use crate::store::{self, Caller, Charged};
use crate::webhook_delivery::{Deliverer, MAX_ATTEMPTS, Pending};
use crate::webhook_secrets::WebhookSecrets;
use webhook_signature::WebhookKey;

/// What the routes share.
#[derive(Clone)]
struct Provider {
    db: Db,
    secrets: WebhookSecrets,
    deliverer: Deliverer,
    /// `http://127.0.0.1:PORT/api/receivers`: where the lab's receivers are.
    receivers_url: String,
    room: Room,
    teacher: TeacherToken,
}

impl FromRef<Provider> for TeacherToken {
    fn from_ref(provider: &Provider) -> Self {
        provider.teacher.clone()
    }
}

/// `POST /webhooks/deliveries` and `GET /webhooks/endpoints`, with the
/// provider's storage `db` and `secrets`, delivering to the receivers
/// under `receivers_url`, each run within its lab's share of `room`.
pub fn routes(
    db: Db,
    secrets: WebhookSecrets,
    receivers_url: String,
    room: Room,
    teacher: TeacherToken,
) -> Router {
    Router::new()
        .route("/webhooks/deliveries", post(deliver))
        .route("/webhooks/endpoints", get(endpoints))
        .with_state(Provider {
            db,
            secrets,
            deliverer: Deliverer::new(),
            receivers_url,
            room,
            teacher,
        })
}

/// The path of `receiver`'s webhook endpoint for `lab`, under `/api/receivers`.
pub fn receiver_path(receiver: ReceiverDesign, lab: &LabId) -> String {
    format!("/{}/labs/{}/webhooks", receiver.name(), lab.as_str())
}

/// `POST /webhooks/deliveries`: pays and delivers, as the plan says.
#[utoipa::path(
    post,
    path = "/webhooks/deliveries",
    operation_id = "deliver_webhooks",
    summary = "Pay for an order and have the provider deliver its webhook to a receiver",
    params(CredentialHeaders),
    request_body = DeliveryAsk,
    responses(
        (status = 200, body = DeliveryRun, description = "The events made and every delivery attempt, in the order sent"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "Malformed JSON, or a Lab-* header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "A body larger than the provider reads"),
        (status = 415, body = Problem, content_type = "application/problem+json", description = "A body not sent as JSON"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "An ask that is not valid (an unknown receiver or plan, an amount out of range)"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab has as many requests in progress as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn deliver(
    State(provider): State<Provider>,
    LabToChange(lab): LabToChange,
    request: Request,
) -> Result<Json<DeliveryRun>, LabError> {
    let ask: DeliveryAsk = read_json(request).await?;
    if !(1..=MAX_AMOUNT_CENTS).contains(&ask.amount_cents) {
        return Err(LabError::InvalidRecord(format!(
            "amount_cents must be between 1 and {MAX_AMOUNT_CENTS}"
        )));
    }
    // Two deliveries may be on their way at once (`at-once`).
    let _admission = provider.room.admit_many(&lab, 2)?;
    let payments = if ask.plan == DeliveryPlan::OutOfOrder {
        2
    } else {
        1
    };
    let mut events = Vec::new();
    for _ in 0..payments {
        events.push(pay(&provider.db, &lab, ask.receiver, ask.amount_cents).await?);
    }
    let key = match ask.signing {
        Signing::LabSecret => provider.secrets.for_lab(&lab),
        Signing::WrongSecret => WebhookKey::new(*uuid::Uuid::new_v4().as_bytes()),
    };
    let url = format!(
        "{}{}",
        provider.receivers_url,
        receiver_path(ask.receiver, &lab)
    );
    let attempts = send(&provider.deliverer, &url, &key, ask.plan, &events).await;
    Ok(Json(DeliveryRun {
        receiver: ask.receiver,
        plan: ask.plan,
        events,
        attempts,
        max_attempts: MAX_ATTEMPTS,
    }))
}

/// Charges the lab's card for a new order of `receiver`'s shop, and makes
/// the event that tells the shop so.
async fn pay(
    db: &Db,
    lab: &LabId,
    receiver: ReceiverDesign,
    amount_cents: i64,
) -> Result<WebhookEvent, LabError> {
    let order = format!("ord_{}", &uuid::Uuid::new_v4().simple().to_string()[..24]);
    let merchant = format!("{}-receiver", receiver.name());
    let caller = Caller {
        merchant: &merchant,
        lab,
        key: &order,
    };
    let asked = NewCharge {
        amount_cents,
        description: format!("order {order}"),
    };
    let charge = match store::charge(db, &caller, &asked).await? {
        Charged::New(charge) | Charged::Before(charge, _) => charge,
    };
    Ok(WebhookEvent {
        id: format!("evt_{}", uuid::Uuid::new_v4().simple()),
        kind: CHARGE_SUCCEEDED.to_owned(),
        created_at: chrono::Utc::now().trunc_subsecs(6).into(),
        data: ChargeSucceeded {
            charge: charge.id,
            order,
            amount_cents,
        },
    })
}

/// Delivers `events` to `url` as `plan` says; every attempt, in the order sent.
async fn send(
    deliverer: &Deliverer,
    url: &str,
    key: &WebhookKey,
    plan: DeliveryPlan,
    events: &[WebhookEvent],
) -> Vec<DeliveryAttempt> {
    let pending = |event: &WebhookEvent, delivery, lose_first_answer| Pending {
        event: event.clone(),
        delivery,
        lose_first_answer,
    };
    let first = &events[0];
    match plan {
        DeliveryPlan::Once => {
            deliverer
                .deliver(url, key, vec![pending(first, 1, false)])
                .await
        }
        DeliveryPlan::Twice => {
            let queue = vec![pending(first, 1, false), pending(first, 2, false)];
            deliverer.deliver(url, key, queue).await
        }
        DeliveryPlan::AnswerLost => {
            deliverer
                .deliver(url, key, vec![pending(first, 1, true)])
                .await
        }
        DeliveryPlan::AtOnce => {
            let (one, two) = tokio::join!(
                deliverer.deliver(url, key, vec![pending(first, 1, false)]),
                deliverer.deliver(url, key, vec![pending(first, 2, false)]),
            );
            let mut all: Vec<DeliveryAttempt> = one.into_iter().chain(two).collect();
            all.sort_by_key(|attempt| attempt.sent_at_us);
            all
        }
        DeliveryPlan::OutOfOrder => {
            let queue = vec![pending(first, 1, true), pending(&events[1], 1, false)];
            deliverer.deliver(url, key, queue).await
        }
    }
}

/// `GET /webhooks/endpoints`: the lab's webhook secret and its receivers' paths.
#[utoipa::path(
    get,
    path = "/webhooks/endpoints",
    operation_id = "webhook_endpoints",
    summary = "The lab's webhook secret and where its receivers listen",
    params(CredentialHeaders),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = WebhookEndpoints, description = "The secret the provider signs the lab's webhooks with, and each receiver's path"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn endpoints(
    State(provider): State<Provider>,
    LabToRead(lab): LabToRead,
) -> Json<WebhookEndpoints> {
    Json(WebhookEndpoints {
        secret: provider.secrets.for_lab(&lab).to_secret(),
        receivers: ReceiverDesign::ALL
            .into_iter()
            .map(|receiver| ReceiverPath {
                receiver,
                path: format!("/api/receivers{}", receiver_path(receiver, &lab)),
            })
            .collect(),
    })
}

/// The provider's lab-facing routes in the lab's OpenAPI document.
#[derive(OpenApi)]
#[openapi(
    paths(deliver, endpoints),
    components(schemas(DeliveryAsk, DeliveryRun, WebhookEndpoints))
)]
pub struct WebhooksApi;
