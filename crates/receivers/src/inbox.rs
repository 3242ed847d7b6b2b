//! The inbox receiver, an idempotent consumer: the mirror image of the safe
//! order server's claim. It writes the event's id into `processed_events`
//! and ships the order in one transaction. The primary key lets one
//! delivery of an event in; a second one, sent later or at the same
//! moment, finds the id taken (waiting, if need be, for the first to
//! commit), and is acknowledged without shipping. Had the record and the
//! shipment been two transactions, a crash between them would lose one.

use lab_platform::{Db, LabError};
use lab_wire::LabId;
use lab_wire::webhook::{Receipt, WebhookEvent};

use crate::store::{self, Recorded};

/// The name its shipments are recorded under.
pub const NAME: &str = "inbox";

/// Ships the order `event` paid for, unless the event was processed before.
pub async fn receive(db: &Db, lab: &LabId, event: &WebhookEvent) -> Result<Receipt, LabError> {
    let mut tx = db.begin_for(lab).await?;
    // 1. Record the event. Only one delivery of it gets past this line.
    if store::record_processed(&mut tx, lab, &event.id).await? == Recorded::Before {
        tx.rollback().await?;
        return Ok(Receipt {
            event: event.id.clone(),
            shipped: false,
        });
    }
    // 2. Ship, in the same transaction: both commit, or neither.
    store::ship_in(&mut tx, NAME, lab, event).await?;
    tx.commit().await?;
    Ok(Receipt {
        event: event.id.clone(),
        shipped: true,
    })
}
