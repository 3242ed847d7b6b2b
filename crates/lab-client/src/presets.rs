//! One-click scenarios: the rows of the teaching matrix, and a cancelled hang-up.

use crate::ClientPolicy;
use crate::design::{DEFAULT_PANES, Design};

/// A scenario: how the client behaves, and what to look for.
#[derive(Debug, Clone)]
pub struct Preset {
    /// A name that stays the same in every language: the button's id is
    /// `preset-` and this, for links and tests.
    pub id: &'static str,
    /// The button's text.
    pub name: &'static str,
    /// The client behaviour it sets.
    pub policy: ClientPolicy,
    /// The servers the two panes show: the pair this scenario's lesson compares.
    pub panes: [Design; 2],
    /// What happens and what to notice, in plain words.
    pub explanation: &'static str,
}

/// The scenario whose button reads `name`, if there is one.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// The article's safe server beside the transactional one: where a crash
/// or a hang-up mid-request tells the two designs apart.
const SAFE_BESIDE_TRANSACTIONAL: [Design; 2] = [Design::Safe, Design::Transactional];

/// The scenarios, in teaching order: the teaching matrix's rows.
pub static PRESETS: [Preset; 8] = [
    Preset {
        id: "dropped-response",
        name: "Dropped response",
        policy: ClientPolicy {
            drop_response: true,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: "The server creates the order, but its answer is lost on the way back. The client cannot \
            tell \"failed\" from \"worked, but I never heard\", so it retries, with the same key. Notice: both \
            servers recognise the key and replay the first answer: one order each. A key turns a blind retry \
            into a safe one.",
    },
    Preset {
        id: "concurrent-sends",
        name: "Concurrent sends",
        policy: ClientPolicy {
            copies: 3,
            retries: 0,
            server_delay_ms: 300,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: "Three copies with one key arrive together, like a double click or parallel retries, and \
            the server takes 300 ms per order. Notice in the step diagrams: on Naive every copy looked for the \
            key before any had saved it, so each created an order. On Transactional the database let exactly \
            one copy insert the key; the others hit the unique constraint and got the winner's answer (the \
            article's Safe server tells them 409 instead). Only the database's unique constraint closes this \
            race.",
    },
    Preset {
        id: "slow-response",
        name: "Slow response + client timeout",
        policy: ClientPolicy {
            retries: 3,
            timeout_ms: 500,
            server_delay_ms: 1200,
            ..ClientPolicy::PLAIN
        },
        panes: [Design::Naive, Design::Safe],
        explanation: "The server needs 1.2 s, the client gives up after 0.5 s and retries while the first \
            request is still running. Notice: Naive has no saved answer yet, so the retry creates a second \
            order. Safe answers 409 (\"still working, try again\") and replays the order once it is done. A \
            timeout is concurrency in disguise.",
    },
    Preset {
        id: "new-key-per-attempt",
        name: "New key per attempt",
        policy: ClientPolicy {
            new_key_per_attempt: true,
            drop_response: true,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: "The answer is lost again, but this client makes a new key for every attempt. Notice: \
            both servers see two unrelated requests and create two orders, the transactional one too. The key \
            must be made once per purchase, before the first attempt, and sent again on every retry.",
    },
    Preset {
        id: "crash",
        name: "Crash mid-request",
        policy: ClientPolicy {
            retries: 4,
            crash_after_create: true,
            lock_timeout_secs: 1,
            ..ClientPolicy::PLAIN
        },
        panes: SAFE_BESIDE_TRANSACTIONAL,
        explanation: "The server crashes right after writing the order, before saving its answer. Notice: \
            Safe (the article's three separate statements) kept the order and a claim with no answer: it \
            answers 409 until the lock (1 s here) runs out, then one retry takes the key over, finds the order \
            the crash left and replays it. Transactional wrote key, order and answer in one transaction, so \
            the crash rolled all of it back: nothing was kept, and the retry simply creates the order, once. \
            (Naive, had it been shown, keeps the order but no answer, and the retry orders again.)",
    },
    Preset {
        id: "changed-payload",
        name: "Changed payload",
        policy: ClientPolicy {
            drop_response: true,
            change_order_on_retry: true,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: "The answer is lost; meanwhile the customer changes the order (one more to pay) and the \
            app retries with the same key. Notice: Naive replays the first order's answer, so the customer \
            believes the new order went through. Transactional (and Safe too) compares the request with the \
            one that used the key first and answers 422: a key belongs to one request.",
    },
    Preset {
        id: "expiry",
        name: "Late retry after expiry",
        policy: ClientPolicy {
            retries: 1,
            backoff_ms: 2500,
            drop_response: true,
            key_retention_secs: 2,
            ..ClientPolicy::PLAIN
        },
        panes: DEFAULT_PANES,
        explanation: "The servers keep this key for 2 s (a day by default); the answer is lost and the client \
            retries after 2.5 s. Notice: both servers have forgotten the key and create a second order. How \
            long keys are kept is a trade-off between storage and late retries, not a detail.",
    },
    Preset {
        id: "hang-up",
        name: "Hang up, work cancelled",
        policy: ClientPolicy {
            timeout_ms: 400,
            lock_timeout_secs: 1,
            cancel_on_disconnect: true,
            server_delay_ms: 800,
            ..ClientPolicy::PLAIN
        },
        panes: SAFE_BESIDE_TRANSACTIONAL,
        explanation: "As in the slow-response scenario the client gives up after 0.4 s, but now the server \
            drops the work when the client hangs up, as a Rust handler does unless its work is spawned. \
            Notice: no order on either server, however often the client retries. Safe had already claimed the \
            key in a statement of its own, so it is left with a claim and no order and answers 409 until the \
            claim's lock runs out. Transactional's claim was part of a transaction that never committed: \
            nothing is left behind. Whether work survives a hang-up has to be decided, not left to the \
            framework.",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_within_the_ranges_the_page_offers() {
        for preset in &PRESETS {
            assert_eq!(
                preset.policy.clone().clamped(),
                preset.policy,
                "{}",
                preset.name
            );
        }
    }

    #[test]
    fn every_preset_has_its_own_id() {
        let ids: std::collections::HashSet<_> = PRESETS.iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), PRESETS.len());
    }

    #[test]
    fn every_preset_is_found_by_its_name_and_names_are_unique() {
        for each in &PRESETS {
            assert!(
                std::ptr::eq(preset(each.name).unwrap(), each),
                "{}",
                each.name
            );
        }
        assert!(preset("No such scenario").is_none());
    }

    #[test]
    fn every_preset_compares_two_different_servers() {
        for preset in &PRESETS {
            let [first, second] = preset.panes;
            assert_ne!(first, second, "{}", preset.name);
        }
    }

    #[test]
    fn the_timeout_preset_gives_up_before_the_server_is_done_and_retries_after() {
        let policy = &preset("Slow response + client timeout").unwrap().policy;
        assert!(policy.timeout_ms < policy.server_delay_ms);
        // Even if every retry is answered at once (409), the last one must
        // start after the first request has finished, or it could never see
        // the stored answer.
        let pauses: u32 = (2..=policy.retries + 1)
            .map(|number| policy.backoff_before(number))
            .sum();
        let earliest_last_start = policy.timeout_ms + pauses;
        assert!(
            earliest_last_start > policy.server_delay_ms,
            "last retry at {earliest_last_start} ms"
        );
    }
}
