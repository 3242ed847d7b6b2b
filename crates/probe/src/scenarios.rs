//! The scenarios, each a small experiment with one expectation.

use std::collections::BTreeSet;

use futures::future::join_all;

use crate::client::{Answer, Client, Key};
use crate::config::{ProbeConfig, ProbeError};
use crate::report::{Level, ScenarioResult};

mod failure;
mod grading;
mod replay;
mod reuse;
mod rounds;

use failure::{failure_after_the_work, failure_before_the_work};
use grading::{cite, new_key, not_applicable, pass_if, result};
use replay::{replay_fidelity, replay_marker, retention_advertised, what_the_retry_got};
use reuse::{different_body, different_body_in_flight, one_key_two_clients};
use reuse::{one_key_two_endpoints, one_key_two_methods};
use rounds::copies_released_together;

/// Runs the scenarios in teaching order.
pub async fn run_all(
    client: &Client,
    config: &ProbeConfig,
) -> Result<Vec<ScenarioResult>, ProbeError> {
    let mut results = Vec::from(sequential_retry(client, config).await?);
    results.push(missing_key(client, config).await);
    results.push(retry_after_dropped_connection(client, config).await);
    results.extend(concurrent_copies(client, config).await);
    results.push(copies_released_together(client, config).await);
    results.push(different_body(client, config).await);
    results.push(different_body_in_flight(client, config).await);
    results.push(one_key_two_clients(client, config).await);
    results.push(one_key_two_endpoints(client, config).await);
    results.push(one_key_two_methods(client, config).await);
    results.extend(failure_before_the_work(client, config).await);
    results.extend(failure_after_the_work(client, config).await);
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
/// request cannot be probed further. One experiment, four expectations:
/// the retry names the same resource (MUST), carries what the first answer
/// carried (SHOULD), and says it is a replay (advice); the first answer
/// says how long its key is kept, if it says so at all (advice).
async fn sequential_retry(
    client: &Client,
    config: &ProbeConfig,
) -> Result<[ScenarioResult; 4], ProbeError> {
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
    let level = (Level::Must, cite::PURPOSE);
    Ok([
        result("sequential retry", level, EXPECTED, observed, verdict),
        replay_fidelity(&first, &retry),
        replay_marker(&first, &retry),
        retention_advertised(&first),
    ])
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
        return not_applicable(NAME, level, EXPECTED, &why);
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
