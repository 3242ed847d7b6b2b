//! The naive order server: the article's first attempt at idempotency keys.
//!
//! It checks for the key, creates the order, then stores the key. Sequential
//! retries are handled; two requests with one key that arrive together both
//! see "no key yet" and both create an order. The flow is in [`handler`],
//! its SQL in [`store`]; compare them with the safe server's.

use axum::Router;
use axum::routing::post;
use lab_core::error::{method_not_allowed, not_found};
use lab_core::{Db, LabError, OrderServer};

pub mod handler;
pub mod store;

/// The naive server, for the launcher and the standalone binary.
pub struct NaiveServer;

impl OrderServer for NaiveServer {
    const NAME: &'static str = "naive";

    fn router(db: Db) -> Router {
        router(db)
    }

    async fn migrate(db: &Db) -> Result<(), LabError> {
        migrate(db).await
    }
}

/// The routes `POST/GET/DELETE /orders` over `db`.
pub fn router(db: Db) -> Router {
    Router::new()
        .route(
            "/orders",
            post(handler::create_order)
                .get(handler::list_orders)
                .delete(handler::delete_orders),
        )
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(db)
}

/// Creates or updates the naive server's tables.
pub async fn migrate(db: &Db) -> Result<(), LabError> {
    db.migrate(
        sqlx::migrate!("migrations/sqlite"),
        sqlx::migrate!("migrations/postgres"),
    )
    .await
}
