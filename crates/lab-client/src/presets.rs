//! One-click scenarios: the rows of the teaching matrix, and a cancelled hang-up.

use crate::ClientPolicy;

/// A scenario: how the client behaves, and what to look for.
#[derive(Debug, Clone)]
pub struct Preset {
    /// The button's text.
    pub name: &'static str,
    /// The client behaviour it sets.
    pub policy: ClientPolicy,
    /// What happens and what to notice, in plain words.
    pub explanation: &'static str,
}

/// The scenarios, in teaching order: the teaching matrix's rows.
pub const PRESETS: [Preset; 8] = [
    Preset {
        name: "Dropped response",
        policy: ClientPolicy {
            drop_response: true,
            ..ClientPolicy::PLAIN
        },
        explanation: "The server creates the order, but its answer is lost on the way back. The client cannot \
            tell \"failed\" from \"worked, but I never heard\", so it retries, with the same key. Notice: both \
            servers recognise the key and replay the first answer: one order each. A key turns a blind retry \
            into a safe one.",
    },
    Preset {
        name: "Concurrent sends",
        policy: ClientPolicy {
            copies: 3,
            retries: 0,
            server_delay_ms: 300,
            ..ClientPolicy::PLAIN
        },
        explanation: "Three copies with one key arrive together, like a double click or parallel retries, and \
            the server takes 300 ms per order. Notice: on Naive every copy looked for the key before any \
            had saved it, so each created an order. On Safe the database let exactly one copy save the key; \
            the others were told 409. Only the database's unique constraint closes this race.",
    },
    Preset {
        name: "Slow response + client timeout",
        policy: ClientPolicy {
            retries: 3,
            timeout_ms: 500,
            server_delay_ms: 1200,
            ..ClientPolicy::PLAIN
        },
        explanation: "The server needs 1.2 s, the client gives up after 0.5 s and retries while the first \
            request is still running. Notice: Naive has no saved answer yet, so the retry creates a second \
            order. Safe answers 409 (\"still working, try again\") and replays the order once it is done. A \
            timeout is concurrency in disguise.",
    },
    Preset {
        name: "New key per attempt",
        policy: ClientPolicy {
            new_key_per_attempt: true,
            drop_response: true,
            ..ClientPolicy::PLAIN
        },
        explanation: "The answer is lost again, but this client makes a new key for every attempt. Notice: \
            both servers see two unrelated requests and create two orders, the safe one too. The key must \
            be made once per purchase, before the first attempt, and sent again on every retry.",
    },
    Preset {
        name: "Crash mid-request",
        policy: ClientPolicy {
            retries: 4,
            crash_after_create: true,
            lock_timeout_secs: 1,
            ..ClientPolicy::PLAIN
        },
        explanation: "The server crashes right after writing the order, before saving its answer. Notice: \
            Naive kept the order but no answer, so the retry orders again. Safe (the article's three separate \
            statements) kept the order too, and a claim with no answer: it answers 409 until the lock (1 s \
            here) runs out, then one retry takes the key over, finds the order the crash left and replays it. \
            A server that writes key, order and answer in one transaction keeps nothing after a crash, and \
            its retry simply succeeds.",
    },
    Preset {
        name: "Changed payload",
        policy: ClientPolicy {
            drop_response: true,
            change_order_on_retry: true,
            ..ClientPolicy::PLAIN
        },
        explanation: "The answer is lost; meanwhile the customer changes the order (one more to pay) and the \
            app retries with the same key. Notice: Naive replays the first order's answer, so the customer \
            believes the new order went through. Safe compares the request with the one that used the key \
            first and answers 422: a key belongs to one request.",
    },
    Preset {
        name: "Late retry after expiry",
        policy: ClientPolicy {
            retries: 1,
            backoff_ms: 2500,
            drop_response: true,
            key_retention_secs: 2,
            ..ClientPolicy::PLAIN
        },
        explanation: "The servers keep this key for 2 s (a day by default); the answer is lost and the client \
            retries after 2.5 s. Notice: both servers have forgotten the key and create a second order. How \
            long keys are kept is a trade-off between storage and late retries, not a detail.",
    },
    Preset {
        name: "Hang up, work cancelled",
        policy: ClientPolicy {
            timeout_ms: 400,
            lock_timeout_secs: 1,
            cancel_on_disconnect: true,
            server_delay_ms: 800,
            ..ClientPolicy::PLAIN
        },
        explanation: "As in the slow-response scenario the client gives up after 0.4 s, but now the server \
            drops the work when the client hangs up, as a Rust handler does unless its work is spawned. \
            Notice: no order at all on either server, however often the client retries, and Safe is left \
            with a claim and no order, answering 409 until the claim's lock runs out. Whether work survives \
            a hang-up has to be decided, not left to the framework.",
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
    fn the_timeout_preset_gives_up_before_the_server_is_done_and_retries_after() {
        let policy = &PRESETS[2].policy;
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
