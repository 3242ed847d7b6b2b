//! `GET /steps`: every server reports each request's steps as it takes
//! them, so the interleaving of a race can be seen, not described.

use futures::future::join;
use lab_core::OrderServer;
use lab_e2e::{Backend, new_key, on_both_backends, spawn_server};
use lab_wire::{KeyFound, Step, StepKind};
use naive_server::NaiveServer;
use transactional_server::TransactionalServer;

on_both_backends!(
    the_naive_servers_steps_show_two_lookups_before_the_first_insert,
    the_transactional_servers_steps_show_one_claim_and_one_conflict,
);

/// Two copies of one key, each pausing 300 ms in the race window; every
/// step of both, up to both answers.
async fn race<S: OrderServer>(backend: Backend) -> Vec<Step> {
    let server = spawn_server::<S>(backend).await;
    let mut stream = server.steps().await;
    let key = new_key();
    join(
        server.place_slowly(&key, 300),
        server.place_slowly(&key, 300),
    )
    .await;
    stream
        .until_count(2, |step| matches!(step.kind, StepKind::Answered { .. }))
        .await
}

async fn the_naive_servers_steps_show_two_lookups_before_the_first_insert(backend: Backend) {
    let steps = race::<NaiveServer>(backend).await;
    let first_insert = steps
        .iter()
        .position(|s| s.kind == StepKind::OrderInserted)
        .expect("an order was inserted");
    let lookups_before: Vec<u64> = steps[..first_insert]
        .iter()
        .filter(|s| {
            s.kind
                == StepKind::KeyLookedUp {
                    found: KeyFound::Nothing,
                }
        })
        .map(|s| s.request)
        .collect();
    assert_eq!(lookups_before.len(), 2, "{steps:#?}");
    assert_ne!(
        lookups_before[0], lookups_before[1],
        "two different requests"
    );
    let inserts = steps
        .iter()
        .filter(|s| s.kind == StepKind::OrderInserted)
        .count();
    assert_eq!(inserts, 2, "both went on to insert: {steps:#?}");
    assert!(steps.windows(2).all(|pair| pair[0].seq < pair[1].seq));
}

async fn the_transactional_servers_steps_show_one_claim_and_one_conflict(backend: Backend) {
    let steps = race::<TransactionalServer>(backend).await;
    let count = |kind: StepKind| steps.iter().filter(|s| s.kind == kind).count();
    assert_eq!(count(StepKind::KeyClaimed), 1, "{steps:#?}");
    assert_eq!(count(StepKind::KeyConflict), 1, "{steps:#?}");
    assert_eq!(count(StepKind::OrderInserted), 1, "{steps:#?}");
    assert_eq!(count(StepKind::Committed), 1, "{steps:#?}");
    assert_eq!(
        count(StepKind::Answered {
            status: 201,
            replayed: true
        }),
        1,
        "the loser replayed the winner's answer: {steps:#?}"
    );
}
