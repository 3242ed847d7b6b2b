//! A key belongs to one request: the same key with a different body.

use lab_core::OrderServer;
use lab_e2e::client::send;
use lab_e2e::{
    Attempt, Backend, new_key, on_both_backends, on_every_constraint_design_and_backend,
    spawn_server,
};
use naive_server::NaiveServer;

const TEA: &str = r#"{"item":"tea","amount_cents":300}"#;

on_every_constraint_design_and_backend!(
    a_key_reused_for_a_different_order_is_refused_with_422,
    a_different_order_is_refused_even_while_the_first_is_in_flight,
    the_same_order_with_other_spacing_and_field_order_is_still_a_replay,
);

on_both_backends!(the_naive_server_silently_replays_the_first_order_for_a_different_body);

async fn a_key_reused_for_a_different_order_is_refused_with_422<S: OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let coffee = server.place(&key).await;
    let tea = send(server.order_request(Some(&key), TEA)).await;

    assert_eq!(coffee.status(), 201);
    match &tea {
        Attempt::Answered {
            status: 422,
            content_type,
            body,
            ..
        } => {
            assert_eq!(content_type, "application/problem+json");
            assert_eq!(body["type"], "/problems/idempotency-key-reused");
        }
        other => panic!("expected 422: {other:?}"),
    }
    assert_eq!(
        server.orders().await,
        vec![coffee.order()],
        "nothing new was stored"
    );
}

async fn a_different_order_is_refused_even_while_the_first_is_in_flight<S: OrderServer>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let first = server.place_slowly_in_background(&key, 2_000).await;
    let tea = send(server.order_request(Some(&key), TEA)).await;
    let first = first.await.unwrap();

    // The key goes to whichever request claims it: the first one, unless
    // it does its slow part before claiming (the one-trip server, whose
    // claim is its only write; the transactional server on SQLite, to keep
    // the one writer free), when the quick tea gets there first.
    let slow_part_before_claim =
        S::NAME == "onetrip" || (S::NAME == "transactional" && backend == Backend::Sqlite);
    let (winner, loser) = if slow_part_before_claim {
        (&tea, &first)
    } else {
        (&first, &tea)
    };
    assert_eq!(winner.status(), 201, "{winner:?}");
    assert_eq!(
        loser.status(),
        422,
        "not 409: waiting would not help a different order: {loser:?}"
    );
    assert_eq!(server.orders().await, vec![winner.order()]);
}

async fn the_naive_server_silently_replays_the_first_order_for_a_different_body(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let key = new_key();

    let coffee = server.place(&key).await;
    let tea = send(server.order_request(Some(&key), TEA)).await;

    assert!(tea.is_replay(), "{tea:?}");
    assert_eq!(
        tea.order().item,
        "coffee",
        "the client asked for tea and was told about coffee"
    );
    assert_eq!(tea.order(), coffee.order());
}

async fn the_same_order_with_other_spacing_and_field_order_is_still_a_replay<S: OrderServer>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let first = server.place(&key).await;
    let again =
        send(server.order_request(Some(&key), r#"{ "amount_cents": 450, "item": "coffee" }"#))
            .await;

    assert!(again.is_replay(), "{again:?}");
    assert_eq!(again.order(), first.order());
}
