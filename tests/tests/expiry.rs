//! Keys expire: a retry after the retention period is a new request, and the
//! cleanup job deletes expired keys — and nothing else.

use chrono::Utc;
use lab_core::OrderServer;
use lab_core::cleanup::delete_expired_keys;
use lab_e2e::client::COFFEE;
use lab_e2e::client::spawn_server_with_db;
use lab_e2e::steps::until_clock_passes;
use lab_e2e::{Backend, new_key, on_every_design_and_backend, spawn_server};
use lab_wire::headers::{IDEMPOTENCY_TTL, IDEMPOTENT_REPLAYED, LAB_KEY_RETENTION_SECS};

on_every_design_and_backend!(
    a_retry_after_the_key_expired_creates_a_second_order,
    the_cleanup_job_deletes_expired_keys_and_nothing_else,
    the_answer_that_stored_a_key_says_how_long_it_is_kept,
);

/// A second, in the microseconds of the servers' clock.
const ONE_SECOND_US: i64 = 1_000_000;

async fn a_retry_after_the_key_expired_creates_a_second_order<S: OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    let key = new_key();

    let first = server.place_kept_for(&key, 1).await;
    // The key was stored before this answer came, to expire a second later.
    let expired_by_us = Utc::now().timestamp_micros() + ONE_SECOND_US;
    let early = server.place_kept_for(&key, 1).await;
    until_clock_passes(expired_by_us).await;
    let late = server.place_kept_for(&key, 1).await;

    assert!(early.is_replay(), "{early:?}");
    assert_eq!(
        early.order(),
        first.order(),
        "within the retention the key still replays"
    );
    assert!(late.is_new_order(), "{late:?}");
    assert_ne!(late.order().id, first.order().id);
    assert_eq!(
        server.orders().await.len(),
        2,
        "after expiry the retry charged the customer again"
    );
}

async fn the_cleanup_job_deletes_expired_keys_and_nothing_else<S: OrderServer>(backend: Backend) {
    let (server, db) = spawn_server_with_db::<S>(backend).await;
    let (short_a, short_b, long) = (new_key(), new_key(), new_key());
    server.place_kept_for(&short_a, 1).await.order();
    server.place_kept_for(&short_b, 1).await.order();
    let expired_by_us = Utc::now().timestamp_micros() + ONE_SECOND_US;
    let kept = server.place(&long).await.order();
    let rows_in_lab = async || -> i64 {
        let count = format!(
            "SELECT COUNT(*) FROM {} WHERE lab_id = $1",
            S::STORAGE.expired_keys.table
        );
        lab_core::with_reader!(&db, |pool| sqlx::query_scalar(sqlx::AssertSqlSafe(
            count.clone()
        ))
        .bind(&server.lab)
        .fetch_one(pool)
        .await
        .expect("count the key rows"))
    };
    assert_eq!(rows_in_lab().await, 3);
    until_clock_passes(expired_by_us).await;

    let deleted = delete_expired_keys(&db, S::STORAGE.expired_keys)
        .await
        .expect("the cleanup runs");

    // Other tests share the PostgreSQL database, so at least ours went.
    assert!(deleted >= 2, "deleted {deleted}");
    if backend == Backend::Sqlite {
        assert_eq!(deleted, 2, "this server's file holds only this test's keys");
    }
    assert_eq!(rows_in_lab().await, 1, "only the unexpired key is left");
    assert_eq!(
        server.orders().await.len(),
        3,
        "orders are never touched by the cleanup"
    );
    let replay = server.place(&long).await;
    assert!(replay.is_replay(), "{replay:?}");
    assert_eq!(replay.order(), kept);
}

/// `Idempotency-TTL` (the header the draft's open issue #49 proposes) on
/// the answer that stored the key, never on a replay, whose key was
/// stored earlier and has less time left.
async fn the_answer_that_stored_a_key_says_how_long_it_is_kept<S: OrderServer>(backend: Backend) {
    let server = spawn_server::<S>(backend).await;
    let ttl = |response: &reqwest::Response| {
        response
            .headers()
            .get(IDEMPOTENCY_TTL)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    let key = new_key();
    let kept_for_7 = || {
        server
            .order_request(Some(&key), COFFEE)
            .header(LAB_KEY_RETENTION_SECS, "7")
    };
    let first = kept_for_7().send().await.unwrap();
    assert_eq!(first.status(), 201);
    assert_eq!(ttl(&first).as_deref(), Some("7"));
    let replay = kept_for_7().send().await.unwrap();
    assert!(replay.headers().contains_key(IDEMPOTENT_REPLAYED));
    assert_eq!(ttl(&replay), None, "a replay's key has less time left");

    let by_default = server
        .order_request(Some(&new_key()), COFFEE)
        .send()
        .await
        .unwrap();
    assert_eq!(ttl(&by_default).as_deref(), Some("86400"), "a day");
}
