//! Turning an HTTP request into the lab's typed inputs. Every check a
//! client can fail happens here, before any storage is touched, and each
//! failure becomes a 4xx problem that says what to fix.

use axum::extract::{FromRequest, Request};
use axum::http::HeaderMap;
use lab_wire::headers::IDEMPOTENCY_KEY;
use lab_wire::{IdempotencyKey, LabId, NewOrder};

use lab_platform::LabError;
use lab_platform::access::{LabCredentials, LabUse, TeacherToken};
use lab_platform::body::{read_limited_body, require_json_content_type};
use lab_platform::headers::single_header;

use crate::controls::DemoControls;

mod described;

pub use described::OrderHeaders;

/// The largest request body the servers accept.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A complete, valid `POST /orders` request.
#[derive(Debug, Clone)]
pub struct OrderRequest {
    /// Whose lab the order goes into.
    pub lab: LabId,
    /// The client's key for this logical operation.
    pub key: IdempotencyKey,
    /// The order to place.
    pub order: NewOrder,
    /// Demo controls from the request's headers.
    pub controls: DemoControls,
}

/// A complete, valid `POST /orders` request that carried no key, sent with
/// `Lab-Missing-Key: create`: a plain POST, which no design can guard.
#[derive(Debug, Clone)]
pub struct KeylessOrderRequest {
    /// Whose lab the order goes into.
    pub lab: LabId,
    /// The order to place.
    pub order: NewOrder,
    /// Demo controls from the request's headers.
    pub controls: DemoControls,
}

/// A complete, valid `POST /orders`: with a key (what each design's flow
/// takes), or without one, which every server handles alike.
#[derive(Debug, Clone)]
pub enum OrderPost {
    /// The request carried an `Idempotency-Key`.
    WithKey(OrderRequest),
    /// It carried none and asked to be made anyway.
    WithoutKey(KeylessOrderRequest),
}

impl OrderPost {
    /// Whose lab the order goes into.
    pub fn lab(&self) -> &LabId {
        match self {
            Self::WithKey(request) => &request.lab,
            Self::WithoutKey(request) => &request.lab,
        }
    }

    /// The demo controls the request carries.
    pub fn controls(&self) -> &DemoControls {
        match self {
            Self::WithKey(request) => &request.controls,
            Self::WithoutKey(request) => &request.controls,
        }
    }

    /// The key, or `""` for a request without one (as steps report it).
    pub fn key_text(&self) -> &str {
        match self {
            Self::WithKey(request) => request.key.as_str(),
            Self::WithoutKey(_) => "",
        }
    }
}

impl OrderRequest {
    /// A fingerprint of what is asked: a SHA-256 of the method, the path and
    /// the order in canonical JSON (field order, spacing and unknown fields
    /// do not count), so a key reused for a different order can be told apart.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let canonical = serde_json::to_string(&self.order).expect("an order always serialises");
        let digest = Sha256::digest(format!("POST /orders\n{canonical}"));
        digest.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

/// The request's key, or `None` when it sent none.
fn key_from_headers(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, LabError> {
    let Some(value) = single_header(headers, IDEMPOTENCY_KEY, "Idempotency-Key")? else {
        return Ok(None);
    };
    // Lossy decoding keeps a non-ASCII byte visible (as U+FFFD) so the key
    // check reports it instead of a vaguer "not UTF-8".
    Ok(Some(IdempotencyKey::try_from(&*String::from_utf8_lossy(
        value.as_bytes(),
    ))?))
}

/// Parses an order body: syntax errors are the client's malformed JSON
/// (400), well-formed JSON with wrong fields or values is an invalid order (422).
pub fn parse_order(body: &[u8]) -> Result<NewOrder, LabError> {
    let order: NewOrder = serde_json::from_slice(body).map_err(|error| match error.classify() {
        serde_json::error::Category::Data => LabError::InvalidOrder(error.to_string()),
        _ => LabError::MalformedJson(error.to_string()),
    })?;
    order
        .validate()
        .map_err(|invalid| LabError::InvalidOrder(invalid.to_string()))?;
    Ok(order)
}

impl<S: Send + Sync> FromRequest<S> for OrderPost {
    type Rejection = LabError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let (parts, body) = request.into_parts();
        let headers = &parts.headers;
        // Placing an order changes the lab: only its secret opens it.
        let lab =
            LabCredentials::from_headers(headers)?.open(LabUse::Change, &TeacherToken::none())?;
        let key = key_from_headers(headers)?;
        let controls = DemoControls::from_headers(headers)?;
        if key.is_none() && !controls.create_without_key {
            return Err(LabError::MissingKey);
        }
        require_json_content_type(headers)?;
        let body = read_limited_body(headers, body, MAX_BODY_BYTES).await?;
        let order = parse_order(&body)?;
        Ok(match key {
            Some(key) => Self::WithKey(OrderRequest {
                lab,
                key,
                order,
                controls,
            }),
            None => Self::WithoutKey(KeylessOrderRequest {
                lab,
                order,
                controls,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_platform::headers::header_map as headers;

    #[test]
    fn syntax_errors_are_malformed_json_and_wrong_types_are_invalid_orders() {
        assert!(matches!(
            parse_order(b"{\"item\":"),
            Err(LabError::MalformedJson(_))
        ));
        assert!(matches!(
            parse_order(br#"{"item":"tea","amount_cents":"450"}"#),
            Err(LabError::InvalidOrder(_))
        ));
        assert!(matches!(
            parse_order(br#"{"item":"tea"}"#),
            Err(LabError::InvalidOrder(_))
        ));
        assert!(matches!(
            parse_order(br#"{"item":"tea","amount_cents":0}"#),
            Err(LabError::InvalidOrder(_))
        ));
        assert_eq!(
            parse_order(br#"{"item":"tea","amount_cents":450}"#)
                .unwrap()
                .amount_cents,
            450
        );
    }

    #[test]
    fn a_key_sent_twice_is_refused_rather_than_guessed() {
        let twice = headers(&[("idempotency-key", "a"), ("idempotency-key", "b")]);
        assert!(matches!(
            key_from_headers(&twice),
            Err(LabError::RepeatedHeader("Idempotency-Key"))
        ));
    }

    #[test]
    fn the_fingerprint_ignores_spacing_and_field_order_but_not_values() {
        let request = |body: &[u8]| OrderRequest {
            lab: LabId::default(),
            key: IdempotencyKey::try_from("k").unwrap(),
            order: parse_order(body).unwrap(),
            controls: DemoControls::default(),
        };
        let a = request(br#"{"item":"tea","amount_cents":450}"#).fingerprint();
        let b =
            request(br#"{ "amount_cents": 450, "item": "tea", "note": "ignored" }"#).fingerprint();
        let c = request(br#"{"item":"tea","amount_cents":451}"#).fingerprint();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 64);
    }
}
