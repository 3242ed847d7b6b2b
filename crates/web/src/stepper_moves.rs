//! What the scheduler page's buttons do: a start (a fresh schedule and
//! key, the copies sent one after another so that copy N is the Nth to
//! join), the learner's moves (a copy released or crashed), the copies
//! that move on by themselves read until they settle, a crashed copy's
//! retries, and after each, from what the server did, the key's orders,
//! the verdict and the challenges.

use lab_client::scheduler::{Lane, Move, Played};
use lab_client::{AttemptRecord, Outcome};
use lab_wire::schedule::{CopyState, ScheduleView};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError};
use crate::challenge_store;
use crate::lab_id::new_key;
use crate::runner::now_ms;
use crate::schedule_api;
use crate::state::RunSummary;
use crate::stepper::{Stepper, Trouble};

impl Stepper {
    /// Starts over on a fresh key and makes every move but the last again.
    pub fn undo(self) {
        let mut moves = self.moves.get_untracked();
        moves.pop();
        self.start(moves);
    }

    /// Reads where the copies stand again (a step of theirs arrived),
    /// unless a move under way will.
    pub fn refresh(self) {
        let Some((id, _)) = self.schedule.get_value() else {
            return;
        };
        if self.busy.get_untracked() {
            return;
        }
        let generation = self.generation.get_value();
        let (lab, design) = (self.lab.get_value(), self.design.get_untracked());
        spawn_local(async move {
            if let Ok(view) = schedule_api::view(design, &lab, &id).await
                && self.generation.get_value() == generation
                && !self.busy.get_untracked()
            {
                self.view.set(Some(view));
            }
        });
    }

    /// Opens a fresh schedule on a fresh key and sends the copies; then
    /// makes `replay`'s moves (an undo replays all but the last). Nothing,
    /// while a start or a move is under way: two starts at once could
    /// leave a schedule open that the page no longer knows.
    pub fn start(self, replay: Vec<Move>) {
        if self.busy.get_untracked() {
            return;
        }
        self.busy.set(true);
        spawn_local(async move {
            let generation = self.generation.get_value() + 1;
            self.generation.set_value(generation);
            if let Err(error) = self.open_and_send(generation).await {
                self.error.set(Some(error));
            }
            for step in replay {
                if self.generation.get_value() != generation
                    || self.error.with_untracked(Option::is_some)
                {
                    break;
                }
                self.make(step, generation).await;
            }
            if self.generation.get_value() == generation {
                self.busy.set(false);
            }
        });
    }

    async fn open_and_send(self, generation: u32) -> Result<(), Trouble> {
        let lab = self.lab.get_value();
        let design = self.design.get_untracked();
        let copies = self.copies.get_untracked();
        if let Some((id, _)) = self.schedule.get_value() {
            // Its copies run on unscheduled, under their own key.
            schedule_api::close(self.pane.server(), &lab, &id).await;
        }
        self.schedule.set_value(None);
        self.view.set(None);
        self.error.set(None);
        self.moves.set(Vec::new());
        self.answers.set(vec![None; usize::from(copies)]);
        self.crashed.set(vec![None; usize::from(copies)]);
        self.retries.set(Vec::new());
        self.pane.design.set(design);
        self.pane.forget_run();
        self.pane.orders.set(Vec::new());
        let opened = schedule_api::open(design, &lab).await?;
        let key = new_key();
        self.purchases.update_value(|p| {
            let purchase = p.start();
            p.add_key(purchase, &key);
        });
        self.schedule
            .set_value(Some((opened.id.clone(), key.clone())));
        self.started_at.set_value(now_ms());
        for copy in 1..=copies {
            self.send(generation, copy, Some(opened.id.clone()));
            // The next copy is sent once this one has joined, so that copy
            // N is the Nth in the schedule and on the step stream.
            let mut joined = None;
            for _ in 0..100 {
                let view = schedule_api::view(design, &lab, &opened.id).await?;
                // Joined, and stopped at its first gate.
                let at_gate = view
                    .copies
                    .iter()
                    .any(|c| c.copy == copy && c.state != CopyState::Running);
                if at_gate {
                    joined = Some(view);
                    break;
                }
                gloo_timers::future::TimeoutFuture::new(50).await;
            }
            let Some(view) = joined else {
                return Err(Trouble::NotJoined(copy));
            };
            if self.generation.get_value() != generation {
                return Ok(());
            }
            self.view.set(Some(view));
        }
        Ok(())
    }

    /// Sends copy `copy` (in the schedule `id`, or, for a retry, on its
    /// own) and records its attempt and, later, its answer.
    fn send(self, generation: u32, copy: u8, id: Option<String>) {
        let Some((_, key)) = self.schedule.get_value() else {
            return;
        };
        let number =
            self.pane
                .attempts
                .with_untracked(|a| a.iter().filter(|a| a.copy == copy).count()) as u8
                + 1;
        let index = self.pane.attempts.with_untracked(Vec::len);
        self.pane.attempts.update(|attempts| {
            attempts.push(AttemptRecord {
                copy,
                number,
                key: key.clone(),
                started_ms: now_ms() - self.started_at.get_value(),
                ended_ms: None,
                outcome: None,
            });
        });
        let (lab, design, order) = (
            self.lab.get_value(),
            self.design.get_untracked(),
            self.order.get_value(),
        );
        spawn_local(async move {
            let outcome = schedule_api::send_copy(design, &lab, &key, id.as_deref(), &order).await;
            if self.generation.get_value() != generation {
                return;
            }
            let crashed = self
                .crashed
                .with_untracked(|c| c.get(usize::from(copy - 1)).copied().flatten());
            let outcome = match outcome {
                Outcome::NetworkError(_) if id.is_some() && crashed.is_some() => Outcome::Crashed,
                outcome => outcome,
            };
            let ended_ms = now_ms() - self.started_at.get_value();
            self.pane.attempts.update(|attempts| {
                if let Some(attempt) = attempts.get_mut(index) {
                    attempt.ended_ms = Some(ended_ms);
                    attempt.outcome = Some(outcome.clone());
                }
            });
            if id.is_some() {
                self.answers
                    .update(|answers| answers[usize::from(copy - 1)] = Some(outcome));
            } else {
                self.retries.update(|retries| retries.push(outcome));
                self.retrying.set(false);
            }
            self.after_change(generation).await;
        });
    }

    /// Releases copy `copy`'s next statement (or crashes it there).
    pub fn act(self, step: Move) {
        if self.busy.get_untracked() {
            return;
        }
        let generation = self.generation.get_value();
        spawn_local(async move {
            self.busy.set(true);
            self.make(step, generation).await;
            if self.generation.get_value() == generation {
                self.busy.set(false);
            }
        });
    }

    async fn make(self, step: Move, generation: u32) {
        let Some((id, _)) = self.schedule.get_value() else {
            return;
        };
        let (copy, crash) = match step {
            Move::Release(copy) => (copy, false),
            Move::Crash(copy) => (copy, true),
        };
        let Lane::Next(gate) = self.lane(copy) else {
            return;
        };
        let (lab, design) = (self.lab.get_value(), self.design.get_untracked());
        let made = schedule_api::make(design, &lab, &id, copy, crash).await;
        if self.generation.get_value() != generation {
            return;
        }
        match made {
            Ok(view) => {
                if crash {
                    let at = now_ms();
                    self.crashed
                        .update(|c| c[usize::from(copy - 1)] = Some((gate, at)));
                }
                self.moves.update(|moves| moves.push(step));
                if self.moves.with_untracked(Vec::len) == 1 {
                    bring_the_work_into_view();
                }
                self.view.set(Some(view));
                self.settle(generation).await;
                self.after_change(generation).await;
            }
            // The schedule is gone: idle for a minute, the server closed it.
            Err(ApiError::Status(404)) => self.error.set(Some(Trouble::Closed)),
            Err(error) => self.error.set(Some(error.into())),
        }
    }

    /// Reads the schedule again while a copy the learner does not hold
    /// still moves by itself: one running, or one waiting for a copy that
    /// is no longer stopped at a gate (it will be let in without a click).
    async fn settle(self, generation: u32) {
        let Some((id, _)) = self.schedule.get_value() else {
            return;
        };
        let (lab, design) = (self.lab.get_value(), self.design.get_untracked());
        // At most 10 s: the server answers a release that has not settled
        // after 10 s with the copy running, as its own last resort.
        for _ in 0..100 {
            let moving = self
                .view
                .with_untracked(|view| view.as_ref().is_some_and(still_moving));
            if !moving {
                return;
            }
            gloo_timers::future::TimeoutFuture::new(100).await;
            match schedule_api::view(design, &lab, &id).await {
                Ok(view) if self.generation.get_value() == generation => self.view.set(Some(view)),
                _ => return,
            }
        }
    }

    /// Sends the crashed copy's client's retry: the same key, on its own.
    pub fn retry(self, copy: u8) {
        if self.retrying.get_untracked() {
            return;
        }
        self.retrying.set(true);
        self.send(self.generation.get_value(), copy, None);
    }

    /// After a move or an answer: the key's orders from the server, the
    /// verdict once every copy has ended, and the challenges.
    async fn after_change(self, generation: u32) {
        let Some((_, key)) = self.schedule.get_value() else {
            return;
        };
        let (lab, design) = (self.lab.get_value(), self.design.get_untracked());
        let Ok(orders) = api::list_orders(design, &lab).await else {
            return;
        };
        if self.generation.get_value() != generation {
            return;
        }
        let orders: Vec<_> = orders
            .into_iter()
            .filter(|order| order.idempotency_key == key)
            .collect();
        let count = orders.len();
        self.pane.orders.set(orders);
        let copies = self.copies.get_untracked();
        let ended =
            (1..=copies).all(|copy| self.lane(copy).has_ended()) && !self.retrying.get_untracked();
        if ended {
            self.pane.verdict.set(Some(RunSummary {
                design,
                policy: lab_client::ClientPolicy {
                    copies,
                    ..Default::default()
                },
                attempts: self.pane.attempts.get_untracked(),
                orders: count,
                amount_cents: self.order.with_value(|order| order.amount_cents),
                effects: None,
            }));
        }
        let schedule = self.schedule_text();
        let crashed_at = self
            .crashed
            .with_untracked(|c| c.iter().flatten().map(|(gate, _)| *gate).next());
        let retries = self.retries.get_untracked();
        let played = Played {
            design,
            schedule: &schedule,
            ended,
            orders: count,
            crashed_at,
            retries: &retries,
        };
        let mut challenges = self.challenges.get_untracked();
        challenges.record(&played);
        // Also a new schedule tried on Transactional, which meets nothing yet.
        if challenges != self.challenges.get_untracked() {
            challenge_store::store(&lab, &challenges);
            self.challenges.set(challenges);
        }
    }
}

/// Whether a copy will move without the learner: running, or waiting for
/// a copy that is not stopped at a gate (a copy at a gate holds what it
/// holds until it is released).
fn still_moving(view: &ScheduleView) -> bool {
    view.copies.iter().any(|copy| match copy.state {
        CopyState::Running => true,
        CopyState::Blocked { by: Some(by), .. } => !view
            .copies
            .iter()
            .any(|c| c.copy == by && matches!(c.state, CopyState::AtGate { .. })),
        _ => false,
    })
}

/// Scrolls the lanes and the picture to the top of the screen, once the
/// learner has made a first move (the page's introduction is above them).
fn bring_the_work_into_view() {
    if let Some(work) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("scheduler-work"))
    {
        work.scroll_into_view_with_bool(true);
    }
}
