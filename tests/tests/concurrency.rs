//! The race: many requests with one key at once, on every design. The
//! naive check-then-insert keeps several orders (asserted: it is the
//! lesson); every other design keeps one, each in its own way.

use futures::future::join_all;
use lab_e2e::{
    Attempt, Backend, CopiesAtOnce, Promises, TestServer, new_key, on_both_backends,
    on_every_design_and_backend, spawn_server,
};
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

const COPIES: usize = 8;
const TRIALS: usize = 10;
const RACE_WINDOW_MS: u64 = 200;

on_every_design_and_backend!(copies_of_one_request_sent_at_once_leave_what_the_design_promises);
on_both_backends!(
    a_duplicate_during_the_first_request_gets_409_then_the_replay_on_the_safe_server,
    a_duplicate_during_the_first_request_waits_and_gets_the_replay_on_the_transactional_server,
);

/// Sends `COPIES` requests with one new key at once; returns what each got.
async fn send_copies_at_once(server: &TestServer, key: &str) -> Vec<Attempt> {
    join_all((0..COPIES).map(|_| server.place_slowly(key, RACE_WINDOW_MS))).await
}

async fn copies_of_one_request_sent_at_once_leave_what_the_design_promises<S: Promises>(
    backend: Backend,
) {
    let server = spawn_server::<S>(backend).await;
    let mut orders_per_trial = Vec::new();
    for trial in 0..TRIALS {
        let key = new_key();
        let attempts = send_copies_at_once(&server, &key).await;
        let orders: Vec<_> = server
            .orders()
            .await
            .into_iter()
            .filter(|order| order.idempotency_key == key)
            .collect();
        orders_per_trial.push(orders.len());
        let made = attempts.iter().filter(|attempt| attempt.is_new_order());
        match S::COPIES_AT_ONCE {
            CopiesAtOnce::Duplicates => {
                assert_eq!(made.count(), orders.len(), "trial {trial}: {attempts:?}");
                continue;
            }
            CopiesAtOnce::OneOrderOthersWait => assert_eq!(
                made.count(),
                1,
                "trial {trial}: one creation, the rest wait and replay: {attempts:?}"
            ),
            CopiesAtOnce::OneOrderOthersRetry => assert_eq!(
                made.count(),
                1,
                "trial {trial}: one creation, the rest told 409 or replayed: {attempts:?}"
            ),
        }
        assert_eq!(orders.len(), 1, "trial {trial}: exactly one order per key");
        let waited = S::COPIES_AT_ONCE == CopiesAtOnce::OneOrderOthersWait;
        for attempt in &attempts {
            match attempt.status() {
                201 => assert_eq!(attempt.order(), orders[0], "trial {trial}: the same order"),
                409 if !waited => {}
                _ => panic!("trial {trial}: unexpected answer {attempt:?}"),
            }
        }
    }
    if S::COPIES_AT_ONCE == CopiesAtOnce::Duplicates {
        let raced = orders_per_trial
            .iter()
            .filter(|&&orders| orders > 1)
            .count();
        assert!(
            raced >= TRIALS - 1,
            "{}: the check-then-insert should race in at least {} of {TRIALS} trials; orders per trial: {orders_per_trial:?}",
            S::NAME,
            TRIALS - 1
        );
    }
}

async fn a_duplicate_during_the_first_request_gets_409_then_the_replay_on_the_safe_server(
    backend: Backend,
) {
    let server = spawn_server::<SafeServer>(backend).await;
    let key = new_key();

    let first = server.place_slowly_in_background(&key, 3_000).await;
    let early = server.place(&key).await;
    assert_eq!(early.status(), 409, "{early:?}");
    match &early {
        Attempt::Answered {
            content_type,
            retry_after,
            ..
        } => {
            assert_eq!(content_type, "application/problem+json");
            assert_eq!(retry_after.as_deref(), Some("1"));
        }
        Attempt::NoResponse(error) => panic!("{error}"),
    }

    let first = first.await.expect("the first request finishes");
    let late = server.place(&key).await;
    assert!(late.is_replay(), "{late:?}");
    assert_eq!(late.order(), first.order());
    assert_eq!(server.orders().await.len(), 1);
}

async fn a_duplicate_during_the_first_request_waits_and_gets_the_replay_on_the_transactional_server(
    backend: Backend,
) {
    let server = spawn_server::<TransactionalServer>(backend).await;
    let key = new_key();

    let first = server.place_slowly_in_background(&key, 1_500).await;
    let duplicate = server.place(&key).await;
    let first = first.await.expect("the first request finishes");

    // On PostgreSQL the first request claims the key inside its transaction
    // and the duplicate's insert waits for it. On SQLite the slow part runs
    // before the transaction (to keep the one writer free), so the quick
    // duplicate commits first and the slow request replays its answer.
    let (created, replay) = if backend == Backend::Postgres {
        (&first, &duplicate)
    } else {
        (&duplicate, &first)
    };
    assert!(created.is_new_order(), "{created:?}");
    assert!(
        replay.is_replay(),
        "the later one waited for the database and replayed the answer: {replay:?}"
    );
    assert_eq!(replay.order(), created.order());
    assert_eq!(server.orders().await.len(), 1);
}
