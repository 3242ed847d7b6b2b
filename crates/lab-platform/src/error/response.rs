//! A [`LabError`] as the client receives it: an RFC 9457 problem with the
//! headers that go with it (`Retry-After`, `WWW-Authenticate`), or no
//! answer at all for a simulated crash.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lab_wire::problem::PROBLEM_JSON;

use super::LabError;
use crate::serve::HangUp;

impl IntoResponse for LabError {
    fn into_response(self) -> Response {
        if matches!(self, Self::SimulatedCrash) {
            tracing::info!("{self}");
            return HangUp::mark(Response::new(axum::body::Body::empty()));
        }
        let status = self.status();
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %self, "request failed");
        }
        let body = serde_json::to_vec(&self.problem()).expect("a problem always serialises");
        let retry_after = match &self {
            Self::KeyInFlight | Self::RequestTimedOut(_) | Self::ClaimLost => Some(1),
            Self::Limit(limit) => Some(limit.retry_after_secs()),
            Self::Schedule(refused) => refused.retry_after_secs(),
            _ => None,
        };
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(secs) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if matches!(self, Self::WebhookSignature(_)) {
            // A webhook authenticates with its signature, not a token.
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Webhook-Signature"),
            );
        } else if status == StatusCode::UNAUTHORIZED {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// Fallback handler for unknown paths.
pub async fn not_found() -> LabError {
    LabError::NotFound
}

/// Fallback handler for known paths with the wrong method.
pub async fn method_not_allowed() -> LabError {
    LabError::MethodNotAllowed
}
