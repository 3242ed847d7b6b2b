//! The verdicts for each outcome, from hand-made runs.

use super::*;
use crate::preset;

fn attempt(copy: u8, number: u8, key: &str, outcome: Outcome) -> AttemptRecord {
    AttemptRecord {
        copy,
        number,
        key: key.into(),
        started_ms: 0.0,
        ended_ms: Some(10.0),
        outcome: Some(outcome),
    }
}

fn facts<'a>(
    policy: &'a ClientPolicy,
    attempts: &'a [AttemptRecord],
    orders: usize,
) -> RunFacts<'a> {
    RunFacts {
        design: Design::Naive,
        policy,
        attempts,
        orders,
        amount_cents: 450,
    }
}

#[test]
fn concurrent_duplicates_are_explained_with_the_double_charge() {
    let policy = &preset("Concurrent sends").unwrap().policy;
    let attempts: Vec<_> = (1..=3)
        .map(|copy| attempt(copy, 1, "3f2a9c1e-aaaa", Outcome::Created))
        .collect();
    let text = verdict(&facts(policy, &attempts, 3));
    assert!(
        text.starts_with("3 requests with key 3f2a9c1e… reached the server together"),
        "{text}"
    );
    assert!(text.contains("3 orders for one purchase"), "{text}");
    assert!(text.contains("3 × 4.50 = 13.50"), "{text}");
}

#[test]
fn concurrent_copies_answered_with_the_winners_order_are_called_copies_not_retries() {
    let policy = &preset("Concurrent sends").unwrap().policy;
    let attempts = [
        attempt(1, 1, "3f2a9c1e-aaaa", Outcome::Created),
        attempt(2, 1, "3f2a9c1e-aaaa", Outcome::Replayed),
        attempt(3, 1, "3f2a9c1e-aaaa", Outcome::Replayed),
    ];
    let text = verdict(&facts(policy, &attempts, 1));
    assert!(text.contains("left exactly one order"), "{text}");
    assert!(
        text.contains("2 later copies got the stored answer replayed"),
        "{text}"
    );
}

#[test]
fn a_crash_on_the_transactional_server_is_explained_as_a_rollback() {
    let policy = &preset("Crash mid-request").unwrap().policy;
    let attempts = [
        attempt(1, 1, "3f2a9c1e-aaaa", Outcome::Crashed),
        attempt(1, 2, "3f2a9c1e-aaaa", Outcome::Created),
    ];
    let on = |design| {
        verdict(&RunFacts {
            design,
            ..facts(policy, &attempts, 1)
        })
    };
    let transactional = on(Design::Transactional);
    assert!(
        transactional.contains("rolled back the key, the order and all"),
        "{transactional}"
    );
    let safe = on(Design::Safe);
    assert!(safe.contains("before saving its answer"), "{safe}");
    assert!(!safe.contains("rolled back"), "{safe}");
}

#[test]
fn a_timeout_retry_duplicate_blames_the_timeout() {
    let policy = &preset("Slow response + client timeout").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::TimedOut),
        attempt(1, 2, "k", Outcome::TimedOut),
        attempt(1, 3, "k", Outcome::Replayed),
    ];
    let text = verdict(&facts(policy, &attempts, 2));
    assert!(
        text.contains("gave up after 500 ms while the server was still working (1200 ms)"),
        "{text}"
    );
    assert!(text.contains("concurrency in disguise"), "{text}");
}

#[test]
fn one_order_after_a_409_and_a_replay_says_so() {
    let policy = &preset("Slow response + client timeout").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::TimedOut),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 3, "k", Outcome::Replayed),
    ];
    let text = verdict(&facts(policy, &attempts, 1));
    assert!(text.contains("exactly one order"), "{text}");
    assert!(text.contains("1 attempt was told 409"), "{text}");
    assert!(
        text.contains("1 retry got the stored answer replayed"),
        "{text}"
    );
    assert!(text.ends_with("The customer pays 4.50 once."), "{text}");
}

#[test]
fn new_keys_per_attempt_are_named_as_the_cause() {
    let policy = &preset("New key per attempt").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k1", Outcome::Dropped),
        attempt(1, 2, "k2", Outcome::Created),
    ];
    let text = verdict(&facts(policy, &attempts, 2));
    assert!(
        text.contains("Every attempt carried a new key (2 for one purchase)"),
        "{text}"
    );
    assert!(text.contains("2 × 4.50 = 9.00"), "{text}");
}

#[test]
fn a_dropped_answer_that_was_replayed_is_one_order() {
    let policy = &preset("Dropped response").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Replayed),
    ];
    let text = verdict(&facts(policy, &attempts, 1));
    assert!(text.contains("1 answer was lost on the way back"), "{text}");
    assert!(
        text.contains("exactly one order (it was created)"),
        "{text}"
    );
}

#[test]
fn a_crash_that_left_two_orders_blames_the_separate_answer() {
    let policy = &preset("Crash mid-request").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::Crashed),
        attempt(1, 2, "k", Outcome::Created),
    ];
    let text = verdict(&facts(policy, &attempts, 2));
    assert!(text.contains("crashed after writing the order"), "{text}");
    assert!(text.contains("2 × 4.50 = 9.00"), "{text}");
}

#[test]
fn a_crash_that_left_one_order_tells_the_409s_and_the_recovery() {
    let policy = &preset("Crash mid-request").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::Crashed),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 3, "k", Outcome::Created),
    ];
    let text = verdict(&facts(policy, &attempts, 1));
    assert!(text.contains("exactly one order"), "{text}");
    assert!(
        text.contains("crashed 1 time after writing the order"),
        "{text}"
    );
    assert!(text.contains("1 attempt was told 409"), "{text}");
}

#[test]
fn a_changed_order_is_refused_by_one_server_and_silently_replayed_by_the_other() {
    let policy = &preset("Changed payload").unwrap().policy;
    let refused = Outcome::Rejected {
        status: 422,
        title: "Idempotency-Key reused".into(),
    };
    let safe = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", refused),
    ];
    let text = verdict(&facts(policy, &safe, 1));
    assert!(
        text.contains("1 retry with a different order under the same key was refused (422"),
        "{text}"
    );
    let naive = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Replayed),
    ];
    let text = verdict(&facts(policy, &naive, 1));
    assert!(
        text.contains(
            "asked for a different order (5.50) and was answered with the first one's (4.50)"
        ),
        "{text}"
    );
}

#[test]
fn a_retry_after_expiry_names_the_retention() {
    let policy = &preset("Late retry after expiry").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Created),
    ];
    let text = verdict(&facts(policy, &attempts, 2));
    assert!(text.contains("kept key k… for 2 s only"), "{text}");
}

#[test]
fn cancelled_work_is_explained_with_the_claim_left_behind() {
    let policy = &preset("Hang up, work cancelled").unwrap().policy;
    let attempts = [
        attempt(1, 1, "k", Outcome::TimedOut),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 3, "k", Outcome::TimedOut),
    ];
    let text = verdict(&facts(policy, &attempts, 0));
    assert!(text.contains("gave up after 400 ms each time"), "{text}");
    assert!(
        text.contains("a claim on the key was left behind"),
        "{text}"
    );
}

#[test]
fn a_run_that_stored_nothing_points_at_the_timeline() {
    let policy = ClientPolicy::default();
    let refused = Outcome::Rejected {
        status: 422,
        title: "Invalid order".into(),
    };
    let attempts = [attempt(1, 1, "k", refused)];
    assert!(verdict(&facts(&policy, &attempts, 0)).contains("no order was stored"));
}
