//! A small endpoint that takes an `Idempotency-Key` the way the draft asks,
//! with one switch per way real libraries get it wrong, so that the probe's
//! tests can show each check catching the bug it is meant for.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

/// One way an idempotency layer breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Looks the key up, then stores it, with a store round trip between.
    CheckThenSet,
    /// Never stores an answer: every retry does the work again.
    NeverReplays,
    /// Replays with 200 where the first answer was 201.
    ReplaysWithAnotherStatus,
    /// Replays without the first answer's `Location`.
    DropsLocationOnReplay,
    /// Replays without `Idempotent-Replayed: true`.
    NoReplayMarker,
    /// Replays the first answer whatever the body.
    IgnoresTheBody,
    /// While the first request runs, answers a changed body 409, not 422.
    ConflictBeforeFingerprint,
    /// Keys are one space for every client.
    SharesKeysAcrossClients,
    /// Keys are one space for every endpoint.
    SharesKeysAcrossEndpoints,
    /// Keys are one space for every method.
    SharesKeysAcrossMethods,
    /// Takes a request without a key.
    AcceptsAMissingKey,
    /// Takes any key: empty, 256 characters, not ASCII.
    AcceptsOddKeys,
    /// Says how long it keeps a key in a form no client can read.
    UnreadableRetention,
    /// Stores a failure as the key's answer, and replays it.
    StoresFailures,
    /// Leaves a failed request's claim in progress for ever.
    LeavesClaimsStuck,
    /// Forgets the key when the request fails, though its work was done.
    ForgetsTheKeyOnFailure,
}

/// Where the failure hook (`Fail: before` or `Fail: after`, as an
/// engineer's test build would offer one) makes the work fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailAt {
    Before,
    After,
}

/// What a key holds.
#[derive(Debug, Clone)]
enum Entry {
    Running { fingerprint: String },
    Done { fingerprint: String, id: String },
    Failed { fingerprint: String },
}

/// Where a key lives: the client and endpoint (unless keys are shared),
/// and the key.
type Slot = (String, String);

#[derive(Clone)]
struct Fake {
    bug: Option<Bug>,
    keys: Arc<Mutex<HashMap<Slot, Entry>>>,
    /// Every resource made, for the listing the probe counts.
    made: Arc<Mutex<Vec<String>>>,
}

/// Starts the fake with `bug` (or none) on a free port; its POST URL
/// (`/orders`, which takes a PATCH the same way; `/other` is a second
/// endpoint like it; a GET of `/orders` lists every resource made).
pub async fn start(bug: Option<Bug>) -> String {
    let fake = Fake {
        bug,
        keys: Arc::default(),
        made: Arc::default(),
    };
    let app = Router::new()
        .route("/orders", post(order).get(list).patch(order))
        .route("/other", post(order))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/orders")
}

async fn list(State(fake): State<Fake>) -> axum::Json<Vec<String>> {
    axum::Json(fake.made.lock().unwrap().clone())
}

async fn order(
    State(fake): State<Fake>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = if fake.has(Bug::SharesKeysAcrossEndpoints) {
        ""
    } else {
        uri.path()
    };
    let method = if fake.has(Bug::SharesKeysAcrossMethods) {
        ""
    } else {
        method.as_str()
    };
    let endpoint = format!("{method} {path}");
    // The work runs to its end even if the client hangs up, as it must.
    tokio::spawn(fake.handle(endpoint, headers, body))
        .await
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

impl Fake {
    fn has(&self, bug: Bug) -> bool {
        self.bug == Some(bug)
    }

    async fn handle(self, endpoint: String, headers: HeaderMap, body: Bytes) -> Response {
        let text = |name: &str| {
            headers
                .get(name)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        };
        let Some(key) = text("idempotency-key") else {
            if self.has(Bug::AcceptsAMissingKey) {
                return created(&uuid::Uuid::new_v4().to_string());
            }
            return StatusCode::BAD_REQUEST.into_response();
        };
        let odd = key.is_empty() || key.len() > 255 || !key.is_ascii();
        if odd && !self.has(Bug::AcceptsOddKeys) {
            return StatusCode::BAD_REQUEST.into_response();
        }
        let client = if self.has(Bug::SharesKeysAcrossClients) {
            endpoint
        } else {
            format!("{endpoint} {}", text("lab-secret").unwrap_or_default())
        };
        let fingerprint = serde_json::from_slice::<serde_json::Value>(&body)
            .map(|json| json.to_string())
            .unwrap_or_default();
        let slot = (client, key);
        // The lab's delay header widens the window the design leaves open.
        let delay = headers
            .get("lab-delay-ms")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok())
            .map_or(Duration::ZERO, Duration::from_millis);
        let fail = match text("fail").as_deref() {
            Some("before") => Some(FailAt::Before),
            Some("after") => Some(FailAt::After),
            _ => None,
        };
        if self.has(Bug::NeverReplays) {
            return self.work(delay, None, fingerprint, fail).await;
        }
        let running = Entry::Running {
            fingerprint: fingerprint.clone(),
        };
        if self.has(Bug::CheckThenSet) {
            let found = self.keys.lock().unwrap().get(&slot).cloned();
            if let Some(entry) = found {
                return self.answer_existing(entry, &fingerprint);
            }
            // The store round trip between the look and the write (and
            // the delay, which here falls in that window).
            tokio::time::sleep(delay.max(Duration::from_millis(2))).await;
            self.keys.lock().unwrap().insert(slot.clone(), running);
            return self
                .work(Duration::ZERO, Some(slot), fingerprint, fail)
                .await;
        }
        // Look and claim in one step: what a UNIQUE constraint does.
        let existing = {
            let mut keys = self.keys.lock().unwrap();
            let existing = keys.get(&slot).cloned();
            if existing.is_none() {
                keys.insert(slot.clone(), running);
            }
            existing
        };
        match existing {
            Some(entry) => self.answer_existing(entry, &fingerprint),
            None => self.work(delay, Some(slot), fingerprint, fail).await,
        }
    }

    fn answer_existing(&self, entry: Entry, fingerprint: &str) -> Response {
        let other_body = |claimed: &str| claimed != fingerprint && !self.has(Bug::IgnoresTheBody);
        match entry {
            Entry::Running {
                fingerprint: claimed,
            } => {
                if other_body(&claimed) && !self.has(Bug::ConflictBeforeFingerprint) {
                    StatusCode::UNPROCESSABLE_ENTITY.into_response()
                } else {
                    (StatusCode::CONFLICT, [(header::RETRY_AFTER, "1")]).into_response()
                }
            }
            Entry::Done {
                fingerprint: claimed,
                id,
            } => {
                if other_body(&claimed) {
                    return StatusCode::UNPROCESSABLE_ENTITY.into_response();
                }
                self.replay(&id)
            }
            Entry::Failed {
                fingerprint: claimed,
            } => {
                if other_body(&claimed) {
                    return StatusCode::UNPROCESSABLE_ENTITY.into_response();
                }
                let mut response = StatusCode::INTERNAL_SERVER_ERROR.into_response();
                mark_replayed(&mut response);
                response
            }
        }
    }

    /// Makes the resource, after `delay`, and stores its answer in `slot`;
    /// with `fail`, fails before or after making it.
    async fn work(
        &self,
        delay: Duration,
        slot: Option<Slot>,
        fingerprint: String,
        fail: Option<FailAt>,
    ) -> Response {
        tokio::time::sleep(delay).await;
        if fail == Some(FailAt::Before) {
            return self.failed(slot, fingerprint, None);
        }
        let id = uuid::Uuid::new_v4().to_string();
        self.made.lock().unwrap().push(id.clone());
        if fail == Some(FailAt::After) {
            return self.failed(slot, fingerprint, Some(id));
        }
        if let Some(slot) = slot {
            let done = Entry::Done {
                fingerprint,
                id: id.clone(),
            };
            self.keys.lock().unwrap().insert(slot, done);
        }
        let mut response = created(&id);
        // How long the key is kept, on the answer that stored it.
        let retention = if self.has(Bug::UnreadableRetention) {
            "24h"
        } else {
            "86400"
        };
        let retention = HeaderValue::from_static(retention);
        response.headers_mut().insert("idempotency-ttl", retention);
        response
    }

    /// Answers a failure of the work, `made` the resource if it was made
    /// first. Done right: the claim of work not done is let go; the
    /// resource of work done stays the key's answer, for the retry.
    fn failed(&self, slot: Option<Slot>, fingerprint: String, made: Option<String>) -> Response {
        let failure = StatusCode::INTERNAL_SERVER_ERROR.into_response();
        let Some(slot) = slot else {
            return failure;
        };
        let mut keys = self.keys.lock().unwrap();
        if self.has(Bug::LeavesClaimsStuck) {
            return failure;
        }
        if self.has(Bug::StoresFailures) {
            keys.insert(slot, Entry::Failed { fingerprint });
            return failure;
        }
        match made {
            Some(id) if !self.has(Bug::ForgetsTheKeyOnFailure) => {
                keys.insert(slot, Entry::Done { fingerprint, id });
            }
            _ => {
                keys.remove(&slot);
            }
        }
        failure
    }

    fn replay(&self, id: &str) -> Response {
        let mut response = created(id);
        if self.has(Bug::ReplaysWithAnotherStatus) {
            *response.status_mut() = StatusCode::OK;
        }
        if self.has(Bug::DropsLocationOnReplay) {
            response.headers_mut().remove(header::LOCATION);
        }
        if !self.has(Bug::NoReplayMarker) {
            mark_replayed(&mut response);
        }
        response
    }
}

fn mark_replayed(response: &mut Response) {
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
}

/// `201` with the resource: its id in the body, and its `Location`.
fn created(id: &str) -> Response {
    (
        StatusCode::CREATED,
        [
            (header::LOCATION, format!("/orders/{id}")),
            (header::CONTENT_TYPE, "application/json".to_owned()),
        ],
        serde_json::json!({ "id": id }).to_string(),
    )
        .into_response()
}
