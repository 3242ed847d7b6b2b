//! The transactional order server: the safe server's UNIQUE constraint, with
//! the key's claim, the order and the saved answer in one transaction.
//!
//! Nothing it writes for a request is visible until all of it commits, so a
//! crash or a dropped handler rolls everything back and the retry simply
//! succeeds, once. The price: a racing duplicate cannot be told "still
//! running" (it cannot see the uncommitted claim); it waits for the
//! database instead, then replays the answer. The flow is in [`handler`],
//! its SQL in [`store`]; compare them with the safe server's.

use axum::Router;
use axum::response::Response;
use lab_core::cleanup::ExpiredKeys;
use lab_core::{
    Db, LabError, OrderRequest, OrderServer, OrderTables, ServerState, Steps, order_routes,
};

pub mod handler;
pub mod store;

/// The transactional server, for the launcher and the standalone binary.
pub struct TransactionalServer;

impl OrderServer for TransactionalServer {
    const NAME: &'static str = "transactional";
    const ORDER_TABLES: &'static OrderTables = &store::ORDER_TABLES;
    const EXPIRED_KEYS: ExpiredKeys = ExpiredKeys {
        table: "transactional_idempotency_keys",
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

    /// Creates or updates the transactional server's tables.
    async fn migrate(db: &Db) -> Result<(), LabError> {
        db.migrate(
            sqlx::migrate!("migrations/sqlite"),
            sqlx::migrate!("migrations/postgres"),
        )
        .await
    }
}
