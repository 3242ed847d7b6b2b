//! Explorations over HTTP (`POST /explorations`): the server runs every
//! schedule of a few copies for a lab, against itself, and the lab reads
//! what each left. On both databases: what it finds, that it leaves
//! nothing behind, and the limits that keep one lab from taking a shared
//! server (one at a time per lab, two per server, bad asks refused).

use lab_e2e::client::spawn_server_with_db;
use lab_e2e::{Backend, TestServer, on_both_backends, spawn_server};
use lab_platform::Db;
use lab_wire::headers::LAB_SECRET;
use lab_wire::{ExplorationState, ExplorationView};
use naive_server::NaiveServer;
use safe_server::SafeServer;

on_both_backends!(
    naive_explored_over_http_keeps_two_orders_in_60_of_its_66_schedules_and_leaves_nothing_behind,
    safe_explored_over_http_keeps_one_order_in_every_schedule,
    a_lab_runs_one_exploration_at_a_time_and_the_server_two,
    an_exploration_that_cannot_be_run_is_refused_with_a_problem,
);

/// How many orders, and how many naive keys, a SQLite database holds.
async fn orders_and_keys_in(db: &Db) -> (i64, i64) {
    let Db::Sqlite { readers, .. } = db else {
        unreachable!("a SQLite database")
    };
    let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql).fetch_one(readers);
    let orders = count("SELECT count(*) FROM lab_orders").await.unwrap();
    let keys = count("SELECT count(*) FROM naive_idempotency_keys")
        .await
        .unwrap();
    (orders, keys)
}

/// The server's `/explorations`.
fn explorations_url(server: &TestServer) -> String {
    server.orders_url.replace("/orders", "/explorations")
}

/// Starts exploring `body` in `server`'s lab; the answer's status and body.
async fn start(server: &TestServer, body: &str) -> (u16, serde_json::Value, Option<String>) {
    let response = reqwest::Client::new()
        .post(explorations_url(server))
        .header(LAB_SECRET, &server.secret)
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, response.json().await.unwrap(), retry_after)
}

/// Reads exploration `id`, waiting up to `wait` seconds for it to end.
async fn read(server: &TestServer, id: &str, wait: u64) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{}/{id}", explorations_url(server)))
        .header(LAB_SECRET, &server.secret)
        .header("prefer", format!("wait={wait}"))
        .send()
        .await
        .expect("the server answers")
}

/// Waits, a long-poll at a time, until exploration `id` is no longer running.
async fn until_ended(server: &TestServer, id: &str) -> ExplorationView {
    for _ in 0..30 {
        let response = read(server, id, 20).await;
        assert_eq!(response.status(), 200);
        let view: ExplorationView = response.json().await.unwrap();
        if view.state != ExplorationState::Running {
            return view;
        }
    }
    panic!("exploration {id} still runs after 30 waits of 20 s");
}

async fn stop(server: &TestServer, id: &str) -> u16 {
    reqwest::Client::new()
        .delete(format!("{}/{id}", explorations_url(server)))
        .header(LAB_SECRET, &server.secret)
        .send()
        .await
        .expect("the server answers")
        .status()
        .as_u16()
}

async fn naive_explored_over_http_keeps_two_orders_in_60_of_its_66_schedules_and_leaves_nothing_behind(
    backend: Backend,
) {
    let (server, db) = spawn_server_with_db::<NaiveServer>(backend).await;
    let (status, started, _) = start(&server, r#"{"copies":2}"#).await;
    assert_eq!(status, 202, "{started}");
    let started: ExplorationView = serde_json::from_value(started).unwrap();
    assert_eq!(started.state, ExplorationState::Running);
    assert_eq!(
        (started.design.as_str(), started.asked.copies),
        ("naive", 2)
    );

    let ended = until_ended(&server, &started.id).await;
    assert_eq!(
        ended.state,
        ExplorationState::Finished,
        "{:?}",
        ended.detail
    );
    assert_eq!(ended.schedules.len(), 66);
    let broken: Vec<_> = ended
        .schedules
        .iter()
        .filter(|schedule| schedule.broke_the_promise)
        .collect();
    assert_eq!(broken.len(), 60);
    assert!(broken.iter().all(|schedule| schedule.orders == 2));
    // Shortest first: the first broken one is the shortest counterexample.
    assert_eq!(broken[0].schedule, "1 1 2 1 1 2 2 2");
    let lengths: Vec<usize> = ended
        .schedules
        .iter()
        .map(|schedule| schedule.schedule.split(' ').count())
        .collect();
    assert!(lengths.is_sorted(), "{lengths:?}");
    let summary = ended.summary.expect("a finished exploration sums up");
    assert!(
        summary.contains("66 schedules, 60 left more than one order")
            && summary.contains("`1 1 2 1 1 2 2 2`"),
        "{summary}"
    );

    // Each schedule ran in a lab of its own, forgotten once read; the
    // exploring lab itself placed nothing.
    assert!(server.orders().await.is_empty());
    if backend == Backend::Sqlite {
        // A database of this test's own: every order and key is gone. (The
        // PostgreSQL test database is shared by tests running at once.)
        assert_eq!(orders_and_keys_in(&db).await, (0, 0));
    }
}

async fn safe_explored_over_http_keeps_one_order_in_every_schedule(backend: Backend) {
    let server = spawn_server::<SafeServer>(backend).await;
    let (status, started, _) = start(&server, r#"{"copies":2,"crash":false}"#).await;
    assert_eq!(status, 202, "{started}");
    let id = started["id"].as_str().unwrap();
    let ended = until_ended(&server, id).await;
    assert_eq!(
        ended.state,
        ExplorationState::Finished,
        "{:?}",
        ended.detail
    );
    assert_eq!(ended.schedules.len(), 112);
    assert!(
        ended
            .schedules
            .iter()
            .all(|schedule| schedule.orders == 1 && !schedule.broke_the_promise),
        "{:?}",
        ended.schedules
    );
    assert!(
        ended.summary.unwrap().contains("112 schedules, 0 left"),
        "the summary counts them"
    );
}

async fn a_lab_runs_one_exploration_at_a_time_and_the_server_two(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    // With a crash anywhere, naive has 1,594 schedules: it runs for a while.
    let long = r#"{"copies":2,"crash":true}"#;
    let (status, first, _) = start(&server, long).await;
    assert_eq!(status, 202, "{first}");
    let first = first["id"].as_str().unwrap().to_owned();

    let (status, refused, retry_after) = start(&server, long).await;
    assert_eq!(status, 429, "{refused}");
    assert_eq!(refused["type"], "/problems/lab-exploration-limit");
    assert!(refused["detail"].as_str().unwrap().contains(&first));
    assert_eq!(retry_after.as_deref(), Some("5"));

    let other_lab = server.in_new_lab();
    let (status, second, _) = start(&other_lab, long).await;
    assert_eq!(status, 202, "{second}");
    let second = second["id"].as_str().unwrap().to_owned();
    let third_lab = server.in_new_lab();
    let (status, refused, _) = start(&third_lab, long).await;
    assert_eq!(status, 503, "{refused}");
    assert_eq!(refused["type"], "/problems/server-explorations-limit");

    // Another lab cannot read or stop it; its own lab stops it.
    assert_eq!(read(&other_lab, &first, 0).await.status(), 404);
    assert_eq!(stop(&other_lab, &first).await, 404);
    let running: ExplorationView = read(&server, &first, 0).await.json().await.unwrap();
    assert_eq!(running.state, ExplorationState::Running);
    assert_eq!(stop(&server, &first).await, 204);
    assert_eq!(read(&server, &first, 0).await.status(), 404);

    // Its place is free again: the lab, and the third lab, may start one.
    let (status, again, _) = start(&server, long).await;
    assert_eq!(status, 202, "{again}");
    assert_eq!(stop(&server, again["id"].as_str().unwrap()).await, 204);
    assert_eq!(stop(&other_lab, &second).await, 204);
    let (status, third, _) = start(&third_lab, long).await;
    assert_eq!(status, 202, "{third}");
    assert_eq!(stop(&third_lab, third["id"].as_str().unwrap()).await, 204);
}

async fn an_exploration_that_cannot_be_run_is_refused_with_a_problem(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    for (body, status, kind) in [
        (r#"{"copies":1}"#, 422, "/problems/invalid-record"),
        (r#"{"copies":4}"#, 422, "/problems/invalid-record"),
        (r#"{"copies":300}"#, 422, "/problems/invalid-record"),
        (
            r#"{"copies":2,"crash":"yes"}"#,
            422,
            "/problems/invalid-record",
        ),
        (r#"{"copies":2,"jobs":16}"#, 422, "/problems/invalid-record"),
        (r#"{"crash":true}"#, 422, "/problems/invalid-record"),
        (r#"{"copies":2"#, 400, "/problems/malformed-json"),
    ] {
        let (answered, problem, _) = start(&server, body).await;
        assert_eq!(
            (answered, problem["type"].as_str()),
            (status, Some(kind)),
            "{body}: {problem}"
        );
    }
    let response = read(&server, "exp_0123", 0).await;
    assert_eq!(response.status(), 404);
    let problem: serde_json::Value = response.json().await.unwrap();
    assert_eq!(problem["type"], "/problems/exploration-not-found");
    // Refused asks started nothing: the lab's one place is free.
    let (status, started, _) = start(&server, r#"{"copies":2}"#).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(stop(&server, started["id"].as_str().unwrap()).await, 204);
}
