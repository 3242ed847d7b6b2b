//! Saved runs and the teacher's view in real headless Chromium: a run's
//! permalink, opened in a fresh browser, shows what the live run showed;
//! the teacher's view lists two learners' labs with their lesson step and
//! runs, and its projector link shows one learner's panes; without the
//! token the view is refused. The lesson's scheduler step follows the
//! challenges met on the scheduler's page, and the teacher sees them.

use lab_e2e::Learner;
use lab_e2e::browser::{eventually, ui_dir, within_deadline};
use lab_e2e::client::TEACHER_TOKEN;
use lab_e2e::learner::open_lab;
use lab_e2e::{Backend, Role, spawn_lab};

/// The learner's lab id, as the page's footer shows it.
async fn lab_id(learner: &Learner) -> String {
    let text = learner.page_text().await;
    let start = text.find("lab-").expect("the footer names the lab");
    text[start..start + 24].to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_permalink_in_a_fresh_browser_shows_what_the_live_run_showed() {
    within_deadline(async {
        let (base, learner) = open_lab().await;
        let scenario = learner.by_id("preset-concurrent-sends").await;
        learner.click_and_wait(scenario, "Concurrent sends").await;
        let link = learner.run_link().await;
        assert!(link.starts_with("/runs/run-"), "{link}");
        let live = [
            learner.pane_text("Naive").await,
            learner.pane_text("Transactional").await,
        ];
        assert!(live[0].contains("duplicate purchase"), "{}", live[0]);

        let reader = Learner::open_page(&format!("{base}{link}"), "main[data-run=found]").await;
        let saved = [
            reader.pane_text("Naive").await,
            reader.pane_text("Transactional").await,
        ];
        assert_eq!(saved, live, "the permalink shows the run as it was");
        assert_eq!(
            reader.orders_stored("Naive").await,
            learner.orders_stored("Naive").await
        );
        assert!(
            reader.page_text().await.contains("Nothing is sent again"),
            "the page says it is a saved run"
        );

        let missing = Learner::open_page(
            &format!("{base}/runs/run-00000000000000000000000000000000"),
            "main[data-run=missing]",
        )
        .await;
        let said = missing.page_text().await;
        assert!(said.contains("has expired"), "{said}");
        assert!(!said.contains("cannot be drawn"), "{said}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_teacher_sees_two_learners_labs_and_projects_one_and_without_the_token_sees_nothing() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        // Alice runs the lesson's first step; Bob places an order in the free lab.
        let alice = Learner::open(&format!("{base}/?lesson=1")).await;
        alice
            .by_role(Role::Radio, "more than one order")
            .await
            .click()
            .await
            .unwrap();
        let run = alice.by_role(Role::Button, "Run it").await;
        alice.click_and_wait(run, "Run it").await;
        alice.run_link().await;
        let bob = Learner::open(&base).await;
        bob.press_and_wait("Place order").await;
        bob.run_link().await;
        let (alice_lab, bob_lab) = (lab_id(&alice).await, lab_id(&bob).await);

        let teacher = Learner::open_page(
            &format!("{base}/teacher?token={TEACHER_TOKEN}"),
            ".room-frame",
        )
        .await;
        let row = async |lab: &str| {
            eventually(async || {
                let row = teacher
                    .by_css(&format!("tr[data-lab='{lab}']"))
                    .await
                    .text()
                    .await
                    .ok()?;
                Some(row)
            })
            .await
        };
        let alice_row = row(&alice_lab).await.expect("Alice's lab is listed");
        teacher.browser.set_window_size(1366, 768).await.unwrap();
        teacher.save_this_screen("teacher-room.png").await;
        let bob_row = row(&bob_lab).await.expect("Bob's lab is listed");
        assert!(
            alice_row.contains(" 1 ") && alice_row.contains("1 of 1 right"),
            "Alice: one run, step 1, her prediction right: {alice_row}"
        );
        assert!(
            bob_row.contains("—"),
            "Bob has not opened the lesson: {bob_row}"
        );

        // The projector link of Alice's row: her panes, large, side by side.
        let link = teacher
            .by_css(&format!("tr[data-lab='{alice_lab}'] a.projector-link"))
            .await;
        link.click().await.unwrap();
        teacher.wait_for("main.projector[data-run=found]").await;
        let projected = teacher.pane_text("Transactional").await;
        teacher.save_this_screen("run-projector.png").await;
        assert!(
            projected.contains("No request carried a key"),
            "Alice's verdict, on the projector: {projected}"
        );

        let refused = reqwest::get(format!("{base}/teacher")).await.unwrap();
        assert_eq!(refused.status(), 401);
        let wrong = reqwest::get(format!("{base}/teacher?token=not-the-token-at-all"))
            .await
            .unwrap();
        assert_eq!(wrong.status(), 401);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lesson_s_scheduler_step_follows_challenges_met_in_another_tab_and_the_teacher_sees_them()
 {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open(&format!("{base}/?lesson=6")).await;
        learner
            .wait_for("#lesson .lesson-result[data-met='0']")
            .await;
        let card = learner.by_css("#lesson").await.text().await.unwrap();
        assert!(
            card.starts_with("Step 6 of 10") && card.contains("You are the scheduler"),
            "{card}"
        );
        let lab = lab_id(&learner).await;
        let link = learner
            .by_id("lesson-open-scheduler")
            .await
            .attr("href")
            .await
            .unwrap()
            .expect("the step links the scheduler");
        assert!(
            link.starts_with("/scheduler?design=naive&copies=2#secret="),
            "the scheduler opens in the learner's own lab: {link}"
        );

        // The scheduler in a tab of its own: Naive keeps two orders.
        let lesson_tab = learner.browser.window().await.unwrap();
        let tab = learner.browser.new_window(true).await.unwrap();
        learner.browser.switch_to_window(tab.handle).await.unwrap();
        learner
            .visit(&format!("{base}{link}"), "main[data-scheduler]")
            .await;
        learner.wait_for_moves(0).await;
        for copy in [1, 2, 1, 2] {
            learner.step(copy, false).await;
        }
        learner.wait_for_challenge("naive-keeps-two").await;

        // Back at the lesson, the card has followed, and told the teacher.
        learner.browser.switch_to_window(lesson_tab).await.unwrap();
        learner
            .wait_for("#lesson li[data-challenge='naive-keeps-two'][data-met='true']")
            .await;
        learner
            .wait_for("#lesson .lesson-result[data-met='1']")
            .await;
        let teacher = Learner::open_page(
            &format!("{base}/teacher?token={TEACHER_TOKEN}"),
            ".room-frame",
        )
        .await;
        teacher
            .wait_for(&format!(
                "tr[data-lab='{lab}'] td.challenges[data-challenges='naive-keeps-two']"
            ))
            .await;
        let row = teacher
            .by_css(&format!("tr[data-lab='{lab}']"))
            .await
            .text()
            .await
            .unwrap();
        assert!(row.contains("1 of 3"), "{row}");
    })
    .await;
}
