//! Every kind of problem the lab answers with, listed once: the OpenAPI
//! documents name their types from here, and the contract tests check that
//! each is documented.

use lab_wire::{InvalidKey, InvalidLabId, InvalidLabSecret, LabId, Problem};

use crate::LabError;
use crate::error::ScheduleRefused;
use crate::limits::LimitReached;

/// Every problem `type` a client can be answered with (4xx and 503), in
/// order, without repeats.
pub fn problem_types() -> Vec<String> {
    let mut types: Vec<String> = Vec::new();
    for error in one_of_each() {
        let problem: Problem = error.problem();
        if problem.status != 500 && !types.contains(&problem.kind) {
            types.push(problem.kind);
        }
    }
    types
}

/// One error of each kind. Keep it beside [`kinds_are_all_listed`], whose
/// match has no wildcard: a new kind of error does not compile until it is
/// named there, which is the reminder to add it here.
fn one_of_each() -> Vec<LabError> {
    let lab = LabId::default();
    vec![
        LabError::MissingKey,
        LabError::InvalidKey(InvalidKey::Empty),
        LabError::InvalidLabId(InvalidLabId),
        LabError::InvalidLabSecret(InvalidLabSecret),
        LabError::LabSecretRequired(lab.clone()),
        LabError::LabSecretMismatch(lab),
        LabError::TeacherReadsOnly,
        LabError::TeacherTokenWrong,
        LabError::TeacherTokenRequired,
        LabError::RunNotFound(String::new()),
        LabError::InvalidRecord(String::new()),
        LabError::InvalidAuthorization,
        LabError::RepeatedHeader("Lab-Id"),
        LabError::InvalidQuery(String::new()),
        LabError::InvalidDelay(String::new()),
        LabError::InvalidCancellation(String::new()),
        LabError::InvalidMissingKey(String::new()),
        LabError::InvalidLockTimeout(String::new()),
        LabError::InvalidRetention(String::new()),
        LabError::UnknownFault(String::new()),
        LabError::InvalidSideEffects(String::new()),
        LabError::InvalidFencing(String::new()),
        LabError::FaultNeedsSideEffects("provider-timeout"),
        LabError::SideEffectsUnavailable,
        LabError::NoCallsOutside("onetrip"),
        LabError::OutsideKeyWrong,
        LabError::WebhookSignature(String::new()),
        LabError::InvalidEvent(String::new()),
        LabError::NoSuchReceiver(String::new()),
        LabError::ProviderFailed(String::new()),
        LabError::MailFailed(String::new()),
        LabError::ClaimLost,
        LabError::UnsupportedMediaType,
        LabError::BodyTooLarge(0),
        LabError::UnreadableBody(String::new()),
        LabError::MalformedJson(String::new()),
        LabError::InvalidOrder(String::new()),
        LabError::KeyReused,
        LabError::KeyInFlight,
        LabError::OrdersLimit(0),
        LabError::Limit(LimitReached::Requests { limit: 0 }),
        LabError::Limit(LimitReached::Delay {
            limit_secs: 0,
            asked_secs: 0,
        }),
        LabError::Limit(LimitReached::LabStreams { limit: 0 }),
        LabError::Limit(LimitReached::AllStreams { limit: 0 }),
        LabError::RequestTimedOut(0),
        LabError::NotFound,
        LabError::MethodNotAllowed,
        LabError::SimulatedCrash,
        LabError::SimulatedError("error-after-create"),
        LabError::WorkerFailed(String::new()),
    ]
    .into_iter()
    .chain(ScheduleRefused::one_of_each().map(LabError::Schedule))
    .collect()
}

/// Names every kind of [`LabError`] (see [`one_of_each`]).
#[allow(dead_code, reason = "exists for its exhaustive match")]
fn kinds_are_all_listed(error: &LabError) {
    match error {
        LabError::MissingKey
        | LabError::InvalidKey(_)
        | LabError::InvalidLabId(_)
        | LabError::InvalidLabSecret(_)
        | LabError::LabSecretRequired(_)
        | LabError::LabSecretMismatch(_)
        | LabError::TeacherReadsOnly
        | LabError::TeacherTokenWrong
        | LabError::TeacherTokenRequired
        | LabError::RunNotFound(_)
        | LabError::InvalidRecord(_)
        | LabError::InvalidAuthorization
        | LabError::RepeatedHeader(_)
        | LabError::InvalidQuery(_)
        | LabError::InvalidDelay(_)
        | LabError::InvalidCancellation(_)
        | LabError::InvalidMissingKey(_)
        | LabError::InvalidLockTimeout(_)
        | LabError::InvalidRetention(_)
        | LabError::UnknownFault(_)
        | LabError::InvalidSideEffects(_)
        | LabError::InvalidFencing(_)
        | LabError::FaultNeedsSideEffects(_)
        | LabError::SideEffectsUnavailable
        | LabError::NoCallsOutside(_)
        | LabError::OutsideKeyWrong
        | LabError::WebhookSignature(_)
        | LabError::InvalidEvent(_)
        | LabError::NoSuchReceiver(_)
        | LabError::ProviderFailed(_)
        | LabError::MailFailed(_)
        | LabError::ClaimLost
        | LabError::UnsupportedMediaType
        | LabError::BodyTooLarge(_)
        | LabError::UnreadableBody(_)
        | LabError::MalformedJson(_)
        | LabError::InvalidOrder(_)
        | LabError::KeyReused
        | LabError::KeyInFlight
        | LabError::OrdersLimit(_)
        | LabError::Limit(
            LimitReached::Requests { .. }
            | LimitReached::Delay { .. }
            | LimitReached::LabStreams { .. }
            | LimitReached::AllStreams { .. },
        )
        | LabError::RequestTimedOut(_)
        | LabError::NotFound
        | LabError::MethodNotAllowed
        // Server faults: answered 500 `internal` (or, for the crash, not at all).
        | LabError::Storage(_)
        | LabError::Migration(_)
        | LabError::Connect { .. }
        | LabError::UnsupportedDatabaseUrl(_)
        | LabError::Bind { .. }
        | LabError::SimulatedCrash
        | LabError::SimulatedError(_)
        | LabError::WorkerFailed(_) => {}
        LabError::Schedule(
            ScheduleRefused::UnknownOnRequest(_)
            | ScheduleRefused::NotFound(_)
            | ScheduleRefused::Full { .. }
            | ScheduleRefused::TooMany(_)
            | ScheduleRefused::ServerFull
            | ScheduleRefused::NotAtGate { .. }
            | ScheduleRefused::Exploring(_)
            | ScheduleRefused::ExplorationsFull(_)
            | ScheduleRefused::ExplorationNotFound(_)
            | ScheduleRefused::CannotExplore,
        ) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_problem_types_are_the_client_errors_without_repeats() {
        let types = problem_types();
        assert!(types.contains(&"/problems/request-in-progress".to_owned()));
        assert!(types.contains(&"/problems/server-busy".to_owned()));
        assert!(!types.contains(&"/problems/internal".to_owned()));
        let mut unique = types.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), types.len());
    }
}
