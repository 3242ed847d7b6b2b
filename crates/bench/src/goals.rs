//! The benchmark's results against the project's performance goals.

use crate::config::{CellResult, PEER_STORAGE};
use crate::report::{find, ratio, show_count};

/// One performance goal and whether this run met it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Goal {
    /// The goal, in words.
    pub goal: &'static str,
    /// `met`, `missed`, or `not measured` (the run had no cell for it).
    pub status: &'static str,
    /// The numbers behind the status.
    pub detail: String,
}

fn goal(goal: &'static str, checks: Vec<(bool, String)>) -> Goal {
    let status = if checks.is_empty() {
        "not measured"
    } else if checks.iter().all(|(ok, _)| *ok) {
        "met"
    } else {
        "missed"
    };
    let detail = checks
        .into_iter()
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join("; ");
    Goal {
        goal,
        status,
        detail,
    }
}

/// Whether `r` is one of the lab's servers over HTTP.
fn is_server(r: &CellResult) -> bool {
    r.storage != PEER_STORAGE && matches!(r.target, "naive" | "safe" | "transactional" | "onetrip")
}

/// The lab's safe server on PostgreSQL at `peer`'s workload and level in
/// flight: what a peer is compared with.
fn safe_beside<'a>(results: &'a [CellResult], peer: &CellResult) -> Option<&'a CellResult> {
    results.iter().find(|r| {
        r.storage == "postgres"
            && r.target == "safe"
            && r.workload == peer.workload
            && r.concurrency == peer.concurrency
    })
}

/// Checks the results against the project's performance goals.
pub fn evaluate_goals(results: &[CellResult]) -> Vec<Goal> {
    let unique = |r: &&CellResult| r.workload == "unique";
    let cost = results
        .iter()
        .filter(unique)
        .filter(|r| r.target == "safe")
        .filter_map(|safe| {
            let value = ratio(Some(safe), find(results, safe, "naive"))?;
            Some((
                value >= 0.9,
                format!("{} ×{}: {value:.2}", safe.storage, safe.concurrency),
            ))
        })
        .collect();
    let one_trip = results
        .iter()
        .filter(unique)
        .filter(|r| r.target == "onetrip")
        .filter_map(|one_trip| {
            let value = ratio(Some(one_trip), find(results, one_trip, "naive"))?;
            Some((
                value >= 1.0,
                format!("{} ×{}: {value:.2}", one_trip.storage, one_trip.concurrency),
            ))
        })
        .collect();
    let near_sql = results
        .iter()
        .filter(unique)
        .filter(|r| r.storage == "postgres" && r.concurrency == 16 && is_server(r))
        .filter_map(|server| {
            let value = ratio(
                Some(server),
                find(results, server, &format!("{}-sql", server.target)),
            )?;
            Some((
                value >= 0.8,
                format!("{}: {:.0}%", server.target, value * 100.0),
            ))
        })
        .collect();
    // The safe server against its own statements sent by pgbench, a C
    // client with nothing in between (PostgreSQL, unique keys).
    let near_pgbench = results
        .iter()
        .filter(|r| r.target == crate::pgbench::SAFE_TARGET)
        .filter_map(|raw| {
            let value = ratio(find(results, raw, "safe"), Some(raw))?;
            Some((value >= 0.9, format!("×{}: {value:.2}", raw.concurrency)))
        })
        .collect();
    let tail = results
        .iter()
        .filter(unique)
        .filter(|r| r.concurrency == 16 && is_server(r))
        .map(|r| {
            let l = &r.latency_ms;
            (
                l.p99 <= 3.0 * l.p50,
                format!(
                    "{} {}: p99 {:.2} ms = {:.1} × p50",
                    r.target,
                    r.storage,
                    l.p99,
                    l.p99 / l.p50.max(1e-9)
                ),
            )
        })
        .collect();
    let safe_duplicate_cells: Vec<&CellResult> = results
        .iter()
        .filter(|r| {
            r.workload != "unique" && r.storage != PEER_STORAGE && !r.target.starts_with("naive")
        })
        .collect();
    let mut duplicates: Vec<(bool, String)> = safe_duplicate_cells
        .iter()
        .filter(|r| r.duplicates != Some(0) || r.orders != Some(r.keys))
        .map(|r| {
            (
                false,
                format!(
                    "{} {} ×{}: {} orders for {} keys",
                    r.target,
                    r.storage,
                    r.concurrency,
                    show_count(r.orders),
                    r.keys
                ),
            )
        })
        .collect();
    if duplicates.is_empty() && !safe_duplicate_cells.is_empty() {
        duplicates.push((
            true,
            format!(
                "one order per key in all {} safe cells",
                safe_duplicate_cells.len()
            ),
        ));
    }
    let naive_extra: Vec<String> = results
        .iter()
        .filter(|r| {
            r.workload != "unique"
                && r.storage != PEER_STORAGE
                && r.target.starts_with("naive")
                && r.duplicates.is_some_and(|extra| extra > 0)
        })
        .map(|r| {
            format!(
                "{} {} ×{}: {} for {} keys",
                r.target,
                r.storage,
                r.concurrency,
                show_count(r.duplicates),
                r.keys
            )
        })
        .collect();
    if !duplicates.is_empty() {
        let naive = if naive_extra.is_empty() {
            "none".to_owned()
        } else {
            naive_extra.join(", ")
        };
        duplicates.push((true, format!("naive duplicates: {naive}")));
    }
    // Each peer against the lab's safe server on PostgreSQL, at the same
    // workload and level in flight (the peers the project measures, the
    // article's handlers, run on PostgreSQL).
    let versus_peers = results
        .iter()
        .filter(|r| r.storage == PEER_STORAGE && r.concurrency == 16)
        .filter_map(|peer| {
            let safe = safe_beside(results, peer)?;
            let value = ratio(Some(safe), Some(peer))?;
            Some((
                value >= 3.0,
                format!("{} {}: {value:.2}×", peer.target, peer.workload),
            ))
        })
        .collect();
    // The same pairs by CPU per request: what a request costs the machine,
    // where req/s is bounded by the database both share.
    let cpu_versus_peers = results
        .iter()
        .filter(|r| r.storage == PEER_STORAGE && r.concurrency == 16)
        .filter_map(|peer| {
            let safe = safe_beside(results, peer)?;
            let (peer_us, safe_us) = (peer.cpu_us_per_request?, safe.cpu_us_per_request?);
            let value = peer_us / safe_us.max(f64::MIN_POSITIVE);
            Some((
                value >= 5.0,
                format!(
                    "{} {}: {peer_us:.0} µs ÷ {safe_us:.0} µs = {value:.1}×",
                    peer.target, peer.workload
                ),
            ))
        })
        .collect();
    vec![
        goal(
            "the safe server's unique-key throughput is at least 0.9 × the naive server's",
            cost,
        ),
        goal(
            "the one-trip server's unique-key throughput is at least 1.0 × the naive server's",
            one_trip,
        ),
        goal(
            "each server reaches at least 80% of its no-HTTP baseline at 16 in flight on PostgreSQL",
            near_sql,
        ),
        goal(
            "the safe server on PostgreSQL does at least 0.9 × the rate of its own statements sent by pgbench (unique keys)",
            near_pgbench,
        ),
        goal(
            "p99 latency for unique keys at 16 in flight stays within 3 × p50",
            tail,
        ),
        goal(
            "under duplicate-heavy load the safe flows create exactly one order per key (naive's count shown)",
            duplicates,
        ),
        goal(
            "the safe server on PostgreSQL does at least 3 × each peer's req/s at 16 in flight",
            versus_peers,
        ),
        goal(
            "each peer spends at least 5 × the safe server's CPU per request (PostgreSQL, 16 in flight; the peer's PID given)",
            cpu_versus_peers,
        ),
    ]
}

#[cfg(test)]
mod tests;
