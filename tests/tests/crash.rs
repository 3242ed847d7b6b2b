//! `Lab-Fault: crash-after-create`: the server stops right after writing the
//! order, before saving its answer, as if the process died there. What is
//! left behind depends on the design, and so does what the retry gets.

use lab_e2e::client::send;
use lab_e2e::steps::until_the_lock_has_run_out;
use lab_e2e::{Attempt, Backend, TestServer, new_key, on_both_backends, spawn_server};
use lab_wire::{Step, StepKind};
use naive_server::NaiveServer;
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

/// How long a crashed claim blocks its retries: long enough that the
/// retry sent right after the crash surely finds the claim still locked.
const LOCK_SECS: u64 = 3;

/// Places the default order with `key` on the safe server, which crashes
/// right after creating it; returns the request's steps, up to the crash.
async fn crash_on(server: &TestServer, key: &str) -> Vec<Step> {
    let mut steps = server.steps().await;
    let crashed = server.place_and_crash(key, LOCK_SECS).await;
    assert!(matches!(crashed, Attempt::NoResponse(_)), "{crashed:?}");
    steps
        .until(|step| step.key == key && step.kind == StepKind::Crashed)
        .await
}

on_both_backends!(
    after_a_crash_the_naive_server_keeps_the_order_and_its_retry_orders_again,
    after_a_crash_the_safe_server_keeps_the_order_holds_the_key_then_recovers_that_same_order,
    after_a_crash_the_transactional_server_keeps_nothing_and_its_retry_simply_orders_once,
    after_a_crash_a_different_order_under_the_key_is_refused_not_recovered,
);

async fn after_a_crash_the_naive_server_keeps_the_order_and_its_retry_orders_again(
    backend: Backend,
) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let key = new_key();

    let crashed = server.place_and_crash(&key, 60).await;
    assert!(
        matches!(crashed, Attempt::NoResponse(_)),
        "the connection closes unanswered: {crashed:?}"
    );
    assert_eq!(
        server.orders().await.len(),
        1,
        "the order was written before the crash"
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
    assert_eq!(
        server.orders().await.len(),
        2,
        "no saved answer, so the retry charged again"
    );
}

async fn after_a_crash_the_safe_server_keeps_the_order_holds_the_key_then_recovers_that_same_order(
    backend: Backend,
) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();

    let steps = crash_on(&server, &key).await;
    let written = server.orders().await;
    assert_eq!(
        written.len(),
        1,
        "claim, order and answer are separate statements: the order stayed"
    );

    let too_soon = server.place(&key).await;
    assert_eq!(
        too_soon.status(),
        409,
        "the crashed claim, with no answer, still holds the key: {too_soon:?}"
    );

    until_the_lock_has_run_out(&steps, LOCK_SECS).await;
    let recovered = server.place(&key).await;
    assert!(
        matches!(
            recovered,
            Attempt::Answered {
                status: 201,
                replayed: true,
                ..
            }
        ),
        "once the lock ran out a retry took the claim over and replayed the order it found: {recovered:?}"
    );
    assert_eq!(
        recovered.order(),
        written[0],
        "the recovery adopted the crashed request's order instead of making another"
    );
    let again = server.place(&key).await;
    assert_eq!(again.order(), written[0], "{again:?}");
    assert_eq!(server.orders().await.len(), 1, "one order in the end");
}

async fn after_a_crash_the_transactional_server_keeps_nothing_and_its_retry_simply_orders_once(
    backend: Backend,
) {
    let server = spawn_server::<TransactionalServer>(backend).await;
    let key = new_key();

    // A long lock: the transactional server must not need it.
    let crashed = server.place_and_crash(&key, 60).await;
    assert!(matches!(crashed, Attempt::NoResponse(_)), "{crashed:?}");
    assert!(
        server.orders().await.is_empty(),
        "claim, order and answer were one transaction, and it never committed"
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
        "nothing was left to block the retry: {retry:?}"
    );
    let again = server.place(&key).await;
    assert!(
        matches!(
            again,
            Attempt::Answered {
                status: 201,
                replayed: true,
                ..
            }
        ),
        "{again:?}"
    );
    assert_eq!(again.order(), retry.order());
    assert_eq!(server.orders().await.len(), 1, "one order in the end");
}

/// A retry with a different body must not adopt (or take over) the crashed
/// request's claim: a key belongs to one request.
async fn after_a_crash_a_different_order_under_the_key_is_refused_not_recovered(backend: Backend) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();
    let steps = crash_on(&server, &key).await;
    until_the_lock_has_run_out(&steps, LOCK_SECS).await;

    let tea = send(server.order_request(Some(&key), r#"{"item":"tea","amount_cents":300}"#)).await;
    assert_eq!(tea.status(), 422, "{tea:?}");
    let orders = server.orders().await;
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].item, "coffee");
}
