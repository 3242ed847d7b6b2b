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
mod tests;
