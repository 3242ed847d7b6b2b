//! The `idempotency-lab` command line: run the lab (the default), probe an
//! endpoint, or benchmark the servers.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::bench_command::{BENCH_AFTER_HELP, BenchArgs, bench};
use crate::explore_command::{EXPLORE_AFTER_HELP, ExploreArgs, explore};
use crate::{Application, Settings};

/// Idempotency Lab: six order servers side by side — naive, naive + lock
/// (locked), safe, transactional, atomic phases (phased) and one trip
/// (onetrip) — a page that
/// sends two of them the same retried, dropped, crashed and concurrent
/// requests, and tools to check any API against the same failures.
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no command, the lab runs with these settings.
    #[command(flatten)]
    settings: Settings,
}

#[derive(Subcommand)]
enum Command {
    /// Run the lab: the six servers (naive, locked, safe, transactional, phased, onetrip) and the page (what happens with no command)
    Serve(Settings),
    /// Try the failure scenarios against any POST endpoint that takes an Idempotency-Key
    #[command(after_help = PROBE_AFTER_HELP)]
    Probe(Box<ProbeArgs>),
    /// Measure the naive, safe, transactional and one-trip servers under load on SQLite and PostgreSQL, next to a no-HTTP baseline
    #[command(after_help = BENCH_AFTER_HELP)]
    Bench(BenchArgs),
    /// Run every order in which copies of one order can pass their statements, on a design's real server and database, and count the orders each left
    #[command(after_help = EXPLORE_AFTER_HELP)]
    Explore(Box<ExploreArgs>),
}

const PROBE_AFTER_HELP: &str = "\
Scenarios: sequential retry, missing key, retry after a dropped connection,
concurrent copies of one key, the same key with a different body, and key
formats (empty, 256 characters, non-ASCII). Each is graded MUST (the work
done once for a key), SHOULD (what the IETF draft's error scenarios ask) or
advice (common practice the draft does not require), with its reference.

Exit status: 0 when no check at the --fail-on level (default must) or above
failed, 1 when one did, 2 when the probe could not run at all.

With --webhook URL --secret whsec_... it probes a webhook receiver instead:
it signs charge.succeeded events in the Standard Webhooks style and sends
one again in sequence (MUST: one effect; SHOULD: acknowledged with a 2xx),
one twice at once (MUST: one effect), one signed with another secret (MUST:
refused, nothing done) and one an hour old (SHOULD: refused). It reads each
event's effects from GET URL/EVENT_ID, answering {\"effects\": N}; without
that count endpoint those checks are n/a.

Example, against the lab's own servers:
  idempotency-lab probe --url http://127.0.0.1:8080/api/naive/orders --race-delay-ms 200
and its inbox receiver (the secret and path: GET /api/webhooks/endpoints):
  idempotency-lab probe --webhook http://127.0.0.1:8080/api/receivers/inbox/labs/default/webhooks --secret whsec_...";

#[derive(Args)]
struct ProbeArgs {
    /// The POST endpoint, e.g. http://127.0.0.1:8080/api/safe/orders
    #[arg(long, required_unless_present = "webhook", conflicts_with = "webhook")]
    url: Option<reqwest::Url>,
    /// A webhook receiver to probe instead, e.g.
    /// http://127.0.0.1:8080/api/receivers/inbox/labs/default/webhooks
    #[arg(long, value_name = "URL", requires = "secret")]
    webhook: Option<reqwest::Url>,
    /// The receiver's webhook secret (whsec_ and base64), which the probe signs with
    #[arg(long, value_name = "WHSEC", requires = "webhook")]
    secret: Option<String>,
    /// An extra header for every request, as 'Name: value' (repeat for more)
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// One client's identity, as 'Name: value'; give it twice (two clients)
    /// to check that a key is not shared across clients
    #[arg(long = "client-header", value_name = "NAME: VALUE")]
    client_headers: Vec<String>,
    /// Another POST endpoint of the same service, to check that a key is
    /// not shared across endpoints
    #[arg(long)]
    other_url: Option<reqwest::Url>,
    /// Another method the endpoint takes with a key (e.g. PATCH), to check
    /// that a key is not shared across methods
    #[arg(long, value_name = "METHOD", value_parser = other_method)]
    other_method: Option<reqwest::Method>,
    /// A JSON body the endpoint accepts
    #[arg(long, default_value = r#"{"item":"coffee","amount_cents":450}"#)]
    body: String,
    /// A different JSON body it also accepts (default: the body with its first number changed)
    #[arg(long)]
    other_body: Option<String>,
    /// How many copies of one key the concurrency scenario sends at once
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(2..=64))]
    copies: u16,
    /// Sent as Lab-Delay-Ms with the concurrent copies: widens the lab's race window (other APIs ignore it)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    race_delay_ms: u64,
    /// Also fire the copies N times with their last bytes released together,
    /// which finds a race without any delay hook (only http://)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    rounds: u32,
    /// The endpoint's failure hook: a header, as 'Name: value', that its
    /// test build turns into a failure of its own work before the work is
    /// done (the lab's is 'Lab-Fault: error-before-create')
    #[arg(long, value_name = "NAME: VALUE")]
    fail_header: Option<String>,
    /// The same, for a failure after the work was done and committed (the
    /// lab's is 'Lab-Fault: error-after-create')
    #[arg(long, value_name = "NAME: VALUE")]
    fail_after_header: Option<String>,
    /// How long a retry after a failure may be refused 409 before the
    /// failed request's claim counts as stuck, in seconds
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    stuck_after_secs: u64,
    /// A GET listing the resources the probe's client can see (a JSON array,
    /// or an object holding one): counted around a failure after the work
    #[arg(long, value_name = "URL")]
    count_url: Option<reqwest::Url>,
    /// The response field that names the created resource
    #[arg(long, default_value = "id")]
    id_field: String,
    /// How long one request may take, in seconds
    #[arg(long, default_value_t = 15)]
    timeout_secs: u64,
    /// Print a JSON report instead of the table; with FILE, save the report there and print the table too
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    json: Option<Option<std::path::PathBuf>>,
    /// Which failures make the exit status 1: `must` (the work done twice
    /// for one key) or `should` (also the draft's SHOULDs: 400 for a
    /// missing key, 409 in progress, 422 for a reused key). Advice never does
    #[arg(long, value_name = "LEVEL", default_value = "must", value_parser = ["must", "should"])]
    fail_on: String,
    /// Also save the report as JUnit XML to FILE, for a CI job: one test
    /// case per check, failing those at the --fail-on level
    #[arg(long, value_name = "FILE")]
    junit: Option<std::path::PathBuf>,
}

impl Cli {
    /// What `idempotency-lab --help` prints, and each command's `--help`
    /// after it (for the test that every design is named).
    pub fn long_help() -> String {
        use clap::CommandFactory;
        let mut command = Self::command();
        let mut help = command.render_long_help().to_string();
        for sub in command.get_subcommands_mut() {
            help.push_str(&sub.render_long_help().to_string());
        }
        help
    }

    /// Runs what the command line asks for.
    pub async fn run(self) -> ExitCode {
        match self.command {
            None => serve(self.settings).await,
            Some(Command::Serve(settings)) => serve(settings).await,
            Some(Command::Probe(args)) => probe(args).await,
            Some(Command::Bench(args)) => bench(args).await,
            Some(Command::Explore(args)) => explore(*args).await,
        }
    }
}

async fn serve(settings: Settings) -> ExitCode {
    lab_platform::start::init_logging();
    lab_platform::serve::raise_open_files_limit();
    let application = match Application::build(&settings).await {
        Ok(application) => application,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "{}",
        crate::startup_message(
            application.local_addr(),
            application.backend_name(),
            application.teacher_token_made(),
        )
    );
    application.run().await;
    println!("Stopped.");
    ExitCode::SUCCESS
}

async fn probe(args: Box<ProbeArgs>) -> ExitCode {
    let cannot_run = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let ran = match (&args.url, &args.webhook) {
        (_, Some(webhook)) => probe_webhook(webhook, &args).await,
        (Some(url), None) => probe_endpoint(url, &args).await,
        (None, None) => Err("give --url or --webhook".to_owned()),
    };
    let report = match ran {
        Ok(report) => report,
        Err(message) => return cannot_run(message),
    };
    let json = serde_json::to_string_pretty(&report).expect("a report always serialises");
    match &args.json {
        Some(None) => println!("{json}"),
        Some(Some(path)) => {
            if let Err(error) = std::fs::write(path, json) {
                return cannot_run(format!("cannot write {}: {error}", path.display()));
            }
            print!("{}", report.to_table());
        }
        None => print!("{}", report.to_table()),
    }
    let fail_on = match args.fail_on.as_str() {
        "should" => probe::Level::Should,
        _ => probe::Level::Must,
    };
    if let Some(path) = &args.junit
        && let Err(error) = std::fs::write(path, report.to_junit(fail_on))
    {
        return cannot_run(format!("cannot write {}: {error}", path.display()));
    }
    ExitCode::from(report.exit_code(fail_on) as u8)
}

/// Probes the POST endpoint `url` as `args` say.
async fn probe_endpoint(url: &reqwest::Url, args: &ProbeArgs) -> Result<probe::Report, String> {
    let parse_json = |what: &str, text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .map_err(|error| format!("{what} is not JSON: {error}"))
    };
    let mut config = probe::ProbeConfig::new(url.clone());
    config.body = match parse_json("--body", &args.body) {
        Ok(body) => body,
        Err(message) => return Err(message),
    };
    config.other_body = match args
        .other_body
        .as_deref()
        .map(|text| parse_json("--other-body", text))
        .transpose()
    {
        Ok(other) => other,
        Err(message) => return Err(message),
    };
    for header in &args.headers {
        match probe::parse_header(header) {
            Ok(pair) => config.headers.push(pair),
            Err(error) => return Err(error.to_string()),
        }
    }
    for header in &args.client_headers {
        match probe::parse_header(header) {
            Ok(pair) => config.client_headers.push(pair),
            Err(error) => return Err(error.to_string()),
        }
    }
    for (hook, given) in [
        (&mut config.fail_header, &args.fail_header),
        (&mut config.fail_after_header, &args.fail_after_header),
    ] {
        match given.as_deref().map(probe::parse_header).transpose() {
            Ok(pair) => *hook = pair,
            Err(error) => return Err(error.to_string()),
        }
    }
    config.stuck_after = Duration::from_secs(args.stuck_after_secs);
    config.count_url = args.count_url.clone();
    config.copies = usize::from(args.copies);
    config.race_delay_ms = args.race_delay_ms;
    config.rounds = args.rounds;
    config.other_url = args.other_url.clone();
    config.other_method = args.other_method.clone();
    config.id_field = args.id_field.clone();
    config.timeout = Duration::from_secs(args.timeout_secs.max(1));
    probe::run(&config).await.map_err(|error| error.to_string())
}

/// Probes the webhook receiver at `url`, signing with `--secret`.
async fn probe_webhook(url: &reqwest::Url, args: &ProbeArgs) -> Result<probe::Report, String> {
    let secret = args.secret.as_deref().unwrap_or_default();
    let key = probe::WebhookKey::from_secret(secret.trim())
        .map_err(|error| format!("--secret: {error}"))?;
    let config = probe::WebhookProbe {
        url: url.clone(),
        key,
        timeout: Duration::from_secs(args.timeout_secs.max(1)),
    };
    probe::run_webhook(&config)
        .await
        .map_err(|error| error.to_string())
}

/// `--other-method`: an HTTP method other than POST, in any case.
fn other_method(text: &str) -> Result<reqwest::Method, String> {
    let method = reqwest::Method::from_bytes(text.trim().to_ascii_uppercase().as_bytes())
        .map_err(|_| format!("{text:?} is not an HTTP method"))?;
    if method == reqwest::Method::POST {
        return Err("give a method other than POST, the one probed".to_owned());
    }
    Ok(method)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_method_is_read_in_any_case_and_post_is_refused() {
        assert_eq!(other_method("patch").unwrap(), reqwest::Method::PATCH);
        assert_eq!(other_method(" PUT ").unwrap(), reqwest::Method::PUT);
        assert!(
            other_method("post")
                .unwrap_err()
                .contains("other than POST")
        );
        assert!(other_method("not a method").is_err());
    }
}
