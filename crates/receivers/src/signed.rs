//! A delivery as a receiver first meets it: the signature is checked over
//! the body exactly as it arrived, before a byte of it is believed; only
//! then is the event read, and its fields checked as anything a shop
//! stores must be (no control characters, which PostgreSQL's text refuses,
//! no endless ids).

use axum::extract::Request;
use axum::http::HeaderMap;
use lab_platform::LabError;
use lab_platform::body::{read_limited_body, require_json_content_type};
use lab_platform::headers::single_header;
use lab_wire::order::MAX_AMOUNT_CENTS;
use lab_wire::webhook::{
    MAX_EVENT_ID_CHARS, WEBHOOK_ID, WEBHOOK_SIGNATURE, WEBHOOK_TIMESTAMP, WebhookEvent,
};
use webhook_signature::WebhookKey;

/// The largest delivery a receiver reads: an event is a few hundred bytes.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// The event of a delivery signed with `key`, or why it is refused: 401 for
/// a signature that does not hold (or is missing), 4xx for a signed body
/// that is not an event this shop takes.
pub async fn signed_event(key: &WebhookKey, request: Request) -> Result<WebhookEvent, LabError> {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let id = signature_header(headers, WEBHOOK_ID)?;
    let timestamp = signature_header(headers, WEBHOOK_TIMESTAMP)?;
    let signatures = signature_header(headers, WEBHOOK_SIGNATURE)?;
    let body = read_limited_body(headers, body, MAX_BODY_BYTES).await?;
    let now = chrono::Utc::now().timestamp();
    key.verify(&id, &timestamp, &signatures, &body, now)
        .map_err(|error| LabError::WebhookSignature(error.to_string()))?;
    // Signed by the provider: now the body is worth reading.
    require_json_content_type(headers)?;
    let event: WebhookEvent =
        serde_json::from_slice(&body).map_err(|error| match error.classify() {
            serde_json::error::Category::Data => LabError::InvalidEvent(error.to_string()),
            _ => LabError::MalformedJson(error.to_string()),
        })?;
    if event.id != id {
        return Err(LabError::InvalidEvent(
            "the event's id must be the webhook-id it is delivered with".into(),
        ));
    }
    check_event(&event)?;
    Ok(event)
}

/// One of the three headers a signed delivery carries; without it the
/// signature cannot hold.
fn signature_header(headers: &HeaderMap, name: &'static str) -> Result<String, LabError> {
    single_header(headers, name, name)?
        .and_then(|value| value.to_str().ok())
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
        .ok_or_else(|| {
            LabError::WebhookSignature(format!(
                "a webhook is delivered with webhook-id, webhook-timestamp and webhook-signature; {name} is missing"
            ))
        })
}

/// Whether `text` could be an event's id (or an order's, or a charge's):
/// 1 to [`MAX_EVENT_ID_CHARS`] visible ASCII characters.
pub fn is_event_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_EVENT_ID_CHARS
        && text.chars().all(|c| c.is_ascii_graphic())
}

/// What a shop checks before it stores anything of an event.
fn check_event(event: &WebhookEvent) -> Result<(), LabError> {
    if !is_event_id(&event.id) {
        return Err(LabError::InvalidEvent(format!(
            "the event's id must be 1-{MAX_EVENT_ID_CHARS} visible ASCII characters"
        )));
    }
    for (field, value) in [("order", &event.data.order), ("charge", &event.data.charge)] {
        if !is_event_id(value) {
            return Err(LabError::InvalidEvent(format!(
                "data.{field} must be 1-{MAX_EVENT_ID_CHARS} visible ASCII characters"
            )));
        }
    }
    if !(1..=MAX_AMOUNT_CENTS).contains(&event.data.amount_cents) {
        return Err(LabError::InvalidEvent(format!(
            "data.amount_cents must be between 1 and {MAX_AMOUNT_CENTS}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use lab_wire::webhook::{CHARGE_SUCCEEDED, ChargeSucceeded};

    use super::*;

    fn event(order: &str) -> WebhookEvent {
        WebhookEvent {
            id: "evt_1".into(),
            kind: CHARGE_SUCCEEDED.into(),
            created_at: chrono::Utc::now().into(),
            data: ChargeSucceeded {
                charge: "ch_1".into(),
                order: order.into(),
                amount_cents: 1200,
            },
        }
    }

    #[test]
    fn an_event_with_a_nul_or_a_right_to_left_mark_in_its_order_is_refused() {
        assert!(check_event(&event("ord_1")).is_ok());
        for odd in ["ord\u{0}1", "ord_\u{202E}1", "", "ord 1"] {
            let refused = check_event(&event(odd)).unwrap_err();
            assert_eq!(refused.status(), 422, "{odd:?}");
        }
    }
}
