//! The steps a server reports while it handles one `POST /orders`. The
//! servers stream them to the page (`GET /steps`, Server-Sent Events) so a
//! learner sees how racing requests interleave instead of being told.

use serde::{Deserialize, Serialize};

use crate::schedule::{BlockedOn, Gate};

/// One step of one request, as a server took it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Step {
    /// Its place among every step this server reported: the diagram's row order.
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)
    )]
    pub seq: u64,
    /// Which request took it, numbered by the server in order of arrival (1, 2, …).
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)
    )]
    pub request: u64,
    /// The request's idempotency key.
    pub key: String,
    /// When, in microseconds since the Unix epoch, by the server's clock.
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = -9_007_199_254_740_991_i64, maximum = 9_007_199_254_740_991_i64)
    )]
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
#[serde(tag = "step", rename_all = "kebab-case", try_from = "FlatStepKind")]
pub enum StepKind {
    /// The key was looked up (a read: it decides nothing on its own).
    KeyLookedUp {
        /// What the look-up found.
        found: KeyFound,
    },
    /// The slow part began (`Lab-Delay-Ms`, a slow payment provider).
    SlowPartStarted {
        /// How long it takes.
        #[cfg_attr(
            feature = "openapi",
            schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)
        )]
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
    /// The key was claimed, the order inserted and the answer saved by one
    /// statement (on SQLite, one transaction): all three, or none.
    ClaimedAndOrdered,
    /// Recovery found the order that the claim's crashed request had written.
    OrderRecovered,
    /// The payment provider charged the card (or, for a key it had
    /// charged for before, answered with that charge).
    CardCharged {
        /// Whether the provider answered with an earlier charge.
        replayed: bool,
    },
    /// The payment provider gave no proper answer: it may have charged.
    ChargeFailed,
    /// The confirmation e-mail went out, from inside the request.
    EmailSent,
    /// The confirmation e-mail was staged in the outbox, for the enqueuer.
    EmailQueued,
    /// The request's claim had been taken over: its late write was refused.
    FencedOut,
    /// The answer was saved with the key, for retries to replay.
    ResponseSaved,
    /// The transaction was committed.
    Committed,
    /// The transaction was rolled back.
    RolledBack,
    /// The claim was let go after a failure, so a retry can take it over at once.
    KeyReleased,
    /// The process "died" here (`Lab-Fault: crash-after-create` or
    /// `crash-after-charge`): nothing after it ran.
    Crashed,
    /// The work stopped at an `.await` because the client hung up.
    Cancelled,
    /// The server answered with this status.
    Answered {
        /// The HTTP status.
        #[cfg_attr(feature = "openapi", schema(minimum = 100, maximum = 599))]
        status: u16,
        /// Whether it was a replay of a saved answer.
        replayed: bool,
    },
    /// The server hung up instead of answering (`Lab-Fault: drop-response`).
    ResponseDropped,
    /// A scheduled request (`Lab-Schedule`) stopped at a gate: it waits to
    /// be released before doing `next`.
    AtGate {
        /// What it will do once released.
        next: Gate,
    },
    /// A scheduled request, released, cannot finish its statement until
    /// another request lets go of what it holds.
    Blocked {
        /// What it waits for.
        on: BlockedOn,
        /// The request that holds it, if it is one of its schedule's copies.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        #[cfg_attr(
            feature = "openapi",
            schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)
        )]
        by: Option<u64>,
    },
}

/// A step kind as it arrives: its tag and the fields of every kind, flat.
/// [`StepKind`] is read through this instead of serde's own reading of an
/// internally tagged enum, which buffers each event into a generic tree
/// first: 12 KB of the page's wasm (measured with twiggy), this about 3.
/// What is written is unchanged.
#[derive(Deserialize)]
struct FlatStepKind {
    step: String,
    found: Option<KeyFound>,
    ms: Option<u64>,
    status: Option<u16>,
    replayed: Option<bool>,
    next: Option<Gate>,
    on: Option<BlockedOn>,
    by: Option<u64>,
}

impl TryFrom<FlatStepKind> for StepKind {
    type Error = String;

    fn try_from(flat: FlatStepKind) -> Result<Self, Self::Error> {
        let missing = |field: &str| format!("a {:?} step needs {field:?}", flat.step);
        Ok(match flat.step.as_str() {
            "key-looked-up" => Self::KeyLookedUp {
                found: flat.found.ok_or_else(|| missing("found"))?,
            },
            "slow-part-started" => Self::SlowPartStarted {
                ms: flat.ms.ok_or_else(|| missing("ms"))?,
            },
            "transaction-begun" => Self::TransactionBegun,
            "key-claimed" => Self::KeyClaimed,
            "key-conflict" => Self::KeyConflict,
            "claim-taken-over" => Self::ClaimTakenOver,
            "order-inserted" => Self::OrderInserted,
            "claimed-and-ordered" => Self::ClaimedAndOrdered,
            "order-recovered" => Self::OrderRecovered,
            "card-charged" => Self::CardCharged {
                replayed: flat.replayed.ok_or_else(|| missing("replayed"))?,
            },
            "charge-failed" => Self::ChargeFailed,
            "email-sent" => Self::EmailSent,
            "email-queued" => Self::EmailQueued,
            "fenced-out" => Self::FencedOut,
            "response-saved" => Self::ResponseSaved,
            "committed" => Self::Committed,
            "rolled-back" => Self::RolledBack,
            "key-released" => Self::KeyReleased,
            "crashed" => Self::Crashed,
            "cancelled" => Self::Cancelled,
            "answered" => Self::Answered {
                status: flat.status.ok_or_else(|| missing("status"))?,
                replayed: flat.replayed.ok_or_else(|| missing("replayed"))?,
            },
            "response-dropped" => Self::ResponseDropped,
            "at-gate" => Self::AtGate {
                next: flat.next.ok_or_else(|| missing("next"))?,
            },
            "blocked" => Self::Blocked {
                on: flat.on.ok_or_else(|| missing("on"))?,
                by: flat.by,
            },
            other => return Err(format!("unknown step {other:?}")),
        })
    }
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

    /// One of each kind; the match below has no wildcard, so a new kind
    /// does not compile until it is named there, and then here.
    fn every_kind() -> Vec<StepKind> {
        use StepKind::*;
        let kinds = vec![
            KeyLookedUp {
                found: KeyFound::InProgress,
            },
            SlowPartStarted { ms: 300 },
            TransactionBegun,
            KeyClaimed,
            KeyConflict,
            ClaimTakenOver,
            OrderInserted,
            ClaimedAndOrdered,
            OrderRecovered,
            CardCharged { replayed: true },
            ChargeFailed,
            EmailSent,
            EmailQueued,
            FencedOut,
            ResponseSaved,
            Committed,
            RolledBack,
            KeyReleased,
            Crashed,
            Cancelled,
            Answered {
                status: 201,
                replayed: true,
            },
            ResponseDropped,
            AtGate {
                next: Gate::InsertOrder,
            },
            Blocked {
                on: BlockedOn::Database,
                by: Some(3),
            },
            Blocked {
                on: BlockedOn::ServerLock,
                by: None,
            },
        ];
        for kind in &kinds {
            match kind {
                KeyLookedUp { .. }
                | SlowPartStarted { .. }
                | TransactionBegun
                | KeyClaimed
                | KeyConflict
                | ClaimTakenOver
                | OrderInserted
                | ClaimedAndOrdered
                | OrderRecovered
                | CardCharged { .. }
                | ChargeFailed
                | EmailSent
                | EmailQueued
                | FencedOut
                | ResponseSaved
                | Committed
                | RolledBack
                | KeyReleased
                | Crashed
                | Cancelled
                | Answered { .. }
                | ResponseDropped
                | AtGate { .. }
                | Blocked { .. } => {}
            }
        }
        kinds
    }

    #[test]
    fn every_kind_of_step_is_read_back_as_it_was_written() {
        for kind in every_kind() {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(
                serde_json::from_str::<StepKind>(&json).unwrap(),
                kind,
                "{json}"
            );
        }
    }

    #[test]
    fn an_unknown_step_or_a_missing_field_is_an_error_not_a_guess() {
        for bad in [
            r#"{"step":"teleported"}"#,
            r#"{"step":"key-looked-up"}"#,
            r#"{"step":"answered","status":201}"#,
            r#"{"found":"nothing"}"#,
            r#"{"step":"at-gate"}"#,
            r#"{"step":"blocked","by":1}"#,
        ] {
            assert!(serde_json::from_str::<StepKind>(bad).is_err(), "{bad}");
        }
    }
}
