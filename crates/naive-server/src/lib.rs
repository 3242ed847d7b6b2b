//! The naive order server: the article's first attempt at idempotency keys.
//!
//! It checks for the key, creates the order, then stores the key. Sequential
//! retries are handled; two requests with one key that arrive together both
//! see "no key yet" and both create an order. The flow is in [`handler`],
//! its SQL in [`store`]; compare them with the safe server's.

pub mod handler;
pub mod store;

pub use handler::NaiveServer;
