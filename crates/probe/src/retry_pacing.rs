//! How long the probe waits before retrying: as a `409`'s `Retry-After`
//! asks (capped), or backing off after a failed connection.

use std::time::Duration;

use crate::answer::Answer;

/// The longest the probe waits before one retry, whatever `Retry-After` asks.
const LONGEST_PAUSE: Duration = Duration::from_secs(5);

/// How long to wait before retrying after `answer` (the `attempt`-th
/// retry, from 0), or `None` if it needs no retry. A `409` is waited out as
/// its `Retry-After` asks (at most [`LONGEST_PAUSE`]); without one, and after
/// a failed connection, the pause starts at 250 ms and doubles, up to 2 s.
pub fn pause_before_retry(answer: &Answer, attempt: u32) -> Option<Duration> {
    let backoff = Duration::from_millis(250 * 2u64.pow(attempt.min(8))).min(Duration::from_secs(2));
    match answer {
        Answer::Failed(_) => Some(backoff),
        Answer::Response {
            status: 409,
            retry_after,
            ..
        } => Some(retry_after.map_or(backoff, |asked| asked.min(LONGEST_PAUSE))),
        Answer::Response { .. } => None,
    }
}

/// A `Retry-After` in delta-seconds (`"1"`); an HTTP date is not understood.
pub fn retry_after_seconds(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Answer, Carried};

    fn conflict(retry_after: Option<u64>) -> Answer {
        Answer::Response {
            status: 409,
            replayed: false,
            resource: None,
            retry_after: retry_after.map(Duration::from_secs),
            carried: Carried::default(),
        }
    }

    #[test]
    fn a_409_is_waited_out_as_its_retry_after_asks() {
        assert_eq!(
            pause_before_retry(&conflict(Some(3)), 0),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            pause_before_retry(&conflict(Some(3600)), 0),
            Some(LONGEST_PAUSE),
            "a huge Retry-After is capped"
        );
    }

    #[test]
    fn without_retry_after_the_pause_backs_off_and_a_final_answer_needs_none() {
        assert_eq!(
            pause_before_retry(&conflict(None), 0),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            pause_before_retry(&Answer::Failed("timed out".into()), 1),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            pause_before_retry(&Answer::Failed("timed out".into()), 4),
            Some(Duration::from_secs(2))
        );
        let created = Answer::Response {
            status: 201,
            replayed: false,
            resource: Some("id".into()),
            retry_after: Some(Duration::from_secs(1)),
            carried: Carried::default(),
        };
        assert_eq!(pause_before_retry(&created, 0), None);
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        assert_eq!(retry_after_seconds(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
