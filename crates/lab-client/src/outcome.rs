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
    /// No response at all: the connection closed, or the network failed.
    NoResponse(String),
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

    /// A short label for a list of attempts, e.g. `201 replayed`.
    pub fn label(&self) -> String {
        match self {
            Self::Created => "201 created".to_owned(),
            Self::Replayed => "201 replayed".to_owned(),
            Self::InProgress => "409 still in progress".to_owned(),
            Self::Rejected { status, title } if title.is_empty() => format!("{status}"),
            Self::Rejected { status, title } => format!("{status} {title}"),
            Self::NoResponse(_) => "no response (network error)".to_owned(),
        }
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
        let outcome = Outcome::from_status(400, false, Some("Invalid order".into()));
        assert_eq!(outcome.label(), "400 Invalid order");
        assert_eq!(
            Outcome::from_status(409, false, None).label(),
            "409 still in progress"
        );
    }
}
