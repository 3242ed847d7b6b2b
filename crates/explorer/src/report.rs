//! What one schedule did, and what an exploration found: the schedule,
//! the moves, the steps the server reported, the orders it left and the
//! answers each copy got.

use lab_wire::{Gate, Step};
use serde::Serialize;

/// One release: which copy moved, from which gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    /// The copy released (1, 2, …).
    pub copy: u8,
    /// The statement it ran (what its gate said it would do next).
    pub gate: Gate,
}

/// What one copy's client got back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// The copy (1, 2, …).
    pub copy: u8,
    /// Its HTTP status; `None` when the connection ended without one.
    pub status: Option<u16>,
    /// The order the answer named, if it named one.
    pub order: Option<String>,
    /// Whether it was a replay (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

/// One schedule, run to its end on the real server.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleRun {
    /// The copies released, in order: the schedule (`1 2 1 …`).
    pub schedule: Vec<u8>,
    /// Each release and the statement it let run.
    pub moves: Vec<Move>,
    /// Before each release, the copies that could have moved.
    #[serde(skip)]
    pub enabled: Vec<Vec<u8>>,
    /// Every step the copies reported, in the server's order.
    pub steps: Vec<Step>,
    /// The orders the key was left with (their ids).
    pub orders: Vec<String>,
    /// What each copy's client got back.
    pub answers: Vec<Answer>,
}

impl ScheduleRun {
    /// Whether this schedule broke the promise of one order per key: more
    /// than one order, or a copy told of an order that is not the one kept.
    pub fn broke_the_promise(&self) -> bool {
        let told_of_another = self.answers.iter().any(|answer| {
            answer.status == Some(201)
                && answer
                    .order
                    .as_ref()
                    .is_some_and(|order| !self.orders.contains(order))
        });
        self.orders.len() > 1 || told_of_another
    }

    /// The schedule as text: `1 2 1 1`.
    pub fn schedule_text(&self) -> String {
        schedule_text(&self.schedule)
    }
}

/// A schedule as text: the copies released, separated by spaces.
pub fn schedule_text(schedule: &[u8]) -> String {
    let copies: Vec<String> = schedule.iter().map(u8::to_string).collect();
    copies.join(" ")
}

/// Every schedule of one design and number of copies.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The design explored (`naive`, …).
    pub design: String,
    /// How many copies of the order were sent.
    pub copies: u8,
    /// Every schedule, in the order they were run.
    pub runs: Vec<ScheduleRun>,
}

impl Report {
    /// The schedules that broke the promise.
    pub fn broken(&self) -> impl Iterator<Item = &ScheduleRun> {
        self.runs.iter().filter(|run| run.broke_the_promise())
    }

    /// The shortest schedule that broke the promise (fewest moves, then
    /// the first in order), if one did.
    pub fn shortest_counterexample(&self) -> Option<&ScheduleRun> {
        self.broken()
            .min_by(|a, b| (a.schedule.len(), &a.schedule).cmp(&(b.schedule.len(), &b.schedule)))
    }

    /// The summary line: `naive, 2 copies: 70 schedules, 36 left two orders;
    /// shortest counterexample `1 2 1 1 1 2 2 2``.
    pub fn summary(&self) -> String {
        let broken = self.broken().count();
        let mut line = format!(
            "{}, {} copies: {} schedules, {} left more than one order",
            self.design,
            self.copies,
            self.runs.len(),
            broken
        );
        if let Some(shortest) = self.shortest_counterexample() {
            line.push_str(&format!(
                "; shortest counterexample `{}`",
                shortest.schedule_text()
            ));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(schedule: &[u8], orders: &[&str], answers: &[(u16, &str)]) -> ScheduleRun {
        ScheduleRun {
            schedule: schedule.to_vec(),
            moves: Vec::new(),
            enabled: Vec::new(),
            steps: Vec::new(),
            orders: orders.iter().map(|id| (*id).to_owned()).collect(),
            answers: answers
                .iter()
                .zip(1..)
                .map(|((status, order), copy)| Answer {
                    copy,
                    status: Some(*status),
                    order: Some((*order).to_owned()),
                    replayed: false,
                })
                .collect(),
        }
    }

    #[test]
    fn two_orders_or_an_answer_naming_a_lost_order_break_the_promise() {
        assert!(!run(&[1, 2], &["a"], &[(201, "a"), (201, "a")]).broke_the_promise());
        assert!(run(&[1, 2], &["a", "b"], &[(201, "a"), (201, "b")]).broke_the_promise());
        assert!(run(&[1, 2], &["a"], &[(201, "a"), (201, "b")]).broke_the_promise());
        assert!(!run(&[1, 2], &["a"], &[(201, "a"), (409, "")]).broke_the_promise());
    }

    #[test]
    fn the_summary_names_the_shortest_counterexample_first_in_order() {
        let report = Report {
            design: "naive".into(),
            copies: 2,
            runs: vec![
                run(&[1, 1, 2, 2], &["a"], &[(201, "a"), (201, "a")]),
                run(&[2, 1, 2, 1, 1], &["a", "b"], &[]),
                run(&[1, 2, 2, 1, 1], &["a", "b"], &[]),
            ],
        };
        assert_eq!(
            report.summary(),
            "naive, 2 copies: 3 schedules, 2 left more than one order; shortest counterexample `1 2 2 1 1`"
        );
    }
}
