//! How errors become problems: statuses, types, details and headers.

use axum::http::header;
use axum::response::IntoResponse;
use lab_wire::problem::PROBLEM_JSON;

use super::*;

#[test]
fn client_mistakes_are_4xx_and_say_what_went_wrong() {
    let problem = LabError::MissingKey.problem();
    assert_eq!(problem.status, 400);
    assert_eq!(problem.kind, "/problems/missing-idempotency-key");
    assert!(problem.detail.contains("Idempotency-Key"));
}

#[test]
fn server_faults_hide_their_cause_from_the_client() {
    let error = LabError::Storage(sqlx::Error::Protocol("secret table layout".into()));
    let problem = error.problem();
    assert_eq!(problem.status, 500);
    assert!(!problem.detail.contains("secret"), "{}", problem.detail);
}

#[test]
fn a_lab_past_a_limit_answers_429_and_a_full_server_503_both_with_retry_after() {
    let busy = LabError::from(LimitReached::Delay {
        limit_secs: 60,
        asked_secs: 7,
    })
    .into_response();
    assert_eq!(busy.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(busy.headers()[header::RETRY_AFTER], "7");
    assert_eq!(busy.headers()[header::CONTENT_TYPE], PROBLEM_JSON);
    let full = LabError::from(LimitReached::AllStreams { limit: 512 });
    assert_eq!(full.problem().kind, "/problems/server-busy");
    assert!(full.problem().detail.contains("512"), "says the limit");
    let full = full.into_response();
    assert_eq!(full.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(full.headers()[header::RETRY_AFTER], "5");
}

#[test]
fn an_in_flight_key_answers_409_with_retry_after() {
    let response = LabError::KeyInFlight.into_response();
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert_eq!(response.headers()[header::RETRY_AFTER], "1");
    assert_eq!(response.headers()[header::CONTENT_TYPE], PROBLEM_JSON);
}
