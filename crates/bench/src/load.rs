//! Starting the servers and driving traffic at them.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lab_core::{Db, DemoControls, LabError, OrderRequest, OrderServer, Shop};
use lab_wire::{IdempotencyKey, LabId, LabSecret, NewOrder};
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use safe_server::SafeServer;
use tokio::task::JoinHandle;
use transactional_server::TransactionalServer;

use crate::config::{
    BenchError, CellResult, PEER_STORAGE, Peer, REQUEST_TIMEOUT, Server, Storage, Target, Workload,
};
use crate::cpu::{self, ClientRuntime, CpuOf};
use crate::stats::Latencies;

/// The order every benchmark request places.
pub(crate) const BODY: &str = r#"{"item":"coffee","amount_cents":450}"#;

/// Connects to `storage` (a fresh SQLite file, or the PostgreSQL database),
/// labs of a learner's size allowed; also names the SQLite file to remove
/// afterwards.
pub(crate) async fn open_storage(storage: &Storage) -> Result<(Db, Option<PathBuf>), BenchError> {
    let (url, sqlite_file) = match storage {
        Storage::Sqlite => {
            let file = std::env::temp_dir()
                .join(format!("idempotency-lab-bench-{}.db", uuid::Uuid::new_v4()));
            (format!("sqlite://{}", file.display()), Some(file))
        }
        Storage::Postgres(url) => (url.clone(), None),
    };
    let db = Db::connect(&url)
        .await
        .map_err(|source| BenchError::Storage {
            storage: storage.name(),
            source,
        })?;
    Ok((db, sqlite_file))
}

/// Removes an SQLite file and its write-ahead log.
pub(crate) fn remove_sqlite_file(file: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

/// The four servers, running over one storage.
pub struct Bench {
    storage: &'static str,
    db: Db,
    http: reqwest::Client,
    naive_url: String,
    safe_url: String,
    transactional_url: String,
    onetrip_url: String,
    servers: Vec<JoinHandle<()>>,
    sqlite_file: Option<PathBuf>,
    /// The PostgreSQL database's URL, for pgbench.
    postgres_url: Option<String>,
    /// Where the load is generated: a runtime of its own, so that its
    /// threads' CPU time can be told from the servers' (see `cpu.rs`).
    client: ClientRuntime,
}

/// Keys per lab in a cell (see [`Bench::measure`]).
pub(crate) const KEYS_PER_LAB: usize = 100;

/// What one worker measured.
struct Sample {
    took: Duration,
    status: u16,
}

impl Bench {
    /// Opens the storage, applies the servers' migrations and starts them on loopback.
    pub async fn start(storage: &Storage) -> Result<Self, BenchError> {
        let name = storage.name();
        let (db, sqlite_file) = open_storage(storage).await?;
        let prepare = async {
            NaiveServer::migrate(&db).await?;
            SafeServer::migrate(&db).await?;
            TransactionalServer::migrate(&db).await?;
            OneTripServer::migrate(&db).await
        };
        prepare.await.map_err(|source| BenchError::Storage {
            storage: name,
            source,
        })?;
        let (naive_url, naive) = spawn::<NaiveServer>(&db).await?;
        let (safe_url, safe) = spawn::<SafeServer>(&db).await?;
        let (transactional_url, transactional) = spawn::<TransactionalServer>(&db).await?;
        let (onetrip_url, onetrip) = spawn::<OneTripServer>(&db).await?;
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .pool_max_idle_per_host(64)
            .build()
            .map_err(|error| BenchError::Serve(error.to_string()))?;
        Ok(Self {
            storage: name,
            db,
            http,
            naive_url,
            safe_url,
            transactional_url,
            onetrip_url,
            servers: vec![naive, safe, transactional, onetrip],
            sqlite_file,
            postgres_url: match storage {
                Storage::Postgres(url) => Some(url.clone()),
                Storage::Sqlite => None,
            },
            client: ClientRuntime::start().map_err(|error| BenchError::Serve(error.to_string()))?,
        })
    }

    /// Stops the servers and removes what the run stored.
    pub async fn finish(self) {
        for server in &self.servers {
            server.abort();
        }
        self.db.close().await;
        if let Some(file) = &self.sqlite_file {
            remove_sqlite_file(file);
        }
    }

    /// Measures one cell of `endpoint`; for the lab's own targets, then
    /// counts and deletes the orders it left.
    pub async fn measure(
        &self,
        endpoint: Endpoint<'_>,
        workload: Workload,
        concurrency: usize,
        requests: usize,
    ) -> Result<CellResult, BenchError> {
        let copies = match workload {
            Workload::UniqueKeys => 1,
            Workload::Duplicates { copies } => copies.max(1),
        };
        // Consecutive requests share a key, so with enough workers in
        // flight the copies of one key really are sent at the same time.
        let keys: Arc<Vec<String>> = Arc::new(
            (0..requests.div_ceil(copies))
                .map(|_| uuid::Uuid::new_v4().to_string())
                .collect(),
        );
        // Labs of their own, opened by secrets only this run knows, each of
        // a learner's size: a lab's orders are counted on every insert (up
        // to its limit), and a workshop lab holds dozens, not thousands.
        let labs: Arc<Vec<LabSecret>> = Arc::new(
            (0..keys.len().div_ceil(KEYS_PER_LAB))
                .map(|_| {
                    LabSecret::try_from(format!("bench-{}", uuid::Uuid::new_v4().simple()).as_str())
                        .expect("a uuid makes a valid lab secret")
                })
                .collect(),
        );
        let next = Arc::new(AtomicUsize::new(0));
        let cpu_of = match endpoint {
            Endpoint::Lab(target) if target.is_direct() => Some(CpuOf::ThisProcess),
            Endpoint::Lab(_) => Some(CpuOf::ServersHere),
            Endpoint::Peer(peer) => peer.pid.map(CpuOf::Process),
        };
        let cpu_before = cpu_of.and_then(cpu::used);

        let started = Instant::now();
        let workers: Vec<JoinHandle<Vec<Sample>>> = (0..concurrency.max(1))
            .map(|_| {
                let sender = Sender {
                    target: match endpoint {
                        Endpoint::Lab(target) => Some(target),
                        Endpoint::Peer(_) => None,
                    },
                    http: self.http.clone(),
                    db: self.db.clone(),
                    url: match endpoint {
                        Endpoint::Lab(target) => self.url(target),
                        Endpoint::Peer(peer) => peer.url.clone(),
                    },
                };
                let (keys, labs) = (keys.clone(), labs.clone());
                let next = next.clone();
                self.client.spawn(async move {
                    let mut samples = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= requests {
                            return samples;
                        }
                        let began = Instant::now();
                        let key = index / copies;
                        let status = sender.send(&keys[key], &labs[key / KEYS_PER_LAB]).await;
                        samples.push(Sample {
                            took: began.elapsed(),
                            status,
                        });
                    }
                })
            })
            .collect();
        let mut samples = Vec::with_capacity(requests);
        for worker in workers {
            samples.extend(
                worker
                    .await
                    .map_err(|error| BenchError::Serve(error.to_string()))?,
            );
        }
        let elapsed = started.elapsed();
        let cpu_after = cpu_of.and_then(cpu::used);

        // A peer keeps its orders where this run cannot count them.
        let (mut orders, mut duplicates) = (None, None);
        if let Endpoint::Lab(target) = endpoint {
            let (mut stored, mut distinct) = (0, 0);
            for lab in labs.iter() {
                let (in_lab, distinct_in_lab) = self.count_and_clear(target, &lab.lab_id()).await?;
                stored += in_lab;
                distinct += distinct_in_lab;
            }
            (orders, duplicates) = (Some(stored), Some(stored - distinct));
        }
        let mut took: Vec<Duration> = samples.iter().map(|s| s.took).collect();
        Ok(CellResult {
            storage: match endpoint {
                Endpoint::Lab(_) => self.storage,
                Endpoint::Peer(_) => PEER_STORAGE,
            },
            target: match endpoint {
                Endpoint::Lab(target) => target.name(),
                Endpoint::Peer(peer) => peer.name,
            },
            workload: workload.name(),
            concurrency,
            requests: samples.len(),
            requests_per_second: samples.len() as f64 / elapsed.as_secs_f64().max(1e-9),
            latency_ms: Latencies::of(&mut took),
            created_or_replayed: samples.iter().filter(|s| s.status == 201).count(),
            conflicts: samples.iter().filter(|s| s.status == 409).count(),
            errors: samples
                .iter()
                .filter(|s| s.status != 201 && s.status != 409)
                .count(),
            keys: keys.len(),
            orders,
            duplicates,
            cpu_us_per_request: cpu::per_request(cpu_before, cpu_after, samples.len()),
        })
    }

    /// The PostgreSQL database measured, if this bench runs on one.
    pub(crate) fn postgres_url(&self) -> Option<&str> {
        self.postgres_url.as_deref()
    }

    fn url(&self, target: Target) -> String {
        match target.server() {
            Server::Naive => self.naive_url.clone(),
            Server::Safe => self.safe_url.clone(),
            Server::Transactional => self.transactional_url.clone(),
            Server::OneTrip => self.onetrip_url.clone(),
        }
    }

    /// Orders stored in `lab` and their distinct keys; then deletes the lab.
    pub(crate) async fn count_and_clear(
        &self,
        target: Target,
        lab: &LabId,
    ) -> Result<(usize, usize), BenchError> {
        let tables = match target.server() {
            Server::Naive => &NaiveServer::STORAGE.order_tables,
            Server::Safe => &SafeServer::STORAGE.order_tables,
            Server::Transactional => &TransactionalServer::STORAGE.order_tables,
            Server::OneTrip => &OneTripServer::STORAGE.order_tables,
        };
        let orders = tables
            .list_orders(&self.db, lab)
            .await
            .map_err(LabError::from)?;
        let distinct: std::collections::HashSet<&str> =
            orders.iter().map(|o| o.idempotency_key.as_str()).collect();
        let counts = (orders.len(), distinct.len());
        tables
            .delete_lab(&self.db, lab)
            .await
            .map_err(LabError::from)?;
        Ok(counts)
    }
}

/// What a cell measures: one of the lab's own targets, or a peer.
#[derive(Debug, Clone, Copy)]
pub enum Endpoint<'a> {
    /// A lab server over HTTP, or its flow called directly.
    Lab(Target),
    /// Another endpoint, over HTTP.
    Peer(&'a Peer),
}

/// One worker's way of placing an order: over HTTP, or by calling the flow.
struct Sender {
    /// The lab's target; `None` for a peer, always over HTTP.
    target: Option<Target>,
    http: reqwest::Client,
    db: Db,
    url: String,
}

impl Sender {
    /// Places the order with `key`; returns the status (0 when nothing came back).
    async fn send(&self, key: &str, lab: &LabSecret) -> u16 {
        let Some(target) = self.target.filter(|t| t.is_direct()) else {
            return self.over_http(key, lab).await;
        };
        let (shop, request) = (Shop::quiet(self.db.clone()), request(key, lab));
        answer_status(match target.server() {
            Server::Naive => NaiveServer::place_order(request, shop).await,
            Server::Safe => SafeServer::place_order(request, shop).await,
            Server::Transactional => TransactionalServer::place_order(request, shop).await,
            Server::OneTrip => OneTripServer::place_order(request, shop).await,
        })
    }

    async fn over_http(&self, key: &str, lab: &LabSecret) -> u16 {
        let response = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .header("lab-secret", lab.as_str())
            .body(BODY)
            .send()
            .await;
        match response {
            Ok(response) => {
                let status = response.status().as_u16();
                // Read the body, as a real client would, so the connection is reused.
                let _ = response.bytes().await;
                status
            }
            Err(_) => 0,
        }
    }
}

/// The order with `key` in `lab`, as the HTTP layer would hand it to a flow.
fn request(key: &str, lab: &LabSecret) -> OrderRequest {
    OrderRequest {
        lab: lab.lab_id(),
        key: IdempotencyKey::try_from(key).expect("a uuid is a valid key"),
        order: NewOrder {
            item: "coffee".to_owned(),
            amount_cents: 450,
        },
        controls: DemoControls::default(),
    }
}

fn answer_status(answer: Result<axum::response::Response, LabError>) -> u16 {
    match answer {
        Ok(response) => response.status().as_u16(),
        Err(error) => error.status().as_u16(),
    }
}

/// A listener on a free loopback port, and its address.
pub(crate) async fn bind_loopback()
-> Result<(tokio::net::TcpListener, std::net::SocketAddr), BenchError> {
    let serve_error = |error: std::io::Error| BenchError::Serve(error.to_string());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(serve_error)?;
    let addr = listener.local_addr().map_err(serve_error)?;
    Ok((listener, addr))
}

async fn spawn<S: OrderServer>(db: &Db) -> Result<(String, JoinHandle<()>), BenchError> {
    let (listener, addr) = bind_loopback().await?;
    let server = tokio::spawn(lab_platform::serve::serve(
        listener,
        S::router(db.clone()),
        std::future::pending(),
    ));
    Ok((format!("http://{addr}/orders"), server))
}
