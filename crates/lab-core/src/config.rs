//! Command-line and environment settings that every server binary shares.

use std::time::Duration;

use crate::access::TeacherToken;
use crate::cleanup::Cleanup;
use crate::db::DEFAULT_ORDERS_PER_LAB;
use crate::server::ServerStorage;
use crate::{Db, LabError};

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
    #[arg(long, env = "LAB_TRANSACTION_CONNECTIONS", default_value_t = crate::db::TRANSACTION_CONNECTIONS, value_parser = clap::value_parser!(u32).range(4..=1000))]
    pub transaction_connections: u32,
}

impl Default for StorageArgs {
    fn default() -> Self {
        Self {
            database_url: DEFAULT_DATABASE_URL.to_owned(),
            cleanup_every_secs: 60,
            forget_idle_labs_after_days: 7,
            max_orders_per_lab: DEFAULT_ORDERS_PER_LAB,
            transaction_connections: crate::db::TRANSACTION_CONNECTIONS,
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

/// Who may read every lab: the room's teacher.
#[derive(Clone, Default, clap::Args)]
pub struct TeacherArgs {
    /// The teacher's token, which reads every lab and changes none: 16 or
    /// more letters, digits, '-' or '_'. Without it, a new one is made and
    /// printed at start-up
    #[arg(long, env = "LAB_TEACHER_TOKEN", value_parser = valid_teacher_token)]
    pub teacher_token: Option<String>,
}

impl TeacherArgs {
    /// The token requests are checked against, and whether it was made
    /// here (then its text is to be shown to the teacher).
    pub fn token(&self) -> (TeacherToken, Option<String>) {
        match &self.teacher_token {
            Some(text) => (
                TeacherToken::new(text).expect("clap checked the token"),
                None,
            ),
            None => {
                let (token, text) = TeacherToken::generate();
                (token, Some(text))
            }
        }
    }
}

/// The token is a password: settings printed for debugging do not show it.
impl std::fmt::Debug for TeacherArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given = self.teacher_token.as_ref().map(|_| "given");
        f.debug_struct("TeacherArgs")
            .field("teacher_token", &given)
            .finish()
    }
}

fn valid_teacher_token(text: &str) -> Result<String, String> {
    TeacherToken::new(text)
        .map(|_| text.to_owned())
        .ok_or_else(|| {
            format!(
                "a teacher token is {} to 128 letters, digits, '-' or '_'",
                TeacherToken::MIN_LEN
            )
        })
}
