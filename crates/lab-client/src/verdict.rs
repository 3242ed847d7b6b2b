//! One paragraph saying what a server did with a run and what it cost the
//! customer, built from what was recorded — never from what was expected.

use std::collections::BTreeSet;

use crate::{AttemptRecord, ClientPolicy, Design, Outcome, money, short_key};

/// How much more the changed order of `change_order_on_retry` costs.
pub const CHANGED_ORDER_EXTRA_CENTS: i64 = 100;

/// What one run against one server left behind.
#[derive(Debug, Clone)]
pub struct RunFacts<'a> {
    /// The server that was sent the run.
    pub design: Design,
    /// The client behaviour of the run.
    pub policy: &'a ClientPolicy,
    /// Every attempt, in the order they were sent.
    pub attempts: &'a [AttemptRecord],
    /// How many orders the server now holds for this purchase (all its keys).
    pub orders: usize,
    /// The price of one order, in cents.
    pub amount_cents: i64,
}

fn count(attempts: &[AttemptRecord], wanted: impl Fn(&Outcome) -> bool) -> usize {
    attempts
        .iter()
        .filter(|a| a.outcome.as_ref().is_some_and(&wanted))
        .count()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The verdict for one server.
pub fn verdict(facts: &RunFacts<'_>) -> String {
    let attempts = facts.attempts;
    let keys: BTreeSet<&str> = attempts.iter().map(|a| a.key.as_str()).collect();
    let first_key = attempts.first().map_or("", |a| short_key(&a.key));
    let orders = facts.orders;
    let price = money(facts.amount_cents);
    let charged = format!(
        "The customer is charged {orders} × {price} = {}.",
        money(facts.amount_cents * orders as i64)
    );
    let dropped = count(attempts, |o| *o == Outcome::Dropped);
    let crashed = count(attempts, |o| *o == Outcome::Crashed);
    let refused_reuse = count(attempts, |o| {
        matches!(o, Outcome::Rejected { status: 422, .. })
    });
    let timed_out = count(attempts, |o| *o == Outcome::TimedOut);
    let in_progress = count(attempts, |o| *o == Outcome::InProgress);
    let replayed = count(attempts, |o| *o == Outcome::Replayed);
    let created = count(attempts, |o| *o == Outcome::Created);
    let first_copies = attempts.iter().filter(|a| a.number == 1).count();

    if orders == 0 && facts.policy.cancel_on_disconnect && timed_out > 0 {
        let claim = if in_progress > 0 {
            " Meanwhile a claim on the key was left behind with no order, and retries were told 409."
        } else {
            ""
        };
        return format!(
            "The client gave up after {} ms each time, and the server dropped the work together with the \
             connection: no order at all.{claim} The customer is not charged, and gets nothing.",
            facts.policy.timeout_ms
        );
    }

    if orders == 0 {
        return format!(
            "{} sent, and no order was stored: the timeline shows what each one got.",
            plural(attempts.len(), "request was", "requests were")
        );
    }

    if orders > 1 && keys.len() > 1 {
        return format!(
            "Every attempt carried a new key ({} for one purchase), so the server could not tell a retry \
             from a new purchase: {orders} orders. {charged} The key has to be made once, before the first \
             attempt, and sent again on every retry.",
            keys.len()
        );
    }

    if orders > 1 && timed_out > 0 && first_copies == 1 {
        return format!(
            "The client gave up after {} ms while the server was still working ({} ms), and retried with \
             key {first_key}…. The server had not saved an answer yet, found nothing, and created another \
             order: {orders} orders for one purchase. {charged} A timeout is concurrency in disguise.",
            facts.policy.timeout_ms, facts.policy.server_delay_ms
        );
    }

    if orders > 1 && crashed > 0 {
        return format!(
            "The server crashed after writing the order, before saving its answer. The retry with key \
             {first_key}… found no saved answer and ordered again: {orders} orders for one purchase. {charged} \
             The order and its answer have to be stored together."
        );
    }

    if orders > 1 && facts.policy.key_retention_secs > 0 {
        return format!(
            "The server kept key {first_key}… for {} s only; the retry came later, so the server took it for \
             a new purchase: {orders} orders. {charged} How long keys are kept is a trade-off.",
            facts.policy.key_retention_secs
        );
    }

    if orders > 1 {
        return format!(
            "{} with key {first_key}… reached the server together. Each looked for the key, saw no earlier \
             order, and created one: {orders} orders for one purchase. {charged}",
            plural(first_copies, "request", "requests")
        );
    }

    // Exactly one order: say what became of every other attempt.
    let mut others = Vec::new();
    if crashed > 0 {
        others.push(if facts.design == Design::Transactional {
            format!(
                "the server crashed {} after writing the order, before committing, so the database \
                 rolled back the key, the order and all",
                plural(crashed, "time", "times")
            )
        } else {
            format!(
                "the server crashed {} after writing the order, before saving its answer",
                plural(crashed, "time", "times")
            )
        });
    }
    if refused_reuse > 0 {
        others.push(format!(
            "{} with a different order under the same key {} refused (422: a key belongs to one request)",
            plural(refused_reuse, "retry", "retries"),
            if refused_reuse == 1 { "was" } else { "were" }
        ));
    }
    if dropped > 0 {
        others.push(format!(
            "{} lost on the way back although the order was made",
            plural(dropped, "answer was", "answers were")
        ));
    }
    if timed_out > 0 {
        others.push(format!(
            "the client stopped waiting {}",
            plural(timed_out, "time", "times")
        ));
    }
    if in_progress > 0 {
        others.push(format!(
            "{} told 409 because the first was still running",
            plural(in_progress, "attempt was", "attempts were")
        ));
    }
    if replayed > 0 {
        // Copies sent together are not retries, but they are replayed all the same.
        let (one, many) = if first_copies > 1 {
            ("later copy got", "later copies got")
        } else {
            ("retry got", "retries got")
        };
        others.push(format!(
            "{} the stored answer replayed",
            plural(replayed, one, many)
        ));
    }
    if facts.policy.change_order_on_retry && replayed > 0 {
        others.push(format!(
            "the retry asked for a different order ({}) and was answered with the first one's ({price}): the \
             customer believes the new order went through",
            money(facts.amount_cents + CHANGED_ORDER_EXTRA_CENTS)
        ));
    }
    let story = if others.is_empty() {
        String::new()
    } else {
        format!(" Along the way: {}.", others.join("; "))
    };
    let sent = plural(attempts.len(), "attempt", "attempts");
    let made_by = if created == 1 {
        "one of them created it"
    } else {
        "it was created"
    };
    format!(
        "{sent} with key {first_key}… left exactly one order ({made_by}).{story} The customer pays {price} once."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PRESETS;

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
        let policy = &PRESETS[1].policy;
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
        let policy = &PRESETS[1].policy;
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
        let policy = &PRESETS[4].policy;
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
        let policy = &PRESETS[2].policy;
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
        let policy = &PRESETS[2].policy;
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
        let policy = &PRESETS[3].policy;
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
        let policy = &PRESETS[0].policy;
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
        let policy = &PRESETS[4].policy;
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
        let policy = &PRESETS[4].policy;
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
        let policy = &PRESETS[5].policy;
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
        let policy = &PRESETS[6].policy;
        let attempts = [
            attempt(1, 1, "k", Outcome::Dropped),
            attempt(1, 2, "k", Outcome::Created),
        ];
        let text = verdict(&facts(policy, &attempts, 2));
        assert!(text.contains("kept key k… for 2 s only"), "{text}");
    }

    #[test]
    fn cancelled_work_is_explained_with_the_claim_left_behind() {
        let policy = &PRESETS[7].policy;
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
}
