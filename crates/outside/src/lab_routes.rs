//! What the page may see of the outside services, through the lab:
//! `GET /side-effects`, what the lab's shops did at the provider and the
//! mail sink, and `DELETE /side-effects`, a new card and an empty inbox.

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use lab_core::access::{CredentialHeaders, LabToChange, LabToRead, TeacherToken};
use lab_core::{Db, LabError};
use lab_wire::Problem;
use lab_wire::outside::SideEffects;
use utoipa::OpenApi;

use crate::store;

#[derive(Clone)]
struct LabView {
    db: Db,
    teacher: TeacherToken,
    servers: &'static [&'static str],
}

impl FromRef<LabView> for TeacherToken {
    fn from_ref(view: &LabView) -> Self {
        view.teacher.clone()
    }
}

/// `GET` and `DELETE /side-effects` over `db`, for the shops named `servers`.
pub fn routes(db: Db, teacher: TeacherToken, servers: &'static [&'static str]) -> Router {
    Router::new()
        .route(
            "/side-effects",
            get(side_effects).delete(forget_side_effects),
        )
        .with_state(LabView {
            db,
            teacher,
            servers,
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
    Ok(Json(
        store::side_effects(&view.db, &lab, view.servers).await?,
    ))
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
