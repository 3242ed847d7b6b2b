//! The locked order server: the fix people reach for when they see the
//! naive server's race. The naive flow (look the key up, create the order,
//! save the key) runs behind a lock per key held in the process's memory,
//! so two requests with one key that reach *this process* take turns.
//!
//! It holds as long as there is one process. Run the lab with `--replicas 3`
//! and copies of one request land on different processes, each with a lock
//! of its own: they race exactly as on the naive server. The database's
//! UNIQUE constraint (the safe and transactional servers) holds across any
//! number of processes. The lock is in [`handler`]; the SQL is the naive
//! server's, over a key table of this server's own.

pub mod handler;
pub mod store;

pub use handler::LockedServer;
