//! Header names of the lab's HTTP contract, in one place so the servers,
//! the page and the tests cannot drift apart.

/// The client-generated key that makes a retried POST safe.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
/// Set to `true` on a response that was replayed from storage.
pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";
/// On the answer that stored a key: how long the key is kept, in seconds
/// (a header proposed in the IETF draft's open issue #49; the draft itself
/// asks only that the retention be documented).
pub const IDEMPOTENCY_TTL: &str = "idempotency-ttl";
/// Which learner's lab a request belongs to (default [`crate::LabId::DEFAULT`]).
pub const LAB_ID: &str = "lab-id";
/// The secret that opens a lab (see [`crate::LabSecret`]); with it, `Lab-Id` may be left out.
pub const LAB_SECRET: &str = "lab-secret";
/// Demo control: how long the server pauses between looking at the key and
/// creating the order (the race window), in milliseconds.
pub const LAB_DELAY_MS: &str = "lab-delay-ms";
/// Demo control: a fault the server injects, such as `drop-response`.
pub const LAB_FAULT: &str = "lab-fault";

/// How long this request's key is kept, in seconds (default [`DEFAULT_KEY_RETENTION_SECS`]).
/// Demo control: a few seconds lets a learner retry after the key expired.
pub const LAB_KEY_RETENTION_SECS: &str = "lab-key-retention-secs";

/// Demo control: `on-disconnect` lets the server drop a request's work when
/// its client hangs up (hyper's default for a handler); `finish` (the
/// default) runs the work to the end regardless, as most servers do.
pub const LAB_CANCELLATION: &str = "lab-cancellation";

/// Demo control: what a server does with a `POST /orders` that carries no
/// `Idempotency-Key`. `refuse` (the default) answers 400, as the article's
/// handler does; `create` treats it as a plain POST and makes the order,
/// as an API whose key is optional does: nothing can tell its retry from a
/// new order.
pub const LAB_MISSING_KEY: &str = "lab-missing-key";

/// Demo control: `charge-and-email` makes an order charge the card at the
/// lab's payment provider and e-mail a receipt through its mail sink (each
/// design its own way); `none` (the default) stores the order only.
pub const LAB_SIDE_EFFECTS: &str = "lab-side-effects";

/// Demo control for the safe server: `on` makes the order's write check,
/// in its transaction, that the request still holds its claim (a fencing
/// token), so a request whose lock ran out and was taken over cannot write
/// late; `off` (the default) writes without looking.
pub const LAB_FENCING: &str = "lab-fencing";

/// On an answer of a lab started with `--replicas N`: which of the N
/// server processes gave it (1…N).
pub const LAB_REPLICA: &str = "lab-replica";

/// On `POST /orders`: run this request under the named schedule of its lab
/// (made by `POST /schedules`): it stops at a gate before each statement
/// until the schedule releases it.
pub const LAB_SCHEDULE: &str = "lab-schedule";

/// How long a claimed key whose request never answered (it crashed) blocks
/// retries before one may take it over, in seconds (default [`DEFAULT_LOCK_TIMEOUT_SECS`]).
pub const LAB_LOCK_TIMEOUT_SECS: &str = "lab-lock-timeout-secs";
/// A minute: far longer than any order takes, short enough to recover.
pub const DEFAULT_LOCK_TIMEOUT_SECS: u64 = 60;
/// The longest lock timeout a request may ask for: an hour.
pub const MAX_LOCK_TIMEOUT_SECS: u64 = 60 * 60;

/// Keys are kept a day unless a request asks otherwise, as Stripe does.
pub const DEFAULT_KEY_RETENTION_SECS: u64 = 24 * 60 * 60;
/// The longest retention a request may ask for: 30 days.
pub const MAX_KEY_RETENTION_SECS: u64 = 30 * 24 * 60 * 60;

/// The largest accepted `Lab-Delay-Ms`, so a typo cannot park a request for hours.
pub const MAX_DELAY_MS: u64 = 10_000;
