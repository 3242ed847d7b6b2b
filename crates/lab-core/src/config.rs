//! Command-line and environment settings that every server binary shares.

/// Where orders and idempotency keys are stored.
#[derive(Debug, Clone, clap::Args)]
pub struct StorageArgs {
    /// Storage for orders and keys: a sqlite:// file (created on first run)
    /// or a postgres:// URL, e.g. postgres://postgres@127.0.0.1:5432/postgres
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,
}

/// An SQLite file in the current directory, so the lab runs with nothing installed.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://idempotency-lab.db";
