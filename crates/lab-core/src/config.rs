//! Command-line and environment settings that every server binary shares.

/// Where orders and idempotency keys are stored.
#[derive(Debug, Clone, clap::Args)]
pub struct StorageArgs {
    /// Storage for orders and keys: a sqlite:// file (created on first run)
    /// or a postgres:// URL, e.g. postgres://postgres@127.0.0.1:5432/postgres
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,
    /// How often expired idempotency keys are deleted, in seconds
    #[arg(long, env = "LAB_CLEANUP_EVERY_SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub cleanup_every_secs: u64,
}

impl StorageArgs {
    /// The pause between two runs of the cleanup job.
    pub fn cleanup_interval(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.cleanup_every_secs)
    }
}

/// An SQLite file in the current directory, so the lab runs with nothing installed.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://idempotency-lab.db";
