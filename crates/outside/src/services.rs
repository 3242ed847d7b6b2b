//! The provider's and the mail sink's own HTTP API, which only the lab's
//! shops call (with their API key): `POST /charges` charges a card, Stripe
//! style, and `POST /messages` delivers an e-mail.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use lab_platform::LabError;
use lab_platform::body::{read_limited_body, require_json_content_type};
use lab_platform::headers::{number_header, single_header};
use lab_platform::serve::HangUp;
use lab_wire::headers::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, MAX_DELAY_MS};
use lab_wire::order::MAX_AMOUNT_CENTS;
use lab_wire::outside::{
    MAX_OUTSIDE_KEY_CHARS, MESSAGE_ID, NewCharge, NewEmail, OUTSIDE_LAB, OUTSIDE_MERCHANT,
    PROVIDER_DELAY_MS, PROVIDER_FAULT,
};
use lab_wire::{LabId, Timestamp};
use sha2::{Digest, Sha256};

use crate::store::{self, Caller, Charged};

/// The longest body either service reads.
const MAX_BODY_BYTES: usize = 4 * 1024;
/// The longest description or subject, in characters.
const MAX_TEXT_CHARS: usize = 300;

/// What the services share: their storage and the shops' API key (as a hash).
#[derive(Clone)]
pub struct ServiceState {
    pub db: lab_platform::Db,
    pub api_key: [u8; 32],
}

impl ServiceState {
    /// Refuses a caller without the shops' API key. Hashes are compared,
    /// so the time taken says nothing about how much of a key was right.
    fn admit(&self, headers: &HeaderMap) -> Result<(), LabError> {
        let offered = single_header(headers, AUTHORIZATION.as_str(), "Authorization")?
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .ok_or(LabError::OutsideKeyWrong)?;
        if digest(offered) == self.api_key {
            Ok(())
        } else {
            Err(LabError::OutsideKeyWrong)
        }
    }
}

impl ServiceState {
    /// Who calls, for which lab, under which key (the header `key`):
    /// after checking that the caller is one of the lab's shops.
    fn caller(
        &self,
        headers: &HeaderMap,
        (key, shown): (&'static str, &'static str),
    ) -> Result<(String, LabId, String), LabError> {
        self.admit(headers)?;
        Ok((
            merchant(headers)?,
            lab(headers)?,
            outside_key(headers, key, shown)?,
        ))
    }
}

/// The SHA-256 of `text`.
pub fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// `POST /charges`: charges the lab's card for a shop. A key the provider
/// has charged for before gets that charge back (`Idempotent-Replayed:
/// true`), not a new one; the same key for another amount is refused.
pub async fn charge(
    State(state): State<ServiceState>,
    request: Request,
) -> Result<Response, LabError> {
    let headers = request.headers().clone();
    let (merchant, lab, key) = state.caller(&headers, (IDEMPOTENCY_KEY, "Idempotency-Key"))?;
    let time_out = match text_header(&headers, PROVIDER_FAULT, "Provider-Fault")? {
        None => false,
        Some(fault) if fault == "timeout-after-charge" => true,
        Some(other) => return Err(LabError::UnknownFault(other)),
    };
    let delay = number_header(
        &headers,
        PROVIDER_DELAY_MS,
        "Provider-Delay-Ms",
        0..=MAX_DELAY_MS,
        LabError::InvalidDelay,
    )?;
    let charge: NewCharge = read_json(request).await?;
    if !(1..=MAX_AMOUNT_CENTS).contains(&charge.amount_cents) {
        return Err(LabError::InvalidRecord(format!(
            "amount_cents must be between 1 and {MAX_AMOUNT_CENTS}"
        )));
    }
    check_text("description", &charge.description)?;
    if let Some(ms) = delay {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
    let caller = Caller {
        merchant: &merchant,
        lab: &lab,
        key: &key,
    };
    let response = match store::charge(&state.db, &caller, &charge).await? {
        Charged::New(made) => (StatusCode::CREATED, Json(made)).into_response(),
        Charged::Before(made, asked) if asked == charge => replayed(Json(made).into_response()),
        Charged::Before(..) => return Err(LabError::KeyReused),
    };
    // The charge is made (or was): a provider that times out now leaves
    // its caller not knowing, which is the whole difficulty.
    Ok(if time_out {
        HangUp::mark(response)
    } else {
        response
    })
}

/// `POST /messages`: delivers an e-mail for a shop, once per message id.
pub async fn deliver(
    State(state): State<ServiceState>,
    request: Request,
) -> Result<Response, LabError> {
    let headers = request.headers().clone();
    let (merchant, lab, message_id) = state.caller(&headers, (MESSAGE_ID, "Message-Id"))?;
    let email: NewEmail = read_json(request).await?;
    check_text("subject", &email.subject)?;
    let caller = Caller {
        merchant: &merchant,
        lab: &lab,
        key: &message_id,
    };
    let delivered = store::deliver(&state.db, &caller, &email.subject).await?;
    let receipt = Json(
        serde_json::json!({ "message_id": message_id, "at": Timestamp::from(chrono::Utc::now()) }),
    );
    Ok(if delivered {
        (StatusCode::CREATED, receipt).into_response()
    } else {
        replayed(receipt.into_response())
    })
}

fn replayed(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    response
}

fn text_header(
    headers: &HeaderMap,
    name: &'static str,
    shown: &'static str,
) -> Result<Option<String>, LabError> {
    Ok(single_header(headers, name, shown)?
        .map(|value| String::from_utf8_lossy(value.as_bytes()).trim().to_owned()))
}

/// The calling shop: a design's name, lowercase letters and `-`.
fn merchant(headers: &HeaderMap) -> Result<String, LabError> {
    let merchant = text_header(headers, OUTSIDE_MERCHANT, "Outside-Merchant")?.unwrap_or_default();
    let fits = |c: char| c.is_ascii_lowercase() || c == '-';
    if merchant.is_empty() || merchant.len() > 40 || !merchant.chars().all(fits) {
        return Err(LabError::InvalidRecord(
            "Outside-Merchant must name the calling shop: 1-40 lowercase letters or -".into(),
        ));
    }
    Ok(merchant)
}

fn lab(headers: &HeaderMap) -> Result<LabId, LabError> {
    let lab = text_header(headers, OUTSIDE_LAB, "Outside-Lab")?.unwrap_or_default();
    Ok(LabId::try_from(lab.as_str())?)
}

/// A key or message id: 1–300 visible ASCII characters.
fn outside_key(
    headers: &HeaderMap,
    name: &'static str,
    shown: &'static str,
) -> Result<String, LabError> {
    let key = text_header(headers, name, shown)?.unwrap_or_default();
    let visible = |c: char| c.is_ascii_graphic();
    if key.is_empty() || key.len() > MAX_OUTSIDE_KEY_CHARS || !key.chars().all(visible) {
        return Err(LabError::InvalidRecord(format!(
            "{shown} must be 1-{MAX_OUTSIDE_KEY_CHARS} visible ASCII characters"
        )));
    }
    Ok(key)
}

fn check_text(field: &str, text: &str) -> Result<(), LabError> {
    let chars = text.chars().count();
    if text.trim().is_empty() || chars > MAX_TEXT_CHARS {
        return Err(LabError::InvalidRecord(format!(
            "{field} must be 1-{MAX_TEXT_CHARS} characters, not only white space"
        )));
    }
    if let Some((at, control)) = lab_wire::text::first_control_character(text) {
        return Err(LabError::InvalidRecord(format!(
            "{field} must not contain control characters; it has U+{:04X} at character {at}",
            u32::from(control)
        )));
    }
    Ok(())
}

/// Reads a JSON body: a syntax error is malformed JSON (400), well-formed
/// JSON of the wrong shape an invalid record (422).
pub(crate) async fn read_json<T: for<'de> serde::Deserialize<'de>>(
    request: Request,
) -> Result<T, LabError> {
    let (parts, body) = request.into_parts();
    require_json_content_type(&parts.headers)?;
    let body = read_limited_body(&parts.headers, body, MAX_BODY_BYTES).await?;
    serde_json::from_slice(&body).map_err(|error| match error.classify() {
        serde_json::error::Category::Data => LabError::InvalidRecord(error.to_string()),
        _ => LabError::MalformedJson(error.to_string()),
    })
}
