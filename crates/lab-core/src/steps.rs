//! The steps each request takes, recorded as a server takes them and
//! streamed to the page over Server-Sent Events (`GET /steps?lab=ID`).
//!
//! A server's flow calls [`Steps::record`] at each step; nothing is kept,
//! and nothing is built at all while no page is listening. A request whose
//! work is dropped half-way (the client hung up under
//! `Lab-Cancellation: on-disconnect`) reports [`StepKind::Cancelled`] from
//! its recorder's `Drop`, since no code after its last `.await` runs.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures::Stream;
use lab_wire::{IdempotencyKey, LabId, Step, StepKind};
use tokio::sync::{broadcast, watch};

use crate::LabError;
use crate::routes::ServerState;

/// How many steps a slow listener may fall behind before it misses some.
const BACKLOG: usize = 1024;

/// Where one server's requests report their steps, and where pages listen.
#[derive(Debug, Clone)]
pub struct StepHub {
    inner: Arc<HubInner>,
}

#[derive(Debug)]
struct HubInner {
    sender: broadcast::Sender<(LabId, Step)>,
    /// Set when the server stops: every open stream ends, so a page left
    /// open does not hold up the shutdown.
    closing: watch::Sender<bool>,
    next_request: AtomicU64,
    next_seq: AtomicU64,
}

impl Default for StepHub {
    fn default() -> Self {
        Self::new()
    }
}

impl StepHub {
    /// A hub with no listeners yet.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(HubInner {
                sender: broadcast::channel(BACKLOG).0,
                closing: watch::Sender::new(false),
                next_request: AtomicU64::new(1),
                next_seq: AtomicU64::new(1),
            }),
        }
    }

    /// The recorder for a request that has just arrived, numbered in order of arrival.
    pub fn start_request(&self, lab: &LabId, key: &IdempotencyKey) -> Steps {
        let request = self.inner.next_request.fetch_add(1, Ordering::Relaxed);
        Steps {
            inner: Some(Arc::new(RequestSteps {
                hub: self.clone(),
                lab: lab.clone(),
                key: key.as_str().to_owned(),
                request,
                finished: AtomicBool::new(false),
            })),
        }
    }

    /// Every step reported from now on, of every lab.
    pub fn subscribe(&self) -> broadcast::Receiver<(LabId, Step)> {
        self.inner.sender.subscribe()
    }

    /// Ends every open `/steps` stream (and any opened later): the server is stopping.
    pub fn close(&self) {
        self.inner.closing.send_replace(true);
    }

    /// The steps of `lab` from now on, as SSE events named `event_name`,
    /// until the hub is closed.
    fn events_of_lab(
        &self,
        lab: LabId,
        event_name: &'static str,
    ) -> impl Stream<Item = Result<Event, Infallible>> + use<> {
        steps_of_lab(
            self.subscribe(),
            self.inner.closing.subscribe(),
            lab,
            event_name,
        )
    }

    fn publish(&self, lab: &LabId, key: &str, request: u64, kind: StepKind) {
        if self.inner.sender.receiver_count() == 0 {
            return;
        }
        let step = Step {
            seq: self.inner.next_seq.fetch_add(1, Ordering::Relaxed),
            request,
            key: key.to_owned(),
            at_us: chrono::Utc::now().timestamp_micros(),
            kind,
        };
        // An error only means every listener left meanwhile.
        let _ = self.inner.sender.send((lab.clone(), step));
    }
}

/// Waits for `shutdown`, then closes `hubs`: the shutdown signal to hand to
/// [`crate::serve`], so that pages left open do not hold the server up.
pub async fn close_on(shutdown: impl Future<Output = ()>, hubs: Vec<StepHub>) {
    shutdown.await;
    for hub in &hubs {
        hub.close();
    }
}

/// One request's step recorder; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Steps {
    inner: Option<Arc<RequestSteps>>,
}

#[derive(Debug)]
struct RequestSteps {
    hub: StepHub,
    lab: LabId,
    key: String,
    request: u64,
    finished: AtomicBool,
}

impl Steps {
    /// A recorder that records nothing (the benchmark's baseline uses it).
    pub fn off() -> Self {
        Self { inner: None }
    }

    /// Reports that the request took step `kind`.
    pub fn record(&self, kind: StepKind) {
        if let Some(inner) = &self.inner {
            if kind.is_last() {
                inner.finished.store(true, Ordering::Relaxed);
            }
            inner
                .hub
                .publish(&inner.lab, &inner.key, inner.request, kind);
        }
    }

    /// Reports how the flow ended: the status it answers with, or the crash.
    pub fn record_end<T>(&self, result: &Result<T, LabError>, answer: impl Fn(&T) -> (u16, bool)) {
        self.record(match result {
            Ok(response) => {
                let (status, replayed) = answer(response);
                StepKind::Answered { status, replayed }
            }
            Err(LabError::SimulatedCrash) => StepKind::Crashed,
            Err(error) => StepKind::Answered {
                status: error.status().as_u16(),
                replayed: false,
            },
        });
    }
}

impl Drop for RequestSteps {
    fn drop(&mut self) {
        // The last clone is gone without an ending: the work was dropped at an `.await`.
        if !*self.finished.get_mut() {
            self.hub
                .publish(&self.lab, &self.key, self.request, StepKind::Cancelled);
        }
    }
}

/// `GET /steps?lab=ID`: this lab's steps on this server, as they happen
/// (Server-Sent Events named `step`, each a JSON [`Step`]). The lab comes
/// from the query because a browser's `EventSource` cannot send headers.
pub async fn stream_steps(
    State(state): State<ServerState>,
    RawQuery(query): RawQuery,
) -> Result<impl IntoResponse, LabError> {
    let lab = lab_from_query(query.as_deref())?;
    let events = state.steps.events_of_lab(lab, "step");
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
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
    RawQuery(query): RawQuery,
) -> Result<impl IntoResponse, LabError> {
    let lab = lab_from_query(query.as_deref())?;
    let streams = hubs
        .iter()
        .map(|(name, hub)| Box::pin(hub.events_of_lab(lab.clone(), name)));
    Ok(Sse::new(futures::stream::select_all(streams)).keep_alive(KeepAlive::default()))
}

fn lab_from_query(query: Option<&str>) -> Result<LabId, LabError> {
    let value = query
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find_map(|(name, value)| (name == "lab").then_some(value));
    match value {
        None => Ok(LabId::default()),
        Some(value) => Ok(LabId::try_from(value)?),
    }
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
    use lab_wire::KeyFound;

    use super::*;

    fn key() -> IdempotencyKey {
        IdempotencyKey::try_from("k-1".to_owned()).unwrap()
    }

    #[tokio::test]
    async fn steps_reach_listeners_in_order_with_the_request_number() {
        let hub = StepHub::new();
        let mut listener = hub.subscribe();
        let lab = LabId::default();
        let first = hub.start_request(&lab, &key());
        let second = hub.start_request(&lab, &key());
        first.record(StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        });
        second.record(StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        });
        first.record(StepKind::OrderInserted);
        let received: Vec<_> = (0..3)
            .map(|_| listener.try_recv().unwrap().1)
            .map(|step| (step.seq, step.request, step.kind))
            .collect();
        assert_eq!(received[0].1, 1);
        assert_eq!(received[1].1, 2);
        assert_eq!(received[2].2, StepKind::OrderInserted);
        assert!(received[0].0 < received[1].0 && received[1].0 < received[2].0);
    }

    #[tokio::test]
    async fn a_request_dropped_before_its_end_reports_that_it_was_cancelled() {
        let hub = StepHub::new();
        let mut listener = hub.subscribe();
        let steps = hub.start_request(&LabId::default(), &key());
        let clone = steps.clone();
        drop(steps);
        assert!(listener.try_recv().is_err(), "a clone still holds it");
        drop(clone);
        assert_eq!(listener.try_recv().unwrap().1.kind, StepKind::Cancelled);
    }

    #[tokio::test]
    async fn a_request_that_answered_reports_no_cancellation() {
        let hub = StepHub::new();
        let mut listener = hub.subscribe();
        let steps = hub.start_request(&LabId::default(), &key());
        steps.record_end(&Ok::<_, LabError>(()), |()| (201, false));
        drop(steps);
        let kinds: Vec<_> = std::iter::from_fn(|| listener.try_recv().ok())
            .map(|(_, s)| s.kind)
            .collect();
        assert_eq!(
            kinds,
            [StepKind::Answered {
                status: 201,
                replayed: false
            }]
        );
    }

    #[tokio::test]
    async fn closing_the_hub_ends_the_streams_open_on_it() {
        use futures::StreamExt;

        let hub = StepHub::new();
        let mut before = Box::pin(hub.events_of_lab(LabId::default(), "step"));
        let steps = hub.start_request(&LabId::default(), &key());
        steps.record(StepKind::KeyClaimed);
        assert!(before.next().await.is_some(), "a step before closing");
        hub.close();
        assert!(before.next().await.is_none(), "the open stream ends");
        let mut after = Box::pin(hub.events_of_lab(LabId::default(), "step"));
        assert!(
            after.next().await.is_none(),
            "a stream opened later ends at once"
        );
    }

    #[test]
    fn the_lab_comes_from_the_query_and_a_bad_one_is_refused() {
        assert_eq!(
            lab_from_query(Some("lab=room-7")).unwrap().as_str(),
            "room-7"
        );
        assert_eq!(lab_from_query(None).unwrap(), LabId::default());
        assert!(matches!(
            lab_from_query(Some("lab=no%20spaces")),
            Err(LabError::InvalidLabId(_))
        ));
    }
}
