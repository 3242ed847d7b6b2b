//! What makes an order server: a name, where it keeps its keys and orders,
//! and its `POST /orders` flow. Everything else (routes, the step stream,
//! running alone or inside the launcher) comes from here, so a server's
//! crate holds only its handler, its store and its migrations.

use axum::Router;
use axum::response::Response;

use crate::orders::{OrderTables, shared_migrations};
use crate::request::OrderRequest;
use crate::routes::order_routes;
use crate::shop::Shop;
use crate::state::ServerState;
use lab_platform::db::Migrations;
use lab_platform::limits::Room;
use lab_platform::{Db, LabError};

/// Where a server keeps its orders and keys: the SQL the shared code runs
/// for it, and its migrations.
#[derive(Debug)]
pub struct ServerStorage {
    /// Its orders (in the shared table) and how to forget a lab.
    pub order_tables: OrderTables,
    /// How the cleanup job deletes its expired keys.
    pub expired_keys: ExpiredKeys,
    /// Its migrations: [`lab_platform::migrations!`] in the server's crate, whose
    /// folders `sqlx::migrate!` reads at compile time.
    pub migrations: fn() -> Migrations,
}

/// One key table's cleanup: its name for the log, and its delete statements.
#[derive(Debug, Clone, Copy)]
pub struct ExpiredKeys {
    /// The table, for log lines.
    pub table: &'static str,
    /// Deletes up to `$2` rows that expired before `$1`, and the claims
    /// whose request never answered once their lock and retention are
    /// past `$1` (a retry could take such a claim over anyway, and would
    /// find it expired).
    pub delete_batch: &'static str,
    /// Deletes up to `$2` keys created before `$1` in labs that have
    /// placed no order on this server since `$1`.
    pub delete_idle_batch: &'static str,
}

/// One order server, as the launcher, the benchmark and the standalone
/// binaries see it.
pub trait OrderServer: Sized + 'static {
    /// A short name for URLs and messages, e.g. `naive`.
    const NAME: &'static str;

    /// Where the server keeps its orders and keys.
    const STORAGE: &'static ServerStorage;

    /// The server's `POST /orders` flow without HTTP around it: the steps
    /// that tell the designs apart, and its side effects through the
    /// shop's way out when the request asks for them. The benchmark's
    /// baseline calls it directly.
    fn place_order(
        request: OrderRequest,
        shop: Shop,
    ) -> impl Future<Output = Result<Response, LabError>> + Send + 'static;

    /// The server's state over `db`, with a step hub and limits of its own.
    fn state(db: Db) -> ServerState {
        Self::state_in(db, Room::default())
    }

    /// The server's state over `db`, with a step hub of its own, counting
    /// what each lab holds in `room` (which other servers may share).
    fn state_in(db: Db, room: Room) -> ServerState {
        ServerState::new(db, &Self::STORAGE.order_tables, room)
    }

    /// The server's routes over `state`: `POST /orders` through
    /// [`Self::place_order`], and what every server serves besides.
    fn routes(state: ServerState) -> Router {
        order_routes(state, Self::place_order)
    }

    /// The server's routes over `db`, with a step hub of their own.
    fn router(db: Db) -> Router {
        Self::routes(Self::state(db))
    }

    /// Creates or updates the shared orders table, then the server's own tables.
    fn migrate(db: &Db) -> impl Future<Output = Result<(), LabError>> + Send {
        async move {
            db.migrate(shared_migrations()).await?;
            db.migrate((Self::STORAGE.migrations)()).await
        }
    }
}
