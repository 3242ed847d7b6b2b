//! A property of the transactional server: whatever mix of concurrent
//! requests, delays, dropped answers and crashes hits it, it never stores
//! more than one order per key — and once a retry succeeds, exactly one.

use std::collections::BTreeSet;
use std::time::Duration;

use futures::future::join_all;
use lab_e2e::client::{COFFEE, send};
use lab_e2e::{Attempt, Backend, TestServer, spawn_server};
use lab_wire::headers::{LAB_DELAY_MS, LAB_FAULT, LAB_LOCK_TIMEOUT_SECS};
use proptest::prelude::*;
use transactional_server::TransactionalServer;

/// One request of a generated scenario.
#[derive(Debug, Clone)]
struct Planned {
    key: usize,
    start_ms: u64,
    delay_ms: u64,
    fault: Option<&'static str>,
}

fn planned() -> impl Strategy<Value = Planned> {
    let fault = prop_oneof![
        3 => Just(None),
        1 => Just(Some("drop-response")),
        1 => Just(Some("crash-after-create")),
    ];
    (0..3usize, 0..150u64, 0..120u64, fault).prop_map(|(key, start_ms, delay_ms, fault)| Planned {
        key,
        start_ms,
        delay_ms,
        fault,
    })
}

async fn send_planned(server: &TestServer, keys: &[String], plan: Planned) -> Attempt {
    tokio::time::sleep(Duration::from_millis(plan.start_ms)).await;
    let mut request = server
        .order_request(Some(&keys[plan.key]), COFFEE)
        .header(LAB_DELAY_MS, plan.delay_ms.to_string())
        // Irrelevant to this server (a crash leaves no claim), but any
        // leftover lock would free up after a second, should that change.
        .header(LAB_LOCK_TIMEOUT_SECS, "1");
    if let Some(fault) = plan.fault {
        request = request.header(LAB_FAULT, fault);
    }
    send(request).await
}

/// Retries `key` like a careful client until it gets its order (a few seconds at most).
async fn retry_until_answered(server: &TestServer, key: &str) -> Attempt {
    for _ in 0..30 {
        let attempt = server.place(key).await;
        if matches!(attempt, Attempt::Answered { status: 201, .. }) {
            return attempt;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("key {key} never got its order");
}

async fn check(backend: Backend, plans: Vec<Planned>) {
    let server = spawn_server::<TransactionalServer>(backend).await;
    let keys: Vec<String> = (0..3).map(|_| lab_e2e::new_key()).collect();

    join_all(
        plans
            .iter()
            .cloned()
            .map(|plan| send_planned(&server, &keys, plan)),
    )
    .await;
    // Requests whose client got no answer may still be finishing on the server.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let orders = server.orders().await;
    for key in &keys {
        let count = orders
            .iter()
            .filter(|order| &order.idempotency_key == key)
            .count();
        assert!(count <= 1, "{count} orders for one key after {plans:?}");
    }

    let used: BTreeSet<usize> = plans.iter().map(|plan| plan.key).collect();
    for index in used {
        let answer = retry_until_answered(&server, &keys[index]).await.order();
        let stored: Vec<_> = server
            .orders()
            .await
            .into_iter()
            .filter(|o| o.idempotency_key == keys[index])
            .collect();
        assert_eq!(
            stored,
            vec![answer],
            "exactly the one order the retry was told about, after {plans:?}"
        );
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, max_shrink_iters: 32, ..ProptestConfig::default() })]

    #[test]
    fn any_mix_of_concurrency_drops_and_crashes_leaves_at_most_one_order_per_key_on_sqlite(
        plans in proptest::collection::vec(planned(), 1..=16)
    ) {
        runtime().block_on(check(Backend::Sqlite, plans));
    }

    #[test]
    fn any_mix_of_concurrency_drops_and_crashes_leaves_at_most_one_order_per_key_on_postgres(
        plans in proptest::collection::vec(planned(), 1..=16)
    ) {
        runtime().block_on(check(Backend::Postgres, plans));
    }
}
