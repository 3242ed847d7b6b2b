//! `bench --classroom`: a room of learners going through the guided lesson
//! against one lab, all at once, as a workshop does. Each learner has a lab
//! of its own, keeps its step stream open the whole time (as the page
//! does), and at each of the lesson's eight runs makes the page's calls:
//! the orders on both panes' servers (copies, dropped answers, retries,
//! timeouts, a key per purchase or none, as the step says), the orders
//! read back, the run saved for its permalink and the lesson progress.
//!
//! It reports the latency of the page's API calls (the orders that ask for
//! no delay, the reads, the saves) and of step-stream delivery: from the
//! moment a server took a step to the moment the learner's stream handed
//! it over (both clocks are this process's). And it counts: every learner
//! must end with the orders its lesson makes — 13 on Transactional, 1 on
//! Safe, 15 to 17 on Naive (step 5's race decides) — and nothing may
//! answer 5xx.

mod learner;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::Latencies;
use futures::future::join_all;
use lab_wire::Step;

use learner::{Learner, Shared};

/// What the room did, and how fast.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClassroomReport {
    /// Learners in the room.
    pub learners: usize,
    /// `sqlite` or `postgres`.
    pub storage: &'static str,
    /// The PostgreSQL transactions pool the lab had.
    pub transaction_connections: u32,
    /// From the first learner's start to the last one's end, in seconds.
    pub wall_secs: f64,
    /// HTTP requests the room made (step streams not counted).
    pub requests: usize,
    /// Orders placed without a delay, answered: latency in ms.
    pub orders_ms: Latencies,
    /// Orders read back (`GET /orders`, as the page refreshes a pane).
    pub reads_ms: Latencies,
    /// Runs saved (`POST /api/runs`) and lesson progress (`PUT /api/lesson`).
    pub saves_ms: Latencies,
    /// Steps delivered by the learners' streams: from the step to its arrival.
    pub step_delivery_ms: Latencies,
    /// Steps delivered in all.
    pub steps_delivered: usize,
    /// Answers of 5xx, or requests that failed when no failure was asked for.
    pub failures: usize,
    /// Learners whose orders were not what their lesson makes.
    pub miscounted_learners: usize,
}

/// Reads a learner's step stream until it is dropped, timing each step's delivery.
async fn listen(mut stream: reqwest::Response, samples: Shared) {
    let mut unread = String::new();
    while let Ok(Some(chunk)) = stream.chunk().await {
        let arrived_us = chrono::Utc::now().timestamp_micros();
        unread.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = unread.find("\n\n") {
            let event: String = unread.drain(..end + 2).collect();
            let data = event.lines().find_map(|line| line.strip_prefix("data:"));
            if let Some(step) = data.and_then(|d| serde_json::from_str::<Step>(d.trim()).ok()) {
                let took =
                    Duration::from_micros(u64::try_from(arrived_us - step.at_us).unwrap_or(0));
                samples.lock().expect("samples").delivery.push(took);
            }
        }
    }
}

/// Runs `learners` learners through the lesson against the lab at `base`
/// (served over `storage`), starting them over two seconds, as a room does.
pub async fn simulate(
    base: &str,
    learners: usize,
    storage: &'static str,
    transaction_connections: u32,
) -> Result<ClassroomReport, String> {
    let samples: Shared = Arc::default();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|error| error.to_string())?;
    let started = Instant::now();
    let spread = Duration::from_millis(2000) / u32::try_from(learners.max(1)).unwrap_or(1);
    let room = (0..learners).map(|index| {
        let learner = Learner {
            http: http.clone(),
            base: base.to_owned(),
            secret: format!("classroom-{}", uuid::Uuid::new_v4().simple()),
            samples: samples.clone(),
        };
        async move {
            tokio::time::sleep(spread * u32::try_from(index).unwrap_or(0)).await;
            let url = format!("{}/api/steps?secret={}", learner.base, learner.secret);
            let stream = match learner
                .http
                .get(url)
                .timeout(Duration::from_secs(3600))
                .send()
                .await
            {
                Ok(stream) if stream.status() == 200 => stream,
                _ => {
                    learner.failed();
                    return;
                }
            };
            let listener = tokio::spawn(listen(stream, learner.samples.clone()));
            learner.lesson().await;
            // The last steps are on their way: give them a moment, then hang up.
            tokio::time::sleep(Duration::from_millis(200)).await;
            listener.abort();
        }
    });
    join_all(room).await;
    let wall_secs = started.elapsed().as_secs_f64();
    let mut samples = std::mem::take(&mut *samples.lock().expect("samples"));
    Ok(ClassroomReport {
        learners,
        storage,
        transaction_connections,
        wall_secs,
        requests: samples.requests,
        orders_ms: Latencies::of(&mut samples.orders),
        reads_ms: Latencies::of(&mut samples.reads),
        saves_ms: Latencies::of(&mut samples.saves),
        step_delivery_ms: Latencies::of(&mut samples.delivery),
        steps_delivered: samples.delivery.len(),
        failures: samples.failures,
        miscounted_learners: samples.miscounted,
    })
}

/// The report as a Markdown table.
pub fn to_table(report: &ClassroomReport) -> String {
    let row = |what: &str, l: &Latencies| {
        format!(
            "| {what} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
            l.p50, l.p90, l.p99, l.max
        )
    };
    let mut table = format!(
        "{} learners on {} ({} transaction connections), {:.1} s, {} requests, {} steps delivered, {} failures, {} learners miscounted\n\n| ms | p50 | p90 | p99 | max |\n|---|---|---|---|---|\n",
        report.learners,
        report.storage,
        report.transaction_connections,
        report.wall_secs,
        report.requests,
        report.steps_delivered,
        report.failures,
        report.miscounted_learners
    );
    table.push_str(&row("orders (no delay asked)", &report.orders_ms));
    table.push_str(&row("orders read back", &report.reads_ms));
    table.push_str(&row("run saved, progress recorded", &report.saves_ms));
    table.push_str(&row(
        "step delivered by the stream",
        &report.step_delivery_ms,
    ));
    table
}
