//! The server an exploration runs on, and the HTTP requests a schedule
//! makes of it: open and read a schedule, release or crash a copy, send a
//! copy of the order, read the orders the key was left with.

use lab_wire::headers::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LAB_SCHEDULE, LAB_SECRET};
use lab_wire::{Order, ScheduleView};
use tokio::task::JoinHandle;

use crate::error::ExploreError;
use crate::report::{Answer, Choice};
/// The order every copy sends.
const ORDER: &str = r#"{"item":"coffee","amount_cents":450}"#;

/// The order server to explore: its `…/orders` URL (for the lab,
/// `http://127.0.0.1:8080/api/naive/orders`).
#[derive(Debug, Clone)]
pub struct Target {
    orders_url: String,
    pub(crate) client: reqwest::Client,
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

    pub(crate) fn root(&self) -> &str {
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

    pub(crate) async fn open_schedule(&self, secret: &str) -> Result<String, ExploreError> {
        let url = format!("{}/schedules", self.root());
        let request = self.client.post(&url).header(LAB_SECRET, secret);
        Ok(self.schedule_view(&url, request, 201).await?.id)
    }

    pub(crate) async fn view(&self, secret: &str, id: &str) -> Result<ScheduleView, ExploreError> {
        let url = format!("{}/schedules/{id}", self.root());
        let request = self.client.get(&url).header(LAB_SECRET, secret);
        self.schedule_view(&url, request, 200).await
    }

    /// Carries out `choice`: a release, or a crash.
    pub(crate) async fn make(
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

    pub(crate) async fn close(&self, secret: &str, id: &str) -> Result<(), ExploreError> {
        let url = format!("{}/schedules/{id}", self.root());
        let request = self.client.delete(&url).header(LAB_SECRET, secret);
        self.send(&url, request, 204).await.map(drop)
    }

    /// Deletes the schedule's lab, if this target was asked to forget each.
    pub(crate) async fn forget_if_asked(&self, secret: &str) -> Result<(), ExploreError> {
        if !self.forget_each_lab {
            return Ok(());
        }
        let request = self
            .client
            .delete(&self.orders_url)
            .header(LAB_SECRET, secret);
        self.send(&self.orders_url, request, 204).await.map(drop)
    }

    /// The ids of the lab's orders for `key`.
    pub(crate) async fn orders_for(
        &self,
        secret: &str,
        key: &str,
    ) -> Result<Vec<String>, ExploreError> {
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
    pub(crate) fn send_copy(
        &self,
        secret: &str,
        key: &str,
        id: &str,
        copy: u8,
    ) -> JoinHandle<Answer> {
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
pub(crate) struct ClosedIfAbandoned {
    /// The server, until the run closes the schedule itself.
    pub target: Option<Target>,
    pub secret: String,
    pub id: String,
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
