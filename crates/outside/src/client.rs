//! The shops' HTTP client for these services: what the order servers call
//! through [`OutsideCalls`], with the shops' API key, a timeout longer than
//! the slowest charge a request may ask for, and failures told in a few
//! words without the URL (it names a local port).

use std::time::Duration;

use lab_wire::LabId;
use lab_wire::headers::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED};
use lab_wire::outside::{
    Call, CallFailed, Charge, ChargeMade, MESSAGE_ID, NewCharge, NewEmail, OUTSIDE_LAB,
    OUTSIDE_MERCHANT, OutsideCalls, PROVIDER_FAULT,
};

/// How long a shop waits for the provider or the mail sink: longer than
/// the slowest charge a request may ask for (10 s).
const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// The services at one address, opened with the shops' API key.
#[derive(Debug, Clone)]
pub struct OutsideClient {
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT`, where the outside services listen.
    base: String,
    /// The shops' API key there.
    api_key: String,
}

impl OutsideClient {
    /// The services at `base`, opened with `api_key`.
    pub fn new(base: String, api_key: String) -> Self {
        let http = reqwest::Client::builder()
            .timeout(CALL_TIMEOUT)
            .build()
            .expect("a client with a timeout builds");
        Self {
            http,
            base,
            api_key,
        }
    }

    /// A POST to `path` as `merchant` for `lab`, with the API key.
    fn post(&self, path: &str, merchant: &str, lab: &LabId) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.api_key)
            .header(OUTSIDE_MERCHANT, merchant)
            .header(OUTSIDE_LAB, lab.as_str())
    }
}

impl OutsideCalls for OutsideClient {
    fn charge<'a>(
        &'a self,
        merchant: &'a str,
        lab: &'a LabId,
        key: &'a str,
        charge: NewCharge,
        time_out: bool,
    ) -> Call<'a, ChargeMade> {
        Box::pin(async move {
            let mut request = self
                .post("/charges", merchant, lab)
                .header(IDEMPOTENCY_KEY, key)
                .json(&charge);
            if time_out {
                request = request.header(PROVIDER_FAULT, "timeout-after-charge");
            }
            let response = request.send().await.map_err(cause)?;
            if !response.status().is_success() {
                return Err(refusal(response).await);
            }
            let replayed = response.headers().contains_key(IDEMPOTENT_REPLAYED);
            let charge = response.json::<Charge>().await.map_err(cause)?;
            Ok(ChargeMade { charge, replayed })
        })
    }

    fn send_email<'a>(
        &'a self,
        merchant: &'a str,
        lab: &'a LabId,
        message_id: &'a str,
        email: NewEmail,
    ) -> Call<'a, bool> {
        Box::pin(async move {
            let response = self
                .post("/messages", merchant, lab)
                .header(MESSAGE_ID, message_id)
                .json(&email)
                .send()
                .await
                .map_err(cause)?;
            if !response.status().is_success() {
                return Err(refusal(response).await);
            }
            Ok(!response.headers().contains_key(IDEMPOTENT_REPLAYED))
        })
    }
}

/// A refusal in a few words: its status and the problem's detail, if any.
async fn refusal(response: reqwest::Response) -> CallFailed {
    let status = response.status();
    let detail = response
        .json::<lab_wire::Problem>()
        .await
        .ok()
        .map(|problem| problem.detail);
    CallFailed(match detail {
        Some(detail) if !detail.is_empty() => format!("it answered {status}: {detail}"),
        _ => format!("it answered {status}"),
    })
}

/// What went wrong with a call, without the URL (it names a local port).
fn cause(error: reqwest::Error) -> CallFailed {
    CallFailed(
        if error.is_timeout() {
            "no answer in time"
        } else if error.is_connect() {
            "could not connect"
        } else if error.is_decode() {
            "its answer could not be read"
        } else {
            "the connection closed without an answer"
        }
        .to_owned(),
    )
}
