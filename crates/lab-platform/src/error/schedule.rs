//! Why a schedule (`POST /schedules`, `Lab-Schedule`) or an exploration
//! (`POST /explorations`: every schedule, run by the server) refused what
//! was asked of it. A schedule holds requests at their gates and an
//! exploration runs hundreds of them, so both are a lab's resources like
//! its requests in progress: each limit here is a boundary between the
//! labs of a room, answered with a 4xx that says what to do instead.

use axum::http::StatusCode;

/// A schedule's refusal; becomes [`crate::LabError::Schedule`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleRefused {
    /// `Lab-Schedule` names no open schedule of the request's lab.
    #[error(
        "Lab-Schedule {0:?} names no open schedule of this lab: make one with POST /schedules and send the id it returns (a schedule nobody uses for a while is closed)"
    )]
    UnknownOnRequest(String),
    /// A schedule's route names no open schedule of the lab.
    #[error(
        "this lab has no open schedule {0:?}: it was deleted, left unused too long, or made in another lab"
    )]
    NotFound(String),
    /// The schedule already holds as many copies as it may.
    #[error(
        "schedule {id} already holds {copies} copies, the most one may: make another schedule for more"
    )]
    Full {
        /// The schedule's id.
        id: String,
        /// How many copies it holds.
        copies: usize,
    },
    /// The lab holds as many open schedules as it may.
    #[error(
        "this lab has {0} open schedules, the most it may: delete one (DELETE /schedules/ID) and try again"
    )]
    TooMany(usize),
    /// The server holds as many schedules, over every lab, as it may.
    #[error("the server holds as many schedules as it may; try again in a minute")]
    ServerFull,
    /// A release named a copy that is not waiting at a gate.
    #[error(
        "copy {copy} is not waiting at a gate ({state}): release a copy whose state is at-gate"
    )]
    NotAtGate {
        /// The copy named.
        copy: u8,
        /// Where it stands instead, in words.
        state: &'static str,
    },
    /// The lab already runs an exploration.
    #[error(
        "this lab already runs exploration {0}, and one lab runs one at a time: wait for it to finish (GET /explorations/{0}) or stop it (DELETE /explorations/{0})"
    )]
    Exploring(String),
    /// The server runs as many explorations, over every lab, as it may.
    #[error(
        "the server already runs {0} explorations, the most it runs at once; try again in a minute"
    )]
    ExplorationsFull(usize),
    /// An exploration's route names no exploration of the lab on this design.
    #[error(
        "this lab has no exploration {0:?} on this design: it was stopped, replaced by a newer one, kept too long, or made in another lab"
    )]
    ExplorationNotFound(String),
    /// The server cannot reach itself, so it cannot run schedules.
    #[error(
        "this server was started without knowing its own address, so it cannot run an exploration; use `idempotency-lab explore`"
    )]
    CannotExplore,
}

impl ScheduleRefused {
    /// The HTTP status of this refusal.
    pub fn status(&self) -> StatusCode {
        match self {
            // As Stripe answers an id in a request that names nothing: the
            // request is well formed, what it names does not exist.
            Self::UnknownOnRequest(_) | Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Full { .. } | Self::NotAtGate { .. } => StatusCode::CONFLICT,
            Self::TooMany(_) | Self::Exploring(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::ServerFull | Self::ExplorationsFull(_) | Self::CannotExplore => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::ExplorationNotFound(_) => StatusCode::NOT_FOUND,
        }
    }

    /// The problem `type` slug and `title`.
    pub fn kind(&self) -> (&'static str, &'static str) {
        match self {
            Self::UnknownOnRequest(_) => ("unknown-schedule", "No such schedule in this lab"),
            Self::NotFound(_) => ("schedule-not-found", "No such schedule in this lab"),
            Self::Full { .. } => ("schedule-full", "This schedule holds all the copies it may"),
            Self::TooMany(_) => (
                "lab-schedules-limit",
                "This lab holds all the schedules it may",
            ),
            Self::ServerFull => (
                "server-schedules-limit",
                "The server holds all the schedules it may",
            ),
            Self::NotAtGate { .. } => ("copy-not-at-gate", "This copy is not waiting at a gate"),
            Self::Exploring(_) => (
                "lab-exploration-limit",
                "This lab already runs an exploration",
            ),
            Self::ExplorationsFull(_) => (
                "server-explorations-limit",
                "The server runs all the explorations it may",
            ),
            Self::ExplorationNotFound(_) => {
                ("exploration-not-found", "No such exploration in this lab")
            }
            Self::CannotExplore => (
                "explorations-unavailable",
                "This server cannot run explorations",
            ),
        }
    }

    /// How many seconds a client should wait before asking again, where
    /// waiting helps.
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Self::TooMany(_) | Self::ServerFull | Self::ExplorationsFull(_) => Some(60),
            // An exploration of two copies takes seconds.
            Self::Exploring(_) => Some(5),
            _ => None,
        }
    }

    /// One of each, for the catalogue.
    pub fn one_of_each() -> [Self; 10] {
        [
            Self::UnknownOnRequest(String::new()),
            Self::NotFound(String::new()),
            Self::Full {
                id: String::new(),
                copies: 0,
            },
            Self::TooMany(0),
            Self::ServerFull,
            Self::NotAtGate {
                copy: 1,
                state: "running",
            },
            Self::Exploring(String::new()),
            Self::ExplorationsFull(0),
            Self::ExplorationNotFound(String::new()),
            Self::CannotExplore,
        ]
    }
}
