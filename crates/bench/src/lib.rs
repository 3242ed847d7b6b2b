//! The benchmark: requests per second, CPU per request, latency
//! percentiles and the orders left behind, for the lab's servers on SQLite
//! and on PostgreSQL, next to a baseline that runs the same flow (the same
//! SQL statements) with no HTTP in between, and on PostgreSQL the naive and
//! safe flows' statements sent by `pgbench`. Everything but pgbench runs in one
//! process so the numbers are comparable as ratios. `--room` measures instead how an
//! ordinary order fares while another lab loads the server.

mod config;
mod cpu;
mod goals;
mod load;
mod pgbench;
mod report;
mod room;
mod stats;

pub use config::{
    BenchConfig, BenchError, CellResult, PEER_STORAGE, Peer, Server, Storage, Target, Workload,
};
pub use goals::{Goal, evaluate_goals};
use load::Endpoint;
pub use report::{to_csv, to_table};
pub use room::{RoomResult, measure_room, to_room_table};
pub use stats::Latencies;

/// Runs every cell; `progress(done, total, what)` is called before each measurement.
pub async fn run(
    config: &BenchConfig,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<Vec<CellResult>, BenchError> {
    let on_postgres = config
        .storages
        .iter()
        .any(|storage| matches!(storage, Storage::Postgres(_)));
    let with_pgbench = config.pgbench && on_postgres && pgbench::available();
    if config.pgbench && on_postgres && !with_pgbench {
        eprintln!("pgbench is not installed: the flows' raw rates are not measured");
    }
    let total = BenchConfig {
        pgbench: with_pgbench,
        ..config.clone()
    }
    .measurements();
    let mut done = 0;
    let mut results = Vec::new();
    for (nth, storage) in config.storages.iter().enumerate() {
        let bench = load::Bench::start(storage).await?;
        // Peers are measured once, in the first storage's rounds.
        let peers = if nth == 0 { &config.peers[..] } else { &[] };
        let endpoints: Vec<Endpoint> = Target::ALL
            .into_iter()
            .map(Endpoint::Lab)
            .chain(peers.iter().map(Endpoint::Peer))
            .collect();
        for workload in config.workloads() {
            // pgbench's script gives every request its own key.
            let pgbench_url = bench
                .postgres_url()
                .filter(|_| with_pgbench && workload == Workload::UniqueKeys);
            // pgbench's rows, when measured, come after the endpoints'.
            let flows = match pgbench_url {
                Some(url) => pgbench::Flow::ALL.map(|flow| (url, flow)).to_vec(),
                None => Vec::new(),
            };
            for &concurrency in &config.concurrency {
                let cells = endpoints.len() + flows.len();
                let mut rounds: Vec<Vec<CellResult>> = vec![Vec::new(); cells];
                for round in 1..=config.rounds.max(1) {
                    let after = format!(
                        "{}, {concurrency} in flight, round {round}",
                        workload.name()
                    );
                    // The targets run back to back within a round, so a slow
                    // moment of the shared machine hits them alike.
                    for (index, &endpoint) in endpoints.iter().enumerate() {
                        let what = match endpoint {
                            Endpoint::Lab(target) => {
                                format!("{} on {}", target.name(), storage.name())
                            }
                            Endpoint::Peer(peer) => format!("peer {}", peer.name),
                        };
                        progress(done, total, &format!("{what}, {after}"));
                        rounds[index].push(
                            bench
                                .measure(endpoint, workload, concurrency, config.requests)
                                .await?,
                        );
                        done += 1;
                    }
                    for (nth, &(url, flow)) in flows.iter().enumerate() {
                        progress(done, total, &format!("{}, {after}", flow.target()));
                        let cell =
                            pgbench::measure(&bench, url, flow, concurrency, config.requests);
                        rounds[endpoints.len() + nth].push(cell.await?);
                        done += 1;
                    }
                }
                results.extend(rounds.into_iter().map(median_round));
            }
        }
        bench.finish().await;
    }
    progress(total, total, "done");
    Ok(results)
}

/// The round with the median throughput.
fn median_round(mut rounds: Vec<CellResult>) -> CellResult {
    rounds.sort_by(|a, b| a.requests_per_second.total_cmp(&b.requests_per_second));
    let middle = rounds.len() / 2;
    rounds.swap_remove(middle)
}
