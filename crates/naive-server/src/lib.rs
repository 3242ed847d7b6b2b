//! The naive order server: the article's first attempt at idempotency keys.
//!
//! It checks for the key, creates the order, then stores the key. Sequential
//! retries are handled; two requests with one key that arrive together both
//! see "no key yet" and both create an order. The flow is in [`handler`],
//! its SQL in [`store`]; compare them with the safe server's.

use axum::Router;
use axum::response::Response;
use lab_core::cleanup::ExpiredKeys;
use lab_core::{
    Db, LabError, OrderRequest, OrderServer, OrderTables, ServerState, Steps, order_routes,
};

pub mod handler;
pub mod store;

/// The naive server, for the launcher and the standalone binary.
pub struct NaiveServer;

impl OrderServer for NaiveServer {
    const NAME: &'static str = "naive";
    const ORDER_TABLES: &'static OrderTables = &store::ORDER_TABLES;
    const EXPIRED_KEYS: ExpiredKeys = ExpiredKeys {
        table: "naive_idempotency_keys",
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

    /// Creates or updates the naive server's tables.
    async fn migrate(db: &Db) -> Result<(), LabError> {
        db.migrate(
            sqlx::migrate!("migrations/sqlite"),
            sqlx::migrate!("migrations/postgres"),
        )
        .await
    }
}
