//! Server-side pieces that every order server shares (naive, safe and
//! transactional), so that each server's own crate holds only what differs:
//! the order of the steps and the SQL behind them.
//!
//! The modules depend on each other in one direction only (`cargo xtask
//! check-layout` checks it): `serve` and `headers` at the bottom, then the
//! error type, faults, storage and steps, the request's inputs, the routes,
//! and last the [`OrderServer`] trait and running a server alone.

pub mod access;
pub mod cleanup;
pub mod config;
pub mod controls;
pub mod db;
pub mod error;
pub mod fault;
pub mod headers;
pub mod keyless;
pub mod limits;
pub mod middleware;
pub mod openapi;
pub mod orders;
pub mod outside;
pub mod request;
pub mod routes;
pub mod serve;
pub mod server;
pub mod side_effects;
pub mod standalone;
pub mod state;
pub mod step_stream;
pub mod steps;
pub mod stored;
pub mod work;

pub use config::{StorageArgs, TeacherArgs};
pub use controls::DemoControls;
pub use db::{Db, DbTx, Migrations, UniqueInsert};
pub use error::LabError;
pub use fault::Fault;
pub use orders::OrderTables;
pub use outside::Outside;
pub use request::{KeylessOrderRequest, OrderPost, OrderRequest};
pub use serve::serve;
pub use server::{OrderServer, ServerStorage};
pub use standalone::StandaloneArgs;
pub use state::ServerState;
pub use steps::{StepHub, Steps};
pub use stored::{SaveAnswer, StoredResponse};
