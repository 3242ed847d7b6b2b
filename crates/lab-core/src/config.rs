//! Where a server keeps its orders and keys, and how it cleans them up:
//! the storage settings every order server binary shares.

use std::time::Duration;

use crate::cleanup::Cleanup;
use crate::server::ServerStorage;
use lab_platform::db::{DEFAULT_ORDERS_PER_LAB, TRANSACTION_CONNECTIONS};
use lab_platform::{Db, LabError};

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
    /// After how many days without a new order a lab's orders and keys on
    /// a server are forgotten there
    #[arg(long, env = "LAB_FORGET_IDLE_LABS_AFTER_DAYS", default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub forget_idle_labs_after_days: u32,
    /// The most orders one lab may hold on each server; past it, orders
    /// are refused (409) until the lab is cleared
    #[arg(long, env = "LAB_MAX_ORDERS_PER_LAB", default_value_t = DEFAULT_ORDERS_PER_LAB, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_orders_per_lab: u32,
    /// PostgreSQL only: connections for the transactional server's
    /// transactions, each held through a learner's pause. A room of 200
    /// wants about 72; keep it and the 16 for statements under the server's
    /// max_connections (100 by default)
    #[arg(long, env = "LAB_TRANSACTION_CONNECTIONS", default_value_t = TRANSACTION_CONNECTIONS, value_parser = clap::value_parser!(u32).range(4..=1000))]
    pub transaction_connections: u32,
}

impl Default for StorageArgs {
    fn default() -> Self {
        Self {
            database_url: DEFAULT_DATABASE_URL.to_owned(),
            cleanup_every_secs: 60,
            forget_idle_labs_after_days: 7,
            max_orders_per_lab: DEFAULT_ORDERS_PER_LAB,
            transaction_connections: TRANSACTION_CONNECTIONS,
        }
    }
}

impl StorageArgs {
    /// Connects to the storage, with these limits.
    pub async fn open(&self) -> Result<Db, LabError> {
        Ok(Db::connect(&self.database_url)
            .await?
            .with_orders_per_lab(self.max_orders_per_lab)
            .with_transaction_connections(self.transaction_connections))
    }

    /// The cleanup job of the servers in `servers`, as these settings say.
    pub fn cleanup(&self, servers: Vec<&'static ServerStorage>) -> Cleanup {
        Cleanup {
            servers,
            every: Duration::from_secs(self.cleanup_every_secs),
            forget_idle_labs_after: Duration::from_secs(
                u64::from(self.forget_idle_labs_after_days) * 24 * 60 * 60,
            ),
        }
    }
}

/// An SQLite file in the current directory, so the lab runs with nothing installed.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://idempotency-lab.db";
