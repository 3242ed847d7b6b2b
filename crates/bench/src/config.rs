//! What a benchmark run measures (storages, targets, workloads, levels in
//! flight), what one measurement records, and how a run fails.

use std::time::Duration;

use crate::stats::Latencies;

/// Where the servers keep their data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Storage {
    /// A fresh SQLite file, deleted afterwards.
    #[serde(rename = "sqlite")]
    Sqlite,
    /// The PostgreSQL database at this URL (the benchmark's labs are deleted afterwards).
    #[serde(rename = "postgres")]
    Postgres(#[serde(skip)] String),
}

impl Storage {
    /// `sqlite` or `postgres`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }
}

/// What is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Target {
    /// The naive server over HTTP.
    #[serde(rename = "naive")]
    Naive,
    /// The safe server over HTTP.
    #[serde(rename = "safe")]
    Safe,
    /// The naive flow called directly: its SQL, no HTTP.
    #[serde(rename = "naive-sql")]
    NaiveSql,
    /// The safe flow called directly: its SQL, no HTTP.
    #[serde(rename = "safe-sql")]
    SafeSql,
    /// The transactional server over HTTP.
    #[serde(rename = "transactional")]
    Transactional,
    /// The transactional flow called directly: the safe flow's statements
    /// in one transaction, no HTTP (the raw row of `docs/benchmarks.md`).
    #[serde(rename = "transactional-sql")]
    TransactionalSql,
    /// The one-trip server over HTTP.
    #[serde(rename = "onetrip")]
    OneTrip,
    /// The one-trip flow called directly: its one statement, no HTTP.
    #[serde(rename = "onetrip-sql")]
    OneTripSql,
}

impl Target {
    /// Every target, in report order.
    pub const ALL: [Self; 8] = [
        Self::Naive,
        Self::Safe,
        Self::Transactional,
        Self::OneTrip,
        Self::NaiveSql,
        Self::SafeSql,
        Self::TransactionalSql,
        Self::OneTripSql,
    ];

    /// The name used in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Safe => "safe",
            Self::NaiveSql => "naive-sql",
            Self::SafeSql => "safe-sql",
            Self::Transactional => "transactional",
            Self::TransactionalSql => "transactional-sql",
            Self::OneTrip => "onetrip",
            Self::OneTripSql => "onetrip-sql",
        }
    }

    /// The server this target measures, over HTTP or called directly.
    pub fn server(self) -> Server {
        match self {
            Self::Naive | Self::NaiveSql => Server::Naive,
            Self::Safe | Self::SafeSql => Server::Safe,
            Self::Transactional | Self::TransactionalSql => Server::Transactional,
            Self::OneTrip | Self::OneTripSql => Server::OneTrip,
        }
    }

    /// Whether the target calls the flow directly, with no HTTP.
    pub fn is_direct(self) -> bool {
        matches!(
            self,
            Self::NaiveSql | Self::SafeSql | Self::TransactionalSql | Self::OneTripSql
        )
    }
}

/// The servers the bench measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// Check, then insert.
    Naive,
    /// Claim, act, answer: three statements.
    Safe,
    /// Claim, act, answer: one transaction.
    Transactional,
    /// Claim, act, answer: one statement.
    OneTrip,
}

/// The traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Workload {
    /// Every request has its own key: the cost of the check on every request.
    UniqueKeys,
    /// Each key is sent `copies` times at once.
    Duplicates {
        /// Copies per key.
        copies: usize,
    },
}

impl Workload {
    /// `unique` or `dup×4`.
    pub fn name(self) -> String {
        match self {
            Self::UniqueKeys => "unique".to_owned(),
            Self::Duplicates { copies } => format!("dup×{copies}"),
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// The storages, each measured in turn.
    pub storages: Vec<Storage>,
    /// In-flight requests, one cell per level.
    pub concurrency: Vec<usize>,
    /// Requests per cell.
    pub requests: usize,
    /// Copies per key in the duplicate-heavy workload.
    pub copies: usize,
    /// Times each cell is measured; the round with the median throughput is
    /// reported, so one slow moment of a shared machine does not decide.
    pub rounds: usize,
    /// Other endpoints measured beside the first storage's cells, round by round.
    pub peers: Vec<Peer>,
    /// Whether PostgreSQL's unique-key cells also run the naive and safe
    /// flows' statements through `pgbench` (when it is installed).
    pub pgbench: bool,
}

/// Another endpoint that takes an `Idempotency-Key`, measured in the same
/// run as the lab's servers (`--peer NAME=URL`): the article's Express
/// handlers, or a user's own API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// Its name in the results (kept for the whole run).
    pub name: &'static str,
    /// Its `POST` endpoint.
    pub url: String,
    /// Its server's process, whose CPU time is read per cell (`NAME=URL@PID`).
    pub pid: Option<u32>,
}

/// The `storage` of a peer's cells: a peer keeps its data its own way.
pub const PEER_STORAGE: &str = "peer";

/// One cell of the results: one target, storage, workload and concurrency.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CellResult {
    /// `sqlite`, `postgres`, or [`PEER_STORAGE`].
    pub storage: &'static str,
    /// A [`Target::name`], or a peer's name.
    pub target: &'static str,
    /// `unique` or `dup×k`.
    pub workload: String,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Requests sent.
    pub requests: usize,
    /// Requests per second.
    pub requests_per_second: f64,
    /// Latency percentiles, in milliseconds.
    pub latency_ms: Latencies,
    /// Answers `201`, fresh or replayed.
    pub created_or_replayed: usize,
    /// Answers `409`.
    pub conflicts: usize,
    /// Anything else, including failed connections.
    pub errors: usize,
    /// Distinct keys sent.
    pub keys: usize,
    /// Orders stored afterwards (not known for a peer).
    pub orders: Option<usize>,
    /// Orders beyond one per key: the double charges (not known for a peer).
    pub duplicates: Option<usize>,
    /// The server's CPU time (user and system) per request, in µs: the
    /// lab's servers, the whole process for a flow called directly, a
    /// peer's process when its PID is given; else not known.
    pub cpu_us_per_request: Option<f64>,
}

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The storage could not be opened or migrated.
    #[error("cannot prepare {storage}: {source}")]
    Storage {
        /// Which storage.
        storage: &'static str,
        /// Why.
        source: lab_core::LabError,
    },
    /// A server could not be started.
    #[error("cannot start a server: {0}")]
    Serve(String),
    /// pgbench could not measure a flow's statements.
    #[error("pgbench: {0}")]
    Pgbench(String),
    /// A query failed while counting or clearing orders.
    #[error("cannot count the orders: {0}")]
    Count(#[from] lab_core::LabError),
}

impl BenchConfig {
    /// A few seconds' worth, for tests: two concurrency levels, small cells.
    pub fn quick(storages: Vec<Storage>) -> Self {
        Self {
            storages,
            concurrency: vec![1, 4],
            requests: 80,
            copies: 4,
            rounds: 1,
            peers: Vec::new(),
            pgbench: false,
        }
    }

    /// The full run of `docs/benchmarks.md`.
    pub fn full(storages: Vec<Storage>) -> Self {
        Self {
            storages,
            concurrency: vec![1, 4, 16],
            requests: 2000,
            copies: 4,
            rounds: 3,
            peers: Vec::new(),
            pgbench: true,
        }
    }

    /// The workloads, in report order.
    pub fn workloads(&self) -> [Workload; 2] {
        [
            Workload::UniqueKeys,
            Workload::Duplicates {
                copies: self.copies,
            },
        ]
    }

    /// How many measurements the run makes (pgbench's counted if asked for).
    pub fn measurements(&self) -> usize {
        let targets = self.storages.len() * Target::ALL.len() + self.peers.len();
        let pgbench = if self.pgbench {
            let postgres = self.storages.iter();
            2 * postgres
                .filter(|s| matches!(s, Storage::Postgres(_)))
                .count()
        } else {
            0
        };
        (targets * 2 + pgbench) * self.concurrency.len() * self.rounds.max(1)
    }
}

/// How long a single benchmark request may take before it counts as an error.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgbench_cells_are_counted_only_for_postgres_and_only_when_asked_for() {
        let postgres = Storage::Postgres("postgres://db".to_owned());
        let full = |storages| BenchConfig::full(storages);
        // 8 targets × 2 workloads × 3 levels × 3 rounds, plus 2 flows × 3 × 3.
        assert_eq!(full(vec![Storage::Sqlite]).measurements(), 144);
        assert_eq!(full(vec![postgres.clone()]).measurements(), 144 + 18);
        let without = BenchConfig {
            pgbench: false,
            ..full(vec![Storage::Sqlite, postgres])
        };
        assert_eq!(without.measurements(), 288);
    }
}
