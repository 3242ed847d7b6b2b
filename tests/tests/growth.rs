//! Nothing a shared server stores grows without bound: a lab may hold only
//! so many orders on a server (a clear 409 past it), the orders and keys of
//! a lab idle for a week are forgotten, and a claim whose request never
//! answered is cleaned once its lock and its retention are both past.
//!
//! The PostgreSQL database is shared by every test running at once, so no
//! test here moves the cleanup's clock: a test makes its own rows old
//! (as a week of idleness would) and the cleanup runs at the real time.

use chrono::{Duration, Utc};
use lab_core::OrderServer;
use lab_core::cleanup::{delete_expired_keys, forget_idle_labs};
use lab_core::{Db, with_pool, with_reader};
use lab_e2e::client::{send, spawn_server_over, spawn_server_with_db};
use lab_e2e::{Attempt, Backend, TestServer, new_key, on_every_design_and_backend};
use safe_server::SafeServer;

on_every_design_and_backend!(
    a_lab_past_its_orders_limit_is_refused_until_it_is_cleared,
    an_idle_labs_orders_and_keys_are_forgotten_and_an_active_labs_are_kept,
);

lab_e2e::on_both_backends!(
    an_unanswered_claim_is_cleaned_only_once_its_lock_and_retention_are_past,
);

/// Runs `sql` (`$1` a time, `$2` the lab) against `db`.
async fn execute(db: &Db, sql: String, at: chrono::DateTime<Utc>, lab: &str) {
    with_pool!(db, |pool| sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
        .bind(at)
        .bind(lab)
        .execute(pool)
        .await
        .map(|_| ())
        .expect("the test's SQL runs"));
}

/// Makes every order and key of `server`'s lab on `S` look as old as `at`.
async fn age_lab<S: OrderServer>(db: &Db, server: &TestServer, at: chrono::DateTime<Utc>) {
    let keys = S::STORAGE.expired_keys.table;
    let orders = format!(
        "UPDATE lab_orders SET created_at = $1 WHERE lab_id = $2 AND server = '{}'",
        S::NAME
    );
    execute(db, orders, at, &server.lab).await;
    let keys = format!("UPDATE {keys} SET created_at = $1 WHERE lab_id = $2");
    execute(db, keys, at, &server.lab).await;
}

/// How many rows `S`'s key table holds for `server`'s lab.
async fn key_rows<S: OrderServer>(db: &Db, server: &TestServer) -> i64 {
    let count = format!(
        "SELECT COUNT(*) FROM {} WHERE lab_id = $1",
        S::STORAGE.expired_keys.table
    );
    with_reader!(db, |pool| sqlx::query_scalar(sqlx::AssertSqlSafe(
        count.clone()
    ))
    .bind(&server.lab)
    .fetch_one(pool)
    .await
    .expect("count the key rows"))
}

async fn a_lab_past_its_orders_limit_is_refused_until_it_is_cleared<S: OrderServer>(
    backend: Backend,
) {
    let db = backend.connect().await.with_orders_per_lab(3);
    let server = spawn_server_over::<S>(db).await;
    let first = new_key();
    server.place(&first).await.order();
    server.place(&new_key()).await.order();
    server.place(&new_key()).await.order();

    let full_key = new_key();
    let refused = server.place(&full_key).await;
    let Attempt::Answered {
        status,
        content_type,
        body,
        retry_after,
        ..
    } = &refused
    else {
        panic!("no answer: {refused:?}")
    };
    assert_eq!(*status, 409, "{body}");
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(body["type"], "/problems/lab-orders-limit");
    assert!(
        body["detail"].as_str().unwrap().contains('3'),
        "says the limit: {body}"
    );
    assert!(
        retry_after.is_none(),
        "waiting does not help; clearing does"
    );
    assert_eq!(
        server.orders().await.len(),
        3,
        "nothing past the limit was stored"
    );

    let replay = server.place(&first).await;
    assert!(
        replay.is_order(),
        "a retry of a stored order is still answered: {replay:?}"
    );
    let elsewhere = server.in_new_lab();
    elsewhere.place(&new_key()).await.order();

    assert_eq!(server.delete_orders().await, 204);
    let after = server.place(&full_key).await;
    assert!(
        after.is_new_order(),
        "the refused key was not used up: {after:?}"
    );
}

async fn an_idle_labs_orders_and_keys_are_forgotten_and_an_active_labs_are_kept<S: OrderServer>(
    backend: Backend,
) {
    let (idle, db) = spawn_server_with_db::<S>(backend).await;
    let active = idle.in_new_lab();
    let idle_key = new_key();
    idle.place(&idle_key).await.order();
    idle.place(&new_key()).await.order();
    active.place(&new_key()).await.order();
    let eight_days_ago = Utc::now() - Duration::days(8);
    age_lab::<S>(&db, &idle, eight_days_ago).await;
    // An active lab's old orders stay with it: it is the lab that is idle or not.
    age_lab::<S>(&db, &active, eight_days_ago).await;
    active.place(&new_key()).await.order();

    let forgotten = forget_idle_labs(&db, S::STORAGE, Utc::now() - Duration::days(7))
        .await
        .expect("the cleanup runs");

    assert!(forgotten.orders >= 2, "{forgotten:?}");
    assert!(
        idle.orders().await.is_empty(),
        "the idle lab's orders are gone"
    );
    assert_eq!(key_rows::<S>(&db, &idle).await, 0, "and its keys");
    assert_eq!(
        active.orders().await.len(),
        2,
        "the active lab keeps all its orders"
    );
    assert_eq!(key_rows::<S>(&db, &active).await, 2, "and its keys");
    let again = idle.place(&idle_key).await;
    assert!(
        again.is_new_order(),
        "a forgotten key is a new key: {again:?}"
    );
}

async fn an_unanswered_claim_is_cleaned_only_once_its_lock_and_retention_are_past(
    backend: Backend,
) {
    let (server, db) = spawn_server_with_db::<SafeServer>(backend).await;
    let [locked, unretained, abandoned] = [new_key(), new_key(), new_key()];
    for key in [&locked, &unretained, &abandoned] {
        let crashed = send(
            server
                .order_request(Some(key), lab_e2e::client::COFFEE)
                .header("lab-fault", "crash-after-create"),
        )
        .await;
        assert!(crashed.is_unanswered(), "{crashed:?}");
    }
    let (past, future) = (
        Utc::now() - Duration::hours(1),
        Utc::now() + Duration::hours(1),
    );
    // Each claim's lock and retention, set as the time they run out would.
    for (key, locked_until, expires_at) in [
        (&locked, future, past),
        (&unretained, past, future),
        (&abandoned, past, past),
    ] {
        with_pool!(&db, |pool| sqlx::query(
            "UPDATE safe_idempotency_keys SET locked_until = $1, expires_at = $2 \
             WHERE lab_id = $3 AND idempotency_key = $4"
        )
        .bind(locked_until)
        .bind(expires_at)
        .bind(&server.lab)
        .bind(key.as_str())
        .execute(pool)
        .await
        .map(|_| ())
        .expect("set the claim's times"));
    }

    delete_expired_keys(&db, SafeServer::STORAGE.expired_keys)
        .await
        .expect("the cleanup runs");

    assert_eq!(
        key_rows::<SafeServer>(&db, &server).await,
        2,
        "only the abandoned claim went"
    );
    let blocked = server.place(&locked).await;
    assert_eq!(
        blocked.status(),
        409,
        "a locked claim still holds its key: {blocked:?}"
    );
    let recovered = server.place(&unretained).await;
    assert!(
        recovered.is_replay(),
        "a claim past its lock is taken over, and its order recovered: {recovered:?}"
    );
    assert_eq!(
        server.orders().await.len(),
        3,
        "cleaning keys never touches orders"
    );
}
