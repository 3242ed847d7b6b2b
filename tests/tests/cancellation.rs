//! Rust's own failure mode: with `Lab-Cancellation: on-disconnect` a
//! handler's work is dropped, at its next `.await`, when the client hangs up.

use lab_e2e::client::{COFFEE, hang_up_during_the_pause};
use lab_e2e::steps::until_the_lock_has_run_out;
use lab_e2e::{Backend, TestServer, new_key, on_both_backends, spawn_server};
use lab_wire::headers::{LAB_CANCELLATION, LAB_DELAY_MS, LAB_LOCK_TIMEOUT_SECS};
use lab_wire::{Step, StepKind};
use naive_server::NaiveServer;
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

on_both_backends!(
    a_cancelled_request_on_the_naive_server_leaves_nothing_and_its_retry_orders_once,
    a_cancelled_request_on_the_safe_server_leaves_its_claim_behind_until_the_lock_runs_out,
    a_cancelled_request_on_the_transactional_server_rolls_back_and_its_retry_orders_once,
);

/// Sends an order with a 600 ms race window, asking the server to drop the
/// work if the client hangs up; hangs up as soon as the server reports the
/// window open, and waits until the server reports the work dropped.
/// Returns the steps the server reported for it.
async fn hang_up_on_cancellable(server: &TestServer, key: &str) -> Vec<Step> {
    let mut steps = server.steps().await;
    let request = server
        .order_request(Some(key), COFFEE)
        .header(LAB_DELAY_MS, "600")
        .header(LAB_CANCELLATION, "on-disconnect")
        .header(LAB_LOCK_TIMEOUT_SECS, LOCK_SECS.to_string());
    let mut seen = hang_up_during_the_pause(request, key, &mut steps).await;
    seen.extend(
        steps
            .until(|step| step.key == key && step.kind == StepKind::Cancelled)
            .await,
    );
    seen
}

/// The lock an abandoned claim holds before a retry may take it over.
const LOCK_SECS: u64 = 2;

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
    assert!(retry.is_new_order(), "{retry:?}");
    assert_eq!(server.orders().await.len(), 1);
}

async fn a_cancelled_request_on_the_safe_server_leaves_its_claim_behind_until_the_lock_runs_out(
    backend: Backend,
) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();

    let steps = hang_up_on_cancellable(&server, &key).await;

    assert!(
        server.orders().await.is_empty(),
        "cancelled after the claim, before the order"
    );
    // Moments have passed since the claim: its 2 s lock still holds.
    let blocked = server.place(&key).await;
    assert_eq!(
        blocked.status(),
        409,
        "an abandoned claim blocks its retries: {blocked:?}"
    );
    until_the_lock_has_run_out(&steps, LOCK_SECS).await;
    let recovered = server.place(&key).await;
    assert!(recovered.is_new_order(), "{recovered:?}");
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
    assert!(retry.is_new_order(), "{retry:?}");
    assert_eq!(server.orders().await.len(), 1);
}
