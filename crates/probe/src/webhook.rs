//! `probe --webhook URL --secret whsec_…`: the receiving side, graded. The
//! probe plays the payment provider: it signs `charge.succeeded` events in
//! the Standard Webhooks style and delivers them as providers do (again in
//! sequence, twice at once, with another secret, with an old timestamp),
//! then asks the receiver how many effects each event made.
//!
//! The count endpoint is `GET {URL}/{event id}`, answering JSON with an
//! `effects` number (the lab's receivers have it). Without one the probe
//! reports the answers alone, and the checks of effects are "n/a".

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::join_all;
use webhook_signature::WebhookKey;

use crate::config::ProbeError;
use crate::report::{Level, Report, ScenarioResult, Verdict};

/// Where the checks' expectations come from.
const AT_LEAST_ONCE: &str = "Standard Webhooks, delivery: providers deliver at least once, so a receiver must make one effect per webhook-id";
const ACKNOWLEDGE: &str = "Standard Webhooks, delivery: anything but a 2xx is retried, so a processed duplicate should be acknowledged";
const VERIFY: &str = "Standard Webhooks, verifying: a signature that does not match is rejected";
const REPLAY: &str =
    "Standard Webhooks, verifying: a timestamp outside the tolerance (5 minutes) is rejected";

/// A receiver to probe.
#[derive(Debug, Clone)]
pub struct WebhookProbe {
    /// The receiver's webhook endpoint.
    pub url: reqwest::Url,
    /// The secret it checks signatures with.
    pub key: WebhookKey,
    /// How long one request may take.
    pub timeout: Duration,
}

/// What one delivery got back: a status, or why none came.
type Answered = Result<u16, String>;

struct Receiver {
    http: reqwest::Client,
    probe: WebhookProbe,
    /// A key that is not the receiver's, for forged deliveries.
    forger: WebhookKey,
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_secs()).unwrap_or(0))
}

/// A new `charge.succeeded` event: its id, and its body.
fn new_event() -> (String, Vec<u8>) {
    let id = format!("evt_probe_{}", uuid::Uuid::new_v4().simple());
    let token = || uuid::Uuid::new_v4().simple().to_string();
    let body = serde_json::json!({
        "id": id,
        "type": "charge.succeeded",
        "created_at": "2026-01-01T00:00:00Z",
        "data": {"charge": format!("ch_probe_{}", token()), "order": format!("ord_probe_{}", token()), "amount_cents": 1200},
    });
    (id, serde_json::to_vec(&body).expect("an event serialises"))
}

impl Receiver {
    /// Delivers `body` as event `id`, signed with `key` at `timestamp`.
    async fn deliver(&self, key: &WebhookKey, id: &str, timestamp: i64, body: &[u8]) -> Answered {
        self.http
            .post(self.probe.url.clone())
            .header("webhook-id", id)
            .header("webhook-timestamp", timestamp)
            .header("webhook-signature", key.sign(id, timestamp, body))
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .map(|response| response.status().as_u16())
            .map_err(|error| {
                if error.is_timeout() {
                    "no answer in time"
                } else {
                    "no answer"
                }
                .to_owned()
            })
    }

    /// Delivers `body` as event `id`, signed as the provider signs it now.
    async fn deliver_signed(&self, id: &str, body: &[u8]) -> Answered {
        self.deliver(&self.probe.key, id, now(), body).await
    }

    /// How many effects the receiver says event `id` made, if it says.
    async fn effects(&self, id: &str) -> Option<u64> {
        let url = format!("{}/{id}", self.probe.url.as_str().trim_end_matches('/'));
        let response = self.http.get(url).send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        let body: serde_json::Value = response.json().await.ok()?;
        body.get("effects")?.as_u64()
    }
}

fn shown(answers: &[Answered]) -> String {
    answers
        .iter()
        .map(|answer| match answer {
            Ok(status) => status.to_string(),
            Err(reason) => reason.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_2xx(answer: &Answered) -> bool {
    matches!(answer, Ok(200..=299))
}

fn is_4xx(answer: &Answered) -> bool {
    matches!(answer, Ok(400..=499))
}

/// The check that `event` made exactly one effect, after `answers`.
fn one_effect(scenario: &str, answers: &[Answered], effects: Option<u64>) -> ScenarioResult {
    let (verdict, observed) = match effects {
        None => (
            Verdict::NotApplicable,
            format!(
                "answered {}; no count endpoint to read effects from",
                shown(answers)
            ),
        ),
        Some(1) => (
            Verdict::Pass,
            format!("answered {}; 1 effect", shown(answers)),
        ),
        Some(n) => (
            Verdict::Fail,
            format!("answered {}; {n} effects", shown(answers)),
        ),
    };
    ScenarioResult {
        scenario: scenario.to_owned(),
        level: Level::Must,
        reference: AT_LEAST_ONCE.to_owned(),
        expected: "one effect for the event".to_owned(),
        observed,
        verdict,
    }
}

/// The check that a delivery the receiver must not trust did nothing.
fn refused(
    scenario: &str,
    level: Level,
    reference: &str,
    answer: &Answered,
    effects: Option<u64>,
) -> ScenarioResult {
    let done = effects.unwrap_or(0);
    let verdict = if is_4xx(answer) && done == 0 {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    let effects = effects.map_or("effects unknown".to_owned(), |n| format!("{n} effects"));
    ScenarioResult {
        scenario: scenario.to_owned(),
        level,
        reference: reference.to_owned(),
        expected: "refused with a 4xx (401 is usual), no effect".to_owned(),
        observed: format!(
            "answered {}; {effects}",
            shown(std::slice::from_ref(answer))
        ),
        verdict,
    }
}

/// Delivers events as a provider does and grades what the receiver did.
pub async fn run(probe: &WebhookProbe) -> Result<Report, ProbeError> {
    let http = reqwest::Client::builder()
        .timeout(probe.timeout)
        .build()
        .map_err(|error| ProbeError::Client(error.to_string()))?;
    let receiver = Receiver {
        http,
        probe: probe.clone(),
        forger: WebhookKey::new(*uuid::Uuid::new_v4().as_bytes()),
    };
    let mut results = Vec::new();

    // One ordinary delivery first: without it nothing else means anything.
    let (first, body) = new_event();
    let accepted = receiver.deliver_signed(&first, &body).await;
    if !is_2xx(&accepted) {
        return Err(ProbeError::NotAccepted(format!(
            "a delivery signed with --secret was answered {}; check --webhook and --secret",
            shown(&[accepted])
        )));
    }
    // The same event again, as a provider does when an answer is lost.
    let again = receiver.deliver_signed(&first, &body).await;
    let answers = [accepted, again.clone()];
    results.push(one_effect(
        "delivered again in sequence",
        &answers,
        receiver.effects(&first).await,
    ));
    results.push(ScenarioResult {
        scenario: "a processed duplicate acknowledged".to_owned(),
        level: Level::Should,
        reference: ACKNOWLEDGE.to_owned(),
        expected: "2xx, so the provider stops".to_owned(),
        observed: format!("answered {}", shown(std::slice::from_ref(&again))),
        verdict: if is_2xx(&again) {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
    });

    // One event delivered twice at the same moment.
    let (both, body) = new_event();
    let answers = join_all([
        receiver.deliver_signed(&both, &body),
        receiver.deliver_signed(&both, &body),
    ])
    .await;
    results.push(one_effect(
        "delivered twice at once",
        &answers,
        receiver.effects(&both).await,
    ));

    // Signed with a key that is not the receiver's.
    let (forged, body) = new_event();
    let answer = receiver
        .deliver(&receiver.forger, &forged, now(), &body)
        .await;
    let effects = receiver.effects(&forged).await;
    results.push(refused(
        "signed with another secret",
        Level::Must,
        VERIFY,
        &answer,
        effects,
    ));

    // Signed right, an hour ago: a captured delivery replayed.
    let (replayed, body) = new_event();
    let answer = receiver
        .deliver(&probe.key, &replayed, now() - 3600, &body)
        .await;
    let effects = receiver.effects(&replayed).await;
    results.push(refused(
        "replayed an hour later",
        Level::Should,
        REPLAY,
        &answer,
        effects,
    ));

    Ok(Report::new(probe.url.to_string(), results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_effect_passes_fails_or_cannot_tell_without_a_count() {
        let answers = [Ok(200), Ok(200)];
        assert_eq!(one_effect("s", &answers, Some(1)).verdict, Verdict::Pass);
        let twice = one_effect("s", &answers, Some(2));
        assert_eq!((twice.verdict, twice.level), (Verdict::Fail, Level::Must));
        assert!(twice.observed.contains("2 effects"), "{}", twice.observed);
        assert_eq!(
            one_effect("s", &answers, None).verdict,
            Verdict::NotApplicable
        );
    }

    #[test]
    fn a_forged_delivery_passes_only_when_refused_with_a_4xx_and_nothing_done() {
        let check =
            |answer: Answered, effects| refused("s", Level::Must, VERIFY, &answer, effects).verdict;
        assert_eq!(check(Ok(401), Some(0)), Verdict::Pass);
        assert_eq!(check(Ok(401), None), Verdict::Pass);
        assert_eq!(check(Ok(200), Some(0)), Verdict::Fail);
        assert_eq!(check(Ok(401), Some(1)), Verdict::Fail);
        assert_eq!(check(Ok(500), Some(0)), Verdict::Fail);
        assert_eq!(check(Err("no answer".into()), Some(0)), Verdict::Fail);
    }
}
