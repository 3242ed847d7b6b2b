//! The safe order server: the article's constraint-based version, three
//! statements in a row (claim the key, create the order, save the answer).
//!
//! It claims the key first, in a column with a UNIQUE constraint, and only
//! the request whose insert succeeded creates the order. A racing duplicate
//! gets the database's unique violation and answers `409` (first request
//! still running) or replays the stored response. A request that dies
//! between the statements leaves a claim with no answer: it blocks retries
//! (`409`) until its lock runs out, then a retry takes it over and finishes
//! the work, adopting an order that was already written. The flow is in
//! [`handler`], its SQL in [`store`]; compare them with the naive and the
//! transactional server's.

use axum::Router;
use axum::response::Response;
use lab_core::cleanup::ExpiredKeys;
use lab_core::{
    Db, LabError, OrderRequest, OrderServer, OrderTables, ServerState, Steps, order_routes,
};

pub mod handler;
pub mod store;

/// The safe server, for the launcher and the standalone binary.
pub struct SafeServer;

impl OrderServer for SafeServer {
    const NAME: &'static str = "safe";
    const ORDER_TABLES: &'static OrderTables = &store::ORDER_TABLES;
    const EXPIRED_KEYS: ExpiredKeys = ExpiredKeys {
        table: "safe_idempotency_keys",
        delete_batch: store::DELETE_EXPIRED_KEYS,
    };

    /// `POST /orders` through [`handler::create_order`]; `GET` and `DELETE` as every server.
    fn routes(state: ServerState) -> Router {
        order_routes(state, handler::create_order)
    }

    fn place_order(
        db: Db,
        request: OrderRequest,
        steps: Steps,
    ) -> impl Future<Output = Result<Response, LabError>> + Send {
        handler::place_order(db, request, steps)
    }

    /// Creates or updates the safe server's tables.
    async fn migrate(db: &Db) -> Result<(), LabError> {
        db.migrate(
            sqlx::migrate!("migrations/sqlite"),
            sqlx::migrate!("migrations/postgres"),
        )
        .await
    }
}
