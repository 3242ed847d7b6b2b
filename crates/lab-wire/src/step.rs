//! The steps a server reports while it handles one `POST /orders`. The
//! servers stream them to the page (`GET /steps`, Server-Sent Events) so a
//! learner sees how racing requests interleave instead of being told.

use serde::{Deserialize, Serialize};

/// One step of one request, as a server took it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Step {
    /// Its place among every step this server reported: the diagram's row order.
    pub seq: u64,
    /// Which request took it, numbered by the server in order of arrival (1, 2, …).
    pub request: u64,
    /// The request's idempotency key.
    pub key: String,
    /// When, in microseconds since the Unix epoch, by the server's clock.
    pub at_us: i64,
    /// What happened.
    pub kind: StepKind,
}

/// The SSE event name of [`StepsMissed`] on a `/steps` stream.
pub const STEPS_MISSED_EVENT: &str = "missed";

/// Sent on a `/steps` stream (as the event [`STEPS_MISSED_EVENT`]) when its
/// listener fell so far behind that some steps were dropped: what the page
/// draws from the stream is incomplete from here on, and says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StepsMissed {
    /// The name of the events that lost steps (on the combined stream, the
    /// server's name; on one server's stream, `step`).
    pub of: String,
    /// How many steps were dropped.
    pub missed: u64,
}

/// What a request found when it looked its key up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum KeyFound {
    /// No live key: never used, or expired.
    Nothing,
    /// A saved answer to replay.
    Answer,
    /// A claim whose request has not answered yet.
    InProgress,
}

/// The kinds of step, in roughly the order a request takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum StepKind {
    /// The key was looked up (a read: it decides nothing on its own).
    KeyLookedUp {
        /// What the look-up found.
        found: KeyFound,
    },
    /// The slow part began (`Lab-Delay-Ms`, a slow payment provider).
    SlowPartStarted {
        /// How long it takes.
        ms: u64,
    },
    /// A database transaction was opened.
    TransactionBegun,
    /// The key was inserted: this request claimed it.
    KeyClaimed,
    /// Inserting the key hit the UNIQUE constraint: another request has it.
    KeyConflict,
    /// An unanswered claim whose lock had run out was taken over.
    ClaimTakenOver,
    /// An order was inserted.
    OrderInserted,
    /// Recovery found the order that the claim's crashed request had written.
    OrderRecovered,
    /// The answer was saved with the key, for retries to replay.
    ResponseSaved,
    /// The transaction was committed.
    Committed,
    /// The transaction was rolled back.
    RolledBack,
    /// The claim was deleted after a failure, so a retry can claim it again.
    KeyReleased,
    /// The process "died" here (`Lab-Fault: crash-after-create`): nothing after it ran.
    Crashed,
    /// The work stopped at an `.await` because the client hung up.
    Cancelled,
    /// The server answered with this status.
    Answered {
        /// The HTTP status.
        status: u16,
        /// Whether it was a replay of a saved answer.
        replayed: bool,
    },
    /// The server hung up instead of answering (`Lab-Fault: drop-response`).
    ResponseDropped,
}

impl StepKind {
    /// Whether this step ends the request's story.
    pub fn is_last(&self) -> bool {
        matches!(
            self,
            Self::Crashed | Self::Cancelled | Self::Answered { .. } | Self::ResponseDropped
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_travel_as_tagged_json() {
        let step = Step {
            seq: 7,
            request: 2,
            key: "k".into(),
            at_us: 1,
            kind: StepKind::KeyLookedUp {
                found: KeyFound::Nothing,
            },
        };
        let json = serde_json::to_value(&step).unwrap();
        assert_eq!(json["kind"]["step"], "key-looked-up");
        assert_eq!(json["kind"]["found"], "nothing");
        assert_eq!(serde_json::from_value::<Step>(json).unwrap(), step);
    }
}
