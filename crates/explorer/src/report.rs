//! What one schedule did, and what an exploration found: the schedule,
//! the moves, the steps the server reported, the orders it left and the
//! answers each copy got.

use std::fmt;
use std::str::FromStr;

use lab_wire::{ExploredSchedule, Gate, Step};
use serde::{Serialize, Serializer};

/// One choice of a schedule: let a copy through its gate (`1`), or crash
/// it there (`x1`), as if the server died before that statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Choice {
    /// The copy runs the statement at its gate.
    Release(u8),
    /// The copy's work ends at its gate; its client gets no answer and
    /// retries with the same key (a new copy).
    Crash(u8),
}

impl Choice {
    /// The copy it names.
    pub fn copy(self) -> u8 {
        match self {
            Self::Release(copy) | Self::Crash(copy) => copy,
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Release(copy) => write!(f, "{copy}"),
            Self::Crash(copy) => write!(f, "x{copy}"),
        }
    }
}

impl FromStr for Choice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (crash, number) = match text.strip_prefix('x') {
            Some(number) => (true, number),
            None => (false, text),
        };
        match number.parse::<u8>() {
            Ok(copy @ 1..=4) if crash => Ok(Self::Crash(copy)),
            Ok(copy @ 1..=4) => Ok(Self::Release(copy)),
            _ => Err(format!(
                "{text:?} is not a choice: a copy (1 to 4), or x and a copy to crash it"
            )),
        }
    }
}

impl Serialize for Choice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Which crash a schedule may make: at most one per schedule, after which
/// the crashed copy's client retries with the same key as one more copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Crashes {
    /// No crash: only releases.
    #[default]
    Never,
    /// Any copy at any of its gates, as a server process dying there.
    AnyGate,
    /// Any copy at its answer gate only: its work done and committed, its
    /// answer lost on the way (a dropped response).
    AnswerOnly,
}

impl Crashes {
    /// Whether a copy waiting at `gate` may crash there.
    pub fn allowed_at(self, gate: Gate) -> bool {
        match self {
            Self::Never => false,
            Self::AnyGate => true,
            Self::AnswerOnly => gate == Gate::Answer,
        }
    }

    /// For the summary: `, a crash anywhere`.
    pub fn words(self) -> &'static str {
        match self {
            Self::Never => "",
            Self::AnyGate => ", a crash anywhere",
            Self::AnswerOnly => ", one answer dropped",
        }
    }
}

/// One choice carried out: which copy, at which gate, and whether it crashed there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    /// The choice.
    pub choice: Choice,
    /// The statement at its gate: run (a release) or never run (a crash).
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
    /// The choices, in order: the schedule (`1 2 1 x1 3 …`).
    pub schedule: Vec<Choice>,
    /// Each choice and the gate it was made at.
    pub moves: Vec<Move>,
    /// Before each choice, the choices there were.
    #[serde(skip)]
    pub enabled: Vec<Vec<Choice>>,
    /// Every step the copies reported, in the server's order.
    pub steps: Vec<Step>,
    /// The orders the key was left with (their ids).
    pub orders: Vec<String>,
    /// What each copy's client got back.
    pub answers: Vec<Answer>,
}

impl ScheduleRun {
    /// The order "shortest first": fewer moves, then the first in order.
    fn shorter(a: &&ScheduleRun, b: &&ScheduleRun) -> std::cmp::Ordering {
        (a.schedule.len(), &a.schedule).cmp(&(b.schedule.len(), &b.schedule))
    }

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

    /// What it left, as a server reports it to a lab (`GET /explorations/ID`).
    pub fn explored(&self) -> ExploredSchedule {
        ExploredSchedule {
            schedule: self.schedule_text(),
            orders: u32::try_from(self.orders.len()).unwrap_or(u32::MAX),
            answers: self.answers.iter().map(|answer| answer.status).collect(),
            broke_the_promise: self.broke_the_promise(),
        }
    }
}

/// A schedule as text: its choices, separated by spaces (`1 2 x1 3`).
pub fn schedule_text(schedule: &[Choice]) -> String {
    let choices: Vec<String> = schedule.iter().map(Choice::to_string).collect();
    choices.join(" ")
}

/// `1 2 x1 3` as the choices it names.
pub fn parse_schedule(text: &str) -> Result<Vec<Choice>, String> {
    text.split_whitespace().map(str::parse).collect()
}

/// Every schedule of one design and number of copies.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The design explored (`naive`, …).
    pub design: String,
    /// How many copies of the order were sent.
    pub copies: u8,
    /// Which crash each schedule could also make.
    pub crash: Crashes,
    /// The bound on preemptions per schedule, if there was one.
    pub preemptions: Option<usize>,
    /// Whether one schedule of each set of equivalent ones was run (see
    /// `reduce`), not every one.
    pub reduced: bool,
    /// Runs a reduced search ended early, every choice left asleep (each
    /// equivalent to a schedule in `runs`).
    pub cut_short: usize,
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
        self.broken().min_by(ScheduleRun::shorter)
    }

    /// Every schedule, shortest first (fewest moves, then in order).
    pub fn runs_shortest_first(&self) -> impl Iterator<Item = &ScheduleRun> {
        let mut runs: Vec<&ScheduleRun> = self.runs.iter().collect();
        runs.sort_by(ScheduleRun::shorter);
        runs.into_iter()
    }

    /// The summary line: `naive, 2 copies: 70 schedules, 36 left two orders;
    /// shortest counterexample `1 2 1 1 1 2 2 2``.
    pub fn summary(&self) -> String {
        let broken = self.broken().count();
        let crash = self.crash.words();
        let bound = match self.preemptions {
            Some(1) => ", at most 1 preemption".to_owned(),
            Some(bound) => format!(", at most {bound} preemptions"),
            None => String::new(),
        };
        let kinds = if self.reduced {
            " (one of each set of equivalent schedules)"
        } else {
            ""
        };
        let mut line = format!(
            "{}, {} copies{crash}{bound}: {} schedules{kinds}, {} left more than one order",
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
            schedule: schedule.iter().map(|&copy| Choice::Release(copy)).collect(),
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
    fn a_schedule_reads_back_as_it_is_written_and_refuses_what_is_not_a_choice() {
        let schedule = parse_schedule("1 2  x1 3").unwrap();
        assert_eq!(
            schedule,
            [
                Choice::Release(1),
                Choice::Release(2),
                Choice::Crash(1),
                Choice::Release(3)
            ]
        );
        assert_eq!(schedule_text(&schedule), "1 2 x1 3");
        for bad in ["0", "5", "x", "y1", "1.0", "-1"] {
            assert!(parse_schedule(bad).is_err(), "{bad}");
        }
        assert!(
            Choice::Release(2) < Choice::Crash(1),
            "a release comes first"
        );
    }

    #[test]
    fn the_summary_names_the_shortest_counterexample_first_in_order() {
        let report = Report {
            design: "naive".into(),
            copies: 2,
            crash: Crashes::Never,
            preemptions: None,
            reduced: false,
            cut_short: 0,
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
