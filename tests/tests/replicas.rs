//! More than one server process (`--replicas`), on PostgreSQL, where
//! several processes over one database is how a service really runs: the
//! locked server's in-process lock stops duplicates with one replica and
//! not with three, while the UNIQUE constraint (safe, transactional) holds
//! on any number. Each trial sends three copies of one key at once, each
//! pausing 300 ms in its race window.

use futures::future::join_all;
use lab_e2e::Backend;
use lab_e2e::client::spawn_lab_with_replicas;
use lab_wire::headers::{IDEMPOTENCY_KEY, LAB_DELAY_MS, LAB_REPLICA, LAB_SECRET};
use serde_json::Value;

const TRIALS: usize = 10;

/// Orders left by each trial on `server`, and the replicas that answered.
async fn trials(base: &str, server: &str) -> (Vec<usize>, Vec<String>) {
    let http = reqwest::Client::new();
    let secret = format!("replicas-{}", uuid::Uuid::new_v4().simple());
    let url = format!("{base}/api/{server}/orders");
    let mut orders = Vec::new();
    let mut replicas = Vec::new();
    for _ in 0..TRIALS {
        let key = uuid::Uuid::new_v4().to_string();
        let copies = (0..3).map(|_| {
            http.post(&url)
                .header(LAB_SECRET, &secret)
                .header(IDEMPOTENCY_KEY, &key)
                .header(LAB_DELAY_MS, "300")
                .json(&serde_json::json!({"item": "coffee", "amount_cents": 450}))
                .send()
        });
        for answer in join_all(copies).await {
            let answer = answer.expect("an answer");
            assert!(!answer.status().is_server_error(), "{}", answer.status());
            if let Some(replica) = answer.headers().get(LAB_REPLICA) {
                replicas.push(replica.to_str().unwrap().to_owned());
            }
        }
        let all: Vec<Value> = http
            .get(&url)
            .header(LAB_SECRET, &secret)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        orders.push(
            all.iter()
                .filter(|order| order["idempotency_key"] == key)
                .count(),
        );
    }
    (orders, replicas)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_lock_holds_on_one_replica_and_fails_on_three_while_the_constraint_holds() {
    let database = Backend::Postgres.database_url().await;
    let one = spawn_lab_with_replicas(database.clone(), 1).await;
    let three = spawn_lab_with_replicas(database, 3).await;

    let (alone, answered_by) = trials(&one, "locked").await;
    assert_eq!(
        alone,
        vec![1; TRIALS],
        "one process: the lock makes the copies take turns"
    );
    assert!(
        answered_by.is_empty(),
        "one replica names none: {answered_by:?}"
    );

    let (spread, answered_by) = trials(&three, "locked").await;
    let with_duplicates = spread.iter().filter(|n| **n > 1).count();
    assert!(
        with_duplicates >= 9,
        "three processes, three locks: duplicates in {with_duplicates} of {TRIALS} trials ({spread:?})"
    );
    let mut names = answered_by.clone();
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        ["1", "2", "3"],
        "requests go to each replica in turn"
    );

    for server in ["safe", "transactional"] {
        let (kept, _) = trials(&three, server).await;
        assert_eq!(
            kept,
            vec![1; TRIALS],
            "{server}: one order per key on three replicas"
        );
    }
}
