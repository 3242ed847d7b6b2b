//! The probe's side of the conversation: ordinary requests, retries that
//! honour `409` + `Retry-After`, and a request whose connection the probe
//! closes right after sending it.

use std::time::Duration;

use futures::future::join_all;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

pub use crate::answer::{Answer, Carried};
use crate::config::{ProbeConfig, ProbeError};
use crate::raw_http::{RawPost, RawResponse, read_response};

/// How the key header is sent.
pub enum Key<'a> {
    /// No `Idempotency-Key` header at all.
    Missing,
    /// This value, as raw bytes (so non-ASCII keys can be tried).
    Value(&'a str),
}

pub struct Client {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    id_field: String,
    /// How long one request may take (also for those written by hand).
    timeout: Duration,
}

impl Client {
    pub fn new(config: &ProbeConfig) -> Result<Self, ProbeError> {
        let mut headers = HeaderMap::new();
        for (name, value) in &config.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ProbeError::InvalidHeader(name.clone()))?;
            let value = HeaderValue::from_str(value)
                .map_err(|_| ProbeError::InvalidHeader(value.clone()))?;
            headers.append(name, value);
        }
        // On the lab's servers a run without a lab of its own would pile its
        // orders up in the public default lab; other APIs ignore the header.
        if !headers.contains_key("lab-secret") && !headers.contains_key("lab-id") {
            let secret = format!("probe-{}", uuid::Uuid::new_v4().simple());
            let value = HeaderValue::from_str(&secret).expect("a uuid is a header value");
            headers.insert("lab-secret", value);
        }
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|error| ProbeError::Client(error.to_string()))?;
        Ok(Self {
            http,
            url: config.url.clone(),
            headers,
            id_field: config.id_field.clone(),
            timeout: config.timeout,
        })
    }

    /// Sends one POST with `key` and `body`, plus `extra` headers.
    pub async fn post(
        &self,
        key: Key<'_>,
        body: &serde_json::Value,
        extra: &[(&str, String)],
    ) -> Answer {
        self.post_to(&self.url, key, body, extra).await
    }

    /// Like [`Self::post`], to another endpoint of the same service.
    pub async fn post_to(
        &self,
        url: &reqwest::Url,
        key: Key<'_>,
        body: &serde_json::Value,
        extra: &[(&str, String)],
    ) -> Answer {
        // An extra header replaces the one of the same name (a second
        // client's identity replaces the first's).
        let mut headers = self.headers.clone();
        for (name, value) in extra {
            match (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                (Ok(name), Ok(value)) => {
                    headers.insert(name, value);
                }
                _ => return Answer::Failed(format!("{name} cannot be sent as a header")),
            }
        }
        let mut request = self
            .http
            .post(url.clone())
            .headers(headers)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Key::Value(key) = key {
            match HeaderValue::from_bytes(key.as_bytes()) {
                Ok(value) => request = request.header("idempotency-key", value),
                Err(_) => return Answer::Failed("the key cannot be sent as a header".to_owned()),
            }
        }
        match request.send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                let replayed = response
                    .headers()
                    .get("idempotent-replayed")
                    .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"true"));
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|value| value.to_str().ok())
                    .and_then(retry_after_seconds);
                let header = |name: reqwest::header::HeaderName| {
                    response
                        .headers()
                        .get(name)
                        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
                };
                let location = header(reqwest::header::LOCATION);
                let content_type = header(CONTENT_TYPE);
                let text = response.text().await.unwrap_or_default();
                Answer::Response {
                    status,
                    replayed,
                    resource: self.resource_of(&text),
                    retry_after,
                    carried: Carried {
                        body: text,
                        location,
                        content_type,
                    },
                }
            }
            Err(error) => Answer::Failed(short_error(&error)),
        }
    }

    /// Sends until the answer is neither a `409` nor a failed connection
    /// (at most six tries), waiting as `Retry-After` asks or backing off.
    pub async fn post_until_settled(&self, key: &str, body: &serde_json::Value) -> Answer {
        self.post_until_settled_with(key, body, &[]).await
    }

    /// Like [`Self::post_until_settled`], with `extra` headers on every try.
    pub async fn post_until_settled_with(
        &self,
        key: &str,
        body: &serde_json::Value,
        extra: &[(&str, String)],
    ) -> Answer {
        let mut answer = self.post(Key::Value(key), body, extra).await;
        for attempt in 0..5u32 {
            let Some(pause) = pause_before_retry(&answer, attempt) else {
                break;
            };
            tokio::time::sleep(pause).await;
            answer = self.post(Key::Value(key), body, extra).await;
        }
        answer
    }

    /// Writes a whole POST over a new connection and closes it without
    /// reading the answer, as a client whose network dropped would.
    /// Only plain `http://` URLs can be probed this way.
    pub async fn post_and_hang_up(
        &self,
        key: &str,
        body: &serde_json::Value,
    ) -> Result<(), String> {
        let post = RawPost::new(&self.url, key, &self.header_pairs(), body)?;
        let mut stream = post.connect().await?;
        post.write(&mut stream).await?;
        drop(stream);
        Ok(())
    }

    /// Sends `copies` copies of one POST so that they are complete at the
    /// server at the same moment: each is written but its last byte, then
    /// every last byte at once. No delay hook needed; only `http://`.
    pub async fn post_all_at_once(
        &self,
        key: &str,
        body: &serde_json::Value,
        copies: usize,
    ) -> Result<Vec<Answer>, String> {
        let post = RawPost::new(&self.url, key, &self.header_pairs(), body)?;
        let mut streams = Vec::with_capacity(copies);
        for _ in 0..copies {
            let mut stream = post.connect().await?;
            post.write_all_but_the_last_byte(&mut stream).await?;
            streams.push(stream);
        }
        let released = join_all(
            streams
                .iter_mut()
                .map(|stream| post.write_the_last_byte(stream)),
        )
        .await;
        if let Some(Err(error)) = released.into_iter().find(Result::is_err) {
            return Err(error);
        }
        let read = join_all(
            streams
                .iter_mut()
                .map(|stream| read_response(stream, self.timeout)),
        )
        .await;
        Ok(read
            .into_iter()
            .map(|response| match response {
                Ok(response) => self.answer_of(response),
                Err(error) => Answer::Failed(error),
            })
            .collect())
    }

    /// The headers every request carries, as name and value.
    fn header_pairs(&self) -> Vec<(String, String)> {
        self.headers
            .iter()
            .map(|(name, value)| {
                (
                    name.to_string(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect()
    }

    /// The answer a response read by hand stands for.
    fn answer_of(&self, response: RawResponse) -> Answer {
        Answer::Response {
            status: response.status,
            replayed: response
                .header("idempotent-replayed")
                .is_some_and(|value| value.eq_ignore_ascii_case("true")),
            resource: self.resource_of(&response.body),
            retry_after: response.header("retry-after").and_then(retry_after_seconds),
            carried: Carried {
                location: response.header("location").map(str::to_owned),
                content_type: response.header("content-type").map(str::to_owned),
                body: response.body,
            },
        }
    }

    fn resource_of(&self, body: &str) -> Option<String> {
        let json: serde_json::Value = serde_json::from_str(body).ok()?;
        match json.get(&self.id_field) {
            Some(serde_json::Value::String(id)) => Some(id.clone()),
            Some(other) => Some(other.to_string()),
            None => Some(body.to_owned()),
        }
    }
}

/// The longest the probe waits before one retry, whatever `Retry-After` asks.
const LONGEST_PAUSE: Duration = Duration::from_secs(5);

/// How long to wait before retrying after `answer` (the `attempt`-th
/// retry, from 0), or `None` if it needs no retry. A `409` is waited out as
/// its `Retry-After` asks (at most [`LONGEST_PAUSE`]); without one, and after
/// a failed connection, the pause starts at 250 ms and doubles, up to 2 s.
pub fn pause_before_retry(answer: &Answer, attempt: u32) -> Option<Duration> {
    let backoff = Duration::from_millis(250 * 2u64.pow(attempt.min(8))).min(Duration::from_secs(2));
    match answer {
        Answer::Failed(_) => Some(backoff),
        Answer::Response {
            status: 409,
            retry_after,
            ..
        } => Some(retry_after.map_or(backoff, |asked| asked.min(LONGEST_PAUSE))),
        Answer::Response { .. } => None,
    }
}

/// A `Retry-After` in delta-seconds (`"1"`); an HTTP date is not understood.
fn retry_after_seconds(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

fn short_error(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_connect() {
        "connection refused or unreachable".to_owned()
    } else {
        "connection closed without a response".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(retry_after: Option<u64>) -> Answer {
        Answer::Response {
            status: 409,
            replayed: false,
            resource: None,
            retry_after: retry_after.map(Duration::from_secs),
            carried: Carried::default(),
        }
    }

    #[test]
    fn a_409_is_waited_out_as_its_retry_after_asks() {
        assert_eq!(
            pause_before_retry(&conflict(Some(3)), 0),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            pause_before_retry(&conflict(Some(3600)), 0),
            Some(LONGEST_PAUSE),
            "a huge Retry-After is capped"
        );
    }

    #[test]
    fn without_retry_after_the_pause_backs_off_and_a_final_answer_needs_none() {
        assert_eq!(
            pause_before_retry(&conflict(None), 0),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            pause_before_retry(&Answer::Failed("timed out".into()), 1),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            pause_before_retry(&Answer::Failed("timed out".into()), 4),
            Some(Duration::from_secs(2))
        );
        let created = Answer::Response {
            status: 201,
            replayed: false,
            resource: Some("id".into()),
            retry_after: Some(Duration::from_secs(1)),
            carried: Carried::default(),
        };
        assert_eq!(pause_before_retry(&created, 0), None);
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        assert_eq!(retry_after_seconds(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
