//! Explorations: every order in which copies of one order can pass their
//! statement gates, run by a server for one lab (`POST /explorations`), and
//! what each order of statements left.

use serde::{Deserialize, Serialize};

/// The fewest and most copies an exploration races.
pub const EXPLORATION_COPIES: std::ops::RangeInclusive<u8> = 2..=3;

/// What a lab asks to explore on one design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ExplorationAsk {
    /// How many copies of one order, with one key, race (2 or 3; three
    /// are explored with at most 2 preemptions, as CHESS bounds them).
    #[cfg_attr(feature = "openapi", schema(minimum = 2, maximum = 3))]
    pub copies: u8,
    /// Whether each schedule may also crash one copy at any gate, followed
    /// by its client's retry with the same key.
    #[serde(default)]
    pub crash: bool,
}

/// Where an exploration stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ExplorationState {
    /// Schedules are still being run.
    Running,
    /// Every schedule has run.
    Finished,
    /// It stopped before the end; `detail` says why.
    Failed,
}

/// One schedule an exploration ran, and what it left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExploredSchedule {
    /// The copies released in order (`x1` crashes copy 1): `1 2 1 1 2 2`.
    /// Sent again as a schedule, it replays exactly.
    pub schedule: String,
    /// How many orders the key was left with.
    pub orders: u32,
    /// Each copy's HTTP status, in order of arrival (`null`: no answer,
    /// as for a crashed copy).
    pub answers: Vec<Option<u16>>,
    /// Whether it broke the promise of one order per key: more than one
    /// order, or a copy told of an order that is not the one kept.
    pub broke_the_promise: bool,
}

/// An exploration: what was asked, how far it is, and every schedule run so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExplorationView {
    /// Its id, for `GET /explorations/{id}`.
    pub id: String,
    /// The design explored (`naive`, …).
    pub design: String,
    /// What was asked.
    pub asked: ExplorationAsk,
    /// Where it stands.
    pub state: ExplorationState,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The summary in words, once finished: `naive, 2 copies: 66
    /// schedules, 60 left more than one order; shortest counterexample …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Every schedule run so far; once finished, sorted shortest first.
    pub schedules: Vec<ExploredSchedule>,
}
