//! `/schedules`: open a schedule, read where its copies stand, release one
//! copy through its gate, close it. The copies themselves are ordinary
//! `POST /orders` sent with `Lab-Schedule` (see [`crate::schedules`]).

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use lab_wire::headers::LAB_SCHEDULE;
use lab_wire::{Problem, ScheduleView};

use crate::state::ServerState;
use lab_platform::LabError;
use lab_platform::access::{LabToChange, LabToRead};
use lab_platform::headers::single_header;

/// The schedule a `POST /orders` asks to run under (`Lab-Schedule`), if any.
#[derive(Debug, Clone, Default)]
pub struct ScheduleHeader(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for ScheduleHeader {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let value = single_header(&parts.headers, LAB_SCHEDULE, "Lab-Schedule")?;
        // Any value names a schedule or names none: one that cannot be an
        // id simply finds none, and is told so.
        Ok(Self(value.map(|value| {
            String::from_utf8_lossy(value.as_bytes())
                .chars()
                .take(80)
                .collect()
        })))
    }
}

/// The schedule and the copy a `/schedules/{id}/copies/{copy}/…` path
/// names; a copy that is not a number names no copy (404).
fn schedule_and_copy(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, u8), LabError> {
    let Path((id, copy)) = path.map_err(|_| LabError::NotFound)?;
    let copy = copy.parse().map_err(|_| LabError::NotFound)?;
    Ok((id, copy))
}

/// `POST /schedules`: opens a schedule in the lab.
#[utoipa::path(
    post,
    path = "/schedules",
    operation_id = "open_schedule",
    summary = "Open a schedule: copies sent with its id stop before each statement",
    description = "Send copies of one order with `Lab-Schedule: ID`: each stops at a gate before each database statement, each call to the payment provider and its answer, and reports an `at-gate` step on `/steps` saying what it will do next, until `POST /schedules/{id}/copies/{copy}/release` lets it through. A lab holds at most 2 open schedules of 4 copies each; one left untouched for 60 s is closed and its copies run on.",
    params(lab_platform::access::CredentialHeaders),
    responses(
        (status = 201, body = ScheduleView, description = "The new schedule, with no copies yet"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab holds as many open schedules as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The server holds as many schedules as it may, or no answer by the request deadline"),
    ),
)]
pub(crate) async fn open_schedule(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
) -> Result<Response, LabError> {
    let view = state.schedules.open(&lab)?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// `GET /schedules/{id}`: where each copy of the schedule stands.
#[utoipa::path(
    get,
    path = "/schedules/{id}",
    operation_id = "read_schedule",
    params(
        ("id" = String, Path, description = "The schedule's id, as `POST /schedules` returned it"),
        lab_platform::access::CredentialHeaders,
    ),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = ScheduleView, description = "The schedule's copies, in order of arrival, and where each stands"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "The lab has no open schedule with this id"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn read_schedule(
    State(state): State<ServerState>,
    LabToRead(lab): LabToRead,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<ScheduleView>, LabError> {
    let Path(id) = id.map_err(|_| LabError::NotFound)?;
    Ok(Json(state.schedules.view(&lab, &id)?))
}

/// `POST /schedules/{id}/copies/{copy}/release`: lets one copy through the
/// gate it waits at.
#[utoipa::path(
    post,
    path = "/schedules/{id}/copies/{copy}/release",
    operation_id = "release_copy",
    summary = "Let one copy through its gate",
    description = "The copy runs the statement it stopped before; the answer comes once it has settled: stopped at its next gate (`at-gate`), finished, or `blocked`: its statement waits for a row another copy's open transaction holds (PostgreSQL's `pg_blocking_pids` says so), or for the server's own lock (the locked design). A blocked copy moves on by itself once the other lets go. After 10 s without settling the answer says `running`.",
    params(
        ("id" = String, Path, description = "The schedule's id"),
        ("copy" = u8, Path, minimum = 1, maximum = 255, description = "The copy's number in the schedule, in order of arrival"),
        lab_platform::access::CredentialHeaders,
    ),
    responses(
        (status = 200, body = ScheduleView, description = "Released: the schedule once the copy has settled"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "The lab has no open schedule with this id, or `copy` is not a number"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "That copy is not waiting at a gate: it is running, has finished, or does not exist"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn release_copy(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<Json<ScheduleView>, LabError> {
    let (id, copy) = schedule_and_copy(path)?;
    let schedules = &state.schedules;
    let view = schedules.release_and_settle(&state.db, &lab, &id, copy);
    Ok(Json(view.await?))
}

/// `POST /schedules/{id}/copies/{copy}/crash`: ends one copy's work at
/// the gate it waits at, as if the server died there.
#[utoipa::path(
    post,
    path = "/schedules/{id}/copies/{copy}/crash",
    operation_id = "crash_copy",
    summary = "End one copy's work at its gate, as a crash would",
    description = "No statement after the gate runs, the copy's open transaction is dropped (the database rolls it back), and its client gets no answer (the connection closes), as when the server process dies there; its steps end with `crashed`. What it already wrote stays. The answer comes once every copy has settled, as for a release.",
    params(
        ("id" = String, Path, description = "The schedule's id"),
        ("copy" = u8, Path, minimum = 1, maximum = 255, description = "The copy's number in the schedule, in order of arrival"),
        lab_platform::access::CredentialHeaders,
    ),
    responses(
        (status = 200, body = ScheduleView, description = "Crashed: the schedule once every copy has settled, this one `finished`"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "The lab has no open schedule with this id, or `copy` is not a number"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "That copy is not waiting at a gate: it is running, has finished, or does not exist"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn crash_copy(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<Json<ScheduleView>, LabError> {
    let (id, copy) = schedule_and_copy(path)?;
    let schedules = &state.schedules;
    let view = schedules.crash_and_settle(&state.db, &lab, &id, copy);
    Ok(Json(view.await?))
}

/// `DELETE /schedules/{id}`: closes the schedule; its copies run on.
#[utoipa::path(
    delete,
    path = "/schedules/{id}",
    operation_id = "close_schedule",
    params(
        ("id" = String, Path, description = "The schedule's id"),
        lab_platform::access::CredentialHeaders,
    ),
    responses(
        (status = 204, description = "Closed: copies waiting at a gate run on to their end, unscheduled"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "The lab has no open schedule with this id"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn close_schedule(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, LabError> {
    let Path(id) = id.map_err(|_| LabError::NotFound)?;
    state.schedules.close(&lab, &id)?;
    Ok(StatusCode::NO_CONTENT)
}
