//! The scenarios (the teaching matrix's rows), one click each, in real headless Chromium, driven the way a learner uses it:
//! controls and buttons are found by their role and accessible name.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use fantoccini::Locator;
use lab_e2e::browser::{eventually, within_deadline};
use lab_e2e::learner::open_lab;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dropped_response_preset_leaves_one_order_on_each_server() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Dropped response").await;

        for pane in ["Naive", "Transactional"] {
            assert_eq!(
                learner.orders_stored(pane).await,
                1,
                "{pane}:\n{}",
                learner.pane_text(pane).await
            );
            assert_eq!(
                learner.outcomes(pane).await,
                ["dropped", "201 replayed"],
                "{pane}"
            );
        }
        let page = learner
            .browser
            .find(Locator::Css("main"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            page.contains("What to notice: Dropped response"),
            "the preset explains itself"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrent_preset_duplicates_on_naive_and_keeps_one_order_on_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Concurrent sends").await;

        let naive = learner.orders_stored("Naive").await;
        assert!(
            naive > 1,
            "several orders on Naive:\n{}",
            learner.pane_text("Naive").await
        );
        assert!(
            learner
                .pane_text("Naive")
                .await
                .contains("duplicate purchase")
        );
        assert_eq!(
            learner
                .outcomes("Naive")
                .await
                .iter()
                .filter(|o| *o == "201")
                .count(),
            naive
        );
        assert_eq!(learner.orders_stored("Transactional").await, 1);
        let transactional = learner.outcomes("Transactional").await;
        assert_eq!(transactional.len(), 3, "{transactional:?}");
        assert_eq!(
            transactional.iter().filter(|o| *o == "201").count(),
            1,
            "one copy won: {transactional:?}"
        );
        assert!(
            transactional
                .iter()
                .all(|o| o == "201" || o == "201 replayed"),
            "the others hit the constraint and got the winner's answer: {transactional:?}"
        );
        learner.save_screenshot("lab-concurrent.png").await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slow_response_preset_duplicates_on_naive_and_answers_409_then_a_replay_on_safe() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner
            .press_and_wait("Slow response + client timeout")
            .await;

        let naive_text = learner.pane_text("Naive").await;
        assert_eq!(
            learner.orders_stored("Naive").await,
            2,
            "the timed-out retry made a second order:\n{naive_text}"
        );
        assert!(naive_text.contains("duplicate purchase"), "{naive_text}");
        assert_eq!(learner.orders_stored("Safe").await, 1);
        let safe = learner.outcomes("Safe").await;
        assert_eq!(
            safe.first().map(String::as_str),
            Some("timed out"),
            "{safe:?}"
        );
        let conflict = safe
            .iter()
            .position(|o| o == "409")
            .unwrap_or_else(|| panic!("a 409 on Safe: {safe:?}"));
        assert_eq!(
            safe.last().map(String::as_str),
            Some("201 replayed"),
            "{safe:?}"
        );
        assert!(
            conflict < safe.len() - 1,
            "the 409 comes before the replay: {safe:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_key_preset_duplicates_on_both_servers() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("New key per attempt").await;

        for pane in ["Naive", "Transactional"] {
            let text = learner.pane_text(pane).await;
            assert_eq!(learner.orders_stored(pane).await, 2, "{pane}:\n{text}");
            assert!(
                text.contains("duplicate purchase"),
                "{pane} flags one purchase with two keys:\n{text}"
            );
            assert_eq!(learner.outcomes(pane).await, ["dropped", "201"], "{pane}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crash_preset_recovers_one_order_on_safe_and_rolls_back_on_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Crash mid-request").await;

        // Chromium quietly resends a POST when a reused keep-alive connection
        // closes without an answer, so the crash can hit more than once, and
        // the first answer the page sees from Safe may already be the 409 of
        // a resent request.
        let safe_text = learner.pane_text("Safe").await;
        assert_eq!(learner.orders_stored("Safe").await, 1, "{safe_text}");
        let safe = learner.outcomes("Safe").await;
        assert!(
            safe.iter().any(|o| o == "409"),
            "the crashed claim held the key: {safe:?}"
        );
        assert_eq!(
            safe.last().map(String::as_str),
            Some("201 replayed"),
            "a retry took the claim over and replayed the order the crash left: {safe:?}"
        );
        assert!(
            safe_text.contains("took over a stale claim")
                && safe_text.contains("found the crashed request's order"),
            "Safe's diagram shows the recovery:\n{safe_text}"
        );

        let transactional_text = learner.pane_text("Transactional").await;
        assert_eq!(
            learner.orders_stored("Transactional").await,
            1,
            "{transactional_text}"
        );
        let transactional = learner.outcomes("Transactional").await;
        assert_eq!(
            transactional.last().map(String::as_str),
            Some("201"),
            "the crash left nothing behind, so a retry simply created the order: {transactional:?}"
        );
        assert!(
            !transactional.iter().any(|o| o == "409"),
            "no claim outlived the crash: {transactional:?}"
        );
        let steps = learner.diagram_rows("Transactional").await;
        assert!(
            steps.iter().any(|(_, text)| text == "crashed"),
            "Transactional's diagram shows the crash: {steps:#?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_changed_payload_preset_is_replayed_silently_by_naive_and_refused_by_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Changed payload").await;

        assert_eq!(learner.outcomes("Naive").await, ["dropped", "201 replayed"]);
        let naive_text = learner.pane_text("Naive").await;
        assert!(
            naive_text.contains("believes the new order went through"),
            "{naive_text}"
        );
        let transactional = learner.outcomes("Transactional").await;
        assert_eq!(transactional.len(), 2, "{transactional:?}");
        assert!(transactional[1].starts_with("422"), "{transactional:?}");
        for pane in ["Naive", "Transactional"] {
            assert_eq!(learner.orders_stored(pane).await, 1, "{pane}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_expiry_preset_duplicates_on_both_servers() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Late retry after expiry").await;

        for pane in ["Naive", "Transactional"] {
            let text = learner.pane_text(pane).await;
            assert_eq!(learner.orders_stored(pane).await, 2, "{pane}:\n{text}");
            assert_eq!(learner.outcomes(pane).await, ["dropped", "201"], "{pane}");
            assert!(
                text.contains("for 2 s only"),
                "{pane} names the retention:\n{text}"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cancellation_preset_leaves_a_claim_behind_on_safe_and_nothing_on_transactional() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Hang up, work cancelled").await;

        for pane in ["Safe", "Transactional"] {
            let text = learner.pane_text(pane).await;
            assert_eq!(learner.orders_stored(pane).await, 0, "{pane}:\n{text}");
            assert!(
                text.contains("dropped the work together with the connection"),
                "{pane}:\n{text}"
            );
            assert!(
                text.contains("stopped: client hung up"),
                "{pane}'s diagram shows the work stopping:\n{text}"
            );
        }
        let safe = learner.outcomes("Safe").await;
        assert_eq!(
            safe.first().map(String::as_str),
            Some("timed out"),
            "{safe:?}"
        );
        assert!(
            safe.iter().any(|o| o == "409"),
            "the abandoned claim answered 409: {safe:?}"
        );
        let transactional = learner.outcomes("Transactional").await;
        assert!(
            transactional.iter().all(|o| o == "timed out"),
            "the uncommitted claim left nothing to answer 409 with: {transactional:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_naive_diagram_of_the_concurrent_preset_shows_two_lookups_before_the_first_insert() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Concurrent sends").await;

        // Each of the three requests: looked up, slow part, inserted, saved, answered.
        let rows = eventually(async || {
            let rows = learner.diagram_rows("Naive").await;
            let answered = rows
                .iter()
                .filter(|(_, text)| text.starts_with("answered"))
                .count();
            (answered == 3).then_some(rows)
        })
        .await
        .expect("the diagram shows all three requests answering");
        let first_insert = rows
            .iter()
            .position(|(_, text)| text == "inserted an order")
            .unwrap_or_else(|| panic!("an insert in {rows:#?}"));
        let lookups: Vec<usize> = rows[..first_insert]
            .iter()
            .filter(|(_, text)| text == "looked for the key: none")
            .map(|(lane, _)| *lane)
            .collect();
        assert!(lookups.len() >= 2, "{rows:#?}");
        assert_ne!(lookups[0], lookups[1], "two requests, two lanes: {rows:#?}");

        let transactional = learner.diagram_rows("Transactional").await;
        let claims = transactional
            .iter()
            .filter(|(_, text)| text == "inserted the key: claimed")
            .count();
        assert_eq!(claims, 1, "one claim won: {transactional:#?}");
        assert!(
            transactional
                .iter()
                .any(|(_, text)| text.starts_with("inserting the key failed: UNIQUE")),
            "the others hit the constraint: {transactional:#?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_lock_keeps_one_order_when_the_lab_runs_one_process() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("In-process lock").await;

        // The test lab runs one process per design: the copies took turns.
        for pane in ["Naive + lock", "Transactional"] {
            assert_eq!(
                learner.orders_stored(pane).await,
                1,
                "{pane}:\n{}",
                learner.pane_text(pane).await
            );
        }
        // Whichever copy reached the lock first created the order: the
        // copies are listed in the order they were sent, not served.
        let mut locked = learner.outcomes("Naive + lock").await;
        locked.sort();
        assert_eq!(
            locked,
            ["201", "201 replayed", "201 replayed"],
            "one created, the others waited their turn and got its answer"
        );
        assert!(
            learner.page_text().await.contains("--replicas 3"),
            "the scenario says where the lock fails"
        );
    })
    .await;
}
