//! The orders table. Both servers keep one alike (each its own table, so
//! their orders never mix); only how they guard the key differs. The SQL
//! text stays in each server's store module and is run from here.

use chrono::{DateTime, SubsecRound, Utc};
use lab_wire::{IdempotencyKey, LabId, NewOrder, Order};
use uuid::Uuid;

use crate::{Db, with_pool};

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

type OrderRow = (Uuid, String, i64, String, DateTime<Utc>);

impl OrderTables {
    /// Creates an order for `key` in `lab`.
    pub async fn insert_order(
        &self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
        new: &NewOrder,
    ) -> sqlx::Result<Order> {
        let order = Order {
            id: Uuid::new_v4(),
            item: new.item.clone(),
            amount_cents: new.amount_cents,
            idempotency_key: key.as_str().to_owned(),
            // PostgreSQL keeps microseconds: trim here so the 201 and later reads agree.
            created_at: Utc::now().trunc_subsecs(6),
        };
        with_pool!(db, |pool| {
            sqlx::query(self.insert_order)
                .bind(order.id)
                .bind(lab.as_str())
                .bind(&order.item)
                .bind(order.amount_cents)
                .bind(&order.idempotency_key)
                .bind(order.created_at)
                .execute(pool)
                .await?;
        });
        Ok(order)
    }

    /// The lab's orders, oldest first.
    pub async fn list_orders(&self, db: &Db, lab: &LabId) -> sqlx::Result<Vec<Order>> {
        let rows: Vec<OrderRow> = with_pool!(db, |pool| {
            sqlx::query_as(self.list_orders)
                .bind(lab.as_str())
                .fetch_all(pool)
                .await?
        });
        Ok(rows
            .into_iter()
            .map(
                |(id, item, amount_cents, idempotency_key, created_at)| Order {
                    id,
                    item,
                    amount_cents,
                    idempotency_key,
                    created_at,
                },
            )
            .collect())
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
