//! One paragraph saying what a server did with a run and what it cost the
//! customer, built from what was recorded — never from what was expected.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::{Step, StepKind};

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

/// How the attempts of a run ended, counted once (as the catalogue counts: `u64`).
#[derive(Debug, Default)]
struct Tally {
    created: u64,
    replayed: u64,
    in_progress: u64,
    refused_reuse: u64,
    dropped: u64,
    crashed: u64,
    timed_out: u64,
    /// Attempts that were a copy's first: more than one means copies were sent together.
    first_copies: u64,
}

impl Tally {
    fn of(attempts: &[AttemptRecord]) -> Self {
        let mut tally = Self::default();
        for attempt in attempts {
            if attempt.number == 1 {
                tally.first_copies += 1;
            }
            let counter = match &attempt.outcome {
                Some(Outcome::Created) => &mut tally.created,
                Some(Outcome::Replayed) => &mut tally.replayed,
                Some(Outcome::InProgress) => &mut tally.in_progress,
                Some(Outcome::Rejected { status: 422, .. }) => &mut tally.refused_reuse,
                Some(Outcome::Dropped) => &mut tally.dropped,
                Some(Outcome::Crashed) => &mut tally.crashed,
                Some(Outcome::TimedOut) => &mut tally.timed_out,
                _ => continue,
            };
            *counter += 1;
        }
        tally
    }
}

/// The charges the payment provider made and the e-mails that went out
/// (from the request, or through an outbox) in `steps`, as the servers
/// reported them: a charge the provider replayed for a key it knew is not
/// a new one.
pub fn side_effects_of(steps: &[Step]) -> (u64, u64) {
    let (mut charges, mut emails) = (0, 0);
    for step in steps {
        match step.kind {
            StepKind::CardCharged { replayed: false } => charges += 1,
            StepKind::EmailSent | StepKind::EmailQueued => emails += 1,
            _ => {}
        }
    }
    (charges, emails)
}

/// What a run did outside the database: `charges` charges of
/// `charged_cents` in all, and `emails` e-mails.
pub fn side_effects_said(charges: u64, charged_cents: i64, emails: u64, locale: Locale) -> String {
    td_string!(
        locale,
        verdict.side_effects,
        charges = charges,
        total = money(charged_cents),
        emails = emails
    )
}

/// The verdict for one server, in `locale`'s words.
pub fn verdict(facts: &RunFacts<'_>, locale: Locale) -> String {
    let attempts = facts.attempts;
    // The distinct keys: a handful, so a list beats a set (a set's sort is 4 KB of the page).
    let mut keys: Vec<&str> = Vec::new();
    for attempt in attempts {
        if !keys.contains(&attempt.key.as_str()) {
            keys.push(&attempt.key);
        }
    }
    let key = attempts.first().map_or("", |a| short_key(&a.key));
    let orders = facts.orders;
    let price = money(facts.amount_cents);
    let charged: String = td_string!(
        locale,
        verdict.charged,
        orders = orders,
        price = &price,
        total = money(facts.amount_cents * orders as i64)
    );
    let timeout = facts.policy.timeout_ms;
    let tally = Tally::of(attempts);
    let Tally {
        timed_out,
        in_progress,
        crashed,
        first_copies,
        ..
    } = tally;

    if facts.policy.read_only {
        let reads = attempts
            .iter()
            .filter(|a| matches!(a.outcome, Some(Outcome::Read { .. })))
            .count();
        return td_string!(locale, verdict.reads, count = reads as u64, orders = orders);
    }
    if orders == 0 && facts.policy.cancel_on_disconnect && timed_out > 0 {
        return if in_progress > 0 {
            td_string!(locale, verdict.cancelled_with_claim, timeout = timeout)
        } else {
            td_string!(locale, verdict.cancelled, timeout = timeout)
        };
    }
    if orders == 0 {
        return td_string!(locale, verdict.no_order, count = attempts.len() as u64);
    }
    if orders > 1 && facts.policy.no_key {
        return td_string!(
            locale,
            verdict.no_key,
            count = attempts.len() as u64,
            orders = orders,
            charged = charged
        );
    }
    if orders > 1 && keys.len() > 1 {
        return td_string!(
            locale,
            verdict.new_key_each_time,
            keys = keys.len(),
            orders = orders,
            charged = charged
        );
    }
    if orders > 1 && timed_out > 0 && first_copies == 1 {
        return td_string!(
            locale,
            verdict.timeout_retry,
            timeout = timeout,
            delay = facts.policy.server_delay_ms,
            key = key,
            orders = orders,
            charged = charged
        );
    }
    if orders > 1 && crashed > 0 {
        return td_string!(
            locale,
            verdict.crash_retry,
            key = key,
            orders = orders,
            charged = charged
        );
    }
    if orders > 1 && facts.policy.key_retention_secs > 0 {
        return td_string!(
            locale,
            verdict.expired,
            key = key,
            secs = facts.policy.key_retention_secs,
            orders = orders,
            charged = charged
        );
    }
    if orders > 1 {
        return td_string!(
            locale,
            verdict.race,
            count = first_copies,
            key = key,
            orders = orders,
            charged = charged
        );
    }

    // Exactly one order: say what became of every other attempt.
    let story = what_became_of_the_others(facts, &tally, locale);
    let story: String = if story.is_empty() {
        String::new()
    } else {
        let items = story.join(td_string!(locale, verdict.story_separator));
        td_string!(locale, verdict.story, items = items)
    };
    let made_by: String = if tally.created == 1 {
        td_string!(locale, verdict.made_by_single_attempt).into()
    } else {
        td_string!(locale, verdict.made_by_unseen_attempt).into()
    };
    td_string!(
        locale,
        verdict.one_order,
        count = attempts.len() as u64,
        key = key,
        made_by = made_by,
        story = story,
        price = price
    )
}

/// One clause per kind of attempt that did not create the single order.
fn what_became_of_the_others(facts: &RunFacts<'_>, tally: &Tally, locale: Locale) -> Vec<String> {
    let &Tally {
        crashed,
        refused_reuse,
        dropped,
        timed_out,
        in_progress,
        replayed,
        first_copies,
        ..
    } = tally;
    let copies_sent_together = first_copies > 1;

    let mut others: Vec<String> = Vec::new();
    if crashed > 0 {
        others.push(if facts.design == Design::Transactional {
            td_string!(locale, verdict.crashed_rolled_back, count = crashed)
        } else {
            td_string!(locale, verdict.crashed_kept, count = crashed)
        });
    }
    if refused_reuse > 0 {
        others.push(td_string!(
            locale,
            verdict.refused_reuse,
            count = refused_reuse
        ));
    }
    if dropped > 0 {
        others.push(td_string!(locale, verdict.dropped, count = dropped));
    }
    if timed_out > 0 {
        others.push(td_string!(locale, verdict.timed_out, count = timed_out));
    }
    if in_progress > 0 {
        others.push(td_string!(locale, verdict.in_progress, count = in_progress));
    }
    if replayed > 0 {
        // Copies sent together are not retries, but they are replayed all the same.
        others.push(if copies_sent_together {
            td_string!(locale, verdict.replayed_copies, count = replayed)
        } else {
            td_string!(locale, verdict.replayed_retries, count = replayed)
        });
    }
    if facts.policy.change_order_on_retry && replayed > 0 {
        others.push(td_string!(
            locale,
            verdict.changed_order_replayed,
            changed = money(facts.amount_cents + CHANGED_ORDER_EXTRA_CENTS),
            price = money(facts.amount_cents)
        ));
    }
    others
}

#[cfg(test)]
mod tests;
