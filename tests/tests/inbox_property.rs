//! A property of the inbox receiver: whatever mix of duplicate, concurrent
//! and retried deliveries of a few events reaches it, each event that
//! arrived at least once made exactly one shipment. The naive receiver is
//! sent the same mix and checked against what it does instead: one
//! shipment per delivery that reached it (so the test can tell them apart).
//!
//! Deliveries are signed with the lab's secret and posted as the provider
//! would post them; a delivery whose answer is lost (`Lab-Fault:
//! drop-response`) is retried, as the provider retries, until answered.

use std::collections::BTreeMap;

use futures::future::join_all;
use lab_e2e::receiving::{Receiving, Signed, new_event};
use lab_e2e::{Attempt, Backend};
use lab_wire::webhook::{ReceiverDesign, WebhookEvent};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

/// One delivery of a generated mix.
#[derive(Debug, Clone)]
struct Delivery {
    /// Which of the mix's events.
    event: usize,
    /// Sent at the same moment as the delivery before it.
    with_previous: bool,
    /// Its first answer is lost, so it is sent again.
    answer_lost: bool,
}

fn delivery() -> impl Strategy<Value = Delivery> {
    (0..3usize, any::<bool>(), prop::bool::weighted(0.3)).prop_map(
        |(event, with_previous, answer_lost)| Delivery {
            event,
            with_previous,
            answer_lost,
        },
    )
}

/// The deliveries in batches: each batch is sent at once.
fn batches(mix: &[Delivery]) -> Vec<Vec<&Delivery>> {
    let mut batches: Vec<Vec<&Delivery>> = Vec::new();
    for delivery in mix {
        match batches.last_mut() {
            Some(batch) if delivery.with_previous => batch.push(delivery),
            _ => batches.push(vec![delivery]),
        }
    }
    batches
}

/// Sends `event` to `receiver` until an answer comes (the first time
/// losing it if asked); how many times it was sent.
async fn deliver(
    lab: &Receiving,
    key: &webhook_signature::WebhookKey,
    receiver: ReceiverDesign,
    event: &WebhookEvent,
    answer_lost: bool,
) -> Result<u64, String> {
    let body = serde_json::to_vec(event).expect("an event serialises");
    let mut sent = 0;
    loop {
        let signed = Signed {
            key,
            id: &event.id,
            timestamp: chrono::Utc::now().timestamp(),
            body: &body,
        };
        let lose = answer_lost && sent == 0;
        let attempt = lab.post_signed(receiver, signed, lose).await;
        sent += 1;
        match attempt {
            Attempt::NoResponse(_) if lose => continue,
            Attempt::Answered { status: 200, .. } => return Ok(sent),
            other => return Err(format!("{receiver:?} answered {other:?}")),
        }
    }
}

/// Sends `mix` to both receivers of a new lab of `base` and checks them.
async fn check(base: &str, mix: Vec<Delivery>) -> Result<(), String> {
    let lab = Receiving::at(base.to_owned());
    let key = lab.key().await;
    let events: Vec<WebhookEvent> = (0..3).map(|_| new_event()).collect();
    for receiver in ReceiverDesign::ALL {
        let mut sent: BTreeMap<usize, u64> = BTreeMap::new();
        for batch in batches(&mix) {
            let answers = join_all(batch.iter().map(|delivery| {
                deliver(
                    &lab,
                    &key,
                    receiver,
                    &events[delivery.event],
                    delivery.answer_lost,
                )
            }))
            .await;
            for (delivery, answer) in batch.iter().zip(answers) {
                *sent.entry(delivery.event).or_default() += answer?;
            }
        }
        for (index, event) in events.iter().enumerate() {
            let made = lab.effects_of(receiver, &event.id).await;
            let expected = match (receiver, sent.get(&index)) {
                (_, None) => 0,
                (ReceiverDesign::Inbox, Some(_)) => 1,
                (ReceiverDesign::Naive, Some(&times)) => times,
            };
            if made != expected {
                return Err(format!(
                    "{receiver:?}: event {index} sent {:?} times made {made} shipments, not {expected}",
                    sent.get(&index)
                ));
            }
        }
    }
    Ok(())
}

fn holds_on(backend: Backend) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let no_page = std::env::temp_dir().join("idempotency-lab-no-page");
    let base = runtime.block_on(lab_e2e::spawn_lab(backend, &no_page));
    let mut runner = TestRunner::new(lab_e2e::seeds::property_config(24, 16));
    let mixes = proptest::collection::vec(delivery(), 1..=10);
    let outcome = runner.run(&mixes, |mix| {
        runtime
            .block_on(check(&base, mix))
            .map_err(TestCaseError::fail)
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

#[test]
fn any_mix_of_duplicate_concurrent_and_retried_deliveries_ships_once_per_event_on_the_inbox_on_sqlite()
 {
    holds_on(Backend::Sqlite);
}

#[test]
fn any_mix_of_duplicate_concurrent_and_retried_deliveries_ships_once_per_event_on_the_inbox_on_postgres()
 {
    holds_on(Backend::Postgres);
}
