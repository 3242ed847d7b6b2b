//! One learner of the classroom: its lab, the page's calls at each of the
//! lesson's eight runs, and what it measured.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::join_all;
use lab_wire::headers::{
    IDEMPOTENCY_KEY, LAB_DELAY_MS, LAB_FAULT, LAB_KEY_RETENTION_SECS, LAB_MISSING_KEY, LAB_SECRET,
};
use lab_wire::run::{AttemptRecord, ClientPolicy, Design, Outcome, PaneRecord, RunRecord};
use lab_wire::{NewOrder, Step, StepKind};
use serde_json::json;

/// Orders each learner's lesson leaves on each server.
pub(super) const TRANSACTIONAL_ORDERS: usize = 13;
const SAFE_ORDERS: usize = 1;
const NAIVE_ORDERS: std::ops::RangeInclusive<usize> = 15..=17;

/// Everything the learners measured, shared while they run.
#[derive(Default)]
pub(super) struct Samples {
    pub(super) orders: Vec<Duration>,
    pub(super) reads: Vec<Duration>,
    pub(super) saves: Vec<Duration>,
    pub(super) delivery: Vec<Duration>,
    pub(super) requests: usize,
    pub(super) failures: usize,
    pub(super) miscounted: usize,
}

pub(super) type Shared = Arc<Mutex<Samples>>;

/// One learner's client: its lab, and where it reports.
pub(super) struct Learner {
    pub(super) http: reqwest::Client,
    pub(super) base: String,
    pub(super) secret: String,
    pub(super) samples: Shared,
}

/// How one order is sent.
#[derive(Clone, Copy, Default)]
struct Send<'a> {
    key: Option<&'a str>,
    drop: bool,
    delay_ms: u64,
    retention_secs: u64,
}

impl Learner {
    fn record(&self, into: impl FnOnce(&mut Samples) -> &mut Vec<Duration>, took: Duration) {
        let mut samples = self.samples.lock().expect("samples");
        samples.requests += 1;
        into(&mut samples).push(took);
    }

    pub(super) fn failed(&self) {
        let mut samples = self.samples.lock().expect("samples");
        samples.requests += 1;
        samples.failures += 1;
    }

    /// One `POST /orders` to `server`; a dropped answer is the error asked for.
    async fn order(&self, server: &str, send: Send<'_>) -> Option<u16> {
        let mut request = self
            .http
            .post(format!("{}/api/{server}/orders", self.base))
            .header(LAB_SECRET, &self.secret)
            .json(&json!({"item": "coffee", "amount_cents": 450}));
        request = match send.key {
            Some(key) => request.header(IDEMPOTENCY_KEY, key),
            None => request.header(LAB_MISSING_KEY, "create"),
        };
        if send.drop {
            request = request.header(LAB_FAULT, "drop-response");
        }
        if send.delay_ms > 0 {
            request = request.header(LAB_DELAY_MS, send.delay_ms.to_string());
        }
        if send.retention_secs > 0 {
            request = request.header(LAB_KEY_RETENTION_SECS, send.retention_secs.to_string());
        }
        let started = Instant::now();
        match request.send().await {
            Ok(response) if response.status().is_server_error() => {
                self.failed();
                None
            }
            Ok(response) => {
                let status = response.status().as_u16();
                if send.delay_ms == 0 {
                    self.record(|s| &mut s.orders, started.elapsed());
                } else {
                    self.samples.lock().expect("samples").requests += 1;
                }
                Some(status)
            }
            Err(_) if send.drop => {
                self.samples.lock().expect("samples").requests += 1;
                None
            }
            Err(_) => {
                self.failed();
                None
            }
        }
    }

    /// `GET /orders` on `server`: how many the lab holds there.
    async fn count(&self, server: &str) -> usize {
        let started = Instant::now();
        let answer = self
            .http
            .get(format!("{}/api/{server}/orders", self.base))
            .header(LAB_SECRET, &self.secret)
            .send()
            .await;
        let orders = match answer {
            Ok(response) if response.status() == 200 => {
                response.json::<Vec<serde_json::Value>>().await.ok()
            }
            _ => None,
        };
        match orders {
            Some(orders) => {
                self.record(|s| &mut s.reads, started.elapsed());
                orders.len()
            }
            None => {
                self.failed();
                0
            }
        }
    }

    /// A JSON call the page makes after a run (`POST /api/runs`, `PUT /api/lesson`).
    async fn save(&self, request: reqwest::RequestBuilder, expected: u16) {
        let started = Instant::now();
        match request.header(LAB_SECRET, &self.secret).send().await {
            Ok(response) if response.status().as_u16() == expected => {
                self.record(|s| &mut s.saves, started.elapsed());
            }
            _ => self.failed(),
        }
    }

    /// After a lesson step's run: both panes read back, the run saved, the progress recorded.
    async fn after_run(&self, step: u8, servers: [&str; 2]) {
        let counts = join_all(servers.map(|server| self.count(server))).await;
        // About what a page saves: a few attempts and steps per pane.
        let pane = |server: &str, orders: usize| PaneRecord {
            server: Design::from_name(server).expect("a design of the lab"),
            attempts: vec![
                AttemptRecord {
                    copy: 1,
                    number: 1,
                    key: "k".into(),
                    started_ms: 1.0,
                    ended_ms: Some(2.0),
                    outcome: Some(Outcome::Created),
                };
                4
            ],
            steps: vec![
                Step {
                    seq: 1,
                    request: 1,
                    key: "k".into(),
                    at_us: 1,
                    kind: StepKind::OrderInserted,
                };
                12
            ],
            steps_missed: 0,
            orders: Vec::new(),
            orders_of_run: orders as u32,
            effects: None,
        };
        let run = RunRecord {
            order: NewOrder {
                item: "coffee".into(),
                amount_cents: 450,
            },
            policy: ClientPolicy::PLAIN,
            lesson_step: Some(step),
            panes: servers
                .iter()
                .zip(&counts)
                .map(|(server, orders)| pane(server, *orders))
                .collect(),
        };
        self.save(
            self.http.post(format!("{}/api/runs", self.base)).json(&run),
            201,
        )
        .await;
        let predictions: Vec<_> = (1..=step)
            .map(|s| json!({"step": s, "guess": "more", "orders": 2}))
            .collect();
        let progress = json!({"step": step, "predictions": predictions});
        self.save(
            self.http
                .put(format!("{}/api/lesson", self.base))
                .json(&progress),
            204,
        )
        .await;
    }

    /// Sends on both servers at once.
    async fn both<'a, F, W>(&'a self, servers: [&'a str; 2], send: F)
    where
        F: Fn(&'a str) -> W,
        W: Future<Output = ()>,
    {
        join_all(servers.map(send)).await;
    }

    /// The lesson's eight runs, as the page makes them.
    pub(super) async fn lesson(&self) {
        const PANES: [&str; 2] = ["naive", "transactional"];
        // 1. Five POSTs without a key.
        self.both(PANES, |server| async move {
            join_all((0..5).map(|_| self.order(server, Send::default()))).await;
        })
        .await;
        self.after_run(1, PANES).await;
        // 2. The answer lost, a blind retry, still no key.
        self.both(PANES, |server| async move {
            let drop = Send {
                drop: true,
                ..Send::default()
            };
            self.order(server, drop).await;
            self.order(server, Send::default()).await;
        })
        .await;
        self.after_run(2, PANES).await;
        // 3. One key, made by the client: the retry is replayed.
        let key = new_key();
        self.both(PANES, |server| {
            let key = key.clone();
            async move {
                let keyed = Send {
                    key: Some(&key),
                    ..Send::default()
                };
                self.order(
                    server,
                    Send {
                        drop: true,
                        ..keyed
                    },
                )
                .await;
                self.order(server, keyed).await;
            }
        })
        .await;
        self.after_run(3, PANES).await;
        // 4. A new key every time.
        self.both(PANES, |server| async move {
            let (first, second) = (new_key(), new_key());
            self.order(
                server,
                Send {
                    key: Some(&first),
                    drop: true,
                    ..Send::default()
                },
            )
            .await;
            self.order(
                server,
                Send {
                    key: Some(&second),
                    ..Send::default()
                },
            )
            .await;
        })
        .await;
        self.after_run(4, PANES).await;
        // 5. Three copies at once, each 300 ms in the race window.
        let key = new_key();
        self.both(PANES, |server| {
            let key = key.clone();
            async move {
                let copy = Send {
                    key: Some(&key),
                    delay_ms: 300,
                    ..Send::default()
                };
                join_all((0..3).map(|_| self.order(server, copy))).await;
            }
        })
        .await;
        self.after_run(5, PANES).await;
        // 6. The impatient client: a retry while the first is still running, on Naive and Safe.
        let key = new_key();
        self.both(["naive", "safe"], |server| {
            let key = key.clone();
            async move {
                let slow = Send {
                    key: Some(&key),
                    delay_ms: 1200,
                    ..Send::default()
                };
                let first = self.order(server, slow);
                let retry = async {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    self.order(
                        server,
                        Send {
                            key: Some(&key),
                            ..Send::default()
                        },
                    )
                    .await
                };
                let (_, early) = futures::join!(first, retry);
                if early == Some(409) {
                    // Still in progress: the first has answered by now; this gets its replay.
                    self.order(
                        server,
                        Send {
                            key: Some(&key),
                            ..Send::default()
                        },
                    )
                    .await;
                }
            }
        })
        .await;
        self.after_run(6, ["naive", "safe"]).await;
        // 7. GET, five times.
        self.both(PANES, |server| async move {
            join_all((0..5).map(|_| self.count(server))).await;
        })
        .await;
        self.after_run(7, PANES).await;
        // 8. The key kept 2 s; the retry comes after 2.5 s.
        let key = new_key();
        self.both(PANES, |server| {
            let key = key.clone();
            async move {
                let kept = Send {
                    key: Some(&key),
                    retention_secs: 2,
                    ..Send::default()
                };
                self.order(server, Send { drop: true, ..kept }).await;
                tokio::time::sleep(Duration::from_millis(2500)).await;
                self.order(server, kept).await;
            }
        })
        .await;
        self.after_run(8, PANES).await;

        let counts = [
            self.count("naive").await,
            self.count("transactional").await,
            self.count("safe").await,
        ];
        let right = NAIVE_ORDERS.contains(&counts[0])
            && counts[1] == TRANSACTIONAL_ORDERS
            && counts[2] == SAFE_ORDERS;
        if !right {
            eprintln!("a learner ended with orders (naive, transactional, safe) = {counts:?}");
            self.samples.lock().expect("samples").miscounted += 1;
        }
    }
}

fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}
