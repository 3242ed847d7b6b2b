//! A finished run as the page saves it (`POST /api/runs`) and draws it
//! again at its permalink: the order, the client's behaviour, and for each
//! pane its server, attempts, steps and the orders the run made. Saved
//! whole, so the permalink shows what the run showed, in the viewer's
//! language, without running anything again.

pub use lab_wire::run::{PaneRecord, RunRecord};

use crate::Purchases;

/// The purchase number a saved run's orders are grouped under.
pub const SAVED_PURCHASE: u32 = 1;

/// Which purchase each of a saved run's orders belongs to: all to the one
/// saved purchase, by their keys, or for orders made without a key, by id.
pub fn purchases_of(run: &RunRecord) -> Purchases {
    let mut purchases = Purchases::default();
    let purchase = purchases.start();
    for pane in &run.panes {
        for attempt in &pane.attempts {
            purchases.add_key(purchase, &attempt.key);
        }
        for order in pane.orders.iter().filter(|o| o.idempotency_key.is_empty()) {
            purchases.add_keyless_order(purchase, order.id);
        }
    }
    purchases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_panes_orders_all_belong_to_the_saved_purchase() {
        let order = |id: u8, key: &str| {
            format!(
                r#"{{"id":"00000000-0000-4000-8000-0000000000{id:02}","item":"tea","amount_cents":300,
                "idempotency_key":"{key}","created_at":"2026-12-06T10:00:00Z"}}"#
            )
        };
        let json = format!(
            r#"{{"order":{{"item":"tea","amount_cents":300}},"policy":{{"copies":1,"retries":0,
            "timeout_ms":0,"backoff_ms":0,"new_key_per_attempt":false,"no_key":false,
            "read_only":false,"drop_response":false,"crash_after_create":false,
            "change_order_on_retry":false,"key_retention_secs":0,"lock_timeout_secs":0,
            "cancel_on_disconnect":false,"server_delay_ms":0}},"lesson_step":null,
            "panes":[{{"server":"naive","attempts":[{{"copy":1,"number":1,"key":"k1",
            "started_ms":0.0,"ended_ms":1.0,"outcome":"created"}}],"steps":[],"steps_missed":0,
            "orders":[{},{}],"orders_of_run":2}}]}}"#,
            order(1, "k1"),
            order(2, "")
        );
        let record: RunRecord = serde_json::from_str(&json).unwrap();
        let purchases = purchases_of(&record);
        for order in &record.panes[0].orders {
            assert_eq!(purchases.purchase_of_order(order), Some(SAVED_PURCHASE));
        }
    }
}
