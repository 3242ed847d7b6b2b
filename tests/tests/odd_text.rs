//! Odd text, on every design and both databases: what a learner may paste
//! (emoji, right-to-left marks, combining accents, the longest item) is
//! stored exactly as sent and replayed as stored; what no database should
//! hold the same way on both (a NUL, other control characters) is refused
//! with a 4xx problem that says which field and why; what is not text at
//! all (a lone surrogate, bytes that are not UTF-8) is malformed JSON.
//! Never a 5xx, and nothing stored before is lost.

use lab_core::OrderServer;
use lab_e2e::client::send;
use lab_e2e::workshop::{WorkshopLab, lab_on, run_record};
use lab_e2e::{Attempt, Backend, new_key, on_both_backends, on_every_design_and_backend};
use lab_wire::LabId;
use lab_wire::run::RunRecord;
use serde_json::{Value, json};

on_every_design_and_backend!(odd_items_are_stored_as_sent_or_refused_with_a_problem_never_a_500);
on_both_backends!(
    odd_text_in_a_saved_run_comes_back_as_sent,
    the_provider_and_the_mail_sink_refuse_control_characters_and_keep_the_rest,
);

/// Items any store keeps as they are: each must come back byte for byte.
const KEPT: [&str; 7] = [
    "☕ and 🍰",
    "\u{200F}قهوة\u{200F}",
    "\u{202E}eeffoc\u{202C}",
    "cafe\u{301} cre\u{300}me",
    "\u{FEFF}zero\u{200B}width",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
];

/// Items with a control character: (the item as JSON, where it is, its code).
const REFUSED: [(&str, usize, &str); 5] = [
    (r#""cof\u0000fee""#, 4, "U+0000"),
    (r#""\u0000""#, 1, "U+0000"),
    (r#""tea\t""#, 4, "U+0009"),
    (r#""line\nbreak""#, 5, "U+000A"),
    (r#""x\u0085y""#, 2, "U+0085"),
];

fn problem_of(attempt: &Attempt) -> (u16, String, String) {
    let (status, body) = attempt.problem();
    (
        status,
        body["type"].as_str().unwrap_or_default().to_owned(),
        body["detail"].as_str().unwrap_or_default().to_owned(),
    )
}

async fn odd_items_are_stored_as_sent_or_refused_with_a_problem_never_a_500<S: OrderServer>(
    backend: Backend,
) {
    let server = lab_e2e::spawn_server::<S>(backend).await;
    let before = server.place(&new_key()).await.order();
    let longest = "🍰".repeat(lab_wire::order::MAX_ITEM_CHARS);
    let mut expected = vec![before];

    for item in KEPT.iter().copied().chain([longest.as_str()]) {
        let key = new_key();
        let body = json!({"item": item, "amount_cents": 450}).to_string();
        let created = send(server.order_request(Some(&key), &body)).await;
        assert_eq!(created.status(), 201, "{item:?}: {created:?}");
        let order = created.order();
        assert_eq!(order.item, item, "stored as sent");
        let replayed = send(server.order_request(Some(&key), &body)).await;
        assert!(
            matches!(
                &replayed,
                Attempt::Answered {
                    status: 201,
                    replayed: true,
                    ..
                }
            ),
            "{item:?}: the retry is a replay: {replayed:?}"
        );
        assert_eq!(replayed.order(), order, "{item:?}: replayed as stored");
        expected.push(order);
    }

    for (item, at, code) in REFUSED {
        let body = format!(r#"{{"item":{item},"amount_cents":450}}"#);
        let refused = send(server.order_request(Some(&new_key()), &body)).await;
        let (status, kind, detail) = problem_of(&refused);
        assert_eq!(
            (status, kind.as_str()),
            (422, "/problems/invalid-order"),
            "{item}"
        );
        assert!(
            detail.contains("item") && detail.contains(code) && detail.contains(&at.to_string()),
            "{item}: the detail says which field, what and where: {detail}"
        );
    }

    let not_text: [(&str, Vec<u8>); 3] = [
        (
            "a lone surrogate",
            br#"{"item":"\ud800","amount_cents":450}"#.to_vec(),
        ),
        (
            "a reversed surrogate pair",
            br#"{"item":"\udc00\ud800","amount_cents":450}"#.to_vec(),
        ),
        (
            "bytes that are not UTF-8",
            b"{\"item\":\"caf\xe9\",\"amount_cents\":450}".to_vec(),
        ),
    ];
    for (case, body) in not_text {
        let request = server.order_request(Some(&new_key()), "").body(body);
        let (status, kind, _) = problem_of(&send(request).await);
        assert_eq!(
            (status, kind.as_str()),
            (400, "/problems/malformed-json"),
            "{case}"
        );
    }

    // The headers' text: a key and a lab's id are ASCII by definition, so
    // odd text there is a 400 that names the header, whatever its bytes.
    for odd in ["k\u{200F}1", "☕", "cafe\u{301}", "\u{202E}k"] {
        let bytes = reqwest::header::HeaderValue::from_bytes(odd.as_bytes()).unwrap();
        let with_key = server
            .order_request(None, r#"{"item":"tea","amount_cents":300}"#)
            .header("idempotency-key", bytes.clone());
        let (status, kind, _) = problem_of(&send(with_key).await);
        assert_eq!(
            (status, kind.as_str()),
            (400, "/problems/invalid-idempotency-key"),
            "key {odd:?}"
        );
        let with_lab = server
            .order_request(Some(&new_key()), r#"{"item":"tea","amount_cents":300}"#)
            .header("lab-id", bytes);
        let (status, kind, _) = problem_of(&send(with_lab).await);
        assert_eq!(
            (status, kind.as_str()),
            (400, "/problems/invalid-lab-id"),
            "lab id {odd:?}"
        );
    }

    assert_eq!(
        server.orders().await,
        expected,
        "every kept item is there as sent, nothing refused was stored, nothing was lost"
    );
}

async fn odd_text_in_a_saved_run_comes_back_as_sent(backend: Backend) {
    let (base, _) = lab_on(backend).await;
    let lab = WorkshopLab::new(&base);
    let mut record = run_record([1, 1], Some(2));
    let odd = "\u{0}\u{1F}\u{200F}🍰e\u{301}\u{FEFF}<b>";
    record["panes"][0]["attempts"][0]["key"] = json!(odd);
    record["panes"][0]["steps"][0]["key"] = json!(odd);
    record["panes"][0]["orders"][0]["item"] = json!(odd);
    record["panes"][0]["orders"][0]["idempotency_key"] = json!(odd);
    record["panes"][1]["attempts"][0]["outcome"] = json!({"network-error": odd});
    record["order"]["item"] = json!("☕\u{200F}e\u{301}");

    let saved = lab.saved(&record).await;
    let answer: Value = lab.fetch_run(&saved.id).await;
    assert_eq!(answer["run"], record, "every odd string comes back as sent");
    serde_json::from_value::<RunRecord>(answer["run"].clone()).expect("the viewer reads it");
}

async fn the_provider_and_the_mail_sink_refuse_control_characters_and_keep_the_rest(
    backend: Backend,
) {
    let db = backend.connect().await;
    outside::migrate(&db).await.expect("migrations apply");
    let services = outside::OutsideServices::start(db)
        .await
        .expect("the services start");
    let shops = lab_core::Outside::through(services.client.clone());
    let lab = LabId::try_from(format!("odd-{}", uuid::Uuid::new_v4().simple()).as_str()).unwrap();
    let order = |item: &str| lab_wire::Order {
        id: uuid::Uuid::new_v4(),
        item: item.into(),
        amount_cents: 450,
        idempotency_key: "k".into(),
        created_at: chrono::Utc::now().into(),
    };

    for (n, item) in KEPT.iter().enumerate() {
        let charged = shops
            .charge("safe", &lab, &format!("kept-{n}"), &order(item), false)
            .await;
        assert!(charged.is_ok(), "{item:?}: {charged:?}");
        let sent = shops
            .send_email("phased", &lab, &format!("kept-{n}"), item)
            .await;
        assert_eq!(sent.ok(), Some(true), "{item:?}");
    }
    for text in ["cof\u{0}fee", "tab\there"] {
        let charged = shops
            .charge("safe", &lab, "refused", &order(text), false)
            .await
            .expect_err("a control character in the description");
        let said = charged.to_string();
        assert!(
            said.contains("422") && said.contains("description"),
            "{said}"
        );
        let sent = shops
            .send_email("phased", &lab, "refused", text)
            .await
            .expect_err("a control character in the subject");
        let said = sent.to_string();
        assert!(said.contains("422") && said.contains("subject"), "{said}");
    }
    services.stop().await;
}
