//! A finished run as the page saves it (`POST /api/runs`) and draws it
//! again at its permalink: the order, the client's behaviour, and for each
//! pane its server, attempts, steps and the orders the run made. Saved
//! whole, so the permalink shows what the run showed, in the viewer's
//! language, without running anything again.

use lab_wire::{NewOrder, Order, Step};
use serde::{Deserialize, Serialize};

use crate::{AttemptRecord, ClientPolicy, Design, Purchases};

/// The purchase number a saved run's orders are grouped under.
pub const SAVED_PURCHASE: u32 = 1;

/// One run, both panes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// What was ordered.
    pub order: NewOrder,
    /// How the client behaved.
    pub policy: ClientPolicy,
    /// The lesson step it was run at (1–9), if any.
    pub lesson_step: Option<u8>,
    /// The panes, left to right.
    pub panes: Vec<PaneRecord>,
}

/// What one pane showed at the end of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneRecord {
    /// The pane's server.
    pub server: Design,
    /// The client's attempts against it.
    pub attempts: Vec<AttemptRecord>,
    /// The steps it reported.
    pub steps: Vec<Step>,
    /// How many steps the stream missed (the picture is incomplete if any).
    pub steps_missed: u64,
    /// The orders the run made there.
    pub orders: Vec<Order>,
    /// How many that is (what the server reads, to count duplicates).
    pub orders_of_run: u32,
    /// With side effects: the run's charges, the cents they took, and the e-mails sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<(u64, i64, u64)>,
}

impl RunRecord {
    /// Which purchase each of the saved orders belongs to: all to the one
    /// saved purchase, by their keys, or for orders made without a key, by id.
    pub fn purchases(&self) -> Purchases {
        let mut purchases = Purchases::default();
        let purchase = purchases.start();
        for pane in &self.panes {
            for attempt in &pane.attempts {
                purchases.add_key(purchase, &attempt.key);
            }
            for order in pane.orders.iter().filter(|o| o.idempotency_key.is_empty()) {
                purchases.add_keyless_order(purchase, order.id);
            }
        }
        purchases
    }
}

#[cfg(test)]
mod tests {
    use lab_wire::{StepKind, Timestamp};

    use super::*;
    use crate::Outcome;

    fn record() -> RunRecord {
        let order = |key: &str, n: u128| Order {
            id: uuid::Uuid::from_u128(n),
            item: "coffee".into(),
            amount_cents: 450,
            idempotency_key: key.into(),
            created_at: Timestamp::from_micros(1_796_205_600_000_000),
        };
        RunRecord {
            order: NewOrder {
                item: "coffee".into(),
                amount_cents: 450,
            },
            policy: ClientPolicy {
                copies: 3,
                server_delay_ms: 300,
                ..ClientPolicy::PLAIN
            },
            lesson_step: Some(5),
            panes: vec![PaneRecord {
                server: Design::Naive,
                attempts: vec![AttemptRecord {
                    copy: 1,
                    number: 1,
                    key: "k1".into(),
                    started_ms: 1.5,
                    ended_ms: Some(310.25),
                    outcome: Some(Outcome::Rejected {
                        status: 422,
                        problem: "/problems/idempotency-key-reused".into(),
                    }),
                }],
                steps: vec![Step {
                    seq: 1,
                    request: 1,
                    key: "k1".into(),
                    at_us: 7,
                    kind: StepKind::OrderInserted,
                }],
                steps_missed: 0,
                orders: vec![order("k1", 1), order("", 2)],
                orders_of_run: 2,
                effects: None,
            }],
        }
    }

    #[test]
    fn a_run_comes_back_from_json_as_it_was_saved() {
        let saved = record();
        let json = serde_json::to_string(&saved).unwrap();
        assert!(json.contains(r#""server":"naive""#), "{json}");
        assert!(json.contains(r#""orders_of_run":2"#), "{json}");
        assert!(json.contains(r#""lesson_step":5"#), "{json}");
        assert_eq!(serde_json::from_str::<RunRecord>(&json).unwrap(), saved);
    }

    #[test]
    fn a_saved_panes_orders_all_belong_to_the_saved_purchase() {
        let record = record();
        let purchases = record.purchases();
        for order in &record.panes[0].orders {
            assert_eq!(purchases.purchase_of_order(order), Some(SAVED_PURCHASE));
        }
    }
}
