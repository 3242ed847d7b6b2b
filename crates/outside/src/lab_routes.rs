//! What the page may see of the outside services, through the lab:
//! `GET /side-effects`, what the lab's shops did at the provider and the
//! mail sink, and `DELETE /side-effects`, a new card and an empty inbox.

use std::pin::Pin;

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use lab_platform::access::{CredentialHeaders, LabToChange, LabToRead, TeacherToken};
use lab_platform::{Db, LabError};
use lab_wire::outside::SideEffects;
use lab_wire::{LabId, Problem};
use utoipa::OpenApi;

use crate::store;

/// How many of a lab's e-mails wait in one design's outbox.
pub type WaitingEmails =
    fn(Db, LabId) -> Pin<Box<dyn Future<Output = sqlx::Result<u64>> + Send + 'static>>;

/// A design's outbox, as the counts see it: the design, its storage, and
/// how to count what waits there.
#[derive(Clone)]
pub struct Outbox {
    pub server: &'static str,
    pub db: Db,
    pub waiting: WaitingEmails,
}

#[derive(Clone)]
struct LabView {
    db: Db,
    teacher: TeacherToken,
    servers: &'static [&'static str],
    outboxes: Vec<Outbox>,
}

impl FromRef<LabView> for TeacherToken {
    fn from_ref(view: &LabView) -> Self {
        view.teacher.clone()
    }
}

/// `GET` and `DELETE /side-effects` over `db`, for the shops named
/// `servers`, counting what waits in `outboxes`.
pub fn routes(
    db: Db,
    teacher: TeacherToken,
    servers: &'static [&'static str],
    outboxes: Vec<Outbox>,
) -> Router {
    Router::new()
        .route(
            "/side-effects",
            get(side_effects).delete(forget_side_effects),
        )
        .with_state(LabView {
            db,
            teacher,
            servers,
            outboxes,
        })
}

/// `GET /side-effects`: per design, the charges the payment provider made
/// for this lab and the e-mails the mail sink delivered.
#[utoipa::path(
    get,
    path = "/side-effects",
    operation_id = "side_effects",
    summary = "What the lab's shops did outside their database",
    params(CredentialHeaders),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = Vec<SideEffects>, description = "Per design: charges at the payment provider and e-mails delivered, for this lab"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn side_effects(
    State(view): State<LabView>,
    LabToRead(lab): LabToRead,
) -> Result<Json<Vec<SideEffects>>, LabError> {
    let mut all = store::side_effects(&view.db, &lab, view.servers).await?;
    for outbox in &view.outboxes {
        let waiting = (outbox.waiting)(outbox.db.clone(), lab.clone()).await?;
        if let Some(effects) = all.iter_mut().find(|e| e.server == outbox.server) {
            effects.emails_waiting = waiting;
        }
    }
    Ok(Json(all))
}

/// `DELETE /side-effects`: forgets the lab's charges and e-mails.
#[utoipa::path(
    delete,
    path = "/side-effects",
    operation_id = "forget_side_effects",
    summary = "Forget the lab's charges and e-mails",
    params(CredentialHeaders),
    responses(
        (status = 204, description = "The lab's charges and e-mails are gone"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
async fn forget_side_effects(
    State(view): State<LabView>,
    LabToChange(lab): LabToChange,
) -> Result<StatusCode, LabError> {
    store::forget_lab(&view.db, &lab).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The lab-facing routes in the lab's OpenAPI document.
#[derive(OpenApi)]
#[openapi(
    paths(side_effects, forget_side_effects),
    components(schemas(SideEffects))
)]
pub struct SideEffectsApi;
