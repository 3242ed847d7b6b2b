//! Saved runs and lesson progress over HTTP, on SQLite and PostgreSQL: a
//! saved run comes back whole at its permalink, a lab's runs and progress
//! stay its own (the teacher's token reads them, changes nothing), bad
//! records get their problem, and runs are bounded per lab and expire.

use chrono::{Duration, Utc};
use lab_core::{Db, with_pool, with_reader};
use lab_e2e::client::TEACHER_TOKEN;
use lab_e2e::workshop::{WorkshopLab as Lab, lab_on, problem_type, run_record as run};
use lab_e2e::{Backend, on_both_backends};
use lab_wire::headers::{LAB_ID, LAB_SECRET};
use lab_wire::run::RunRecord;
use lab_wire::workshop::RunSummary;
use serde_json::{Value, json};

on_both_backends!(
    a_saved_run_comes_back_whole_at_its_permalink_without_any_secret,
    a_record_the_viewer_could_not_draw_is_refused_naming_its_field,
    a_labs_runs_are_its_own_and_the_teachers_token_reads_them_but_saves_none,
    a_run_or_progress_the_page_would_not_send_gets_its_problem_and_nothing_is_stored,
    a_lab_keeps_its_newest_runs_only_and_an_expired_run_is_gone,
);

async fn a_saved_run_comes_back_whole_at_its_permalink_without_any_secret(backend: Backend) {
    let (base, _) = lab_on(backend).await;
    let lab = Lab::new(&base);
    let sent = run([3, 1], Some(5));
    let saved = lab.saved(&sent).await;
    assert!(
        saved.id.starts_with("run-") && saved.id.len() == 36,
        "{saved:?}"
    );
    assert_eq!(saved.url, format!("/runs/{}", saved.id));
    assert!(saved.expires_at.micros() > Utc::now().timestamp_micros() + 6 * 86_400_000_000);

    // A fresh client: no secret, no token. The link is the way in.
    let answer: Value = lab.fetch_run(&saved.id).await;
    assert_eq!(answer["run"], sent, "the run comes back as it was sent");
    let drawn: RunRecord =
        serde_json::from_value(answer["run"].clone()).expect("the viewer reads it");
    assert_eq!(drawn.panes[0].orders.len(), 3);
    assert_eq!(answer["id"], saved.id.as_str());
    assert_eq!(answer["lab"], lab.id.as_str());

    let unknown = reqwest::get(lab.url("/runs/run-00000000000000000000000000000000"))
        .await
        .unwrap();
    assert_eq!(
        problem_type(unknown).await,
        (404, "/problems/run-not-found".to_owned())
    );
}

async fn a_record_the_viewer_could_not_draw_is_refused_naming_its_field(backend: Backend) {
    let (base, _) = lab_on(backend).await;
    let lab = Lab::new(&base);
    let with = |change: &dyn Fn(&mut Value)| {
        let mut record = run([2, 1], Some(5));
        change(&mut record);
        record
    };
    let cases: [(&str, Value, &str); 7] = [
        (
            "an order id that is not a UUID",
            with(&|r| r["panes"][0]["orders"][1]["id"] = json!("order-2")),
            "panes[0].orders[1].id",
        ),
        (
            "a time that is not RFC 3339",
            with(&|r| r["panes"][1]["orders"][0]["created_at"] = json!("yesterday")),
            "panes[1].orders[0].created_at",
        ),
        (
            "an unknown outcome",
            with(&|r| r["panes"][0]["attempts"][0]["outcome"] = json!("exploded")),
            "panes[0].attempts[0].outcome",
        ),
        (
            "an unknown kind of step",
            with(&|r| r["panes"][0]["steps"][0]["kind"] = json!({"step": "teleported"})),
            "panes[0].steps[0].kind",
        ),
        (
            "a copy number past 255",
            with(&|r| r["panes"][1]["attempts"][0]["copy"] = json!(256)),
            "panes[1].attempts[0].copy",
        ),
        (
            "no policy",
            with(&|r| {
                r.as_object_mut().unwrap().remove("policy");
            }),
            "policy",
        ),
        (
            "an order the servers would refuse",
            with(&|r| r["order"]["item"] = json!("cof\u{0}fee")),
            "order",
        ),
    ];
    for (case, record, field) in cases {
        let answer = lab.save(&record).await;
        assert_eq!(answer.status(), 422, "{case}");
        let problem: Value = answer.json().await.unwrap();
        assert_eq!(problem["type"], "/problems/invalid-record", "{case}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains(field),
            "{case}: the detail names {field}: {detail}"
        );
    }
    assert!(lab.runs().await.is_empty(), "nothing refused was stored");

    // A whole number written with a fraction is still that number.
    let mut fractional = run([1, 1], None);
    fractional["panes"][0]["orders_of_run"] = json!(1.0);
    fractional["policy"]["copies"] = json!(3.0);
    let saved = lab.saved(&fractional).await;
    let answer: Value = lab.fetch_run(&saved.id).await;
    assert_eq!(answer["run"], run([1, 1], None));
}

async fn a_labs_runs_are_its_own_and_the_teachers_token_reads_them_but_saves_none(
    backend: Backend,
) {
    let (base, _) = lab_on(backend).await;
    let (alice, bob) = (Lab::new(&base), Lab::new(&base));
    let saved = alice.saved(&run([1, 1], None)).await;
    assert!(
        bob.runs().await.is_empty(),
        "Bob's lab lists none of Alice's runs"
    );
    assert_eq!(alice.runs().await.len(), 1);

    // Naming Alice's lab opens nothing without her secret.
    let by_name = bob
        .http
        .get(bob.url("/runs"))
        .header(LAB_ID, &alice.id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        problem_type(by_name).await,
        (403, "/problems/lab-secret-required".to_owned())
    );
    let with_bobs_secret = bob
        .http
        .get(bob.url("/runs"))
        .header(LAB_ID, &alice.id)
        .header(LAB_SECRET, &bob.secret)
        .send()
        .await
        .unwrap();
    assert_eq!(problem_type(with_bobs_secret).await.0, 403);

    let teacher = reqwest::Client::new();
    let read: Vec<RunSummary> = teacher
        .get(alice.url("/runs"))
        .header(LAB_ID, &alice.id)
        .bearer_auth(TEACHER_TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(read.iter().map(|r| &r.id).collect::<Vec<_>>(), [&saved.id]);
    let write = teacher
        .post(alice.url("/runs"))
        .header(LAB_ID, &alice.id)
        .bearer_auth(TEACHER_TOKEN)
        .json(&run([1, 1], None))
        .send()
        .await
        .unwrap();
    assert_eq!(
        problem_type(write).await,
        (403, "/problems/teacher-reads-only".to_owned())
    );
    let progress = teacher
        .put(alice.url("/lesson"))
        .header(LAB_ID, &alice.id)
        .bearer_auth(TEACHER_TOKEN)
        .json(&json!({"step": 1, "predictions": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(problem_type(progress).await.0, 403);
    assert_eq!(alice.runs().await.len(), 1);
}

async fn a_run_or_progress_the_page_would_not_send_gets_its_problem_and_nothing_is_stored(
    backend: Backend,
) {
    let (base, _) = lab_on(backend).await;
    let lab = Lab::new(&base);
    let mut three_panes = run([1, 1], None);
    let pane = three_panes["panes"][0].clone();
    three_panes["panes"].as_array_mut().unwrap().push(pane);
    let mut unknown_server = run([1, 1], None);
    unknown_server["panes"][0]["server"] = json!("optimistic");
    for (case, body, expected) in [
        ("three panes", three_panes, "invalid-record"),
        ("an unknown server", unknown_server, "invalid-record"),
        ("step 12", run([1, 1], Some(12)), "invalid-record"),
        ("no panes", json!({"panes": []}), "invalid-record"),
        ("an array", json!([1, 2]), "invalid-record"),
        (
            "a negative count",
            json!({"panes": [{"server": "naive", "orders_of_run": -1}]}),
            "invalid-record",
        ),
    ] {
        let answer = problem_type(lab.save(&body).await).await;
        assert_eq!(answer, (422, format!("/problems/{expected}")), "{case}");
    }
    let raw = |body: String, content_type: &str| {
        lab.http
            .post(lab.url("/runs"))
            .header(LAB_SECRET, &lab.secret)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let malformed = raw("{\"panes\":".to_owned(), "application/json")
        .await
        .unwrap();
    assert_eq!(
        problem_type(malformed).await,
        (400, "/problems/malformed-json".to_owned())
    );
    let text = raw(run([1, 1], None).to_string(), "text/plain")
        .await
        .unwrap();
    assert_eq!(problem_type(text).await.0, 415);
    let huge = format!(r#"{{"panes":[],"pad":"{}"}}"#, "x".repeat(1_100_000));
    let too_large = raw(huge, "application/json").await.unwrap();
    assert_eq!(
        problem_type(too_large).await,
        (413, "/problems/body-too-large".to_owned())
    );

    for (case, body) in [
        ("step 0", json!({"step": 0, "predictions": []})),
        (
            "a prediction at step 11",
            json!({"step": 1, "predictions": [{"step": 11, "guess": "one", "orders": 1}]}),
        ),
        (
            "eleven predictions",
            json!({"step": 2, "predictions": vec![json!({"step": 1, "guess": "one", "orders": 1}); 11]}),
        ),
        (
            "a challenge the scheduler does not have",
            json!({"step": 6, "predictions": [], "challenges": ["break-everything"]}),
        ),
        (
            "an unknown guess",
            json!({"step": 1, "predictions": [{"step": 1, "guess": "lots", "orders": 1}]}),
        ),
    ] {
        let answer = problem_type(lab.progress(&body).await).await;
        assert_eq!(
            answer,
            (422, "/problems/invalid-record".to_owned()),
            "{case}"
        );
    }
    assert!(lab.runs().await.is_empty(), "nothing refused was stored");
}

async fn a_lab_keeps_its_newest_runs_only_and_an_expired_run_is_gone(backend: Backend) {
    let (base, database_url) = lab_on(backend).await;
    let lab = Lab::new(&base);
    let first = lab.saved(&run([1, 1], Some(1))).await;
    for _ in 0..50 {
        lab.saved(&run([1, 1], None)).await;
    }
    let runs = lab.runs().await;
    assert_eq!(runs.len(), 50, "a lab keeps its newest 50 runs");
    assert!(!runs.iter().any(|r| r.id == first.id), "the oldest went");
    let gone = reqwest::get(lab.url(&first.url)).await.unwrap();
    assert_eq!(gone.status(), 404);

    // A run a week and a day old is past its keeping, as if time had passed.
    let newest = &runs[0].id;
    let db = Db::connect(&database_url).await.unwrap();
    let old = Utc::now() - Duration::days(8);
    with_pool!(&db, |pool| {
        sqlx::query("UPDATE lab_runs SET saved_at = $1, expires_at = $2 WHERE id = $3")
            .bind(old)
            .bind(old + Duration::days(7))
            .bind(newest)
            .execute(pool)
            .await
            .map(|_| ())
            .unwrap()
    });
    let expired = reqwest::get(lab.url(&format!("/runs/{newest}")))
        .await
        .unwrap();
    assert_eq!(expired.status(), 404, "an expired run is not served");
    assert_eq!(lab.runs().await.len(), 49);
    // The cleanup deletes it (or another lab's cleanup, on the shared database, already did).
    workshop::delete_expired(&db, Default::default())
        .await
        .unwrap();
    let left: i64 = with_reader!(&db, |pool| {
        sqlx::query_scalar("SELECT COUNT(*) FROM lab_runs WHERE id = $1")
            .bind(newest)
            .fetch_one(pool)
            .await
            .unwrap()
    });
    assert_eq!(left, 0, "the expired run was deleted");
    db.close().await;
}
