//! The page itself: its controls, labs, keyboard use, server choice and phone layout, in real headless Chromium, driven the way a learner uses it:
//! controls and buttons are found by their role and accessible name.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use fantoccini::Locator;
use lab_e2e::Learner;
use lab_e2e::browser::{eventually, within_deadline};
use lab_e2e::learner::open_lab;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sending_concurrently_shows_more_orders_on_the_naive_pane_than_the_single_transactional_one()
 {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.tick("Send concurrently").await;
        learner.press_and_wait("Place order").await;

        let naive = learner.orders_stored("Naive").await;
        let transactional = learner.orders_stored("Transactional").await;
        let naive_text = learner.pane_text("Naive").await;
        let transactional_text = learner.pane_text("Transactional").await;
        assert_eq!(
            transactional, 1,
            "the transactional server stores exactly one order:\n{transactional_text}"
        );
        assert!(
            naive > transactional,
            "the naive server stores duplicates ({naive} vs {transactional}):\n{naive_text}"
        );
        assert!(
            naive_text.contains("duplicate purchase"),
            "the naive pane flags the duplicates:\n{naive_text}"
        );
        assert!(
            naive_text.contains("charged"),
            "the naive verdict names the charge:\n{naive_text}"
        );
        assert!(
            !transactional_text.contains("duplicate"),
            "no duplicate on the transactional pane:\n{transactional_text}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_no_key_pays_twice_for_a_lost_answer_on_every_server() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.tick("No key at all").await;
        learner.tick("Drop response").await;
        learner.press_and_wait("Place order").await;

        for pane in ["Naive", "Transactional"] {
            let text = learner.pane_text(pane).await;
            // Two, or three when Chromium quietly resends the POST whose
            // connection closed unanswered: without a key, that makes one more.
            let orders = learner.orders_stored(pane).await;
            assert!(orders >= 2, "{pane} holds {orders} orders:\n{text}");
            assert!(
                text.contains("No request carried a key")
                    && text.contains("2 requests")
                    && text.contains("duplicate purchase")
                    && text.contains("key none"),
                "{pane} says why and shows the two orders as one purchase:\n{text}"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn learners_in_different_labs_do_not_see_each_others_orders_and_reset_clears_only_ones_own() {
    within_deadline(async {
        let (base, alice) = open_lab().await;
        let bob = Learner::open(&base).await;
        let alice_url = alice.current_url().await;
        assert_ne!(
            alice_url,
            bob.current_url().await,
            "each browser gets its own lab in its URL"
        );

        alice.press_and_wait("Place order").await;
        alice.press_and_wait("Place order").await;
        bob.press_and_wait("Place order").await;
        assert_eq!(alice.orders_stored("Naive").await, 2);
        assert_eq!(
            bob.orders_stored("Naive").await,
            1,
            "Bob sees only his own order"
        );

        bob.press_and_wait("Reset").await;
        assert_eq!(bob.orders_stored("Naive").await, 0);
        assert_eq!(bob.orders_stored("Transactional").await, 0);
        // A reload: Alice's page shows what her lab holds now.
        alice.reload().await;
        let alice_after = eventually(async || {
            Some(alice.orders_stored("Transactional").await).filter(|n| *n == 2)
        })
        .await;
        assert_eq!(alice_after, Some(2), "Bob's reset left Alice's lab alone");

        // A teacher opens Alice's lab from her link.
        bob.go_to(&alice_url).await;
        let teacher_sees =
            eventually(async || Some(bob.orders_stored("Naive").await).filter(|n| *n == 2)).await;
        assert_eq!(teacher_sees, Some(2), "Alice's link opens Alice's lab");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_works_from_the_keyboard_alone() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        let field = async |label: &str| learner.control(label).await.0;

        // Space toggles a focused checkbox; Enter in a text field submits the form.
        field("Send concurrently")
            .await
            .send_keys(" ")
            .await
            .expect("press space");
        assert!(
            field("Send concurrently")
                .await
                .is_selected()
                .await
                .unwrap()
        );
        let item = field("Item").await;
        item.clear().await.expect("clear the item");
        item.send_keys("tea\u{E007}")
            .await
            .expect("type and press Enter");
        let status = learner
            .browser
            .find(Locator::Css("[role=status]"))
            .await
            .unwrap();
        eventually(async || status.text().await.ok().filter(|t| t.starts_with("Done")))
            .await
            .expect("Enter placed the order");

        assert_eq!(learner.orders_stored("Transactional").await, 1);
        assert!(
            learner.orders_stored("Naive").await > 1,
            "the box ticked by keyboard sent copies"
        );
        assert!(
            learner
                .pane_text("Transactional")
                .await
                .contains("tea · 4.50"),
            "the typed item was ordered"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_on_hang_up_leaves_no_order_where_finishing_makes_one() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner.set_number("Client timeout (ms)", 300).await;
        learner.set_number("Server processing time (ms)", 800).await;
        learner.set_number("Retries", 0).await;

        learner
            .tick("Cancel the work when the client hangs up")
            .await;
        learner.press_and_wait("Place order").await;
        for pane in ["Naive", "Transactional"] {
            assert_eq!(learner.outcomes(pane).await, ["timed out"], "{pane}");
            assert_eq!(
                learner.orders_stored(pane).await,
                0,
                "{pane}: the work was dropped with the connection"
            );
        }

        learner
            .untick("Cancel the work when the client hangs up")
            .await;
        learner.press_and_wait("Place order").await;
        for pane in ["Naive", "Transactional"] {
            assert_eq!(learner.outcomes(pane).await, ["timed out"], "{pane}");
            assert_eq!(
                learner.orders_stored(pane).await,
                1,
                "{pane}: the server finished the work the client gave up on"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_pane_shows_the_server_chosen_for_it() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        let (first, _) = learner.control("First pane").await;
        assert_eq!(first.prop("value").await.unwrap().as_deref(), Some("naive"));
        let (second, _) = learner.control("Second pane").await;
        assert_eq!(
            second.prop("value").await.unwrap().as_deref(),
            Some("transactional")
        );
        let disabled = async |value: &str| {
            let option = first
                .find(Locator::Css(&format!("option[value={value}]")))
                .await
                .unwrap();
            option.prop("disabled").await.unwrap().as_deref() == Some("true")
        };
        assert!(
            disabled("transactional").await,
            "the server the other pane shows cannot be chosen twice"
        );
        assert!(!disabled("safe").await, "Safe is free to choose");

        // Naive and Transactional each take this order; then the first pane moves to Safe.
        learner.press_and_wait("Place order").await;
        assert_eq!(learner.orders_stored("Naive").await, 1);
        first.select_by_value("safe").await.expect("choose Safe");
        learner.press_and_wait("Place order").await;
        assert_eq!(learner.orders_stored("Safe").await, 1);
        assert_eq!(learner.orders_stored("Transactional").await, 2);
        assert!(
            learner
                .pane_text("Safe")
                .await
                .contains("three separate statements"),
            "the pane says how its server works"
        );

        // Switching back to Naive loads Naive's own order from the server:
        // one, not Transactional's two and not an empty list.
        second.select_by_value("naive").await.expect("choose Naive");
        let naive = eventually(async || {
            if !learner.shows_pane("Naive").await {
                return None;
            }
            let orders = learner.orders_stored("Naive").await;
            (orders == 1).then_some(orders)
        })
        .await;
        assert_eq!(naive, Some(1), "the second pane shows Naive's one order");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_one_trip_pane_keeps_one_order_from_copies_sent_at_once_in_one_statement_each() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        let (second, _) = learner.control("Second pane").await;
        second
            .select_by_value("onetrip")
            .await
            .expect("choose One trip");
        learner.tick("Send concurrently").await;
        learner.press_and_wait("Place order").await;

        let text = learner.pane_text("One trip").await;
        assert_eq!(learner.orders_stored("One trip").await, 1, "{text}");
        assert!(
            text.contains("in one trip to the database"),
            "the pane says how its server works:\n{text}"
        );
        let rows = learner.diagram_rows("One trip").await;
        let one_statement = rows
            .iter()
            .filter(|(_, step)| step.contains("one statement: key claimed, order and answer saved"))
            .count();
        assert_eq!(one_statement, 1, "one copy wrote it all at once: {rows:#?}");
        assert!(
            rows.iter()
                .any(|(_, step)| step.contains("inserting the key failed")),
            "the others found the key taken: {rows:#?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_diagram_folds_into_one_column_and_nothing_is_wider_than_the_screen() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner
            .browser
            .set_window_size(390, 900)
            .await
            .expect("a phone-sized window");

        // By its language-neutral id this time: the hook a translated page keeps.
        let preset = learner.by_id("preset-concurrent-sends").await;
        assert_eq!(preset.text().await.unwrap(), "Concurrent sends");
        learner.click_and_wait(preset, "Concurrent sends").await;

        let rows = eventually(async || {
            let rows = learner.diagram_rows("Naive").await;
            (rows.iter().filter(|(_, t)| t.contains("answered")).count() == 3).then_some(rows)
        })
        .await
        .expect("the naive diagram shows three answers");
        assert!(
            rows.iter().all(|(_, text)| text.starts_with("Request ")),
            "each step names its request when the lanes fold: {rows:#?}"
        );
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
