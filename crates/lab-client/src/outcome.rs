//! The outcome of one HTTP attempt, as the client saw it.

/// What one attempt got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `201`: this attempt created the order.
    Created,
    /// `201` with `Idempotent-Replayed: true`: the stored answer of an earlier attempt.
    Replayed,
    /// `409`: an earlier attempt with the same key was still running.
    InProgress,
    /// Any other status, with the problem's title if there was one.
    Rejected {
        /// The HTTP status.
        status: u16,
        /// What the server said, in short.
        title: String,
    },
    /// The server hung up on purpose after doing the work (`Lab-Fault: drop-response`).
    Dropped,
    /// The server crashed on purpose after creating the order (`Lab-Fault: crash-after-create`).
    Crashed,
    /// The client stopped waiting: its timeout ran out first.
    TimedOut,
    /// The connection failed for another reason.
    NetworkError(String),
}

impl Outcome {
    /// Reads a response's status and `Idempotent-Replayed` header.
    pub fn from_status(status: u16, replayed: bool, title: Option<String>) -> Self {
        match (status, replayed) {
            (201, false) => Self::Created,
            (201, true) => Self::Replayed,
            (409, _) => Self::InProgress,
            _ => Self::Rejected {
                status,
                title: title.unwrap_or_default(),
            },
        }
    }

    /// A short label for the timeline: `201`, `201 replayed`, `409`, `dropped`, …
    pub fn label(&self) -> String {
        match self {
            Self::Created => "201".to_owned(),
            Self::Replayed => "201 replayed".to_owned(),
            Self::InProgress => "409".to_owned(),
            Self::Rejected { status, title } if title.is_empty() => status.to_string(),
            Self::Rejected { status, title } => format!("{status} {title}"),
            Self::Dropped => "dropped".to_owned(),
            Self::Crashed => "server crashed".to_owned(),
            Self::TimedOut => "timed out".to_owned(),
            Self::NetworkError(_) => "network error".to_owned(),
        }
    }

    /// What the label means, for people who do not read status codes.
    pub fn meaning(&self) -> &'static str {
        match self {
            Self::Created => "created the order",
            Self::Replayed => "got the stored answer of an earlier attempt",
            Self::InProgress => "an earlier attempt was still running: try again",
            Self::Rejected { .. } => "refused",
            Self::Dropped => "the server did the work, but the answer was lost",
            Self::Crashed => "the server stopped after writing the order, before saving its answer",
            Self::TimedOut => "the client stopped waiting",
            Self::NetworkError(_) => "the request failed on the way",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replayed_201_is_told_apart_from_a_fresh_one() {
        assert_eq!(Outcome::from_status(201, false, None), Outcome::Created);
        assert_eq!(Outcome::from_status(201, true, None), Outcome::Replayed);
        assert_eq!(Outcome::Replayed.label(), "201 replayed");
    }

    #[test]
    fn other_statuses_keep_the_problem_title() {
        let outcome = Outcome::from_status(422, false, Some("Invalid order".into()));
        assert_eq!(outcome.label(), "422 Invalid order");
        assert_eq!(Outcome::from_status(409, false, None).label(), "409");
    }

    #[test]
    fn only_missing_answers_and_409_call_for_a_retry() {
        assert!(Outcome::TimedOut.calls_for_retry());
        assert!(Outcome::Dropped.calls_for_retry());
        assert!(Outcome::InProgress.calls_for_retry());
        assert!(!Outcome::Created.calls_for_retry());
        assert!(!Outcome::Replayed.calls_for_retry());
        assert!(!Outcome::from_status(422, false, None).calls_for_retry());
    }
}
