//! The room benchmark (`bench --room`): how long an ordinary order in one
//! lab takes while another lab holds as much as a hostile learner could
//! start: a hundred 10-second requests on the transactional server (the
//! heaviest: on PostgreSQL its pause holds a transaction), and, besides,
//! 300 open step streams and 300 connections that never finish their
//! headers. The three servers share one room, as in the launcher, with its
//! limits raised so that all of that really runs.

use std::time::{Duration, Instant};

use axum::Router;
use lab_core::{Db, OrderServer};
use lab_platform::limits::{Room, RoomLimits};
use lab_platform::serve::{Timeouts, serve_with};
use lab_wire::{LabSecret, StepKind};
use naive_server::NaiveServer;
use safe_server::SafeServer;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use transactional_server::TransactionalServer;

use crate::config::{BenchError, Storage};
use crate::stats::Latencies;

/// The noisy lab's slow requests.
const HELD_REQUESTS: usize = 100;
/// How long each of them pauses, the most a request may ask for.
const HELD_MS: u64 = 10_000;
/// Step streams and half-sent requests held open besides.
const OPEN_CONNECTIONS: usize = 300;
/// Ordinary orders timed per server.
const TRIES: usize = 50;

/// The quiet lab's ordinary orders on one server, while the room is loaded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RoomResult {
    /// `sqlite` or `postgres`.
    pub storage: &'static str,
    /// The server of the quiet lab's orders.
    pub server: &'static str,
    /// How many were timed, one after another.
    pub tries: usize,
    /// Their latencies in milliseconds.
    pub latency_ms: Latencies,
}

/// Loads a room on `storage` as described above and times [`TRIES`]
/// ordinary orders on each server in another lab.
pub async fn measure_room(storage: &Storage) -> Result<Vec<RoomResult>, BenchError> {
    let name = storage.name();
    let (db, sqlite_file) = crate::load::open_storage(storage).await?;
    for migrate in [
        NaiveServer::migrate(&db).await,
        SafeServer::migrate(&db).await,
        TransactionalServer::migrate(&db).await,
    ] {
        migrate.map_err(|source| BenchError::Storage {
            storage: name,
            source,
        })?;
    }
    let room = Room::new(RoomLimits {
        requests_per_lab: 1_000,
        delay_per_lab_secs: 100_000,
        streams_per_lab: 8,
        streams_in_all: 1_000,
    });
    let transactional = TransactionalServer::state_in(db.clone(), room.clone());
    let hub = transactional.steps.clone();
    let router = Router::new()
        .nest(
            "/naive",
            NaiveServer::routes(NaiveServer::state_in(db.clone(), room.clone())),
        )
        .nest(
            "/safe",
            SafeServer::routes(SafeServer::state_in(db.clone(), room)),
        )
        .nest("/transactional", TransactionalServer::routes(transactional));
    let (listener, addr) = crate::load::bind_loopback().await?;
    let server = tokio::spawn(serve_with(
        listener,
        router,
        Timeouts::default(),
        std::future::pending(),
    ));
    let base = format!("http://{addr}");
    let http = reqwest::Client::new();

    let noisy = new_lab();
    let mut arrived = hub.subscribe(&noisy.lab_id());
    let held: Vec<_> = (0..HELD_REQUESTS)
        .map(|_| {
            let request = order(&http, &format!("{base}/transactional/orders"), &noisy)
                .header("lab-delay-ms", HELD_MS.to_string());
            tokio::spawn(request.send())
        })
        .collect();
    // Every one of them has arrived once it has looked its key up (on
    // PostgreSQL only four pause at a time; the rest wait their turn).
    let mut looked_up = 0;
    while looked_up < HELD_REQUESTS {
        match arrived.recv().await {
            Ok(step) => looked_up += usize::from(matches!(step.kind, StepKind::KeyLookedUp { .. })),
            Err(error) => return Err(BenchError::Serve(format!("the steps stopped: {error}"))),
        }
    }
    let mut open = Vec::new();
    for _ in 0..OPEN_CONNECTIONS {
        let secret = new_lab();
        let stream = http
            .get(format!("{base}/naive/steps?secret={}", secret.as_str()))
            .send()
            .await
            .map_err(|error| BenchError::Serve(error.to_string()))?;
        open.push(stream);
    }
    let mut half_sent = Vec::new();
    for _ in 0..OPEN_CONNECTIONS {
        let mut connection = TcpStream::connect(addr)
            .await
            .map_err(|error| BenchError::Serve(error.to_string()))?;
        connection
            .write_all(b"POST /naive/orders HTTP/1.1\r\nHost: lab\r\nContent-Ty")
            .await
            .map_err(|error| BenchError::Serve(error.to_string()))?;
        half_sent.push(connection);
    }

    let mut results = Vec::new();
    for server in [
        NaiveServer::NAME,
        SafeServer::NAME,
        TransactionalServer::NAME,
    ] {
        let quiet = new_lab();
        let url = format!("{base}/{server}/orders");
        let mut took = Vec::with_capacity(TRIES);
        for _ in 0..TRIES {
            let started = Instant::now();
            let answer = order(&http, &url, &quiet)
                .send()
                .await
                .map_err(|error| BenchError::Serve(error.to_string()))?;
            took.push(started.elapsed());
            if answer.status() != 201 {
                return Err(BenchError::Serve(format!(
                    "an ordinary order got {}",
                    answer.status()
                )));
            }
        }
        results.push(RoomResult {
            storage: name,
            server,
            tries: TRIES,
            latency_ms: Latencies::of(&mut took),
        });
        clear(&db, server, &quiet).await?;
    }

    drop((open, half_sent));
    for request in held {
        request.abort();
    }
    server.abort();
    clear(&db, TransactionalServer::NAME, &noisy).await?;
    db.close().await;
    if let Some(file) = sqlite_file {
        crate::load::remove_sqlite_file(&file);
    }
    Ok(results)
}

/// The results as a table, with what was held while they were measured.
pub fn to_room_table(results: &[RoomResult]) -> String {
    let mut table = format!(
        "An ordinary order in one lab while another holds {HELD_REQUESTS} requests of {} s on the \
         transactional server, {OPEN_CONNECTIONS} step streams and {OPEN_CONNECTIONS} half-sent requests \
         ({TRIES} orders one after another per server, ms):\n\n\
         | storage | server | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|\n",
        HELD_MS / 1000
    );
    for result in results {
        let l = &result.latency_ms;
        table.push_str(&format!(
            "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
            result.storage, result.server, l.p50, l.p90, l.p99, l.max
        ));
    }
    table
}

fn new_lab() -> LabSecret {
    LabSecret::try_from(format!("bench-room-{}", uuid::Uuid::new_v4().simple()).as_str())
        .expect("a uuid makes a lab secret")
}

fn order(http: &reqwest::Client, url: &str, lab: &LabSecret) -> reqwest::RequestBuilder {
    http.post(url)
        .header("content-type", "application/json")
        .header("idempotency-key", uuid::Uuid::new_v4().to_string())
        .header("lab-secret", lab.as_str())
        .timeout(Duration::from_secs(60))
        .body(crate::load::BODY)
}

/// Deletes what `lab` left on `server`.
async fn clear(db: &Db, server: &str, lab: &LabSecret) -> Result<(), BenchError> {
    let tables = match server {
        "naive" => &NaiveServer::STORAGE.order_tables,
        "safe" => &SafeServer::STORAGE.order_tables,
        _ => &TransactionalServer::STORAGE.order_tables,
    };
    tables
        .delete_lab(db, &lab.lab_id())
        .await
        .map_err(lab_core::LabError::from)?;
    Ok(())
}
