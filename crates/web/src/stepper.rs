//! The scheduler page's state: the schedule open on the chosen design's
//! server, where each copy stands, its answer, the learner's moves, the
//! challenges met, and the pane that draws it all. What the buttons do is
//! in [`crate::stepper_moves`].

use lab_client::scheduler::{Challenges, Lane, Move, schedule_link, schedule_text};
use lab_client::{Design, Outcome, Purchases};
use lab_i18n::i18n::td_string;
use lab_wire::schedule::{Gate, ScheduleView};
use lab_wire::{LabSecret, NewOrder};
use leptos::prelude::*;

use crate::api::ApiError;
use crate::challenge_store;
use crate::state::Pane;

/// Why the page cannot go on with the schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum Trouble {
    /// A call to the server failed.
    Api(ApiError),
    /// A copy was sent but never joined its schedule.
    NotJoined(u8),
    /// The server closed the schedule: a minute passed without a move.
    Closed,
}

impl Trouble {
    /// In `locale`'s words.
    pub fn text(&self, locale: lab_client::Locale) -> String {
        match self {
            Self::Api(error) => td_string!(locale, scheduler.failed, error = error.text(locale)),
            Self::NotJoined(copy) => td_string!(locale, scheduler.not_joined, copy = copy),
            Self::Closed => td_string!(locale, scheduler.closed).to_owned(),
        }
    }
}

impl From<ApiError> for Trouble {
    fn from(error: ApiError) -> Self {
        Self::Api(error)
    }
}

/// Everything the scheduler page shows, as signals.
#[derive(Clone, Copy)]
pub struct Stepper {
    pub lab: StoredValue<LabSecret>,
    pub design: RwSignal<Design>,
    pub copies: RwSignal<u8>,
    /// The order each copy carries (one item, one price: one purchase).
    pub order: StoredValue<NewOrder>,
    /// The open schedule's id and the key its copies carry.
    pub(crate) schedule: StoredValue<Option<(String, String)>>,
    /// Bumped on every start: an answer from an earlier start is dropped.
    pub(crate) generation: StoredValue<u32>,
    pub view: RwSignal<Option<ScheduleView>>,
    /// Each copy's answer, once its client has one.
    pub answers: RwSignal<Vec<Option<Outcome>>>,
    /// The gate a copy was crashed at, and when (page ms), per copy.
    pub crashed: RwSignal<Vec<Option<(Gate, f64)>>>,
    /// The answers to the crashed copy's retries, in order.
    pub retries: RwSignal<Vec<Outcome>>,
    /// A retry is on its way.
    pub retrying: RwSignal<bool>,
    pub moves: RwSignal<Vec<Move>>,
    /// A start or a move is under way: the buttons wait.
    pub busy: RwSignal<bool>,
    pub error: RwSignal<Option<Trouble>>,
    pub challenges: RwSignal<Challenges>,
    /// What the results below show: the copies' steps, answers and orders.
    pub pane: Pane,
    pub purchases: StoredValue<Purchases>,
    pub(crate) started_at: StoredValue<f64>,
}

impl Stepper {
    pub fn new(lab: LabSecret, design: Design, copies: u8, order: NewOrder, pane: Pane) -> Self {
        let challenges = challenge_store::stored(&lab);
        Self {
            lab: StoredValue::new(lab),
            design: RwSignal::new(design),
            copies: RwSignal::new(copies),
            order: StoredValue::new(order),
            schedule: StoredValue::new(None),
            generation: StoredValue::new(0),
            view: RwSignal::new(None),
            answers: RwSignal::new(Vec::new()),
            crashed: RwSignal::new(Vec::new()),
            retries: RwSignal::new(Vec::new()),
            retrying: RwSignal::new(false),
            moves: RwSignal::new(Vec::new()),
            busy: RwSignal::new(false),
            error: RwSignal::new(None),
            challenges: RwSignal::new(challenges),
            pane,
            purchases: StoredValue::new(Purchases::default()),
            started_at: StoredValue::new(0.0),
        }
    }

    /// Copy `copy`'s lane now.
    pub fn lane(self, copy: u8) -> Lane {
        let index = usize::from(copy - 1);
        self.view.with(|view| {
            let scheduled = view
                .as_ref()
                .and_then(|view| view.copies.iter().find(|c| c.copy == copy));
            let crashed = self.crashed.with(|c| c.get(index).copied().flatten());
            self.answers.with(|answers| {
                Lane::of(
                    scheduled,
                    crashed.map(|(gate, _)| gate),
                    answers.get(index).and_then(Option::as_ref),
                )
            })
        })
    }

    /// Milliseconds since the copies were sent, at page time `now`.
    pub fn run_ms(self, now: f64) -> f64 {
        (now - self.started_at.get_value()).max(0.0)
    }

    /// This schedule's address, without the lab's secret.
    pub fn own_link(self) -> String {
        schedule_link(
            self.design.get(),
            self.copies.get(),
            &self.moves.with(|moves| schedule_text(moves)),
        )
    }

    /// The key's schedule so far, as the explorer writes one.
    pub fn schedule_text(self) -> String {
        self.moves.with(|moves| schedule_text(moves))
    }
}
