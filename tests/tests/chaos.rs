//! Volume under chaos, for each design that claims a key with a constraint:
//! many keys, each sent as up to 32 copies at once, every attempt with a
//! random delay, and some asking the server to drop its answer or to crash
//! right after creating the order. Every copy retries like a careful client
//! until it has its order. In the end each key has exactly one order, every
//! copy was told that very order, and no answer was a 5xx.
//!
//! The suite runs a short version; `cargo xtask test --long` runs 100,000
//! requests per design and database (`LAB_CHAOS_REQUESTS`) and prints the
//! figures that `docs/reliability.md` reports.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use lab_core::OrderServer;
use lab_e2e::client::{COFFEE, send};
use lab_e2e::seeds;
use lab_e2e::{Attempt, Backend, TestServer, new_key, spawn_server};
use lab_wire::headers::{LAB_DELAY_MS, LAB_FAULT, LAB_LOCK_TIMEOUT_SECS};
use tokio::sync::Semaphore;

lab_e2e::on_every_constraint_design_and_backend!(
    under_drops_crashes_delays_and_32_copies_every_key_has_one_order_and_no_answer_is_a_5xx,
);

/// Requests the short version sends (first attempts; retries come on top).
const SHORT_RUN: u64 = 1_500;
/// Copies in flight at once, over all keys.
const IN_FLIGHT: usize = 64;
/// Labs the keys are spread over, so no lab reaches its requests limit often.
const LABS: usize = 64;

/// A small, seedable generator (SplitMix64): a failing run can be repeated
/// with its printed seed (`LAB_CHAOS_SEED`).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What one attempt asks of the server.
#[derive(Debug, Clone, Copy)]
struct Chaos {
    delay_ms: u64,
    fault: Option<&'static str>,
}

impl Chaos {
    fn roll(dice: &mut Dice) -> Self {
        let delay_ms = if dice.below(2) == 0 {
            0
        } else {
            dice.below(20)
        };
        let fault = match dice.below(100) {
            0..7 => Some("drop-response"),
            7..10 => Some("crash-after-create"),
            _ => None,
        };
        Self { delay_ms, fault }
    }
}

/// How many copies of a key are sent at once: mostly one, sometimes a burst of up to 32.
fn copies(dice: &mut Dice) -> u64 {
    match dice.below(100) {
        0..60 => 1,
        60..85 => 2 + dice.below(5),
        _ => 7 + dice.below(26),
    }
}

/// What the whole run saw.
#[derive(Default)]
struct Tally {
    attempts: AtomicU64,
    created: AtomicU64,
    replayed: AtomicU64,
    conflicts: AtomicU64,
    refused_for_load: AtomicU64,
    unanswered: AtomicU64,
    server_errors: AtomicU64,
    other: AtomicU64,
}

impl Tally {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// One copy of `key`: sends it with fresh chaos each attempt until it gets a
/// 201, the way a careful client does (a 409 or a 429 waits a quarter
/// of what `Retry-After` says, a lost answer is retried at once). Returns the id of
/// the order it was told about, or `None` if it gave up on a 5xx or
/// another refusal.
async fn one_copy(server: TestServer, key: String, seed: u64, tally: Arc<Tally>) -> Option<String> {
    let mut dice = Dice(seed);
    loop {
        let chaos = Chaos::roll(&mut dice);
        let mut request = server
            .order_request(Some(&key), COFFEE)
            .header(LAB_DELAY_MS, chaos.delay_ms.to_string())
            // A crashed claim on the safe server blocks its retries this long.
            .header(LAB_LOCK_TIMEOUT_SECS, "1");
        if let Some(fault) = chaos.fault {
            request = request.header(LAB_FAULT, fault);
        }
        Tally::add(&tally.attempts);
        let answer = send(request).await;
        match &answer {
            Attempt::Answered {
                status: 201,
                replayed,
                body,
                ..
            } => {
                Tally::add(if *replayed {
                    &tally.replayed
                } else {
                    &tally.created
                });
                return body["id"].as_str().map(str::to_owned);
            }
            Attempt::Answered {
                status: status @ (409 | 429),
                retry_after,
                ..
            } => {
                Tally::add(if *status == 409 {
                    &tally.conflicts
                } else {
                    &tally.refused_for_load
                });
                let wait = retry_after
                    .as_deref()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(1);
                // A client's back-off, not a test's guess: it only spaces the retries.
                tokio::time::sleep(Duration::from_millis(wait * 250)).await;
            }
            Attempt::Answered { status, .. } if *status >= 500 => {
                Tally::add(&tally.server_errors);
                eprintln!("a 5xx for {key}: {answer:?}");
                return None;
            }
            Attempt::Answered { .. } => {
                Tally::add(&tally.other);
                eprintln!("an unexpected answer for {key}: {answer:?}");
                return None;
            }
            Attempt::NoResponse(_) => Tally::add(&tally.unanswered),
        }
    }
}

async fn under_drops_crashes_delays_and_32_copies_every_key_has_one_order_and_no_answer_is_a_5xx<
    S: OrderServer,
>(
    backend: Backend,
) {
    lab_e2e::raise_open_files_limit();
    let budget = std::env::var("LAB_CHAOS_REQUESTS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(SHORT_RUN);
    let seed = seeds::seed(seeds::CHAOS_SEED_VARIABLE, seeds::FIXED_CHAOS_SEED);
    let first = spawn_server::<S>(backend).await;
    let labs: Vec<TestServer> = (0..LABS).map(|_| first.in_new_lab()).collect();
    let mut dice = Dice(seed);
    let tally = Arc::new(Tally::default());
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));

    let started = Instant::now();
    let mut keys = Vec::new();
    let mut groups = Vec::new();
    let mut planned = 0;
    while planned < budget {
        let copies = copies(&mut dice).min(budget - planned);
        planned += copies;
        let (key, lab) = (new_key(), labs[keys.len() % LABS].clone());
        keys.push((key.clone(), lab.clone()));
        // All copies of a key start together, or the burst is no burst.
        let permits = in_flight
            .clone()
            .acquire_many_owned(copies as u32)
            .await
            .expect("the semaphore stays open");
        let sends: Vec<_> = (0..copies)
            .map(|_| one_copy(lab.clone(), key.clone(), dice.next(), tally.clone()))
            .collect();
        groups.push(tokio::spawn(async move {
            let told = futures::future::join_all(sends).await;
            drop(permits);
            (key, told)
        }));
    }
    let mut told: HashMap<String, Vec<Option<String>>> = HashMap::new();
    for group in groups {
        let (key, ids) = group.await.expect("a key's copies ran");
        told.insert(key, ids);
    }
    let took = started.elapsed();

    let mut stored: HashMap<String, Vec<String>> = HashMap::new();
    for lab in &labs {
        for order in lab.orders().await {
            stored
                .entry(order.idempotency_key.clone())
                .or_default()
                .push(order.id.to_string());
        }
    }
    let orders: usize = stored.values().map(Vec::len).sum();
    let duplicates = orders - stored.len();
    let lost = keys
        .iter()
        .filter(|(key, _)| {
            let ids = &told[key];
            let kept = stored.get(key).filter(|kept| kept.len() == 1);
            ids.iter()
                .any(|id| id.as_deref() != kept.map(|kept| kept[0].as_str()))
        })
        .count();
    let count = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
    let attempts = count(&tally.attempts);
    println!(
        "chaos {} on {backend:?} (seed {seed}): {planned} requests sent as {} keys, {attempts} attempts with retries, \
         in {:.1} s ({:.0} attempts/s); {} created, {} replayed, {} answered 409, {} refused for load, \
         {} answers dropped or crashed; {orders} orders, {duplicates} duplicates, {lost} keys whose copies \
         were not all told the one stored order, {} 5xx, {} other refusals",
        S::NAME,
        keys.len(),
        took.as_secs_f64(),
        attempts as f64 / took.as_secs_f64().max(1e-9),
        count(&tally.created),
        count(&tally.replayed),
        count(&tally.conflicts),
        count(&tally.refused_for_load),
        count(&tally.unanswered),
        count(&tally.server_errors),
        count(&tally.other),
    );
    assert_eq!(
        count(&tally.server_errors),
        0,
        "no answer is a 5xx (seed {seed})"
    );
    assert_eq!(count(&tally.other), 0, "no other refusal (seed {seed})");
    assert_eq!(
        stored.len(),
        keys.len(),
        "every key has its order (seed {seed})"
    );
    assert_eq!(duplicates, 0, "no key has two orders (seed {seed})");
    assert_eq!(
        lost, 0,
        "every copy was told the order that was kept (seed {seed})"
    );
}
