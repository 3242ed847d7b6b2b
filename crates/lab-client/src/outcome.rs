//! The outcome of one HTTP attempt, as the client saw it, and how the page
//! names it in the learner's language.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
pub use lab_wire::run::Outcome;

/// What the page says of an outcome, in the learner's language.
pub trait OutcomeText {
    /// A short label for the timeline: `201`, `201 replayed`, `409`, `dropped`, …
    fn label(&self, locale: Locale) -> String;
    /// What the label means, for people who do not read status codes.
    fn meaning(&self, locale: Locale) -> String;
}

impl OutcomeText for Outcome {
    fn label(&self, locale: Locale) -> String {
        match self {
            Self::Created => td_string!(locale, outcome.created).into(),
            Self::Replayed => td_string!(locale, outcome.replayed).into(),
            Self::InProgress => td_string!(locale, outcome.in_progress).into(),
            Self::Rejected { status, problem } if problem.is_empty() => status.to_string(),
            Self::Rejected { status, problem } => td_string!(
                locale,
                outcome.rejected,
                status = status,
                problem = problem_text(problem, locale)
            ),
            Self::Dropped => td_string!(locale, outcome.dropped).into(),
            Self::Crashed => td_string!(locale, outcome.crashed).into(),
            Self::TimedOut => td_string!(locale, outcome.timed_out).into(),
            Self::NetworkError(_) => td_string!(locale, outcome.network_error).into(),
            Self::Read { orders } => td_string!(locale, outcome.read, count = *orders as u64),
        }
    }

    fn meaning(&self, locale: Locale) -> String {
        match self {
            Self::Created => td_string!(locale, outcome.created_meaning),
            Self::Replayed => td_string!(locale, outcome.replayed_meaning),
            Self::InProgress => td_string!(locale, outcome.in_progress_meaning),
            Self::Rejected { .. } => td_string!(locale, outcome.rejected_meaning),
            Self::Dropped => td_string!(locale, outcome.dropped_meaning),
            Self::Crashed => td_string!(locale, outcome.crashed_meaning),
            Self::TimedOut => td_string!(locale, outcome.timed_out_meaning),
            Self::NetworkError(_) => td_string!(locale, outcome.network_error_meaning),
            Self::Read { .. } => td_string!(locale, outcome.read_meaning),
        }
        .into()
    }
}

/// A problem+json `type` in the learner's words. The page can meet a few
/// kinds of refusal on its own (a reused key, a key still in progress); the
/// rest mean the request itself was malformed, and are named as such.
pub fn problem_text(problem: &str, locale: Locale) -> String {
    let slug = problem.strip_prefix("/problems/").unwrap_or(problem);
    match slug {
        "idempotency-key-reused" => td_string!(locale, problem.key_reused),
        "request-in-progress" => td_string!(locale, problem.in_progress),
        "invalid-order" => td_string!(locale, problem.invalid_order),
        "missing-idempotency-key" => td_string!(locale, problem.missing_key),
        "invalid-idempotency-key" => td_string!(locale, problem.invalid_key),
        "internal" | "simulated-error" => td_string!(locale, problem.internal),
        "lab-requests-limit" | "lab-delay-limit" => td_string!(locale, problem.lab_busy),
        "request-timed-out" | "server-busy" => td_string!(locale, problem.timed_out),
        "lab-orders-limit" => td_string!(locale, problem.lab_full),
        "no-calls-outside" => td_string!(locale, problem.no_calls_outside),
        "lab-secret-required"
        | "lab-secret-mismatch"
        | "teacher-reads-only"
        | "teacher-token-wrong" => td_string!(locale, problem.lab_private),
        "invalid-lab-id"
        | "invalid-lab-secret"
        | "invalid-authorization"
        | "repeated-header"
        | "invalid-query"
        | "invalid-lab-delay"
        | "invalid-key-retention"
        | "invalid-lock-timeout"
        | "invalid-lab-cancellation"
        | "invalid-lab-missing-key"
        | "unknown-lab-fault"
        | "unsupported-media-type"
        | "body-too-large"
        | "unreadable-body"
        | "malformed-json" => td_string!(locale, problem.bad_request),
        _ => td_string!(locale, problem.other),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replayed_201_is_told_apart_from_a_fresh_one() {
        assert_eq!(Outcome::from_status(201, false, None), Outcome::Created);
        assert_eq!(Outcome::from_status(201, true, None), Outcome::Replayed);
        assert_eq!(Outcome::Replayed.label(Locale::en), "201 replayed");
        assert_eq!(Outcome::Replayed.label(Locale::zh_CN), "201 重放");
    }

    #[test]
    fn a_refusal_is_named_by_its_problem_type_in_the_learners_language() {
        let reused =
            Outcome::from_status(422, false, Some("/problems/idempotency-key-reused".into()));
        assert_eq!(
            reused.label(Locale::en),
            "422 a key belongs to one request: this one had a different order"
        );
        assert_eq!(
            reused.label(Locale::zh_CN),
            "422 一个键只属于一个请求：这次的订单内容不同"
        );
        let malformed = Outcome::from_status(400, false, Some("/problems/malformed-json".into()));
        assert_eq!(malformed.label(Locale::zh_CN), "400 服务器无法读取这个请求");
        let unknown = Outcome::from_status(418, false, Some("/problems/teapot".into()));
        assert_eq!(unknown.label(Locale::en), "418 refused by the server");
        assert_eq!(
            Outcome::from_status(409, false, None).label(Locale::en),
            "409"
        );
        assert_eq!(
            Outcome::from_status(502, false, None).label(Locale::zh_CN),
            "502"
        );
    }

    #[test]
    fn every_outcome_has_a_meaning_in_both_languages() {
        let all = [
            Outcome::Created,
            Outcome::Replayed,
            Outcome::InProgress,
            Outcome::from_status(422, false, None),
            Outcome::Dropped,
            Outcome::Crashed,
            Outcome::TimedOut,
            Outcome::NetworkError("reset".into()),
        ];
        for outcome in &all {
            let (en, zh) = (outcome.meaning(Locale::en), outcome.meaning(Locale::zh_CN));
            assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{outcome:?}");
        }
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
