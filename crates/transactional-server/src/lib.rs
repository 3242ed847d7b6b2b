//! The transactional order server: the safe server's UNIQUE constraint, with
//! the key's claim, the order and the saved answer in one transaction.
//!
//! Nothing it writes for a request is visible until all of it commits, so a
//! crash or a dropped handler rolls everything back and the retry simply
//! succeeds, once. The price: a racing duplicate cannot be told "still
//! running" (it cannot see the uncommitted claim); it waits for the
//! database instead, then replays the answer. The flow is in [`handler`],
//! its SQL in [`store`]; compare them with the safe server's.

pub mod handler;
pub mod store;

pub use handler::TransactionalServer;
