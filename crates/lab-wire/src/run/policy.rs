//! How the client behaved in a run: copies, retries, waits, keys, and the
//! faults it asked the servers to stage.

use serde::{Deserialize, Serialize};

/// The most copies sent at once (browsers open about six connections per host).
pub const MAX_COPIES: u8 = 6;
/// The most retries after the first attempt.
pub const MAX_RETRIES: u8 = 5;

/// The client's behaviour for one press of "Place order".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClientPolicy {
    /// Copies of the request sent at once (1 = just one).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 255))]
    pub copies: u8,
    /// Retries after the first attempt of each copy, 0–[`MAX_RETRIES`].
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 255))]
    pub retries: u8,
    /// How long the client waits for an answer, in ms; 0 waits as long as it takes.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_u32))]
    pub timeout_ms: u32,
    /// The pause before the first retry, in ms; it doubles before each further one.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_u32))]
    pub backoff_ms: u32,
    /// The anti-pattern: a fresh key on every attempt instead of one per purchase.
    pub new_key_per_attempt: bool,
    /// No key at all: a plain POST (asking the server to take it with
    /// `Lab-Missing-Key: create`). Wins over `new_key_per_attempt`.
    pub no_key: bool,
    /// The client only reads (`GET /orders`) instead of ordering: what
    /// needs no key.
    pub read_only: bool,
    /// The server commits each copy's first attempt and then loses the answer.
    pub drop_response: bool,
    /// The server crashes right after creating the order of each copy's
    /// first attempt, before saving its answer (wins over `drop_response`).
    pub crash_after_create: bool,
    /// Retries carry a different order (one more unit of money) under the same key.
    pub change_order_on_retry: bool,
    /// How long the server keeps the key, in seconds; 0 leaves its default (a day).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_u32))]
    pub key_retention_secs: u32,
    /// How long a crashed claim blocks retries, in seconds; 0 leaves the server's default (a minute).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_u32))]
    pub lock_timeout_secs: u32,
    /// The server drops an attempt's work when the client hangs up, instead of finishing it.
    pub cancel_on_disconnect: bool,
    /// The server's processing time between checking the key and creating the order (`Lab-Delay-Ms`).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 4_294_967_295_u32))]
    pub server_delay_ms: u32,
    /// Each order also charges the card and e-mails a receipt (`Lab-Side-Effects`).
    #[serde(default)]
    pub side_effects: bool,
    /// The server crashes right after the card is charged, on each copy's
    /// first attempt (with side effects; wins over the other faults).
    #[serde(default)]
    pub crash_after_charge: bool,
    /// The safe server refuses a write whose claim was taken over (`Lab-Fencing`).
    #[serde(default)]
    pub fencing: bool,
}

impl ClientPolicy {
    /// One request, two retries 300 ms apart, no faults: the starting point
    /// every scenario changes a few things of.
    pub const PLAIN: Self = Self {
        copies: 1,
        retries: 2,
        timeout_ms: 0,
        backoff_ms: 300,
        new_key_per_attempt: false,
        no_key: false,
        read_only: false,
        drop_response: false,
        crash_after_create: false,
        change_order_on_retry: false,
        key_retention_secs: 0,
        lock_timeout_secs: 0,
        cancel_on_disconnect: false,
        server_delay_ms: 0,
        side_effects: false,
        crash_after_charge: false,
        fencing: false,
    };
}

impl Default for ClientPolicy {
    fn default() -> Self {
        Self::PLAIN
    }
}

impl ClientPolicy {
    /// The pause before attempt `number` (2 or more): the backoff, doubled per retry.
    pub fn backoff_before(&self, number: u8) -> u32 {
        let doublings = number.saturating_sub(2).min(8);
        self.backoff_ms.saturating_mul(1 << doublings)
    }

    /// The same policy with every number inside the range the page offers.
    pub fn clamped(mut self) -> Self {
        self.copies = self.copies.clamp(1, MAX_COPIES);
        self.retries = self.retries.min(MAX_RETRIES);
        self.timeout_ms = self.timeout_ms.min(60_000);
        self.backoff_ms = self.backoff_ms.min(10_000);
        self.server_delay_ms = self
            .server_delay_ms
            .min(crate::headers::MAX_DELAY_MS as u32);
        self
    }
}
