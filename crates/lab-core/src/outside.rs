//! The order servers' way out of their database: the payment provider and
//! the mail sink, reached through [`OutsideCalls`] (over HTTP, by the
//! `outside` crate's client), as a real shop reaches Stripe or its mail
//! relay. Whatever they did stays done: no transaction of an order server
//! can roll a charge back.

use std::sync::Arc;

use lab_platform::LabError;
pub use lab_wire::outside::ChargeMade;
use lab_wire::outside::{NewCharge, NewEmail, OutsideCalls};
use lab_wire::{LabId, Order};
use tokio::sync::Notify;

/// A way to the provider and the mail sink, or none (a server run alone).
/// Clones share one line, and one outbox bell.
#[derive(Debug, Clone, Default)]
pub struct Outside(Option<Arc<Line>>);

#[derive(Debug)]
struct Line {
    calls: Box<dyn OutsideCalls>,
    /// Rung when an outbox has an e-mail to send.
    outbox: Notify,
}

impl Outside {
    /// No provider and no mail sink: side effects are refused.
    pub fn none() -> Self {
        Self(None)
    }

    /// The services, reached through `calls`.
    pub fn through(calls: impl OutsideCalls + 'static) -> Self {
        Self(Some(Arc::new(Line {
            calls: Box::new(calls),
            outbox: Notify::new(),
        })))
    }

    fn line(&self) -> Result<&Line, LabError> {
        self.0.as_deref().ok_or(LabError::SideEffectsUnavailable)
    }

    /// Charges `order` for `lab` at the provider as `merchant`, under the
    /// provider key `key`. `time_out` asks the provider to charge and then
    /// hang up, as a provider timing out after the charge does.
    pub async fn charge(
        &self,
        merchant: &str,
        lab: &LabId,
        key: &str,
        order: &Order,
        time_out: bool,
    ) -> Result<ChargeMade, LabError> {
        let charge = NewCharge {
            amount_cents: order.amount_cents,
            description: order.item.clone(),
        };
        self.line()?
            .calls
            .charge(merchant, lab, key, charge, time_out)
            .await
            .map_err(|failed| LabError::ProviderFailed(failed.0))
    }

    /// Sends an e-mail with `subject` for `lab` through the mail sink as
    /// `merchant`, under `message_id`; `false` if the sink had delivered
    /// that message before (and did not deliver it again).
    pub async fn send_email(
        &self,
        merchant: &str,
        lab: &LabId,
        message_id: &str,
        subject: &str,
    ) -> Result<bool, LabError> {
        let email = NewEmail {
            subject: subject.to_owned(),
        };
        self.line()?
            .calls
            .send_email(merchant, lab, message_id, email)
            .await
            .map_err(|failed| LabError::MailFailed(failed.0))
    }

    /// Tells the outbox's sender that an e-mail is waiting.
    pub fn outbox_filled(&self) {
        if let Some(line) = &self.0 {
            line.outbox.notify_one();
        }
    }

    /// Waits until [`Self::outbox_filled`] is called (or forever, with no services).
    pub async fn outbox_rang(&self) {
        match &self.0 {
            Some(line) => line.outbox.notified().await,
            None => std::future::pending().await,
        }
    }
}

/// The subject of an order's confirmation e-mail.
pub fn confirmation_subject(order: &Order) -> String {
    format!("Your order: {} ({})", order.item, order.id)
}
