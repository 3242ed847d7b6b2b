//! A key reused for another request: after the first has answered (the
//! draft's 422), and while it is still running, where a 409 would send the
//! client retrying a request that can never succeed.

use futures::future::join;

use reqwest::Method;

use crate::client::{Answer, Client, Key};
use crate::config::ProbeConfig;
use crate::report::{Level, ScenarioResult, Verdict};

use super::grading::{cite, new_key, not_applicable, pass_if, result};

/// How long the second request waits after the first is sent, so that it
/// comes while the first is being worked on (the first is slowed by
/// `--race-delay-ms`, which is longer). Either order is judged fairly.
const STAGGER_MS: u64 = 50;

pub async fn different_body(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "same key, different body";
    const EXPECTED: &str = "422: a key belongs to one request";
    let level = (Level::Should, cite::REUSED);
    let Some(other) = other_body(config) else {
        let why = "no different body to send (give --other-body)".to_owned();
        return not_applicable(NAME, level, EXPECTED, &why);
    };
    let key = new_key();
    let first = client.post_until_settled(&key, &config.body).await;
    let second = client.post(Key::Value(&key), &other, &[]).await;
    let verdict = pass_if(second.status() == Some(422));
    let mut observed = format!("{} then {}", first.describe(), second.describe());
    if second.is_success() && second.resource() == first.resource() {
        observed.push_str(": silently answered with the first request's resource");
    } else if second.is_success() {
        observed.push_str(
            ": a new resource, the changed body taken as a new request under the same key",
        );
    } else if second.status() != Some(422) {
        observed.push_str(": refused, but not as a key reused for another request");
    }
    result(NAME, level, EXPECTED, observed, verdict)
}

/// The same key with another body, sent while the first request runs
/// (kept running by the lab's delay header): the one of the two that did
/// not make the resource should be told 422, not 409.
pub async fn different_body_in_flight(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "same key, different body, first still running";
    const EXPECTED: &str = "one resource; the other request 422, not 409";
    let level = (Level::Advice, cite::REUSED_IN_FLIGHT);
    let Some(other) = other_body(config) else {
        let why = "no different body to send (give --other-body)".to_owned();
        return not_applicable(NAME, level, EXPECTED, &why);
    };
    if config.race_delay_ms <= STAGGER_MS {
        let why = format!(
            "needs the first request kept running: give --race-delay-ms over {STAGGER_MS} (the lab's delay header)"
        );
        return not_applicable(NAME, level, EXPECTED, &why);
    }
    let key = new_key();
    let slow = [("lab-delay-ms", config.race_delay_ms.to_string())];
    let first = client.post(Key::Value(&key), &config.body, &slow);
    let second = async {
        tokio::time::sleep(std::time::Duration::from_millis(STAGGER_MS)).await;
        client.post(Key::Value(&key), &other, &[]).await
    };
    let (first, second) = join(first, second).await;
    let answers = [&first, &second];
    let made: Vec<&&Answer> = answers.iter().filter(|a| a.is_success()).collect();
    let refused: Vec<&&Answer> = answers.iter().filter(|a| !a.is_success()).collect();
    let mut observed = format!(
        "first {}, changed body {}",
        first.describe(),
        second.describe()
    );
    let verdict = match (made.as_slice(), refused.as_slice()) {
        ([_], [other]) if other.status() == Some(422) => Verdict::Pass,
        ([_], [other]) if other.status() == Some(409) => {
            observed.push_str(": told to retry a request that can never succeed");
            Verdict::Fail
        }
        ([a, b], []) if a.resource() != b.resource() => {
            observed.push_str(": two resources under one key");
            Verdict::Fail
        }
        ([_, _], []) => {
            observed.push_str(": the changed body answered with the first request's resource");
            Verdict::Fail
        }
        _ => Verdict::Fail,
    };
    result(NAME, level, EXPECTED, observed, verdict)
}

/// The same key and body from two clients: the second client's request is
/// its own, never answered with the first client's resource.
pub async fn one_key_two_clients(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "one key, two clients";
    const EXPECTED: &str = "client B's request is its own: a resource of its own, not client A's";
    let level = (Level::Advice, cite::CLIENTS);
    let [(a_name, a_value), (b_name, b_value)] = config.client_headers.as_slice() else {
        let why =
            "give --client-header twice, one identity per client (e.g. two Authorization headers)";
        return not_applicable(NAME, level, EXPECTED, why);
    };
    let key = new_key();
    let as_a = [(a_name.as_str(), a_value.clone())];
    let as_b = [(b_name.as_str(), b_value.clone())];
    let first = client
        .post_until_settled_with(&key, &config.body, &as_a)
        .await;
    let second = client
        .post_until_settled_with(&key, &config.body, &as_b)
        .await;
    let mut observed = format!(
        "client A {}, client B {}",
        first.describe(),
        second.describe()
    );
    let own = second.is_success()
        && second.resource().is_some()
        && second.resource() != first.resource()
        && !second.is_marked_replayed();
    if second.is_success() && second.resource() == first.resource() {
        observed.push_str(": client B was handed client A's resource (keys shared across clients)");
    } else if !second.is_success() {
        observed.push_str(": client B was refused (keys collide across clients)");
    }
    result(NAME, level, EXPECTED, observed, pass_if(own))
}

/// The same key and body on another endpoint of the service: never
/// answered with the first endpoint's resource.
pub async fn one_key_two_endpoints(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "one key, two endpoints";
    const EXPECTED: &str =
        "the other endpoint's own resource, or a refusal: never the first endpoint's resource";
    let level = (Level::Advice, cite::ENDPOINTS);
    let Some(other_url) = &config.other_url else {
        let why = "give --other-url, another POST endpoint of the same service";
        return not_applicable(NAME, level, EXPECTED, why);
    };
    let key = new_key();
    let first = client.post_until_settled(&key, &config.body).await;
    let second = client
        .send(&Method::POST, other_url, Key::Value(&key), &config.body)
        .await;
    let said = ("first endpoint", "other", "endpoints");
    let (observed, verdict) = never_the_first_resource(&first, &second, said);
    result(NAME, level, EXPECTED, observed, verdict)
}

/// The same key and body with another method on the same URL: never
/// answered with the POST's resource.
pub async fn one_key_two_methods(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "one key, two methods";
    const EXPECTED: &str =
        "the other method's own answer, or a refusal: never the POST's resource replayed";
    let level = (Level::Advice, cite::METHODS);
    let Some(method) = &config.other_method else {
        let why = "give --other-method, another method the endpoint takes with a key (e.g. PATCH)";
        return not_applicable(NAME, level, EXPECTED, why);
    };
    let key = new_key();
    let first = client.post_until_settled(&key, &config.body).await;
    let second = client
        .send(method, &config.url, Key::Value(&key), &config.body)
        .await;
    let said = ("POST", method.as_str(), "methods");
    let (observed, verdict) = never_the_first_resource(&first, &second, said);
    result(NAME, level, EXPECTED, observed, verdict)
}

/// Judges the `second` request, made with `first`'s key elsewhere: it
/// must get an answer of its own (a success naming another resource, or
/// a 4xx refusal), never `first`'s resource. `said` names the first, the
/// second, and what the key must not be shared across.
fn never_the_first_resource(
    first: &Answer,
    second: &Answer,
    (first_name, second_name, across): (&str, &str, &str),
) -> (String, Verdict) {
    let mut observed = format!(
        "{first_name} {}, {second_name} {}",
        first.describe(),
        second.describe()
    );
    let shared = second.is_success() && second.resource() == first.resource();
    let refused = second
        .status()
        .is_some_and(|status| (400..500).contains(&status));
    if shared {
        observed.push_str(&format!(
            ": answered with the {first_name}'s resource (keys shared across {across})"
        ));
    }
    (
        observed,
        pass_if(!shared && (second.is_success() || refused)),
    )
}

/// The other body to send: the one given, or the body changed a little.
fn other_body(config: &ProbeConfig) -> Option<serde_json::Value> {
    config
        .other_body
        .clone()
        .or_else(|| changed_body(&config.body))
}

/// A different but still plausible body: the first number changed by one,
/// else the first string with `-changed` appended.
pub fn changed_body(body: &serde_json::Value) -> Option<serde_json::Value> {
    let object = body.as_object()?;
    let mut changed = object.clone();
    if let Some((name, number)) = object.iter().find_map(|(k, v)| v.as_i64().map(|n| (k, n))) {
        changed.insert(name.clone(), serde_json::json!(number + 1));
    } else if let Some((name, text)) = object.iter().find_map(|(k, v)| v.as_str().map(|s| (k, s))) {
        changed.insert(name.clone(), serde_json::json!(format!("{text}-changed")));
    } else {
        return None;
    }
    Some(serde_json::Value::Object(changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_different_body_changes_a_number_first_then_a_string() {
        let order = serde_json::json!({"item": "coffee", "amount_cents": 450});
        assert_eq!(changed_body(&order).unwrap()["amount_cents"], 451);
        let text_only = serde_json::json!({"email": "a@b.c"});
        assert_eq!(changed_body(&text_only).unwrap()["email"], "a@b.c-changed");
        assert_eq!(changed_body(&serde_json::json!([1, 2])), None);
    }
}
