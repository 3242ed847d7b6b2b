//! A lab is private to whoever holds its secret: its id alone (seen on a
//! projector, guessed, or read in a log) opens nothing; the teacher's
//! token reads any lab and changes none; and the `default` lab, which a
//! request naming no lab lands in, is a public sandbox.

use std::path::Path;

use lab_e2e::client::{Attempt, COFFEE, TEACHER_TOKEN, build_lab, send};
use lab_e2e::{Backend, StepStream, TestServer, new_key, on_both_backends};
use lab_wire::headers::{IDEMPOTENCY_KEY, LAB_ID};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};

on_both_backends!(
    a_labs_orders_steps_and_delete_are_refused_to_anyone_without_its_secret,
    a_secret_sent_with_another_labs_id_opens_neither,
    the_teachers_token_reads_any_lab_and_changes_none,
    a_request_naming_no_lab_uses_the_public_default_lab,
);

const SERVERS: [&str; 4] = ["naive", "locked", "safe", "transactional"];

/// The whole lab (teacher's token [`TEACHER_TOKEN`]), serving; its base URL.
async fn lab(backend: Backend) -> String {
    let application = build_lab(backend, Path::new("no-page-here")).await;
    let base = format!("http://{}", application.local_addr());
    tokio::spawn(application.run_until(std::future::pending()));
    base
}

fn assert_forbidden(attempt: &Attempt, kind: &str, what: &str) {
    let (status, body) = attempt.problem();
    assert_eq!(status, 403, "{what}: {body}");
    assert_eq!(body["type"], format!("/problems/{kind}"), "{what}: {body}");
}

async fn a_labs_orders_steps_and_delete_are_refused_to_anyone_without_its_secret(backend: Backend) {
    let base = lab(backend).await;
    let http = reqwest::Client::new();
    for server in SERVERS {
        let owner = TestServer::new(format!("{base}/api/{server}/orders"));
        owner.place(&new_key()).await.order();
        let id = owner.lab.as_str();
        let url = &owner.orders_url;

        let read = send(http.get(url).header(LAB_ID, id)).await;
        assert_forbidden(&read, "lab-secret-required", "GET /orders by id");
        let clear = send(http.delete(url).header(LAB_ID, id)).await;
        assert_forbidden(&clear, "lab-secret-required", "DELETE /orders by id");
        let order = http
            .post(url)
            .header(LAB_ID, id)
            .header(IDEMPOTENCY_KEY, new_key())
            .header(CONTENT_TYPE, "application/json")
            .body(COFFEE);
        assert_forbidden(
            &send(order).await,
            "lab-secret-required",
            "POST /orders by id",
        );
        let steps = send(http.get(format!("{base}/api/{server}/steps?lab={id}"))).await;
        assert_forbidden(&steps, "lab-secret-required", "this server's steps by id");
        let all_steps = send(http.get(format!("{base}/api/steps?lab={id}"))).await;
        assert_forbidden(
            &all_steps,
            "lab-secret-required",
            "every server's steps by id",
        );

        assert_eq!(
            owner.orders().await.len(),
            1,
            "{server}: nothing was lost or added"
        );
    }
}

async fn a_secret_sent_with_another_labs_id_opens_neither(backend: Backend) {
    let base = lab(backend).await;
    let owner = TestServer::new(format!("{base}/api/safe/orders"));
    owner.place(&new_key()).await.order();
    let stranger = owner.in_new_lab();

    let claimed = reqwest::Client::new()
        .get(&owner.orders_url)
        .header("lab-secret", &stranger.secret)
        .header(LAB_ID, &owner.lab);
    assert_forbidden(
        &send(claimed).await,
        "lab-secret-mismatch",
        "another lab's id",
    );
    assert!(
        stranger.orders().await.is_empty(),
        "the stranger's own lab is empty"
    );
    assert_eq!(
        stranger.delete_orders().await,
        204,
        "clearing one's own lab"
    );
    assert_eq!(
        owner.orders().await.len(),
        1,
        "the owner's order is still there"
    );
}

async fn the_teachers_token_reads_any_lab_and_changes_none(backend: Backend) {
    let base = lab(backend).await;
    let http = reqwest::Client::new();
    let learner = TestServer::new(format!("{base}/api/transactional/orders"));
    learner.place(&new_key()).await.order();
    let as_teacher = |request: reqwest::RequestBuilder, token: &str| {
        request
            .header(LAB_ID, &learner.lab)
            .header(AUTHORIZATION, format!("Bearer {token}"))
    };

    let read = send(as_teacher(http.get(&learner.orders_url), TEACHER_TOKEN)).await;
    assert_eq!(read.status(), 200, "{read:?}");
    let Attempt::Answered { body, .. } = read else {
        unreachable!()
    };
    assert_eq!(
        body.as_array().map(Vec::len),
        Some(1),
        "the teacher sees the order"
    );

    let query = format!("lab={}&teacher={TEACHER_TOKEN}", learner.lab);
    let mut watching = StepStream::open(&format!("{base}/api/steps?{query}")).await;
    let key = new_key();
    learner.place(&key).await.order();
    watching.until(|step| step.key == key).await;

    let clear = send(as_teacher(http.delete(&learner.orders_url), TEACHER_TOKEN)).await;
    assert_forbidden(
        &clear,
        "teacher-reads-only",
        "DELETE with the teacher's token",
    );
    let guess = send(as_teacher(
        http.get(&learner.orders_url),
        "not-the-teachers-token",
    ))
    .await;
    assert_forbidden(&guess, "teacher-token-wrong", "a wrong token");
    assert_eq!(
        learner.orders().await.len(),
        2,
        "the learner's orders are all there"
    );
}

async fn a_request_naming_no_lab_uses_the_public_default_lab(backend: Backend) {
    let base = lab(backend).await;
    let url = format!("{base}/api/naive/orders");
    let http = reqwest::Client::new();
    let key = new_key();
    let placed = http
        .post(&url)
        .header(IDEMPOTENCY_KEY, &key)
        .header(CONTENT_TYPE, "application/json")
        .body(COFFEE);
    assert_eq!(send(placed).await.status(), 201);
    let listed: Vec<lab_wire::Order> = http.get(&url).send().await.unwrap().json().await.unwrap();
    assert!(
        listed.iter().any(|order| order.idempotency_key == key),
        "the order is in the default lab"
    );
    let by_name = send(http.get(&url).header(LAB_ID, "default")).await;
    assert_eq!(by_name.status(), 200, "the default lab needs no secret");
}
