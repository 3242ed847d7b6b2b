//! The safe order server: the article's constraint-based version, with its
//! holes closed.
//!
//! It claims the key first, in a column with a UNIQUE constraint, and only
//! the request whose insert succeeded creates the order. A racing duplicate
//! gets the database's unique violation and answers `409` (first request
//! still running) or replays the stored response. The flow is in
//! [`handler`], its SQL in [`store`]; compare them with the naive server's.

use axum::Router;
use axum::routing::post;
use lab_core::error::{method_not_allowed, not_found};
use lab_core::{Db, LabError, OrderServer};

pub mod handler;
pub mod store;

/// The safe server, for the launcher and the standalone binary.
pub struct SafeServer;

impl OrderServer for SafeServer {
    const NAME: &'static str = "safe";

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

/// Creates or updates the safe server's tables.
pub async fn migrate(db: &Db) -> Result<(), LabError> {
    db.migrate(
        sqlx::migrate!("migrations/sqlite"),
        sqlx::migrate!("migrations/postgres"),
    )
    .await
}
