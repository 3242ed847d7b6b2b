//! A test server and the client side of the conversation with it.

use std::time::Duration;

use lab_core::{Db, OrderServer};
use lab_wire::headers::{
    IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LAB_DELAY_MS, LAB_FAULT, LAB_KEY_RETENTION_SECS,
    LAB_LOCK_TIMEOUT_SECS, LAB_SECRET,
};
use lab_wire::{Order, StepKind};
use reqwest::header::{CONTENT_TYPE, HeaderValue};
use tokio::net::TcpListener;

use crate::Backend;

/// The order every test places unless it says otherwise.
pub const COFFEE: &str = r#"{"item":"coffee","amount_cents":450}"#;

pub use crate::lab::{
    TEACHER_TOKEN, build_lab, build_lab_with, spawn_lab, spawn_lab_on, spawn_lab_with_replicas,
};

/// One running server, seen from one lab.
#[derive(Clone)]
pub struct TestServer {
    /// The URL of `/orders`.
    pub orders_url: String,
    /// The secret that opens this client's lab (a fresh lab per test).
    pub secret: String,
    /// The id of that lab, derived from the secret.
    pub lab: String,
    http: reqwest::Client,
}

/// What one HTTP attempt got back.
#[derive(Debug)]
pub enum Attempt {
    /// A response arrived.
    Answered {
        /// Its status code.
        status: u16,
        /// Whether it carried `Idempotent-Replayed: true`.
        replayed: bool,
        /// Its `Content-Type`.
        content_type: String,
        /// Its body, parsed as JSON (`Null` if it was not JSON).
        body: serde_json::Value,
        /// Its `Retry-After` header, if any.
        retry_after: Option<String>,
    },
    /// The connection ended without a response, or the client gave up.
    NoResponse(String),
}

impl Attempt {
    /// The status code, panicking with the error if no response came.
    pub fn status(&self) -> u16 {
        match self {
            Self::Answered { status, .. } => *status,
            Self::NoResponse(error) => panic!("expected a response, got none: {error}"),
        }
    }

    /// Whether this is a new order: `201` without `Idempotent-Replayed`.
    pub fn is_new_order(&self) -> bool {
        matches!(
            self,
            Self::Answered {
                status: 201,
                replayed: false,
                ..
            }
        )
    }

    /// Whether this is an earlier answer replayed: `201` with
    /// `Idempotent-Replayed: true`.
    pub fn is_replay(&self) -> bool {
        matches!(
            self,
            Self::Answered {
                status: 201,
                replayed: true,
                ..
            }
        )
    }

    /// Whether this carries an order: `201`, new or replayed.
    pub fn is_order(&self) -> bool {
        matches!(self, Self::Answered { status: 201, .. })
    }

    /// The status and body of a problem answer, which must come as
    /// `application/problem+json` (else this panics, as when none came).
    pub fn problem(&self) -> (u16, &serde_json::Value) {
        match self {
            Self::Answered {
                status,
                content_type,
                body,
                ..
            } => {
                assert_eq!(content_type, "application/problem+json", "{body}");
                (*status, body)
            }
            Self::NoResponse(error) => panic!("expected a problem, got no response: {error}"),
        }
    }

    /// Whether the connection ended without an answer.
    pub fn is_unanswered(&self) -> bool {
        matches!(self, Self::NoResponse(_))
    }

    /// The order in a `201` body.
    pub fn order(&self) -> Order {
        match self {
            Self::Answered {
                status: 201, body, ..
            } => serde_json::from_value(body.clone()).expect("a 201 body is an order"),
            other => panic!("expected 201 with an order, got {other:?}"),
        }
    }
}

/// A fresh key, as a well-behaved client makes one per logical order.
pub fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Starts server `S` alone (routes at its root) on a random port over `backend`.
pub async fn spawn_server<S: OrderServer>(backend: Backend) -> TestServer {
    spawn_server_with_db::<S>(backend).await.0
}

/// Like [`spawn_server`], also handing out the server's storage.
pub async fn spawn_server_with_db<S: OrderServer>(backend: Backend) -> (TestServer, Db) {
    let db = backend.connect().await;
    (spawn_server_over::<S>(db.clone()).await, db)
}

/// Starts server `S` alone over `db` (migrating it first).
pub async fn spawn_server_over<S: OrderServer>(db: Db) -> TestServer {
    spawn_server_until::<S>(db, std::future::pending()).await
}

/// [`spawn_server_over`] until `stop` ends; then it lets go of its database
/// connections (a test that starts many would run out of PostgreSQL's).
pub async fn spawn_server_until<S: OrderServer>(
    db: Db,
    stop: impl Future<Output = ()> + Send + 'static,
) -> TestServer {
    S::migrate(&db).await.expect("migrations apply");
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a random port");
    let addr = listener.local_addr().expect("bound address");
    let orders_url = format!("http://{addr}/orders");
    let state = S::state(db);
    state.explorations.serve_at(S::NAME, orders_url.clone());
    tokio::spawn(lab_platform::serve::serve(listener, S::routes(state), stop));
    TestServer::new(orders_url)
}

impl TestServer {
    /// A client for the server whose `/orders` is at `orders_url`, in a fresh lab.
    pub fn new(orders_url: String) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("an HTTP client");
        let mut server = Self {
            orders_url,
            secret: String::new(),
            lab: String::new(),
            http,
        };
        server.open_new_lab();
        server
    }

    fn open_new_lab(&mut self) {
        let secret = format!("test-{}", uuid::Uuid::new_v4().simple());
        let lab = lab_wire::LabSecret::try_from(secret.as_str())
            .expect("a uuid makes a lab secret")
            .lab_id();
        self.lab = lab.to_string();
        self.secret = secret;
    }

    /// Another server's `/orders` at `orders_url`, seen from this lab.
    pub fn at(&self, orders_url: String) -> Self {
        Self {
            orders_url,
            ..self.clone()
        }
    }

    /// The query that opens this lab's step stream: `secret=…`.
    pub fn lab_query(&self) -> String {
        format!("secret={}", self.secret)
    }

    /// The same server, sending `secret` as its lab's secret (whatever it opens, if anything).
    pub fn sending_secret(&self, secret: &str) -> Self {
        Self {
            secret: secret.to_owned(),
            ..self.clone()
        }
    }

    /// The same server, seen from another (new) lab.
    pub fn in_new_lab(&self) -> Self {
        let mut other = self.clone();
        other.open_new_lab();
        other
    }

    /// A `POST /orders` with this lab, a JSON body and the key (if any).
    pub fn order_request(&self, key: Option<&str>, body: &str) -> reqwest::RequestBuilder {
        self.order_request_typed(key, body, "application/json")
    }

    /// A `POST /orders` like [`Self::order_request`] with another `Content-Type`.
    pub fn order_request_typed(
        &self,
        key: Option<&str>,
        body: &str,
        content_type: &str,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(&self.orders_url)
            .header(LAB_SECRET, &self.secret)
            .header(CONTENT_TYPE, content_type)
            .body(body.to_owned());
        if let Some(key) = key {
            request = request.header(
                IDEMPOTENCY_KEY,
                HeaderValue::from_bytes(key.as_bytes()).expect("a header value"),
            );
        }
        request
    }

    /// Places the default order with `key`.
    pub async fn place(&self, key: &str) -> Attempt {
        send(self.order_request(Some(key), COFFEE)).await
    }

    /// Places the default order with `key`, asking the server to commit and then hang up.
    pub async fn place_and_drop_response(&self, key: &str) -> Attempt {
        send(
            self.order_request(Some(key), COFFEE)
                .header(LAB_FAULT, "drop-response"),
        )
        .await
    }

    /// Places the default order with `key`, the server pausing `delay_ms` in its race window.
    pub async fn place_slowly(&self, key: &str, delay_ms: u64) -> Attempt {
        send(
            self.order_request(Some(key), COFFEE)
                .header(LAB_DELAY_MS, delay_ms.to_string()),
        )
        .await
    }

    /// Starts a slow order (`delay_ms` in the server's race window) in the
    /// background and waits until the server reports that its pause has
    /// begun: it has claimed its key by then (or, on the naive server,
    /// looked it up), except on the transactional server over SQLite, which
    /// pauses before its transaction. Returns the running request.
    pub async fn place_slowly_in_background(
        &self,
        key: &str,
        delay_ms: u64,
    ) -> tokio::task::JoinHandle<Attempt> {
        let mut steps = self.steps().await;
        let (server, owned_key) = (self.clone(), key.to_owned());
        let first = tokio::spawn(async move { server.place_slowly(&owned_key, delay_ms).await });
        steps
            .until(|step| step.key == key && matches!(step.kind, StepKind::SlowPartStarted { .. }))
            .await;
        first
    }

    /// Places the default order with `key`, asking the server to crash right
    /// after creating it; an unanswered claim blocks retries for `lock_secs`.
    pub async fn place_and_crash(&self, key: &str, lock_secs: u64) -> Attempt {
        send(
            self.order_request(Some(key), COFFEE)
                .header(LAB_FAULT, "crash-after-create")
                .header(LAB_LOCK_TIMEOUT_SECS, lock_secs.to_string()),
        )
        .await
    }

    /// Places the default order with `key`, asking for `fault`
    /// (`Lab-Fault`); a claim it leaves unanswered stays locked for a
    /// minute, longer than any test waits.
    pub async fn place_with_fault(&self, key: &str, fault: &str) -> Attempt {
        send(
            self.order_request(Some(key), COFFEE)
                .header(LAB_FAULT, fault)
                .header(LAB_LOCK_TIMEOUT_SECS, "60"),
        )
        .await
    }

    /// Places the default order with `key`, kept only `secs` seconds.
    pub async fn place_kept_for(&self, key: &str, secs: u64) -> Attempt {
        send(
            self.order_request(Some(key), COFFEE)
                .header(LAB_KEY_RETENTION_SECS, secs.to_string()),
        )
        .await
    }

    /// This lab's orders.
    pub async fn orders(&self) -> Vec<Order> {
        let response = self
            .http
            .get(&self.orders_url)
            .header(LAB_SECRET, &self.secret)
            .send()
            .await
            .expect("GET /orders answers");
        assert_eq!(response.status(), 200, "GET /orders");
        response.json().await.expect("GET /orders returns orders")
    }

    /// Opens this lab's stream of steps on this server (`GET /steps?secret=…`).
    pub async fn steps(&self) -> crate::StepStream {
        let url = self
            .orders_url
            .replace("/orders", &format!("/steps?{}", self.lab_query()));
        crate::StepStream::open(&url).await
    }

    /// Deletes this lab's orders and keys; returns the status.
    pub async fn delete_orders(&self) -> u16 {
        let response = self
            .http
            .delete(&self.orders_url)
            .header(LAB_SECRET, &self.secret)
            .send()
            .await
            .expect("DELETE /orders answers");
        response.status().as_u16()
    }
}

/// Sends `request` (an order under `key` with a `Lab-Delay-Ms`) and hangs
/// up as soon as `steps` shows that the server's pause began, as a client
/// that times out would, but at a known moment. Returns the steps seen.
pub async fn hang_up_during_the_pause(
    request: reqwest::RequestBuilder,
    key: &str,
    steps: &mut crate::StepStream,
) -> Vec<lab_wire::Step> {
    let client = tokio::spawn(send(request));
    let seen = steps
        .until(|step| step.key == key && matches!(step.kind, StepKind::SlowPartStarted { .. }))
        .await;
    // Dropping the request closes its connection: the hang-up.
    client.abort();
    seen
}

/// Sends `request` and says what came back.
/// Sends a request and records what came back, or that nothing did.
pub async fn send(request: reqwest::RequestBuilder) -> Attempt {
    match request.send().await {
        Ok(response) => {
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned)
            };
            let status = response.status().as_u16();
            let replayed = header(IDEMPOTENT_REPLAYED).as_deref() == Some("true");
            let content_type = header("content-type").unwrap_or_default();
            let retry_after = header("retry-after");
            let text = response.text().await.unwrap_or_default();
            Attempt::Answered {
                status,
                replayed,
                content_type,
                body: serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
                retry_after,
            }
        }
        Err(error) => Attempt::NoResponse(format!("{error:?}")),
    }
}
