//! Retries, dropped responses and disconnects: what both servers must get
//! right when requests come one after another.

use lab_core::OrderServer;
use lab_e2e::client::COFFEE;
use lab_e2e::{Attempt, Backend, new_key, on_every_design_and_backend, spawn_server};
use lab_wire::StepKind;
use lab_wire::headers::LAB_DELAY_MS;

on_every_design_and_backend!(
    a_sequential_retry_with_the_same_key_replays_the_same_order,
    a_dropped_response_is_committed_and_the_retry_with_the_same_key_returns_it,
    a_dropped_response_retried_with_a_new_key_leaves_two_orders,
    a_client_that_disconnects_during_the_delay_still_gets_its_order_committed,
    the_quoted_form_of_a_key_is_the_same_key,
    labs_are_isolated_from_each_other,
);

async fn a_sequential_retry_with_the_same_key_replays_the_same_order<S: OrderServer>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let first = server.place(&key).await;
    let retry = server.place(&key).await;

    assert!(first.is_new_order(), "{first:?}");
    assert!(retry.is_replay(), "{retry:?}");
    assert_eq!(retry.order(), first.order());
    let orders = server.orders().await;
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].idempotency_key, key);
}

async fn a_dropped_response_is_committed_and_the_retry_with_the_same_key_returns_it<
    S: OrderServer,
>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let lost = server.place_and_drop_response(&key).await;
    assert!(
        lost.is_unanswered(),
        "the response should be lost: {lost:?}"
    );
    let stored = server.orders().await;
    assert_eq!(
        stored.len(),
        1,
        "the order was committed before the server hung up"
    );

    let retry = server.place(&key).await;
    assert_eq!(retry.status(), 201);
    assert_eq!(
        retry.order(),
        stored[0],
        "the retry returns the order created by the lost attempt"
    );
    assert_eq!(server.orders().await.len(), 1);
}

async fn a_dropped_response_retried_with_a_new_key_leaves_two_orders<S: OrderServer>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;

    let lost = server.place_and_drop_response(&new_key()).await;
    assert!(lost.is_unanswered(), "{lost:?}");
    let retry = server.place(&new_key()).await;

    assert_eq!(retry.status(), 201);
    assert_eq!(
        server.orders().await.len(),
        2,
        "a key made per attempt cannot recognise the retry"
    );
}

async fn a_client_that_disconnects_during_the_delay_still_gets_its_order_committed<
    S: OrderServer,
>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let mut steps = server.steps().await;
    let key = new_key();

    let request = server
        .order_request(Some(&key), COFFEE)
        .header(LAB_DELAY_MS, "600");
    lab_e2e::client::hang_up_during_the_pause(request, &key, &mut steps).await;

    // Wait for the abandoned request to end on the server. Its order exists
    // before its answer is saved; on the naive server a retry in between
    // would find no answer and (rightly) order again: a race, not this test.
    let taken = steps.until(|step| step.kind.is_last()).await;
    assert_eq!(
        taken.last().map(|step| step.kind),
        Some(StepKind::Answered {
            status: 201,
            replayed: false
        }),
        "the abandoned request ran to its end: {taken:#?}"
    );
    let orders = server.orders().await;
    assert_eq!(
        orders.len(),
        1,
        "the server finishes the work of a client that hung up"
    );
    assert_eq!(orders[0].idempotency_key, key);
    let retry = server.place(&key).await;
    assert_eq!(retry.order(), orders[0]);
}

async fn the_quoted_form_of_a_key_is_the_same_key<S: OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let bare = server.place(&key).await;
    let quoted = server.place(&format!("\"{key}\"")).await;

    assert_eq!(quoted.order(), bare.order());
    assert_eq!(server.orders().await.len(), 1);
}

async fn labs_are_isolated_from_each_other<S: OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    let alice = server.in_new_lab();
    let bob = server.in_new_lab();
    let key = new_key();

    let alices = alice.place(&key).await;
    let bobs = bob.place(&key).await;

    assert!(
        bobs.is_new_order(),
        "a key used in another lab must not replay: {bobs:?}"
    );
    assert_ne!(alices.order().id, bobs.order().id);
    assert_eq!(alice.orders().await, vec![alices.order()]);
    assert_eq!(bob.orders().await, vec![bobs.order()]);

    assert_eq!(bob.delete_orders().await, 204);
    assert!(bob.orders().await.is_empty());
    assert_eq!(
        alice.orders().await,
        vec![alices.order()],
        "deleting Bob's lab leaves Alice's alone"
    );
    let bob_again = bob.place(&key).await;
    assert!(
        bob_again.is_new_order(),
        "after a reset the key is forgotten too: {bob_again:?}"
    );
}

/// Order creation fails (its table is renamed away, on a private SQLite
/// file) after the key was claimed: the claim must not outlive the failure.
/// The safe server deletes it; the transactional server's rolls back.
async fn a_failed_order_leaves_no_claim_behind_so_the_retry_succeeds<S: lab_core::OrderServer>(
    orders_table: &str,
) {
    let (server, db) = lab_e2e::client::spawn_server_with_db::<S>(Backend::Sqlite).await;
    let lab_core::Db::Sqlite { writer: pool, .. } = &db else {
        unreachable!("asked for SQLite")
    };
    let key = new_key();
    let rename = |from: &str, to: &str| format!("ALTER TABLE {from} RENAME TO {to}");
    let away = format!("{orders_table}_away");

    sqlx::query(sqlx::AssertSqlSafe(rename(orders_table, &away)))
        .execute(pool)
        .await
        .unwrap();
    let failed = server.place(&key).await;
    match &failed {
        Attempt::Answered {
            status: 500,
            content_type,
            body,
            ..
        } => {
            assert_eq!(content_type, "application/problem+json");
            assert!(
                !body["detail"]
                    .as_str()
                    .unwrap_or_default()
                    .contains(orders_table),
                "internals stay hidden: {body}"
            );
        }
        other => panic!("expected a 500 problem: {other:?}"),
    }
    sqlx::query(sqlx::AssertSqlSafe(rename(&away, orders_table)))
        .execute(pool)
        .await
        .unwrap();

    let retry = server.place(&key).await;
    assert!(retry.is_new_order(), "{retry:?}");
    assert_eq!(server.orders().await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_order_releases_its_key_on_the_safe_server_so_the_retry_succeeds() {
    a_failed_order_leaves_no_claim_behind_so_the_retry_succeeds::<safe_server::SafeServer>(
        "lab_orders",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_order_rolls_back_its_claim_on_the_transactional_server_so_the_retry_succeeds() {
    a_failed_order_leaves_no_claim_behind_so_the_retry_succeeds::<
        transactional_server::TransactionalServer,
    >("lab_orders")
    .await;
}
