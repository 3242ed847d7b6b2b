//! `idempotency-lab`: runs the lab, or probes and benchmarks with
//! `probe` and `bench`. `cargo xtask run` builds the page and starts it;
//! `cargo run -p launcher -- --help` lists everything.

use std::process::ExitCode;

use clap::Parser;
use launcher::cli::Cli;

#[tokio::main]
async fn main() -> ExitCode {
    Cli::parse().run().await
}
