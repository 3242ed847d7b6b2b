//! What the browser itself reported while showing the page: Chromium's
//! log (chromedriver's `se/log`, which fantoccini has no call for), where a
//! Content-Security-Policy violation is written the moment it happens.

use fantoccini::wd::WebDriverCompatibleCommand;

use super::Learner;

impl Learner {
    /// What the browser refused for the page's Content-Security-Policy
    /// since this was last asked (each line as Chromium logged it).
    pub async fn policy_violations(&self) -> Vec<String> {
        let log = self
            .browser
            .issue_cmd(BrowserLog)
            .await
            .expect("chromedriver gives the browser's log");
        log.as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| entry["message"].as_str())
            .filter(|message| is_policy_violation(message))
            .map(str::to_owned)
            .collect()
    }
}

/// chromedriver's "get log" of the `browser` log: everything logged since
/// the last time it was read.
#[derive(Debug)]
pub(super) struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let session = session_id.unwrap_or_default();
        base_url.join(&format!("session/{session}/se/log"))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(r#"{"type":"browser"}"#.to_owned()))
    }
}

/// Whether a log line is the browser refusing something for the page's
/// Content-Security-Policy (Chromium writes "Refused to … because it
/// violates the following Content Security Policy directive").
pub(super) fn is_policy_violation(message: &str) -> bool {
    message.contains("Content Security Policy") || message.contains("Content-Security-Policy")
}
