//! The launcher: every server under `/api/…` and the page at `/`, on one
//! address, and the texts that tell a newcomer what it serves.

use lab_e2e::{Backend, StepStream, TestServer, new_key, spawn_lab};
use lab_wire::StepKind;

/// A stand-in for the built page, so this test does not need Trunk.
fn fake_page() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("idempotency-lab-page-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!DOCTYPE html><title>lab page</title>",
    )
    .unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_serves_two_separate_servers_and_the_page_on_one_address() {
    let base = spawn_lab(Backend::Sqlite, &fake_page()).await;
    let naive = TestServer::new(format!("{base}/api/naive/orders"));
    let safe = naive.at(format!("{base}/api/safe/orders"));
    let key = new_key();

    let placed = naive.place(&key).await;
    assert!(placed.is_order(), "{placed:?}");
    assert_eq!(naive.orders().await.len(), 1);
    assert!(
        safe.orders().await.is_empty(),
        "the safe server keeps its own orders"
    );
    let on_safe = safe.place(&key).await;
    assert!(
        on_safe.is_new_order(),
        "a key seen by the naive server is new to the safe one: {on_safe:?}"
    );

    let client = reqwest::Client::new();
    for path in ["/", "/some/deep/link"] {
        let page = client.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(page.status(), 200, "{path}");
        assert!(
            page.text().await.unwrap().contains("lab page"),
            "{path} serves the page"
        );
    }
    let unknown = client
        .get(format!("{base}/api/nothing"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(
        unknown.headers()["content-type"],
        "application/problem+json"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_carries_every_servers_steps_named_after_the_server() {
    let base = spawn_lab(Backend::Sqlite, &fake_page()).await;
    let naive = TestServer::new(format!("{base}/api/naive/orders"));
    let transactional = naive.at(format!("{base}/api/transactional/orders"));
    let mut steps = StepStream::open(&format!("{base}/api/steps?{}", naive.lab_query())).await;
    let elsewhere = naive.in_new_lab();

    let (other, mine_on_naive, mine_on_transactional) = (new_key(), new_key(), new_key());
    elsewhere.place(&other).await;
    naive.place(&mine_on_naive).await;
    transactional.place(&mine_on_transactional).await;

    // Naive: looked up, inserted, saved, answered. Transactional: looked up,
    // begun, claimed, inserted, saved, committed, answered.
    let named = steps.take_named(11).await;
    let from = |server: &str| -> Vec<StepKind> {
        named
            .iter()
            .filter(|(name, _)| name == server)
            .map(|(_, step)| step.kind)
            .collect()
    };
    assert_eq!(from("naive").len(), 4, "{named:#?}");
    assert_eq!(from("transactional").len(), 7, "{named:#?}");
    assert!(from("transactional").contains(&StepKind::Committed));
    assert!(
        named.iter().all(|(name, step)| match name.as_str() {
            "naive" => step.key == mine_on_naive,
            _ => step.key == mine_on_transactional,
        }),
        "only this lab's steps, each under its server's name: {named:#?}"
    );

    let refused = reqwest::get(format!("{base}/api/steps?lab=no%20spaces"))
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.headers()["content-type"],
        "application/problem+json"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_lab_ends_open_step_streams_cleanly() {
    let application = lab_e2e::client::build_lab(Backend::Sqlite, &fake_page()).await;
    let base = format!("http://{}", application.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(application.run_until(async {
        let _ = stopped.await;
    }));
    let mut page_left_open = reqwest::get(format!("{base}/api/steps?secret=a-page-left-open-here"))
        .await
        .unwrap();
    assert_eq!(page_left_open.status(), 200);

    stop.send(()).unwrap();

    // A clean end of the body. Without it the connection would outlive the
    // shutdown's grace period (and, in this test's runtime, never end: hence
    // the deadline, which only turns a hang into a failure).
    let end = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        let mut end = page_left_open.chunk().await;
        while let Ok(Some(_keep_alive)) = end {
            end = page_left_open.chunk().await;
        }
        end
    })
    .await
    .expect("the step stream ended after the lab was told to stop");
    assert!(matches!(end, Ok(None)), "the stream ends cleanly: {end:?}");
    running.await.expect("the lab stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_start_up_message_and_help_name_every_design_the_lab_serves() {
    let base = spawn_lab(Backend::Sqlite, &fake_page()).await;
    let document: serde_json::Value = reqwest::get(format!("{base}/api/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The designs as the lab really serves them, not as a list in the code says.
    let designs: Vec<&str> = document["paths"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|path| path.strip_prefix("/api/")?.strip_suffix("/orders"))
        .collect();
    assert!(designs.len() >= 5, "{designs:?}");

    let message =
        launcher::startup_message("127.0.0.1:8080".parse().unwrap(), "sqlite", Some("t0ken"));
    let help = launcher::cli::Cli::long_help();
    for design in &designs {
        assert!(
            message.contains(&format!("http://127.0.0.1:8080/api/{design}/orders")),
            "the start-up message names {design}'s API:\n{message}"
        );
        assert!(
            help.contains(design),
            "--help names the {design} design:\n{help}"
        );
    }
    assert!(message.contains("/teacher?token=t0ken"), "{message}");
}
