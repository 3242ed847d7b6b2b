//! The orders table. Every server keeps one alike (each its own table, so
//! their orders never mix); only how they guard the key differs. The SQL
//! text stays in each server's store module and is run from here.

use chrono::{DateTime, SubsecRound, Utc};
use lab_wire::{IdempotencyKey, LabId, NewOrder, Order};
use uuid::Uuid;

use crate::{Db, DbTx, with_pool, with_reader, with_tx};

/// One server's SQL for its orders and for forgetting a lab.
#[derive(Debug)]
pub struct OrderTables {
    /// Inserts an order: `$1` id, `$2` lab, `$3` item, `$4` amount, `$5` key, `$6` created at.
    pub insert_order: &'static str,
    /// Selects a lab's orders (`$1`), oldest first: id, item, amount, key, created at.
    pub list_orders: &'static str,
    /// Deletes a lab's (`$1`) idempotency keys.
    pub delete_keys: &'static str,
    /// Deletes a lab's (`$1`) orders.
    pub delete_orders: &'static str,
}

/// An order as the orders tables' `SELECT`s return it: id, item, amount, key, created at.
pub type OrderRow = (Uuid, String, i64, String, DateTime<Utc>);

/// The order a row of [`OrderRow`] describes.
pub fn order_from_row((id, item, amount_cents, idempotency_key, created_at): OrderRow) -> Order {
    Order {
        id,
        item,
        amount_cents,
        idempotency_key,
        created_at,
    }
}

/// Binds an order's columns, in `insert_order`'s parameter order.
macro_rules! bind_order {
    ($query:expr, $order:expr, $lab:expr) => {
        $query
            .bind($order.id)
            .bind($lab.as_str())
            .bind(&$order.item)
            .bind($order.amount_cents)
            .bind(&$order.idempotency_key)
            .bind($order.created_at)
    };
}

/// A new order for `key`, not yet stored.
fn new_order(key: &IdempotencyKey, new: &NewOrder) -> Order {
    Order {
        id: Uuid::new_v4(),
        item: new.item.clone(),
        amount_cents: new.amount_cents,
        idempotency_key: key.as_str().to_owned(),
        // PostgreSQL keeps microseconds: trim here so the 201 and later reads agree.
        created_at: Utc::now().trunc_subsecs(6),
    }
}

impl OrderTables {
    /// Creates an order for `key` in `lab`.
    pub async fn insert_order(
        &self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
        new: &NewOrder,
    ) -> sqlx::Result<Order> {
        let order = new_order(key, new);
        with_pool!(db, |pool| {
            bind_order!(sqlx::query(self.insert_order), order, lab)
                .execute(pool)
                .await?;
        });
        Ok(order)
    }

    /// Creates an order for `key` in `lab`, inside the transaction `tx`.
    pub async fn insert_order_in(
        &self,
        tx: &mut DbTx,
        lab: &LabId,
        key: &IdempotencyKey,
        new: &NewOrder,
    ) -> sqlx::Result<Order> {
        let order = new_order(key, new);
        with_tx!(tx, |conn| {
            bind_order!(sqlx::query(self.insert_order), order, lab)
                .execute(conn)
                .await?;
        });
        Ok(order)
    }

    /// The lab's orders, oldest first.
    pub async fn list_orders(&self, db: &Db, lab: &LabId) -> sqlx::Result<Vec<Order>> {
        let rows: Vec<OrderRow> = with_reader!(db, |pool| {
            sqlx::query_as(self.list_orders)
                .bind(lab.as_str())
                .fetch_all(pool)
                .await?
        });
        Ok(rows.into_iter().map(order_from_row).collect())
    }

    /// Deletes the lab's keys and orders in one transaction.
    pub async fn delete_lab(&self, db: &Db, lab: &LabId) -> sqlx::Result<()> {
        with_pool!(db, |pool| {
            let mut tx = pool.begin().await?;
            sqlx::query(self.delete_keys)
                .bind(lab.as_str())
                .execute(&mut *tx)
                .await?;
            sqlx::query(self.delete_orders)
                .bind(lab.as_str())
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }
}
