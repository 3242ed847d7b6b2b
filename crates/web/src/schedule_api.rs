//! The scheduler page's HTTP calls: a schedule on one design's server
//! (`/api/DESIGN/schedules`), its copies' releases and crashes, and the
//! copies themselves, sent with `Lab-Schedule`; and explorations, where
//! the server runs every schedule for the lab (`/api/DESIGN/explorations`).

use gloo_net::http::{Request, Response};
use lab_client::{Design, Outcome};
use lab_wire::headers::{IDEMPOTENCY_KEY, LAB_LOCK_TIMEOUT_SECS, LAB_SCHEDULE, LAB_SECRET};
use lab_wire::schedule::ScheduleView;
use lab_wire::{ExplorationAsk, ExplorationView};
use lab_wire::{LabSecret, NewOrder};

use crate::api::{self, ApiError};

fn schedules_url(design: Design) -> String {
    format!("/api/{}/schedules", design.name())
}

/// The body of an answer with status `expected`, or why there is none.
async fn answer_of<T: serde::de::DeserializeOwned>(
    response: Result<Response, gloo_net::Error>,
    expected: u16,
) -> Result<T, ApiError> {
    let response = response.map_err(|error| ApiError::Network(error.to_string()))?;
    if response.status() != expected {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}

/// `POST /schedules`: a new schedule on `design`'s server.
pub async fn open(design: Design, lab: &LabSecret) -> Result<ScheduleView, ApiError> {
    let sent = Request::post(&schedules_url(design))
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await;
    answer_of(sent, 201).await
}

/// `GET /schedules/ID`: where each copy stands.
pub async fn view(design: Design, lab: &LabSecret, id: &str) -> Result<ScheduleView, ApiError> {
    let sent = Request::get(&format!("{}/{id}", schedules_url(design)))
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await;
    answer_of(sent, 200).await
}

/// `POST /schedules/ID/copies/N/release` (or `…/crash` with `crash`):
/// answers once the copy has settled.
pub async fn make(
    design: Design,
    lab: &LabSecret,
    id: &str,
    copy: u8,
    crash: bool,
) -> Result<ScheduleView, ApiError> {
    let what = if crash { "crash" } else { "release" };
    let sent = Request::post(&format!(
        "{}/{id}/copies/{copy}/{what}",
        schedules_url(design)
    ))
    .header(LAB_SECRET, lab.as_str())
    .send()
    .await;
    answer_of(sent, 200).await
}

/// `DELETE /schedules/ID`: its copies run on unscheduled.
pub async fn close(design: Design, lab: &LabSecret, id: &str) {
    // A schedule already closed (it was idle for a minute) is as good as closed.
    let _ = Request::delete(&format!("{}/{id}", schedules_url(design)))
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await;
}

/// One copy of `order` under `key`: in the schedule `schedule`, or, for a
/// retry, on its own. A claim it makes stays locked for
/// [`lab_client::scheduler::LOCK_SECS`] if it crashes.
pub async fn send_copy(
    design: Design,
    lab: &LabSecret,
    key: &str,
    schedule: Option<&str>,
    order: &NewOrder,
) -> Outcome {
    let mut request = Request::post(&design.orders_url())
        .header(LAB_SECRET, lab.as_str())
        .header(IDEMPOTENCY_KEY, key)
        .header(
            LAB_LOCK_TIMEOUT_SECS,
            &lab_client::scheduler::LOCK_SECS.to_string(),
        );
    if let Some(schedule) = schedule {
        request = request.header(LAB_SCHEDULE, schedule);
    }
    let request = match request.json(order) {
        Ok(request) => request,
        Err(error) => return Outcome::NetworkError(error.to_string()),
    };
    match request.send().await {
        Ok(response) => api::outcome_of(response).await,
        // Also what a crashed copy's client sees: the page knows which it crashed.
        Err(error) => Outcome::NetworkError(error.to_string()),
    }
}

fn explorations_url(design: Design) -> String {
    format!("/api/{}/explorations", design.name())
}

/// `POST /explorations`: the server starts running every schedule of
/// `copies` copies on `design` (no crashes) for the lab.
pub async fn explore(
    design: Design,
    lab: &LabSecret,
    copies: u8,
) -> Result<ExplorationView, ApiError> {
    let ask = ExplorationAsk {
        copies,
        crash: false,
    };
    let request = Request::post(&explorations_url(design))
        .header(LAB_SECRET, lab.as_str())
        .json(&ask)
        .map_err(|error| ApiError::Unreadable(error.to_string()))?;
    answer_of(request.send().await, 202).await
}

/// `GET /explorations/ID`, answered once it has ended or after 20 s.
pub async fn exploration(
    design: Design,
    lab: &LabSecret,
    id: &str,
) -> Result<ExplorationView, ApiError> {
    let sent = Request::get(&format!("{}/{id}", explorations_url(design)))
        .header(LAB_SECRET, lab.as_str())
        .header("prefer", "wait=20")
        .send()
        .await;
    answer_of(sent, 200).await
}
