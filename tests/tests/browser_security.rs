//! The page under its Content-Security-Policy, in real headless Chromium:
//! every page a room opens (the free lab with a scenario and its replay,
//! the guided lesson, a run's permalink, its projector view, the teacher's
//! room, the scheduler) works and makes the browser refuse nothing; and the browser does
//! refuse what the policy is there to stop (an injected inline script).

use lab_e2e::Learner;
use lab_e2e::browser::{ui_dir, within_deadline};
use lab_e2e::client::TEACHER_TOKEN;
use lab_e2e::{Backend, Role, spawn_lab};

/// Asserts the browser refused nothing on the page `what` so far.
async fn nothing_refused(learner: &Learner, what: &str) {
    let refused = learner.policy_violations().await;
    assert!(
        refused.is_empty(),
        "{what}: the browser refused {refused:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_works_under_the_policy_and_the_browser_refuses_nothing() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open(&base).await;
        nothing_refused(&learner, "the free lab, opened").await;

        learner.press_and_wait("Concurrent sends").await;
        learner.replay_to_the_end().await;
        nothing_refused(&learner, "a scenario and its replay").await;
        let link = learner.run_link().await;

        learner.go_to(&format!("{base}/?lesson=5")).await;
        learner.wait_for("#lesson").await;
        learner
            .by_role(Role::Radio, "more than one order")
            .await
            .click()
            .await
            .unwrap();
        let run = learner.by_role(Role::Button, "Run it").await;
        learner.click_and_wait(run, "Run it").await;
        nothing_refused(&learner, "a lesson step, run").await;

        let reader = Learner::open_page(&format!("{base}{link}"), "main[data-run=found]").await;
        nothing_refused(&reader, "a run's permalink").await;
        reader
            .visit(
                &format!("{base}{link}?projector"),
                "main.projector[data-run=found]",
            )
            .await;
        nothing_refused(&reader, "the projector view").await;
        reader
            .visit(
                &format!("{base}/teacher?token={TEACHER_TOKEN}"),
                ".room-frame",
            )
            .await;
        nothing_refused(&reader, "the teacher's room").await;
        reader
            .visit(
                &format!("{base}/scheduler?design=naive&copies=2&schedule=1+2+1+2"),
                "main[data-scheduler=ready][data-moves='4']",
            )
            .await;
        nothing_refused(&reader, "the scheduler, a schedule played").await;

        // What the policy is for: an inline script someone managed to put
        // on the page does not run, and the browser says why.
        let ran = reader
            .browser
            .execute(
                "const s = document.createElement('script');
                 s.textContent = 'document.body.dataset.injected = \"ran\"';
                 document.body.appendChild(s);
                 return document.body.dataset.injected || 'refused';",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(ran, "refused", "the injected script did not run");
        let refused = reader.policy_violations().await;
        assert!(
            refused.iter().any(|line| line.contains("inline script")),
            "the browser reported the refusal: {refused:#?}"
        );
    })
    .await;
}
