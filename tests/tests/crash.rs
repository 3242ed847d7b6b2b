//! `Lab-Fault: crash-after-create`: the server stops right after writing the
//! order, before saving its answer, as if the process died there.

use std::time::Duration;

use lab_e2e::{Attempt, Backend, new_key, on_both_backends, spawn_server};
use naive_server::NaiveServer;
use safe_server::SafeServer;

on_both_backends!(
    after_a_crash_the_naive_server_keeps_the_order_and_its_retry_orders_again,
    after_a_crash_the_safe_server_keeps_nothing_holds_the_key_then_lets_one_retry_create_the_order,
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

async fn after_a_crash_the_safe_server_keeps_nothing_holds_the_key_then_lets_one_retry_create_the_order(
    backend: Backend,
) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();

    let crashed = server.place_and_crash(&key, 1).await;
    assert!(matches!(crashed, Attempt::NoResponse(_)), "{crashed:?}");
    assert!(
        server.orders().await.is_empty(),
        "the order and its answer were one transaction: rolled back"
    );

    let too_soon = server.place(&key).await;
    assert_eq!(
        too_soon.status(),
        409,
        "the crashed claim still holds the key: {too_soon:?}"
    );

    tokio::time::sleep(Duration::from_millis(1_300)).await;
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
        "once the lock ran out a retry took the claim over: {recovered:?}"
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
    assert_eq!(again.order(), recovered.order());
    assert_eq!(server.orders().await.len(), 1, "one order in the end");
}
