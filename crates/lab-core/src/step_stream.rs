//! The steps of a lab's requests as Server-Sent Events: `GET /steps?secret=…`
//! for one server, and one stream over several servers for the page. The
//! lab's secret (or the teacher's token) comes in the query because a
//! browser's `EventSource` cannot send headers; the trace layer logs paths
//! without queries, so it stays out of the log. Every open stream holds one of its lab's stream places (and
//! one of the server's), given back when the client goes away.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures::{Stream, StreamExt};
use lab_wire::{LabId, Problem, STEPS_MISSED_EVENT, Step, StepsMissed};
use serde::Deserialize;
use tokio::sync::{broadcast, watch};

use crate::state::ServerState;
use crate::steps::StepHub;
use lab_platform::LabError;
use lab_platform::access::{CredentialHeaders, LabCredentials, LabUse, TeacherToken};
use lab_platform::limits::{Room, StreamAdmission};

/// The query of a `/steps` request: `?secret=SECRET` for a lab's own
/// page, `?lab=ID&teacher=TOKEN` for the teacher, nothing for the default lab.
/// (A browser's `EventSource` sends no headers; `Lab-Id`, `Lab-Secret` and
/// `Authorization` are read too, for clients that can.)
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StepsQuery {
    /// Which lab (as `Lab-Id`).
    #[param(value_type = String, required = false, pattern = "^[A-Za-z0-9_-]{1,64}$")]
    lab: Option<String>,
    /// The lab's secret (as `Lab-Secret`).
    #[param(value_type = String, required = false, pattern = "^[A-Za-z0-9_-]{16,128}$")]
    secret: Option<String>,
    /// The teacher's token, to watch any lab.
    #[param(value_type = String, required = false)]
    teacher: Option<String>,
}

/// The lab a `/steps` request may watch, opened by the secret or the
/// teacher's token in its query (or, from a client that can send them,
/// its headers).
#[derive(Debug)]
pub struct LabInQuery(pub LabId);

impl<S> FromRequestParts<S> for LabInQuery
where
    S: Send + Sync,
    TeacherToken: FromRef<S>,
{
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // axum's own rejection is plain text; the lab answers problem+json.
        let Query(query) = Query::<StepsQuery>::try_from_uri(&parts.uri)
            .map_err(|rejection| LabError::InvalidQuery(rejection.body_text()))?;
        let in_query = LabCredentials {
            lab: query.lab,
            secret: query.secret,
            teacher: query.teacher,
        };
        let credentials = in_query.or(LabCredentials::from_headers(&parts.headers)?);
        Ok(Self(
            credentials.open(LabUse::Read, &TeacherToken::from_ref(state))?,
        ))
    }
}

/// How a `/steps` request is refused, for the OpenAPI document.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code, reason = "describes answers for utoipa; never built")]
enum StreamRefused {
    /// A query or header that is not a valid lab id, secret or bearer token
    #[response(status = 400, content_type = "application/problem+json")]
    Invalid(Problem),
    /// A private lab without its secret, or a token that is not the teacher's
    #[response(status = 403, content_type = "application/problem+json")]
    Private(Problem),
    /// The lab has as many step streams open as it may
    #[response(status = 429, content_type = "application/problem+json", headers(("Retry-After" = u64)))]
    LabFull(Problem),
    /// The server has as many step streams open as it may
    #[response(status = 503, content_type = "application/problem+json", headers(("Retry-After" = u64)))]
    ServerFull(Problem),
}

/// `GET /steps?secret=…`: this lab's steps on this server, as they happen
/// (Server-Sent Events named `step`, each a JSON [`Step`]).
#[utoipa::path(
    get,
    path = "/steps",
    params(StepsQuery, CredentialHeaders),
    security((), ("teacher" = [])),
    responses(
        (status = 200, content_type = "text/event-stream",
            description = "Server-Sent Events until the client leaves: `step` events (each a JSON `Step`) and, for a listener that fell behind, a `missed` event (`StepsMissed`)"),
        StreamRefused,
    ),
)]
pub async fn stream_steps(
    State(state): State<ServerState>,
    LabInQuery(lab): LabInQuery,
) -> Result<impl IntoResponse, LabError> {
    let admission = state.room.open_stream(&lab)?;
    let events = events_of_lab(&state.steps, &lab, "step");
    Ok(Sse::new(holding(admission, events)).keep_alive(KeepAlive::default()))
}

/// `GET /steps?secret=…` over several servers at once: one stream whose
/// events are named after the server that reported them (`naive`, `safe`,
/// …). The page uses it so that watching both panes costs one of the
/// browser's six connections per host, not two, leaving the rest for the
/// copies it sends concurrently.
pub fn combined_steps_route(
    hubs: Vec<(&'static str, StepHub)>,
    room: Room,
    teacher: TeacherToken,
) -> Router {
    Router::new()
        .route("/steps", get(stream_combined_steps))
        .with_state(CombinedSteps {
            hubs: Arc::from(hubs),
            room,
            teacher,
        })
}

/// The servers a combined stream merges, the limits on opening one, and
/// whose token reads every lab.
#[derive(Clone)]
pub(crate) struct CombinedSteps {
    hubs: Arc<[(&'static str, StepHub)]>,
    room: Room,
    teacher: TeacherToken,
}

impl FromRef<CombinedSteps> for TeacherToken {
    fn from_ref(combined: &CombinedSteps) -> Self {
        combined.teacher.clone()
    }
}

/// `GET /steps?secret=…` for the lab's three servers together: events
/// named `naive`, `safe` and `transactional`, each a JSON [`Step`].
#[utoipa::path(
    get,
    path = "/steps",
    params(StepsQuery, CredentialHeaders),
    security((), ("teacher" = [])),
    responses(
        (status = 200, content_type = "text/event-stream",
            description = "Server-Sent Events until the client leaves: events named after the server that took the step (`naive`, `safe`, `transactional`; each a JSON `Step`) and `missed` events (`StepsMissed`)"),
        StreamRefused,
    ),
)]
pub(crate) async fn stream_combined_steps(
    State(combined): State<CombinedSteps>,
    LabInQuery(lab): LabInQuery,
) -> Result<impl IntoResponse, LabError> {
    // One place for the whole stream: it is one connection, one page.
    let admission = combined.room.open_stream(&lab)?;
    let streams = combined
        .hubs
        .iter()
        .map(|(name, hub)| Box::pin(events_of_lab(hub, &lab, name)));
    let events = futures::stream::select_all(streams);
    Ok(Sse::new(holding(admission, events)).keep_alive(KeepAlive::default()))
}

/// `events`, holding `admission` for as long as the stream lives (axum
/// drops the stream when the client goes away, and the place with it).
fn holding<S: Stream>(admission: StreamAdmission, events: S) -> impl Stream<Item = S::Item> {
    events.map(move |event| {
        let _held = &admission;
        event
    })
}

/// The steps of `lab` on `hub` from now on, as SSE events named
/// `event_name`, until the hub is closed.
fn events_of_lab(
    hub: &StepHub,
    lab: &LabId,
    event_name: &'static str,
) -> impl Stream<Item = Result<Event, Infallible>> + use<> {
    steps_off(hub.subscribe(lab), hub.closing(), event_name)
}

/// The steps off `receiver` (one lab's channel), as SSE events named
/// `event_name`, until `closing` turns true.
fn steps_off(
    receiver: broadcast::Receiver<Step>,
    closing: watch::Receiver<bool>,
    event_name: &'static str,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold((receiver, closing), move |(mut receiver, mut closing)| {
        async move {
            let received = tokio::select! {
                received = receiver.recv() => received,
                // Closed, or the hub itself is gone: either way, the end.
                _ = closing.wait_for(|closed| *closed) => return None,
            };
            let event = match received {
                Ok(step) => Event::default().event(event_name).json_data(&step),
                // A listener that fell behind misses some steps and goes on,
                // told how many, so the page can say its diagram is incomplete.
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a step listener fell behind");
                    let missed = StepsMissed {
                        of: event_name.to_owned(),
                        missed,
                    };
                    Event::default()
                        .event(STEPS_MISSED_EVENT)
                        .json_data(&missed)
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            };
            let event = event.unwrap_or_else(|_| Event::default().comment("unserialisable step"));
            Some((Ok(event), (receiver, closing)))
        }
    })
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use lab_wire::{IdempotencyKey, StepKind};

    use super::*;

    fn key() -> IdempotencyKey {
        IdempotencyKey::try_from("k-1".to_owned()).unwrap()
    }

    #[tokio::test]
    async fn closing_the_hub_ends_the_streams_open_on_it() {
        let hub = StepHub::new();
        let mut before = Box::pin(events_of_lab(&hub, &LabId::default(), "step"));
        let steps = hub.start_request(&LabId::default(), key().as_str());
        steps.record(StepKind::KeyClaimed);
        assert!(before.next().await.is_some(), "a step before closing");
        hub.close();
        assert!(before.next().await.is_none(), "the open stream ends");
        let mut after = Box::pin(events_of_lab(&hub, &LabId::default(), "step"));
        assert!(
            after.next().await.is_none(),
            "a stream opened later ends at once"
        );
    }

    #[tokio::test]
    async fn a_listener_that_fell_behind_is_told_how_many_steps_it_missed() {
        let hub = StepHub::new();
        let lab = LabId::default();
        let mut events = Box::pin(events_of_lab(&hub, &lab, "naive"));
        let steps = hub.start_request(&lab, key().as_str());
        for _ in 0..1030 {
            steps.record(StepKind::KeyClaimed);
        }
        let first = format!("{:?}", events.next().await.unwrap().unwrap());
        assert!(first.contains("missed"), "{first}");
        assert!(
            first.contains(r#"{\"of\":\"naive\",\"missed\":6}"#),
            "{first}"
        );
        let next = format!("{:?}", events.next().await.unwrap().unwrap());
        assert!(next.contains("key-claimed"), "then the steps go on: {next}");
    }

    const TEACHER: &str = "teacher-token-for-tests";

    async fn lab_in(uri: &str) -> Result<LabId, LabError> {
        let (mut parts, ()) = axum::http::Request::get(uri).body(()).unwrap().into_parts();
        let teacher = TeacherToken::new(TEACHER).unwrap();
        LabInQuery::from_request_parts(&mut parts, &teacher)
            .await
            .map(|LabInQuery(lab)| lab)
    }

    #[tokio::test]
    async fn the_lab_opens_with_the_secret_or_the_teachers_token_in_the_query() {
        let secret = lab_wire::LabSecret::try_from("a-lab-secret-in-a-query").unwrap();
        assert_eq!(
            lab_in(&format!("/steps?secret={}", secret.as_str()))
                .await
                .unwrap(),
            secret.lab_id()
        );
        assert!(matches!(
            lab_in("/steps?lab=room-7").await,
            Err(LabError::LabSecretRequired(_))
        ));
        assert_eq!(
            lab_in(&format!("/steps?lab=room-7&teacher={TEACHER}"))
                .await
                .unwrap()
                .as_str(),
            "room-7"
        );
        assert_eq!(lab_in("/steps?other=1").await.unwrap(), LabId::default());
        assert_eq!(lab_in("/steps").await.unwrap(), LabId::default());
        assert!(matches!(
            lab_in("/steps?lab=no%20spaces").await,
            Err(LabError::InvalidLabId(_))
        ));
        assert!(matches!(
            lab_in("/steps?lab=a&lab=b").await,
            Err(LabError::InvalidQuery(_))
        ));
    }
}
