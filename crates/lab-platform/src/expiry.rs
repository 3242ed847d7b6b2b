//! Rows that only matter for the run that made them (charges, e-mails,
//! shipments…) deleted once they are old, by a task of their own.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::task::JoinHandle;

use crate::Db;

/// Deletes what was made before a moment; says how many rows went.
pub type DeleteOlder = for<'a> fn(
    &'a Db,
    DateTime<Utc>,
) -> Pin<Box<dyn Future<Output = sqlx::Result<u64>> + Send + 'a>>;

/// Runs `delete` for rows older than `keep` every `every`, from now on,
/// logging what went as `what` ("old charges and e-mails").
pub fn spawn_expiry(
    db: Db,
    keep: Duration,
    every: Duration,
    what: &'static str,
    delete: DeleteOlder,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        loop {
            ticks.tick().await;
            let before =
                Utc::now() - chrono::Duration::from_std(keep).unwrap_or(chrono::Duration::days(1));
            match delete(&db, before).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "{what} deleted"),
                Err(error) => tracing::warn!(%error, "deleting {what} failed"),
            }
        }
    })
}
