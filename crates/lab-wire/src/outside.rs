//! What travels to and from the lab's world outside the order servers'
//! database: the payment provider's charges, the mail sink's e-mails, and
//! how many of each a lab's shop made, for the page.
//!
//! The provider and the mail sink are other companies' servers as far as
//! an order server knows: it reaches them over HTTP, and nothing it rolls
//! back undoes what they did.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

use crate::{LabId, Timestamp};

/// Which shop (an order server's design, e.g. `transactional`) is calling
/// the provider or the mail sink.
pub const OUTSIDE_MERCHANT: &str = "outside-merchant";
/// The lab the shop calls for: its customer at the provider.
pub const OUTSIDE_LAB: &str = "outside-lab";
/// Asks the provider to charge, then hang up before answering (a timeout
/// after the charge): `timeout-after-charge`.
pub const PROVIDER_FAULT: &str = "provider-fault";
/// Asks the provider to take this many milliseconds before charging.
pub const PROVIDER_DELAY_MS: &str = "provider-delay-ms";
/// The mail sink's key for one message: a second message with the same id
/// is recognised and not delivered again (an outbox's re-send after a crash).
pub const MESSAGE_ID: &str = "message-id";
/// The longest key the provider (and message id the mail sink) takes.
pub const MAX_OUTSIDE_KEY_CHARS: usize = 300;

/// A charge the shop asks the provider for: `POST /charges`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewCharge {
    /// How much, in cents.
    pub amount_cents: i64,
    /// What for (the order's item), as it shows on the statement.
    pub description: String,
}

/// A charge the provider made, or replayed for a key it already charged for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charge {
    /// The provider's id for it: `ch_` and 24 hex digits.
    pub id: String,
    /// How much, in cents.
    pub amount_cents: i64,
    /// When the provider made it.
    pub created_at: Timestamp,
}

/// A confirmation e-mail the shop sends: `POST /messages`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewEmail {
    /// The subject line.
    pub subject: String,
}

/// What a lab's shop of one design did outside its database: the body of
/// `GET /api/side-effects`, one per design.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SideEffects {
    /// The design (`naive`, `locked`, `safe`, `transactional`, `phased`).
    pub server: String,
    /// Charges the payment provider made for this lab.
    pub charges: u64,
    /// How many cents those charges took in all.
    pub charged_cents: i64,
    /// E-mails the mail sink delivered for this lab.
    pub emails: u64,
    /// E-mails staged in the design's outbox and not sent yet (a design
    /// that sends from the request has none).
    pub emails_waiting: u64,
}

/// The calls a shop makes to the payment provider and the mail sink. The
/// order flow holds one without knowing how it travels (so the crate that
/// runs the designs needs no HTTP client); the `outside` crate's client
/// makes them over HTTP, as a real shop calls Stripe.
pub trait OutsideCalls: Send + Sync + std::fmt::Debug {
    /// Asks the provider for `charge` for `lab`, as `merchant`, under the
    /// provider key `key`. `time_out` asks it to charge and then hang up,
    /// as a provider timing out after the charge does.
    fn charge<'a>(
        &'a self,
        merchant: &'a str,
        lab: &'a LabId,
        key: &'a str,
        charge: NewCharge,
        time_out: bool,
    ) -> Call<'a, ChargeMade>;

    /// Asks the mail sink to deliver `email` for `lab`, as `merchant`,
    /// under `message_id`: `false` if it had delivered that message before
    /// (and did not deliver it again).
    fn send_email<'a>(
        &'a self,
        merchant: &'a str,
        lab: &'a LabId,
        message_id: &'a str,
        email: NewEmail,
    ) -> Call<'a, bool>;
}

/// A call to the outside services on its way.
pub type Call<'a, T> = Pin<Box<dyn Future<Output = Result<T, CallFailed>> + Send + 'a>>;

/// A charge the provider answered with.
#[derive(Debug, Clone)]
pub struct ChargeMade {
    /// The charge.
    pub charge: Charge,
    /// Whether the provider had made it before, for the same key, and
    /// answered with it instead of charging again.
    pub replayed: bool,
}

/// Why a call to the outside services failed, in a few words ("it
/// answered 422 Unprocessable Entity: …", "no answer in time"): never a
/// URL, which would name a local port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CallFailed(pub String);
