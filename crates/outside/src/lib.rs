//! The world outside the order servers' database, where real systems break:
//!
//! - a **payment provider**, Stripe-like: `POST /charges` charges the
//!   lab's card for a shop and, like Stripe, keeps the `Idempotency-Key`
//!   the shop sends with it: the same key again gets the same charge back.
//!   It can be asked to be slow (`Provider-Delay-Ms`) or to charge and then
//!   time out (`Provider-Fault: timeout-after-charge`).
//! - a **mail sink**: `POST /messages` delivers a confirmation e-mail, once
//!   per `Message-Id`.
//!
//! Both are one small HTTP service on a port of their own on 127.0.0.1,
//! with their own tables, opened only with the shops' API key (made at
//! start): the order servers reach it over HTTP, so a charge is a side
//! effect that no transaction of theirs can roll back. On SQLite they keep
//! a file of their own beside the lab's (see [`database_url`]): a shop's
//! transaction holds the lab file's one writer, and a provider waiting for
//! that writer would wait for the very request that called it. The page reads what
//! a lab's shops did there through the lab, `GET /api/side-effects` (with
//! the lab's secret or the teacher's token), and forgets it with `DELETE`.
//!
//! The provider also tells shops about payments: a signed
//! `charge.succeeded` webhook, delivered at least once to one of the lab's
//! receivers (`webhook_delivery.rs`, `webhook_routes.rs`, signatures in
//! the `webhook-signature` crate, a secret per lab in `webhook_secrets.rs`).
//!
//! The shops' way in is here too: [`OutsideClient`], the HTTP client the
//! order flow calls through `lab_wire::outside::OutsideCalls`, so that the
//! provider's API and the code that calls it live in one crate.

mod client;
mod lab_routes;
mod services;
mod store;
pub mod webhook_delivery;
mod webhook_routes;
mod webhook_secrets;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use axum::Router;
use axum::routing::post;
use lab_platform::access::TeacherToken;
use lab_platform::serve::serve;
use lab_platform::start::bind;
use lab_platform::{Db, LabError};
use tokio::task::JoinHandle;

pub use client::OutsideClient;
pub use lab_routes::{Outbox, SideEffectsApi, WaitingEmails};
pub use webhook_routes::{WebhooksApi, receiver_path};
pub use webhook_secrets::WebhookSecrets;

/// Where the outside services keep their tables, given the lab's database
/// URL: the same PostgreSQL database (other tables, other rows), or an
/// SQLite file of their own beside the lab's (`idempotency-lab.db` →
/// `idempotency-lab.outside.db`).
pub fn database_url(lab_url: &str) -> String {
    let Some(rest) = lab_url.strip_prefix("sqlite://") else {
        return lab_url.to_owned();
    };
    let (path, query) = rest
        .split_once('?')
        .map_or((rest, None), |(p, q)| (p, Some(q)));
    let file = match path.rsplit_once('.') {
        Some((stem, extension)) if !extension.contains('/') && !stem.is_empty() => {
            format!("{stem}.outside.{extension}")
        }
        _ => format!("{path}.outside"),
    };
    match query {
        Some(query) => format!("sqlite://{file}?{query}"),
        None => format!("sqlite://{file}"),
    }
}

/// The provider's and the mail sink's migrations.
pub async fn migrate(db: &Db) -> Result<(), LabError> {
    db.migrate(lab_platform::migrations!()()).await
}

/// The outside services, listening on 127.0.0.1.
pub struct OutsideServices {
    /// The way the shops reach them (the order flow's `Outside::through`).
    pub client: OutsideClient,
    /// Where they listen.
    pub addr: SocketAddr,
    db: Db,
    /// The secrets the provider signs each lab's webhooks with.
    webhook_secrets: WebhookSecrets,
    task: JoinHandle<()>,
}

impl OutsideServices {
    /// Starts the provider and the mail sink over `db`, on a free port of
    /// 127.0.0.1, with a new API key that only the returned client holds.
    pub async fn start(db: Db) -> Result<Self, LabError> {
        let listener = bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let addr = listener.local_addr().map_err(|source| LabError::Bind {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            source,
        })?;
        let api_key = format!("sk_lab_{}", uuid::Uuid::new_v4().simple());
        let router = Router::new()
            .route("/charges", post(services::charge))
            .route("/messages", post(services::deliver))
            .fallback(lab_platform::error::response::not_found)
            .with_state(services::ServiceState {
                db: db.clone(),
                api_key: services::digest(&api_key),
            });
        let task = tokio::spawn(serve(listener, router, std::future::pending::<()>()));
        Ok(Self {
            client: OutsideClient::new(format!("http://{addr}"), api_key),
            addr,
            db,
            webhook_secrets: WebhookSecrets::generate(),
            task,
        })
    }

    /// `GET` and `DELETE /side-effects` for the page, over these services'
    /// tables, for the shops named `servers`, with what waits in `outboxes`.
    pub fn lab_routes(
        &self,
        teacher: TeacherToken,
        servers: &'static [&'static str],
        outboxes: Vec<Outbox>,
    ) -> Router {
        lab_routes::routes(self.db.clone(), teacher, servers, outboxes)
    }

    /// `POST /webhooks/deliveries` and `GET /webhooks/endpoints` for the
    /// page: the provider pays and delivers to the lab's receivers, under
    /// `receivers_url` (`http://HOST:PORT/api/receivers`), each run within
    /// its lab's share of `room`.
    pub fn webhook_routes(
        &self,
        receivers_url: String,
        room: lab_platform::limits::Room,
        teacher: TeacherToken,
    ) -> Router {
        webhook_routes::routes(
            self.db.clone(),
            self.webhook_secrets.clone(),
            receivers_url,
            room,
            teacher,
        )
    }

    /// The secrets the provider signs each lab's webhooks with, for the
    /// lab's receivers (as a shop copies its secret from the provider's
    /// dashboard).
    pub fn webhook_secrets(&self) -> WebhookSecrets {
        self.webhook_secrets.clone()
    }

    /// Their storage (for the cleanup job).
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Stops listening and closes their storage.
    pub async fn stop(&self) {
        self.task.abort();
        self.db.close().await;
    }
}

/// Deletes charges and e-mails older than `keep` every `every`, from now on:
/// they only ever matter for the run that made them.
pub fn spawn_cleanup(db: Db, keep: Duration, every: Duration) -> JoinHandle<()> {
    lab_platform::expiry::spawn_expiry(db, keep, every, "old charges and e-mails", |db, before| {
        Box::pin(store::delete_older_than(db, before))
    })
}

#[cfg(test)]
mod tests {
    use super::database_url;

    #[test]
    fn on_sqlite_the_services_keep_a_file_beside_the_labs_and_on_postgresql_share_its_database() {
        assert_eq!(
            database_url("sqlite://idempotency-lab.db"),
            "sqlite://idempotency-lab.outside.db"
        );
        assert_eq!(
            database_url("sqlite:///tmp/x/lab.db?mode=rwc"),
            "sqlite:///tmp/x/lab.outside.db?mode=rwc"
        );
        assert_eq!(
            database_url("sqlite://./labfile"),
            "sqlite://./labfile.outside"
        );
        let pg = "postgres://postgres@127.0.0.1:5432/lab";
        assert_eq!(database_url(pg), pg);
    }
}
