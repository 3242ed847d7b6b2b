//! The page's HTTP calls to the servers its panes show.

use futures::future::{Either, select};
use gloo_net::http::Request;
use gloo_timers::future::TimeoutFuture;
use lab_client::record::RunRecord;
use lab_client::{AttemptPlan, Design, Outcome};
use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::headers::{
    IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LAB_CANCELLATION, LAB_DELAY_MS, LAB_FAULT, LAB_FENCING,
    LAB_KEY_RETENTION_SECS, LAB_LOCK_TIMEOUT_SECS, LAB_MISSING_KEY, LAB_SECRET, LAB_SIDE_EFFECTS,
};
use lab_wire::workshop::{LessonProgress, SavedRun};
use lab_wire::{LabSecret, NewOrder, Order, Problem};

/// Why a call to a server did not give the page what it asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The server answered with an unexpected status.
    Status(u16),
    /// The request did not reach the server, or its answer did not arrive.
    Network(String),
    /// The answer arrived but was not what the page expected.
    Unreadable(String),
}

impl ApiError {
    /// The error in `locale`'s words (a browser's own detail stays as it is).
    pub fn text(&self, locale: Locale) -> String {
        match self {
            Self::Status(status) => td_string!(locale, error.server_answered, status = status),
            Self::Network(detail) => td_string!(locale, error.network, detail = detail),
            Self::Unreadable(detail) => td_string!(locale, error.unreadable, detail = detail),
        }
    }
}

/// Sends one `POST /orders` attempt as `plan` says and reports what came back.
pub async fn place_order(
    server: Design,
    lab: &LabSecret,
    plan: &AttemptPlan,
    order: &NewOrder,
) -> Outcome {
    let controller = web_sys::AbortController::new().ok();
    let mut request = Request::post(&server.orders_url())
        .header(LAB_SECRET, lab.as_str())
        .header(LAB_DELAY_MS, &plan.server_delay_ms.to_string())
        .abort_signal(controller.as_ref().map(|c| c.signal()).as_ref());
    request = if plan.key.is_empty() {
        // No key: a plain POST, which the servers refuse unless asked to take it.
        request.header(LAB_MISSING_KEY, "create")
    } else {
        request.header(IDEMPOTENCY_KEY, &plan.key)
    };
    if plan.side_effects {
        request = request.header(LAB_SIDE_EFFECTS, "charge-and-email");
    }
    if plan.fencing {
        request = request.header(LAB_FENCING, "on");
    }
    if plan.crash_after_charge {
        request = request.header(LAB_FAULT, "crash-after-charge");
    } else if plan.crash_after_create {
        request = request.header(LAB_FAULT, "crash-after-create");
    } else if plan.drop_response {
        request = request.header(LAB_FAULT, "drop-response");
    }
    if plan.key_retention_secs > 0 {
        request = request.header(LAB_KEY_RETENTION_SECS, &plan.key_retention_secs.to_string());
    }
    if plan.cancel_on_disconnect {
        request = request.header(LAB_CANCELLATION, "on-disconnect");
    }
    if plan.lock_timeout_secs > 0 {
        request = request.header(LAB_LOCK_TIMEOUT_SECS, &plan.lock_timeout_secs.to_string());
    }
    let request = match request.json(order) {
        Ok(request) => request,
        Err(error) => return Outcome::NetworkError(error.to_string()),
    };
    let sent = Box::pin(request.send());
    let answer = if plan.timeout_ms == 0 {
        sent.await
    } else {
        match select(sent, TimeoutFuture::new(plan.timeout_ms)).await {
            Either::Left((answer, _)) => answer,
            Either::Right(_) => {
                // Hang up, as a real client's timeout does; the server carries on.
                if let Some(controller) = controller {
                    controller.abort();
                }
                return Outcome::TimedOut;
            }
        }
    };
    match answer {
        Ok(response) => outcome_of(response).await,
        // The browser cannot see why a connection closed; the page knows it asked for it.
        Err(_) if plan.crash_after_create || plan.crash_after_charge => Outcome::Crashed,
        Err(_) if plan.drop_response => Outcome::Dropped,
        Err(error) => Outcome::NetworkError(error.to_string()),
    }
}

/// What an answer to `POST /orders` says: its status, whether it is a
/// replay, and the problem's type for a refusal.
pub async fn outcome_of(response: gloo_net::http::Response) -> Outcome {
    let replayed = response.headers().get(IDEMPOTENT_REPLAYED).as_deref() == Some("true");
    let status = response.status();
    let problem = if status == 201 {
        None
    } else {
        response
            .json::<Problem>()
            .await
            .ok()
            .map(|problem| problem.kind)
    };
    Outcome::from_status(status, replayed, problem)
}

/// One `GET /orders` attempt, as a client that only reads makes it.
pub async fn read_orders(server: Design, lab: &LabSecret) -> Outcome {
    match list_orders(server, lab).await {
        Ok(orders) => Outcome::Read {
            orders: orders.len(),
        },
        Err(ApiError::Status(status)) => Outcome::Rejected {
            status,
            problem: String::new(),
        },
        Err(ApiError::Network(detail) | ApiError::Unreadable(detail)) => {
            Outcome::NetworkError(detail)
        }
    }
}

/// The lab's orders on `server`, oldest first.
pub async fn list_orders(server: Design, lab: &LabSecret) -> Result<Vec<Order>, ApiError> {
    let response = Request::get(&server.orders_url())
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    if !response.ok() {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}

/// Deletes the lab's orders and keys on `server`.
pub async fn clear_orders(server: Design, lab: &LabSecret) -> Result<(), ApiError> {
    let response = Request::delete(&server.orders_url())
        .header(LAB_SECRET, lab.as_str())
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    match response.status() {
        204 => Ok(()),
        status => Err(ApiError::Status(status)),
    }
}

/// `POST /api/runs`: saves a finished run; its permalink comes back.
pub async fn save_run(lab: &LabSecret, run: &RunRecord) -> Result<SavedRun, ApiError> {
    let response = Request::post("/api/runs")
        .header(LAB_SECRET, lab.as_str())
        .json(run)
        .map_err(|error| ApiError::Unreadable(error.to_string()))?
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    if response.status() != 201 {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}

/// A saved run as `GET /api/runs/{id}` gives it.
#[cfg(feature = "viewer")]
#[derive(serde::Deserialize)]
pub struct FetchedRun {
    pub saved_at: lab_wire::Timestamp,
    pub run: RunRecord,
}

/// `GET /api/runs/{id}`: a saved run, by its permalink's id.
#[cfg(feature = "viewer")]
pub async fn fetch_run(id: &str) -> Result<FetchedRun, ApiError> {
    let response = Request::get(&format!("/api/runs/{id}"))
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    if !response.ok() {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}

/// `PUT /api/lesson`: where the lab is in the lesson, and its predictions.
pub async fn save_progress(lab: &LabSecret, progress: &LessonProgress) -> Result<(), ApiError> {
    let response = Request::put("/api/lesson")
        .header(LAB_SECRET, lab.as_str())
        .json(progress)
        .map_err(|error| ApiError::Unreadable(error.to_string()))?
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    match response.status() {
        204 => Ok(()),
        status => Err(ApiError::Status(status)),
    }
}

/// `GET /api/teacher/labs`: the room, with the teacher's token.
#[cfg(feature = "viewer")]
pub async fn room(token: &str) -> Result<Vec<lab_wire::workshop::LabActivity>, ApiError> {
    let response = Request::get("/api/teacher/labs")
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await
        .map_err(|error| ApiError::Network(error.to_string()))?;
    if !response.ok() {
        return Err(ApiError::Status(response.status()));
    }
    response
        .json()
        .await
        .map_err(|error| ApiError::Unreadable(error.to_string()))
}
