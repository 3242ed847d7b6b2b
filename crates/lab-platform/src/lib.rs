//! The HTTP platform every lab service stands on (the order servers, the
//! outside services, the workshop): connections to SQLite or PostgreSQL,
//! the one error type and its problem+json answers, who may read or change
//! a lab, the room's limits, reading a body within bounds, serving with
//! the power to hang up, and the headers every answer carries. Nothing
//! here knows what an order is.
//!
//! The modules depend on each other in one direction only (`cargo xtask
//! check-layout` checks it): `serve` and `headers` at the bottom, then the
//! limits, the error type, storage and access, and last what starts a
//! service.

pub mod access;
pub mod body;
pub mod config;
pub mod db;
pub mod error;
pub mod expiry;
pub mod gates;
pub mod headers;
pub mod limits;
pub mod middleware;
pub mod serve;
pub mod start;

pub use db::{Db, DbTx, Migrations, UniqueInsert};
pub use error::LabError;
