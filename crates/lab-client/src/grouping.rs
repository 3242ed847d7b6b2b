//! Grouping a server's orders by the purchase they were meant to be, so a
//! double charge stands out — even when each retry carried its own key.

use std::collections::HashMap;

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::Order;
use uuid::Uuid;

use crate::{key_label, money};

/// Which purchase (a press of "Place order") each key was sent for, and
/// each order made without a key (which only its id can name).
#[derive(Debug, Clone, Default)]
pub struct Purchases {
    by_key: HashMap<String, u32>,
    by_order: HashMap<Uuid, u32>,
    count: u32,
}

impl Purchases {
    /// Starts a new purchase and returns its number, from 1.
    pub fn start(&mut self) -> u32 {
        self.count += 1;
        self.count
    }

    /// The purchase started last, if any.
    pub fn current(&self) -> Option<u32> {
        (self.count > 0).then_some(self.count)
    }

    /// Records that `key` was sent for `purchase`.
    pub fn add_key(&mut self, purchase: u32, key: &str) {
        self.by_key.insert(key.to_owned(), purchase);
    }

    /// The purchase `key` was sent for, if this page sent it.
    pub fn purchase_of(&self, key: &str) -> Option<u32> {
        self.by_key.get(key).copied()
    }

    /// Records that the order `id`, made without a key, came of `purchase`.
    pub fn add_keyless_order(&mut self, purchase: u32, id: Uuid) {
        self.by_order.insert(id, purchase);
    }

    /// The purchase `order` came of, if this page made it: by its key, or
    /// for an order made without one, by its id.
    pub fn purchase_of_order(&self, order: &Order) -> Option<u32> {
        if order.idempotency_key.is_empty() {
            self.by_order.get(&order.id).copied()
        } else {
            self.purchase_of(&order.idempotency_key)
        }
    }

    /// Forgets every purchase (after a reset).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// The orders stored for one purchase (or, for orders this page did not
/// send, for one key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderGroup {
    /// The purchase number, if this page made the purchase.
    pub purchase: Option<u32>,
    /// The keys of the orders, in order of first appearance.
    pub keys: Vec<String>,
    /// The orders, oldest first.
    pub orders: Vec<Order>,
}

impl OrderGroup {
    /// More than one order for one purchase: the customer paid more than once.
    pub fn is_duplicate(&self) -> bool {
        self.orders.len() > 1
    }

    /// What the customer paid: `charged 4.50`, or `charged 2 × 4.50 = 9.00`.
    pub fn charged(&self, locale: Locale) -> String {
        let total: i64 = self.orders.iter().map(|order| order.amount_cents).sum();
        let first = self.orders.first().map_or(0, |order| order.amount_cents);
        let all_alike = self.orders.iter().all(|order| order.amount_cents == first);
        let total = money(total);
        match self.orders.len() {
            0 => td_string!(locale, group.charged_nothing).into(),
            n if n > 1 && all_alike => td_string!(
                locale,
                group.charged_times,
                count = n,
                price = money(first),
                total = total
            ),
            _ => td_string!(locale, group.charged, total = total),
        }
    }

    /// A title such as `Purchase 2 · key 3f2a9c1e` or `Key 3f2a9c1e`.
    pub fn title(&self, locale: Locale) -> String {
        let keys: Vec<String> = self.keys.iter().map(|key| key_label(key, locale)).collect();
        let keys = keys.join(td_string!(locale, group.key_separator));
        match self.purchase {
            Some(purchase) => td_string!(
                locale,
                group.purchase,
                count = self.keys.len() as u64,
                purchase = purchase,
                keys = keys
            ),
            None => td_string!(locale, group.unknown_purchase, keys = keys),
        }
    }
}

/// Groups `orders` (oldest first) by purchase, in order of each group's first order.
pub fn group_orders(orders: &[Order], purchases: &Purchases) -> Vec<OrderGroup> {
    let mut groups: Vec<OrderGroup> = Vec::new();
    for order in orders {
        let purchase = purchases.purchase_of_order(order);
        let existing = groups
            .iter_mut()
            .find(|group| match (purchase, group.purchase) {
                (Some(wanted), Some(have)) => wanted == have,
                (None, None) => group.keys.contains(&order.idempotency_key),
                _ => false,
            });
        let group = match existing {
            Some(group) => group,
            None => {
                groups.push(OrderGroup {
                    purchase,
                    keys: Vec::new(),
                    orders: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        if !group.keys.contains(&order.idempotency_key) {
            group.keys.push(order.idempotency_key.clone());
        }
        group.orders.push(order.clone());
    }
    groups
}

#[cfg(test)]
mod tests {
    use lab_wire::Timestamp;

    use super::*;

    fn order(key: &str, amount_cents: i64) -> Order {
        Order {
            id: uuid::Uuid::nil(),
            item: "coffee".into(),
            amount_cents,
            idempotency_key: key.into(),
            // 2026-12-02T10:00:00Z
            created_at: Timestamp::from_micros(1_796_205_600_000_000),
        }
    }

    #[test]
    fn two_orders_with_one_key_are_one_duplicated_purchase() {
        let mut purchases = Purchases::default();
        let first = purchases.start();
        purchases.add_key(first, "k1");
        let groups = group_orders(&[order("k1", 450), order("k1", 450)], &purchases);
        assert_eq!(groups.len(), 1);
        assert!(groups[0].is_duplicate());
        assert_eq!(groups[0].charged(Locale::en), "charged 2 × 4.50 = 9.00");
        assert_eq!(groups[0].charged(Locale::zh_CN), "扣款 2 × 4.50 = 9.00");
        assert_eq!(groups[0].title(Locale::en), "Purchase 1 · key k1");
        assert_eq!(groups[0].title(Locale::zh_CN), "第 1 次购买 · 键 k1");
    }

    #[test]
    fn orders_with_different_keys_of_one_purchase_are_still_a_duplicate() {
        let mut purchases = Purchases::default();
        let first = purchases.start();
        purchases.add_key(first, "attempt-1-key");
        purchases.add_key(first, "attempt-2-key");
        let groups = group_orders(
            &[order("attempt-1-key", 450), order("attempt-2-key", 450)],
            &purchases,
        );
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert!(groups[0].is_duplicate());
        assert_eq!(
            groups[0].title(Locale::en),
            "Purchase 1 · keys attempt-, attempt-"
        );
        assert_eq!(
            groups[0].title(Locale::zh_CN),
            "第 1 次购买 · 键 attempt-、attempt-"
        );
    }

    #[test]
    fn separate_purchases_and_unknown_keys_stay_apart() {
        let mut purchases = Purchases::default();
        let one = purchases.start();
        purchases.add_key(one, "a");
        let two = purchases.start();
        purchases.add_key(two, "b");
        let groups = group_orders(
            &[
                order("a", 450),
                order("b", 300),
                order("zzz", 100),
                order("a", 450),
            ],
            &purchases,
        );
        assert_eq!(
            groups.iter().map(|g| g.orders.len()).collect::<Vec<_>>(),
            [2, 1, 1]
        );
        assert_eq!(groups[1].charged(Locale::en), "charged 3.00");
        assert_eq!(groups[1].charged(Locale::zh_CN), "扣款 3.00");
        assert_eq!(groups[2].purchase, None);
        assert_eq!(groups[2].title(Locale::en), "Key zzz");
        assert_eq!(groups[2].title(Locale::zh_CN), "键 zzz");
        assert!(!groups[2].is_duplicate());
    }

    #[test]
    fn orders_made_without_a_key_are_grouped_by_the_purchase_that_made_them() {
        let keyless = |n: u128| Order {
            id: Uuid::from_u128(n),
            ..order("", 450)
        };
        let mut purchases = Purchases::default();
        let one = purchases.start();
        purchases.add_keyless_order(one, Uuid::from_u128(1));
        purchases.add_keyless_order(one, Uuid::from_u128(2));
        let two = purchases.start();
        purchases.add_keyless_order(two, Uuid::from_u128(3));
        let groups = group_orders(
            &[keyless(1), keyless(2), keyless(3), keyless(4)],
            &purchases,
        );
        assert_eq!(
            groups.iter().map(|g| g.orders.len()).collect::<Vec<_>>(),
            [2, 1, 1]
        );
        assert!(groups[0].is_duplicate());
        assert_eq!(groups[0].title(Locale::en), "Purchase 1 · key none");
        assert_eq!(groups[0].title(Locale::zh_CN), "第 1 次购买 · 键 无");
        assert_eq!(groups[2].purchase, None, "an order this page did not make");
    }
}
