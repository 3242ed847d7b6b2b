//! The one error type of every lab service (order servers, the outside
//! services, the workshop), and how each error becomes an RFC 9457
//! `application/problem+json` response. Client mistakes are 4xx with a
//! detail that says what to fix; server faults are 500s whose detail hides
//! internals (they are logged instead).

use axum::http::StatusCode;
use lab_wire::{InvalidKey, InvalidLabId, InvalidLabSecret, LabId, Problem};

use crate::limits::LimitReached;

/// Everything that can go wrong while serving the lab.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// `POST /orders` without an `Idempotency-Key` header.
    #[error(
        "this endpoint needs an Idempotency-Key header: generate one key (a UUID) per order, before the first attempt, and send it on every retry"
    )]
    MissingKey,
    /// The key header is present but not a usable key.
    #[error("{0}")]
    InvalidKey(#[from] InvalidKey),
    /// The `Lab-Id` header is not a usable lab id.
    #[error("{0}")]
    InvalidLabId(#[from] InvalidLabId),
    /// The `Lab-Secret` header is not a usable secret.
    #[error("{0}")]
    InvalidLabSecret(#[from] InvalidLabSecret),
    /// The request names a lab (not the public `default`) without its secret.
    #[error(
        "lab {0} is private: send its Lab-Secret header (the page keeps it in the lab's link), or send no Lab-Id to use the public default lab"
    )]
    LabSecretRequired(LabId),
    /// `Lab-Secret` opens another lab than the `Lab-Id` sent with it.
    #[error(
        "this Lab-Secret does not open lab {0}; send the lab's own secret, or leave Lab-Id out: the secret alone names its lab"
    )]
    LabSecretMismatch(LabId),
    /// The teacher's token was offered to change a lab.
    #[error(
        "the teacher's token reads any lab but changes none; placing or clearing orders takes the lab's own Lab-Secret"
    )]
    TeacherReadsOnly,
    /// A bearer token that is not the teacher's.
    #[error("this is not the teacher's token (the lab prints it when it starts)")]
    TeacherTokenWrong,
    /// A teacher's route asked for without the teacher's token, or with another.
    #[error(
        "this is the teacher's: send the token the lab printed when it started (Authorization: Bearer TOKEN, or ?token=TOKEN for the page)"
    )]
    TeacherTokenRequired,
    /// No saved run has this id (it never existed, or it has expired).
    #[error(
        "no saved run has the id {0:?}: it may have expired (runs are kept for a while, then deleted)"
    )]
    RunNotFound(String),
    /// A saved run or lesson progress that is not what the page sends.
    #[error("{0}")]
    InvalidRecord(String),
    /// An `Authorization` header that is not `Bearer TOKEN`.
    #[error("the Authorization header must be \"Bearer\" and the teacher's token")]
    InvalidAuthorization,
    /// A header that must appear at most once appeared several times.
    #[error("send the {0} header once; this request has it several times")]
    RepeatedHeader(&'static str),
    /// The query string is not what the route takes.
    #[error("the query string is not valid here: {0}")]
    InvalidQuery(String),
    /// `Lab-Delay-Ms` is not a whole number of milliseconds in range.
    #[error("Lab-Delay-Ms must be a whole number from 0 to 10000, not {0:?}")]
    InvalidDelay(String),
    /// `Lab-Cancellation` is neither `finish` nor `on-disconnect`.
    #[error("Lab-Cancellation must be \"finish\" or \"on-disconnect\", not {0:?}")]
    InvalidCancellation(String),
    /// `Lab-Missing-Key` is neither `refuse` nor `create`.
    #[error("Lab-Missing-Key must be \"refuse\" or \"create\", not {0:?}")]
    InvalidMissingKey(String),
    /// `Lab-Lock-Timeout-Secs` is not a whole number of seconds in range.
    #[error("Lab-Lock-Timeout-Secs must be a whole number of seconds from 1 to 3600, not {0:?}")]
    InvalidLockTimeout(String),
    /// `Lab-Key-Retention-Secs` is not a whole number of seconds in range.
    #[error(
        "Lab-Key-Retention-Secs must be a whole number of seconds from 1 to 2592000 (30 days), not {0:?}"
    )]
    InvalidRetention(String),
    /// `Lab-Fault` names no fault the lab knows.
    #[error(
        "Lab-Fault {0:?} is unknown; the known faults are \"drop-response\", \"crash-after-create\", \"crash-after-charge\", \"provider-timeout\", \"error-before-create\" and \"error-after-create\""
    )]
    UnknownFault(String),
    /// `Lab-Side-Effects` is neither `none` nor `charge-and-email`.
    #[error("Lab-Side-Effects must be \"none\" or \"charge-and-email\", not {0:?}")]
    InvalidSideEffects(String),
    /// `Lab-Fencing` is neither `off` nor `on`.
    #[error("Lab-Fencing must be \"off\" or \"on\", not {0:?}")]
    InvalidFencing(String),
    /// A fault that strikes the charge, asked for without side effects.
    #[error(
        "Lab-Fault: {0} strikes the card's charge: send Lab-Side-Effects: charge-and-email with it, or there is no charge"
    )]
    FaultNeedsSideEffects(&'static str),
    /// Side effects asked of a server run alone, without the outside services.
    #[error(
        "this server runs alone, without the lab's payment provider and mail sink: Lab-Side-Effects needs the whole lab (cargo xtask run)"
    )]
    SideEffectsUnavailable,
    /// Side effects asked of the one-trip server: a call outside is not in its statement.
    #[error(
        "the {0} server writes the claim, the order and the answer in one statement and makes no call outside it: send Lab-Side-Effects to another design (the phased server charges and e-mails safely)"
    )]
    NoCallsOutside(&'static str),
    /// A call to the provider or the mail sink without the shops' API key.
    #[error(
        "the payment provider and the mail sink serve the lab's shops only: send their API key (Authorization: Bearer sk_lab_…)"
    )]
    OutsideKeyWrong,
    /// The payment provider gave no proper answer.
    #[error(
        "the payment provider did not answer properly ({0}); it may have charged the card. Retry with the same Idempotency-Key"
    )]
    ProviderFailed(String),
    /// The mail sink gave no proper answer.
    #[error(
        "the mail sink did not answer properly ({0}); the e-mail may have gone out. Retry with the same Idempotency-Key"
    )]
    MailFailed(String),
    /// The request's claim was taken over while it worked, and fencing
    /// refused its late write.
    #[error(
        "this request's claim on its key ran out while it worked and a retry took it over; its late write was refused (fencing). The retry's answer counts: retry with the same Idempotency-Key to get it"
    )]
    ClaimLost,
    /// A webhook delivery whose signature does not hold (or is missing).
    #[error("{0}")]
    WebhookSignature(String),
    /// A receiver's path names no receiver.
    #[error("the lab has no receiver called {0:?}: its receivers are naive and inbox")]
    NoSuchReceiver(String),
    /// A signed webhook whose body is not an event the receiver takes.
    #[error("the event is not valid: {0}")]
    InvalidEvent(String),
    /// The body is not declared as JSON.
    #[error("the body must be JSON, sent with Content-Type: application/json")]
    UnsupportedMediaType,
    /// The body is larger than the server reads there (in bytes).
    #[error("the body is larger than {} KiB, the most this request may send", .0 / 1024)]
    BodyTooLarge(usize),
    /// The body could not be read off the connection.
    #[error("the request body could not be read: {0}")]
    UnreadableBody(String),
    /// The body is not well-formed JSON.
    #[error("the body is not valid JSON: {0}")]
    MalformedJson(String),
    /// Well-formed JSON that is not a valid order.
    #[error("the order is not valid: {0}")]
    InvalidOrder(String),
    /// The key was first used for a request with a different body.
    #[error(
        "this Idempotency-Key was already used for a different request (another body); a key belongs to one request: make a new key for a new order"
    )]
    KeyReused,
    /// An earlier request with the same key is still being processed.
    #[error(
        "a request with this Idempotency-Key is still being processed; retry after it finishes to get its response"
    )]
    KeyInFlight,
    /// The lab holds as many orders on this server as it may.
    #[error(
        "this lab already holds {0} orders on this server, the most it may; clear them (DELETE /orders) to place more"
    )]
    OrdersLimit(u32),
    /// The lab (or the whole server) holds as much as it may at once.
    #[error("{0}")]
    Limit(#[from] LimitReached),
    /// The answer was not ready by the request deadline.
    #[error(
        "the server did not answer within {0} s; the order work goes on, so retry with the same Idempotency-Key to get its answer"
    )]
    RequestTimedOut(u64),
    /// No route matches the path.
    #[error("there is nothing at this path; the lab serves /orders")]
    NotFound,
    /// The path exists but not for this method.
    #[error("this method is not allowed here; /orders takes POST, GET and DELETE")]
    MethodNotAllowed,
    /// The database refused or failed a query.
    #[error("storage error: {0}")]
    Storage(#[from] sqlx::Error),
    /// A migration could not be applied.
    #[error("migration error: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// The database at `url` could not be reached.
    #[error("cannot connect to {url}: {source}")]
    Connect {
        /// The URL, password hidden.
        url: String,
        /// What the driver said.
        source: sqlx::Error,
    },
    /// The database URL names neither SQLite nor PostgreSQL.
    #[error("unsupported database URL {0}: use sqlite://FILE or postgres://…")]
    UnsupportedDatabaseUrl(String),
    /// The listening address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why the operating system refused.
        source: std::io::Error,
    },
    /// A simulated crash (`Lab-Fault: crash-after-create` or
    /// `crash-after-charge`, or a schedule's crash): no answer is sent.
    #[error("simulated crash (a Lab-Fault, or a schedule's): no answer is sent")]
    SimulatedCrash,
    /// `Lab-Fault: error-before-create` or `error-after-create`: the
    /// server's own code failed on purpose and answers 500; the process lives.
    #[error("the server's work failed on purpose (Lab-Fault: {0})")]
    SimulatedError(&'static str),
    /// The task doing the order work panicked or was aborted.
    #[error("the order work stopped unexpectedly: {0}")]
    WorkerFailed(String),
    /// A schedule refused (see [`ScheduleRefused`]).
    #[error("{0}")]
    Schedule(#[from] ScheduleRefused),
}

impl LabError {
    /// The HTTP status this error answers with.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::MissingKey
            | Self::InvalidKey(_)
            | Self::InvalidLabId(_)
            | Self::InvalidLabSecret(_)
            | Self::InvalidAuthorization
            | Self::RepeatedHeader(_)
            | Self::InvalidQuery(_)
            | Self::InvalidDelay(_)
            | Self::InvalidRetention(_)
            | Self::InvalidLockTimeout(_)
            | Self::InvalidCancellation(_)
            | Self::InvalidMissingKey(_)
            | Self::UnknownFault(_)
            | Self::InvalidSideEffects(_)
            | Self::InvalidFencing(_)
            | Self::FaultNeedsSideEffects(_)
            | Self::SideEffectsUnavailable
            | Self::NoCallsOutside(_)
            | Self::UnreadableBody(_)
            | Self::MalformedJson(_) => StatusCode::BAD_REQUEST,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::InvalidOrder(_)
            | Self::KeyReused
            | Self::InvalidRecord(_)
            | Self::InvalidEvent(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::TeacherTokenRequired | Self::OutsideKeyWrong | Self::WebhookSignature(_) => {
                StatusCode::UNAUTHORIZED
            }
            Self::ProviderFailed(_) | Self::MailFailed(_) => StatusCode::BAD_GATEWAY,
            Self::RunNotFound(_) | Self::NoSuchReceiver(_) => StatusCode::NOT_FOUND,
            Self::KeyInFlight | Self::OrdersLimit(_) | Self::ClaimLost => StatusCode::CONFLICT,
            Self::LabSecretRequired(_)
            | Self::LabSecretMismatch(_)
            | Self::TeacherReadsOnly
            | Self::TeacherTokenWrong => StatusCode::FORBIDDEN,
            Self::Limit(limit) if limit.is_server_wide() => StatusCode::SERVICE_UNAVAILABLE,
            Self::Limit(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::RequestTimedOut(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Schedule(refused) => refused.status(),
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Storage(_)
            | Self::Migration(_)
            | Self::Connect { .. }
            | Self::UnsupportedDatabaseUrl(_)
            | Self::Bind { .. }
            | Self::SimulatedCrash
            | Self::SimulatedError(_)
            | Self::WorkerFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The problem details body for this error.
    pub fn problem(&self) -> Problem {
        let status = self.status();
        let (slug, title) = self.kind();
        let detail = if matches!(self, Self::SimulatedError(_)) {
            // Asked for, so nothing to hide: say so, or it reads as a real fault.
            self.to_string()
        } else if status == StatusCode::INTERNAL_SERVER_ERROR {
            // The cause may hold SQL, paths or URLs: it goes to the log, not to the client.
            "the server failed while handling this request; its log has the cause. Try again later"
                .to_owned()
        } else {
            self.to_string()
        };
        Problem {
            kind: format!("/problems/{slug}"),
            title: title.to_owned(),
            status: status.as_u16(),
            detail,
        }
    }
}

pub mod catalogue;
mod kind;
pub mod response;
mod schedule;

pub use schedule::ScheduleRefused;

#[cfg(test)]
mod tests;
