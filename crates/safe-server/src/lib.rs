//! The safe order server: the article's constraint-based version, three
//! statements in a row (claim the key, create the order, save the answer).
//!
//! It claims the key first, in a column with a UNIQUE constraint, and only
//! the request whose insert succeeded creates the order. A racing duplicate
//! gets the database's unique violation and answers `409` (first request
//! still running) or replays the stored response. A request that dies
//! between the statements leaves a claim with no answer: it blocks retries
//! (`409`) until its lock runs out, then a retry takes it over and finishes
//! the work, adopting an order that was already written. The flow is in
//! [`handler`], its SQL in [`store`]; compare them with the naive and the
//! transactional server's.

pub mod handler;
pub mod store;

pub use handler::SafeServer;
