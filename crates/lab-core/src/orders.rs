//! The orders, every server's in one table (`lab_orders`, a `server`
//! column apart): what an order is does not differ between the designs,
//! only how each guards the key, in a key table of its own. This is
//! lab-core's store: the orders' SQL is here and in its migrations.

use chrono::{DateTime, SubsecRound, Utc};
use lab_wire::{Gate, IdempotencyKey, LabId, NewOrder, Order};
use uuid::Uuid;

use lab_platform::db::Migrations;
use lab_platform::{Db, DbTx, LabError, with_pool, with_reader, with_tx};

/// Inserts an order: `$1` server, `$2` id, `$3` lab, `$4` item, `$5` amount,
/// `$6` key, `$7` created at; unless the server's lab already holds `$8`
/// orders. The count stops at `$8`, so its cost is bounded by the limit, not
/// by the lab; and it is in the same statement, so the check costs no round
/// trip. Inserts racing at the limit may pass it by as many as they are:
/// a lab has at most `--max-requests-per-lab` requests in progress.
const INSERT_ORDER: &str = "INSERT INTO lab_orders \
     (server, id, lab_id, item, amount_cents, idempotency_key, created_at) \
     SELECT $1, $2, $3, $4, $5, $6, $7 \
     WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM lab_orders WHERE server = $1 AND lab_id = $3 LIMIT $8) AS held) < $8";
/// A server's (`$1`) orders in a lab (`$2`), oldest first.
const LIST_ORDERS: &str = "SELECT id, item, amount_cents, idempotency_key, created_at \
     FROM lab_orders WHERE server = $1 AND lab_id = $2 ORDER BY seq";
/// A server's (`$1`) first order in a lab (`$2`) for a key (`$3`) written at or after `$4`.
const ORDER_WRITTEN_SINCE: &str = "SELECT id, item, amount_cents, idempotency_key, created_at \
     FROM lab_orders WHERE server = $1 AND lab_id = $2 AND idempotency_key = $3 \
     AND created_at >= $4 ORDER BY seq LIMIT 1";
/// Deletes up to `$3` of a server's (`$1`) orders in labs that have placed
/// no order there since `$2` (see [`crate::cleanup::forget_idle_labs`]).
pub const DELETE_IDLE_ORDERS: &str = "DELETE FROM lab_orders WHERE seq IN (\
     SELECT seq FROM lab_orders WHERE server = $1 AND created_at < $2 \
     AND lab_id NOT IN (SELECT lab_id FROM lab_orders WHERE server = $1 AND created_at >= $2) \
     LIMIT $3)";
/// Deletes a server's (`$1`) orders in a lab (`$2`).
const DELETE_ORDERS: &str = "DELETE FROM lab_orders WHERE server = $1 AND lab_id = $2";

/// The shared orders table's migrations (run before any server's).
pub fn shared_migrations() -> Migrations {
    lab_platform::migrations!()()
}

/// One server's orders, and how it forgets a lab.
#[derive(Debug)]
pub struct OrderTables {
    /// The server's name in the `server` column: `naive`, `safe`, `transactional`.
    pub server: &'static str,
    /// Deletes a lab's (`$1`) idempotency keys from the server's key table.
    pub delete_keys: &'static str,
}

/// An order as the orders table's `SELECT`s return it: id, item, amount, key, created at.
type OrderRow = (Uuid, String, i64, String, DateTime<Utc>);

/// The order a row of [`OrderRow`] describes.
fn order_from_row((id, item, amount_cents, idempotency_key, created_at): OrderRow) -> Order {
    Order {
        id,
        item,
        amount_cents,
        idempotency_key,
        created_at: created_at.into(),
    }
}

/// Binds an order's columns, in [`INSERT_ORDER`]'s parameter order.
macro_rules! bind_order {
    ($query:expr, $server:expr, $order:expr, $lab:expr) => {
        $query
            .bind($server)
            .bind($order.id)
            .bind($lab.as_str())
            .bind(&$order.item)
            .bind($order.amount_cents)
            .bind(&$order.idempotency_key)
            .bind(DateTime::<Utc>::from($order.created_at))
    };
}

/// `order` if the insert went in; the lab is full if it did not.
fn inserted_or_full(inserted: u64, limit: u32, order: Order) -> Result<Order, LabError> {
    if inserted == 0 {
        return Err(LabError::OrdersLimit(limit));
    }
    Ok(order)
}

/// A new order for `key`, not yet stored: for a server that writes it
/// with SQL of its own (the one-trip server's single statement).
pub fn unsaved_order(key: &IdempotencyKey, new: &NewOrder) -> Order {
    new_order(key.as_str(), new)
}

/// A new order for `key` (`""` for a request without one), not yet stored.
fn new_order(key: &str, new: &NewOrder) -> Order {
    Order {
        id: Uuid::new_v4(),
        item: new.item.clone(),
        amount_cents: new.amount_cents,
        idempotency_key: key.to_owned(),
        // PostgreSQL keeps microseconds: trim here so the 201 and later reads agree.
        created_at: Utc::now().trunc_subsecs(6).into(),
    }
}

impl OrderTables {
    /// Creates an order for `key` in `lab`, unless the lab already holds
    /// [`Db::orders_per_lab`] orders on this server.
    pub async fn insert_order(
        &self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
        new: &NewOrder,
    ) -> Result<Order, LabError> {
        self.insert(db, lab, key.as_str(), new).await
    }

    /// Creates an order that no key names (its `idempotency_key` is `""`,
    /// which no key can be), unless the lab is full: a plain POST.
    pub async fn insert_order_without_key(
        &self,
        db: &Db,
        lab: &LabId,
        new: &NewOrder,
    ) -> Result<Order, LabError> {
        self.insert(db, lab, "", new).await
    }

    async fn insert(
        &self,
        db: &Db,
        lab: &LabId,
        key: &str,
        new: &NewOrder,
    ) -> Result<Order, LabError> {
        let order = new_order(key, new);
        let limit = db.orders_per_lab();
        let inserted = with_pool!(db, Gate::InsertOrder, |pool| {
            bind_order!(sqlx::query(INSERT_ORDER), self.server, order, lab)
                .bind(i64::from(limit))
                .execute(pool)
                .await?
                .rows_affected()
        });
        inserted_or_full(inserted, limit, order)
    }

    /// Like [`Self::insert_order`], inside the transaction `tx` (the limit is `db`'s).
    pub async fn insert_order_in(
        &self,
        tx: &mut DbTx,
        limit: u32,
        lab: &LabId,
        key: &IdempotencyKey,
        new: &NewOrder,
    ) -> Result<Order, LabError> {
        let order = new_order(key.as_str(), new);
        let inserted = with_tx!(tx, Gate::InsertOrder, |conn| {
            bind_order!(sqlx::query(INSERT_ORDER), self.server, order, lab)
                .bind(i64::from(limit))
                .execute(conn)
                .await?
                .rows_affected()
        });
        inserted_or_full(inserted, limit, order)
    }

    /// The lab's orders, oldest first.
    pub async fn list_orders(&self, db: &Db, lab: &LabId) -> sqlx::Result<Vec<Order>> {
        let rows: Vec<OrderRow> = with_reader!(db, |pool| {
            sqlx::query_as(LIST_ORDERS)
                .bind(self.server)
                .bind(lab.as_str())
                .fetch_all(pool)
                .await?
        });
        Ok(rows.into_iter().map(order_from_row).collect())
    }

    /// The first order for `key` written at or after `since`: what a claim's
    /// request created before it died, if it got that far.
    pub async fn order_written_since(
        &self,
        db: &Db,
        lab: &LabId,
        key: &IdempotencyKey,
        since: DateTime<Utc>,
    ) -> sqlx::Result<Option<Order>> {
        let row: Option<OrderRow> = with_reader!(db, Gate::FindOrder, |pool| {
            sqlx::query_as(ORDER_WRITTEN_SINCE)
                .bind(self.server)
                .bind(lab.as_str())
                .bind(key.as_str())
                .bind(since)
                .fetch_optional(pool)
                .await?
        });
        Ok(row.map(order_from_row))
    }

    /// Deletes the lab's keys and orders in one transaction.
    pub async fn delete_lab(&self, db: &Db, lab: &LabId) -> sqlx::Result<()> {
        with_pool!(db, |pool| {
            let mut tx = pool.begin().await?;
            sqlx::query(self.delete_keys)
                .bind(lab.as_str())
                .execute(&mut *tx)
                .await?;
            sqlx::query(DELETE_ORDERS)
                .bind(self.server)
                .bind(lab.as_str())
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }
}
