//! Server-side pieces that every order server shares (naive, safe and
//! transactional), so that each server's own crate holds only what differs:
//! the order of the steps and the SQL behind them.

pub mod cleanup;
pub mod config;
pub mod db;
pub mod error;
pub mod fault;
pub mod orders;
pub mod request;
pub mod routes;
pub mod serve;
pub mod standalone;
pub mod steps;
pub mod stored;
pub mod work;

pub use config::StorageArgs;
pub use db::{Db, DbTx};
pub use error::LabError;
pub use fault::Fault;
pub use orders::OrderTables;
pub use request::{DemoControls, LabScope, OrderRequest};
pub use routes::{ServerState, order_routes, run_order_flow};
pub use serve::serve;
pub use standalone::{OrderServer, StandaloneArgs};
pub use steps::{StepHub, Steps};
pub use stored::StoredResponse;
pub use work::finish_even_if_client_leaves;
