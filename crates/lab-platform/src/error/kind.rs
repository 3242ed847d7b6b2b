//! The problem `type` and `title` of each kind of [`LabError`].

use super::LabError;
use crate::limits::LimitReached;

impl LabError {
    /// The problem `type` slug and `title` for this error.
    pub(super) fn kind(&self) -> (&'static str, &'static str) {
        match self {
            Self::MissingKey => ("missing-idempotency-key", "Idempotency-Key header required"),
            Self::InvalidKey(_) => ("invalid-idempotency-key", "Invalid Idempotency-Key"),
            Self::InvalidLabId(_) => ("invalid-lab-id", "Invalid Lab-Id"),
            Self::InvalidLabSecret(_) => ("invalid-lab-secret", "Invalid Lab-Secret"),
            Self::LabSecretRequired(_) => ("lab-secret-required", "This lab needs its secret"),
            Self::LabSecretMismatch(_) => {
                ("lab-secret-mismatch", "The secret does not open this lab")
            }
            Self::TeacherReadsOnly => ("teacher-reads-only", "The teacher's token only reads"),
            Self::TeacherTokenWrong => ("teacher-token-wrong", "Not the teacher's token"),
            Self::TeacherTokenRequired => {
                ("teacher-token-required", "The teacher's token is needed")
            }
            Self::RunNotFound(_) => ("run-not-found", "No such saved run"),
            Self::InvalidRecord(_) => (
                "invalid-record",
                "Not a run or lesson record the page sends",
            ),
            Self::InvalidAuthorization => ("invalid-authorization", "Invalid Authorization"),
            Self::RepeatedHeader(_) => ("repeated-header", "Header sent more than once"),
            Self::InvalidQuery(_) => ("invalid-query", "Invalid query string"),
            Self::InvalidDelay(_) => ("invalid-lab-delay", "Invalid Lab-Delay-Ms"),
            Self::InvalidRetention(_) => {
                ("invalid-key-retention", "Invalid Lab-Key-Retention-Secs")
            }
            Self::InvalidLockTimeout(_) => {
                ("invalid-lock-timeout", "Invalid Lab-Lock-Timeout-Secs")
            }
            Self::InvalidCancellation(_) => {
                ("invalid-lab-cancellation", "Invalid Lab-Cancellation")
            }
            Self::InvalidMissingKey(_) => ("invalid-lab-missing-key", "Invalid Lab-Missing-Key"),
            Self::UnknownFault(_) => ("unknown-lab-fault", "Unknown Lab-Fault"),
            Self::InvalidSideEffects(_) => ("invalid-lab-side-effects", "Invalid Lab-Side-Effects"),
            Self::InvalidFencing(_) => ("invalid-lab-fencing", "Invalid Lab-Fencing"),
            Self::FaultNeedsSideEffects(_) => (
                "fault-needs-side-effects",
                "This fault needs Lab-Side-Effects",
            ),
            Self::SideEffectsUnavailable => (
                "side-effects-unavailable",
                "No payment provider or mail sink here",
            ),
            Self::NoCallsOutside(_) => (
                "no-calls-outside",
                "This design makes no calls outside its statement",
            ),
            Self::OutsideKeyWrong => ("outside-key-wrong", "Not the shops' API key"),
            Self::WebhookSignature(_) => (
                "webhook-signature-invalid",
                "The webhook's signature does not hold",
            ),
            Self::ProviderFailed(_) => (
                "payment-provider-failed",
                "The payment provider did not answer",
            ),
            Self::MailFailed(_) => ("mail-sink-failed", "The mail sink did not answer"),
            Self::ClaimLost => ("claim-lost", "This request lost its claim"),
            Self::UnsupportedMediaType => ("unsupported-media-type", "Body must be JSON"),
            Self::BodyTooLarge(_) => ("body-too-large", "Request body too large"),
            Self::UnreadableBody(_) => ("unreadable-body", "Request body could not be read"),
            Self::MalformedJson(_) => ("malformed-json", "Malformed JSON"),
            Self::InvalidOrder(_) => ("invalid-order", "Invalid order"),
            Self::NoSuchReceiver(_) => ("no-such-receiver", "No such receiver"),
            Self::InvalidEvent(_) => ("invalid-event", "Not an event the receiver takes"),
            Self::KeyReused => (
                "idempotency-key-reused",
                "Idempotency-Key reused for a different request",
            ),
            Self::KeyInFlight => ("request-in-progress", "Request with this key in progress"),
            Self::OrdersLimit(_) => ("lab-orders-limit", "This lab holds all the orders it may"),
            Self::Limit(LimitReached::Requests { .. }) => (
                "lab-requests-limit",
                "Too many requests in progress in this lab",
            ),
            Self::Limit(LimitReached::Delay { .. }) => {
                ("lab-delay-limit", "Too much delay in progress in this lab")
            }
            Self::Limit(LimitReached::LabStreams { .. }) => (
                "lab-streams-limit",
                "Too many step streams open in this lab",
            ),
            Self::Limit(LimitReached::AllStreams { .. }) => {
                ("server-busy", "The server is at its limit of step streams")
            }
            Self::RequestTimedOut(_) => ("request-timed-out", "No answer in time"),
            Self::Schedule(refused) => refused.kind(),
            Self::NotFound => ("not-found", "Not found"),
            Self::SimulatedError(_) => ("simulated-error", "The work failed on purpose"),
            Self::MethodNotAllowed => ("method-not-allowed", "Method not allowed"),
            Self::Storage(_)
            | Self::Migration(_)
            | Self::Connect { .. }
            | Self::UnsupportedDatabaseUrl(_)
            | Self::Bind { .. }
            | Self::SimulatedCrash
            | Self::WorkerFailed(_) => ("internal", "Internal server error"),
        }
    }
}
