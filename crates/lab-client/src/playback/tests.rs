//! What a replayed run shows at a moment: attempts, orders, and the steps
//! one event back and forward.

use lab_wire::{Order, Step, StepKind, Timestamp};
use uuid::Uuid;

use super::*;
use crate::Outcome;

const ORIGIN_US: i64 = 1_700_000_000_000_000;

fn order(key: &str, stamped_ms: i64) -> Order {
    Order {
        // Distinct per order: its stamp is unique within each test.
        id: Uuid::from_u128(stamped_ms.unsigned_abs() as u128),
        item: "tea".into(),
        amount_cents: 450,
        idempotency_key: key.into(),
        created_at: Timestamp::from_micros(ORIGIN_US + stamped_ms * 1000),
    }
}

fn step(request: u64, key: &str, at_ms: i64, kind: StepKind) -> Step {
    Step {
        seq: request * 100 + at_ms as u64,
        request,
        key: key.into(),
        at_us: ORIGIN_US + at_ms * 1000,
        kind,
    }
}

#[test]
fn an_attempt_is_unsent_then_waiting_then_answered_as_time_passes() {
    let record = AttemptRecord {
        copy: 1,
        number: 2,
        key: "k".into(),
        started_ms: 100.0,
        ended_ms: Some(350.0),
        outcome: Some(Outcome::Created),
    };
    assert_eq!(attempt_at(&record, 99.0), None);
    let waiting = attempt_at(&record, 200.0).unwrap();
    assert_eq!((waiting.ended_ms, waiting.outcome), (None, None));
    assert_eq!(attempt_at(&record, 350.0), Some(record.clone()));
    assert_eq!(attempt_at(&record, 9_999.0), Some(record));
}

#[test]
fn each_duplicate_appears_when_its_own_insert_was_reported() {
    // Naive's race: two copies of key "a" stamped 1 ms apart, inserted at
    // +302 and +303 ms; and an order from an earlier run.
    let earlier = order("old", -60_000);
    let first = order("a", 301);
    let second = order("a", 302);
    let orders = vec![earlier.clone(), first.clone(), second.clone()];
    let steps = vec![
        step(1, "a", 0, StepKind::SlowPartStarted { ms: 300 }),
        step(1, "a", 302, StepKind::OrderInserted),
        step(2, "a", 303, StepKind::OrderInserted),
    ];
    let ids = |ms| -> Vec<Uuid> {
        orders_at(&orders, &steps, ORIGIN_US, ms)
            .iter()
            .map(|o| o.id)
            .collect()
    };
    assert_eq!(ids(BEFORE_START), [earlier.id]);
    assert_eq!(ids(301.5), [earlier.id], "stamped, but not inserted yet");
    assert_eq!(ids(302.0), [earlier.id, first.id]);
    assert_eq!(ids(303.0), [earlier.id, first.id, second.id]);
}

#[test]
fn a_rolled_back_insert_shows_no_order_and_the_retry_s_insert_shows_one() {
    // Transactional, crash mid-request: request 1 inserted then rolled back
    // (its order never stored); request 2, the retry, inserted at +900 ms.
    let kept = order("a", 899);
    let orders = vec![kept.clone()];
    let steps = vec![
        step(1, "a", 10, StepKind::OrderInserted),
        step(1, "a", 20, StepKind::RolledBack),
        step(2, "a", 900, StepKind::OrderInserted),
    ];
    assert!(orders_at(&orders, &steps, ORIGIN_US, 500.0).is_empty());
    assert_eq!(orders_at(&orders, &steps, ORIGIN_US, 900.0), [kept]);
}

#[test]
fn an_order_whose_step_was_missed_appears_at_its_stamp() {
    let orders = vec![order("a", 40)];
    assert!(orders_at(&orders, &[], ORIGIN_US, 39.0).is_empty());
    assert_eq!(orders_at(&orders, &[], ORIGIN_US, 40.0).len(), 1);
}

#[test]
fn stepping_moves_one_moment_and_stops_at_either_end() {
    let moments = [0.0, 2.0, 302.0];
    assert_eq!(next_moment(&moments, BEFORE_START), 0.0);
    assert_eq!(next_moment(&moments, 0.0), 2.0);
    assert_eq!(next_moment(&moments, 100.0), 302.0);
    assert_eq!(next_moment(&moments, 302.0), 302.0, "the end stays the end");
    assert_eq!(previous_moment(&moments, 302.0), 2.0);
    assert_eq!(previous_moment(&moments, 100.0), 2.0);
    assert_eq!(previous_moment(&moments, 0.0), BEFORE_START);
    assert_eq!(previous_moment(&[], 5.0), BEFORE_START);
    assert_eq!(next_moment(&[], 5.0), BEFORE_START);
}
