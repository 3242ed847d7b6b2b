//! The provider's side of a webhook: delivery *at least once*. The
//! provider signs the event, posts it to the shop's receiver and waits for
//! a 2xx; anything else (an error status, a closed connection, no answer
//! within [`ATTEMPT_TIMEOUT`]) and it tries again after a backoff that
//! doubles, up to [`MAX_ATTEMPTS`] times. It cannot tell "the shop never
//! got it" from "the shop shipped and its answer was lost", so it sends
//! again in both cases: the receiver has to recognise an event it has seen.
//!
//! Real providers space their retries over hours or days; the lab's start
//! at [`FIRST_BACKOFF`] so that a run takes a moment.

use std::time::Duration;

use lab_wire::headers::LAB_FAULT;
use lab_wire::webhook::{
    AttemptOutcome, DeliveryAttempt, Receipt, WEBHOOK_ID, WEBHOOK_SIGNATURE, WEBHOOK_TIMESTAMP,
    WebhookEvent,
};
use tokio::time::Instant;

use webhook_signature::WebhookKey;

/// The most attempts the provider makes to deliver one event.
pub const MAX_ATTEMPTS: u32 = 5;
/// How long it waits before its second attempt; each later wait doubles.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// How long it waits for an answer before counting the attempt as failed.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(5);

/// One delivery of one event for the provider to make, retrying until
/// the receiver acknowledges it.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The event.
    pub event: WebhookEvent,
    /// Which delivery of the event this is (2: the provider sends it again).
    pub delivery: u8,
    /// Whether the lab asks the receiver to lose its answer to the first
    /// attempt (`Lab-Fault: drop-response`): it does its work, then hangs up.
    pub lose_first_answer: bool,
}

/// The provider's webhook sender: an HTTP client with its timeout.
#[derive(Debug, Clone)]
pub struct Deliverer {
    http: reqwest::Client,
}

impl Default for Deliverer {
    fn default() -> Self {
        Self::new()
    }
}

impl Deliverer {
    /// A sender that waits [`ATTEMPT_TIMEOUT`] for each answer.
    pub fn new() -> Self {
        let http = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .build()
            .expect("a client with a timeout builds");
        Self { http }
    }

    /// Delivers `queue` to `url`, signed with `key`, as one of the
    /// provider's workers does: one attempt at a time, always the one due
    /// first (a retry waits its backoff while the next event goes out), until
    /// each is acknowledged or has had [`MAX_ATTEMPTS`]. Every attempt, in
    /// the order sent.
    pub async fn deliver(
        &self,
        url: &str,
        key: &WebhookKey,
        queue: Vec<Pending>,
    ) -> Vec<DeliveryAttempt> {
        let start = Instant::now();
        // (when due, attempts made so far, the delivery), in arrival order.
        let mut waiting: Vec<(Instant, u32, Pending)> = queue
            .into_iter()
            .map(|pending| (start, 0, pending))
            .collect();
        let mut attempts = Vec::new();
        while let Some(next) = (0..waiting.len()).min_by_key(|&at| waiting[at].0) {
            let (due, made, pending) = waiting.remove(next);
            tokio::time::sleep_until(due).await;
            let number = made + 1;
            let lose_answer = pending.lose_first_answer && number == 1;
            let attempt = self.attempt(url, key, &pending, number, lose_answer).await;
            let done = attempt.outcome.acknowledged() || number >= MAX_ATTEMPTS;
            attempts.push(attempt);
            if !done {
                waiting.push((Instant::now() + backoff(number), number, pending));
            }
        }
        attempts
    }

    /// One attempt: signed now, posted, and its answer (or its absence) read.
    async fn attempt(
        &self,
        url: &str,
        key: &WebhookKey,
        pending: &Pending,
        number: u32,
        lose_answer: bool,
    ) -> DeliveryAttempt {
        let body = serde_json::to_vec(&pending.event).expect("an event always serialises");
        let sent_at = chrono::Utc::now();
        let mut request = self
            .http
            .post(url)
            .header(WEBHOOK_ID, &pending.event.id)
            .header(WEBHOOK_TIMESTAMP, sent_at.timestamp())
            .header(
                WEBHOOK_SIGNATURE,
                key.sign(&pending.event.id, sent_at.timestamp(), &body),
            )
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        if lose_answer {
            request = request.header(LAB_FAULT, "drop-response");
        }
        let outcome = match request.send().await {
            Ok(response) => {
                let status = response.status();
                let receipt = if status.is_success() {
                    response.json::<Receipt>().await.ok()
                } else {
                    None
                };
                AttemptOutcome::Answered {
                    status: status.as_u16(),
                    receipt,
                }
            }
            Err(error) => AttemptOutcome::NoAnswer {
                reason: no_answer(&error).to_owned(),
            },
        };
        DeliveryAttempt {
            event: pending.event.id.clone(),
            delivery: pending.delivery,
            attempt: number,
            sent_at_us: sent_at.timestamp_micros(),
            ended_at_us: chrono::Utc::now().timestamp_micros(),
            outcome,
        }
    }
}

/// The wait after attempt `made` failed: [`FIRST_BACKOFF`], doubling.
pub fn backoff(made: u32) -> Duration {
    FIRST_BACKOFF.saturating_mul(1 << made.saturating_sub(1).min(16))
}

/// Why no answer came, in a few words, without the URL.
fn no_answer(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "no answer in time"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "the connection closed without an answer"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_between_attempts_doubles_from_the_first_backoff() {
        assert_eq!(backoff(1), FIRST_BACKOFF);
        assert_eq!(backoff(2), FIRST_BACKOFF * 2);
        assert_eq!(backoff(4), FIRST_BACKOFF * 8);
        assert!(backoff(u32::MAX) >= backoff(16));
    }
}
