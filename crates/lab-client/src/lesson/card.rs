//! The words of the lesson card, as data the page's view binds: where the
//! learner is, the step's title and setup, the question and its guesses,
//! the buttons, and after the run what happened. Nothing here knows HTML;
//! the page draws these as real form elements (radio buttons in a
//! fieldset, buttons) that a screen reader names by their labels.

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

use super::{Guess, LESSON_STEPS, LessonRun, LessonStep, comparison, score_text};
use crate::DesignText;

/// The card of one step, in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardWords {
    /// "Step 3 of 10".
    pub step_of: String,
    /// The step's heading.
    pub title: String,
    /// What will happen, before the run.
    pub setup: String,
    /// The prediction asked for, or `None` on the closing step (no run).
    pub prediction: Option<PredictionWords>,
    /// The name of the way back and on.
    pub progress: String,
    /// One step back.
    pub back: String,
    /// One step on.
    pub next: String,
    /// Out of the lesson, into the free lab.
    pub leave: String,
}

/// The prediction: its question, each guess's label, and its button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictionWords {
    /// "How many orders will Naive hold for this run?"
    pub question: String,
    /// Every guess, in order, with its label.
    pub guesses: Vec<(Guess, String)>,
    /// "Run it".
    pub run: String,
    /// Said until a guess is chosen.
    pub predict_first: String,
}

/// What the card says once its step has run (or, on the closing step, the score).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Whether the prediction was right; `None` on the closing step.
    pub right: Option<bool>,
    /// "What happened", after a run.
    pub heading: Option<String>,
    /// The prediction beside what happened, or the score.
    pub comparison: String,
    /// The asked server's verdict, after a run.
    pub verdict: Option<String>,
    /// The point of the step.
    pub takeaway: String,
}

/// The card of step `index`.
pub fn card_words(step: &LessonStep, index: usize, locale: Locale) -> CardWords {
    let prediction = step.run().map(|run| PredictionWords {
        question: run.question(locale),
        guesses: Guess::ALL
            .into_iter()
            .map(|guess| (guess, guess.text(locale)))
            .collect(),
        run: td_string!(locale, lesson.run).to_owned(),
        predict_first: td_string!(locale, lesson.predict_first).to_owned(),
    });
    CardWords {
        step_of: td_string!(
            locale,
            lesson.step_of,
            number = index + 1,
            total = LESSON_STEPS
        ),
        title: (step.title)(locale),
        setup: (step.setup)(locale),
        prediction,
        progress: td_string!(locale, lesson.progress).to_owned(),
        back: td_string!(locale, lesson.back).to_owned(),
        next: td_string!(locale, lesson.next).to_owned(),
        leave: td_string!(locale, lesson.leave).to_owned(),
    }
}

/// After the run: the prediction beside what the asked server holds, that
/// server's verdict (built from what was recorded), and the step's point.
pub fn outcome(
    step: &LessonStep,
    run: &LessonRun,
    guess: Guess,
    orders: usize,
    verdict: &str,
    locale: Locale,
) -> Outcome {
    let server = run.asked_server();
    Outcome {
        right: Some(Guess::of(orders) == guess),
        heading: Some(td_string!(locale, lesson.what_happened).to_owned()),
        comparison: comparison(guess, orders, server, locale),
        verdict: Some(td_string!(
            locale,
            lesson.verdict_of,
            server = server.title(locale),
            verdict = verdict
        )),
        takeaway: (step.takeaway)(locale),
    }
}

/// The closing step's words: the score and where to go on.
pub fn closing(step: &LessonStep, results: &[Option<(Guess, usize)>], locale: Locale) -> Outcome {
    Outcome {
        right: None,
        heading: None,
        comparison: score_text(results, locale),
        verdict: None,
        takeaway: (step.takeaway)(locale),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::steps;

    #[test]
    fn the_card_names_the_step_and_offers_every_guess_in_order() {
        let steps = steps();
        let words = card_words(&steps[2], 2, Locale::en);
        assert_eq!(words.step_of, "Step 3 of 10");
        assert_eq!(words.title, "One key, made by the client");
        let prediction = words.prediction.expect("a step with a run asks");
        assert_eq!(
            prediction.question,
            "How many orders will Naive hold for this run?"
        );
        let guesses: Vec<_> = prediction.guesses.iter().map(|(g, _)| *g).collect();
        assert_eq!(guesses, Guess::ALL);
        assert_eq!(prediction.guesses[1].1, "exactly one order");
        assert_eq!(prediction.run, "Run it");
        let closing = card_words(&steps[9], 9, Locale::zh_CN);
        assert!(
            closing.prediction.is_none(),
            "the closing step runs nothing"
        );
        assert_eq!(closing.step_of, "第 10 步，共 10 步");
    }

    #[test]
    fn the_outcome_says_whether_the_prediction_was_right_with_the_verdict() {
        let steps = steps();
        let run = steps[4].run().unwrap();
        let wrong = outcome(
            &steps[4],
            run,
            Guess::OneOrder,
            3,
            "3 orders <b>",
            Locale::en,
        );
        assert_eq!(wrong.right, Some(false));
        assert_eq!(
            wrong.comparison,
            "You predicted exactly one order on Naive, but it holds 3."
        );
        assert_eq!(
            wrong.verdict.as_deref(),
            Some("Naive: 3 orders <b>"),
            "text, not markup: the view escapes it"
        );
        let zh = outcome(&steps[4], run, Guess::MoreThanOne, 3, "", Locale::zh_CN);
        assert_eq!(zh.right, Some(true));
        assert!(zh.comparison.contains("猜对了"), "{zh:?}");
    }

    #[test]
    fn the_closing_words_carry_the_score() {
        let steps = steps();
        let words = closing(&steps[9], &[Some((Guess::OneOrder, 1)), None], Locale::en);
        assert_eq!(words.comparison, "You predicted 1 of 1 run right.");
        assert_eq!(words.right, None);
    }
}
