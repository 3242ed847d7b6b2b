//! A lock shorter than the work: the safe server's claim runs out (1 s)
//! while its request is still in its slow part (3 s), a retry takes the
//! claim over, and both requests go on to write and charge. Fencing
//! (`Lab-Fencing: on`) is the fix proven by the same test: the first
//! request's late write checks that it still holds the claim, finds it
//! taken, and is refused, so it never charges.

use lab_e2e::shop::Shop;
use lab_e2e::steps::until_the_lock_has_run_out;
use lab_e2e::{Attempt, Backend, new_key, on_both_backends};
use lab_wire::StepKind;
use lab_wire::headers::{LAB_DELAY_MS, LAB_FENCING, LAB_LOCK_TIMEOUT_SECS, LAB_SIDE_EFFECTS};

/// The claim's lock, in seconds, and the first request's slow part, longer.
const LOCK_SECS: u64 = 1;
const WORK_MS: &str = "3000";

on_both_backends!(a_lock_shorter_than_the_work_lets_a_retry_in_and_fencing_refuses_the_late_write);

/// What `fencing` (`off` or `on`) leaves: the first request's answer, the
/// retry's, the orders for the key, and the charges.
async fn race_past_the_lock(shop: &Shop, fencing: &str) -> (Attempt, Attempt, usize, u64) {
    let safe = shop.design("safe");
    let key = new_key();
    let mut steps = safe.steps().await;
    let buy = |delay: &'static str| {
        safe.order_request(Some(&key), lab_e2e::client::COFFEE)
            .header(LAB_SIDE_EFFECTS, "charge-and-email")
            .header(LAB_LOCK_TIMEOUT_SECS, LOCK_SECS.to_string())
            .header(LAB_FENCING, fencing)
            .header(LAB_DELAY_MS, delay)
    };
    let first = tokio::spawn(lab_e2e::client::send(buy(WORK_MS)));
    let claimed = steps
        .until(|step| step.key == key && step.kind == StepKind::KeyClaimed)
        .await;
    until_the_lock_has_run_out(&claimed, LOCK_SECS).await;
    // The first request is still in its slow part; its claim's lock has run out.
    let retry = lab_e2e::client::send(buy("0")).await;
    let first = first.await.expect("the first request's task");
    let orders = shop.orders_for("safe", &key).await;
    (
        first,
        retry,
        orders,
        shop.side_effects("safe").await.charges,
    )
}

async fn a_lock_shorter_than_the_work_lets_a_retry_in_and_fencing_refuses_the_late_write(
    backend: Backend,
) {
    let shop = Shop::open(backend).await;
    let (first, retry, orders, charges) = race_past_the_lock(&shop, "off").await;
    assert_eq!(
        retry.status(),
        201,
        "the retry took the claim over: {retry:?}"
    );
    assert_eq!(first.status(), 201, "{first:?}");
    assert_eq!(
        (orders, charges),
        (2, 2),
        "without fencing both requests wrote an order and charged"
    );

    let shop = Shop::open(backend).await;
    let (first, retry, orders, charges) = race_past_the_lock(&shop, "on").await;
    assert_eq!(retry.status(), 201, "{retry:?}");
    let Attempt::Answered { status, body, .. } = &first else {
        panic!("{first:?}")
    };
    assert_eq!(*status, 409, "{body}");
    assert_eq!(body["type"], "/problems/claim-lost");
    assert_eq!(
        (orders, charges),
        (1, 1),
        "the late write was refused before it could charge"
    );
}
