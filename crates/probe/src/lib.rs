//! The probe: runs the lab's failure scenarios against any POST endpoint
//! that takes an `Idempotency-Key` — the lab's own servers or anyone
//! else's — and reports, per scenario, what the IETF draft and common
//! practice expect, what the endpoint did, and whether that passes; and,
//! with `--webhook`, the receiving side: a webhook receiver sent one event
//! twice, at once, forged and replayed.

mod answer;
mod client;
mod config;
mod junit;
mod raw_http;
mod report;
mod retry_pacing;
mod scenarios;
mod webhook;

pub use config::{ProbeConfig, ProbeError, parse_header};
pub use report::{Level, Report, ScenarioResult, Verdict};
pub use webhook::{WebhookProbe, run as run_webhook};
pub use webhook_signature::WebhookKey;

/// Runs every scenario in turn and reports each.
pub async fn run(config: &ProbeConfig) -> Result<Report, ProbeError> {
    let client = client::Client::new(config)?;
    let results = scenarios::run_all(&client, config).await?;
    Ok(Report::new(config.url.to_string(), results))
}
