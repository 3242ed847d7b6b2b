//! "You are the scheduler": the learner releases each copy's next
//! statement by hand. What each copy's lane says, the learner's moves
//! written as the explorer writes a schedule, and the challenges, each
//! decided from what the server really did (its answers and its orders),
//! never from the clicks alone.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::schedule::{BlockedOn, CopyState, Gate, ScheduledCopy};

use crate::sequence::gate_name;

mod challenges;

use crate::{Outcome, OutcomeText};
pub use challenges::{Challenge, ChallengeText, Challenges, Played, TRANSACTIONAL_TRIES};

/// How many copies a learner can step: the explorer's range.
pub const COPIES: std::ops::RangeInclusive<u8> = lab_wire::exploration::EXPLORATION_COPIES;

/// How long the claim of a copy that crashed keeps retries out, in
/// seconds (`Lab-Lock-Timeout-Secs`): a retry made at once still meets it
/// (`409`), and the one after it is a short wait away.
pub const LOCK_SECS: u32 = 10;

/// One move of the learner: a copy's next statement released, or the copy
/// crashed at its gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    Release(u8),
    Crash(u8),
}

/// The moves as the explorer writes a schedule (`1 2 1 x2`), so a
/// learner's schedule can be told apart from another and replayed with
/// `idempotency-lab explore --schedule`.
pub fn schedule_text(moves: &[Move]) -> String {
    let words: Vec<String> = moves
        .iter()
        .map(|step| match step {
            Move::Release(copy) => copy.to_string(),
            Move::Crash(copy) => format!("x{copy}"),
        })
        .collect();
    words.join(" ")
}

/// A schedule read back from a link: `None` unless every word is a copy
/// from 1 to `copies`, or one (`x` and a copy) that crashes it.
pub fn parse_schedule(text: &str, copies: u8) -> Option<Vec<Move>> {
    text.split_whitespace()
        .map(|word| {
            let (crash, number) = match word.strip_prefix('x') {
                Some(number) => (true, number),
                None => (false, word),
            };
            let copy: u8 = number.parse().ok()?;
            if !(1..=copies).contains(&copy) {
                return None;
            }
            Some(if crash {
                Move::Crash(copy)
            } else {
                Move::Release(copy)
            })
        })
        .collect()
}

/// The scheduler's address that plays `schedule` of `copies` copies on
/// `design`: `/scheduler?design=naive&copies=2&schedule=1+2+1+2`. It holds
/// no lab secret, so whoever opens it plays it in a lab of their own.
pub fn schedule_link(design: crate::Design, copies: u8, schedule: &str) -> String {
    let mut link = format!("/scheduler?design={}&copies={copies}", design.name());
    if !schedule.is_empty() {
        link.push_str("&schedule=");
        link.push_str(&schedule.replace(' ', "+"));
    }
    link
}

/// Where one copy stands, as its lane shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Lane {
    /// Sent, not yet in the schedule.
    Joining,
    /// Stopped before `Gate`: its button releases it.
    Next(Gate),
    /// Released and running its statement.
    Running,
    /// Released, but the database (or the server's lock) makes it wait.
    Waiting { on: BlockedOn, by: Option<u8> },
    /// Crashed by the learner before it could pass `at`: no answer came.
    Crashed { at: Gate },
    /// Its work has ended; its answer has not reached the page yet.
    Ending,
    /// Answered.
    Answered(Outcome),
}

impl Lane {
    /// The lane of one copy: from the schedule's view of it, whether the
    /// learner crashed it (and where), and the answer its client got.
    pub fn of(
        copy: Option<&ScheduledCopy>,
        crashed_at: Option<Gate>,
        answer: Option<&Outcome>,
    ) -> Self {
        if let Some(at) = crashed_at {
            return Self::Crashed { at };
        }
        match copy.map(|copy| copy.state) {
            None => Self::Joining,
            Some(CopyState::AtGate { next }) => Self::Next(next),
            Some(CopyState::Running) => Self::Running,
            Some(CopyState::Blocked { on, by }) => Self::Waiting { on, by },
            Some(CopyState::Finished) => answer.map_or(Self::Ending, |a| Self::Answered(a.clone())),
        }
    }

    /// Whether its button can release (or crash) it now.
    pub fn can_move(&self) -> bool {
        matches!(self, Self::Next(_))
    }

    /// Whether nothing more will happen to it.
    pub fn has_ended(&self) -> bool {
        matches!(self, Self::Crashed { .. } | Self::Answered(_))
    }

    /// What the lane says, in `locale`'s words.
    pub fn text(&self, locale: Locale) -> String {
        match self {
            Self::Joining => td_string!(locale, scheduler.joining).into(),
            Self::Next(gate) => td_string!(locale, scheduler.next, gate = gate_name(*gate, locale)),
            Self::Running => td_string!(locale, scheduler.running).into(),
            Self::Waiting {
                on: BlockedOn::Database,
                by: Some(by),
            } => td_string!(locale, scheduler.waiting_transaction, by = by),
            Self::Waiting {
                on: BlockedOn::Database,
                by: None,
            } => td_string!(locale, scheduler.waiting_transaction_other).into(),
            Self::Waiting {
                on: BlockedOn::ServerLock,
                by: Some(by),
            } => td_string!(locale, scheduler.waiting_lock, by = by),
            Self::Waiting {
                on: BlockedOn::ServerLock,
                by: None,
            } => td_string!(locale, scheduler.waiting_lock_other).into(),
            Self::Crashed { at } => {
                td_string!(locale, scheduler.crashed, gate = gate_name(*at, locale))
            }
            Self::Ending => td_string!(locale, scheduler.ending).into(),
            Self::Answered(outcome) => td_string!(
                locale,
                scheduler.answered,
                label = outcome.label(locale),
                meaning = outcome.meaning(locale)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedule_is_written_as_the_explorer_writes_it_and_read_back() {
        let moves = [
            Move::Release(1),
            Move::Release(2),
            Move::Crash(1),
            Move::Release(2),
        ];
        assert_eq!(schedule_text(&moves), "1 2 x1 2");
        assert_eq!(parse_schedule("1 2 x1 2", 2).unwrap(), moves);
        assert_eq!(parse_schedule("", 2).unwrap(), []);
        assert_eq!(parse_schedule("1 3", 2), None, "no copy 3 of 2");
        assert_eq!(parse_schedule("1 0", 3), None);
        assert_eq!(parse_schedule("1 y2", 3), None);
    }

    #[test]
    fn a_schedules_link_names_design_copies_and_moves_and_no_secret() {
        let moves = [Move::Release(1), Move::Crash(2), Move::Release(1)];
        let link = schedule_link(crate::Design::Safe, 3, &schedule_text(&moves));
        assert_eq!(link, "/scheduler?design=safe&copies=3&schedule=1+x2+1");
        assert_eq!(
            schedule_link(crate::Design::Naive, 2, ""),
            "/scheduler?design=naive&copies=2"
        );
        // What the page reads back from the link's query (`+` is a space there).
        assert_eq!(
            parse_schedule(&"1+x2+1".replace('+', " "), 3).unwrap(),
            moves
        );
    }

    #[test]
    fn a_lane_says_what_its_copy_does_next_or_what_it_waits_for() {
        let at = |state| ScheduledCopy {
            copy: 2,
            request: 7,
            state,
        };
        let next = Lane::of(
            Some(&at(CopyState::AtGate { next: Gate::LookUp })),
            None,
            None,
        );
        assert!(next.can_move());
        assert_eq!(next.text(Locale::en), "next: look the key up");
        let waiting = Lane::of(
            Some(&at(CopyState::Blocked {
                on: BlockedOn::Database,
                by: Some(1),
            })),
            None,
            None,
        );
        assert!(!waiting.can_move());
        assert_eq!(
            waiting.text(Locale::en),
            "waiting: copy 1's transaction holds this key"
        );
        let finished = Lane::of(Some(&at(CopyState::Finished)), None, None);
        assert_eq!(finished, Lane::Ending);
        assert!(!finished.has_ended(), "its answer is still on its way");
        let answered = Lane::of(
            Some(&at(CopyState::Finished)),
            None,
            Some(&Outcome::Created),
        );
        assert!(answered.has_ended());
        let crashed = Lane::of(Some(&at(CopyState::Finished)), Some(Gate::SaveAnswer), None);
        assert!(crashed.has_ended() && !crashed.can_move());
        assert!(crashed.text(Locale::en).contains("save the answer"));
        assert_eq!(Lane::of(None, None, None), Lane::Joining);
    }
}
