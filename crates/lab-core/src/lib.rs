//! The order flow every design shares, so that each design's crate holds
//! only what differs (the order of its steps and the SQL behind them): the
//! request and its demo controls, the steps a learner watches and their
//! stream, stored answers, the orders table, the side effects outside the
//! database, the cleanup of expired keys, the routes, and the
//! [`OrderServer`] trait with running one server alone. It stands on
//! `lab_platform` (storage, errors, access, limits, serving) and reaches
//! the payment provider through [`Outside`], without an HTTP client of
//! its own. [`schedules`] holds a scheduled request at the gates the
//! platform puts before each statement, one release at a time;
//! [`explorations`] runs every order of those releases for a lab, through
//! the `explorer` crate, against the server itself over HTTP.
//!
//! The modules depend on each other in one direction only (`cargo xtask
//! check-layout` checks it): faults and steps at the bottom, then storage
//! of orders and answers, the request's inputs, the routes, and last the
//! [`OrderServer`] trait and running a server alone.

pub mod cleanup;
pub mod config;
pub mod controls;
pub mod exploration_routes;
pub mod explorations;
pub mod fault;
pub mod keyless;
pub mod openapi;
pub mod orders;
pub mod outside;
pub mod request;
pub mod routes;
pub mod schedule_routes;
pub mod schedules;
pub mod server;
pub mod shop;
pub mod side_effects;
pub mod standalone;
pub mod state;
pub mod step_stream;
pub mod steps;
pub mod stored;
pub mod work;

pub use config::StorageArgs;
pub use controls::DemoControls;
pub use fault::{Fault, WorkPoint};
pub use orders::OrderTables;
pub use outside::Outside;
pub use request::{KeylessOrderRequest, OrderPost, OrderRequest};
pub use server::{OrderServer, ServerStorage};
pub use shop::Shop;
pub use standalone::StandaloneArgs;
pub use state::ServerState;
pub use steps::{StepHub, Steps};
pub use stored::StoredResponse;

// The platform's pieces a design's handler and store use, so that a
// design's crate reads its storage and errors from the same place as the
// rest of its flow.
pub use lab_platform::{
    Db, DbTx, LabError, Migrations, UniqueInsert, gates, migrations, with_pool, with_reader,
    with_tx,
};
