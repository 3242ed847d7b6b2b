//! The order servers' way out of their database: the payment provider and
//! the mail sink (the `outside` crate), reached over HTTP as a real shop
//! reaches Stripe or its mail relay. Whatever they did stays done: no
//! transaction of an order server can roll a charge back.

use std::sync::Arc;
use std::time::Duration;

use lab_wire::headers::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED};
use lab_wire::outside::{
    Charge, MESSAGE_ID, NewCharge, NewEmail, OUTSIDE_LAB, OUTSIDE_MERCHANT, PROVIDER_FAULT,
};
use lab_wire::{LabId, Order};
use tokio::sync::Notify;

use crate::LabError;

/// How long a shop waits for the provider or the mail sink: longer than
/// the slowest charge a request may ask for (10 s).
const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// A way to the provider and the mail sink, or none (a server run alone).
#[derive(Debug, Clone, Default)]
pub struct Outside(Option<Arc<Line>>);

#[derive(Debug)]
struct Line {
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT`, where the outside services listen.
    base: String,
    /// The shops' API key there.
    api_key: String,
    /// Rung when an outbox has an e-mail to send.
    outbox: Notify,
}

/// A charge the provider answered with.
#[derive(Debug, Clone)]
pub struct ChargeMade {
    /// The charge.
    pub charge: Charge,
    /// Whether the provider had made it before, for the same key, and
    /// answered with it instead of charging again.
    pub replayed: bool,
}

impl Outside {
    /// No provider and no mail sink: side effects are refused.
    pub fn none() -> Self {
        Self(None)
    }

    /// The services at `base`, opened with `api_key`.
    pub fn reached_at(base: String, api_key: String) -> Self {
        let http = reqwest::Client::builder()
            .timeout(CALL_TIMEOUT)
            .build()
            .expect("a client with a timeout builds");
        Self(Some(Arc::new(Line {
            http,
            base,
            api_key,
            outbox: Notify::new(),
        })))
    }

    fn line(&self) -> Result<&Line, LabError> {
        self.0.as_deref().ok_or(LabError::SideEffectsUnavailable)
    }

    /// Charges `order` for `lab` at the provider as `merchant`, under the
    /// provider key `key`. `time_out` asks the provider to charge and then
    /// hang up, as a provider timing out after the charge does.
    pub async fn charge(
        &self,
        merchant: &str,
        lab: &LabId,
        key: &str,
        order: &Order,
        time_out: bool,
    ) -> Result<ChargeMade, LabError> {
        let line = self.line()?;
        let mut request = line
            .http
            .post(format!("{}/charges", line.base))
            .bearer_auth(&line.api_key)
            .header(OUTSIDE_MERCHANT, merchant)
            .header(OUTSIDE_LAB, lab.as_str())
            .header(IDEMPOTENCY_KEY, key)
            .json(&NewCharge {
                amount_cents: order.amount_cents,
                description: order.item.clone(),
            });
        if time_out {
            request = request.header(PROVIDER_FAULT, "timeout-after-charge");
        }
        let failed = |why: String| LabError::ProviderFailed(why);
        let response = request
            .send()
            .await
            .map_err(|error| failed(cause(&error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(failed(refusal(response).await));
        }
        let replayed = response.headers().contains_key(IDEMPOTENT_REPLAYED);
        let charge = response
            .json::<Charge>()
            .await
            .map_err(|error| failed(cause(&error)))?;
        Ok(ChargeMade { charge, replayed })
    }

    /// Sends an e-mail with `subject` for `lab` through the mail sink as
    /// `merchant`, under `message_id`; `false` if the sink had delivered
    /// that message before (and did not deliver it again).
    pub async fn send_email(
        &self,
        merchant: &str,
        lab: &LabId,
        message_id: &str,
        subject: &str,
    ) -> Result<bool, LabError> {
        let line = self.line()?;
        let response = line
            .http
            .post(format!("{}/messages", line.base))
            .bearer_auth(&line.api_key)
            .header(OUTSIDE_MERCHANT, merchant)
            .header(OUTSIDE_LAB, lab.as_str())
            .header(MESSAGE_ID, message_id)
            .json(&NewEmail {
                subject: subject.to_owned(),
            })
            .send()
            .await
            .map_err(|error| LabError::MailFailed(cause(&error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(LabError::MailFailed(refusal(response).await));
        }
        Ok(!response.headers().contains_key(IDEMPOTENT_REPLAYED))
    }

    /// Tells the outbox's sender that an e-mail is waiting.
    pub fn outbox_filled(&self) {
        if let Some(line) = &self.0 {
            line.outbox.notify_one();
        }
    }

    /// Waits until [`Self::outbox_filled`] is called (or forever, with no services).
    pub async fn outbox_rang(&self) {
        match &self.0 {
            Some(line) => line.outbox.notified().await,
            None => std::future::pending().await,
        }
    }
}

/// The subject of an order's confirmation e-mail.
pub fn confirmation_subject(order: &Order) -> String {
    format!("Your order: {} ({})", order.item, order.id)
}

/// A refusal in a few words: its status and the problem's detail, if any.
async fn refusal(response: reqwest::Response) -> String {
    let status = response.status();
    let detail = response
        .json::<lab_wire::Problem>()
        .await
        .ok()
        .map(|problem| problem.detail);
    match detail {
        Some(detail) if !detail.is_empty() => format!("it answered {status}: {detail}"),
        _ => format!("it answered {status}"),
    }
}

/// What went wrong with a call, without the URL (it names a local port).
fn cause(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "no answer in time".to_owned()
    } else if error.is_connect() {
        "could not connect".to_owned()
    } else if error.is_decode() {
        "its answer could not be read".to_owned()
    } else {
        "the connection closed without an answer".to_owned()
    }
}
