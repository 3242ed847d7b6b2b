//! The scheduler step's challenges, each decided from what the server
//! did with a schedule (its answers and the orders it kept).

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::schedule::Gate;
use serde::{Deserialize, Serialize};

use crate::{Design, Outcome};

pub use lab_wire::workshop::Challenge;

/// What the page knows of a challenge: the design it is played on, and
/// what it says of it in the learner's language.
pub trait ChallengeText {
    /// The design it is played on.
    fn design(self) -> Design;
    /// What to do.
    fn task(self, locale: Locale) -> &'static str;
    /// What meeting it showed.
    fn lesson(self, locale: Locale) -> &'static str;
}

impl ChallengeText for Challenge {
    fn design(self) -> Design {
        match self {
            Self::NaiveKeepsTwo => Design::Naive,
            Self::TransactionalHoldsOne => Design::Transactional,
            Self::SafeRecovers => Design::Safe,
        }
    }

    fn task(self, locale: Locale) -> &'static str {
        match self {
            Self::NaiveKeepsTwo => td_string!(locale, scheduler.challenge_naive),
            Self::TransactionalHoldsOne => td_string!(locale, scheduler.challenge_transactional),
            Self::SafeRecovers => td_string!(locale, scheduler.challenge_safe),
        }
    }

    fn lesson(self, locale: Locale) -> &'static str {
        match self {
            Self::NaiveKeepsTwo => td_string!(locale, scheduler.met_naive),
            Self::TransactionalHoldsOne => td_string!(locale, scheduler.met_transactional),
            Self::SafeRecovers => td_string!(locale, scheduler.met_safe),
        }
    }
}

/// What one schedule left, as the server reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Played<'a> {
    pub design: Design,
    /// The moves, as [`schedule_text`] writes them.
    pub schedule: &'a str,
    /// Whether every copy (and every retry) has ended.
    pub ended: bool,
    /// The orders the server holds for the key.
    pub orders: usize,
    /// The gate a copy was crashed at, if one was.
    pub crashed_at: Option<Gate>,
    /// The answers to the retries of the crashed copy, in order.
    pub retries: &'a [Outcome],
}

/// The challenges met so far, and the schedules tried on Transactional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenges {
    /// The challenges met, in the order they were met.
    pub met: Vec<Challenge>,
    /// The different schedules played to their end on Transactional.
    pub transactional_schedules: Vec<String>,
}

/// How many different orders of steps on Transactional meet its challenge.
pub const TRANSACTIONAL_TRIES: usize = 2;

impl Challenges {
    /// Whether `challenge` has been met.
    pub fn is_met(&self, challenge: Challenge) -> bool {
        self.met.contains(&challenge)
    }

    /// Takes in what a schedule left; returns the challenge it met, if it
    /// met one now for the first time.
    pub fn record(&mut self, played: &Played<'_>) -> Option<Challenge> {
        let met = match played.design {
            // Two orders stay two: no need to wait for the answers.
            Design::Naive => played.orders >= 2,
            Design::Transactional => {
                if played.ended
                    && played.orders == 1
                    && !played.schedule.is_empty()
                    && !self
                        .transactional_schedules
                        .iter()
                        .any(|s| s == played.schedule)
                {
                    self.transactional_schedules
                        .push(played.schedule.to_owned());
                }
                self.transactional_schedules.len() >= TRANSACTIONAL_TRIES
            }
            // Crashed with its order written and no answer saved; a retry
            // was told to wait (the claim's lock), and a later one took the
            // claim over and answered with the order that was there.
            Design::Safe => {
                played.ended
                    && played.orders == 1
                    && played.crashed_at == Some(Gate::SaveAnswer)
                    && played.retries.contains(&Outcome::InProgress)
                    && played.retries.last() == Some(&Outcome::Replayed)
            }
            _ => false,
        };
        let challenge = Challenge::ALL
            .into_iter()
            .find(|c| c.design() == played.design)?;
        if !met || self.is_met(challenge) {
            return None;
        }
        self.met.push(challenge);
        Some(challenge)
    }

    /// Whether to offer every order of the statements at once: once the
    /// learner has played Transactional to its end in two different ways.
    pub fn offer_every_order(&self) -> bool {
        self.transactional_schedules.len() >= TRANSACTIONAL_TRIES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(design: Design, schedule: &str, orders: usize) -> Played<'_> {
        Played {
            design,
            schedule,
            ended: true,
            orders,
            crashed_at: None,
            retries: &[],
        }
    }

    #[test]
    fn naive_is_beaten_by_two_orders_even_before_the_answers_come() {
        let mut challenges = Challenges::default();
        assert_eq!(
            challenges.record(&played(Design::Naive, "1 2 1 1", 1)),
            None
        );
        let mut two = played(Design::Naive, "1 2 1 2", 2);
        two.ended = false;
        assert_eq!(challenges.record(&two), Some(Challenge::NaiveKeepsTwo));
        assert_eq!(challenges.record(&two), None, "met once");
        assert!(challenges.is_met(Challenge::NaiveKeepsTwo));
    }

    #[test]
    fn transactional_counts_different_schedules_played_to_their_end() {
        let mut challenges = Challenges::default();
        let mut unfinished = played(Design::Transactional, "1 2", 0);
        unfinished.ended = false;
        assert_eq!(challenges.record(&unfinished), None);
        assert_eq!(
            challenges.record(&played(Design::Transactional, "1 1 2 2", 1)),
            None
        );
        assert_eq!(
            challenges.record(&played(Design::Transactional, "1 1 2 2", 1)),
            None,
            "the same order again is not a new try"
        );
        assert!(!challenges.offer_every_order());
        assert_eq!(
            challenges.record(&played(Design::Transactional, "2 1 1 2", 1)),
            Some(Challenge::TransactionalHoldsOne)
        );
        assert!(challenges.offer_every_order());
    }

    #[test]
    fn safe_is_met_only_by_a_crash_before_its_answer_a_409_and_a_recovered_order() {
        let retries = [Outcome::InProgress, Outcome::Replayed];
        let crash = |at, retries| Played {
            design: Design::Safe,
            schedule: "1 1 1 x1",
            ended: true,
            orders: 1,
            crashed_at: Some(at),
            retries,
        };
        let mut challenges = Challenges::default();
        assert_eq!(
            challenges.record(&crash(Gate::Answer, &retries)),
            None,
            "its answer was saved"
        );
        assert_eq!(
            challenges.record(&crash(Gate::SaveAnswer, &retries[1..])),
            None,
            "no 409 seen"
        );
        assert_eq!(
            challenges.record(&crash(Gate::SaveAnswer, &retries)),
            Some(Challenge::SafeRecovers)
        );
    }

    #[test]
    fn other_designs_meet_no_challenge_and_every_challenge_reads_in_both_languages() {
        for locale in lab_i18n::LOCALES {
            for challenge in Challenge::ALL {
                assert!(!challenge.task(locale).is_empty() && !challenge.lesson(locale).is_empty());
            }
        }
        let mut challenges = Challenges::default();
        assert_eq!(challenges.record(&played(Design::Locked, "1 2", 2)), None);
        assert!(challenges.met.is_empty());
    }
}
