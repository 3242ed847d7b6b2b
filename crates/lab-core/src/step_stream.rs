//! The steps of a lab's requests as Server-Sent Events: `GET /steps?lab=ID`
//! for one server, and one stream over several servers for the page. The
//! lab comes from the query because a browser's `EventSource` cannot send
//! headers.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures::Stream;
use lab_wire::{LabId, Step};
use serde::Deserialize;
use tokio::sync::{broadcast, watch};

use crate::LabError;
use crate::state::ServerState;
use crate::steps::StepHub;

/// The query of a `/steps` request: `?lab=ID`, the default lab without one.
#[derive(Debug, Deserialize)]
struct StepsQuery {
    lab: Option<String>,
}

impl StepsQuery {
    /// The lab asked for; an id that is not a lab id is the client's 400.
    fn lab(&self) -> Result<LabId, LabError> {
        match &self.lab {
            None => Ok(LabId::default()),
            Some(value) => Ok(LabId::try_from(value.as_str())?),
        }
    }
}

/// The lab a `/steps` request names in its query (`?lab=ID`).
#[derive(Debug)]
pub struct LabInQuery(pub LabId);

impl<S: Send + Sync> FromRequestParts<S> for LabInQuery {
    type Rejection = LabError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        // axum's own rejection is plain text; the lab answers problem+json.
        let Query(query) = Query::<StepsQuery>::try_from_uri(&parts.uri)
            .map_err(|rejection| LabError::InvalidQuery(rejection.body_text()))?;
        Ok(Self(query.lab()?))
    }
}

/// `GET /steps?lab=ID`: this lab's steps on this server, as they happen
/// (Server-Sent Events named `step`, each a JSON [`Step`]).
pub async fn stream_steps(
    State(state): State<ServerState>,
    LabInQuery(lab): LabInQuery,
) -> impl IntoResponse {
    Sse::new(events_of_lab(&state.steps, lab, "step")).keep_alive(KeepAlive::default())
}

/// `GET /steps?lab=ID` over several servers at once: one stream whose
/// events are named after the server that reported them (`naive`, `safe`,
/// …). The page uses it so that watching both panes costs one of the
/// browser's six connections per host, not two, leaving the rest for the
/// copies it sends concurrently.
pub fn combined_steps_route(hubs: Vec<(&'static str, StepHub)>) -> Router {
    Router::new()
        .route("/steps", get(stream_combined_steps))
        .with_state(Arc::from(hubs))
}

async fn stream_combined_steps(
    State(hubs): State<Arc<[(&'static str, StepHub)]>>,
    LabInQuery(lab): LabInQuery,
) -> impl IntoResponse {
    let streams = hubs
        .iter()
        .map(|(name, hub)| Box::pin(events_of_lab(hub, lab.clone(), name)));
    Sse::new(futures::stream::select_all(streams)).keep_alive(KeepAlive::default())
}

/// The steps of `lab` on `hub` from now on, as SSE events named
/// `event_name`, until the hub is closed.
fn events_of_lab(
    hub: &StepHub,
    lab: LabId,
    event_name: &'static str,
) -> impl Stream<Item = Result<Event, Infallible>> + use<> {
    steps_of_lab(hub.subscribe(), hub.closing(), lab, event_name)
}

/// The steps of `lab` off `receiver`, as SSE events named `event_name`,
/// until `closing` turns true.
fn steps_of_lab(
    receiver: broadcast::Receiver<(LabId, Step)>,
    closing: watch::Receiver<bool>,
    lab: LabId,
    event_name: &'static str,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold((receiver, closing), move |(mut receiver, mut closing)| {
        let lab = lab.clone();
        async move {
            loop {
                let received = tokio::select! {
                    received = receiver.recv() => received,
                    // Closed, or the hub itself is gone: either way, the end.
                    _ = closing.wait_for(|closed| *closed) => return None,
                };
                match received {
                    Ok((step_lab, step)) if step_lab == lab => {
                        let event = Event::default()
                            .event(event_name)
                            .json_data(&step)
                            .unwrap_or_else(|_| Event::default().comment("unserialisable step"));
                        return Some((Ok(event), (receiver, closing)));
                    }
                    Ok(_) => {}
                    // A listener that fell behind misses some steps and goes on.
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "a step listener fell behind");
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
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
        let mut before = Box::pin(events_of_lab(&hub, LabId::default(), "step"));
        let steps = hub.start_request(&LabId::default(), &key());
        steps.record(StepKind::KeyClaimed);
        assert!(before.next().await.is_some(), "a step before closing");
        hub.close();
        assert!(before.next().await.is_none(), "the open stream ends");
        let mut after = Box::pin(events_of_lab(&hub, LabId::default(), "step"));
        assert!(
            after.next().await.is_none(),
            "a stream opened later ends at once"
        );
    }

    async fn lab_in(uri: &str) -> Result<LabId, LabError> {
        let (mut parts, ()) = axum::http::Request::get(uri).body(()).unwrap().into_parts();
        LabInQuery::from_request_parts(&mut parts, &())
            .await
            .map(|LabInQuery(lab)| lab)
    }

    #[tokio::test]
    async fn the_lab_comes_from_the_query_and_a_bad_one_is_refused() {
        assert_eq!(
            lab_in("/steps?lab=room-7").await.unwrap().as_str(),
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
