//! Rust's own failure mode: with `Lab-Cancellation: on-disconnect` a
//! handler's work is dropped, at its next `.await`, when the client hangs up.

use std::time::Duration;

use lab_e2e::client::{COFFEE, send};
use lab_e2e::{Attempt, Backend, TestServer, new_key, on_both_backends, spawn_server};
use lab_wire::headers::{LAB_CANCELLATION, LAB_DELAY_MS, LAB_LOCK_TIMEOUT_SECS};
use naive_server::NaiveServer;
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

on_both_backends!(
    a_cancelled_request_on_the_naive_server_leaves_nothing_and_its_retry_orders_once,
    a_cancelled_request_on_the_safe_server_leaves_its_claim_behind_until_the_lock_runs_out,
    a_cancelled_request_on_the_transactional_server_rolls_back_and_its_retry_orders_once,
);

/// Sends an order that the client gives up on during the server's 600 ms
/// race window, asking the server to drop the work when that happens.
async fn hang_up_on_cancellable(server: &TestServer, key: &str) {
    let gave_up = send(
        server
            .order_request(Some(key), COFFEE)
            .header(LAB_DELAY_MS, "600")
            .header(LAB_CANCELLATION, "on-disconnect")
            .header(LAB_LOCK_TIMEOUT_SECS, "2")
            .timeout(Duration::from_millis(100)),
    )
    .await;
    assert!(
        matches!(gave_up, Attempt::NoResponse(_)),
        "the client times out: {gave_up:?}"
    );
    // Past the race window: finished work would have stored its order by now.
    tokio::time::sleep(Duration::from_millis(900)).await;
}

async fn a_cancelled_request_on_the_naive_server_leaves_nothing_and_its_retry_orders_once(
    backend: Backend,
) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let key = new_key();

    hang_up_on_cancellable(&server, &key).await;

    assert!(
        server.orders().await.is_empty(),
        "the work stopped before it created the order"
    );
    let retry = server.place(&key).await;
    assert!(
        matches!(
            retry,
            Attempt::Answered {
                status: 201,
                replayed: false,
                ..
            }
        ),
        "{retry:?}"
    );
    assert_eq!(server.orders().await.len(), 1);
}

async fn a_cancelled_request_on_the_safe_server_leaves_its_claim_behind_until_the_lock_runs_out(
    backend: Backend,
) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();

    hang_up_on_cancellable(&server, &key).await;

    assert!(
        server.orders().await.is_empty(),
        "cancelled after the claim, before the order"
    );
    // About a second has passed since the claim: its 2 s lock still holds.
    let blocked = server.place(&key).await;
    assert_eq!(
        blocked.status(),
        409,
        "an abandoned claim blocks its retries: {blocked:?}"
    );
    tokio::time::sleep(Duration::from_millis(1_400)).await;
    let recovered = server.place(&key).await;
    assert!(
        matches!(
            recovered,
            Attempt::Answered {
                status: 201,
                replayed: false,
                ..
            }
        ),
        "{recovered:?}"
    );
    assert_eq!(server.orders().await.len(), 1);
}

async fn a_cancelled_request_on_the_transactional_server_rolls_back_and_its_retry_orders_once(
    backend: Backend,
) {
    let server = spawn_server::<TransactionalServer>(backend).await;
    let key = new_key();

    hang_up_on_cancellable(&server, &key).await;

    assert!(
        server.orders().await.is_empty(),
        "the dropped work never committed"
    );
    // No claim was left behind: the retry goes straight through, lock or not.
    let retry = server.place(&key).await;
    assert!(
        matches!(
            retry,
            Attempt::Answered {
                status: 201,
                replayed: false,
                ..
            }
        ),
        "{retry:?}"
    );
    assert_eq!(server.orders().await.len(), 1);
}
