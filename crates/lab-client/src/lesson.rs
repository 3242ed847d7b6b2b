//! The guided lesson: the article's questions in its order, one step each.
//! A step says what the client will do in plain words, asks the learner to
//! predict how many orders one of the two servers will hold, runs it on the
//! real servers, and compares the prediction with what happened.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::workshop::PredictedOrders;

use crate::design::{DEFAULT_PANES, Design, DesignText};
use crate::display::Text;
use crate::{ClientPolicy, preset};

/// What a learner may predict about a server's orders for one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guess {
    /// No order at all.
    NoOrder,
    /// Exactly one: the customer paid once.
    OneOrder,
    /// More than one: the customer paid more than once.
    MoreThanOne,
}

impl Guess {
    /// Every guess, in the order a step offers them.
    pub const ALL: [Self; 3] = [Self::NoOrder, Self::OneOrder, Self::MoreThanOne];

    /// Which guess `orders` bears out.
    pub fn of(orders: usize) -> Self {
        match orders {
            0 => Self::NoOrder,
            1 => Self::OneOrder,
            _ => Self::MoreThanOne,
        }
    }

    /// A name that stays the same in every language, for ids and links.
    pub fn id(self) -> &'static str {
        match self {
            Self::NoOrder => "none",
            Self::OneOrder => "one",
            Self::MoreThanOne => "more",
        }
    }

    /// The guess as the lesson's progress records it.
    pub fn recorded(self) -> PredictedOrders {
        match self {
            Self::NoOrder => PredictedOrders::None,
            Self::OneOrder => PredictedOrders::One,
            Self::MoreThanOne => PredictedOrders::More,
        }
    }

    /// The guess in words: "exactly one order".
    pub fn text(self, locale: Locale) -> String {
        match self {
            Self::NoOrder => td_string!(locale, lesson.guess_none),
            Self::OneOrder => td_string!(locale, lesson.guess_one),
            Self::MoreThanOne => td_string!(locale, lesson.guess_more),
        }
        .into()
    }
}

/// What a step runs, and which server's orders the learner predicts.
#[derive(Debug, Clone)]
pub struct LessonRun {
    /// How the client behaves.
    pub policy: ClientPolicy,
    /// The servers of the two panes.
    pub panes: [Design; 2],
    /// The pane (0 or 1) whose orders the prediction is about.
    pub asks_about: usize,
}

impl LessonRun {
    /// The server the prediction is about.
    pub fn asked_server(&self) -> Design {
        self.panes[self.asks_about]
    }

    /// The question, naming that server.
    pub fn question(&self, locale: Locale) -> String {
        td_string!(
            locale,
            lesson.question,
            server = self.asked_server().title(locale)
        )
    }
}

/// One step of the lesson.
#[derive(Debug, Clone)]
pub struct LessonStep {
    /// A name that stays the same in every language.
    pub id: &'static str,
    /// Its heading.
    pub title: Text,
    /// What happens, in plain words, before the run.
    pub setup: Text,
    /// What the learner does at this step.
    pub activity: Activity,
    /// The point of the step, said after the run.
    pub takeaway: Text,
}

/// What a step has the learner do.
#[derive(Debug, Clone)]
pub enum Activity {
    /// Predict a server's orders, then run it on the real servers.
    Run(LessonRun),
    /// Step copies by hand on the scheduler page and meet its challenges
    /// (see [`crate::scheduler`]).
    Scheduler,
    /// Nothing to run: the score, and where to go on.
    Closing,
}

impl LessonStep {
    /// The step's run, if it has one.
    pub fn run(&self) -> Option<&LessonRun> {
        match &self.activity {
            Activity::Run(run) => Some(run),
            Activity::Scheduler | Activity::Closing => None,
        }
    }
}

/// The client of a scenario, for a step that runs it as it is.
fn policy_of(scenario: &str) -> ClientPolicy {
    preset(scenario).map_or(ClientPolicy::PLAIN, |preset| preset.policy.clone())
}

fn run(policy: ClientPolicy, panes: [Design; 2], asks_about: usize) -> Activity {
    Activity::Run(LessonRun {
        policy,
        panes,
        asks_about,
    })
}

/// The lesson, in the article's order.
pub fn steps() -> [LessonStep; LESSON_STEPS] {
    [
        LessonStep {
            id: "post-is-not-put",
            title: |l| td_string!(l, lesson.post_title).into(),
            setup: |l| td_string!(l, lesson.post_setup).into(),
            activity: run(
                ClientPolicy {
                    no_key: true,
                    copies: 5,
                    retries: 0,
                    ..ClientPolicy::PLAIN
                },
                DEFAULT_PANES,
                1,
            ),
            takeaway: |l| td_string!(l, lesson.post_takeaway).into(),
        },
        LessonStep {
            id: "lost-answer",
            title: |l| td_string!(l, lesson.lost_title).into(),
            setup: |l| td_string!(l, lesson.lost_setup).into(),
            activity: run(
                ClientPolicy {
                    no_key: true,
                    drop_response: true,
                    ..ClientPolicy::PLAIN
                },
                DEFAULT_PANES,
                0,
            ),
            takeaway: |l| td_string!(l, lesson.lost_takeaway).into(),
        },
        LessonStep {
            id: "client-key",
            title: |l| td_string!(l, lesson.key_title).into(),
            setup: |l| td_string!(l, lesson.key_setup).into(),
            activity: run(policy_of("dropped-response"), DEFAULT_PANES, 0),
            takeaway: |l| td_string!(l, lesson.key_takeaway).into(),
        },
        LessonStep {
            id: "key-per-attempt",
            title: |l| td_string!(l, lesson.fresh_title).into(),
            setup: |l| td_string!(l, lesson.fresh_setup).into(),
            activity: run(policy_of("new-key-per-attempt"), DEFAULT_PANES, 1),
            takeaway: |l| td_string!(l, lesson.fresh_takeaway).into(),
        },
        LessonStep {
            id: "race",
            title: |l| td_string!(l, lesson.race_title).into(),
            setup: |l| td_string!(l, lesson.race_setup).into(),
            activity: run(policy_of("concurrent-sends"), DEFAULT_PANES, 0),
            takeaway: |l| td_string!(l, lesson.race_takeaway).into(),
        },
        LessonStep {
            id: "scheduler",
            title: |l| td_string!(l, lesson.scheduler_title).into(),
            setup: |l| td_string!(l, lesson.scheduler_setup).into(),
            activity: Activity::Scheduler,
            takeaway: |l| td_string!(l, lesson.scheduler_takeaway).into(),
        },
        LessonStep {
            id: "timeout",
            title: |l| td_string!(l, lesson.timeout_title).into(),
            setup: |l| td_string!(l, lesson.timeout_setup).into(),
            activity: run(policy_of("slow-response"), [Design::Naive, Design::Safe], 1),
            takeaway: |l| td_string!(l, lesson.timeout_takeaway).into(),
        },
        LessonStep {
            id: "get",
            title: |l| td_string!(l, lesson.get_title).into(),
            setup: |l| td_string!(l, lesson.get_setup).into(),
            activity: run(
                ClientPolicy {
                    read_only: true,
                    copies: 5,
                    retries: 0,
                    ..ClientPolicy::PLAIN
                },
                DEFAULT_PANES,
                0,
            ),
            takeaway: |l| td_string!(l, lesson.get_takeaway).into(),
        },
        LessonStep {
            id: "expiry",
            title: |l| td_string!(l, lesson.expiry_title).into(),
            setup: |l| td_string!(l, lesson.expiry_setup).into(),
            activity: run(policy_of("expiry"), DEFAULT_PANES, 1),
            takeaway: |l| td_string!(l, lesson.expiry_takeaway).into(),
        },
        LessonStep {
            id: "beyond-payments",
            title: |l| td_string!(l, lesson.beyond_title).into(),
            setup: |l| td_string!(l, lesson.beyond_setup).into(),
            activity: Activity::Closing,
            takeaway: |l| td_string!(l, lesson.beyond_takeaway).into(),
        },
    ]
}

/// How many steps the lesson has.
pub const LESSON_STEPS: usize = lab_wire::workshop::LESSON_STEPS as usize;

/// The step a link names (`?lesson=3` is the third), if it names one.
pub fn step_from_link(value: &str) -> Option<usize> {
    let number: usize = value.trim().parse().ok()?;
    (1..=LESSON_STEPS).contains(&number).then(|| number - 1)
}

/// The learner's prediction beside what happened, in plain words.
pub fn comparison(guess: Guess, orders: usize, server: Design, locale: Locale) -> String {
    let server = server.title(locale);
    let guess_text = guess.text(locale);
    if Guess::of(orders) == guess {
        td_string!(
            locale,
            lesson.right,
            guess = guess_text,
            server = server,
            count = orders as u64
        )
    } else {
        td_string!(
            locale,
            lesson.wrong,
            guess = guess_text,
            server = server,
            count = orders as u64
        )
    }
}

/// How the learner's predictions went: `(right, made)`, counting only
/// steps that were run after a prediction.
pub fn score(results: &[Option<(Guess, usize)>]) -> (usize, usize) {
    let made = results.iter().flatten().count();
    let right = results
        .iter()
        .flatten()
        .filter(|(guess, orders)| Guess::of(*orders) == *guess)
        .count();
    (right, made)
}

/// The closing words: the score, if any prediction was made.
pub fn score_text(results: &[Option<(Guess, usize)>], locale: Locale) -> String {
    match score(results) {
        (_, 0) => td_string!(locale, lesson.score_none).into(),
        (right, made) => td_string!(locale, lesson.score, right = right, count = made as u64),
    }
}

pub mod card;

#[cfg(test)]
mod tests;
