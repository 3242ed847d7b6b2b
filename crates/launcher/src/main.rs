//! `idempotency-lab`: runs the lab. `cargo xtask run` builds the page and
//! starts this; `cargo run -p launcher -- --help` lists the settings.

use clap::Parser;
use launcher::{Application, Settings};

/// Idempotency Lab: a naive and a safe order server side by side, and a page
/// that sends both the same retried, dropped and concurrent requests.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    settings: Settings,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    lab_core::standalone::init_logging();
    let settings = Cli::parse().settings;
    let application = Application::build(&settings).await?;
    let addr = application.local_addr();
    println!(
        "Idempotency Lab is running (storage: {}).",
        application.backend_name()
    );
    println!("  Open http://{addr}/ in a browser.");
    println!("  APIs: http://{addr}/api/naive/orders and http://{addr}/api/safe/orders");
    println!("Press Ctrl-C to stop.");
    application.run().await;
    println!("Stopped.");
    Ok(())
}
