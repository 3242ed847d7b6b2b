//! The race: many requests with one key at once. Only the database's
//! UNIQUE constraint closes it, so here the two servers must differ.

use futures::future::join_all;
use lab_e2e::{Attempt, Backend, TestServer, new_key, on_both_backends, spawn_server};
use naive_server::NaiveServer;
use safe_server::SafeServer;
use transactional_server::TransactionalServer;

const COPIES: usize = 8;
const TRIALS: usize = 10;
const RACE_WINDOW_MS: u64 = 200;

on_both_backends!(
    concurrent_requests_with_one_key_create_duplicates_on_the_naive_server,
    concurrent_requests_with_one_key_create_one_order_on_the_safe_server,
    a_duplicate_during_the_first_request_gets_409_then_the_replay_on_the_safe_server,
    concurrent_requests_with_one_key_create_one_order_on_the_transactional_server,
    a_duplicate_during_the_first_request_waits_and_gets_the_replay_on_the_transactional_server,
);

/// Sends `COPIES` requests with one new key at once; returns what each got.
async fn send_copies_at_once(server: &TestServer, key: &str) -> Vec<Attempt> {
    join_all((0..COPIES).map(|_| server.place_slowly(key, RACE_WINDOW_MS))).await
}

async fn concurrent_requests_with_one_key_create_duplicates_on_the_naive_server(backend: Backend) {
    let server = spawn_server::<NaiveServer>(backend).await;
    let mut trials_with_duplicates = 0;
    let mut counts = Vec::new();
    for _ in 0..TRIALS {
        let key = new_key();
        send_copies_at_once(&server, &key).await;
        let orders_for_key = server
            .orders()
            .await
            .iter()
            .filter(|order| order.idempotency_key == key)
            .count();
        counts.push(orders_for_key);
        if orders_for_key > 1 {
            trials_with_duplicates += 1;
        }
    }
    assert!(
        trials_with_duplicates >= 9,
        "the naive check-then-insert should race in at least 9 of {TRIALS} trials; orders per trial: {counts:?}"
    );
}

async fn concurrent_requests_with_one_key_create_one_order_on_the_safe_server(backend: Backend) {
    let server = spawn_server::<SafeServer>(backend).await;
    for trial in 0..TRIALS {
        let key = new_key();
        let attempts = send_copies_at_once(&server, &key).await;

        let orders: Vec<_> = server
            .orders()
            .await
            .into_iter()
            .filter(|order| order.idempotency_key == key)
            .collect();
        assert_eq!(orders.len(), 1, "trial {trial}: exactly one order per key");
        for attempt in &attempts {
            match attempt.status() {
                201 => assert_eq!(
                    attempt.order(),
                    orders[0],
                    "trial {trial}: every 201 is the same order"
                ),
                409 => {}
                other => panic!("trial {trial}: unexpected status {other}: {attempt:?}"),
            }
        }
        assert!(
            attempts.iter().any(|attempt| attempt.status() == 201),
            "trial {trial}: someone won"
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
    assert!(
        matches!(
            late,
            Attempt::Answered {
                status: 201,
                replayed: true,
                ..
            }
        ),
        "{late:?}"
    );
    assert_eq!(late.order(), first.order());
    assert_eq!(server.orders().await.len(), 1);
}

async fn concurrent_requests_with_one_key_create_one_order_on_the_transactional_server(
    backend: Backend,
) {
    let server = spawn_server::<TransactionalServer>(backend).await;
    for trial in 0..TRIALS {
        let key = new_key();
        let attempts = send_copies_at_once(&server, &key).await;

        let orders: Vec<_> = server
            .orders()
            .await
            .into_iter()
            .filter(|order| order.idempotency_key == key)
            .collect();
        assert_eq!(orders.len(), 1, "trial {trial}: exactly one order per key");
        // A latecomer cannot see an uncommitted claim, so it is never told
        // 409: the database makes it wait, then it replays the answer.
        let fresh = attempts
            .iter()
            .filter(|attempt| {
                matches!(
                    attempt,
                    Attempt::Answered {
                        replayed: false,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(
            fresh, 1,
            "trial {trial}: one creation, the rest replays: {attempts:?}"
        );
        for attempt in &attempts {
            assert_eq!(
                attempt.order(),
                orders[0],
                "trial {trial}: every 201 is the same order"
            );
        }
    }
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
    assert!(
        matches!(
            created,
            Attempt::Answered {
                status: 201,
                replayed: false,
                ..
            }
        ),
        "{created:?}"
    );
    assert!(
        matches!(
            replay,
            Attempt::Answered {
                status: 201,
                replayed: true,
                ..
            }
        ),
        "the later one waited for the database and replayed the answer: {replay:?}"
    );
    assert_eq!(replay.order(), created.order());
    assert_eq!(server.orders().await.len(), 1);
}
