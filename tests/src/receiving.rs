//! The receiving side over HTTP: one lab of the whole lab, its provider's
//! delivery runs (`/api/webhooks/deliveries`), its receivers' counts, and
//! deliveries signed by hand, as a probe or a forger would send them.

use lab_wire::headers::{LAB_FAULT, LAB_SECRET};
use lab_wire::webhook::{
    CHARGE_SUCCEEDED, ChargeSucceeded, DeliveryPlan, DeliveryRun, EventEffects, ReceiverDesign,
    Shipments, Signing, WEBHOOK_ID, WEBHOOK_SIGNATURE, WEBHOOK_TIMESTAMP, WebhookEndpoints,
    WebhookEvent,
};
use webhook_signature::WebhookKey;

use crate::client::{Attempt, send};
use crate::{Backend, spawn_lab};

/// One lab of a running lab, with its secret.
#[derive(Clone)]
pub struct Receiving {
    /// The lab's address.
    pub base: String,
    /// The lab's secret.
    pub secret: String,
    /// The lab's id.
    pub lab: String,
    http: reqwest::Client,
}

impl Receiving {
    /// The whole lab over `backend`, in a new lab of its own.
    pub async fn open(backend: Backend) -> Self {
        let no_page = std::env::temp_dir().join("idempotency-lab-no-page");
        Self::at(spawn_lab(backend, &no_page).await)
    }

    /// A new lab of the lab at `base`.
    pub fn at(base: String) -> Self {
        let secret = format!("test-{}", uuid::Uuid::new_v4().simple());
        let lab = lab_wire::LabSecret::try_from(secret.as_str())
            .expect("a uuid makes a lab secret")
            .lab_id()
            .to_string();
        Self {
            base,
            secret,
            lab,
            http: reqwest::Client::new(),
        }
    }

    /// Another new lab of the same running lab.
    pub fn another_lab(&self) -> Self {
        Self::at(self.base.clone())
    }

    /// Pays for an order (two, for `out-of-order`) and has the provider
    /// deliver to `receiver` as `plan` says, signed as `signing` says.
    pub async fn deliver(
        &self,
        receiver: ReceiverDesign,
        plan: DeliveryPlan,
        signing: Signing,
    ) -> DeliveryRun {
        let ask = serde_json::json!({ "receiver": receiver, "plan": plan, "signing": signing });
        let response = self
            .http
            .post(format!("{}/api/webhooks/deliveries", self.base))
            .header(LAB_SECRET, &self.secret)
            .json(&ask)
            .send()
            .await
            .expect("the lab answers");
        assert_eq!(response.status(), 200, "{:?}", response.text().await);
        response.json().await.expect("a delivery run")
    }

    /// What `receiver` shipped for this lab.
    pub async fn shipments(&self, receiver: ReceiverDesign) -> Shipments {
        let url = format!("{}/api/receivers/{}/shipments", self.base, receiver.name());
        let response = self
            .http
            .get(url)
            .header(LAB_SECRET, &self.secret)
            .send()
            .await
            .expect("the lab answers");
        assert_eq!(response.status(), 200);
        response.json().await.expect("shipments")
    }

    /// The lab's webhook secret and its receivers' paths.
    pub async fn endpoints(&self) -> WebhookEndpoints {
        let response = self
            .http
            .get(format!("{}/api/webhooks/endpoints", self.base))
            .header(LAB_SECRET, &self.secret)
            .send()
            .await
            .expect("the lab answers");
        assert_eq!(response.status(), 200);
        response.json().await.expect("the endpoints")
    }

    /// The lab's webhook key, as the provider signs with it.
    pub async fn key(&self) -> WebhookKey {
        WebhookKey::from_secret(&self.endpoints().await.secret).expect("a whsec_ secret")
    }

    /// `receiver`'s webhook URL in this lab.
    pub fn webhook_url(&self, receiver: ReceiverDesign) -> String {
        format!(
            "{}/api/receivers/{}/labs/{}/webhooks",
            self.base,
            receiver.name(),
            self.lab
        )
    }

    /// How many shipments `event` made on `receiver`, by its count endpoint.
    pub async fn effects_of(&self, receiver: ReceiverDesign, event: &str) -> u64 {
        let url = format!("{}/{event}", self.webhook_url(receiver));
        let effects: EventEffects = self
            .http
            .get(url)
            .send()
            .await
            .expect("the lab answers")
            .json()
            .await
            .expect("the event's effects");
        effects.effects
    }

    /// Posts `signed` to `receiver`; `lose_answer` asks the receiver to
    /// hang up after its work.
    pub async fn post_signed(
        &self,
        receiver: ReceiverDesign,
        signed: Signed<'_>,
        lose_answer: bool,
    ) -> Attempt {
        self.post(receiver, Some(&signed), signed.body, lose_answer)
            .await
    }

    /// Posts `body` with the headers of `signed`, which signed another body.
    pub async fn post_tampered(
        &self,
        receiver: ReceiverDesign,
        signed: Signed<'_>,
        body: &[u8],
    ) -> Attempt {
        self.post(receiver, Some(&signed), body, false).await
    }

    /// Posts `body` to `receiver` with no signature headers at all.
    pub async fn http_post_unsigned(&self, receiver: ReceiverDesign, body: &[u8]) -> Attempt {
        self.post(receiver, None, body, false).await
    }

    async fn post(
        &self,
        receiver: ReceiverDesign,
        signed: Option<&Signed<'_>>,
        body: &[u8],
        lose_answer: bool,
    ) -> Attempt {
        let mut request = self
            .http
            .post(self.webhook_url(receiver))
            .header("content-type", "application/json")
            .body(body.to_vec());
        if let Some(signed) = signed {
            request = request
                .header(WEBHOOK_ID, signed.id)
                .header(WEBHOOK_TIMESTAMP, signed.timestamp)
                .header(
                    WEBHOOK_SIGNATURE,
                    signed.key.sign(signed.id, signed.timestamp, signed.body),
                );
        }
        if lose_answer {
            request = request.header(LAB_FAULT, "drop-response");
        }
        send(request).await
    }
}

/// A delivery signed by hand.
pub struct Signed<'a> {
    pub key: &'a WebhookKey,
    pub id: &'a str,
    pub timestamp: i64,
    pub body: &'a [u8],
}

/// A `charge.succeeded` event for a new order.
pub fn new_event() -> WebhookEvent {
    WebhookEvent {
        id: format!("evt_{}", uuid::Uuid::new_v4().simple()),
        kind: CHARGE_SUCCEEDED.to_owned(),
        created_at: chrono::Utc::now().into(),
        data: ChargeSucceeded {
            charge: format!("ch_{}", uuid::Uuid::new_v4().simple()),
            order: format!("ord_{}", uuid::Uuid::new_v4().simple()),
            amount_cents: 1200,
        },
    }
}
