//! The atomic-phases order server, after Brandur Leach's design for
//! Stripe-like idempotency keys in Postgres: the key row carries a recovery
//! point, each phase commits before the next call to the outside world, the
//! payment provider gets a key of its own derived from the idempotency key,
//! and the confirmation e-mail is staged in an outbox that a background
//! enqueuer sends. A crash anywhere leaves one order, one charge and one
//! e-mail once the retries are done. The flow is in [`handler`], its SQL in
//! [`store`], the enqueuer in [`outbox`].

pub mod handler;
pub mod outbox;
pub mod store;

pub use handler::PhasedServer;
pub use outbox::{spawn_enqueuer, waiting};
