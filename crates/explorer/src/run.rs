//! One schedule, run to its end on a real server: a fresh lab and key,
//! the copies sent with the schedule's id, released in the order asked.

use lab_wire::headers::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LAB_SCHEDULE, LAB_SECRET};
use lab_wire::{CopyState, Order, ScheduleView, StepKind};
use tokio::task::JoinHandle;

use crate::error::ExploreError;
use crate::report::{Answer, Choice, Crashes, Move, ScheduleRun, schedule_text};
use crate::steps::StepStream;

/// The order every copy sends.
const ORDER: &str = r#"{"item":"coffee","amount_cents":450}"#;
/// The most releases one schedule may take: far more than any design's
/// statements, so only a server that never lets its copies end meets it.
const MOST_MOVES: usize = 200;

/// The order server to explore: its `…/orders` URL (for the lab,
/// `http://127.0.0.1:8080/api/naive/orders`).
#[derive(Debug, Clone)]
pub struct Target {
    orders_url: String,
    client: reqwest::Client,
    forget_each_lab: bool,
}

impl Target {
    /// The server whose `POST /orders` is at `orders_url`.
    pub fn new(orders_url: impl Into<String>) -> Self {
        Self {
            orders_url: orders_url.into(),
            // The lab explored is the caller's own, on this machine: a
            // proxy from the environment (HTTP_PROXY) would be a detour.
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("an HTTP client without TLS or proxy builds"),
            forget_each_lab: false,
        }
    }

    /// The same server, deleting each schedule's orders and keys once it
    /// has read them (`DELETE /orders` in the schedule's lab), so that an
    /// exploration on a shared server leaves nothing behind.
    pub fn forgetting_each_lab(self) -> Self {
        Self {
            forget_each_lab: true,
            ..self
        }
    }

    fn root(&self) -> &str {
        self.orders_url.trim_end_matches("/orders")
    }

    async fn send(
        &self,
        what: &str,
        request: reqwest::RequestBuilder,
        expected: u16,
    ) -> Result<reqwest::Response, ExploreError> {
        let response = request.send().await.map_err(|source| ExploreError::Http {
            url: what.to_owned(),
            source,
        })?;
        if response.status().as_u16() != expected {
            let status = response.status().as_u16();
            let body = response.text().await.unwrap_or_default();
            return Err(ExploreError::Refused {
                what: what.to_owned(),
                status,
                body,
            });
        }
        Ok(response)
    }

    async fn schedule_view(
        &self,
        what: &str,
        request: reqwest::RequestBuilder,
        expected: u16,
    ) -> Result<ScheduleView, ExploreError> {
        let response = self.send(what, request, expected).await?;
        response.json().await.map_err(|source| ExploreError::Http {
            url: what.to_owned(),
            source,
        })
    }

    async fn open_schedule(&self, secret: &str) -> Result<String, ExploreError> {
        let url = format!("{}/schedules", self.root());
        let request = self.client.post(&url).header(LAB_SECRET, secret);
        Ok(self.schedule_view(&url, request, 201).await?.id)
    }

    async fn view(&self, secret: &str, id: &str) -> Result<ScheduleView, ExploreError> {
        let url = format!("{}/schedules/{id}", self.root());
        let request = self.client.get(&url).header(LAB_SECRET, secret);
        self.schedule_view(&url, request, 200).await
    }

    /// Carries out `choice`: a release, or a crash.
    async fn make(
        &self,
        secret: &str,
        id: &str,
        choice: Choice,
    ) -> Result<ScheduleView, ExploreError> {
        let (copy, what) = match choice {
            Choice::Release(copy) => (copy, "release"),
            Choice::Crash(copy) => (copy, "crash"),
        };
        let url = format!("{}/schedules/{id}/copies/{copy}/{what}", self.root());
        let request = self.client.post(&url).header(LAB_SECRET, secret);
        self.schedule_view(&url, request, 200).await
    }

    async fn close(&self, secret: &str, id: &str) -> Result<(), ExploreError> {
        let url = format!("{}/schedules/{id}", self.root());
        let request = self.client.delete(&url).header(LAB_SECRET, secret);
        self.send(&url, request, 204).await.map(drop)
    }

    async fn forget_lab(&self, secret: &str) -> Result<(), ExploreError> {
        let request = self
            .client
            .delete(&self.orders_url)
            .header(LAB_SECRET, secret);
        self.send(&self.orders_url, request, 204).await.map(drop)
    }

    /// The ids of the lab's orders for `key`.
    async fn orders_for(&self, secret: &str, key: &str) -> Result<Vec<String>, ExploreError> {
        let request = self.client.get(&self.orders_url).header(LAB_SECRET, secret);
        let response = self.send(&self.orders_url, request, 200).await?;
        let orders: Vec<Order> = response.json().await.map_err(|source| ExploreError::Http {
            url: self.orders_url.clone(),
            source,
        })?;
        Ok(orders
            .into_iter()
            .filter(|order| order.idempotency_key == key)
            .map(|order| order.id.to_string())
            .collect())
    }

    /// Sends copy `copy` of the order with `key` under schedule `id`, in the background.
    fn send_copy(&self, secret: &str, key: &str, id: &str, copy: u8) -> JoinHandle<Answer> {
        let request = self
            .client
            .post(&self.orders_url)
            .header(LAB_SECRET, secret)
            .header(IDEMPOTENCY_KEY, key)
            .header(LAB_SCHEDULE, id)
            .header("content-type", "application/json")
            .body(ORDER);
        tokio::spawn(async move {
            let Ok(response) = request.send().await else {
                return Answer {
                    copy,
                    status: None,
                    order: None,
                    replayed: false,
                };
            };
            let status = response.status().as_u16();
            let replayed = response
                .headers()
                .get(IDEMPOTENT_REPLAYED)
                .is_some_and(|value| value == "true");
            let body: serde_json::Value = response.json().await.unwrap_or_default();
            let order = (status == 201)
                .then(|| body["id"].as_str().map(str::to_owned))
                .flatten();
            Answer {
                copy,
                status: Some(status),
                order,
                replayed,
            }
        })
    }
}

/// A schedule this run opened, closed if the run is dropped before it
/// closes it (an exploration stopped half-way), so that its copies run on
/// at once instead of holding their places, and on PostgreSQL perhaps a
/// transaction, until the server closes the idle schedule a minute later.
struct ClosedIfAbandoned {
    /// The server, until the run closes the schedule itself.
    target: Option<Target>,
    secret: String,
    id: String,
}

impl Drop for ClosedIfAbandoned {
    fn drop(&mut self) {
        let Some(target) = self.target.take() else {
            return;
        };
        let (secret, id) = (
            std::mem::take(&mut self.secret),
            std::mem::take(&mut self.id),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { target.close(&secret, &id).await });
        }
    }
}

/// Waits until a request other than `known` stops at its first gate; returns its number.
async fn first_gate(stream: &mut StepStream, known: &[u64]) -> Result<u64, ExploreError> {
    let first = stream
        .until(0, |step| {
            !known.contains(&step.request) && matches!(step.kind, StepKind::AtGate { .. })
        })
        .await?;
    Ok(first.request)
}

/// Runs one schedule of `copies` copies on `target`: makes the choices
/// `choose` names, in order, then lets the copy that moved last go on
/// while it can, else the lowest copy that can move, until none can. With
/// `crash` other than never, each point also offers to crash any copy
/// waiting at a gate where `crash` allows it, once per schedule; the
/// crashed copy's client then retries with the same key, as a new copy.
/// Each run has a lab and a key of its own.
pub async fn run_schedule(
    target: &Target,
    copies: u8,
    choose: &[Choice],
    crash: Crashes,
) -> Result<ScheduleRun, ExploreError> {
    let secret = format!("explore-{}", uuid::Uuid::new_v4().simple());
    let key = uuid::Uuid::new_v4().to_string();
    let steps_url = format!("{}/steps?secret={secret}", target.root());
    let mut stream = StepStream::open(&target.client, &steps_url).await?;
    let id = target.open_schedule(&secret).await?;
    let mut open = ClosedIfAbandoned {
        target: Some(target.clone()),
        secret: secret.clone(),
        id: id.clone(),
    };

    // The copies arrive in turn, each stopping at its first gate.
    let mut requests: Vec<u64> = Vec::new();
    let mut clients = Vec::new();
    for copy in 1..=copies {
        clients.push(target.send_copy(&secret, &key, &id, copy));
        requests.push(first_gate(&mut stream, &requests).await?);
    }

    let mut view = target.view(&secret, &id).await?;
    let mut run = ScheduleRun {
        schedule: Vec::new(),
        moves: Vec::new(),
        enabled: Vec::new(),
        steps: Vec::new(),
        orders: Vec::new(),
        answers: Vec::new(),
    };
    let mut crashed = false;
    loop {
        let waiting: Vec<u8> = view
            .copies
            .iter()
            .filter(|copy| matches!(copy.state, CopyState::AtGate { .. }))
            .map(|copy| copy.copy)
            .collect();
        let mut enabled: Vec<Choice> = waiting.iter().map(|&copy| Choice::Release(copy)).collect();
        if !crashed {
            enabled.extend(view.copies.iter().filter_map(|copy| match copy.state {
                CopyState::AtGate { next } if crash.allowed_at(next) => {
                    Some(Choice::Crash(copy.copy))
                }
                _ => None,
            }));
        }
        let at = run.schedule.len();
        let not_enabled = |choice: Choice| ExploreError::NotEnabled {
            schedule: schedule_text(choose),
            copy: choice.copy(),
            at: at + 1,
        };
        if enabled.is_empty() {
            if let Some(&choice) = choose.get(at) {
                return Err(not_enabled(choice));
            }
            break;
        }
        if at >= MOST_MOVES {
            return Err(ExploreError::Stream(format!(
                "the copies were still waiting at gates after {MOST_MOVES} releases"
            )));
        }
        let choice = match choose.get(at) {
            Some(&choice) if enabled.contains(&choice) => choice,
            Some(&choice) => return Err(not_enabled(choice)),
            // Unasked, the copy that moved last moves on if it can (no
            // preemption), else the lowest that can: the search counts
            // preemptions from this default (see `search`).
            None => run
                .schedule
                .last()
                .map(|last| Choice::Release(last.copy()))
                .filter(|go_on| enabled.contains(go_on))
                .unwrap_or(enabled[0]),
        };
        let gate = view
            .copies
            .iter()
            .find_map(|scheduled| match scheduled.state {
                CopyState::AtGate { next } if scheduled.copy == choice.copy() => Some(next),
                _ => None,
            })
            .expect("an enabled copy waits at a gate");
        view = target.make(&secret, &id, choice).await?;
        run.enabled.push(enabled);
        run.schedule.push(choice);
        run.moves.push(Move { choice, gate });
        if let Choice::Crash(_) = choice {
            // Its client saw the connection close: it retries with the
            // same key, and the retry is one more copy.
            crashed = true;
            let retry = u8::try_from(clients.len() + 1).expect("a few copies");
            clients.push(target.send_copy(&secret, &key, &id, retry));
            requests.push(first_gate(&mut stream, &requests).await?);
            view = target.view(&secret, &id).await?;
        }
    }

    // No copy waits at a gate: each has ended, or waits for one that will
    // end (the database settles a deadlock by failing one side).
    for client in clients {
        let answer = client
            .await
            .map_err(|error| ExploreError::Stream(format!("a copy's client failed: {error}")))?;
        run.answers.push(answer);
    }
    for request in &requests {
        stream
            .until(0, |step| step.request == *request && step.kind.is_last())
            .await?;
    }
    run.steps = std::mem::take(&mut stream.seen);
    run.orders = target.orders_for(&secret, &key).await?;
    open.target = None;
    target.close(&secret, &id).await?;
    if target.forget_each_lab {
        target.forget_lab(&secret).await?;
    }
    Ok(run)
}
