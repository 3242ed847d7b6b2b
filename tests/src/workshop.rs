//! Helpers for the workshop's tests: a lab of the test's own with its
//! secret, a run as the page sends one, and a lab with a one-line page.

use lab_wire::headers::LAB_SECRET;
use lab_wire::run::{AttemptRecord, ClientPolicy, Design, Outcome, PaneRecord, RunRecord};
use lab_wire::workshop::{RunSummary, SavedRun};
use lab_wire::{LabSecret, NewOrder, Order, Step, StepKind, Timestamp};
use serde_json::Value;

use crate::{Backend, spawn_lab_on};

/// A lab of the test's own, on the lab at `base`.
pub struct WorkshopLab {
    /// The lab's address.
    pub base: String,
    /// The lab's secret.
    pub secret: String,
    /// Its public id.
    pub id: String,
    /// A client with no secret of its own.
    pub http: reqwest::Client,
}

impl WorkshopLab {
    /// A new lab with a random secret.
    pub fn new(base: &str) -> Self {
        let secret = format!("test-{}", uuid::Uuid::new_v4().simple());
        let id = LabSecret::try_from(secret.as_str())
            .expect("a valid secret")
            .lab_id()
            .to_string();
        Self {
            base: base.to_owned(),
            secret,
            id,
            http: reqwest::Client::new(),
        }
    }

    /// The address of the lab's API route `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/api{path}", self.base)
    }

    /// `POST /api/runs` with `run`, as this lab.
    pub async fn save(&self, run: &Value) -> reqwest::Response {
        self.http
            .post(self.url("/runs"))
            .header(LAB_SECRET, &self.secret)
            .json(run)
            .send()
            .await
            .expect("POST /api/runs answers")
    }

    /// Saves `run`, which must be accepted, and returns its link.
    pub async fn saved(&self, run: &Value) -> SavedRun {
        let response = self.save(run).await;
        assert_eq!(response.status(), 201);
        response.json().await.expect("a saved run's link")
    }

    /// `GET /api/runs/ID` as anyone holding the link asks: the saved run's JSON.
    pub async fn fetch_run(&self, id: &str) -> Value {
        reqwest::get(self.url(&format!("/runs/{id}")))
            .await
            .expect("GET /api/runs/ID answers")
            .json()
            .await
            .expect("a saved run is JSON")
    }

    /// This lab's runs, by its secret.
    pub async fn runs(&self) -> Vec<RunSummary> {
        let response = self
            .http
            .get(self.url("/runs"))
            .header(LAB_SECRET, &self.secret)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    }

    /// `PUT /api/lesson` with `body`, as this lab.
    pub async fn progress(&self, body: &Value) -> reqwest::Response {
        self.http
            .put(self.url("/lesson"))
            .header(LAB_SECRET, &self.secret)
            .json(body)
            .send()
            .await
            .unwrap()
    }
}

/// A run as the page sends one: two panes, the first with `orders[0]`
/// orders of the run, the second with `orders[1]`.
pub fn run_record(orders: [u32; 2], lesson_step: Option<u8>) -> Value {
    let order = |n: u128| Order {
        id: uuid::Uuid::from_u128(n),
        item: "coffee".into(),
        amount_cents: 450,
        idempotency_key: "k".into(),
        created_at: Timestamp::from_micros(1_796_205_600_000_000 + n as i64),
    };
    let pane = |server: Design, orders: u32| PaneRecord {
        server,
        attempts: vec![AttemptRecord {
            copy: 1,
            number: 1,
            key: "k".into(),
            started_ms: 0.5,
            ended_ms: Some(310.25),
            outcome: Some(Outcome::Created),
        }],
        steps: vec![Step {
            seq: 1,
            request: 1,
            key: "k".into(),
            at_us: 1_796_205_600_000_000,
            kind: StepKind::OrderInserted,
        }],
        steps_missed: 0,
        orders: (1..=u128::from(orders)).map(order).collect(),
        orders_of_run: orders,
        effects: None,
    };
    let record = RunRecord {
        order: NewOrder {
            item: "coffee".into(),
            amount_cents: 450,
        },
        policy: ClientPolicy {
            copies: 3,
            server_delay_ms: 300,
            ..ClientPolicy::PLAIN
        },
        lesson_step,
        panes: vec![
            pane(Design::Naive, orders[0]),
            pane(Design::Transactional, orders[1]),
        ],
    };
    serde_json::to_value(record).expect("a run serialises")
}

/// The status and problem `type` of a problem+json answer.
pub async fn problem_type(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    assert_eq!(
        response.headers()["content-type"],
        "application/problem+json"
    );
    let body: Value = response.json().await.unwrap();
    (status, body["type"].as_str().unwrap_or_default().to_owned())
}

/// A lab over `backend` with a one-line page: its address and database URL.
pub async fn lab_on(backend: Backend) -> (String, String) {
    let url = backend.database_url().await;
    (spawn_lab_on(url.clone(), &page_dir()).await, url)
}

/// A built page of one line, and a viewer of one line: `/runs/ID` and
/// `/teacher` serve the viewer.
pub fn page_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join("idempotency-lab-workshop-page");
    std::fs::create_dir_all(dir.join("viewer")).unwrap();
    std::fs::write(dir.join("index.html"), "<!DOCTYPE html><title>lab</title>").unwrap();
    std::fs::write(
        dir.join("viewer/index.html"),
        "<!DOCTYPE html><title>viewer</title>",
    )
    .unwrap();
    dir
}
