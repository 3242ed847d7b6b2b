//! The `idempotency-lab` command line: run the lab (the default), probe an
//! endpoint, or benchmark the servers.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::{Application, Settings};

/// Idempotency Lab: a naive, a safe and a transactional order server side by
/// side, a page that sends two of them the same retried, dropped, crashed and
/// concurrent requests, and tools to check any API against the same failures.
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
    /// Run the lab: the three servers and the page (what happens with no command)
    Serve(Settings),
    /// Try the failure scenarios against any POST endpoint that takes an Idempotency-Key
    #[command(after_help = PROBE_AFTER_HELP)]
    Probe(ProbeArgs),
    /// Measure the naive and the safe server under load on SQLite and PostgreSQL, next to a no-HTTP baseline
    #[command(after_help = BENCH_AFTER_HELP)]
    Bench(BenchArgs),
}

const BENCH_AFTER_HELP: &str = "\
Each cell sends its requests from N workers at once ('in flight') to one
target: the naive or safe server over HTTP, or the same flow called directly
(naive-sql, safe-sql: the same SQL statements, no HTTP). Two workloads: unique
keys (the cost of the check on every request) and duplicate-heavy (each key
sent --copies times at once). After each cell the orders are counted, so
double charges show up next to the speed. Everything runs in this one process
on loopback, so compare ratios rather than absolute numbers.

Exit status: 0 when the run finished (goals met or not), 2 when it could not run.";

#[derive(Args)]
struct BenchArgs {
    /// A run of a few seconds: 80 requests per cell, 1 and 4 in flight, one round (what the tests use)
    #[arg(long)]
    quick: bool,
    /// Storages to measure, comma-separated
    #[arg(long, value_delimiter = ',', default_value = "sqlite,postgres")]
    storage: Vec<StorageName>,
    /// The PostgreSQL database for the postgres cells (its tables are created if missing)
    #[arg(
        long,
        env = "BENCH_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    postgres_url: String,
    /// Requests in flight, comma-separated, one cell per level [default: 1,4,16; quick: 1,4]
    #[arg(long, value_delimiter = ',')]
    concurrency: Option<Vec<usize>>,
    /// Requests per cell [default: 2000; quick: 80]
    #[arg(long)]
    requests: Option<usize>,
    /// Times each cell is measured; the median round is reported [default: 3; quick: 1]
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=20))]
    rounds: Option<u16>,
    /// Copies of each key sent at once in the duplicate-heavy workload
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(2..=64))]
    copies: u16,
    /// Also write the results and goals as JSON to this file
    #[arg(long, value_name = "FILE")]
    json: Option<std::path::PathBuf>,
    /// Also write the results as CSV to this file
    #[arg(long, value_name = "FILE")]
    csv: Option<std::path::PathBuf>,
    /// Measure a shared room instead: ordinary orders in one lab while another holds 100 slow requests, 300 step streams and 300 half-sent requests
    #[arg(long, conflicts_with_all = ["quick", "concurrency", "requests", "rounds", "copies", "csv"])]
    room: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StorageName {
    Sqlite,
    Postgres,
}

const PROBE_AFTER_HELP: &str = "\
Scenarios: sequential retry, missing key, retry after a dropped connection,
concurrent copies of one key, the same key with a different body, and key
formats (empty, 256 characters, non-ASCII).

Exit status: 0 when every scenario went as expected (or could not be tried),
1 when at least one did not, 2 when the probe could not run at all.

Example, against the lab's own servers:
  idempotency-lab probe --url http://127.0.0.1:8080/api/naive/orders --race-delay-ms 200";

#[derive(Args)]
struct ProbeArgs {
    /// The POST endpoint, e.g. http://127.0.0.1:8080/api/safe/orders
    #[arg(long)]
    url: reqwest::Url,
    /// An extra header for every request, as 'Name: value' (repeat for more)
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
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
    /// The response field that names the created resource
    #[arg(long, default_value = "id")]
    id_field: String,
    /// How long one request may take, in seconds
    #[arg(long, default_value_t = 15)]
    timeout_secs: u64,
    /// Print a JSON report instead of the table; with FILE, save the report there and print the table too
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    json: Option<Option<std::path::PathBuf>>,
}

impl Cli {
    /// Runs what the command line asks for.
    pub async fn run(self) -> ExitCode {
        match self.command {
            None => serve(self.settings).await,
            Some(Command::Serve(settings)) => serve(settings).await,
            Some(Command::Probe(args)) => probe(args).await,
            Some(Command::Bench(args)) => bench(args).await,
        }
    }
}

async fn serve(settings: Settings) -> ExitCode {
    lab_core::standalone::init_logging();
    lab_core::serve::raise_open_files_limit();
    let application = match Application::build(&settings).await {
        Ok(application) => application,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let addr = application.local_addr();
    println!(
        "Idempotency Lab is running (storage: {}).",
        application.backend_name()
    );
    println!("  Open http://{addr}/ in a browser.");
    println!(
        "  APIs: http://{addr}/api/naive/orders, http://{addr}/api/safe/orders and http://{addr}/api/transactional/orders"
    );
    match application.teacher_token_made() {
        Some(token) => println!(
            "  Teacher's token (reads every lab; set --teacher-token to keep one across restarts): {token}"
        ),
        None => println!("  Teacher's token: the one given with --teacher-token."),
    }
    println!("Press Ctrl-C to stop.");
    application.run().await;
    println!("Stopped.");
    ExitCode::SUCCESS
}

async fn probe(args: ProbeArgs) -> ExitCode {
    let cannot_run = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let parse_json = |what: &str, text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .map_err(|error| format!("{what} is not JSON: {error}"))
    };
    let mut config = probe::ProbeConfig::new(args.url);
    config.body = match parse_json("--body", &args.body) {
        Ok(body) => body,
        Err(message) => return cannot_run(message),
    };
    config.other_body = match args
        .other_body
        .as_deref()
        .map(|text| parse_json("--other-body", text))
        .transpose()
    {
        Ok(other) => other,
        Err(message) => return cannot_run(message),
    };
    for header in &args.headers {
        match probe::parse_header(header) {
            Ok(pair) => config.headers.push(pair),
            Err(error) => return cannot_run(error.to_string()),
        }
    }
    config.copies = usize::from(args.copies);
    config.race_delay_ms = args.race_delay_ms;
    config.id_field = args.id_field;
    config.timeout = Duration::from_secs(args.timeout_secs.max(1));

    let report = match probe::run(&config).await {
        Ok(report) => report,
        Err(error) => return cannot_run(error.to_string()),
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
    ExitCode::from(report.exit_code() as u8)
}

async fn bench_room(storages: Vec<bench::Storage>, json: Option<&std::path::Path>) -> ExitCode {
    // Both ends of 600 held connections live in this one process.
    lab_core::serve::raise_open_files_limit();
    let mut results = Vec::new();
    for storage in &storages {
        eprintln!("Loading a room on {} …", storage.name());
        match bench::measure_room(storage).await {
            Ok(measured) => results.extend(measured),
            Err(error) => {
                eprintln!("error: {error}");
                eprintln!("(without PostgreSQL, run with --storage sqlite)");
                return ExitCode::from(2);
            }
        }
    }
    println!("{}", bench::to_room_table(&results));
    let written = json.is_none_or(|path| {
        write_file(
            path,
            &serde_json::to_string_pretty(&results).expect("results serialise"),
        )
    });
    if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

async fn bench(args: BenchArgs) -> ExitCode {
    let storages = args
        .storage
        .iter()
        .map(|name| match name {
            StorageName::Sqlite => bench::Storage::Sqlite,
            StorageName::Postgres => bench::Storage::Postgres(args.postgres_url.clone()),
        })
        .collect();
    if args.room {
        return bench_room(storages, args.json.as_deref()).await;
    }
    let mut config = if args.quick {
        bench::BenchConfig::quick(storages)
    } else {
        bench::BenchConfig::full(storages)
    };
    if let Some(levels) = args.concurrency {
        config.concurrency = levels
            .into_iter()
            .map(|level| level.clamp(1, 256))
            .collect();
    }
    if let Some(requests) = args.requests {
        config.requests = requests.clamp(1, 1_000_000);
    }
    config.copies = usize::from(args.copies);
    if let Some(rounds) = args.rounds {
        config.rounds = usize::from(rounds);
    }

    let mut progress = Progress::new();
    let results = match bench::run(&config, |done, total, what| {
        progress.show(done, total, what)
    })
    .await
    {
        Ok(results) => results,
        Err(error) => {
            progress.finish();
            eprintln!("error: {error}");
            eprintln!("(without PostgreSQL, run with --storage sqlite)");
            return ExitCode::from(2);
        }
    };
    progress.finish();
    let goals = bench::evaluate_goals(&results);
    println!("{}", bench::to_table(&results));
    println!("Goals:");
    for goal in &goals {
        println!("- {}: {} ({})", goal.goal, goal.status, goal.detail);
    }
    let mut written = true;
    if let Some(path) = &args.json {
        let json = serde_json::json!({ "results": results, "goals": goals });
        written &= write_file(
            path,
            &serde_json::to_string_pretty(&json).expect("results serialise"),
        );
    }
    if let Some(path) = &args.csv {
        written &= write_file(path, &bench::to_csv(&results));
    }
    if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn write_file(path: &std::path::Path, text: &str) -> bool {
    match std::fs::write(path, text) {
        Ok(()) => {
            eprintln!("wrote {}", path.display());
            true
        }
        Err(error) => {
            eprintln!("error: cannot write {}: {error}", path.display());
            false
        }
    }
}

/// A progress bar on a terminal; one line per step otherwise (logs, CI).
struct Progress {
    terminal: bool,
}

impl Progress {
    fn new() -> Self {
        use std::io::IsTerminal;
        Self {
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn show(&mut self, done: usize, total: usize, what: &str) {
        let width = 30;
        let filled = (done * width).checked_div(total).unwrap_or(width);
        let bar = format!(
            "[{}{}] {done}/{total}",
            "#".repeat(filled),
            " ".repeat(width - filled)
        );
        if self.terminal {
            eprint!("\r\x1b[2K{bar} {what}");
        } else {
            eprintln!("{bar} {what}");
        }
    }

    fn finish(&mut self) {
        if self.terminal {
            eprintln!();
        }
    }
}
