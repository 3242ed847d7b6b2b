//! A response as the servers store it beside an idempotency key, and the
//! HTTP responses built from it.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lab_platform::LabError;
use lab_wire::Order;
use lab_wire::headers::IDEMPOTENT_REPLAYED;

/// The status and JSON body of the first answer given for a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// The HTTP status code, e.g. 201.
    pub status: u16,
    /// The JSON body, byte for byte as first sent.
    pub body: String,
}

impl StoredResponse {
    /// The `201 Created` answer for a freshly created order.
    pub fn created(order: &Order) -> Self {
        Self {
            status: StatusCode::CREATED.as_u16(),
            body: serde_json::to_string(order).expect("an order always serialises"),
        }
    }

    /// The response for the request that did the work.
    pub fn first_response(self) -> Response {
        self.into_response_with(false)
    }

    /// The same response again, marked `Idempotent-Replayed: true`.
    pub fn replay(self) -> Response {
        self.into_response_with(true)
    }

    /// The same response again for a request with `fingerprint`, if it is
    /// the request that first used the key (`claimed_by`). A key names one
    /// request: replaying its answer to a different one would tell that
    /// client its different order went through, so it is refused instead.
    pub fn replay_to(self, claimed_by: &str, fingerprint: &str) -> Result<Response, LabError> {
        if claimed_by != fingerprint {
            return Err(LabError::KeyReused);
        }
        Ok(self.replay())
    }

    fn into_response_with(self, replayed: bool) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let mut response = (status, self.body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if replayed {
            headers.insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
        }
        response
    }
}
