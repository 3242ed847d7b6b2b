//! The receiving side's wire format: the payment provider's
//! `charge.succeeded` event, the headers it is delivered with, what a
//! shop's receiver answers, and the lab's delivery runs (which receiver,
//! how the provider delivers, and every attempt it made).
//!
//! A provider delivers webhooks *at least once*: it retries until the
//! shop answers 2xx, so a shop whose answer is lost, or that is sent one
//! event twice, must recognise it or ship twice.

use serde::{Deserialize, Serialize};

use crate::Timestamp;

/// The delivery's id, the same on every attempt of one event (Standard Webhooks).
pub const WEBHOOK_ID: &str = "webhook-id";
/// When this attempt was sent, in Unix seconds (Standard Webhooks).
pub const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
/// `v1,` and the HMAC-SHA256 of `{id}.{timestamp}.{body}` in base64 (Standard Webhooks).
pub const WEBHOOK_SIGNATURE: &str = "webhook-signature";
/// The type of every event the lab's provider sends.
pub const CHARGE_SUCCEEDED: &str = "charge.succeeded";
/// The longest event id a receiver takes.
pub const MAX_EVENT_ID_CHARS: usize = 100;

/// An event the provider tells a shop about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookEvent {
    /// The event's id (`evt_` and 32 hex digits): the same on every delivery of it.
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[!-~]{1,100}$"))]
    pub id: String,
    /// What happened: always `charge.succeeded` here.
    #[serde(rename = "type")]
    pub kind: String,
    /// When the provider made the event.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// The charge it is about.
    pub data: ChargeSucceeded,
}

/// A charge went through: the shop may ship the order it paid for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChargeSucceeded {
    /// The provider's id of the charge (`ch_…`).
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[!-~]{1,100}$"))]
    pub charge: String,
    /// The shop's order the charge paid for (`ord_…`).
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[!-~]{1,100}$"))]
    pub order: String,
    /// How much, in cents.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10_000_000))]
    #[serde(deserialize_with = "crate::whole::whole_number")]
    pub amount_cents: i64,
}

/// What a lab's receiver answers a delivery it accepted (2xx).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Receipt {
    /// The event delivered.
    pub event: String,
    /// Whether this delivery shipped the order (`false`: the inbox had
    /// processed the event before, and acknowledged it without shipping).
    pub shipped: bool,
}

/// How many effects a receiver made for one event: the body of the
/// documented count endpoint `GET {webhook URL}/{event id}` that
/// `probe --webhook` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventEffects {
    /// The event.
    pub event: String,
    /// Shipments it made (one per delivery on the naive receiver; at most
    /// one on the inbox).
    pub effects: u64,
}

/// The two receivers a lab can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ReceiverDesign {
    /// Ships on every delivery.
    Naive,
    /// Records the event's id under a UNIQUE constraint, in the shipment's
    /// transaction: a delivery seen before is acknowledged and ships nothing.
    Inbox,
}

impl ReceiverDesign {
    /// Both, in the order a learner meets them.
    pub const ALL: [Self; 2] = [Self::Naive, Self::Inbox];

    /// Its name in paths (`/api/receivers/NAME/…`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Inbox => "inbox",
        }
    }

    /// The receiver named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|design| design.name() == name)
    }
}

/// How the provider delivers in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DeliveryPlan {
    /// One payment, delivered once.
    Once,
    /// One payment, delivered, acknowledged, and delivered again (a
    /// provider re-sends after a failover or a lost record of the answer).
    Twice,
    /// One payment; the receiver's first answer is lost (it ships, then the
    /// connection closes), so the provider retries after its backoff.
    AnswerLost,
    /// One payment, delivered twice at the same moment (two of the
    /// provider's workers took it).
    AtOnce,
    /// Two payments: the first one's answer is lost, the second is
    /// delivered, then the first is retried, out of order.
    OutOfOrder,
}

/// Which secret the provider signs with in a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Signing {
    /// The lab's secret, which its receivers hold.
    #[default]
    LabSecret,
    /// Another secret, as a forger would: every attempt is refused (401)
    /// and the provider gives up after its last attempt.
    WrongSecret,
}

/// `POST /api/webhooks/deliveries`: pay for an order and have the
/// provider tell a receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DeliveryAsk {
    /// The receiver the provider delivers to.
    pub receiver: ReceiverDesign,
    /// How it delivers.
    pub plan: DeliveryPlan,
    /// Which secret it signs with.
    #[serde(default)]
    pub signing: Signing,
    /// How much each payment is, in cents (default 1200).
    #[serde(
        default = "default_amount",
        deserialize_with = "crate::whole::whole_number"
    )]
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 1, maximum = 10_000_000, example = 1200)
    )]
    pub amount_cents: i64,
}

fn default_amount() -> i64 {
    1200
}

/// What one attempt to deliver an event came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum AttemptOutcome {
    /// The receiver answered with this status (and, from a lab receiver
    /// that accepted it, its receipt).
    Answered {
        /// The HTTP status.
        status: u16,
        /// What the receiver said it did, if it said so.
        receipt: Option<Receipt>,
    },
    /// No answer reached the provider (the connection closed, or its timeout passed).
    NoAnswer {
        /// Why, in a few words.
        reason: String,
    },
}

impl AttemptOutcome {
    /// Whether the provider counts it as delivered (a 2xx) and stops.
    pub fn acknowledged(&self) -> bool {
        matches!(self, Self::Answered { status, .. } if (200..300).contains(status))
    }
}

/// One attempt of the provider to deliver one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeliveryAttempt {
    /// The event delivered.
    pub event: String,
    /// Which delivery of the event it belongs to: 2 when the provider sent
    /// the event again (`twice`, `at-once`), each with its own retries.
    pub delivery: u8,
    /// Its number among that delivery's attempts (1, 2, …).
    pub attempt: u32,
    /// When it was sent, in microseconds since the Unix epoch.
    pub sent_at_us: i64,
    /// When its answer came (or the provider gave up waiting).
    pub ended_at_us: i64,
    /// What it came to: `{"answered": {"status", "receipt"}}` or
    /// `{"no-answer": {"reason"}}` (externally tagged: the page reads it
    /// without serde's buffering of internally tagged enums, about 17 KB of
    /// its wasm).
    pub outcome: AttemptOutcome,
}

/// The answer to a delivery run: the events the provider made, every
/// attempt, in the order sent, and the provider's bound on attempts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeliveryRun {
    /// The receiver delivered to.
    pub receiver: ReceiverDesign,
    /// How.
    pub plan: DeliveryPlan,
    /// The events, one per payment, in the order the payments were made.
    pub events: Vec<WebhookEvent>,
    /// Every attempt, in the order sent.
    pub attempts: Vec<DeliveryAttempt>,
    /// How many attempts the provider makes at most for one delivery.
    pub max_attempts: u32,
}

/// What a lab's receiver holds: `GET /api/receivers/NAME/shipments`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Shipments {
    /// The receiver.
    pub receiver: ReceiverDesign,
    /// Parcels sent: one row per shipment.
    pub shipments: u64,
    /// Different orders those parcels were for.
    pub orders: u64,
}

/// `GET /api/webhooks/endpoints`: what a lab's receivers are reached with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookEndpoints {
    /// The secret the provider signs this lab's webhooks with (`whsec_…`),
    /// for `probe --webhook URL --secret SECRET`.
    pub secret: String,
    /// Where each receiver takes deliveries, on the lab's address.
    pub receivers: Vec<ReceiverPath>,
}

/// Where one receiver of a lab takes deliveries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiverPath {
    /// The receiver.
    pub receiver: ReceiverDesign,
    /// Its webhook endpoint's path (`/api/receivers/NAME/labs/LAB/webhooks`).
    pub path: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_2xx_answer_counts_as_delivered() {
        let answered = |status| AttemptOutcome::Answered {
            status,
            receipt: None,
        };
        assert!(answered(200).acknowledged());
        assert!(answered(204).acknowledged());
        assert!(!answered(401).acknowledged());
        assert!(!answered(500).acknowledged());
        assert!(
            !AttemptOutcome::NoAnswer {
                reason: "closed".into()
            }
            .acknowledged()
        );
    }

    #[test]
    fn a_delivery_ask_names_its_plan_in_kebab_case_and_signs_with_the_lab_secret_by_default() {
        let ask: DeliveryAsk =
            serde_json::from_str(r#"{"receiver":"inbox","plan":"answer-lost"}"#).unwrap();
        assert_eq!(ask.receiver, ReceiverDesign::Inbox);
        assert_eq!(ask.plan, DeliveryPlan::AnswerLost);
        assert_eq!(ask.signing, Signing::LabSecret);
        assert_eq!(ask.amount_cents, 1200);
        assert!(
            serde_json::from_str::<DeliveryAsk>(r#"{"receiver":"inbox","plan":"once","x":1}"#)
                .is_err()
        );
    }

    #[test]
    fn receivers_are_found_by_the_name_in_their_path() {
        for design in ReceiverDesign::ALL {
            assert_eq!(ReceiverDesign::from_name(design.name()), Some(design));
        }
        assert_eq!(ReceiverDesign::from_name("safe"), None);
    }
}
