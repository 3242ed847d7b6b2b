//! `Lab-Fault: crash-after-create`: the server stops right after writing the
//! order, before saving its answer, as if the process died there. What is
//! left behind depends on the design, and so does what the retry gets: on
//! every design, each asserting its promise (two orders on the naive and
//! the in-process lock designs: the lesson).

use lab_e2e::client::send;
use lab_e2e::steps::until_the_lock_has_run_out;
use lab_e2e::{
    AfterACrash, Backend, Promises, TestServer, new_key, on_both_backends,
    on_every_design_and_backend, spawn_server,
};
use lab_wire::{Step, StepKind};
use safe_server::SafeServer;

/// How long a crashed claim blocks its retries, on the designs whose claim
/// does: long enough that the retry sent right after the crash surely
/// finds the claim still locked.
const LOCK_SECS: u64 = 3;

/// The lock of the designs that must not need one to recover: long, so a
/// retry that needed it would wait far past the test.
const LONG_LOCK_SECS: u64 = 60;

/// Places the default order with `key` on `server`, which crashes right
/// after creating it (its claim locked for `lock_secs`); returns the
/// request's steps, up to the crash.
async fn crash_on(server: &TestServer, key: &str, lock_secs: u64) -> Vec<Step> {
    let mut steps = server.steps().await;
    let crashed = server.place_and_crash(key, lock_secs).await;
    assert!(
        crashed.is_unanswered(),
        "the connection closes unanswered: {crashed:?}"
    );
    steps
        .until(|step| step.key == key && step.kind == StepKind::Crashed)
        .await
}

on_every_design_and_backend!(
    after_a_crash_before_the_answer_the_retries_get_what_the_design_promises
);
on_both_backends!(after_a_crash_a_different_order_under_the_key_is_refused_not_recovered);

async fn after_a_crash_before_the_answer_the_retries_get_what_the_design_promises<S: Promises>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();
    let holds_the_key = S::AFTER_A_CRASH == AfterACrash::HoldsTheKeyThenFinishes;
    let lock_secs = if holds_the_key {
        LOCK_SECS
    } else {
        LONG_LOCK_SECS
    };
    let crash_steps = crash_on(&server, &key, lock_secs).await;
    let left = server.orders().await;
    let retry = server.place(&key).await;

    let kept = match S::AFTER_A_CRASH {
        AfterACrash::ReplaysTheOrder => {
            assert_eq!(
                left.len(),
                1,
                "the one statement stored the order before the crash"
            );
            assert!(
                retry.is_replay(),
                "and the answer with it: the retry replays it at once: {retry:?}"
            );
            assert_eq!(retry.order(), left[0]);
            left[0].clone()
        }
        AfterACrash::OrdersAgain => {
            assert_eq!(left.len(), 1, "the order was written before the crash");
            assert!(
                retry.is_new_order(),
                "no saved answer, so the retry ordered again: {retry:?}"
            );
            assert_eq!(
                server.orders().await.len(),
                2,
                "two orders for one purchase"
            );
            return;
        }
        AfterACrash::KeepsNothing => {
            assert!(
                left.is_empty(),
                "claim, order and answer were one transaction, and it never committed"
            );
            assert!(
                retry.is_new_order(),
                "nothing was left to block the retry: {retry:?}"
            );
            retry.order()
        }
        AfterACrash::HoldsTheKeyThenFinishes => {
            assert_eq!(left.len(), 1, "the order was committed before the crash");
            assert_eq!(
                retry.status(),
                409,
                "the crashed claim, with no answer, still holds the key: {retry:?}"
            );
            until_the_lock_has_run_out(&crash_steps, LOCK_SECS).await;
            let finished = server.place(&key).await;
            assert_eq!(
                finished.order(),
                left[0],
                "once the lock ran out a retry finished the crashed request's order instead of making another: {finished:?}"
            );
            left[0].clone()
        }
    };
    let again = server.place(&key).await;
    assert!(again.is_replay(), "then the key replays: {again:?}");
    assert_eq!(again.order(), kept);
    assert_eq!(server.orders().await.len(), 1, "one order in the end");
}

/// A retry with a different body must not adopt (or take over) the crashed
/// request's claim: a key belongs to one request.
async fn after_a_crash_a_different_order_under_the_key_is_refused_not_recovered(backend: Backend) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();
    let steps = crash_on(&server, &key, LOCK_SECS).await;
    until_the_lock_has_run_out(&steps, LOCK_SECS).await;

    let tea = send(server.order_request(Some(&key), r#"{"item":"tea","amount_cents":300}"#)).await;
    assert_eq!(tea.status(), 422, "{tea:?}");
    let orders = server.orders().await;
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].item, "coffee");
}
