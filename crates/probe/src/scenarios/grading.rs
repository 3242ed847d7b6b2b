//! How a check is graded and cited: its level, where its expectation
//! comes from, and the result it reports.

use crate::report::{Level, ScenarioResult, Verdict};

/// Where each expectation comes from. The draft is
/// draft-ietf-httpapi-idempotency-key-header; its sections are named by
/// title, which stays put while their numbers move between versions.
pub mod cite {
    pub const PURPOSE: &str = "the header's purpose: the draft's abstract (the key makes POST fault-tolerant) and \"Idempotency Enforcement Scenarios\" (a duplicate gets the first request's result; the work is done once)";
    pub const MISSING: &str = "the draft's \"Error Scenarios\": a missing key SHOULD get 400, with a link to the documentation";
    pub const IN_PROGRESS: &str = "the draft's \"Error Scenarios\": a retry while the first request is in progress SHOULD get 409";
    pub const ROUNDS: &str = "the header's purpose (a duplicate gets the first request's result; the work is done once), tried without a delay hook: a race found once is a broken promise, none found in N rounds is no proof";
    pub const CLIENTS: &str = "common practice: a key belongs to the client that made it (Stripe scopes keys to the account); shared, one client can be handed another's answer";
    pub const ENDPOINTS: &str = "common practice: a key belongs to the endpoint it was made for (Stripe refuses a key reused on another endpoint); the draft leaves the scope open";
    pub const METHODS: &str = "common practice: a key belongs to the request it was made for, method and path with it (the draft's \"Idempotency Fingerprint\" lets a server tell requests apart; Stripe refuses a key reused on another endpoint); the draft leaves the scope open";
    pub const REUSED_IN_FLIGHT: &str = "the draft does not say whether 422 (another payload) or 409 (in progress) wins; a 409 sends the client retrying a request that can never succeed, so the 422 should";
    pub const REUSED: &str =
        "the draft's \"Error Scenarios\": a key reused with another payload SHOULD get 422";
    pub const REPLAYED: &str = "the draft's \"Idempotency Enforcement Scenarios\": a duplicate SHOULD get the result of the first request";
    pub const STUCK: &str = "the draft's \"Idempotency Enforcement Scenarios\": 409 is for a retry while the first request is still being processed; once it has failed, a retry SHOULD get a result, success or an error (Brandur Leach's design lets a failed request's lock go)";
    pub const ERROR_REPLAYED: &str = "the draft lets a completed request's error be replayed (\"success or an error\") and Stripe replays a 500 once the endpoint began executing; but a failure before any work leaves nothing to protect, and keeping it means the key can never make the resource (Brandur Leach's design lets the retry go on)";
    pub const RETENTION: &str = "the draft's \"Idempotency Key Validity and Expiry\": the server SHOULD publish its expiration policy in its documentation; open issues #35 and #49 propose a response header (Idempotency-TTL: seconds), which the probe reads";
    pub const MARKER: &str = "common practice: Stripe marks a replay with Idempotent-Replayed: true; how to signal a replay is an open question of the draft";
    pub const EMPTY: &str = "common practice: a key is a unique value the client makes (the draft's \"Uniqueness of Idempotency Key\" recommends a UUID); an empty one names nothing";
    pub const LONG: &str =
        "Stripe's documented limit (keys up to 255 characters); the draft sets no limit";
    pub const NON_ASCII: &str = "RFC 8941 (the header is a structured-field String, which holds printable ASCII only); the draft adds nothing";
}

/// A fresh key, as a well-behaved client makes one per request.
pub fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub fn result(
    scenario: impl Into<String>,
    (level, reference): (Level, &str),
    expected: &str,
    observed: String,
    verdict: Verdict,
) -> ScenarioResult {
    ScenarioResult {
        scenario: scenario.into(),
        level,
        reference: reference.to_owned(),
        expected: expected.to_owned(),
        observed,
        verdict,
    }
}

/// A check that could not be tried, and `why`.
pub fn not_applicable(
    scenario: impl Into<String>,
    level: (Level, &str),
    expected: &str,
    why: &str,
) -> ScenarioResult {
    result(
        scenario,
        level,
        expected,
        why.to_owned(),
        Verdict::NotApplicable,
    )
}

pub fn pass_if(expected: bool) -> Verdict {
    if expected {
        Verdict::Pass
    } else {
        Verdict::Fail
    }
}
