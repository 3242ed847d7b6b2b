//! The sequence picture and its playback, in real headless Chromium: the
//! race drawn as arrows in the order the server took its steps, the crash on
//! the server's lifeline, stepping back and forth by keyboard with the
//! orders following, and a run that fits on a laptop's screen.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use fantoccini::Locator;
use fantoccini::key::Key;
use lab_e2e::browser::within_deadline;
use lab_e2e::learner::picture::PictureEvent;
use lab_e2e::learner::{Learner, open_lab};

fn ys(events: &[PictureEvent], tone: &str) -> Vec<f64> {
    events
        .iter()
        .filter(|event| event.tone == tone)
        .map(|event| event.y)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sends_draw_naive_looking_twice_before_inserting_and_one_winner_on_transactional()
 {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Concurrent sends").await;

        let naive = learner.picture_events("Naive").await;
        let lookups = ys(&naive, "found-nothing");
        let first_insert = ys(&naive, "order").into_iter().fold(f64::MAX, f64::min);
        assert!(
            lookups.iter().filter(|y| **y < first_insert).count() >= 2,
            "two look-ups that found nothing are drawn above Naive's first insert: {naive:#?}"
        );
        assert!(
            naive.iter().all(|event| event.shown),
            "the whole run is shown"
        );

        let transactional = learner.picture_events("Transactional").await;
        assert_eq!(
            ys(&transactional, "order").len(),
            1,
            "one winning insert: {transactional:#?}"
        );
        // Each other copy was turned away: refused by the UNIQUE constraint
        // if it raced the winner, or finding the saved answer if it came
        // after the winner committed (a loaded machine spaces them out).
        let refused = transactional
            .iter()
            .filter(|event| event.shape == "refused")
            .count();
        let found_the_answer = transactional
            .iter()
            .filter(|event| event.tone == "found")
            .count();
        assert_eq!(
            refused + found_the_answer,
            2,
            "the two other copies end on the UNIQUE bar or on the saved answer: {transactional:#?}"
        );
        assert!(
            transactional
                .iter()
                .filter(|event| event.shape == "refused")
                .all(|event| event.on == "server"),
            "refusals are drawn from the server to the database"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_is_drawn_as_a_cross_on_the_server_s_lifeline() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Crash mid-request").await;

        for pane in ["Safe", "Transactional"] {
            let events = learner.picture_events(pane).await;
            let crashes: Vec<_> = events
                .iter()
                .filter(|event| event.tone == "failure" && event.shape == "mark")
                .collect();
            assert!(!crashes.is_empty(), "{pane} draws its crash: {events:#?}");
            assert!(
                crashes.iter().all(|event| event.on == "server"),
                "{pane}: the crash is the server's: {crashes:#?}"
            );
            let crosses = learner
                .pane(pane)
                .await
                .find_all(Locator::Css("svg.picture g.event path.cross"))
                .await
                .unwrap();
            assert_eq!(
                crosses.len(),
                crashes.len(),
                "{pane}: each crash is a cross"
            );
        }
    })
    .await;
}

/// How many of the pane's inserts the picture shows now.
async fn inserts_shown(learner: &Learner, pane: &str) -> usize {
    learner
        .picture_events(pane)
        .await
        .iter()
        .filter(|event| event.tone == "order" && event.shown)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stepping_back_by_keyboard_hides_events_and_the_orders_shown_follow_them() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner.press_and_wait("Concurrent sends").await;
        let orders = learner.orders_stored("Naive").await;
        assert!(orders > 1, "the race duplicated");
        let total = learner.picture_events("Naive").await.len();
        let shown = |events: Vec<PictureEvent>| events.iter().filter(|e| e.shown).count();
        let shown_in_both = async || {
            shown(learner.picture_events("Naive").await)
                + shown(learner.picture_events("Transactional").await)
        };
        let everything = shown_in_both().await;

        // One event back, with the focused button and Enter: the run's last
        // event (on whichever server took it) is hidden.
        let back = learner.by_id("step-back").await;
        back.send_keys(&Key::Enter.to_string()).await.unwrap();
        let after_one = shown_in_both().await;
        assert!(
            after_one < everything,
            "the last event is hidden ({after_one} of {everything})"
        );

        // Then J, the shortcut, until nothing is left; at every moment the
        // orders shown are the inserts drawn so far (the lab was empty).
        let mut steps = 0;
        loop {
            for pane in ["Naive", "Transactional"] {
                assert_eq!(
                    learner.orders_stored(pane).await,
                    inserts_shown(&learner, pane).await,
                    "{pane}: the order count follows the playhead"
                );
            }
            if shown(learner.picture_events("Naive").await) == 0 {
                break;
            }
            learner.press_key("j").await;
            steps += 1;
            assert!(steps < 200, "stepping back reaches the start");
        }
        assert_eq!(learner.orders_stored("Naive").await, 0);
        assert_eq!(learner.orders_stored("Transactional").await, 0);

        // L steps forward; the slider's End key jumps to the whole run.
        learner.press_key("l").await;
        assert!(shown(learner.picture_events("Naive").await) > 0);
        let slider = learner.by_id("playback-time").await;
        slider.send_keys(&Key::End.to_string()).await.unwrap();
        assert_eq!(shown(learner.picture_events("Naive").await), total);
        assert_eq!(learner.orders_stored("Naive").await, orders);
        slider.send_keys(&Key::Home.to_string()).await.unwrap();
        assert_eq!(shown(learner.picture_events("Naive").await), 0);
        assert_eq!(learner.orders_stored("Naive").await, 0);

        // K replays the run from the start, at the chosen speed, to the end.
        slider.send_keys(&Key::End.to_string()).await.unwrap();
        learner.replay_to_the_end().await;
        assert_eq!(shown(learner.picture_events("Naive").await), total);

        // The table is the same steps in words, one choice away.
        learner.show_steps_as_table().await;
        assert!(!learner.diagram_rows("Naive").await.is_empty());
        assert!(learner.picture_events("Naive").await.is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_s_verdicts_and_both_pictures_fit_on_a_1366_by_768_screen() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner
            .browser
            .set_window_size(1366, 768)
            .await
            .expect("resize the window");

        learner.press_and_wait("Concurrent sends").await;

        let outside = learner
            .outside_the_screen(".pane .verdict, .pane svg.picture", 4)
            .await;
        learner.save_this_screen("lab-diagram.png").await;
        assert!(outside.is_empty(), "outside the screen: {outside:#?}");
    })
    .await;
}
