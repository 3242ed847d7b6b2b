//! A finished run as the page records it: which design each pane showed,
//! how the client behaved, what each attempt got back, and what the servers
//! did and stored. The page saves it (`POST /api/runs`), the server reads
//! it with these very types before it keeps it, and the viewer draws it
//! again at its permalink: one definition, so the server never keeps a run
//! the viewer cannot draw.

use serde::{Deserialize, Serialize};

mod attempt;
mod policy;

pub use attempt::{AttemptRecord, Outcome};
pub use policy::{ClientPolicy, MAX_COPIES, MAX_RETRIES};

use crate::workshop::{LESSON_STEPS, MAX_ORDERS_COUNTED};
use crate::{NewOrder, Order, Step, StepKind};

/// One of the lab's order servers: the same API, a different way of keeping
/// a key from creating two orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Design {
    /// Looks the key up, then creates the order, then saves the key.
    Naive,
    /// The naive flow behind a lock per key in the server process's memory.
    Locked,
    /// The article's fix: claims the key in a UNIQUE column first; claim,
    /// order and answer are three separate statements.
    Safe,
    /// The same claim, with claim, order and answer in one transaction.
    Transactional,
    /// Atomic phases: recovery points on the key, each phase committed
    /// before the next call outside, a derived key for the provider, and
    /// the e-mail in an outbox.
    Phased,
    /// One trip: claim, order and answer written by one statement (on
    /// SQLite, one transaction); a duplicate reads the answer afterwards.
    OneTrip,
}

impl Design {
    /// Every design, in the order a learner meets them.
    pub const ALL: [Self; 6] = [
        Self::Naive,
        Self::Locked,
        Self::Safe,
        Self::Transactional,
        Self::Phased,
        Self::OneTrip,
    ];

    /// The server's name in URLs and in the combined step stream: `naive`, `safe`, `transactional`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Locked => "locked",
            Self::Safe => "safe",
            Self::Transactional => "transactional",
            Self::Phased => "phased",
            Self::OneTrip => "onetrip",
        }
    }

    /// The design called `name` (see [`Self::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|design| design.name() == name)
    }

    /// Where the server takes orders: `/api/naive/orders`.
    pub fn orders_url(self) -> String {
        format!("/api/{}/orders", self.name())
    }
}

/// One run, both panes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunRecord {
    /// What was ordered.
    pub order: NewOrder,
    /// How the client behaved.
    pub policy: ClientPolicy,
    /// The lesson step it was run at (1–10), if any.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10))]
    pub lesson_step: Option<u8>,
    /// The panes, left to right: one or two.
    #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 2))]
    pub panes: Vec<PaneRecord>,
}

/// What one pane showed at the end of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PaneRecord {
    /// The pane's server.
    pub server: Design,
    /// The client's attempts against it.
    pub attempts: Vec<AttemptRecord>,
    /// The steps it reported.
    pub steps: Vec<Step>,
    /// How many steps the stream missed (the picture is incomplete if any).
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 0, maximum = 9_007_199_254_740_991_u64)
    )]
    pub steps_missed: u64,
    /// The orders the run made there.
    pub orders: Vec<Order>,
    /// How many that is (what the server reads, to count duplicates).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1_000_000))]
    pub orders_of_run: u32,
    /// With side effects: the run's charges, the cents they took, and the
    /// e-mails sent, as `[charges, cents, e-mails]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = effects_schema))]
    pub effects: Option<(u64, i64, u64)>,
}

/// The largest whole number every JSON reader holds exactly (2^53 − 1, a
/// browser's `Number.MAX_SAFE_INTEGER`): a record's counts, sequence
/// numbers and times stay within ± this.
pub const MAX_EXACT_NUMBER: i64 = 9_007_199_254_740_991;

/// Why a record cannot be kept: which field, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {why}")]
pub struct InvalidRun {
    /// Where, as a path: `panes[1].orders_of_run`.
    pub field: String,
    /// What is wrong.
    pub why: String,
}

impl RunRecord {
    /// Checks what the types cannot: one or two panes, counts a lab can
    /// hold, a lesson step, an order the servers would take.
    pub fn check(&self) -> Result<(), InvalidRun> {
        let invalid = |field: &str, why: String| {
            Err(InvalidRun {
                field: field.to_owned(),
                why,
            })
        };
        if !(1..=2).contains(&self.panes.len()) {
            return invalid(
                "panes",
                format!("a run has one or two panes, not {}", self.panes.len()),
            );
        }
        if let Some(step) = self.lesson_step.filter(|s| !(1..=LESSON_STEPS).contains(s)) {
            return invalid(
                "lesson_step",
                format!("a step of the lesson is 1 to {LESSON_STEPS}, not {step}"),
            );
        }
        if let Err(why) = self.order.validate() {
            return invalid("order", why.to_string());
        }
        for (index, pane) in self.panes.iter().enumerate() {
            if pane.orders_of_run > MAX_ORDERS_COUNTED {
                return invalid(
                    &format!("panes[{index}].orders_of_run"),
                    format!("at most {MAX_ORDERS_COUNTED}, not {}", pane.orders_of_run),
                );
            }
            for (at, attempt) in pane.attempts.iter().enumerate() {
                if let Some(Outcome::Read { orders }) = attempt.outcome
                    && orders > MAX_ORDERS_COUNTED as usize
                {
                    return invalid(
                        &format!("panes[{index}].attempts[{at}].outcome.read.orders"),
                        format!("at most {MAX_ORDERS_COUNTED}, not {orders}"),
                    );
                }
            }
            if let Some((charges, cents, emails)) = pane.effects
                && (cents < 0
                    || [charges, cents.unsigned_abs(), emails]
                        .iter()
                        .any(|n| !exact(*n)))
            {
                return invalid(
                    &format!("panes[{index}].effects"),
                    format!(
                        "three whole numbers from 0 to {MAX_EXACT_NUMBER}, not ({charges}, {cents}, {emails})"
                    ),
                );
            }
            if !exact(pane.steps_missed) {
                return invalid(
                    &format!("panes[{index}].steps_missed"),
                    format!("at most {MAX_EXACT_NUMBER}"),
                );
            }
            for (at, step) in pane.steps.iter().enumerate() {
                let slow_ms = match step.kind {
                    StepKind::SlowPartStarted { ms } => ms,
                    _ => 0,
                };
                if ![step.seq, step.request, step.at_us.unsigned_abs(), slow_ms]
                    .iter()
                    .all(|n| exact(*n))
                {
                    return invalid(
                        &format!("panes[{index}].steps[{at}]"),
                        format!("its numbers are whole numbers within ±{MAX_EXACT_NUMBER}"),
                    );
                }
            }
        }
        Ok(())
    }
}

/// Whether `n` is at most [`MAX_EXACT_NUMBER`].
fn exact(n: u64) -> bool {
    n <= MAX_EXACT_NUMBER as u64
}

/// `effects` in the OpenAPI document: three whole numbers, none negative.
#[cfg(feature = "openapi")]
fn effects_schema() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
    let count = ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer]))
        .minimum(Some(0))
        .maximum(Some(MAX_EXACT_NUMBER));
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(count)
        .min_items(Some(3))
        .max_items(Some(3))
        .description(Some(
            "With side effects: [charges, cents charged, e-mails sent]",
        ))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Timestamp;

    fn record() -> RunRecord {
        RunRecord {
            order: NewOrder {
                item: "coffee".into(),
                amount_cents: 450,
            },
            policy: ClientPolicy::PLAIN,
            lesson_step: Some(5),
            panes: vec![PaneRecord {
                server: Design::Naive,
                attempts: vec![AttemptRecord {
                    copy: 1,
                    number: 1,
                    key: "k1".into(),
                    started_ms: 1.5,
                    ended_ms: Some(310.25),
                    outcome: Some(Outcome::Read { orders: 2 }),
                }],
                steps: vec![Step {
                    seq: 1,
                    request: 1,
                    key: "k1".into(),
                    at_us: 7,
                    kind: StepKind::OrderInserted,
                }],
                steps_missed: 0,
                orders: vec![Order {
                    id: uuid::Uuid::from_u128(1),
                    item: "coffee".into(),
                    amount_cents: 450,
                    idempotency_key: "k1".into(),
                    created_at: Timestamp::from_micros(1_796_205_600_000_000),
                }],
                orders_of_run: 1,
                effects: Some((1, 450, 1)),
            }],
        }
    }

    #[test]
    fn a_run_comes_back_from_json_as_it_was_saved() {
        let mut saved = record();
        saved.panes[0].attempts[0].outcome = Some(Outcome::Rejected {
            status: 422,
            problem: "/problems/idempotency-key-reused".into(),
        });
        let json = serde_json::to_string(&saved).unwrap();
        assert!(json.contains(r#""server":"naive""#), "{json}");
        assert!(json.contains(r#""orders_of_run":1"#), "{json}");
        assert!(json.contains(r#""lesson_step":5"#), "{json}");
        assert!(json.contains(r#""effects":[1,450,1]"#), "{json}");
        assert_eq!(serde_json::from_str::<RunRecord>(&json).unwrap(), saved);
    }

    #[test]
    fn a_run_the_page_records_passes_the_check() {
        assert_eq!(record().check(), Ok(()));
    }

    #[test]
    fn each_check_names_the_field_it_refuses() {
        let refused = |change: fn(&mut RunRecord)| {
            let mut run = record();
            change(&mut run);
            run.check().unwrap_err().field
        };
        assert_eq!(refused(|r| r.panes.clear()), "panes");
        assert_eq!(refused(|r| r.panes = vec![r.panes[0].clone(); 3]), "panes");
        assert_eq!(refused(|r| r.lesson_step = Some(11)), "lesson_step");
        assert_eq!(refused(|r| r.order.item = "a\u{0}b".into()), "order");
        assert_eq!(
            refused(|r| r.panes[0].orders_of_run = MAX_ORDERS_COUNTED + 1),
            "panes[0].orders_of_run"
        );
        assert_eq!(
            refused(|r| r.panes[0].attempts[0].outcome = Some(Outcome::Read { orders: usize::MAX })),
            "panes[0].attempts[0].outcome.read.orders"
        );
        assert_eq!(
            refused(|r| r.panes[0].effects = Some((1, -1, 0))),
            "panes[0].effects"
        );
        assert_eq!(
            refused(|r| r.panes[0].steps[0].seq = 1 << 53),
            "panes[0].steps[0]"
        );
        assert_eq!(
            refused(|r| r.panes[0].steps_missed = u64::MAX),
            "panes[0].steps_missed"
        );
    }

    #[test]
    fn the_message_says_where_and_what() {
        let mut run = record();
        run.lesson_step = Some(0);
        assert_eq!(
            run.check().unwrap_err().to_string(),
            "lesson_step: a step of the lesson is 1 to 10, not 0"
        );
    }
}
