//! One HTTP attempt of a run, as the client saw it: when it went, when it
//! ended and what it got back.

use serde::{Deserialize, Serialize};

/// What one attempt got back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// `201`: this attempt created the order.
    Created,
    /// `201` with `Idempotent-Replayed: true`: the stored answer of an earlier attempt.
    Replayed,
    /// `409`: an earlier attempt with the same key was still running.
    InProgress,
    /// Any other status, with the problem's `type` if there was one.
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The problem+json `type`, e.g. `/problems/idempotency-key-reused`;
        /// empty when the answer had no problem body. The page says what it
        /// means in the learner's language (the `title` is the API's English).
        problem: String,
    },
    /// The server hung up on purpose after doing the work (`Lab-Fault: drop-response`).
    Dropped,
    /// The server crashed on purpose after creating the order (`Lab-Fault: crash-after-create`).
    Crashed,
    /// The client stopped waiting: its timeout ran out first.
    TimedOut,
    /// The connection failed for another reason.
    NetworkError(String),
    /// `200` to a `GET /orders`: the server held this many orders.
    Read {
        /// How many orders the answer listed (at most a lab's million).
        orders: usize,
    },
}

impl Outcome {
    /// Reads a response's status and `Idempotent-Replayed` header.
    pub fn from_status(status: u16, replayed: bool, problem: Option<String>) -> Self {
        match (status, replayed) {
            (201, false) => Self::Created,
            (201, true) => Self::Replayed,
            // A 409 is "in progress" unless its problem says what else it is
            // (a full lab): only that one is worth retrying.
            (409, _)
                if problem
                    .as_deref()
                    .is_none_or(|kind| kind.ends_with("/request-in-progress")) =>
            {
                Self::InProgress
            }
            _ => Self::Rejected {
                status,
                problem: problem.unwrap_or_default(),
            },
        }
    }

    /// Whether a careful client tries again after this: no answer, or "still running".
    pub fn calls_for_retry(&self) -> bool {
        matches!(
            self,
            Self::InProgress
                | Self::Dropped
                | Self::Crashed
                | Self::TimedOut
                | Self::NetworkError(_)
        )
    }
}

/// One HTTP attempt as it happened, times in ms since the run started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AttemptRecord {
    /// Which copy, from 1.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 255))]
    pub copy: u8,
    /// Which attempt of that copy, from 1.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 255))]
    pub number: u8,
    /// The key it carried.
    pub key: String,
    /// When it was sent.
    pub started_ms: f64,
    /// When it ended, once it has.
    pub ended_ms: Option<f64>,
    /// What it got, once it ended.
    pub outcome: Option<Outcome>,
}

impl AttemptRecord {
    /// How far along the axis `0..span_ms` the attempt starts, and how much
    /// of it it covers, both in percent. A running attempt extends to `now_ms`.
    pub fn bar(&self, span_ms: f64, now_ms: f64) -> (f64, f64) {
        let span = span_ms.max(1.0);
        let end = self.ended_ms.unwrap_or(now_ms).max(self.started_ms);
        // At least a sliver, so an instant answer is still visible.
        let left = (self.started_ms / span * 100.0).clamp(0.0, 99.5);
        let width = ((end - self.started_ms) / span * 100.0)
            .max(0.5)
            .min(100.0 - left);
        (left, width)
    }
}

/// `Outcome` in the OpenAPI document, written out: serde reads one of the
/// words, or an object with exactly one of the other variants' keys, and
/// the derived schema would allow more keys beside it.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Outcome {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Type};
        let integer = |min: i64, max: i64| {
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(min))
                .maximum(Some(max))
        };
        let only = |key: &str, value: ObjectBuilder| {
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .property(key, value)
                .required(key)
                .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        };
        let words = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some([
                "created",
                "replayed",
                "in-progress",
                "dropped",
                "crashed",
                "timed-out",
            ]));
        let rejected = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("status", integer(100, 599))
            .property("problem", ObjectBuilder::new().schema_type(Type::String))
            .required("status")
            .required("problem");
        let read = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("orders", integer(0, 1_000_000))
            .required("orders");
        OneOfBuilder::new()
            .item(words)
            .item(only("rejected", rejected))
            .item(only(
                "network-error",
                ObjectBuilder::new().schema_type(Type::String),
            ))
            .item(only("read", read))
            .description(Some("What one attempt got back"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Outcome {}
