//! Side effects outside the database (`Lab-Side-Effects: charge-and-email`):
//! the card is charged at the lab's payment provider and the receipt goes
//! through its mail sink, over HTTP, where no transaction reaches. A
//! transaction that called the provider is rolled back by a crash or a
//! provider timeout, and its retry charges and e-mails again; the
//! atomic-phases design resumes from its recovery point, the provider
//! replays the charge made under the key derived from the idempotency key,
//! and the outbox sends the e-mail once.

use lab_e2e::shop::Shop;
use lab_e2e::{Attempt, Backend, new_key, on_both_backends};
use lab_wire::headers::{LAB_FAULT, LAB_SIDE_EFFECTS};

on_both_backends!(
    a_crash_after_the_charge_inside_the_transaction_leaves_one_order_two_charges_two_emails,
    a_provider_timeout_inside_the_transaction_rolls_the_order_back_and_the_retry_charges_again,
    atomic_phases_resume_after_a_crash_after_the_charge_one_order_one_charge_one_email,
    atomic_phases_resume_at_once_after_a_provider_timeout_and_the_provider_replays_the_charge,
    a_crash_after_the_charge_on_the_safe_server_is_recovered_without_a_second_charge,
    without_side_effects_nothing_is_charged_or_emailed,
    one_labs_charges_are_not_another_labs,
    the_one_trip_server_refuses_side_effects_with_a_400_and_does_nothing,
);

async fn a_crash_after_the_charge_inside_the_transaction_leaves_one_order_two_charges_two_emails(
    backend: Backend,
) {
    let shop = Shop::open(backend).await;
    let key = new_key();
    let crashed = shop
        .buy("transactional", &key, Some("crash-after-charge"))
        .await;
    assert!(crashed.is_unanswered(), "{crashed:?}");
    assert_eq!(
        shop.orders_for("transactional", &key).await,
        0,
        "the crash rolled the order back with the transaction"
    );
    let retry = shop.buy("transactional", &key, None).await;
    assert!(
        retry.is_new_order(),
        "nothing committed, so the retry starts over: {retry:?}"
    );
    assert_eq!(shop.orders_for("transactional", &key).await, 1);
    let effects = shop.side_effects("transactional").await;
    assert_eq!(
        (effects.charges, effects.emails),
        (2, 2),
        "the charge and the e-mail of the rolled-back attempt stayed done: {effects:?}"
    );
    assert_eq!(effects.charged_cents, 900, "the customer paid twice");
}

async fn a_provider_timeout_inside_the_transaction_rolls_the_order_back_and_the_retry_charges_again(
    backend: Backend,
) {
    let shop = Shop::open(backend).await;
    let key = new_key();
    let timed_out = shop
        .buy("transactional", &key, Some("provider-timeout"))
        .await;
    assert_eq!(timed_out.status(), 502, "{timed_out:?}");
    let Attempt::Answered { body, .. } = &timed_out else {
        unreachable!()
    };
    assert_eq!(body["type"], "/problems/payment-provider-failed");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("same Idempotency-Key"),
        "{body}"
    );
    assert_eq!(shop.orders_for("transactional", &key).await, 0);
    let retry = shop.buy("transactional", &key, None).await;
    assert!(retry.is_new_order(), "{retry:?}");
    let effects = shop.side_effects("transactional").await;
    assert_eq!(shop.orders_for("transactional", &key).await, 1);
    assert_eq!(
        (effects.charges, effects.emails),
        (2, 1),
        "the provider charged before it timed out; the retry charged again: {effects:?}"
    );
}

async fn atomic_phases_resume_after_a_crash_after_the_charge_one_order_one_charge_one_email(
    backend: Backend,
) {
    let shop = Shop::open(backend).await;
    let key = new_key();
    let (crashed, steps) = shop.buy_and_crash_after_charge("phased", &key).await;
    assert!(crashed.is_unanswered(), "{crashed:?}");
    assert_eq!(
        shop.orders_for("phased", &key).await,
        1,
        "the order's phase committed before the charge"
    );
    let retry = shop.buy_once_its_lock_ran_out("phased", &key, &steps).await;
    assert!(
        retry.is_new_order(),
        "the retry finished the work: {retry:?}"
    );
    let again = shop.buy("phased", &key, None).await;
    assert!(again.is_replay(), "then the key replays: {again:?}");
    assert_eq!(retry.order(), again.order());
    assert_eq!(shop.orders_for("phased", &key).await, 1);
    let effects = shop.side_effects("phased").await;
    assert_eq!(
        (effects.charges, effects.emails),
        (1, 1),
        "the provider replayed the charge under the derived key; the outbox sent once: {effects:?}"
    );
}

async fn atomic_phases_resume_at_once_after_a_provider_timeout_and_the_provider_replays_the_charge(
    backend: Backend,
) {
    let shop = Shop::open(backend).await;
    let key = new_key();
    let timed_out = shop.buy("phased", &key, Some("provider-timeout")).await;
    assert_eq!(timed_out.status(), 502, "{timed_out:?}");
    // The failed request let its lock go: the retry needs no wait.
    let retry = shop.buy("phased", &key, None).await;
    assert!(retry.is_new_order(), "{retry:?}");
    assert_eq!(shop.orders_for("phased", &key).await, 1);
    let effects = shop.side_effects("phased").await;
    assert_eq!((effects.charges, effects.emails), (1, 1), "{effects:?}");
    assert_eq!(effects.charged_cents, 450);
}

async fn a_crash_after_the_charge_on_the_safe_server_is_recovered_without_a_second_charge(
    backend: Backend,
) {
    let shop = Shop::open(backend).await;
    let key = new_key();
    let (crashed, steps) = shop.buy_and_crash_after_charge("safe", &key).await;
    assert!(crashed.is_unanswered(), "{crashed:?}");
    let retry = shop.buy_once_its_lock_ran_out("safe", &key, &steps).await;
    assert!(retry.is_order(), "{retry:?}");
    assert_eq!(shop.orders_for("safe", &key).await, 1);
    let effects = shop.side_effects("safe").await;
    assert_eq!(
        (effects.charges, effects.emails),
        (1, 1),
        "the takeover found the order and answered with it, charging nothing: {effects:?}"
    );
}

async fn without_side_effects_nothing_is_charged_or_emailed(backend: Backend) {
    let shop = Shop::open(backend).await;
    for design in [
        "naive",
        "locked",
        "safe",
        "transactional",
        "phased",
        "onetrip",
    ] {
        let placed = shop.design(design).place(&new_key()).await;
        assert!(placed.is_new_order(), "{design}: {placed:?}");
        let effects = shop.side_effects(design).await;
        assert_eq!((effects.charges, effects.emails), (0, 0), "{design}");
    }
}

/// A charge cannot be part of a database statement: the one-trip server
/// says so instead of pretending, and neither orders nor charges.
async fn the_one_trip_server_refuses_side_effects_with_a_400_and_does_nothing(backend: Backend) {
    let shop = Shop::open(backend).await;
    let key = new_key();
    let refused = shop.buy("onetrip", &key, None).await;
    let (status, body) = refused.problem();
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["type"], "/problems/no-calls-outside", "{body}");
    assert_eq!(shop.orders_for("onetrip", &key).await, 0);
    let effects = shop.side_effects("onetrip").await;
    assert_eq!((effects.charges, effects.emails), (0, 0));
    // The key was not used up: the same purchase without side effects orders.
    let placed = shop.design("onetrip").place(&key).await;
    assert!(placed.is_new_order(), "{placed:?}");
}

async fn one_labs_charges_are_not_another_labs(backend: Backend) {
    let shop = Shop::open(backend).await;
    let bought = shop.buy("naive", &new_key(), None).await;
    assert!(bought.is_new_order(), "{bought:?}");
    assert_eq!(shop.side_effects("naive").await.charges, 1);
    let other = Shop::open(backend).await;
    assert_eq!(other.side_effects("naive").await.charges, 0);
    // A private lab's side effects need its secret.
    let refused = reqwest::Client::new()
        .get(format!("{}/api/side-effects", shop.base))
        .header("lab-id", shop.design("naive").lab)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
}

#[tokio::test]
async fn a_bad_side_effects_header_or_a_fault_that_needs_them_is_a_400_that_says_why() {
    let shop = Shop::open(Backend::Sqlite).await;
    let naive = shop.design("naive");
    for (headers, says) in [
        (vec![(LAB_SIDE_EFFECTS, "maybe")], "Lab-Side-Effects"),
        (vec![(LAB_FAULT, "crash-after-charge")], "charge-and-email"),
        (vec![(LAB_FAULT, "provider-timeout")], "charge-and-email"),
    ] {
        let mut request = naive.order_request(Some(&new_key()), lab_e2e::client::COFFEE);
        for (name, value) in &headers {
            request = request.header(*name, *value);
        }
        let attempt = lab_e2e::client::send(request).await;
        let Attempt::Answered { status, body, .. } = &attempt else {
            panic!("{attempt:?}")
        };
        assert_eq!(*status, 400, "{headers:?}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains(says),
            "{headers:?}: {body}"
        );
    }
    assert!(naive.orders().await.is_empty(), "nothing was ordered");
}
