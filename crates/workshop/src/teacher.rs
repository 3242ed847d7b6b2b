//! The teacher's view of the room: every lab active in it, for the token
//! the lab printed at start-up and for nobody else.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use chrono::Utc;
use lab_platform::LabError;
use lab_platform::access::TeacherToken;
use lab_wire::Problem;
use lab_wire::workshop::LabActivity;

use crate::settings::WorkshopState;
use crate::store;

/// The most labs the view lists: the most recently active.
const MAX_LABS_SHOWN: usize = 500;

/// Whether `offered` is the teacher's token; a missing or wrong one is 401.
pub(crate) fn check(teacher: &TeacherToken, offered: Option<&str>) -> Result<(), LabError> {
    match offered {
        Some(token) if teacher.admits(token) => Ok(()),
        _ => Err(LabError::TeacherTokenRequired),
    }
}

/// `GET /teacher/labs`: every lab with a live run or a lesson step, the
/// most recently active first.
#[utoipa::path(
    get,
    path = "/teacher/labs",
    operation_id = "teacher_room",
    summary = "The labs active in the room, for the teacher",
    security(("teacher" = [])),
    responses(
        (status = 200, body = Vec<LabActivity>, description = "Each active lab: last activity, runs, duplicates seen, lesson step, predictions"),
        (status = 401, body = Problem, content_type = "application/problem+json", description = "Without the teacher's token"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub async fn room(
    State(state): State<WorkshopState>,
    headers: HeaderMap,
) -> Result<Json<Vec<LabActivity>>, LabError> {
    // Anything but the teacher's `Bearer` token, a malformed header too,
    // is a missing token here: 401, which says how to get in.
    let offered = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    check(&state.teacher, offered)?;
    let now = Utc::now();
    let since = now - state.settings.retention();
    Ok(Json(
        store::room(&state.db, now, since, MAX_LABS_SHOWN).await?,
    ))
}
