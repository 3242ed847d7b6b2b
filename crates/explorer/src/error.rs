//! The one error type of the explorer.

/// Why an exploration could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    /// The server could not be reached, or broke off an answer.
    #[error("cannot reach {url}: {source}")]
    Http {
        /// What was asked for.
        url: String,
        /// What the HTTP client said.
        source: reqwest::Error,
    },
    /// The server refused a request the explorer needs.
    #[error("{what}: the server answered {status}: {body}")]
    Refused {
        /// What was asked.
        what: String,
        /// The status it answered.
        status: u16,
        /// Its body.
        body: String,
    },
    /// The server's step stream broke off or sent something unreadable.
    #[error("the step stream {0}")]
    Stream(String),
    /// A schedule to replay names a copy that cannot move at that point.
    #[error(
        "schedule `{schedule}`: copy {copy} cannot move at step {at} (it is not waiting at a gate then)"
    )]
    NotEnabled {
        /// The schedule asked for.
        schedule: String,
        /// The copy it names.
        copy: u8,
        /// At which move (1, 2, …).
        at: usize,
    },
    /// A plan that asks for what cannot be done together.
    #[error("{0}")]
    Plan(&'static str),
    /// More schedules than the plan allows.
    #[error(
        "more than {0} schedules, the most this exploration may run: ask for fewer copies or no crashes, or (on the command line) raise --max-schedules or add --reduce"
    )]
    TooMany(usize),
}
