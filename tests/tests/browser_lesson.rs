//! The guided lesson in real headless Chromium, with the keyboard alone:
//! a prediction at every step, the run on the real servers, the prediction
//! beside what happened, the score at the end, and a reload that lands on
//! the same step.

use fantoccini::elements::Element;
use lab_e2e::Learner;
use lab_e2e::browser::{eventually, within_deadline};
use lab_e2e::learner::open_lab;

const ENTER: &str = "\u{E007}";

/// Presses a button the way a keyboard does: focus it, press Enter.
async fn press(button: Element) {
    button.send_keys(ENTER).await.expect("press Enter");
}

/// The text of `#id`, once it is on the page and `ready` says it is what we wait for.
async fn text_of(learner: &Learner, id: &str, ready: impl Fn(&str) -> bool) -> String {
    eventually(async || {
        let text = learner.by_id(id).await.text().await.ok()?;
        ready(&text).then_some(text)
    })
    .await
    .unwrap_or_else(|| panic!("#{id} never showed what was waited for"))
}

/// What the lesson card says once the step's run is over.
async fn what_happened(learner: &Learner) -> String {
    eventually(async || {
        let card = learner.by_id("lesson").await.text().await.ok()?;
        card.contains("What happened").then_some(card)
    })
    .await
    .expect("the step's run ends with what happened")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_learner_goes_through_the_whole_lesson_by_keyboard_predicting_at_every_step() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        press(learner.by_id("lesson-start").await).await;
        assert!(learner.current_url().await.contains("lesson=1"));

        // "Exactly one order" at every step: right where a single order is
        // the point (the client-made key, the impatient client on Safe),
        // wrong where the step shows duplicates or nothing at all.
        let expected = [
            ("Five calls, five orders", false),
            ("The answer that never came", false),
            ("One key, made by the client", true),
            ("A new key every time", false),
            ("Two at once", false),
            ("The impatient client", true),
            ("GET needs none of this", false),
            ("Keys do not live forever", false),
        ];
        for (number, (title, right)) in expected.into_iter().enumerate() {
            let heading = text_of(&learner, "lesson-step-of", |t| {
                t == format!("Step {} of 9", number + 1)
            })
            .await;
            assert_eq!(
                learner.by_id("lesson-title").await.text().await.unwrap(),
                title,
                "{heading}"
            );
            let run = learner.by_id("lesson-run").await;
            assert!(
                !run.is_enabled().await.unwrap(),
                "{title}: no run before a prediction"
            );

            // Space on the focused radio button chooses it.
            learner
                .by_id("guess-one")
                .await
                .send_keys(" ")
                .await
                .expect("choose a prediction");
            press(run).await;
            let card = what_happened(&learner).await;
            assert!(
                card.contains("You predicted exactly one order"),
                "{title}: the prediction is said back:\n{card}"
            );
            assert_eq!(
                card.contains(": right."),
                right,
                "{title}: the comparison with what happened:\n{card}"
            );
            if title == "Two at once" {
                learner.browser.set_window_size(1366, 900).await.unwrap();
                learner.save_this_screen("lesson-race.png").await;
            }
            press(learner.by_id("lesson-next").await).await;
        }

        let closing = text_of(&learner, "lesson", |t| t.contains("Not only payments")).await;
        assert!(
            closing.contains("You predicted 2 of 8 runs right."),
            "the score of the lesson:\n{closing}"
        );
        assert!(learner.current_url().await.contains("lesson=9"));
        assert!(
            !learner
                .by_id("lesson-next")
                .await
                .is_enabled()
                .await
                .unwrap(),
            "the last step has no next"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_or_a_shared_link_lands_on_the_same_step_and_leaving_shows_the_free_lab() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        press(learner.by_id("lesson-start").await).await;
        press(learner.by_id("lesson-next").await).await;
        press(learner.by_id("lesson-next").await).await;
        text_of(&learner, "lesson-step-of", |t| t == "Step 3 of 9").await;

        learner.reload().await;
        text_of(&learner, "lesson-step-of", |t| t == "Step 3 of 9").await;
        assert_eq!(
            learner.by_id("lesson-title").await.text().await.unwrap(),
            "One key, made by the client"
        );
        assert!(
            !learner.by_id("presets").await.is_displayed().await.unwrap(),
            "the scenarios wait while the lesson runs"
        );

        // The same link in another browser opens the same step.
        let link = learner.current_url().await;
        let friend = Learner::open(&link).await;
        text_of(&friend, "lesson-step-of", |t| t == "Step 3 of 9").await;

        press(learner.by_id("lesson-leave").await).await;
        eventually(async || {
            learner
                .by_id("presets")
                .await
                .is_displayed()
                .await
                .ok()
                .filter(|shown| *shown)
        })
        .await
        .expect("leaving the lesson shows the free lab");
        assert!(!learner.current_url().await.contains("lesson="));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_lesson_step_runs_and_nothing_is_wider_than_the_screen() {
    within_deadline(async {
        let (base, learner) = open_lab().await;
        learner
            .browser
            .set_window_size(390, 900)
            .await
            .expect("a phone-sized window");
        learner.go_to(&format!("{base}/?lesson=5")).await;
        learner.by_id("guess-more").await.click().await.unwrap();
        learner.by_id("lesson-run").await.click().await.unwrap();
        let card = what_happened(&learner).await;
        assert!(card.contains("Two at once"), "{card}");
        let overflow = learner
            .browser
            .execute(
                "return document.documentElement.scrollWidth - window.innerWidth;",
                vec![],
            )
            .await
            .expect("measure the page");
        assert!(
            overflow.as_i64().is_some_and(|px| px <= 0),
            "the page scrolls sideways by {overflow} px"
        );
    })
    .await;
}
