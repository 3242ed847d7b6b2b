//! The scenarios, each a small experiment with one expectation.

use std::collections::BTreeSet;

use futures::future::join_all;

use crate::client::{Answer, Client, Key};
use crate::config::{ProbeConfig, ProbeError};
use crate::report::{ScenarioResult, Verdict};

fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn result(
    scenario: impl Into<String>,
    expected: &str,
    observed: String,
    verdict: Verdict,
) -> ScenarioResult {
    ScenarioResult {
        scenario: scenario.into(),
        expected: expected.to_owned(),
        observed,
        verdict,
    }
}

/// Runs the scenarios in teaching order.
pub async fn run_all(
    client: &Client,
    config: &ProbeConfig,
) -> Result<Vec<ScenarioResult>, ProbeError> {
    let mut results = vec![sequential_retry(client, config).await?];
    results.push(missing_key(client, config).await);
    results.push(retry_after_dropped_connection(client, config).await);
    results.push(concurrent_copies(client, config).await);
    results.push(different_body(client, config).await);
    results.push(key_format(client, config, "empty key", "").await);
    results.push(key_format(client, config, "256-character key", &"k".repeat(256)).await);
    results.push(key_format(client, config, "non-ASCII key", "clé-ünïcode").await);
    Ok(results)
}

/// Also the probe's preflight: an endpoint that refuses an ordinary
/// request cannot be probed further.
async fn sequential_retry(
    client: &Client,
    config: &ProbeConfig,
) -> Result<ScenarioResult, ProbeError> {
    const EXPECTED: &str = "the same status and the same resource id";
    let key = new_key();
    let first = client.post(Key::Value(&key), &config.body, &[]).await;
    if !first.is_success() {
        return Err(ProbeError::NotAccepted(first.describe()));
    }
    let retry = client.post_until_settled(&key, &config.body).await;
    let observed = format!("{} then {}", first.describe(), retry.describe());
    let verdict = if first.status() == retry.status() && first.resource() == retry.resource() {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    let observed = match verdict {
        Verdict::Fail if retry.is_success() => {
            format!("{observed}, a different resource: the retry was done twice")
        }
        _ => format!("{observed}, same resource"),
    };
    Ok(result("sequential retry", EXPECTED, observed, verdict))
}

async fn missing_key(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const EXPECTED: &str = "400: a key is required";
    let answer = client.post(Key::Missing, &config.body, &[]).await;
    let verdict = if answer.status() == Some(400) {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    let mut observed = answer.describe();
    if answer.is_success() {
        observed.push_str(": accepted a request that cannot be retried safely");
    }
    result("missing key", EXPECTED, observed, verdict)
}

async fn retry_after_dropped_connection(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "retry after a dropped connection";
    const EXPECTED: &str = "the retry succeeds, and a later retry names the same resource";
    let key = new_key();
    if let Err(why) = client.post_and_hang_up(&key, &config.body).await {
        return result(NAME, EXPECTED, why, Verdict::NotApplicable);
    }
    let retry = client.post_until_settled(&key, &config.body).await;
    let again = client.post_until_settled(&key, &config.body).await;
    let observed = format!(
        "hung up after sending; retry {}, again {}",
        retry.describe(),
        again.describe()
    );
    let verdict =
        if retry.is_success() && again.is_success() && retry.resource() == again.resource() {
            Verdict::Pass
        } else {
            Verdict::Fail
        };
    result(NAME, EXPECTED, observed, verdict)
}

async fn concurrent_copies(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const EXPECTED: &str = "at most one resource among the successes; the rest 409 or replays";
    let name = format!("{} concurrent copies", config.copies);
    let key = new_key();
    let delay = config.race_delay_ms.to_string();
    let extra: Vec<(&str, String)> = if config.race_delay_ms > 0 {
        vec![("lab-delay-ms", delay)]
    } else {
        Vec::new()
    };
    let answers: Vec<Answer> =
        join_all((0..config.copies).map(|_| client.post(Key::Value(&key), &config.body, &extra)))
            .await;

    let resources: BTreeSet<&str> = answers.iter().filter_map(Answer::resource).collect();
    let others_ok = answers
        .iter()
        .all(|a| a.is_success() || a.status() == Some(409));
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    for answer in &answers {
        *tally.entry(answer.describe()).or_default() += 1;
    }
    let statuses: Vec<String> = tally
        .iter()
        .map(|(what, n)| format!("{n} × {what}"))
        .collect();
    let mut observed = format!(
        "{}; {} distinct resource(s)",
        statuses.join(", "),
        resources.len()
    );
    let verdict = if resources.len() <= 1 && others_ok && !resources.is_empty() {
        Verdict::Pass
    } else {
        if resources.len() > 1 {
            observed.push_str(": several copies saw no key yet and each created a resource (check-then-insert race)");
        }
        Verdict::Fail
    };
    result(name, EXPECTED, observed, verdict)
}

async fn different_body(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "same key, different body";
    const EXPECTED: &str = "422: a key belongs to one request";
    let Some(other) = config
        .other_body
        .clone()
        .or_else(|| changed_body(&config.body))
    else {
        return result(
            NAME,
            EXPECTED,
            "no different body to send (give --other-body)".to_owned(),
            Verdict::NotApplicable,
        );
    };
    let key = new_key();
    let first = client.post_until_settled(&key, &config.body).await;
    let second = client.post(Key::Value(&key), &other, &[]).await;
    let verdict = if second.status() == Some(422) {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    let mut observed = format!("{} then {}", first.describe(), second.describe());
    if second.is_success() && second.resource() == first.resource() {
        observed.push_str(": silently answered with the first request's resource");
    }
    result(NAME, EXPECTED, observed, verdict)
}

async fn key_format(
    client: &Client,
    config: &ProbeConfig,
    name: &str,
    key: &str,
) -> ScenarioResult {
    const EXPECTED: &str = "4xx: the key is refused";
    let answer = client.post(Key::Value(key), &config.body, &[]).await;
    let verdict = match answer.status() {
        Some(status) if (400..500).contains(&status) => Verdict::Pass,
        _ => Verdict::Fail,
    };
    result(name, EXPECTED, answer.describe(), verdict)
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
