//! `idempotency-lab bench`: its options, the run with a progress line, and
//! the tables and files it writes.

use std::process::ExitCode;

use clap::Args;

pub(crate) const BENCH_AFTER_HELP: &str = "\
Each cell sends its requests from N workers at once ('in flight') to one
target: the naive, safe, transactional or one-trip server over HTTP, or the
same flow called directly (naive-sql, safe-sql, transactional-sql,
onetrip-sql: the same SQL statements, no HTTP; onetrip-sql is claim, order
and answer in one statement, the raw rate of the production recipe). Two workloads: unique
keys (the cost of the check on every request) and duplicate-heavy (each key
sent --copies times at once). After each cell the orders are counted, so
double charges show up next to the speed. Everything runs in this one process
on loopback, so compare ratios rather than absolute numbers.

On PostgreSQL a full run (or --pgbench) also sends the naive and the safe
server's statements through pgbench, PostgreSQL's own load generator (rows
pgbench-naive, pgbench-safe): the rate the database allows them with no lab
in between, and pgbench's own CPU per request, the least a client spends
on them.

--peer NAME=URL adds another endpoint (the article's Express handlers, your
own API) to the first storage's rounds, over HTTP with the same keys and
body; its orders are its own, so its rows show — for orders and duplicates.
With NAME=URL@PID its server's CPU time per request is read from
/proc/PID/stat, as the lab's own is read for every row (the process's time
less the load generator's threads).

Exit status: 0 when the run finished (goals met or not), 2 when it could not run.";

#[derive(Args)]
pub(crate) struct BenchArgs {
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
    /// Also measure another endpoint that takes an Idempotency-Key, in the same rounds (repeatable), e.g. express-safe=http://127.0.0.1:4010/safe/orders; add @PID (its server's process) for its CPU per request
    #[arg(long = "peer", value_name = "NAME=URL[@PID]", value_parser = parse_peer)]
    peers: Vec<bench::Peer>,
    /// Also send the naive and safe flows' statements through pgbench on PostgreSQL, as a full run does (when pgbench is installed)
    #[arg(long)]
    pgbench: bool,
    /// Measure a shared room instead: ordinary orders in one lab while another holds 100 slow requests, 300 step streams and 300 half-sent requests
    #[arg(long, conflicts_with_all = ["quick", "concurrency", "requests", "rounds", "copies", "csv", "peers", "pgbench"])]
    room: bool,
    /// Simulate a workshop instead: --learners learners, each in a lab of its own, going through the guided lesson's runs at once against one lab on the first --storage
    #[arg(long, conflicts_with_all = ["quick", "concurrency", "requests", "rounds", "copies", "csv", "peers", "pgbench", "room"])]
    classroom: bool,
    /// Learners in the --classroom simulation
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1000))]
    learners: u32,
    /// The classroom lab's PostgreSQL transactions pool (see the lab's --transaction-connections)
    #[arg(long, default_value_t = lab_platform::db::TRANSACTION_CONNECTIONS, value_parser = clap::value_parser!(u32).range(4..=1000))]
    transaction_connections: u32,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StorageName {
    Sqlite,
    Postgres,
}

async fn bench_room(storages: Vec<bench::Storage>, json: Option<&std::path::Path>) -> ExitCode {
    // Both ends of 600 held connections live in this one process.
    lab_platform::serve::raise_open_files_limit();
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

/// Starts the whole lab over `storage` and runs a room of `learners` through it.
async fn bench_classroom(
    storage: bench::Storage,
    learners: usize,
    transaction_connections: u32,
    json: Option<&std::path::Path>,
) -> ExitCode {
    // Each learner's step stream holds a connection, both of whose ends are in this process.
    lab_platform::serve::raise_open_files_limit();
    let database_url = match &storage {
        bench::Storage::Sqlite => None,
        bench::Storage::Postgres(url) => Some(url.clone()),
    };
    let (base, name) =
        match crate::local_lab::start_lab(database_url, transaction_connections).await {
            Ok(started) => started,
            Err(error) => {
                eprintln!("error: {error}");
                eprintln!("(without PostgreSQL, run with --storage sqlite)");
                return ExitCode::from(2);
            }
        };
    eprintln!("{learners} learners go through the lesson on {name} …");
    let report =
        match crate::classroom::simulate(&base, learners, name, transaction_connections).await {
            Ok(report) => report,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
        };
    println!("{}", crate::classroom::to_table(&report));
    let written = json.is_none_or(|path| {
        write_file(
            path,
            &serde_json::to_string_pretty(&report).expect("the report serialises"),
        )
    });
    if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

pub(crate) async fn bench(args: BenchArgs) -> ExitCode {
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
    if args.classroom {
        let Some(storage) = storages.into_iter().next() else {
            eprintln!("error: name a --storage for the classroom");
            return ExitCode::from(2);
        };
        return bench_classroom(
            storage,
            args.learners as usize,
            args.transaction_connections,
            args.json.as_deref(),
        )
        .await;
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
    config.peers = args.peers;
    config.pgbench |= args.pgbench;

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

/// `NAME=URL` or `NAME=URL@PID`: a name for the tables (letters, digits,
/// `-`, `_`; not one of the lab's own targets), an http(s) URL, and the
/// process serving it, whose CPU time is then read per cell.
fn parse_peer(text: &str) -> Result<bench::Peer, String> {
    let (name, url) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: write a peer as NAME=URL or NAME=URL@PID"))?;
    let (url, pid) = match url.rsplit_once('@') {
        Some((url, pid)) if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) => {
            let pid: u32 = pid.parse().map_err(|_| format!("{pid:?}: not a PID"))?;
            if !std::path::Path::new(&format!("/proc/{pid}/stat")).exists() {
                return Err(format!("{pid}: no such process to read the CPU time of"));
            }
            (url, Some(pid))
        }
        _ => (url, None),
    };
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || name.len() > 40 || !name.chars().all(allowed) {
        return Err(format!(
            "{name:?}: a peer's name is 1 to 40 letters, digits, '-' or '_'"
        ));
    }
    if bench::Target::ALL
        .iter()
        .any(|target| target.name() == name)
    {
        return Err(format!(
            "{name:?} is one of the lab's own targets; name the peer otherwise"
        ));
    }
    let parsed = reqwest::Url::parse(url).map_err(|error| format!("{url:?}: {error}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("{url:?}: a peer is an http:// or https:// URL"));
    }
    Ok(bench::Peer {
        // Kept for the whole run, as the lab's own target names are.
        name: Box::leak(name.to_owned().into_boxed_str()),
        url: parsed.to_string(),
        pid,
    })
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
