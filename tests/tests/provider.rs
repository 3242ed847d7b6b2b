//! The payment provider and the mail sink on their own, as the shops see
//! them: Stripe-like keys (the same key gets the same charge back, another
//! amount under it is refused), one delivery per message id, and nothing
//! for a caller without the shops' API key.

use lab_core::Outside;
use lab_e2e::{Backend, on_both_backends};
use lab_wire::headers::IDEMPOTENT_REPLAYED;
use lab_wire::outside::{OUTSIDE_LAB, OUTSIDE_MERCHANT};
use outside::OutsideServices;

on_both_backends!(
    the_provider_answers_a_key_it_charged_for_with_that_same_charge,
    the_provider_refuses_a_key_reused_for_another_amount,
    the_mail_sink_delivers_a_message_id_once,
);

async fn services(backend: Backend) -> OutsideServices {
    let db = backend.connect().await;
    outside::migrate(&db).await.expect("migrations apply");
    OutsideServices::start(db)
        .await
        .expect("the services start")
}

/// The services as a shop reaches them.
fn shops(services: &OutsideServices) -> Outside {
    Outside::through(services.client.clone())
}

fn lab() -> String {
    format!("provider-test-{}", uuid::Uuid::new_v4().simple())
}

async fn the_provider_answers_a_key_it_charged_for_with_that_same_charge(backend: Backend) {
    let services = services(backend).await;
    let order = test_order(450);
    let lab = lab_wire::LabId::try_from(lab().as_str()).unwrap();
    let first = shops(&services)
        .charge("safe", &lab, "k-1", &order, false)
        .await
        .expect("a charge");
    let second = shops(&services)
        .charge("safe", &lab, "k-1", &order, false)
        .await
        .expect("the same charge");
    assert!(!first.replayed);
    assert!(second.replayed, "the provider honours its key");
    assert_eq!(first.charge, second.charge);
    let other_key = shops(&services)
        .charge("safe", &lab, "k-2", &order, false)
        .await
        .expect("another charge");
    assert_ne!(other_key.charge.id, first.charge.id);
}

async fn the_provider_refuses_a_key_reused_for_another_amount(backend: Backend) {
    let services = services(backend).await;
    let lab = lab_wire::LabId::try_from(lab().as_str()).unwrap();
    shops(&services)
        .charge("naive", &lab, "k", &test_order(450), false)
        .await
        .expect("a charge");
    let refused = shops(&services)
        .charge("naive", &lab, "k", &test_order(900), false)
        .await
        .expect_err("another amount under the same key");
    assert!(refused.to_string().contains("422"), "{refused}");
}

async fn the_mail_sink_delivers_a_message_id_once(backend: Backend) {
    let services = services(backend).await;
    let lab = lab_wire::LabId::try_from(lab().as_str()).unwrap();
    let shops = shops(&services);
    let send = || shops.send_email("phased", &lab, "msg-1", "Your order");
    assert!(
        send().await.expect("delivered"),
        "the first delivery is new"
    );
    assert!(
        !send().await.expect("recognised"),
        "the same message id is not delivered again"
    );
}

#[tokio::test]
async fn a_caller_without_the_shops_api_key_is_refused_with_401() {
    let services = services(Backend::Sqlite).await;
    let http = reqwest::Client::new();
    for key in [None, Some("sk_lab_guessed")] {
        let mut request = http
            .post(format!("http://{}/charges", services.addr))
            .header(OUTSIDE_MERCHANT, "naive")
            .header(OUTSIDE_LAB, "someone")
            .header("idempotency-key", "k")
            .json(&serde_json::json!({"amount_cents": 450, "description": "coffee"}));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let answer = request.send().await.unwrap();
        assert_eq!(answer.status(), 401, "{key:?}");
        assert!(answer.headers().get(IDEMPOTENT_REPLAYED).is_none());
        let problem: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(problem["status"], 401);
    }
}

fn test_order(amount_cents: i64) -> lab_wire::Order {
    lab_wire::Order {
        id: uuid::Uuid::new_v4(),
        item: "coffee".into(),
        amount_cents,
        idempotency_key: "k".into(),
        created_at: chrono::Utc::now().into(),
    }
}
