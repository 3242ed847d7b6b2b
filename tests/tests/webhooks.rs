//! The receiving side, end to end on the whole lab: the payment provider
//! pays for an order and delivers `charge.succeeded` to one of the lab's
//! receivers at least once, retrying until a 2xx or its last attempt. The
//! naive receiver ships per delivery; the inbox ships once per event,
//! whether the event comes twice, twice at once, again after a lost
//! answer, or again after another event. A delivery that is not signed
//! with the lab's secret ships nothing.

use lab_e2e::receiving::{Receiving, Signed, new_event};
use lab_e2e::{Attempt, Backend, on_both_backends};
use lab_wire::webhook::{AttemptOutcome, DeliveryPlan, DeliveryRun, ReceiverDesign, Signing};

use ReceiverDesign::{Inbox, Naive};

on_both_backends!(
    one_delivery_ships_once_on_both_receivers,
    an_event_delivered_twice_ships_twice_on_the_naive_receiver_and_once_on_the_inbox,
    a_lost_answer_makes_the_provider_retry_until_a_2xx_and_the_naive_receiver_ship_again,
    two_deliveries_at_once_ship_twice_on_the_naive_receiver_and_once_on_the_inbox,
    a_retry_that_arrives_after_another_event_is_still_recognised_by_the_inbox,
    a_delivery_signed_with_another_secret_is_refused_and_retried_only_up_to_the_bound,
    a_forged_changed_or_replayed_delivery_is_a_401_problem_and_ships_nothing,
    odd_text_in_a_signed_event_is_a_422_ships_nothing_and_counts_nothing,
    one_labs_secret_opens_no_other_labs_receivers,
    a_private_labs_webhooks_need_its_secret,
);

/// The statuses of a run's attempts, in the order sent (`None`: no answer).
fn statuses(run: &DeliveryRun) -> Vec<Option<u16>> {
    run.attempts
        .iter()
        .map(|attempt| match &attempt.outcome {
            AttemptOutcome::Answered { status, .. } => Some(*status),
            AttemptOutcome::NoAnswer { .. } => None,
        })
        .collect()
}

/// Whether each answered attempt's receipt says it shipped.
fn shipped(run: &DeliveryRun) -> Vec<bool> {
    run.attempts
        .iter()
        .filter_map(|attempt| match &attempt.outcome {
            AttemptOutcome::Answered {
                receipt: Some(receipt),
                ..
            } => Some(receipt.shipped),
            _ => None,
        })
        .collect()
}

/// Runs `plan` on both receivers of one lab; their shipment counts
/// (all, and orders) and the runs.
async fn on_both_receivers(
    lab: &Receiving,
    plan: DeliveryPlan,
) -> ((u64, u64), (u64, u64), DeliveryRun, DeliveryRun) {
    let naive = lab.deliver(Naive, plan, Signing::LabSecret).await;
    let inbox = lab.deliver(Inbox, plan, Signing::LabSecret).await;
    let count = |s: lab_wire::webhook::Shipments| (s.shipments, s.orders);
    (
        count(lab.shipments(Naive).await),
        count(lab.shipments(Inbox).await),
        naive,
        inbox,
    )
}

async fn one_delivery_ships_once_on_both_receivers(backend: Backend) {
    let lab = Receiving::open(backend).await;
    let (naive, inbox, naive_run, inbox_run) = on_both_receivers(&lab, DeliveryPlan::Once).await;
    assert_eq!((naive, inbox), ((1, 1), (1, 1)));
    assert_eq!(statuses(&naive_run), [Some(200)]);
    assert_eq!(statuses(&inbox_run), [Some(200)]);
    let event = &inbox_run.events[0];
    assert!(event.id.starts_with("evt_") && event.data.charge.starts_with("ch_"));
    assert_eq!(lab.effects_of(Inbox, &event.id).await, 1);
    assert_eq!(
        lab.effects_of(Naive, &event.id).await,
        0,
        "another receiver's event"
    );
}

async fn an_event_delivered_twice_ships_twice_on_the_naive_receiver_and_once_on_the_inbox(
    backend: Backend,
) {
    let lab = Receiving::open(backend).await;
    let (naive, inbox, naive_run, inbox_run) = on_both_receivers(&lab, DeliveryPlan::Twice).await;
    assert_eq!(naive, (2, 1), "two parcels for one order");
    assert_eq!(inbox, (1, 1));
    assert_eq!(statuses(&naive_run), [Some(200), Some(200)]);
    assert_eq!(
        shipped(&inbox_run),
        [true, false],
        "the second is acknowledged, not shipped"
    );
    let event = &naive_run.events[0].id;
    assert_eq!(lab.effects_of(Naive, event).await, 2);
}

async fn a_lost_answer_makes_the_provider_retry_until_a_2xx_and_the_naive_receiver_ship_again(
    backend: Backend,
) {
    let lab = Receiving::open(backend).await;
    let (naive, inbox, naive_run, inbox_run) =
        on_both_receivers(&lab, DeliveryPlan::AnswerLost).await;
    assert_eq!(naive, (2, 1));
    assert_eq!(inbox, (1, 1));
    for run in [&naive_run, &inbox_run] {
        assert_eq!(
            statuses(run),
            [None, Some(200)],
            "one retry, and none after the 2xx: {run:?}"
        );
        let [first, second] = &run.attempts[..] else {
            unreachable!()
        };
        assert_eq!((first.attempt, second.attempt), (1, 2));
        assert!(
            second.sent_at_us - first.ended_at_us >= 90_000,
            "the retry waited its backoff"
        );
    }
    assert_eq!(
        shipped(&inbox_run),
        [false],
        "the retry found the event processed"
    );
}

async fn two_deliveries_at_once_ship_twice_on_the_naive_receiver_and_once_on_the_inbox(
    backend: Backend,
) {
    let lab = Receiving::open(backend).await;
    let (naive, inbox, naive_run, inbox_run) = on_both_receivers(&lab, DeliveryPlan::AtOnce).await;
    assert_eq!(naive, (2, 1));
    assert_eq!(inbox, (1, 1));
    assert_eq!(statuses(&naive_run), [Some(200), Some(200)]);
    let mut receipts = shipped(&inbox_run);
    receipts.sort();
    assert_eq!(receipts, [false, true], "exactly one of the two shipped");
    let deliveries: Vec<u8> = inbox_run.attempts.iter().map(|a| a.delivery).collect();
    assert!(deliveries.contains(&1) && deliveries.contains(&2));
}

async fn a_retry_that_arrives_after_another_event_is_still_recognised_by_the_inbox(
    backend: Backend,
) {
    let lab = Receiving::open(backend).await;
    let (naive, inbox, naive_run, inbox_run) =
        on_both_receivers(&lab, DeliveryPlan::OutOfOrder).await;
    assert_eq!(naive, (3, 2), "three parcels for two orders");
    assert_eq!(inbox, (2, 2), "one per order");
    for run in [&naive_run, &inbox_run] {
        let [first, second] = &run.events[..] else {
            panic!("two payments: {run:?}")
        };
        let order: Vec<(&str, Option<u16>)> = run
            .attempts
            .iter()
            .map(|a| a.event.as_str())
            .zip(statuses(run))
            .collect();
        assert_eq!(
            order,
            [
                (first.id.as_str(), None),
                (second.id.as_str(), Some(200)),
                (first.id.as_str(), Some(200))
            ],
            "the first event's retry came after the second event"
        );
    }
    assert_eq!(shipped(&inbox_run), [true, false]);
}

async fn a_delivery_signed_with_another_secret_is_refused_and_retried_only_up_to_the_bound(
    backend: Backend,
) {
    let lab = Receiving::open(backend).await;
    for receiver in [Naive, Inbox] {
        let run = lab
            .deliver(receiver, DeliveryPlan::Once, Signing::WrongSecret)
            .await;
        assert_eq!(run.attempts.len() as u32, run.max_attempts, "{run:?}");
        assert!(statuses(&run).iter().all(|status| *status == Some(401)));
        let numbers: Vec<u32> = run.attempts.iter().map(|a| a.attempt).collect();
        assert_eq!(numbers, (1..=run.max_attempts).collect::<Vec<_>>());
        assert_eq!(lab.shipments(receiver).await.shipments, 0);
    }
}

async fn a_forged_changed_or_replayed_delivery_is_a_401_problem_and_ships_nothing(
    backend: Backend,
) {
    let lab = Receiving::open(backend).await;
    let key = lab.key().await;
    let event = new_event();
    let body = serde_json::to_vec(&event).unwrap();
    let now = chrono::Utc::now().timestamp();
    let mut changed = body.clone();
    let at = changed.iter().position(|&b| b == b'1').unwrap();
    changed[at] = b'9';
    for receiver in [Naive, Inbox] {
        let unsigned = lab.http_post_unsigned(receiver, &body).await;
        assert_signature_refused(&unsigned);
        let changed_body = Signed {
            key: &key,
            id: &event.id,
            timestamp: now,
            body: &body,
        };
        // Signed over `body`, sent with `changed`.
        let tampered = lab.post_tampered(receiver, changed_body, &changed).await;
        assert_signature_refused(&tampered);
        let replayed_later = Signed {
            key: &key,
            id: &event.id,
            timestamp: now - 3600,
            body: &body,
        };
        assert_signature_refused(&lab.post_signed(receiver, replayed_later, false).await);
        assert_eq!(lab.shipments(receiver).await.shipments, 0);
        let genuine = Signed {
            key: &key,
            id: &event.id,
            timestamp: now,
            body: &body,
        };
        assert_eq!(
            lab.post_signed(receiver, genuine, false).await.status(),
            200
        );
        assert_eq!(lab.shipments(receiver).await.shipments, 1);
    }
}

fn assert_signature_refused(attempt: &Attempt) {
    let (status, problem) = attempt.problem();
    assert_eq!(status, 401, "{problem}");
    assert_eq!(problem["type"], "/problems/webhook-signature-invalid");
}

async fn odd_text_in_a_signed_event_is_a_422_ships_nothing_and_counts_nothing(backend: Backend) {
    let lab = Receiving::open(backend).await;
    let key = lab.key().await;
    for odd in ["ord\u{0}1", "ord\u{202E}1", "ord_\u{D7FF}"] {
        let mut event = new_event();
        event.data.order = odd.to_owned();
        let body = serde_json::to_vec(&event).unwrap();
        for receiver in [Naive, Inbox] {
            let signed = Signed {
                key: &key,
                id: &event.id,
                timestamp: chrono::Utc::now().timestamp(),
                body: &body,
            };
            let refused = lab.post_signed(receiver, signed, false).await;
            let (status, problem) = refused.problem();
            assert_eq!(status, 422, "{odd:?}: {problem}");
            assert_eq!(problem["type"], "/problems/invalid-event");
        }
    }
    // A lone surrogate cannot be sent as JSON text at all; \ud800 in an escape:
    let event = new_event();
    let body = serde_json::to_string(&event)
        .unwrap()
        .replace(&event.data.order, "ord_\\ud800")
        .into_bytes();
    let signed = Signed {
        key: &key,
        id: &event.id,
        timestamp: chrono::Utc::now().timestamp(),
        body: &body,
    };
    let status = lab.post_signed(Inbox, signed, false).await.status();
    assert!((400..500).contains(&status), "{status}");
    assert_eq!(lab.shipments(Naive).await.shipments, 0);
    assert_eq!(lab.shipments(Inbox).await.shipments, 0);
    // The count endpoint, asked about ids no delivery could carry.
    for odd in ["evt%00x", "evt%E2%80%AEx", &"e".repeat(300)] {
        let url = format!("{}/{odd}", lab.webhook_url(Inbox));
        let response = reqwest::get(url).await.unwrap();
        assert_eq!(response.status(), 200, "{odd}");
        let effects: serde_json::Value = response.json().await.unwrap();
        assert_eq!(effects["effects"], 0, "{odd}");
    }
}

async fn one_labs_secret_opens_no_other_labs_receivers(backend: Backend) {
    let lab = Receiving::open(backend).await;
    let other = lab.another_lab();
    let key = lab.key().await;
    assert_ne!(lab.endpoints().await.secret, other.endpoints().await.secret);
    let event = new_event();
    let body = serde_json::to_vec(&event).unwrap();
    let signed = Signed {
        key: &key,
        id: &event.id,
        timestamp: chrono::Utc::now().timestamp(),
        body: &body,
    };
    assert_signature_refused(&other.post_signed(Inbox, signed, false).await);
    assert_eq!(other.shipments(Inbox).await.shipments, 0);
    lab.deliver(Inbox, DeliveryPlan::Once, Signing::LabSecret)
        .await;
    assert_eq!(
        other.shipments(Inbox).await.shipments,
        0,
        "not in the other lab"
    );
}

async fn a_private_labs_webhooks_need_its_secret(backend: Backend) {
    let lab = Receiving::open(backend).await;
    let http = reqwest::Client::new();
    let endpoints = format!("{}/api/webhooks/endpoints", lab.base);
    let without = http
        .get(&endpoints)
        .header(lab_wire::headers::LAB_ID, &lab.lab)
        .send()
        .await
        .unwrap();
    assert_eq!(without.status(), 403);
    let teacher = http
        .get(&endpoints)
        .header(lab_wire::headers::LAB_ID, &lab.lab)
        .bearer_auth(lab_e2e::client::TEACHER_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(teacher.status(), 200, "the teacher reads any lab");
    let deliver = http
        .post(format!("{}/api/webhooks/deliveries", lab.base))
        .header(lab_wire::headers::LAB_ID, &lab.lab)
        .bearer_auth(lab_e2e::client::TEACHER_TOKEN)
        .json(&serde_json::json!({"receiver": "inbox", "plan": "once"}))
        .send()
        .await
        .unwrap();
    assert_eq!(deliver.status(), 403, "the teacher changes no lab");
    let endpoints = lab.endpoints().await;
    assert!(endpoints.secret.starts_with("whsec_"));
    assert_eq!(
        endpoints.receivers[1].path,
        format!("/api/receivers/inbox/labs/{}/webhooks", lab.lab)
    );
    // A fresh start empties the inbox too: the same event ships again.
    lab.deliver(Inbox, DeliveryPlan::Once, Signing::LabSecret)
        .await;
    let cleared = http
        .delete(format!("{}/api/receivers/inbox/shipments", lab.base))
        .header(lab_wire::headers::LAB_SECRET, &lab.secret)
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    assert_eq!(lab.shipments(Inbox).await.shipments, 0);
}
