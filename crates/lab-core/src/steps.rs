//! The steps each request takes, recorded as a server takes them; the
//! page hears them over Server-Sent Events (see [`crate::step_stream`]).
//!
//! A server's flow calls [`Steps::record`] at each step; nothing is kept,
//! and nothing is built at all while no page is listening. A request whose
//! work is dropped half-way (the client hung up under
//! `Lab-Cancellation: on-disconnect`) reports [`StepKind::Cancelled`] from
//! its recorder's `Drop`, since no code after its last `.await` runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use lab_wire::{IdempotencyKey, LabId, Step, StepKind};
use tokio::sync::{broadcast, watch};

use crate::LabError;

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

    /// Turns true when the hub is closed.
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.inner.closing.subscribe()
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
}
