//! When the endpoint's own work fails: through the failure hook its test
//! build offers (`--fail-header`, `--fail-after-header`: a header it turns
//! into a failure of its own), is the retry stuck behind the failed
//! request's claim, is the failure replayed, and is the work done again?

use std::time::Duration;

use crate::client::{Answer, Client, Key};
use crate::config::ProbeConfig;
use crate::report::{Level, ScenarioResult};

use super::grading::{cite, new_key, not_applicable, pass_if, result};

const BEFORE_STUCK: &str = "a failure before the work: the retry is not stuck";
const BEFORE_REPLAYED: &str = "a failure before the work: the retry does the work";
const AFTER_ONCE: &str = "a failure after the work: the work is done once";
const AFTER_STUCK: &str = "a failure after the work: the retry is not stuck";

/// What a request failed by the hook, and its retry, got.
struct Failure {
    failed: Answer,
    retry: Answer,
    /// From the retry's first try to its last answer.
    waited: Duration,
    /// Whether the retry got past `409` within the bound.
    answered: bool,
}

impl Failure {
    fn describe(&self) -> String {
        format!(
            "failed {}; retry {} after {:.1} s",
            self.failed.describe(),
            self.retry.describe(),
            self.waited.as_secs_f64()
        )
    }

    /// Whether the retry got what the failed request got (not a success).
    fn failure_replayed(&self) -> bool {
        !self.retry.is_success() && self.retry.status() == self.failed.status()
    }
}

/// Sends a request with `hook`, then retries it (without the hook) until it
/// is answered or the bound passes. `Err` says why it could not be tried.
async fn fail_then_retry(
    client: &Client,
    config: &ProbeConfig,
    hook: Option<&(String, String)>,
    option: &str,
) -> Result<Failure, String> {
    let Some((name, value)) = hook else {
        return Err(format!(
            "needs the endpoint's failure hook: give {option} 'NAME: VALUE', a header your test build turns into a failure"
        ));
    };
    let key = new_key();
    let failed = client
        .post(Key::Value(&key), &config.body, &[(name, value.clone())])
        .await;
    if failed.is_success() {
        return Err(format!(
            "the hook did not fail the request ({}): check {option}",
            failed.describe()
        ));
    }
    let (retry, waited) = client
        .post_until_answered_within(&key, &config.body, config.stuck_after)
        .await;
    let answered = retry.status().is_some_and(|status| status != 409);
    Ok(Failure {
        failed,
        retry,
        waited,
        answered,
    })
}

/// The failure, if its retry was answered; else why a check about that
/// answer cannot be judged (a stuck retry is the "not stuck" check's).
fn answered(tried: &Result<Failure, String>) -> Result<&Failure, String> {
    match tried {
        Ok(failure) if failure.answered => Ok(failure),
        Ok(failure) => Err(format!("{}: never answered", failure.describe())),
        Err(why) => Err(why.clone()),
    }
}

/// The retry after a failure is answered within the bound (SHOULD).
fn not_stuck(name: &str, config: &ProbeConfig, tried: &Result<Failure, String>) -> ScenarioResult {
    let expected = format!(
        "the retry is answered (not 409) within {} s",
        config.stuck_after.as_secs()
    );
    let level = (Level::Should, cite::STUCK);
    let failure = match tried {
        Ok(failure) => failure,
        Err(why) => return not_applicable(name, level, &expected, why),
    };
    let mut observed = failure.describe();
    if !failure.answered {
        observed.push_str(": the failed request's claim is stuck");
    }
    result(name, level, &expected, observed, pass_if(failure.answered))
}

/// After a failure before the work: its claim and what the retry gets.
pub async fn failure_before_the_work(client: &Client, config: &ProbeConfig) -> [ScenarioResult; 2] {
    let hook = config.fail_header.as_ref();
    let tried = fail_then_retry(client, config, hook, "--fail-header").await;
    [
        not_stuck(BEFORE_STUCK, config, &tried),
        retry_does_the_work(&tried),
    ]
}

/// Nothing was done, so nothing needs replaying: the retry does the work (advice).
fn retry_does_the_work(tried: &Result<Failure, String>) -> ScenarioResult {
    const EXPECTED: &str = "the retry makes the resource: nothing was done to replay";
    let level = (Level::Advice, cite::ERROR_REPLAYED);
    let failure = match answered(tried) {
        Ok(failure) => failure,
        Err(why) => return not_applicable(BEFORE_REPLAYED, level, EXPECTED, &why),
    };
    let mut observed = failure.describe();
    if failure.retry.is_success() {
        observed.push_str(": a new resource");
    } else if failure.failure_replayed() {
        observed.push_str(
            ": the failure was stored and replayed, so this key can never make the resource",
        );
    } else {
        observed.push_str(": no resource");
    }
    let verdict = pass_if(failure.retry.is_success());
    result(BEFORE_REPLAYED, level, EXPECTED, observed, verdict)
}

/// After a failure once the work was done: never a second resource
/// (MUST), and the retry not stuck (SHOULD).
pub async fn failure_after_the_work(client: &Client, config: &ProbeConfig) -> [ScenarioResult; 2] {
    let before = match &config.count_url {
        Some(url) => Some(client.count_resources(url).await),
        None => None,
    };
    let hook = config.fail_after_header.as_ref();
    let tried = fail_then_retry(client, config, hook, "--fail-after-header").await;
    let made = match (&config.count_url, before) {
        (Some(url), Some(Ok(before))) if tried.is_ok() => Some(
            client
                .count_resources(url)
                .await
                .map(|after| after.saturating_sub(before)),
        ),
        (_, Some(Err(why))) => Some(Err(why)),
        _ => None,
    };
    [
        done_once(&tried, made),
        not_stuck(AFTER_STUCK, config, &tried),
    ]
}

/// The failed request did its work: its retry must not do it again. With
/// `made` (the resources the two made, counted), judged by the count;
/// without, only a replay (of the resource or of the failure) can be told
/// apart from new work.
fn done_once(
    tried: &Result<Failure, String>,
    made: Option<Result<usize, String>>,
) -> ScenarioResult {
    const EXPECTED: &str = "one resource for the request and its retry: the first one's resource or its failure again, never a second";
    let level = (Level::Must, cite::PURPOSE);
    let failure = match answered(tried) {
        Ok(failure) => failure,
        Err(why) => return not_applicable(AFTER_ONCE, level, EXPECTED, &why),
    };
    let observed = failure.describe();
    match made {
        Some(Ok(made)) => {
            let counted = match made {
                0 => "no resource",
                1 => "one resource",
                _ => "two resources or more: the work was done again",
            };
            let observed = format!("{observed}; listed since: {made} ({counted})");
            result(AFTER_ONCE, level, EXPECTED, observed, pass_if(made <= 1))
        }
        Some(Err(why)) => not_applicable(AFTER_ONCE, level, EXPECTED, &why),
        None if failure.failure_replayed() => {
            let observed = format!("{observed}: the failure replayed, the work not done again");
            result(AFTER_ONCE, level, EXPECTED, observed, pass_if(true))
        }
        None if failure.retry.is_success() && failure.retry.is_marked_replayed() => {
            let observed = format!("{observed}: the first request's resource, replayed");
            result(AFTER_ONCE, level, EXPECTED, observed, pass_if(true))
        }
        None => {
            let why = format!(
                "{observed}: a new resource or the first one's? Give --count-url (a GET listing the resources) to tell"
            );
            not_applicable(AFTER_ONCE, level, EXPECTED, &why)
        }
    }
}
