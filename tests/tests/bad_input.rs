//! Bad input gets a clear 4xx problem+json, never a 500, and loses nothing
//! that was already stored.

use lab_core::OrderServer;
use lab_e2e::client::{COFFEE, send};
use lab_e2e::{Attempt, Backend, new_key, on_every_design_and_backend, spawn_server};
use lab_wire::headers::{
    LAB_CANCELLATION, LAB_DELAY_MS, LAB_FAULT, LAB_KEY_RETENTION_SECS, LAB_LOCK_TIMEOUT_SECS,
    LAB_MISSING_KEY,
};

on_every_design_and_backend!(
    every_kind_of_bad_request_gets_its_documented_problem_and_changes_nothing
);

/// Asserts the answer is a problem+json with `status` and problem `type`.
fn assert_problem(attempt: &Attempt, status: u16, kind: &str, case: &str) {
    let (got, body) = attempt.problem();
    assert_eq!(got, status, "{case}: status; body {body}");
    assert_eq!(
        body["type"],
        format!("/problems/{kind}"),
        "{case}: problem type"
    );
    assert_eq!(body["status"], status, "{case}: status in the body");
    assert!(
        body["title"].as_str().is_some_and(|t| !t.is_empty()),
        "{case}: title"
    );
    assert!(
        body["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{case}: detail"
    );
}

async fn every_kind_of_bad_request_gets_its_documented_problem_and_changes_nothing<
    S: OrderServer,
>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let kept = server.place(&new_key()).await.order();
    let key = new_key();

    let cases: Vec<(&str, reqwest::RequestBuilder, u16, &str)> = vec![
        (
            "missing key",
            server.order_request(None, COFFEE),
            400,
            "missing-idempotency-key",
        ),
        (
            "empty key",
            server.order_request(Some(""), COFFEE),
            400,
            "invalid-idempotency-key",
        ),
        (
            "256-character key",
            server.order_request(Some(&"k".repeat(256)), COFFEE),
            400,
            "invalid-idempotency-key",
        ),
        (
            "non-ASCII key",
            server.order_request(Some("clé-1"), COFFEE),
            400,
            "invalid-idempotency-key",
        ),
        (
            "key with a space",
            server.order_request(Some("a b"), COFFEE),
            400,
            "invalid-idempotency-key",
        ),
        (
            "malformed JSON",
            server.order_request(Some(&key), r#"{"item":"tea","#),
            400,
            "malformed-json",
        ),
        (
            "not JSON at all",
            server.order_request(Some(&key), "item=tea"),
            400,
            "malformed-json",
        ),
        (
            "wrong types",
            server.order_request(Some(&key), r#"{"item":7,"amount_cents":"450"}"#),
            422,
            "invalid-order",
        ),
        (
            "missing field",
            server.order_request(Some(&key), r#"{"item":"tea"}"#),
            422,
            "invalid-order",
        ),
        (
            "zero amount",
            server.order_request(Some(&key), r#"{"item":"tea","amount_cents":0}"#),
            422,
            "invalid-order",
        ),
        (
            "empty item",
            server.order_request(Some(&key), r#"{"item":"","amount_cents":5}"#),
            422,
            "invalid-order",
        ),
        (
            "1 MiB body",
            server.order_request(Some(&key), &"x".repeat(1 << 20)),
            413,
            "body-too-large",
        ),
        (
            "text content type",
            server.order_request_typed(Some(&key), COFFEE, "text/plain"),
            415,
            "unsupported-media-type",
        ),
        (
            "two content types",
            server
                .order_request(Some(&key), COFFEE)
                .header("content-type", "text/plain"),
            400,
            "repeated-header",
        ),
        (
            "bad lab id",
            server
                .order_request(Some(&key), COFFEE)
                .header("lab-id", "a/b"),
            400,
            "invalid-lab-id",
        ),
        (
            "short lab secret",
            server
                .sending_secret("short")
                .order_request(Some(&key), COFFEE),
            400,
            "invalid-lab-secret",
        ),
        (
            "delay too long",
            server
                .order_request(Some(&key), COFFEE)
                .header(LAB_DELAY_MS, "99999"),
            400,
            "invalid-lab-delay",
        ),
        (
            "unknown fault",
            server
                .order_request(Some(&key), COFFEE)
                .header(LAB_FAULT, "explode"),
            400,
            "unknown-lab-fault",
        ),
        (
            "unknown cancellation",
            server
                .order_request(Some(&key), COFFEE)
                .header(LAB_CANCELLATION, "sometimes"),
            400,
            "invalid-lab-cancellation",
        ),
        (
            "unknown missing-key policy",
            server
                .order_request(None, COFFEE)
                .header(LAB_MISSING_KEY, "sometimes"),
            400,
            "invalid-lab-missing-key",
        ),
        (
            "lock timeout of two hours",
            server
                .order_request(Some(&key), COFFEE)
                .header(LAB_LOCK_TIMEOUT_SECS, "7200"),
            400,
            "invalid-lock-timeout",
        ),
        (
            "retention of zero seconds",
            server
                .order_request(Some(&key), COFFEE)
                .header(LAB_KEY_RETENTION_SECS, "0"),
            400,
            "invalid-key-retention",
        ),
    ];
    for (case, request, status, kind) in cases {
        assert_problem(&send(request).await, status, kind, case);
    }

    assert_eq!(
        server.orders().await,
        vec![kept],
        "no bad request stored or removed anything"
    );
    let good = server.place(&key).await;
    assert!(
        good.is_new_order(),
        "a rejected request does not use up its key: {good:?}"
    );
}

#[tokio::test]
async fn unknown_paths_and_methods_get_problems_too() {
    let server = spawn_server::<naive_server::NaiveServer>(Backend::Sqlite).await;
    let base = server.orders_url.trim_end_matches("/orders").to_owned();
    let client = reqwest::Client::new();

    let missing = client
        .get(format!("{base}/nothing-here"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(
        missing.headers()["content-type"],
        "application/problem+json"
    );

    let wrong_method = client.put(&server.orders_url).send().await.unwrap();
    assert_eq!(wrong_method.status(), 405);
    assert_eq!(
        wrong_method.headers()["content-type"],
        "application/problem+json"
    );
}
