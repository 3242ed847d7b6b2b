//! Runs the safe order server alone, without the page:
//! `cargo run -p safe-server -- --help`.

use clap::Parser;
use lab_core::StandaloneArgs;
use lab_core::standalone::run_alone;
use safe_server::SafeServer;

/// The safe order server alone: POST/GET/DELETE /orders, claiming the
/// Idempotency-Key in a UNIQUE column before creating the order.
#[derive(Parser)]
#[command(version)]
struct Args {
    #[command(flatten)]
    server: StandaloneArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    run_alone::<SafeServer>(Args::parse().server).await?;
    Ok(())
}
