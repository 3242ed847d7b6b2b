//! The enqueuer: sends the e-mails that finished orders staged in the
//! outbox, in the background, each once. The request never talks to the
//! mail sink: its e-mail exists exactly when its last phase committed, and
//! a retry of the request stages nothing new (it finds the key finished).
//!
//! Each e-mail goes out under its outbox row's id as `Message-Id`; if the
//! enqueuer dies after sending and before marking the row sent, it sends
//! the row again and the mail sink recognises the id.

use std::time::Duration;

use std::pin::Pin;

use chrono::{SubsecRound, Utc};
use lab_core::outside::Outside;
use lab_core::{Db, with_pool};
use lab_wire::LabId;
use tokio::task::JoinHandle;

use crate::store;

/// How often the enqueuer looks without being told to: after a restart,
/// or when the mail sink failed last time.
const SWEEP_EVERY: Duration = Duration::from_secs(2);
/// Sent e-mails are kept this long (for a look in the database), then deleted.
const KEEP_SENT: chrono::Duration = chrono::Duration::hours(1);
/// The most e-mails one round sends.
const BATCH: i64 = 100;

const WAITING: &str = "SELECT id, lab_id, subject FROM phased_outbox \
     WHERE sent_at IS NULL ORDER BY created_at LIMIT $1";
const MARK_SENT: &str = "UPDATE phased_outbox SET sent_at = $2 WHERE id = $1";
const DELETE_SENT: &str = "DELETE FROM phased_outbox WHERE sent_at < $1";

/// Starts the enqueuer over `db`, sending through `outside`'s mail sink
/// whenever a request rings it, and every few seconds besides.
pub fn spawn_enqueuer(db: Db, outside: Outside) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = outside.outbox_rang() => {}
                () = tokio::time::sleep(SWEEP_EVERY) => {}
            }
            match send_waiting(&db, &outside).await {
                Ok(()) => {}
                Err(error) => tracing::warn!(%error, "the outbox could not send; it tries again"),
            }
        }
    })
}

/// Sends every waiting e-mail, oldest first, marking each sent once the
/// mail sink has it.
pub async fn send_waiting(db: &Db, outside: &Outside) -> Result<(), lab_core::LabError> {
    loop {
        let rows: Vec<(String, String, String)> = with_pool!(db, |pool| {
            sqlx::query_as(WAITING).bind(BATCH).fetch_all(pool).await?
        });
        let full_batch = rows.len() as i64 == BATCH;
        for (id, lab, subject) in rows {
            let Ok(lab) = LabId::try_from(lab.as_str()) else {
                tracing::warn!(id, "an outbox row names no valid lab; it is skipped");
                mark_sent(db, &id).await?;
                continue;
            };
            outside
                .send_email(store::STORAGE.order_tables.server, &lab, &id, &subject)
                .await?;
            mark_sent(db, &id).await?;
        }
        if !full_batch {
            break;
        }
    }
    let before = Utc::now() - KEEP_SENT;
    with_pool!(db, |pool| {
        sqlx::query(DELETE_SENT).bind(before).execute(pool).await?;
    });
    Ok(())
}

async fn mark_sent(db: &Db, id: &str) -> sqlx::Result<()> {
    with_pool!(db, |pool| {
        sqlx::query(MARK_SENT)
            .bind(id)
            .bind(Utc::now().trunc_subsecs(6))
            .execute(pool)
            .await?;
    });
    Ok(())
}

/// How many of `lab`'s e-mails wait in the outbox (for `/api/side-effects`).
pub fn waiting(
    db: Db,
    lab: LabId,
) -> Pin<Box<dyn Future<Output = sqlx::Result<u64>> + Send + 'static>> {
    Box::pin(async move { store::waiting_emails(&db, &lab).await })
}
