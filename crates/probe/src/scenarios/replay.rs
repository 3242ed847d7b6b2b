//! What a replay must be: the first answer again (status, body,
//! `Location`, `Content-Type`), said to be a replay, and named in a few
//! words when it is something else.

use crate::client::Answer;
use crate::report::{Level, ScenarioResult};

use super::grading::{cite, not_applicable, pass_if, result};

/// Why a check about replays could not be tried, if `retry` is not a
/// replay of `first`.
fn not_a_replay(first: &Answer, retry: &Answer) -> Option<String> {
    (!(retry.is_success() && retry.resource() == first.resource()))
        .then(|| format!("the retry was not a replay ({})", retry.describe()))
}

pub fn replay_fidelity(first: &Answer, retry: &Answer) -> ScenarioResult {
    const NAME: &str = "a replay carries the first answer";
    const EXPECTED: &str = "the same status, body, Location and Content-Type";
    let level = (Level::Should, cite::REPLAYED);
    let carried = first.carried().zip(retry.carried());
    let (Some((was, again)), None) = (carried, not_a_replay(first, retry)) else {
        let why = not_a_replay(first, retry).unwrap_or_default();
        return not_applicable(NAME, level, EXPECTED, &why);
    };
    let mut differs = Vec::new();
    if first.status() != retry.status() {
        differs.push(format!(
            "status {} then {}",
            first.describe(),
            retry.describe()
        ));
    }
    if !same_body(&was.body, &again.body) {
        differs.push("the body".to_owned());
    }
    if was.location != again.location {
        differs.push(format!(
            "Location {:?} then {:?}",
            was.location, again.location
        ));
    }
    if media_type(&was.content_type) != media_type(&again.content_type) {
        differs.push(format!(
            "Content-Type {:?} then {:?}",
            was.content_type, again.content_type
        ));
    }
    let observed = if differs.is_empty() {
        "status, body, Location and Content-Type as first sent".to_owned()
    } else {
        format!("the replay differs: {}", differs.join(", "))
    };
    result(NAME, level, EXPECTED, observed, pass_if(differs.is_empty()))
}

pub fn replay_marker(first: &Answer, retry: &Answer) -> ScenarioResult {
    const NAME: &str = "a replay says it is one";
    const EXPECTED: &str = "Idempotent-Replayed: true on the replay, not on the first answer";
    let level = (Level::Advice, cite::MARKER);
    if let Some(why) = not_a_replay(first, retry) {
        return not_applicable(NAME, level, EXPECTED, &why);
    }
    let said = |answer: &Answer| {
        if answer.is_marked_replayed() {
            "marked"
        } else {
            "not marked"
        }
    };
    let observed = format!("first answer {}, replay {}", said(first), said(retry));
    let verdict = pass_if(retry.is_marked_replayed() && !first.is_marked_replayed());
    result(NAME, level, EXPECTED, observed, verdict)
}

/// How long the first answer says its key is kept (`Idempotency-TTL`, in
/// seconds): not applicable when it says nothing (the draft asks for the
/// documentation to say it), a failure when it says it so that no client
/// can read it.
pub fn retention_advertised(first: &Answer) -> ScenarioResult {
    const NAME: &str = "the key's retention";
    const EXPECTED: &str = "if advertised, Idempotency-TTL: a whole number of seconds";
    let level = (Level::Advice, cite::RETENTION);
    let Some(value) = first
        .carried()
        .and_then(|carried| carried.retention.as_deref())
    else {
        let why = "no Idempotency-TTL on the first answer: look for the retention in the endpoint's documentation";
        return not_applicable(NAME, level, EXPECTED, why);
    };
    let observed = match value.trim().parse::<u64>() {
        Ok(secs) => format!("Idempotency-TTL: {secs}: keys kept {}", as_duration(secs)),
        Err(_) => format!("Idempotency-TTL: {value:?}: not a number of seconds"),
    };
    let verdict = pass_if(value.trim().parse::<u64>().is_ok());
    result(NAME, level, EXPECTED, observed, verdict)
}

/// `90061` as "1 d 1 h 1 min 1 s", leaving out the zero parts.
fn as_duration(secs: u64) -> String {
    let parts = [
        (secs / 86_400, "d"),
        (secs % 86_400 / 3_600, "h"),
        (secs % 3_600 / 60, "min"),
        (secs % 60, "s"),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n} {unit}"))
        .collect();
    if said.is_empty() {
        "0 s".to_owned()
    } else {
        said.join(" ")
    }
}

/// Whether two bodies say the same: equal as JSON when both are JSON
/// (spacing and key order aside), else byte for byte.
fn same_body(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<serde_json::Value>(a),
        serde_json::from_str::<serde_json::Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A `Content-Type`'s media type, without parameters, in lower case.
fn media_type(content_type: &Option<String>) -> Option<String> {
    content_type
        .as_deref()
        .and_then(|value| value.split(';').next())
        .map(|media| media.trim().to_ascii_lowercase())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retention_reads_as_days_hours_minutes_and_seconds() {
        assert_eq!(as_duration(86_400), "1 d");
        assert_eq!(as_duration(90_061), "1 d 1 h 1 min 1 s");
        assert_eq!(as_duration(0), "0 s");
    }

    fn answer(status: u16, resource: Option<&str>) -> Answer {
        Answer::Response {
            status,
            replayed: false,
            resource: resource.map(str::to_owned),
            retry_after: None,
            carried: Default::default(),
        }
    }

    #[test]
    fn bodies_compare_as_json_and_content_types_by_media_type() {
        assert!(same_body(r#"{"a":1,"b":2}"#, r#"{ "b": 2, "a": 1 }"#));
        assert!(!same_body(r#"{"a":1}"#, r#"{"a":2}"#));
        assert!(same_body("plain", "plain") && !same_body("plain", "other"));
        assert_eq!(
            media_type(&Some("Application/JSON; charset=utf-8".into())),
            Some("application/json".into())
        );
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
