//! The steps each request takes, recorded as a server takes them; the
//! page hears them over Server-Sent Events (see [`crate::step_stream`]).
//!
//! A server's flow calls [`Steps::record`] at each step; nothing is kept,
//! and nothing is built at all while no page of that lab is listening. Each
//! lab has a channel of its own, so one lab's steps never crowd another's. A request whose
//! work is dropped half-way (the client hung up under
//! `Lab-Cancellation: on-disconnect`) reports [`StepKind::Cancelled`] from
//! its recorder's `Drop`, since no code after its last `.await` runs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use lab_wire::{KeyFound, LabId, Step, StepKind};
use tokio::sync::{broadcast, watch};

use lab_platform::LabError;

/// How many steps a slow listener may fall behind before it misses some
/// (one run of six copies with five retries takes well under a hundred).
const BACKLOG: usize = 1024;

/// Where one server's requests report their steps, and where pages listen.
#[derive(Debug, Clone)]
pub struct StepHub {
    inner: Arc<HubInner>,
}

#[derive(Debug)]
struct HubInner {
    /// One channel per lab that has a listener (or had one until its last
    /// step); a lab nobody watches costs nothing.
    labs: Mutex<HashMap<LabId, broadcast::Sender<Step>>>,
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
                labs: Mutex::new(HashMap::new()),
                closing: watch::Sender::new(false),
                next_request: AtomicU64::new(1),
                next_seq: AtomicU64::new(1),
            }),
        }
    }

    /// The recorder for a request that has just arrived, numbered in order
    /// of arrival, with `key` (`""` for a request that sent none).
    pub fn start_request(&self, lab: &LabId, key: &str) -> Steps {
        let request = self.inner.next_request.fetch_add(1, Ordering::Relaxed);
        Steps {
            inner: Some(Arc::new(RequestSteps {
                hub: self.clone(),
                lab: lab.clone(),
                key: key.to_owned(),
                request,
                finished: AtomicBool::new(false),
            })),
        }
    }

    /// Every step of `lab` reported from now on.
    pub fn subscribe(&self, lab: &LabId) -> broadcast::Receiver<Step> {
        let mut labs = self.inner.lock();
        // Channels whose listeners all left go now: their labs may never
        // report a step again to clear them.
        labs.retain(|_, sender| sender.receiver_count() > 0);
        labs.entry(lab.clone())
            .or_insert_with(|| broadcast::channel(BACKLOG).0)
            .subscribe()
    }

    /// How many labs have a channel now (listeners, or had them until lately).
    pub fn labs_listened_to(&self) -> usize {
        self.inner.lock().len()
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
        // Numbered, stamped and sent under one lock: two requests reporting
        // at once could otherwise reach a listener out of their `seq` order
        // (seen: the naive race test's stream, once in a few hundred runs).
        let mut labs = self.inner.lock();
        let sender = match labs.get(lab) {
            None => return,
            Some(sender) if sender.receiver_count() == 0 => {
                labs.remove(lab);
                return;
            }
            Some(sender) => sender,
        };
        let step = Step {
            seq: self.inner.next_seq.fetch_add(1, Ordering::Relaxed),
            request,
            key: key.to_owned(),
            at_us: chrono::Utc::now().timestamp_micros(),
            kind,
        };
        // An error only means every listener left meanwhile.
        let _ = sender.send(step);
    }
}

impl HubInner {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<LabId, broadcast::Sender<Step>>> {
        // The map holds no invariant a panic could break half-way.
        self.labs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Waits for `shutdown`, then closes `hubs`: the shutdown signal to hand to
/// [`lab_platform::serve`], so that pages left open do not hold the server up.
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

    /// The request's number, as its steps carry it (0 for a recorder that records nothing).
    pub fn request(&self) -> u64 {
        self.inner.as_ref().map_or(0, |inner| inner.request)
    }

    /// Records that the key was looked up, and whether an answer was found.
    pub fn record_lookup(&self, answer_found: bool) {
        let found = if answer_found {
            KeyFound::Answer
        } else {
            KeyFound::Nothing
        };
        self.record(StepKind::KeyLookedUp { found });
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
    use lab_wire::{IdempotencyKey, KeyFound};

    use super::*;

    fn key() -> IdempotencyKey {
        IdempotencyKey::try_from("k-1".to_owned()).unwrap()
    }

    #[tokio::test]
    async fn steps_reach_listeners_in_order_with_the_request_number() {
        let hub = StepHub::new();
        let lab = LabId::default();
        let mut listener = hub.subscribe(&lab);
        let first = hub.start_request(&lab, key().as_str());
        let second = hub.start_request(&lab, key().as_str());
        first.record(StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        });
        second.record(StepKind::KeyLookedUp {
            found: KeyFound::Nothing,
        });
        first.record(StepKind::OrderInserted);
        let received: Vec<_> = (0..3)
            .map(|_| listener.try_recv().unwrap())
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
        let mut listener = hub.subscribe(&LabId::default());
        let steps = hub.start_request(&LabId::default(), key().as_str());
        let clone = steps.clone();
        drop(steps);
        assert!(listener.try_recv().is_err(), "a clone still holds it");
        drop(clone);
        assert_eq!(listener.try_recv().unwrap().kind, StepKind::Cancelled);
    }

    #[tokio::test]
    async fn a_request_that_answered_reports_no_cancellation() {
        let hub = StepHub::new();
        let mut listener = hub.subscribe(&LabId::default());
        let steps = hub.start_request(&LabId::default(), key().as_str());
        steps.record_end(&Ok::<_, LabError>(()), |()| (201, false));
        drop(steps);
        let kinds: Vec<_> = std::iter::from_fn(|| listener.try_recv().ok())
            .map(|step| step.kind)
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
    async fn a_labs_steps_reach_only_that_labs_listeners() {
        let hub = StepHub::new();
        let (mine, theirs) = (LabId::default(), LabId::try_from("other").unwrap());
        let mut listener = hub.subscribe(&mine);
        hub.start_request(&theirs, key().as_str())
            .record(StepKind::KeyClaimed);
        assert!(listener.try_recv().is_err(), "another lab's step");
        hub.start_request(&mine, key().as_str())
            .record(StepKind::KeyClaimed);
        assert_eq!(listener.try_recv().unwrap().kind, StepKind::KeyClaimed);
    }

    #[tokio::test]
    async fn a_lab_whose_listeners_left_loses_its_channel() {
        let hub = StepHub::new();
        let lab = LabId::try_from("gone").unwrap();
        drop(hub.subscribe(&lab));
        assert_eq!(hub.labs_listened_to(), 1);
        hub.start_request(&lab, key().as_str())
            .record(StepKind::KeyClaimed);
        assert_eq!(hub.labs_listened_to(), 0, "cleared by its next step");
        drop(hub.subscribe(&lab));
        let _listening = hub.subscribe(&LabId::default());
        assert_eq!(hub.labs_listened_to(), 1, "cleared by the next subscriber");
    }
}
