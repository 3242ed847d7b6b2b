//! The naive receiver: it ships on every delivery. Nothing asks whether
//! this event was shipped before, so a provider that retries (it always
//! may) makes it ship again.

use lab_platform::{Db, LabError};
use lab_wire::LabId;
use lab_wire::webhook::{Receipt, WebhookEvent};

use crate::store;

/// The name its shipments are recorded under.
pub const NAME: &str = "naive";

/// Ships the order `event` paid for.
pub async fn receive(db: &Db, lab: &LabId, event: &WebhookEvent) -> Result<Receipt, LabError> {
    store::ship(db, NAME, lab, event).await?;
    Ok(Receipt {
        event: event.id.clone(),
        shipped: true,
    })
}
