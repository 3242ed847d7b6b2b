//! The guided lesson in real headless Chromium, with the keyboard alone:
//! a prediction at every step, the run on the real servers, the prediction
//! beside what happened, the score at the end, and a reload that lands on
//! the same step. Everything is found as a screen reader finds it: the
//! card is the region named by its step's title, the controls are the
//! buttons and radio buttons named by their labels. On a laptop's
//! 1366×768 screen, after "Run it" the card's result, both verdicts and
//! both pictures are on screen together.

use fantoccini::elements::Element;
use lab_e2e::browser::{eventually, within_deadline};
use lab_e2e::learner::open_lab;
use lab_e2e::{Learner, Role};

const ENTER: &str = "\u{E007}";

const START: &str = "Start the guided lesson";
const RUN: &str = "Run it";
const NEXT: &str = "Next ▶";
const LEAVE: &str = "Leave the lesson for the free lab";
const ONE_ORDER: &str = "exactly one order";
const MORE_THAN_ONE: &str = "more than one order";
/// The free lab's scenarios, hidden while the lesson runs.
const SCENARIOS: &str = "Scenarios";

/// Presses a button the way a keyboard does: focus it, press Enter.
async fn press(button: Element) {
    button.send_keys(ENTER).await.expect("press Enter");
}

/// The text of the lesson card of the step titled `title`, once it is on
/// the page and `ready` says it is what we wait for.
async fn card_text(learner: &Learner, title: &str, ready: impl Fn(&str) -> bool) -> String {
    eventually(async || {
        let card = learner.find(Role::Region, title).await?;
        let text = card.text().await.ok()?;
        ready(&text).then_some(text)
    })
    .await
    .unwrap_or_else(|| panic!("the card {title:?} never showed what was waited for"))
}

/// What the card of `title` says once the step's run is over.
async fn what_happened(learner: &Learner, title: &str) -> String {
    card_text(learner, title, |text| text.contains("What happened")).await
}

/// Predicts "more than one order" and presses "Run it", with clicks.
async fn predict_more_than_one_and_run(learner: &Learner) {
    for (role, name) in [(Role::Radio, MORE_THAN_ONE), (Role::Button, RUN)] {
        learner.by_role(role, name).await.click().await.unwrap();
    }
}

/// Whether the free lab's scenarios are on the screen.
async fn scenarios_shown(learner: &Learner) -> bool {
    match learner.find(Role::Region, SCENARIOS).await {
        Some(region) => region.is_displayed().await.unwrap_or(false),
        None => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_learner_goes_through_the_whole_lesson_by_keyboard_predicting_at_every_step() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        press(learner.by_role(Role::Button, START).await).await;
        assert!(learner.current_url().await.contains("lesson=1"));

        // "Exactly one order" at every step: right where a single order is
        // the point (the client-made key, the impatient client on Safe),
        // wrong where the step shows duplicates or nothing at all.
        // The scheduler step (no run: its challenges are on the scheduler's
        // page) comes right after the race.
        let expected = [
            ("Five calls, five orders", Some(false)),
            ("The answer that never came", Some(false)),
            ("One key, made by the client", Some(true)),
            ("A new key every time", Some(false)),
            ("Two at once", Some(false)),
            ("You are the scheduler", None),
            ("The impatient client", Some(true)),
            ("GET needs none of this", Some(false)),
            ("Keys do not live forever", Some(false)),
        ];
        for (number, (title, right)) in expected.into_iter().enumerate() {
            let step_of = format!("Step {} of 10", number + 1);
            card_text(&learner, title, |text| text.starts_with(&step_of)).await;
            let Some(right) = right else {
                let card = card_text(&learner, title, |text| {
                    text.contains("Challenges met: 0 of 3")
                })
                .await;
                assert!(card.contains("Open the scheduler"), "{card}");
                assert!(
                    learner.find(Role::Button, RUN).await.is_none(),
                    "{title}: nothing to run here"
                );
                press(learner.by_role(Role::Button, NEXT).await).await;
                continue;
            };
            let run = learner.by_role(Role::Button, RUN).await;
            assert!(
                !run.is_enabled().await.unwrap(),
                "{title}: no run before a prediction"
            );

            // Space on the focused radio button chooses it.
            learner
                .by_role(Role::Radio, ONE_ORDER)
                .await
                .send_keys(" ")
                .await
                .expect("choose a prediction");
            press(run).await;
            let card = what_happened(&learner, title).await;
            assert!(
                card.contains("You predicted exactly one order"),
                "{title}: the prediction is said back:\n{card}"
            );
            assert_eq!(
                card.contains(": right."),
                right,
                "{title}: the comparison with what happened:\n{card}"
            );
            assert!(
                !learner
                    .by_role(Role::Radio, MORE_THAN_ONE)
                    .await
                    .is_enabled()
                    .await
                    .unwrap(),
                "{title}: a prediction stands once its run is over"
            );
            if title == "Two at once" {
                learner.browser.set_window_size(1366, 900).await.unwrap();
                learner.save_this_screen("lesson-race.png").await;
            }
            press(learner.by_role(Role::Button, NEXT).await).await;
        }

        let closing = card_text(&learner, "Not only payments", |text| {
            text.contains("You predicted")
        })
        .await;
        assert!(
            closing.contains("You predicted 2 of 8 runs right."),
            "the score of the lesson:\n{closing}"
        );
        assert!(learner.current_url().await.contains("lesson=10"));
        assert!(
            learner.find(Role::Button, RUN).await.is_none(),
            "the closing step runs nothing"
        );
        assert!(
            !learner
                .by_role(Role::Button, NEXT)
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
    const THIRD: &str = "One key, made by the client";
    within_deadline(async {
        let (_, learner) = open_lab().await;
        press(learner.by_role(Role::Button, START).await).await;
        card_text(&learner, "Five calls, five orders", |t| {
            t.starts_with("Step 1 of 10")
        })
        .await;
        press(learner.by_role(Role::Button, NEXT).await).await;
        card_text(&learner, "The answer that never came", |t| {
            t.starts_with("Step 2 of 10")
        })
        .await;
        press(learner.by_role(Role::Button, NEXT).await).await;
        card_text(&learner, THIRD, |t| t.starts_with("Step 3 of 10")).await;

        learner.reload().await;
        card_text(&learner, THIRD, |t| t.starts_with("Step 3 of 10")).await;
        assert!(
            !scenarios_shown(&learner).await,
            "the scenarios wait while the lesson runs"
        );

        // The same link in another browser opens the same step.
        let link = learner.current_url().await;
        let friend = Learner::open(&link).await;
        card_text(&friend, THIRD, |t| t.starts_with("Step 3 of 10")).await;

        press(learner.by_role(Role::Button, LEAVE).await).await;
        eventually(async || scenarios_shown(&learner).await.then_some(()))
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
        card_text(&learner, "Two at once", |t| t.starts_with("Step 5 of 10")).await;
        predict_more_than_one_and_run(&learner).await;
        let card = what_happened(&learner, "Two at once").await;
        assert!(card.contains("You predicted more than one order"), "{card}");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_run_it_on_steps_2_5_and_7_the_result_verdicts_and_pictures_fit_a_1366_by_768_screen()
{
    within_deadline(async {
        let (base, learner) = open_lab().await;
        learner.browser.set_window_size(1366, 768).await.unwrap();
        for (step, title) in [
            (2, "The answer that never came"),
            (5, "Two at once"),
            (7, "The impatient client"),
        ] {
            learner.go_to(&format!("{base}/?lesson={step}")).await;
            predict_more_than_one_and_run(&learner).await;
            what_happened(&learner, title).await;
            learner
                .wait_until_inside_the_screen(
                    ".lesson-result, .pane .verdict, .pane svg.picture",
                    5,
                    &format!("lesson-step-{step}-fit.png"),
                )
                .await;
        }
    })
    .await;
}
