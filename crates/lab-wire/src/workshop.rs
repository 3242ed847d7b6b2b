//! What a workshop adds to the wire: a saved run's link, a lab's progress
//! through the guided lesson, and the teacher's view of the room.

use serde::{Deserialize, Serialize};

use crate::Timestamp;

/// The largest count of orders a record may give: a lab holds at most a
/// million orders on a server.
pub const MAX_ORDERS_COUNTED: u32 = 1_000_000;

/// The steps of the guided lesson: progress names one of `1..=LESSON_STEPS`.
pub const LESSON_STEPS: u8 = 10;

/// The answer to saving a run: where it can be seen again, and until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SavedRun {
    /// The run's id: `run-` and 32 hex digits, random, so it cannot be guessed.
    pub id: String,
    /// Its permalink on the lab's page: `/runs/ID`.
    pub url: String,
    /// When it will be deleted.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

/// One of a lab's saved runs, as `GET /api/runs` lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunSummary {
    /// The run's id.
    pub id: String,
    /// When it was saved.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub saved_at: Timestamp,
    /// The lesson step it was run at, if any (1–10).
    pub lesson_step: Option<u8>,
    /// How many of its panes ended with more than one order for the run.
    pub panes_with_duplicates: u32,
}

/// What a learner predicted at one lesson step, and what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Prediction {
    /// The step (1–10).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10))]
    #[serde(deserialize_with = "crate::whole::whole")]
    pub step: u8,
    /// How many orders the learner said the server would hold.
    pub guess: PredictedOrders,
    /// How many it held (at most [`MAX_ORDERS_COUNTED`]).
    #[cfg_attr(feature = "openapi", schema(maximum = 1_000_000))]
    #[serde(deserialize_with = "crate::whole::whole")]
    pub orders: u32,
}

impl Prediction {
    /// Whether what happened bore the guess out.
    pub fn was_right(&self) -> bool {
        self.guess
            == match self.orders {
                0 => PredictedOrders::None,
                1 => PredictedOrders::One,
                _ => PredictedOrders::More,
            }
    }
}

/// A guess about a server's orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PredictedOrders {
    /// No order.
    None,
    /// Exactly one.
    One,
    /// More than one.
    More,
}

/// A lab's progress through the lesson: `PUT /api/lesson`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LessonProgress {
    /// The step shown now (1–10).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10))]
    #[serde(deserialize_with = "crate::whole::whole")]
    pub step: u8,
    /// The predictions made and run so far, one per step (a later one for
    /// a step replaces an earlier).
    #[cfg_attr(feature = "openapi", schema(max_items = 10))]
    pub predictions: Vec<Prediction>,
    /// The scheduler's challenges the lab has met (see [`Challenge`]), as
    /// its browser remembers them.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_items = 3))]
    pub challenges: Vec<Challenge>,
}

/// A challenge of the lesson's scheduler step (`/scheduler`), met when the
/// server did what it asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Challenge {
    /// Naive kept two orders for one purchase.
    NaiveKeepsTwo,
    /// Transactional, played to the end in two different orders of steps,
    /// kept one order each time.
    TransactionalHoldsOne,
    /// Safe, crashed between its order and its answer, told a retry to
    /// wait (409), and answered a later one with the order it had kept.
    SafeRecovers,
}

impl Challenge {
    /// Every challenge, in the order the step gives them.
    pub const ALL: [Challenge; 3] = [
        Challenge::NaiveKeepsTwo,
        Challenge::TransactionalHoldsOne,
        Challenge::SafeRecovers,
    ];

    /// Its name on the wire and in links: `naive-keeps-two`, ….
    pub fn name(self) -> &'static str {
        match self {
            Self::NaiveKeepsTwo => "naive-keeps-two",
            Self::TransactionalHoldsOne => "transactional-holds-one",
            Self::SafeRecovers => "safe-recovers",
        }
    }
}

/// One lab as the teacher sees it: `GET /api/teacher/labs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LabActivity {
    /// The lab's public id (`lab-` and 20 hex digits): it opens nothing by itself.
    pub lab: String,
    /// The last saved run or lesson step.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub last_activity: Timestamp,
    /// Runs saved (and not yet expired).
    pub runs: u32,
    /// Of those, runs where a pane ended with more than one order: duplicates seen.
    pub runs_with_duplicates: u32,
    /// The lesson step shown now, if the lab has opened the lesson.
    pub lesson_step: Option<u8>,
    /// The furthest lesson step reached.
    pub furthest_step: Option<u8>,
    /// Predictions that what happened bore out.
    pub predictions_right: u32,
    /// Predictions made and run.
    pub predictions_made: u32,
    /// The id of the lab's latest saved run, to open it read-only.
    pub latest_run: Option<String>,
    /// The scheduler's challenges it has met.
    #[serde(default)]
    pub challenges: Vec<Challenge>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_is_right_when_the_count_falls_in_its_range() {
        let at = |guess, orders| Prediction {
            step: 1,
            guess,
            orders,
        };
        assert!(at(PredictedOrders::None, 0).was_right());
        assert!(at(PredictedOrders::One, 1).was_right());
        assert!(at(PredictedOrders::More, 3).was_right());
        assert!(!at(PredictedOrders::One, 2).was_right());
        assert!(!at(PredictedOrders::More, 1).was_right());
    }

    #[test]
    fn a_challenge_travels_by_its_name_and_an_unknown_one_is_refused() {
        for challenge in Challenge::ALL {
            let json = serde_json::to_value(challenge).unwrap();
            assert_eq!(json, challenge.name());
        }
        let progress: LessonProgress =
            serde_json::from_str(r#"{"step": 6, "predictions": []}"#).unwrap();
        assert!(
            progress.challenges.is_empty(),
            "a page from before challenges"
        );
        let unknown = r#"{"step": 6, "predictions": [], "challenges": ["break-everything"]}"#;
        assert!(serde_json::from_str::<LessonProgress>(unknown).is_err());
    }
}
