//! The launcher: both servers under `/api/…` and the page at `/`, on one address.

use lab_e2e::{Attempt, Backend, TestServer, new_key, spawn_lab};

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
    assert!(
        matches!(placed, Attempt::Answered { status: 201, .. }),
        "{placed:?}"
    );
    assert_eq!(naive.orders().await.len(), 1);
    assert!(
        safe.orders().await.is_empty(),
        "the safe server keeps its own orders"
    );
    let on_safe = safe.place(&key).await;
    assert!(
        matches!(
            on_safe,
            Attempt::Answered {
                status: 201,
                replayed: false,
                ..
            }
        ),
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
