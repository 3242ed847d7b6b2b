//! The benchmark: requests per second, latency percentiles and the orders
//! left behind, for the lab's three servers on SQLite and on PostgreSQL,
//! next to a baseline that runs the same flow (the same SQL statements)
//! with no HTTP in between. Everything runs in one process so
//! the numbers are comparable as ratios. `--room` measures instead how an
//! ordinary order fares while another lab loads the server.

mod config;
mod cpu;
mod goals;
mod load;
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
    let total = config.measurements();
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
            for &concurrency in &config.concurrency {
                let mut rounds: Vec<Vec<CellResult>> = vec![Vec::new(); endpoints.len()];
                for round in 1..=config.rounds.max(1) {
                    // The targets run back to back within a round, so a slow
                    // moment of the shared machine hits them alike.
                    for (index, &endpoint) in endpoints.iter().enumerate() {
                        let what = match endpoint {
                            Endpoint::Lab(target) => {
                                format!("{} on {}", target.name(), storage.name())
                            }
                            Endpoint::Peer(peer) => format!("peer {}", peer.name),
                        };
                        let what = format!(
                            "{what}, {}, {concurrency} in flight, round {round}",
                            workload.name()
                        );
                        progress(done, total, &what);
                        rounds[index].push(
                            bench
                                .measure(endpoint, workload, concurrency, config.requests)
                                .await?,
                        );
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
