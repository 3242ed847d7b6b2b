//! The receiving side on the page, in real headless Chromium, driven the
//! way a learner uses it: its scenarios pressed by their names, its two
//! receivers chosen with labelled selectors, and what each pane says read
//! back, in English and in Chinese.
//!
//! Needs the built page (`dist/`, or `LAB_UI_DIR`) and Chromium with
//! chromedriver; `cargo xtask test` provides all three.

use fantoccini::Locator;
use lab_e2e::browser::within_deadline;
use lab_e2e::learner::{Learner, Role, open_lab, until_the_status_says};
use lab_e2e::{Backend, spawn_lab};

/// Presses the receiving side's scenario `name` and waits until its status says done.
async fn run(learner: &Learner, name: &str) {
    learner
        .by_role(Role::Button, name)
        .await
        .click()
        .await
        .expect("click");
    let status = learner.by_id("receiving-status").await;
    until_the_status_says(&status, &["done", "failed"], name).await;
    assert_eq!(
        status.attr("data-state").await.unwrap().as_deref(),
        Some("done"),
        "{}",
        status.text().await.unwrap()
    );
}

/// `receiver`'s pane: (orders paid, parcels shipped, its text, its attempts).
async fn pane(learner: &Learner, receiver: &str) -> (u64, u64, String, Vec<String>) {
    let pane = learner
        .by_css(&format!("section.receiver[data-receiver={receiver}]"))
        .await;
    let counts = pane
        .find(Locator::Css(".receiver-counts"))
        .await
        .expect("the pane's counts");
    let number = async |name: &str| -> u64 {
        counts
            .attr(name)
            .await
            .unwrap()
            .and_then(|n| n.parse().ok())
            .expect("a count")
    };
    let (orders, shipments) = (number("data-orders").await, number("data-shipments").await);
    let mut attempts = Vec::new();
    for line in pane.find_all(Locator::Css(".attempts li")).await.unwrap() {
        attempts.push(line.text().await.unwrap());
    }
    (orders, shipments, pane.text().await.unwrap(), attempts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_webhook_scenario_ships_twice_on_the_naive_receiver_and_once_on_the_inbox() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        run(&learner, "Webhook delivered twice").await;
        let (orders, shipments, text, attempts) = pane(&learner, "naive").await;
        assert_eq!((orders, shipments), (1, 2), "{text}");
        assert!(text.contains("2 parcels for 1 paid order"), "{text}");
        assert_eq!(attempts.len(), 2, "{attempts:?}");
        let (orders, shipments, text, attempts) = pane(&learner, "inbox").await;
        assert_eq!((orders, shipments), (1, 1), "{text}");
        assert!(text.contains("One parcel per paid order"), "{text}");
        assert!(attempts[1].contains("already processed"), "{attempts:?}");
        assert!(
            learner
                .page_text()
                .await
                .contains("What to notice: Webhook delivered twice")
        );

        run(&learner, "Shop's answer lost, provider retries").await;
        let (_, shipments, _, attempts) = pane(&learner, "naive").await;
        assert_eq!(shipments, 2);
        assert!(
            attempts[0].contains("no answer reached the provider"),
            "{attempts:?}"
        );
        assert!(
            attempts[1].contains("attempt 2: answered 200, shipped"),
            "{attempts:?}"
        );
        let (_, shipments, _, attempts) = pane(&learner, "inbox").await;
        assert_eq!(shipments, 1, "{attempts:?}");

        run(&learner, "Two deliveries at once").await;
        assert_eq!(pane(&learner, "naive").await.1, 2);
        let (_, shipments, _, attempts) = pane(&learner, "inbox").await;
        assert_eq!(shipments, 1);
        assert_eq!(
            attempts
                .iter()
                .filter(|a| a.ends_with(", shipped."))
                .count(),
            1,
            "exactly one of the two shipped: {attempts:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chinese_the_receivers_say_the_same_and_can_swap_panes() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &lab_e2e::browser::ui_dir()).await;
        let learner = Learner::open(&format!("{base}/?lang=zh-CN")).await;

        // The first pane's receiver, chosen by its label: the two swap.
        let first = learner.by_role(Role::ComboBox, "第一个接收方").await;
        first
            .select_by_value("inbox")
            .await
            .expect("choose the inbox");
        let panes = learner
            .browser
            .find_all(Locator::Css("section.receiver"))
            .await
            .unwrap();
        let mut order = Vec::new();
        for pane in panes {
            order.push(pane.attr("data-receiver").await.unwrap().unwrap());
        }
        assert_eq!(order, ["inbox", "naive"]);

        run(&learner, "同一个 webhook 送达两次").await;
        let (_, shipments, text, _) = pane(&learner, "naive").await;
        assert_eq!(shipments, 2);
        assert!(text.contains("朴素接收方"), "{text}");
        assert!(text.contains("1 笔已付款订单发了 2 个包裹"), "{text}");
        let (_, shipments, text, _) = pane(&learner, "inbox").await;
        assert_eq!(shipments, 1);
        assert!(text.contains("每笔已付款订单一个包裹"), "{text}");
    })
    .await;
}
