//! A `POST /orders` with no `Idempotency-Key`: refused unless the request
//! asks for a plain POST (`Lab-Missing-Key: create`), and then made on
//! every design alike — each call an order, a retry a second one — because
//! without a key no server can tell a repeat from a new purchase.

use lab_core::OrderServer;
use lab_e2e::client::{COFFEE, send};
use lab_e2e::{Attempt, Backend, on_every_design_and_backend, spawn_server};
use lab_wire::StepKind;
use lab_wire::headers::{LAB_FAULT, LAB_MISSING_KEY};

on_every_design_and_backend!(
    a_post_without_a_key_is_refused_by_default_and_nothing_is_stored,
    five_plain_posts_without_a_key_make_five_orders,
    a_plain_post_whose_answer_was_lost_is_made_again_by_its_retry,
);

async fn a_post_without_a_key_is_refused_by_default_and_nothing_is_stored<S: OrderServer>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    for refused in [
        server.order_request(None, COFFEE),
        server
            .order_request(None, COFFEE)
            .header(LAB_MISSING_KEY, "refuse"),
    ] {
        let answer = send(refused).await;
        assert_eq!(answer.status(), 400, "{answer:?}");
        let Attempt::Answered { body, .. } = &answer else {
            panic!("no answer: {answer:?}");
        };
        assert_eq!(
            body["type"], "/problems/missing-idempotency-key",
            "{answer:?}"
        );
    }
    assert!(server.orders().await.is_empty());
}

async fn five_plain_posts_without_a_key_make_five_orders<S: OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    let mut steps = server.steps().await;
    let mut made = Vec::new();
    for _ in 0..5 {
        let answer = send(
            server
                .order_request(None, COFFEE)
                .header(LAB_MISSING_KEY, "create"),
        )
        .await;
        assert_eq!(answer.status(), 201, "{answer:?}");
        assert!(
            matches!(
                answer,
                Attempt::Answered {
                    replayed: false,
                    ..
                }
            ),
            "{answer:?}"
        );
        made.push(answer.order().id);
    }
    let orders = server.orders().await;
    assert_eq!(orders.len(), 5, "{orders:#?}");
    assert_eq!(orders.iter().map(|o| o.id).collect::<Vec<_>>(), made);
    assert!(orders.iter().all(|o| o.idempotency_key.is_empty()));

    // Nothing was looked up or claimed: each request inserted and answered.
    let taken = steps
        .until_count(5, |step| matches!(step.kind, StepKind::Answered { .. }))
        .await;
    let kinds: Vec<StepKind> = taken.iter().map(|step| step.kind).collect();
    assert_eq!(
        kinds,
        [StepKind::OrderInserted, answered_201()].repeat(5),
        "{taken:#?}"
    );
    assert!(taken.iter().all(|step| step.key.is_empty()));
}

async fn a_plain_post_whose_answer_was_lost_is_made_again_by_its_retry<S: OrderServer>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let lost = send(
        server
            .order_request(None, COFFEE)
            .header(LAB_MISSING_KEY, "create")
            .header(LAB_FAULT, "drop-response"),
    )
    .await;
    assert!(lost.is_unanswered(), "{lost:?}");
    let retry = send(
        server
            .order_request(None, COFFEE)
            .header(LAB_MISSING_KEY, "create"),
    )
    .await;
    assert_eq!(retry.status(), 201, "{retry:?}");
    // The customer asked once and paid twice.
    assert_eq!(server.orders().await.len(), 2);
}

fn answered_201() -> StepKind {
    StepKind::Answered {
        status: 201,
        replayed: false,
    }
}
