//! The routes of saved runs and lesson progress: each checks what it is
//! sent before storing it, and answers a problem+json that says what to fix.

use axum::Json;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use lab_platform::LabError;
use lab_platform::access::{CredentialHeaders, LabToChange, LabToRead};
use lab_platform::body::read_json;
use lab_wire::run::RunRecord;
use lab_wire::workshop::{
    Challenge, LESSON_STEPS, LessonProgress, MAX_ORDERS_COUNTED, Prediction, RunSummary, SavedRun,
};
use lab_wire::{Problem, Timestamp};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::settings::WorkshopState;
use crate::store::{self, NewRun, Progress};

/// The largest saved run accepted: two panes of six copies retried five
/// times, with every step, fit in a tenth of it.
pub const MAX_RUN_BYTES: usize = 1024 * 1024;
/// The largest lesson progress accepted.
const MAX_PROGRESS_BYTES: usize = 16 * 1024;
/// `POST /runs`: saves a finished run of the lab, for its permalink.
#[utoipa::path(
    post,
    path = "/runs",
    operation_id = "save_run",
    summary = "Save a finished run for its permalink",
    params(CredentialHeaders),
    request_body(content = RunRecord, content_type = "application/json", description = "The run as the page recorded it: the server reads it with the types the viewer draws it with, and keeps what it read"),
    responses(
        (status = 201, body = SavedRun, description = "Saved: its id, its permalink and when it expires"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header or the JSON is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "Not the lab's own secret (the teacher's token only reads)"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "The run is over 1 MiB"),
        (status = 415, body = Problem, content_type = "application/problem+json", description = "The body is not sent as JSON"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "Not a run the viewer could draw: the detail names the field and says what is wrong"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab has as many requests in progress as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub async fn save_run(
    State(state): State<WorkshopState>,
    LabToChange(lab): LabToChange,
    request: Request,
) -> Result<Response, LabError> {
    let _admission = state.room.admit(&lab, std::time::Duration::ZERO)?;
    let run: RunRecord = read_json(request, MAX_RUN_BYTES).await?;
    run.check()
        .map_err(|invalid| LabError::InvalidRecord(invalid.to_string()))?;
    // Kept as read, not as sent: what comes back is exactly what the viewer reads.
    let body = serde_json::to_string(&run).expect("a run always serialises");
    let id = format!("run-{}", uuid::Uuid::new_v4().simple());
    let saved_at = Utc::now();
    let expires_at = saved_at + state.settings.retention();
    let panes_with_duplicates = run
        .panes
        .iter()
        .filter(|pane| pane.orders_of_run > 1)
        .count() as u32;
    store::save_run(
        &state.db,
        NewRun {
            id: &id,
            lab: &lab,
            saved_at,
            expires_at,
            lesson_step: run.lesson_step,
            panes_with_duplicates,
            body: &body,
        },
        state.settings.max_runs_per_lab,
    )
    .await?;
    let saved = SavedRun {
        url: format!("/runs/{id}"),
        id,
        expires_at: expires_at.into(),
    };
    Ok((StatusCode::CREATED, Json(saved)).into_response())
}

/// `GET /runs`: the lab's saved runs, newest first.
#[utoipa::path(
    get,
    path = "/runs",
    operation_id = "list_runs",
    params(CredentialHeaders),
    security((), ("teacher" = [])),
    responses(
        (status = 200, body = Vec<RunSummary>, description = "The lab's live runs, newest first"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* or Authorization header that is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "A private lab without its secret, or a token that is not the teacher's"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab has as many requests in progress as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub async fn list_runs(
    State(state): State<WorkshopState>,
    LabToRead(lab): LabToRead,
) -> Result<Json<Vec<RunSummary>>, LabError> {
    let _admission = state.room.admit(&lab, std::time::Duration::ZERO)?;
    Ok(Json(store::list_runs(&state.db, &lab, Utc::now()).await?))
}

/// A saved run as `GET /runs/{id}` answers it.
#[derive(Serialize)]
struct RunAnswer<'a> {
    id: &'a str,
    lab: &'a str,
    saved_at: Timestamp,
    expires_at: Timestamp,
    run: &'a RawValue,
}

/// `GET /runs/{id}`: a saved run, to whoever holds its link.
#[utoipa::path(
    get,
    path = "/runs/{id}",
    operation_id = "get_run",
    params(("id" = String, Path, description = "The run's id, from its permalink")),
    responses(
        (status = 200, content_type = "application/json", description = "The run: its id, its lab's public id, when it was saved and expires, and `run`, as the page saved it"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "No such run, or it has expired"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub async fn get_run(
    State(state): State<WorkshopState>,
    Path(id): Path<String>,
) -> Result<Response, LabError> {
    let stored = store::find_run(&state.db, &id, Utc::now())
        .await?
        .ok_or_else(|| LabError::RunNotFound(id.chars().take(64).collect()))?;
    let run: &RawValue = serde_json::from_str(&stored.body)
        .map_err(|_| LabError::WorkerFailed(format!("the stored run {id} is not JSON")))?;
    Ok(Json(RunAnswer {
        id: &id,
        lab: &stored.lab,
        saved_at: stored.saved_at,
        expires_at: stored.expires_at,
        run,
    })
    .into_response())
}

/// `PUT /lesson`: where the lab is in the guided lesson, and its predictions.
#[utoipa::path(
    put,
    path = "/lesson",
    operation_id = "save_lesson_progress",
    params(CredentialHeaders),
    request_body(content = LessonProgress, content_type = "application/json"),
    responses(
        (status = 204, description = "Recorded"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "A Lab-* header or the JSON is not valid"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "Not the lab's own secret"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "The body is over 16 KiB"),
        (status = 415, body = Problem, content_type = "application/problem+json", description = "The body is not sent as JSON"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "A step outside 1–10, more than ten predictions, or a challenge the scheduler does not have"),
        (status = 429, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "The lab has as many requests in progress as it may"),
        (status = 503, body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64)), description = "No answer by the request deadline"),
    ),
)]
pub async fn save_progress(
    State(state): State<WorkshopState>,
    LabToChange(lab): LabToChange,
    request: Request,
) -> Result<StatusCode, LabError> {
    let _admission = state.room.admit(&lab, std::time::Duration::ZERO)?;
    let progress: LessonProgress = read_json(request, MAX_PROGRESS_BYTES).await?;
    let steps = 1..=LESSON_STEPS;
    let invalid = |why: &str| LabError::InvalidRecord(why.to_owned());
    if !steps.contains(&progress.step) {
        return Err(invalid(&format!(
            "step is a step of the lesson, 1 to {LESSON_STEPS}"
        )));
    }
    if progress.predictions.len() > usize::from(LESSON_STEPS) {
        return Err(invalid(&format!(
            "at most one prediction per step: {LESSON_STEPS}"
        )));
    }
    // One prediction per step: a later one for a step replaces an earlier.
    let mut kept: Vec<Prediction> = Vec::new();
    for prediction in &progress.predictions {
        if !steps.contains(&prediction.step) {
            return Err(invalid(&format!(
                "a prediction's step is a step of the lesson, 1 to {LESSON_STEPS}"
            )));
        }
        if prediction.orders > MAX_ORDERS_COUNTED {
            return Err(invalid("a prediction's orders are at most 1000000"));
        }
        kept.retain(|earlier| earlier.step != prediction.step);
        kept.push(*prediction);
    }
    let right = kept.iter().filter(|p| p.was_right()).count() as u32;
    // Each challenge once (serde has refused a name the scheduler does not have).
    let mut challenges: Vec<Challenge> = Vec::new();
    for challenge in progress.challenges {
        if !challenges.contains(&challenge) {
            challenges.push(challenge);
        }
    }
    let challenges = serde_json::to_string(&challenges).expect("challenges always serialise");
    // Stored as the server writes it, not as sent: nothing but the checked fields.
    let predictions = serde_json::to_string(&kept).expect("predictions always serialise");
    store::save_progress(
        &state.db,
        Progress {
            lab: &lab,
            step: progress.step,
            predictions_right: right,
            predictions_made: kept.len() as u32,
            predictions: &predictions,
            challenges: &challenges,
            at: Utc::now(),
        },
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}
