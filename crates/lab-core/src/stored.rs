//! A response as the servers store it beside an idempotency key, and the
//! HTTP responses built from it.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lab_wire::headers::IDEMPOTENT_REPLAYED;
use lab_wire::{IdempotencyKey, LabId, Order};

use lab_platform::{Db, DbTx, with_pool, with_tx};

/// The status and JSON body of the first answer given for a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// The HTTP status code, e.g. 201.
    pub status: u16,
    /// The JSON body, byte for byte as first sent.
    pub body: String,
}

/// Binds an answer's columns, in [`SaveAnswer`]'s parameter order.
macro_rules! bind_answer {
    ($query:expr, $stored:expr, $lab:expr, $key:expr) => {
        $query
            .bind(i32::from($stored.status))
            .bind(&$stored.body)
            .bind($lab.as_str())
            .bind($key.as_str())
    };
}

/// A key table's statement that records the answer on a claimed key:
/// `$1` status, `$2` body, `$3` lab, `$4` key. Each server writes its own
/// (its own table); whether it runs alone or inside the transaction that
/// claimed the key is the server's design, and shows at the call.
#[derive(Debug, Clone, Copy)]
pub struct SaveAnswer(pub &'static str);

impl SaveAnswer {
    /// Records `stored` on `key` in a statement of its own.
    pub async fn run(
        self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
        stored: &StoredResponse,
    ) -> sqlx::Result<()> {
        with_pool!(db, |pool| {
            bind_answer!(sqlx::query(self.0), stored, lab, key)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Records `stored` on `key` inside the transaction `tx`.
    pub async fn run_in(
        self,
        tx: &mut DbTx,
        lab: &LabId,
        key: &IdempotencyKey,
        stored: &StoredResponse,
    ) -> sqlx::Result<()> {
        with_tx!(tx, |conn| {
            bind_answer!(sqlx::query(self.0), stored, lab, key)
                .execute(conn)
                .await?;
        });
        Ok(())
    }
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
