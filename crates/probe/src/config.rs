//! What to probe and how, the header syntax of `--header`, and how a probe
//! fails to run.

use std::time::Duration;

/// What to probe, and how.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// The endpoint, e.g. `http://127.0.0.1:8080/api/safe/orders`.
    pub url: reqwest::Url,
    /// Extra headers sent with every request (authentication, `Lab-Secret`,
    /// …). Without a `Lab-Secret` or `Lab-Id`, a random `Lab-Secret` is
    /// sent: on the lab's servers each run gets a private lab of its own.
    pub headers: Vec<(String, String)>,
    /// Two clients' identities (e.g. two `Authorization` headers), one
    /// header each, for the check that a key is not shared across clients.
    pub client_headers: Vec<(String, String)>,
    /// Another POST endpoint of the same service, for the check that a key
    /// is not shared across endpoints.
    pub other_url: Option<reqwest::Url>,
    /// Another method the endpoint takes with a key (e.g. `PATCH`), for the
    /// check that a key is not shared across methods.
    pub other_method: Option<reqwest::Method>,
    /// A body the endpoint accepts.
    pub body: serde_json::Value,
    /// A different body the endpoint also accepts; derived from `body` if absent.
    pub other_body: Option<serde_json::Value>,
    /// How many concurrent copies the race scenario sends.
    pub copies: usize,
    /// Sent as `Lab-Delay-Ms` with the concurrent copies only: widens the
    /// lab's race window; other APIs ignore the header.
    pub race_delay_ms: u64,
    /// How many rounds of copies with their last bytes released together
    /// (no delay hook needed); 0 leaves that check out.
    pub rounds: u32,
    /// The endpoint's failure hook: a header its test build turns into a
    /// failure of its own work before the work is done (`--fail-header`).
    pub fail_header: Option<(String, String)>,
    /// The same, for a failure after the work was done and committed
    /// (`--fail-after-header`).
    pub fail_after_header: Option<(String, String)>,
    /// How long a retry after a failure may be refused 409 before the
    /// failed request's claim counts as stuck.
    pub stuck_after: Duration,
    /// A GET that lists the resources the probe's client can see (a JSON
    /// array, or an object holding one): counted around a failure after
    /// the work, to tell a recovered resource from a second one.
    pub count_url: Option<reqwest::Url>,
    /// The response field that names the created resource.
    pub id_field: String,
    /// How long one request may take.
    pub timeout: Duration,
}

/// Why the probe could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A header given on the command line is not a valid HTTP header.
    #[error("invalid header {0:?}: write it as 'Name: value'")]
    InvalidHeader(String),
    /// The HTTP client could not be built.
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
    /// The endpoint did not accept the probe's first, ordinary request.
    #[error(
        "the endpoint did not accept an ordinary request with a fresh key ({0}); check --url, --header and --body"
    )]
    NotAccepted(String),
}

impl ProbeConfig {
    /// A configuration with the defaults of the command line.
    pub fn new(url: reqwest::Url) -> Self {
        Self {
            url,
            headers: Vec::new(),
            client_headers: Vec::new(),
            other_url: None,
            other_method: None,
            body: serde_json::json!({"item": "coffee", "amount_cents": 450}),
            other_body: None,
            copies: 8,
            race_delay_ms: 0,
            rounds: 0,
            fail_header: None,
            fail_after_header: None,
            stuck_after: Duration::from_secs(30),
            count_url: None,
            id_field: "id".to_owned(),
            timeout: Duration::from_secs(15),
        }
    }
}

/// Parses `Name: value` into a header pair.
pub fn parse_header(text: &str) -> Result<(String, String), ProbeError> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| ProbeError::InvalidHeader(text.to_owned()))?;
    let (name, value) = (name.trim(), value.trim());
    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err()
        || reqwest::header::HeaderValue::from_str(value).is_err()
    {
        return Err(ProbeError::InvalidHeader(text.to_owned()));
    }
    Ok((name.to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_as_name_colon_value() {
        assert_eq!(
            parse_header("Lab-Id: room-3").unwrap(),
            ("Lab-Id".into(), "room-3".into())
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("bad name: x").is_err());
    }
}
