//! Runs the transactional order server alone, without the page:
//! `cargo run -p transactional-server -- --help`.

use clap::Parser;
use lab_core::StandaloneArgs;
use lab_core::standalone::run_alone;
use transactional_server::TransactionalServer;

/// The transactional order server alone: POST/GET/DELETE /orders, claiming
/// the Idempotency-Key, creating the order and saving its answer in one
/// database transaction.
#[derive(Parser)]
#[command(version)]
struct Args {
    #[command(flatten)]
    server: StandaloneArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    run_alone::<TransactionalServer>(Args::parse().server).await?;
    Ok(())
}
