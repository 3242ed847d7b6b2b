//! The scenarios, each a small experiment with one expectation.

use std::collections::BTreeSet;

use futures::future::join_all;

use crate::client::{Answer, Client, Key};
use crate::config::{ProbeConfig, ProbeError};
use crate::report::{Level, ScenarioResult, Verdict};

/// Where each expectation comes from. The draft is
/// draft-ietf-httpapi-idempotency-key-header; its sections are named by
/// title, which stays put while their numbers move between versions.
mod cite {
    pub const PURPOSE: &str = "the header's purpose: the draft's abstract (the key makes POST fault-tolerant) and \"Idempotency Enforcement Scenarios\" (a duplicate gets the first request's result; the work is done once)";
    pub const MISSING: &str = "the draft's \"Error Scenarios\": a missing key SHOULD get 400, with a link to the documentation";
    pub const IN_PROGRESS: &str = "the draft's \"Error Scenarios\": a retry while the first request is in progress SHOULD get 409";
    pub const REUSED: &str =
        "the draft's \"Error Scenarios\": a key reused with another payload SHOULD get 422";
    pub const EMPTY: &str = "common practice: a key is a unique value the client makes (the draft's \"Uniqueness of Idempotency Key\" recommends a UUID); an empty one names nothing";
    pub const LONG: &str =
        "Stripe's documented limit (keys up to 255 characters); the draft sets no limit";
    pub const NON_ASCII: &str = "RFC 8941 (the header is a structured-field String, which holds printable ASCII only); the draft adds nothing";
}

fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn result(
    scenario: impl Into<String>,
    (level, reference): (Level, &str),
    expected: &str,
    observed: String,
    verdict: Verdict,
) -> ScenarioResult {
    ScenarioResult {
        scenario: scenario.into(),
        level,
        reference: reference.to_owned(),
        expected: expected.to_owned(),
        observed,
        verdict,
    }
}

fn pass_if(expected: bool) -> Verdict {
    if expected {
        Verdict::Pass
    } else {
        Verdict::Fail
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
    results.extend(concurrent_copies(client, config).await);
    results.push(different_body(client, config).await);
    let formats = [
        ("empty key", String::new(), cite::EMPTY),
        ("256-character key", "k".repeat(256), cite::LONG),
        ("non-ASCII key", "clé-ünïcode".to_owned(), cite::NON_ASCII),
    ];
    for (name, key, reference) in formats {
        results.push(key_format(client, config, name, &key, reference).await);
    }
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
    let observed = format!(
        "{} then {}, {}",
        first.describe(),
        retry.describe(),
        what_the_retry_got(&first, &retry)
    );
    let verdict = pass_if(first.status() == retry.status() && first.resource() == retry.resource());
    Ok(result(
        "sequential retry",
        (Level::Must, cite::PURPOSE),
        EXPECTED,
        observed,
        verdict,
    ))
}

/// What a retry's answer means next to the first answer, in a few words.
pub fn what_the_retry_got(first: &Answer, retry: &Answer) -> String {
    match (retry.is_success(), retry.resource() == first.resource()) {
        (true, true) if retry.status() == first.status() => "the same resource".to_owned(),
        (true, true) => "the same resource, with another status".to_owned(),
        (true, false) => "a new resource: the work was done twice".to_owned(),
        (false, _) => {
            "no resource: the retry was refused, so the client cannot learn the outcome".to_owned()
        }
    }
}

async fn missing_key(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const EXPECTED: &str = "400: a key is required";
    let answer = client.post(Key::Missing, &config.body, &[]).await;
    let verdict = pass_if(answer.status() == Some(400));
    let mut observed = answer.describe();
    if answer.is_success() {
        observed.push_str(": accepted a request that cannot be retried safely");
    }
    let level = (Level::Should, cite::MISSING);
    result("missing key", level, EXPECTED, observed, verdict)
}

async fn retry_after_dropped_connection(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "retry after a dropped connection";
    const EXPECTED: &str = "the retry succeeds, and a later retry names the same resource";
    let level = (Level::Must, cite::PURPOSE);
    let key = new_key();
    if let Err(why) = client.post_and_hang_up(&key, &config.body).await {
        return result(NAME, level, EXPECTED, why, Verdict::NotApplicable);
    }
    let retry = client.post_until_settled(&key, &config.body).await;
    let again = client.post_until_settled(&key, &config.body).await;
    let mut observed = format!(
        "hung up after sending; retry {}, again {}",
        retry.describe(),
        again.describe()
    );
    if retry.is_success() && again.is_success() && retry.resource() != again.resource() {
        // The abandoned request was still at work when the retry came, and
        // both made the resource; the later retry replays one of the two.
        observed.push_str(": two resources, the work was done twice");
    } else if !retry.is_success() {
        observed.push_str(": no resource for the retry");
    }
    let verdict =
        pass_if(retry.is_success() && again.is_success() && retry.resource() == again.resource());
    result(NAME, level, EXPECTED, observed, verdict)
}

/// One experiment, two expectations: at most one resource for the key
/// (MUST), and the other copies told 409 or given the replay (SHOULD).
async fn concurrent_copies(client: &Client, config: &ProbeConfig) -> [ScenarioResult; 2] {
    const ONE_RESOURCE: &str = "at most one resource among the successes";
    const THE_OTHERS: &str = "the copies that did not make it: 409 (in progress) or the replay";
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
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    for answer in &answers {
        *tally.entry(answer.describe()).or_default() += 1;
    }
    let statuses: Vec<String> = tally
        .iter()
        .map(|(what, n)| format!("{n} × {what}"))
        .collect();
    let answered = statuses.join(", ");
    let mut made = format!("{answered}; {} distinct resource(s)", resources.len());
    if resources.len() > 1 {
        made.push_str(
            ": several copies saw no key yet and each created a resource (check-then-insert race)",
        );
    } else if resources.is_empty() {
        made.push_str(": no copy made the resource");
    }
    let others: Vec<&Answer> = answers
        .iter()
        .filter(|a| !a.is_success() && a.status() != Some(409))
        .collect();
    let told = if others.is_empty() {
        answered.clone()
    } else {
        format!(
            "{answered}: {} cop{} got neither a 409 nor the replay",
            others.len(),
            if others.len() == 1 { "y" } else { "ies" }
        )
    };
    [
        result(
            &name,
            (Level::Must, cite::PURPOSE),
            ONE_RESOURCE,
            made,
            pass_if(resources.len() == 1),
        ),
        result(
            format!("{name}: the others' answers"),
            (Level::Should, cite::IN_PROGRESS),
            THE_OTHERS,
            told,
            pass_if(others.is_empty()),
        ),
    ]
}

async fn different_body(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    const NAME: &str = "same key, different body";
    const EXPECTED: &str = "422: a key belongs to one request";
    let level = (Level::Should, cite::REUSED);
    let Some(other) = config
        .other_body
        .clone()
        .or_else(|| changed_body(&config.body))
    else {
        let why = "no different body to send (give --other-body)".to_owned();
        return result(NAME, level, EXPECTED, why, Verdict::NotApplicable);
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

async fn key_format(
    client: &Client,
    config: &ProbeConfig,
    name: &str,
    key: &str,
    reference: &str,
) -> ScenarioResult {
    const EXPECTED: &str = "4xx: the key is refused";
    let answer = client.post(Key::Value(key), &config.body, &[]).await;
    let refused = answer
        .status()
        .is_some_and(|status| (400..500).contains(&status));
    let mut observed = answer.describe();
    if answer.is_success() {
        observed.push_str(": taken as a key");
    }
    let level = (Level::Advice, reference);
    result(name, level, EXPECTED, observed, pass_if(refused))
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

    fn answer(status: u16, resource: Option<&str>) -> Answer {
        Answer::Response {
            status,
            replayed: false,
            resource: resource.map(str::to_owned),
            retry_after: None,
        }
    }

    #[test]
    fn a_retrys_answer_is_named_by_what_it_carries_a_new_resource_none_or_another_status() {
        let first = answer(201, Some("a"));
        assert_eq!(
            what_the_retry_got(&first, &answer(201, Some("a"))),
            "the same resource"
        );
        assert_eq!(
            what_the_retry_got(&first, &answer(200, Some("a"))),
            "the same resource, with another status"
        );
        assert_eq!(
            what_the_retry_got(&first, &answer(201, Some("b"))),
            "a new resource: the work was done twice"
        );
        let refused = what_the_retry_got(&first, &answer(422, None));
        assert!(
            refused.starts_with("no resource"),
            "a 422 names no resource: {refused}"
        );
        let lost = what_the_retry_got(&first, &Answer::Failed("timed out".into()));
        assert!(lost.starts_with("no resource"), "{lost}");
    }
}
