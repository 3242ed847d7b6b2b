//! How the client behaves: how many copies it sends, how long it waits,
//! how often it retries and which key each attempt carries.

use crate::Outcome;
pub use lab_wire::run::{ClientPolicy, MAX_COPIES, MAX_RETRIES};

/// One HTTP attempt to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptPlan {
    /// Which copy this attempt belongs to, from 1.
    pub copy: u8,
    /// Which attempt of that copy, from 1.
    pub number: u8,
    /// The `Idempotency-Key` it carries; `""`: none.
    pub key: String,
    /// Whether it reads the orders (`GET`) instead of placing one.
    pub read_only: bool,
    /// Whether to ask the server to drop the answer.
    pub drop_response: bool,
    /// Whether to ask the server to crash right after creating the order.
    pub crash_after_create: bool,
    /// Whether this attempt carries the changed order instead of the original.
    pub changed_order: bool,
    /// `Lab-Key-Retention-Secs` to send (0 = none).
    pub key_retention_secs: u32,
    /// `Lab-Lock-Timeout-Secs` to send (0 = none).
    pub lock_timeout_secs: u32,
    /// Whether to send `Lab-Cancellation: on-disconnect`.
    pub cancel_on_disconnect: bool,
    /// `Lab-Delay-Ms` to send.
    pub server_delay_ms: u32,
    /// How long to wait for the answer (0 = no limit).
    pub timeout_ms: u32,
    /// Whether to send `Lab-Side-Effects: charge-and-email`.
    pub side_effects: bool,
    /// Whether to ask the server to crash right after the charge.
    pub crash_after_charge: bool,
    /// Whether to send `Lab-Fencing: on`.
    pub fencing: bool,
}

/// Runs one copy's attempts: sends, and retries as the policy says, until an
/// answer that needs no retry or until the retries run out. Returns the outcomes.
///
/// `send` makes one HTTP attempt; `sleep` waits; `fresh_key` makes a new key.
/// Passing them in keeps this loop free of the browser, so it is tested natively.
pub async fn run_copy<S, SF, W, WF>(
    policy: &ClientPolicy,
    copy: u8,
    purchase_key: &str,
    mut fresh_key: impl FnMut() -> String,
    mut send: S,
    mut sleep: W,
) -> Vec<Outcome>
where
    S: FnMut(AttemptPlan) -> SF,
    SF: Future<Output = Outcome>,
    W: FnMut(u32) -> WF,
    WF: Future<Output = ()>,
{
    let mut outcomes = Vec::new();
    // A crash after the charge needs a charge: without side effects the
    // servers would refuse the request (400), so it is not asked for.
    let crash_after_charge = policy.crash_after_charge && policy.side_effects;
    for number in 1..=policy.retries + 1 {
        if number > 1 {
            sleep(policy.backoff_before(number)).await;
        }
        let key = if policy.no_key {
            String::new()
        } else if policy.new_key_per_attempt {
            fresh_key()
        } else {
            // The point of the lesson: one key per purchase, made before the
            // first attempt and sent again on every retry.
            purchase_key.to_owned()
        };
        let outcome = send(AttemptPlan {
            copy,
            number,
            key,
            read_only: policy.read_only,
            drop_response: policy.drop_response
                && !policy.crash_after_create
                && !crash_after_charge
                && number == 1,
            crash_after_create: policy.crash_after_create && !crash_after_charge && number == 1,
            crash_after_charge: crash_after_charge && number == 1,
            side_effects: policy.side_effects,
            fencing: policy.fencing,
            changed_order: policy.change_order_on_retry && number > 1,
            key_retention_secs: policy.key_retention_secs,
            lock_timeout_secs: policy.lock_timeout_secs,
            cancel_on_disconnect: policy.cancel_on_disconnect,
            server_delay_ms: policy.server_delay_ms,
            timeout_ms: policy.timeout_ms,
        })
        .await;
        let retry = outcome.calls_for_retry();
        outcomes.push(outcome);
        if !retry {
            break;
        }
    }
    outcomes
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use futures::executor::block_on;

    use super::*;

    /// Runs a copy against scripted answers; returns the plans sent and the pauses taken.
    fn run_scripted(
        policy: &ClientPolicy,
        answers: Vec<Outcome>,
    ) -> (Vec<AttemptPlan>, Vec<u32>, Vec<Outcome>) {
        let plans = RefCell::new(Vec::new());
        let pauses = RefCell::new(Vec::new());
        let answers = RefCell::new(answers.into_iter());
        let counter = RefCell::new(0);
        let outcomes = block_on(run_copy(
            policy,
            1,
            "purchase-key",
            || {
                *counter.borrow_mut() += 1;
                format!("fresh-{}", counter.borrow())
            },
            |plan| {
                plans.borrow_mut().push(plan);
                let answer = answers
                    .borrow_mut()
                    .next()
                    .expect("no more scripted answers");
                async move { answer }
            },
            |ms| {
                pauses.borrow_mut().push(ms);
                async {}
            },
        ));
        (plans.into_inner(), pauses.into_inner(), outcomes)
    }

    #[test]
    fn a_dropped_first_answer_is_retried_with_the_same_key_and_only_the_first_is_dropped() {
        let policy = ClientPolicy {
            drop_response: true,
            ..ClientPolicy::default()
        };
        let (plans, pauses, outcomes) =
            run_scripted(&policy, vec![Outcome::Dropped, Outcome::Replayed]);
        assert_eq!(outcomes, vec![Outcome::Dropped, Outcome::Replayed]);
        assert_eq!(
            plans.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
            ["purchase-key", "purchase-key"]
        );
        assert_eq!(
            plans.iter().map(|p| p.drop_response).collect::<Vec<_>>(),
            [true, false]
        );
        assert_eq!(pauses, [300]);
    }

    #[test]
    fn retries_stop_at_the_limit_and_the_backoff_doubles() {
        let policy = ClientPolicy {
            retries: 3,
            backoff_ms: 100,
            ..ClientPolicy::default()
        };
        let (plans, pauses, outcomes) = run_scripted(&policy, vec![Outcome::TimedOut; 4]);
        assert_eq!(outcomes.len(), 4, "one attempt and three retries");
        assert_eq!(plans.last().unwrap().number, 4);
        assert_eq!(pauses, [100, 200, 400]);
    }

    #[test]
    fn a_409_is_retried_until_the_replay_arrives() {
        let policy = ClientPolicy {
            retries: 3,
            ..ClientPolicy::default()
        };
        let (_, _, outcomes) = run_scripted(
            &policy,
            vec![Outcome::TimedOut, Outcome::InProgress, Outcome::Replayed],
        );
        assert_eq!(
            outcomes,
            vec![Outcome::TimedOut, Outcome::InProgress, Outcome::Replayed]
        );
    }

    #[test]
    fn an_answer_is_not_retried_and_neither_is_a_refusal() {
        let policy = ClientPolicy {
            retries: 5,
            ..ClientPolicy::default()
        };
        assert_eq!(run_scripted(&policy, vec![Outcome::Created]).2.len(), 1);
        let refused = Outcome::Rejected {
            status: 422,
            problem: String::new(),
        };
        assert_eq!(run_scripted(&policy, vec![refused]).2.len(), 1);
    }

    #[test]
    fn a_crash_hits_the_first_attempt_only_and_a_changed_order_goes_with_the_retries() {
        let policy = ClientPolicy {
            crash_after_create: true,
            drop_response: true,
            change_order_on_retry: true,
            ..ClientPolicy::default()
        };
        let (plans, _, _) = run_scripted(&policy, vec![Outcome::Crashed, Outcome::Created]);
        assert_eq!(
            plans
                .iter()
                .map(|p| p.crash_after_create)
                .collect::<Vec<_>>(),
            [true, false]
        );
        assert!(
            plans.iter().all(|p| !p.drop_response),
            "a crash wins over a dropped answer"
        );
        assert_eq!(
            plans.iter().map(|p| p.changed_order).collect::<Vec<_>>(),
            [false, true]
        );
    }

    #[test]
    fn a_new_key_per_attempt_gives_every_attempt_its_own_key() {
        let policy = ClientPolicy {
            new_key_per_attempt: true,
            drop_response: true,
            ..ClientPolicy::default()
        };
        let (plans, _, _) = run_scripted(&policy, vec![Outcome::Dropped, Outcome::Created]);
        assert_eq!(
            plans.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
            ["fresh-1", "fresh-2"]
        );
    }

    #[test]
    fn a_client_with_no_key_sends_none_on_any_attempt() {
        let policy = ClientPolicy {
            no_key: true,
            new_key_per_attempt: true,
            drop_response: true,
            ..ClientPolicy::default()
        };
        let (plans, _, _) = run_scripted(&policy, vec![Outcome::Dropped, Outcome::Created]);
        assert_eq!(
            plans.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
            ["", ""]
        );
    }

    #[test]
    fn out_of_range_settings_are_pulled_back_into_range() {
        let policy = ClientPolicy {
            copies: 40,
            retries: 9,
            server_delay_ms: 99_999,
            ..ClientPolicy::default()
        }
        .clamped();
        assert_eq!(
            (policy.copies, policy.retries, policy.server_delay_ms),
            (6, 5, 10_000)
        );
        assert_eq!(
            ClientPolicy {
                copies: 0,
                ..ClientPolicy::default()
            }
            .clamped()
            .copies,
            1
        );
    }
}
