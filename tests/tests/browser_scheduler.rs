//! "You are the scheduler" in real headless Chromium, on both databases:
//! the learner steps copies of one order one statement at a time. Naive
//! keeps two orders when both look the key up before either inserts;
//! Transactional, stepped the same way, keeps one (on PostgreSQL the
//! second copy is shown waiting for the first's transaction); Safe,
//! crashed between its order and its answer, answers the first retry with
//! 409 and a later one, after the claim's lock, with the order it kept.
//! "Every order at once" shows a tile per schedule the explorer runs,
//! and a tile (or its link) plays that schedule again. The page reads in
//! Chinese with no English left over.

use explorer::{Crashes, Plan, Target};
use fantoccini::Locator;
use lab_e2e::Learner;
use lab_e2e::browser::{ui_dir, within_deadline};
use lab_e2e::catalogue::{english_only_words, words};
use lab_e2e::{Backend, spawn_lab};

async fn the_learner_meets_the_three_challenges(backend: Backend) {
    let base = spawn_lab(backend, &ui_dir()).await;
    let learner = Learner::open_scheduler(&base, "naive", 2).await;
    let (kind, text) = learner.lane(1).await;
    assert_eq!(
        (kind.as_str(), text.as_str()),
        ("next", "next: look the key up")
    );

    // Naive: both look-ups (by their number keys), then both inserts.
    learner.step(1, true).await;
    learner.step(2, true).await;
    assert_eq!(learner.lane(2).await.1, "next: insert the order");
    learner.step(1, false).await;
    learner.step(2, false).await;
    assert_eq!(
        learner.orders_kept().await,
        2,
        "both copies inserted an order"
    );
    learner.wait_for_challenge("naive-keeps-two").await;
    learner.run_every_copy_to_its_end(2).await;
    assert_eq!(learner.orders_kept().await, 2);
    let schedule = learner.by_css("p.schedule").await.text().await.unwrap();
    assert!(
        schedule.starts_with("Your order of steps: 1 2 1 2"),
        "{schedule}"
    );
    let picture_events = learner.picture_events("Naive").await;
    assert!(
        picture_events.iter().filter(|e| e.tone == "order").count() >= 2,
        "the picture draws both orders: {picture_events:?}"
    );

    // Transactional, the same clicks: one order.
    learner.play_challenge("transactional-holds-one").await;
    for copy in [1, 2, 1, 2] {
        learner.step(copy, false).await;
    }
    if backend == Backend::Postgres {
        // Each copy is in its transaction; copy 1 claims the key, then copy 2 tries.
        learner.step_until(1, "insert the key").await;
        learner.step(1, false).await;
        learner.step_until(2, "insert the key").await;
        learner.step(2, false).await;
        let waiting = learner.wait_for_lane(2, "waiting").await;
        assert_eq!(waiting, "waiting: copy 1's transaction holds this key");
        let button = learner
            .by_css("section.lane[data-copy='2'] button.release")
            .await;
        assert!(
            !button.is_enabled().await.unwrap(),
            "a waiting copy cannot be released"
        );
        learner.save_screenshot("scheduler.png").await;
    }
    learner.run_every_copy_to_its_end(2).await;
    assert_eq!(
        learner.orders_kept().await,
        1,
        "Transactional keeps one order"
    );
    let table = learner.pane_text("Transactional").await;
    assert!(
        table.contains("1 order") || table.contains("Orders stored: 1"),
        "{table}"
    );
    // A second, different order of steps: copy 2 first all the way.
    learner.by_css("#start-over").await.click().await.unwrap();
    learner.wait_for_moves(0).await;
    learner.wait_for_lane(2, "next").await;
    learner.step(2, false).await;
    learner.run_every_copy_to_its_end(2).await;
    assert_eq!(learner.orders_kept().await, 1);
    learner.wait_for_challenge("transactional-holds-one").await;

    // Safe: crash copy 1 between its order and its answer.
    learner.play_challenge("safe-recovers").await;
    learner.step_until(1, "save the answer").await;
    learner.crash(1).await;
    learner.wait_for_lane(1, "crashed").await;
    learner
        .by_css("section.lane[data-copy='1'] button.retry")
        .await
        .click()
        .await
        .unwrap();
    learner.wait_for("ol.retries li").await;
    let first = learner.by_css("ol.retries li").await.text().await.unwrap();
    assert!(
        first.starts_with("Retry 2: 409"),
        "the claim is still locked: {first}"
    );
    learner.wait_for("p.lock[data-lock='ran-out']").await;
    learner
        .wait_for("section.lane[data-copy='1'] button.retry:enabled")
        .await;
    learner
        .by_css("section.lane[data-copy='1'] button.retry")
        .await
        .click()
        .await
        .unwrap();
    learner.wait_for("ol.retries li:nth-child(2)").await;
    let second = learner
        .by_css("ol.retries li:nth-child(2)")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        second.starts_with("Retry 3: 201 replayed"),
        "the retry took the claim over: {second}"
    );
    learner.run_every_copy_to_its_end(2).await;
    assert_eq!(
        learner.orders_kept().await,
        1,
        "the crash left one order, and it was kept"
    );
    learner.wait_for_challenge("safe-recovers").await;
    let rows = learner.diagram_rows("Safe").await;
    assert!(
        rows.iter()
            .any(|(_, text)| text.contains("took over") || text.contains("taken over")),
        "the takeover is drawn: {rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_the_learner_makes_naive_keep_two_orders_and_cannot_break_transactional_or_safe()
{
    within_deadline(the_learner_meets_the_three_challenges(Backend::Sqlite)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_the_learner_makes_naive_keep_two_orders_and_sees_transactional_wait() {
    within_deadline(the_learner_meets_the_three_challenges(Backend::Postgres)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_order_at_once_shows_a_tile_per_schedule_the_explorer_runs_and_a_tile_plays_its_schedule()
 {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        // What `idempotency-lab explore --design naive` counts, on the same server.
        let plan = Plan {
            design: "naive".to_owned(),
            copies: 2,
            crash: Crashes::Never,
            max_schedules: 2_000,
            jobs: 4,
            preemptions: None,
            reduce: false,
        };
        let target = Target::new(format!("{base}/api/naive/orders"));
        let report = explorer::explore(&target, &plan)
            .await
            .expect("naive explored");
        let broken = report.broken().count();

        let learner = Learner::open_scheduler(&base, "naive", 2).await;
        learner
            .by_id("show-every-order")
            .await
            .click()
            .await
            .unwrap();
        for design in ["naive", "transactional"] {
            learner
                .wait_for(&format!(
                    "section.exploration[data-design='{design}'][data-state='finished']"
                ))
                .await;
        }
        let naive = learner
            .all("section.exploration[data-design='naive'] a.tile")
            .await;
        assert_eq!(naive.len(), report.runs.len(), "a tile per schedule");
        let naive_broken = learner
            .all("section.exploration[data-design='naive'] a.tile[data-broken='true']")
            .await;
        assert_eq!(
            naive_broken.len(),
            broken,
            "as many broken as the explorer found"
        );
        let summary = learner
            .by_css("section.exploration[data-design='naive'] p.summary")
            .await
            .text()
            .await
            .unwrap();
        assert_eq!(
            summary,
            format!(
                "{} orders of steps: {broken} left more than one order for one purchase.",
                report.runs.len()
            )
        );
        let transactional_broken = learner
            .all("section.exploration[data-design='transactional'] a.tile[data-broken='true']")
            .await;
        assert!(
            transactional_broken.is_empty(),
            "Transactional keeps its promise in every order"
        );
        assert!(
            !learner
                .all("section.exploration[data-design='transactional'] a.tile")
                .await
                .is_empty()
        );

        learner.save_screenshot("every-order.png").await;

        // The first broken tile: the shortest schedule that keeps two orders.
        let tile = &naive_broken[0];
        let schedule = tile
            .find(Locator::Css(".tile-schedule"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let moves = schedule.split_whitespace().count();
        let link = tile.attr("href").await.unwrap().expect("a tile is a link");
        tile.click().await.unwrap();
        learner.wait_for_moves(moves).await;
        learner.run_every_copy_to_its_end(2).await;
        assert_eq!(
            learner.orders_kept().await,
            2,
            "{schedule} keeps two orders"
        );
        assert!(
            learner
                .picture_events("Naive")
                .await
                .iter()
                .any(|e| e.tone == "order"),
            "its picture is drawn"
        );
        assert!(
            learner.current_url().await.contains(&link),
            "the address names the schedule"
        );

        // The link, opened in another browser, plays the same schedule in a lab of its own.
        let other = Learner::open_page(&format!("{base}{link}"), "main[data-scheduler]").await;
        other.wait_for_moves(moves).await;
        other.run_every_copy_to_its_end(2).await;
        assert_eq!(other.orders_kept().await, 2);
        let said = other.by_css("p.schedule").await.text().await.unwrap();
        assert!(said.contains(&schedule), "{said}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scheduler_reads_in_chinese_with_no_english_left_over() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open_page(
            &format!("{base}/scheduler?design=naive&copies=2&lang=zh-CN"),
            "main[data-scheduler]",
        )
        .await;
        learner.wait_for_moves(0).await;
        assert_eq!(learner.lane(1).await.1, "下一步：查询键");
        learner.step(1, true).await;
        learner.step(2, true).await;
        let text = learner.page_text().await;
        let english = english_only_words();
        let left_over: Vec<String> = words(&text)
            .into_iter()
            .filter(|word| english.contains(word))
            .collect();
        assert!(
            left_over.is_empty(),
            "English on the Chinese page: {left_over:?}\n{text}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_1366_by_768_screen_the_lanes_the_orders_and_the_picture_are_seen_together() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open_scheduler(&base, "naive", 2).await;
        learner.browser.set_window_size(1366, 768).await.unwrap();
        for copy in [1, 2, 1, 2] {
            learner.step(copy, false).await;
        }
        learner
            .wait_until_inside_the_screen(
                "section.lane, p.order-total, .pane svg.picture",
                4,
                "scheduler-fit.png",
            )
            .await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_lanes_stack_and_nothing_is_wider_than_the_screen() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open_scheduler(&base, "transactional", 3).await;
        learner.browser.set_window_size(390, 900).await.unwrap();
        learner.step(1, false).await;
        learner.step(3, false).await;
        let (stacked, overflow): (bool, f64) = serde_json::from_value(
            learner
                .browser
                .execute(
                    "const lanes = [...document.querySelectorAll('section.lane')].map(l => l.getBoundingClientRect());
                     return [lanes.length === 3 && lanes[0].bottom <= lanes[1].top && lanes[1].bottom <= lanes[2].top,
                             document.documentElement.scrollWidth - window.innerWidth];",
                    vec![],
                )
                .await
                .unwrap(),
        )
        .unwrap();
        assert!(stacked, "the three lanes stand one under another");
        assert!(overflow <= 0.0, "the page is {overflow} px wider than the phone");
    })
    .await;
}
