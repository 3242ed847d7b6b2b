//! The receiving side of a payment: the shop's webhook receivers.
//!
//! A payment provider tells a shop that a charge went through by posting a
//! signed `charge.succeeded` event to the shop's receiver, and delivers it
//! *at least once*: when the answer is slow or lost it sends the event
//! again, and now and then it sends one event twice. The shop ships the
//! order when it hears. Two receivers, side by side like the designs:
//!
//! - [`naive`] ships on every delivery: a retried event is a second parcel;
//! - [`inbox`] records the event's id in `processed_events`, under its
//!   primary key, in the same transaction as the shipment (the idempotent
//!   consumer): a delivery it has processed is acknowledged and ships nothing.
//!
//! Both check the signature first ([`signed`]): a delivery that is not
//! signed with the lab's secret is refused (401) before anything is read.
//! Their SQL is in [`store`], their HTTP in [`routes`].

pub mod inbox;
pub mod naive;
mod routes;
mod signed;
mod store;

use std::time::Duration;

use lab_platform::{Db, LabError};
use tokio::task::JoinHandle;

pub use routes::{ReceiversApi, routes};

/// The receivers' migrations (`shipments`, `processed_events`).
pub async fn migrate(db: &Db) -> Result<(), LabError> {
    db.migrate(lab_platform::migrations!()()).await
}

/// Deletes shipments and processed events older than `keep` every
/// `every`, from now on: they only matter for the run that made them.
pub fn spawn_cleanup(db: Db, keep: Duration, every: Duration) -> JoinHandle<()> {
    lab_platform::expiry::spawn_expiry(
        db,
        keep,
        every,
        "old shipments and processed events",
        |db, before| Box::pin(store::delete_older_than(db, before)),
    )
}
