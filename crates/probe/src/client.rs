//! The probe's side of the conversation: ordinary requests, retries that
//! honour `409` + `Retry-After`, and a request whose connection the probe
//! closes right after sending it.

use std::time::Duration;

use futures::future::join_all;
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

pub use crate::answer::{Answer, Carried};
use crate::config::{ProbeConfig, ProbeError};
use crate::raw_http::{RawPost, RawResponse, read_response};
use crate::retry_pacing::{pause_before_retry, retry_after_seconds};

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
        self.request(&Method::POST, &self.url, key, body, extra)
            .await
    }

    /// Like [`Self::post`], with another method or to another endpoint of
    /// the same service.
    pub async fn send(
        &self,
        method: &Method,
        url: &reqwest::Url,
        key: Key<'_>,
        body: &serde_json::Value,
    ) -> Answer {
        self.request(method, url, key, body, &[]).await
    }

    async fn request(
        &self,
        method: &Method,
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
            .request(method.clone(), url.clone())
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
                let retention = header(HeaderName::from_static("idempotency-ttl"));
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
                        retention,
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

    /// Sends until the answer is neither a `409` nor a failed connection,
    /// or until `bound` has passed since the first try, waiting as
    /// `Retry-After` asks (never past the bound) or backing off. Returns
    /// the last answer, and how long after the first try it came.
    pub async fn post_until_answered_within(
        &self,
        key: &str,
        body: &serde_json::Value,
        bound: Duration,
    ) -> (Answer, Duration) {
        let started = tokio::time::Instant::now();
        let mut answer = self.post(Key::Value(key), body, &[]).await;
        for attempt in 0.. {
            let (Some(pause), Some(left)) = (
                pause_before_retry(&answer, attempt),
                bound.checked_sub(started.elapsed()),
            ) else {
                break;
            };
            if left.is_zero() {
                break;
            }
            tokio::time::sleep(pause.min(left)).await;
            answer = self.post(Key::Value(key), body, &[]).await;
        }
        (answer, started.elapsed())
    }

    /// How many resources `url` lists (a GET with the probe's headers):
    /// the length of a JSON array, or of the one array an object holds.
    pub async fn count_resources(&self, url: &reqwest::Url) -> Result<usize, String> {
        let response = self
            .http
            .get(url.clone())
            .headers(self.headers.clone())
            .send()
            .await
            .map_err(|error| format!("--count-url: {}", short_error(&error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("--count-url answered {}", status.as_u16()));
        }
        let json: serde_json::Value = response
            .json()
            .await
            .map_err(|_| "--count-url did not answer JSON".to_owned())?;
        count_listed(&json).ok_or_else(|| "--count-url answered no JSON array".to_owned())
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
                retention: response.header("idempotency-ttl").map(str::to_owned),
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

/// The length of `json` if it is an array, or of the one array among an
/// object's values (`{"orders": [...], "total": 3}`).
fn count_listed(json: &serde_json::Value) -> Option<usize> {
    match json {
        serde_json::Value::Array(items) => Some(items.len()),
        serde_json::Value::Object(fields) => {
            let mut arrays = fields.values().filter_map(serde_json::Value::as_array);
            match (arrays.next(), arrays.next()) {
                (Some(only), None) => Some(only.len()),
                _ => None,
            }
        }
        _ => None,
    }
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

    #[test]
    fn a_listing_is_counted_as_an_array_or_an_object_holding_one() {
        use serde_json::json;
        assert_eq!(count_listed(&json!([1, 2, 3])), Some(3));
        assert_eq!(
            count_listed(&json!({"orders": [1, 2], "total": 2})),
            Some(2)
        );
        assert_eq!(
            count_listed(&json!({"a": [1], "b": [2]})),
            None,
            "which one?"
        );
        assert_eq!(count_listed(&json!({"total": 2})), None);
        assert_eq!(count_listed(&json!(7)), None);
    }
}
