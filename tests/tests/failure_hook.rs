//! The failure hook: `Lab-Fault: error-before-create` and
//! `error-after-create` make the server's own code fail just before or
//! just after it writes the order. Unlike a crash the process lives on,
//! answers 500 and cleans up as its design does; the client's retry,
//! sent at once, gets what the design promises (the probe's
//! `--fail-header` and `--fail-after-header` checks, on every design).

use lab_e2e::{
    AfterAnError, Attempt, Backend, Promises, new_key, on_every_design_and_backend, spawn_server,
};

on_every_design_and_backend!(
    an_error_before_the_order_is_a_500_that_leaves_nothing_and_the_retry_orders_once,
    an_error_after_the_order_gets_the_retry_what_the_design_promises
);

/// The failed request's answer: a 500 problem that says it was asked for.
fn assert_failed_on_purpose(failed: &Attempt, fault: &str) {
    let (status, body) = failed.problem();
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["type"], "/problems/simulated-error", "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains(fault),
        "the detail names the fault: {body}"
    );
}

async fn an_error_before_the_order_is_a_500_that_leaves_nothing_and_the_retry_orders_once<
    S: Promises,
>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let failed = server.place_with_fault(&key, "error-before-create").await;
    assert_failed_on_purpose(&failed, "error-before-create");
    assert!(server.orders().await.is_empty(), "no order was written");

    // At once: no design may keep the retry waiting for a lock to run out.
    let retry = server.place(&key).await;
    assert!(retry.is_new_order(), "the retry orders: {retry:?}");
    assert_eq!(server.orders().await.len(), 1);
    let again = server.place(&key).await;
    assert!(again.is_replay(), "and is remembered: {again:?}");
}

async fn an_error_after_the_order_gets_the_retry_what_the_design_promises<S: Promises>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let failed = server.place_with_fault(&key, "error-after-create").await;
    assert_failed_on_purpose(&failed, "error-after-create");
    let left = server.orders().await;
    let retry = server.place(&key).await;
    let orders = server.orders().await;

    match S::AFTER_AN_ERROR {
        AfterAnError::OrdersAgain => {
            assert_eq!(left.len(), 1, "the order was written before the error");
            assert!(retry.is_new_order(), "nothing remembered it: {retry:?}");
            assert_eq!(orders.len(), 2, "two orders for one purchase");
        }
        AfterAnError::KeepsNothing => {
            assert!(left.is_empty(), "the transaction rolled back");
            assert!(retry.is_new_order(), "{retry:?}");
            assert_eq!(orders.len(), 1);
        }
        AfterAnError::ReplaysThatOrder => {
            assert_eq!(left.len(), 1, "the order was written before the error");
            assert!(retry.is_replay(), "with its answer: {retry:?}");
            assert_eq!(retry.order(), left[0]);
            assert_eq!(orders.len(), 1, "still one order");
        }
        AfterAnError::FinishesThatOrder => {
            assert_eq!(left.len(), 1, "the order was written before the error");
            assert!(
                retry.is_order(),
                "the claim was let go: no 409 while a lock runs out: {retry:?}"
            );
            assert_eq!(orders.len(), 1, "still one order");
            let Attempt::Answered { body, .. } = &retry else {
                unreachable!()
            };
            assert_eq!(
                body["id"],
                left[0].id.to_string(),
                "the retry answers with the order the failed request wrote"
            );
        }
    }
}
