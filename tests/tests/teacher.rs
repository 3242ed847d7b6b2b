//! The teacher's view over HTTP, on SQLite and PostgreSQL: every active
//! lab with its lesson step, runs, duplicates, predictions and the
//! scheduler's challenges met, for the
//! teacher's token and nobody else; and the page `/teacher`, likewise.

use lab_e2e::client::TEACHER_TOKEN;
use lab_e2e::workshop::{WorkshopLab as Lab, lab_on, problem_type, run_record as run};
use lab_e2e::{Backend, on_both_backends};
use lab_wire::headers::LAB_SECRET;
use lab_wire::workshop::{Challenge, LabActivity};
use serde_json::json;

on_both_backends!(
    the_teacher_sees_every_active_lab_with_its_step_runs_and_predictions_and_nobody_else_does,
);

async fn the_teacher_sees_every_active_lab_with_its_step_runs_and_predictions_and_nobody_else_does(
    backend: Backend,
) {
    let (base, _) = lab_on(backend).await;
    let (alice, bob) = (Lab::new(&base), Lab::new(&base));
    alice.saved(&run([1, 1], Some(3))).await;
    let latest = alice.saved(&run([3, 1], Some(5))).await;
    let progress = json!({"step": 5, "predictions": [
        {"step": 1, "guess": "more", "orders": 5},
        {"step": 3, "guess": "one", "orders": 1},
        {"step": 5, "guess": "one", "orders": 3}],
        "challenges": ["naive-keeps-two", "safe-recovers", "naive-keeps-two"]});
    assert_eq!(alice.progress(&progress).await.status(), 204);
    // Going back keeps the furthest step reached; a prediction sent again
    // for a step replaces the earlier one.
    let mut predictions = progress["predictions"].as_array().unwrap().clone();
    predictions.insert(0, json!({"step": 5, "guess": "none", "orders": 0}));
    // The page sends what its browser has met each time, as it sends its predictions.
    let back = json!({"step": 2, "predictions": predictions, "challenges": progress["challenges"]});
    assert_eq!(alice.progress(&back).await.status(), 204);
    assert_eq!(
        bob.progress(&json!({"step": 1, "predictions": []}))
            .await
            .status(),
        204
    );

    let teacher = reqwest::Client::new();
    let room = |token: Option<&str>| {
        let request = teacher.get(format!("{base}/api/teacher/labs"));
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
        .send()
    };
    for token in [None, Some("not-the-teachers-token")] {
        let refused = room(token).await.unwrap();
        assert_eq!(refused.headers()["www-authenticate"], "Bearer");
        assert_eq!(
            problem_type(refused).await,
            (401, "/problems/teacher-token-required".to_owned())
        );
    }
    // A learner's own secret opens no room either.
    let as_learner = teacher
        .get(format!("{base}/api/teacher/labs"))
        .header(LAB_SECRET, &alice.secret)
        .send()
        .await
        .unwrap();
    assert_eq!(as_learner.status(), 401);

    let labs: Vec<LabActivity> = room(Some(TEACHER_TOKEN))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let of = |id: &str| labs.iter().find(|lab| lab.lab == id).cloned();
    let a = of(&alice.id).expect("Alice's lab is listed");
    assert_eq!((a.runs, a.runs_with_duplicates), (2, 1));
    assert_eq!((a.lesson_step, a.furthest_step), (Some(2), Some(5)));
    assert_eq!((a.predictions_right, a.predictions_made), (2, 3));
    assert_eq!(a.latest_run.as_deref(), Some(latest.id.as_str()));
    assert_eq!(
        a.challenges,
        [Challenge::NaiveKeepsTwo, Challenge::SafeRecovers],
        "each challenge met once, as the page said"
    );
    let b = of(&bob.id).expect("Bob's lab is listed");
    assert_eq!((b.runs, b.lesson_step, b.latest_run), (0, Some(1), None));

    // The page /teacher: the token in its link, or 401.
    let page = |query: &str| teacher.get(format!("{base}/teacher{query}")).send();
    assert_eq!(problem_type(page("").await.unwrap()).await.0, 401);
    assert_eq!(
        page("?token=wrong-token-123456").await.unwrap().status(),
        401
    );
    let opened = page(&format!("?token={TEACHER_TOKEN}")).await.unwrap();
    assert_eq!(opened.status(), 200);
    assert_eq!(opened.headers()["referrer-policy"], "no-referrer");
    assert!(
        opened
            .text()
            .await
            .unwrap()
            .contains("<title>viewer</title>")
    );
    // A run's permalink page is the viewer too, for anyone.
    let run_page = teacher
        .get(format!("{base}/runs/{}", latest.id))
        .send()
        .await
        .unwrap();
    assert_eq!(run_page.status(), 200);
    assert!(
        run_page
            .text()
            .await
            .unwrap()
            .contains("<title>viewer</title>")
    );
}
