//! `/explorations`: run every schedule of a few copies of one order on
//! this design, read what each left, stop it (see [`crate::explorations`]).

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use std::time::Duration;

use axum::http::header::LOCATION;
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use lab_platform::LabError;
use lab_platform::access::{LabToChange, LabToRead};
use lab_platform::body::read_json;
use lab_wire::{ExplorationAsk, ExplorationView, Problem};

use crate::request::MAX_BODY_BYTES;
use crate::state::ServerState;

/// RFC 7240's request header (the `http` crate does not name it).
const PREFER: HeaderName = HeaderName::from_static("prefer");

/// `POST /explorations`: starts exploring this design for the lab.
#[utoipa::path(
    post,
    path = "/explorations",
    operation_id = "start_exploration",
    summary = "Run every order in which copies of one order can pass their statements",
    description = "The server sends `copies` copies of one order with one key, under a schedule (see `POST /schedules`), and releases their statements in every order they can run in, each order on a fresh key in a lab of its own that is forgotten once read; with `crash`, also crashing one copy at any gate, followed by its client's retry. `GET /explorations/{id}` reads each schedule as it ends: the order of releases (replayable), the orders it left, each copy's status, whether the promise of one order per key broke. Three copies are explored with at most 2 preemptions (switches away from a copy that could still move). One lab runs one exploration at a time, holding its requests in progress while it runs; a server runs two at once; at most 2,000 schedules each.",
    params(lab_platform::access::CredentialHeaders),
    request_body(content = ExplorationAsk, content_type = "application/json"),
    responses(
        (status = 202, body = ExplorationView, headers(("Location" = String, description = "Where to read it")), description = "Started: nothing run yet"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header that is not valid, or a body that is not JSON"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "The body is over 64 KiB, as for an order (the ask is two fields)"),
        (status = 415, body = Problem, content_type = "application/problem+json", description = "The body is not sent as JSON"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "Not 2 or 3 copies, or a field that is not known"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab already runs an exploration, or has too many requests in progress to start one"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The server runs as many explorations as it may, or cannot reach itself"),
    ),
)]
pub(crate) async fn start_exploration(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
    request: Request,
) -> Result<Response, LabError> {
    let asked: ExplorationAsk = read_json(request, MAX_BODY_BYTES).await?;
    let design = state.tables.server;
    let view = state.explorations.start(&lab, design, asked, &state.room)?;
    let location = format!("explorations/{}", view.id);
    Ok((StatusCode::ACCEPTED, [(LOCATION, location)], Json(view)).into_response())
}

/// `GET /explorations/{id}`: the exploration as it stands.
#[utoipa::path(
    get,
    path = "/explorations/{id}",
    operation_id = "read_exploration",
    summary = "Read an exploration: every schedule run so far, and the summary once finished",
    description = "With `Prefer: wait=N` (RFC 7240), a running exploration is answered when it ends, or after N seconds (at most 20), whichever comes first.",
    params(
        ("id" = String, Path, description = "The exploration's id, as `POST /explorations` returned it"),
        ("Prefer" = Option<String>, Header, description = "`wait=N`: answer when the exploration ends, waiting at most N seconds (up to 20); other preferences are ignored"),
        lab_platform::access::CredentialHeaders,
    ),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = ExplorationView, description = "Running (the schedules so far), finished (all of them, shortest first, and the summary) or failed (and why)"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "The lab has no exploration with this id on this design (stopped, replaced by a newer one, or kept past 30 minutes)"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn read_exploration(
    State(state): State<ServerState>,
    LabToRead(lab): LabToRead,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Json<ExplorationView>, LabError> {
    let Path(id) = id.map_err(|_| LabError::NotFound)?;
    let design = state.tables.server;
    let wait = preferred_wait(&headers);
    Ok(Json(
        state.explorations.view(&lab, design, &id, wait).await?,
    ))
}

/// The `wait=N` of the request's `Prefer` headers (RFC 7240), or none. A
/// preference is a wish, not a command: one that does not read is ignored.
fn preferred_wait(headers: &HeaderMap) -> Duration {
    let seconds = headers
        .get_all(PREFER)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split([',', ';']))
        .filter_map(|preference| preference.trim().strip_prefix("wait="))
        .find_map(|seconds| seconds.trim().parse::<u64>().ok());
    Duration::from_secs(seconds.unwrap_or(0))
}

/// `DELETE /explorations/{id}`: stops the exploration and forgets it.
#[utoipa::path(
    delete,
    path = "/explorations/{id}",
    operation_id = "stop_exploration",
    params(
        ("id" = String, Path, description = "The exploration's id"),
        lab_platform::access::CredentialHeaders,
    ),
    responses(
        (status = 204, description = "Stopped (if it ran) and forgotten; schedules it left open are closed within a minute"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or the teacher's read-only token"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "The lab has no exploration with this id on this design"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub(crate) async fn stop_exploration(
    State(state): State<ServerState>,
    LabToChange(lab): LabToChange,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, LabError> {
    let Path(id) = id.map_err(|_| LabError::NotFound)?;
    let design = state.tables.server;
    state.explorations.stop(&lab, design, &id)?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_platform::headers::header_map;

    #[test]
    fn a_wait_is_read_among_other_preferences_and_one_that_does_not_read_is_ignored() {
        let wait = |value: &str| preferred_wait(&header_map(&[("prefer", value)]));
        assert_eq!(wait("wait=5"), Duration::from_secs(5));
        assert_eq!(wait("respond-async, wait=7"), Duration::from_secs(7));
        assert_eq!(wait("handling=lenient; wait=3"), Duration::from_secs(3));
        for ignored in ["wait=soon", "wait=-1", "respond-async", ""] {
            assert_eq!(wait(ignored), Duration::ZERO, "{ignored:?}");
        }
        assert_eq!(preferred_wait(&HeaderMap::new()), Duration::ZERO);
    }
}
