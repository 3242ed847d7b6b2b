//! Charging the card and sending the confirmation e-mail from inside the
//! request, as most shops first write it (`Lab-Side-Effects:
//! charge-and-email`): the naive, locked, safe and transactional designs
//! all do it this way, after the order is written and before the answer is
//! saved. Two mistakes sit here on purpose, the ones real systems make:
//!
//! - the provider gets a key made for this attempt, so it cannot tell a
//!   retry from a new purchase and charges again;
//! - the e-mail is sent before the request's work is safely stored, so a
//!   request that fails after it and is retried sends it again.
//!
//! The atomic-phases design (`phased-server`) does neither.

use lab_wire::{Gate, LabId, Order, StepKind};

use crate::outside::{ChargeMade, Outside, confirmation_subject};
use crate::{DemoControls, Steps};
use lab_platform::{LabError, gates};

/// Charges `order` and e-mails its confirmation for `lab` as `merchant`,
/// if the request asked for side effects; then crashes, if it asked for
/// that (`Lab-Fault: crash-after-charge`).
pub async fn charge_and_email_in_request(
    outside: &Outside,
    merchant: &str,
    lab: &LabId,
    order: &Order,
    controls: &DemoControls,
    steps: &Steps,
) -> Result<(), LabError> {
    if !controls.side_effects {
        return Ok(());
    }
    // Made here, for this attempt: the mistake. A retry makes another.
    let attempt_key = format!("attempt-{}", uuid::Uuid::new_v4().simple());
    let charge = Charge {
        merchant,
        lab,
        key: &attempt_key,
        order,
    };
    charge_recorded(outside, &charge, controls, steps).await?;
    let message_id = format!("msg-{}", uuid::Uuid::new_v4().simple());
    gates::wait_at(Gate::SendEmail).await;
    outside
        .send_email(merchant, lab, &message_id, &confirmation_subject(order))
        .await?;
    steps.record(StepKind::EmailSent);
    if controls.crashes_after_charge() {
        // Charged and e-mailed; whatever the design writes after this, it
        // does not write now.
        return Err(LabError::SimulatedCrash);
    }
    Ok(())
}

/// A charge to ask the provider for: who asks, for which lab, under which
/// provider key, for which order.
#[derive(Debug, Clone, Copy)]
pub struct Charge<'a> {
    pub merchant: &'a str,
    pub lab: &'a LabId,
    pub key: &'a str,
    pub order: &'a Order,
}

/// Asks the provider for `charge` (to time out after it, if the request
/// asked for that), reporting the step: the card charged (or the earlier
/// charge replayed), or a provider that gave no proper answer.
pub async fn charge_recorded(
    outside: &Outside,
    charge: &Charge<'_>,
    controls: &DemoControls,
    steps: &Steps,
) -> Result<ChargeMade, LabError> {
    let Charge {
        merchant,
        lab,
        key,
        order,
    } = *charge;
    gates::wait_at(Gate::Charge).await;
    match outside
        .charge(merchant, lab, key, order, controls.provider_times_out())
        .await
    {
        Ok(made) => {
            steps.record(StepKind::CardCharged {
                replayed: made.replayed,
            });
            Ok(made)
        }
        Err(error) => {
            // The provider may well have charged: nobody here can know.
            steps.record(StepKind::ChargeFailed);
            Err(error)
        }
    }
}
