//! The one-trip order server: the production recipe. The transactional
//! server's UNIQUE claim, with the claim, the order and the saved answer
//! written by a single statement (on SQLite, which has no data-modifying
//! `WITH`, a single transaction of three statements on the one writer).
//!
//! There is no moment between the order and its answer for a crash to fall
//! into, nothing half-written for a retry to find, and a new request costs
//! one round trip to the database. A duplicate costs a second: its statement
//! writes nothing, and it reads the answer to replay. The price is that the
//! work must fit in the statement: a call outside (a charge, an e-mail)
//! cannot, so this server refuses `Lab-Side-Effects`; the phased server
//! shows how to make those safe. The flow is in [`handler`], its SQL in
//! [`store`].

pub mod handler;
pub mod store;

pub use handler::OneTripServer;
