//! `cargo xtask run` starts the lab; `cargo xtask test` runs every test.
//! Each installs what it needs that is missing and says what it is doing.

mod catalogue;
mod docs;
mod layout;
mod lighthouse;
mod page_build;
mod postgres;
mod shell;
mod tools;

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::shell::{cargo, say, step};

#[derive(Parser)]
#[command(about = "Set up, run and test Idempotency Lab")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install what is missing, build the page and start the lab on http://127.0.0.1:8080
    Run {
        /// Passed on to the lab, e.g. `-- --addr 0.0.0.0:8080` or `-- --database-url postgres://…`
        #[arg(last = true)]
        lab_args: Vec<String>,
    },
    /// Check that no files of a crate import each other in a cycle, and that no file is over 400 lines
    CheckLayout,
    /// Check that every language of the catalogue has every message, and that the page's code holds no text of its own
    CheckCatalogue,
    /// Check that the READMEs link every design's handler and that no document counts the designs wrong
    CheckDocs,
    /// Measure the page as a learner's phone gets it: Lighthouse (mobile) on the learner's page and the run viewer, and the bytes of a first and a second visit
    Lighthouse,
    /// Install what is missing, start PostgreSQL if needed, then run lints and every test
    Test {
        /// Skip `cargo fmt --check` and `cargo clippy`
        #[arg(long)]
        no_lint: bool,
        /// Then run the chaos test at full volume (100,000 requests per safe
        /// design and database, printing its figures) and Schemathesis with a
        /// fresh seed, printed (about 10 more minutes)
        #[arg(long)]
        long: bool,
    },
}

fn main() -> Result<()> {
    let root = workspace_root();
    tools::put_tool_folders_on_path(&root);
    std::env::set_current_dir(&root)?;
    match Cli::parse().task {
        Task::Run { lab_args } => run(&root, &lab_args),
        Task::CheckLayout => {
            println!("{}", layout::check(&root)?);
            Ok(())
        }
        Task::CheckCatalogue => {
            println!("{}", catalogue::check(&root)?);
            Ok(())
        }
        Task::CheckDocs => {
            println!("{}", docs::check(&root)?);
            Ok(())
        }
        Task::Lighthouse => lighthouse::run(&root),
        Task::Test { no_lint, long } => test(&root, !no_lint, long),
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_owned()
}

fn run(root: &Path, lab_args: &[String]) -> Result<()> {
    let total = 3;
    step(1, total, "Checking the tools that build the page");
    tools::ensure_page_tools(root)?;
    step(2, total, "Building the page with Trunk (release, wasm-opt)");
    page_build::build_page(root)?;
    step(3, total, "Building and starting the lab (release)");
    cargo(&["build", "--release", "--package", "launcher"])?;
    let lab = root.join("target/release/idempotency-lab");
    shell::replace_process_with(&lab, lab_args)
}

fn test(root: &Path, lint: bool, long: bool) -> Result<()> {
    let total = if long { 6 } else { 5 };
    step(
        1,
        total,
        "Checking the tools that build the page, Chromium for the browser tests and Schemathesis for the contract tests",
    );
    tools::ensure_page_tools(root)?;
    tools::ensure_chromium()?;
    let schemathesis = tools::ensure_schemathesis(root)?;
    step(
        2,
        total,
        "Making sure PostgreSQL is running (the backend tests use SQLite and PostgreSQL)",
    );
    let database_url = postgres::ensure_test_database_server()?;
    step(3, total, "Building the page with Trunk (release, wasm-opt)");
    page_build::build_page(root)?;
    step(
        4,
        total,
        if lint {
            "Checking format and lints"
        } else {
            "Skipping format and lints (--no-lint)"
        },
    );
    if lint {
        println!("{}", layout::check(root)?);
        println!("{}", catalogue::check(root)?);
        println!("{}", docs::check(root)?);
        cargo(&["fmt", "--all", "--", "--check"])?;
        cargo(&["clippy", "--all-targets", "--", "-D", "warnings"])?;
        cargo(&[
            "clippy",
            "--package",
            "web",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ])?;
    }
    step(
        5,
        total,
        "Running every test: unit, HTTP on SQLite and PostgreSQL, and the browser",
    );
    // The randomised tests' seeds: fixed, and said, so that a commit passes
    // or fails alike every time (the tests default to the same numbers).
    say(&format!(
        "Seeds: chaos {CHAOS_SEED}, property tests {PROPERTY_SEED}, Schemathesis {SCHEMATHESIS_SEED} (LAB_CHAOS_SEED, PROPTEST_RNG_SEED and LAB_SCHEMATHESIS_SEED replay others)"
    ));
    let mut cargo_test = shell::command("cargo");
    cargo_test
        .env("LAB_CHAOS_SEED", CHAOS_SEED.to_string())
        .env("PROPTEST_RNG_SEED", PROPERTY_SEED.to_string())
        .env("LAB_SCHEMATHESIS_SEED", SCHEMATHESIS_SEED.to_string())
        .args(["test", "--workspace", "--exclude", "web", "--no-fail-fast"])
        .env("TEST_DATABASE_URL", &database_url)
        .env("LAB_UI_DIR", root.join("dist"))
        .env("CHROMEDRIVER", tools::CHROMEDRIVER)
        .env("CHROMIUM", tools::CHROMIUM)
        .env("SCHEMATHESIS", &schemathesis);
    let tally = shell::run_tests(&mut cargo_test)?;
    // One closing line over all test binaries, so a reader (or CI) need not add them up.
    println!("\ntests: {} passed, {} failed", tally.passed, tally.failed);
    if !tally.succeeded || tally.failed > 0 {
        anyhow::bail!("some tests failed: see above");
    }
    if long {
        step(
            6,
            total,
            "The chaos run at full volume (100,000 requests per safe design and database, one at a time), then Schemathesis with a fresh seed",
        );
        let chaos_seed = fresh_seed();
        say(&format!(
            "The chaos run's seed: {chaos_seed} (LAB_CHAOS_SEED={chaos_seed} replays it)"
        ));
        let mut chaos = shell::command("cargo");
        chaos
            .args(["test", "--package", "lab-e2e", "--test", "chaos", "--"])
            .args(["--nocapture", "--test-threads", "1"])
            .env("TEST_DATABASE_URL", &database_url)
            .env("LAB_CHAOS_REQUESTS", LONG_CHAOS_REQUESTS)
            .env("LAB_CHAOS_SEED", chaos_seed.to_string());
        let tally = shell::run_tests(&mut chaos)?;
        if !tally.succeeded || tally.failed > 0 {
            anyhow::bail!("the long chaos run failed: see above");
        }
        let schemathesis_seed = fresh_seed();
        say(&format!(
            "Schemathesis again with a fresh seed: {schemathesis_seed} (LAB_SCHEMATHESIS_SEED={schemathesis_seed} replays it)"
        ));
        let mut contract = shell::command("cargo");
        contract
            .args(["test", "--package", "lab-e2e", "--test", "contract", "--"])
            .args(["--nocapture", "schemathesis"])
            .env("TEST_DATABASE_URL", &database_url)
            .env("SCHEMATHESIS", &schemathesis)
            .env("LAB_SCHEMATHESIS_SEED", schemathesis_seed.to_string())
            .env("LAB_SCHEMATHESIS_EXAMPLES", "300");
        let tally = shell::run_tests(&mut contract)?;
        if !tally.succeeded || tally.failed > 0 {
            anyhow::bail!("Schemathesis with a fresh seed found something: see above");
        }
    }
    Ok(())
}

/// The normal run's seeds, the same as the tests' own defaults
/// (`tests/src/seeds.rs`).
const CHAOS_SEED: u64 = 20_261_206;
const PROPERTY_SEED: u64 = 20_261_206;
/// The seed whose Schemathesis run found a NUL answered 500 on PostgreSQL.
const SCHEMATHESIS_SEED: u64 = 8;

/// A seed no run has used: `--long` keeps finding new things this way,
/// without making a normal run depend on luck.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    // Schemathesis takes seeds below 2^63.
    RandomState::new().hash_one(std::time::SystemTime::now()) >> 1
}

/// Requests per design and database in `cargo xtask test --long`.
const LONG_CHAOS_REQUESTS: &str = "100000";
