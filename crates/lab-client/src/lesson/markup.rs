//! The lesson card as markup, which the page sets as inner HTML and then
//! keeps current by setting a few attributes, instead of a typed view:
//! the card as typed views cost the page 10.4 KB gzipped (measured by
//! building without it), as markup about a tenth of that. Every text is
//! escaped; the controls are real form elements (radio buttons in a
//! fieldset, buttons), found by their ids.

use std::fmt::Write;

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

use super::{Guess, LESSON_STEPS, LessonRun, LessonStep, comparison, score_text};
use crate::DesignText;
use crate::display::escape;

/// The ids of the card's elements that the page updates or listens to.
pub mod ids {
    /// The fieldset of the prediction.
    pub const PREDICTION: &str = "lesson-prediction";
    /// "Run it".
    pub const RUN: &str = "lesson-run";
    /// "Choose a prediction first".
    pub const HINT: &str = "lesson-hint";
    /// Where what happened is said.
    pub const OUTCOME: &str = "lesson-outcome";
    /// One step back.
    pub const BACK: &str = "lesson-back";
    /// One step on.
    pub const NEXT: &str = "lesson-next";
    /// Out of the lesson, into the free lab.
    pub const LEAVE: &str = "lesson-leave";
    /// A prediction's radio button is this and the guess's id.
    pub const GUESS_PREFIX: &str = "guess-";
}

/// The whole card of step `index`: where the learner is, the title, what
/// will happen, the prediction (with `predicted` chosen) and Run it, an
/// empty place for what happened, and the way back and on.
pub fn card(step: &LessonStep, index: usize, predicted: Option<Guess>, locale: Locale) -> String {
    let number = index + 1;
    let of = td_string!(
        locale,
        lesson.step_of,
        number = number,
        total = LESSON_STEPS
    );
    let mut html = format!(
        r#"<p class="lesson-progress"><span id="lesson-step-of">{of}</span><progress max="{LESSON_STEPS}" value="{number}" aria-labelledby="lesson-step-of"></progress></p><h2 id="lesson-title">{title}</h2><p class="lesson-setup">{setup}</p>"#,
        of = escape(&of),
        title = escape(&(step.title)(locale)),
        setup = escape(&(step.setup)(locale)),
    );
    if let Some(run) = &step.run {
        let _ = write!(
            html,
            r#"<fieldset class="prediction" id="{}"><legend>{}</legend>"#,
            ids::PREDICTION,
            escape(&run.question(locale))
        );
        for guess in Guess::ALL {
            let _ = write!(
                html,
                r#"<div class="field check"><input type="radio" name="prediction" id="{prefix}{id}" value="{id}"{checked}><label for="{prefix}{id}">{text}</label></div>"#,
                prefix = ids::GUESS_PREFIX,
                id = guess.id(),
                checked = if predicted == Some(guess) {
                    " checked"
                } else {
                    ""
                },
                text = escape(&guess.text(locale)),
            );
        }
        let _ = write!(
            html,
            r#"</fieldset><div class="buttons"><button type="button" id="{}">{}</button><p class="hint" id="{}">{}</p></div>"#,
            ids::RUN,
            escape(td_string!(locale, lesson.run)),
            ids::HINT,
            escape(td_string!(locale, lesson.predict_first)),
        );
    }
    let _ = write!(
        html,
        r#"<div id="{}" aria-live="polite"></div><nav class="lesson-nav" aria-label="{}"><button type="button" id="{}" class="secondary">{}</button><button type="button" id="{}">{}</button><button type="button" id="{}" class="secondary">{}</button></nav>"#,
        ids::OUTCOME,
        escape(td_string!(locale, lesson.progress)),
        ids::BACK,
        escape(td_string!(locale, lesson.back)),
        ids::NEXT,
        escape(td_string!(locale, lesson.next)),
        ids::LEAVE,
        escape(td_string!(locale, lesson.leave)),
    );
    html
}

/// The guess a radio button's id names, if it is one of the card's.
pub fn guess_of_id(id: &str) -> Option<Guess> {
    let id = id.strip_prefix(ids::GUESS_PREFIX)?;
    Guess::ALL.into_iter().find(|guess| guess.id() == id)
}

/// After the run: the prediction beside what the asked server holds, that
/// server's verdict (built from what was recorded), and the step's point.
pub fn result(
    step: &LessonStep,
    run: &LessonRun,
    guess: Guess,
    orders: usize,
    verdict: &str,
    locale: Locale,
) -> String {
    let server = run.asked_server();
    let verdict_of = td_string!(
        locale,
        lesson.verdict_of,
        server = server.title(locale),
        verdict = verdict
    );
    let mut html = String::new();
    let _ = write!(
        html,
        r#"<div class="lesson-result" data-right="{right}"><h3>{heading}</h3><p class="comparison">{compared}</p><p>{verdict_of}</p><p class="takeaway">{takeaway}</p></div>"#,
        right = Guess::of(orders) == guess,
        heading = escape(td_string!(locale, lesson.what_happened)),
        compared = escape(&comparison(guess, orders, server, locale)),
        verdict_of = escape(&verdict_of),
        takeaway = escape(&(step.takeaway)(locale)),
    );
    html
}

/// The closing step's words: the score and where to go on.
pub fn closing(step: &LessonStep, results: &[Option<(Guess, usize)>], locale: Locale) -> String {
    format!(
        r#"<div class="lesson-result"><p class="comparison">{score}</p><p class="takeaway">{takeaway}</p></div>"#,
        score = escape(&score_text(results, locale)),
        takeaway = escape(&(step.takeaway)(locale)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::steps;

    #[test]
    fn the_card_names_the_step_and_offers_every_guess_with_the_chosen_one_checked() {
        let steps = steps();
        let html = card(&steps[2], 2, Some(Guess::OneOrder), Locale::en);
        assert!(
            html.contains(r#"<span id="lesson-step-of">Step 3 of 9</span>"#),
            "{html}"
        );
        assert!(html.contains(r#"value="3""#), "{html}");
        assert!(html.contains(">One key, made by the client</h2>"), "{html}");
        assert!(html.contains("<legend>How many orders will Naive hold for this run?</legend>"));
        for id in [
            "guess-none",
            "guess-one",
            "guess-more",
            "lesson-run",
            "lesson-next",
        ] {
            assert!(html.contains(&format!(r#"id="{id}""#)), "{id}: {html}");
        }
        assert!(
            html.contains(r#"id="guess-one" value="one" checked>"#),
            "{html}"
        );
        assert_eq!(html.matches(" checked").count(), 1);
        let closing = card(&steps[8], 8, None, Locale::zh_CN);
        assert!(
            !closing.contains("lesson-run"),
            "the closing step runs nothing"
        );
        assert!(closing.contains("第 9 步，共 9 步"), "{closing}");
    }

    #[test]
    fn a_radio_buttons_id_names_its_guess() {
        assert_eq!(guess_of_id("guess-more"), Some(Guess::MoreThanOne));
        assert_eq!(guess_of_id("guess-none"), Some(Guess::NoOrder));
        assert_eq!(guess_of_id("lesson-run"), None);
        assert_eq!(guess_of_id("guess-many"), None);
    }

    #[test]
    fn the_result_says_whether_the_prediction_was_right_and_escapes_the_verdict() {
        let steps = steps();
        let run = steps[4].run.as_ref().unwrap();
        let html = result(
            &steps[4],
            run,
            Guess::OneOrder,
            3,
            "3 orders <b>",
            Locale::en,
        );
        assert!(html.contains(r#"data-right="false""#), "{html}");
        assert!(
            html.contains("You predicted exactly one order on Naive, but it holds 3."),
            "{html}"
        );
        assert!(html.contains("Naive: 3 orders &lt;b&gt;"), "{html}");
        let lost = result(
            &steps[1],
            steps[1].run.as_ref().unwrap(),
            Guess::OneOrder,
            2,
            "",
            Locale::en,
        );
        assert!(
            lost.contains("&quot;it failed&quot;"),
            "quotes are escaped: {lost}"
        );
        let zh = result(&steps[4], run, Guess::MoreThanOne, 3, "", Locale::zh_CN);
        assert!(
            zh.contains(r#"data-right="true""#) && zh.contains("猜对了"),
            "{zh}"
        );
    }

    #[test]
    fn the_closing_words_carry_the_score() {
        let steps = steps();
        let html = closing(&steps[8], &[Some((Guess::OneOrder, 1)), None], Locale::en);
        assert!(html.contains("You predicted 1 of 1 run right."), "{html}");
    }
}
