//! `idempotency-lab explore`: every order in which copies of one order can
//! run their statements, on the lab's real servers and database (see the
//! `explorer` crate).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use explorer::{Crashes, Plan, Report, ScheduleRun, Target, parse_schedule};
use lab_client::Locale;
use lab_client::sequence::describe;
use lab_wire::run::Design;

pub const EXPLORE_AFTER_HELP: &str = "\
Each copy stops before every statement (a gate); a schedule is the order
in which the copies are let through, e.g. `1 2 1 1 2 2 2 1`. Every
schedule runs on the real server and database, on a fresh key in a lab of
its own; a copy the database makes wait (another copy's transaction holds
its key) is skipped until it can move. Three copies have tens of
thousands of schedules: they are bounded to 2 preemptions (switches away
from a copy that could still move), as CHESS does, unless told. With
--reduce, one schedule of each set that differ only by moves that commute
(a copy's answer and anything another copy does; two look-ups) runs:
every outcome is still met, in far fewer runs.

Exit status: 0 when every schedule kept the design's promise (naive
promises nothing), 1 when a design that promises one order per key left
more, 2 when the exploration could not run.

Examples:
  idempotency-lab explore --design naive
  idempotency-lab explore --design locked --crash
  idempotency-lab explore --design naive --drop
  idempotency-lab explore --design transactional --database-url postgres://postgres@127.0.0.1:5432/postgres
  idempotency-lab explore --design naive --schedule '1 1 2 1 1 2 2 2'
  idempotency-lab explore --design safe --copies 3 --preemptions 1
  idempotency-lab explore --design phased --crash --reduce";

#[derive(Args)]
pub struct ExploreArgs {
    /// The design: naive, locked, safe, transactional, phased or onetrip
    #[arg(long, value_parser = design)]
    design: Design,
    /// How many copies of one order, with one key, race
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    copies: u8,
    /// Storage: a postgres:// URL, or (the default) a new SQLite file in the temporary folder
    #[arg(long)]
    database_url: Option<String>,
    /// Also crash one copy at any of its gates, in every way, followed by
    /// its client's retry with the same key
    #[arg(long, conflicts_with = "drop")]
    crash: bool,
    /// Also drop one copy's answer (crash it at its answer gate, its work
    /// done), in every way, followed by its client's retry with the same key
    #[arg(long)]
    drop: bool,
    /// Run this one schedule (the copies released in order; `x1` crashes
    /// copy 1) and print its steps
    #[arg(long, value_name = "CHOICES")]
    schedule: Option<String>,
    /// The most schedules to run; an exploration that needs more stops with an error
    #[arg(long, default_value_t = 20_000)]
    max_schedules: usize,
    /// At most this many preemptions per schedule (a switch away from a
    /// copy that could still move); with 3 copies, 2 unless told
    #[arg(long, value_name = "N")]
    preemptions: Option<usize>,
    /// Run one schedule of each set of equivalent schedules (they differ
    /// only by swapping moves that commute, such as a copy's answer and
    /// another copy's statement, or two look-ups), not every one; with 3
    /// copies, no bound on preemptions
    #[arg(long, conflicts_with = "preemptions")]
    reduce: bool,
    /// How many schedules run at once, each in a lab and on a key of its own
    #[arg(long, default_value_t = explorer::DEFAULT_JOBS, value_parser = jobs)]
    jobs: usize,
    /// Also write every schedule's moves, steps, orders and answers to this JSON file
    #[arg(long)]
    json: Option<PathBuf>,
}

fn design(name: &str) -> Result<Design, String> {
    Design::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Design::ALL.iter().map(|design| design.name()).collect();
        format!("not a design; one of {}", names.join(", "))
    })
}

/// 1 to 16 schedules at once: each holds a few requests and, on
/// PostgreSQL, a few of the server's transaction connections.
fn jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(jobs @ 1..=16) => Ok(jobs),
        _ => Err("a number from 1 to 16".to_owned()),
    }
}

/// Whether `design` promises one order per key however its copies interleave.
fn promises_one_order(design: Design) -> bool {
    design != Design::Naive
}

pub async fn explore(args: ExploreArgs) -> ExitCode {
    let cannot_run = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let schedule = match args.schedule.as_deref().map(parse_schedule).transpose() {
        Ok(schedule) => schedule,
        Err(message) => return cannot_run(format!("--schedule: {message}")),
    };
    let crashes = match (args.crash, args.drop) {
        (true, _) => Crashes::AnyGate,
        (false, true) => Crashes::AnswerOnly,
        (false, false) => Crashes::Never,
    };
    let connections = lab_platform::db::TRANSACTION_CONNECTIONS;
    let (base, storage) =
        match crate::local_lab::start_lab(args.database_url.clone(), connections).await {
            Ok(started) => started,
            Err(message) => return cannot_run(message),
        };
    let target = Target::new(format!("{base}/api/{}/orders", args.design.name()));
    if let Some(schedule) = schedule {
        return match explorer::run_schedule(&target, args.copies, &schedule, crashes).await {
            Ok(run) => {
                println!("{}", describe_run(&run));
                ExitCode::SUCCESS
            }
            Err(error) => cannot_run(error.to_string()),
        };
    }
    let plan = Plan {
        design: args.design.name().to_owned(),
        copies: args.copies,
        crash: crashes,
        max_schedules: args.max_schedules,
        jobs: args.jobs,
        preemptions: args
            .preemptions
            .or((args.copies == 3 && !args.reduce).then_some(explorer::PREEMPTIONS_FOR_THREE)),
        reduce: args.reduce,
    };
    let started = Instant::now();
    let which = if args.reduce {
        "one schedule of each set of equivalent ones"
    } else {
        "every schedule"
    };
    eprintln!(
        "exploring {which} of {} copies{} on {} ({storage}), {} at a time …",
        args.copies,
        crashes.words(),
        args.design.name(),
        args.jobs
    );
    let report = match explorer::explore(&target, &plan).await {
        Ok(report) => report,
        Err(error) => return cannot_run(error.to_string()),
    };
    let took = started.elapsed();
    println!("{}", summary_table(&report, storage, took));
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("a report serialises");
        if let Err(error) = std::fs::write(path, json) {
            return cannot_run(format!("cannot write {}: {error}", path.display()));
        }
    }
    if promises_one_order(args.design) && report.broken().next().is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The summary, a line per number of orders left, and the shortest counterexample.
fn summary_table(report: &Report, storage: &str, took: std::time::Duration) -> String {
    let mut text = format!("{}\n\n", report.summary());
    let most_orders = report
        .runs
        .iter()
        .map(|run| run.orders.len())
        .max()
        .unwrap_or(0);
    text.push_str("orders left | schedules\n---|---\n");
    for orders in 0..=most_orders {
        let count = report
            .runs
            .iter()
            .filter(|run| run.orders.len() == orders)
            .count();
        if count > 0 {
            text.push_str(&format!("{orders} | {count}\n"));
        }
    }
    let seconds = took.as_secs_f64();
    let rate = report.runs.len() as f64 / seconds.max(f64::EPSILON);
    text.push_str(&format!(
        "\n{} schedules on {storage} in {seconds:.1} s ({rate:.0} schedules/s)\n",
        report.runs.len()
    ));
    if report.cut_short > 0 {
        text.push_str(&format!(
            "and {} runs ended early, equivalent to a schedule above\n",
            report.cut_short
        ));
    }
    if let Some(shortest) = report.shortest_counterexample() {
        text.push_str(&format!(
            "\nThe shortest counterexample, `{}`:\n{}",
            shortest.schedule_text(),
            describe_run(shortest)
        ));
    }
    text
}

/// A schedule's steps, in words, and what it left.
fn describe_run(run: &ScheduleRun) -> String {
    let mut text = format!("schedule `{}`\n", run.schedule_text());
    let mut requests: Vec<u64> = Vec::new();
    for step in &run.steps {
        if !requests.contains(&step.request) {
            requests.push(step.request);
        }
        let copy = 1 + requests
            .iter()
            .position(|request| *request == step.request)
            .expect("pushed above");
        let words = describe(&step.kind, Locale::en);
        text.push_str(&format!("  copy {copy}  {words}\n"));
    }
    for answer in &run.answers {
        let status = answer
            .status
            .map_or("no answer".to_owned(), |status| status.to_string());
        let replay = if answer.replayed { " (replay)" } else { "" };
        text.push_str(&format!("copy {}: {status}{replay}\n", answer.copy));
    }
    text.push_str(&format!(
        "orders left for the key: {}{}\n",
        run.orders.len(),
        if run.broke_the_promise() {
            " — the promise of one order is broken"
        } else {
            ""
        }
    ));
    text
}
