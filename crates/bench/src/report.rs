//! The benchmark's results as a table and as CSV (the goals are in `goals.rs`).

use crate::config::CellResult;

pub(crate) fn find<'a>(
    results: &'a [CellResult],
    like: &CellResult,
    target: &str,
) -> Option<&'a CellResult> {
    results.iter().find(|r| {
        r.storage == like.storage
            && r.workload == like.workload
            && r.concurrency == like.concurrency
            && r.target == target
    })
}

pub(crate) fn ratio(a: Option<&CellResult>, b: Option<&CellResult>) -> Option<f64> {
    Some(a?.requests_per_second / b?.requests_per_second.max(f64::MIN_POSITIVE))
}

pub(crate) fn show_count(value: Option<usize>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| v.to_string())
}

fn show_ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.2}×"))
}

/// The results as a Markdown table, one row per cell, with ratios: each
/// safe design over the naive row beside it, and each server over its
/// own no-HTTP row.
pub fn to_table(results: &[CellResult]) -> String {
    let mut table = String::from(
        "| storage | workload | in flight | target | req/s | CPU µs/req | ÷ naive | HTTP ÷ SQL | p50 ms | p90 ms | p99 ms | max ms | 201 | 409 | errors | keys | orders | duplicates |\n\
         |---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in results {
        let versus_naive = match r.target {
            "safe" | "transactional" | "onetrip" => ratio(Some(r), find(results, r, "naive")),
            "safe-sql" | "transactional-sql" | "onetrip-sql" => {
                ratio(Some(r), find(results, r, "naive-sql"))
            }
            "pgbench-safe" => ratio(Some(r), find(results, r, "pgbench-naive")),
            _ => None,
        };
        let versus_sql = match r.target {
            "naive" | "safe" | "transactional" | "onetrip" => {
                ratio(Some(r), find(results, r, &format!("{}-sql", r.target)))
            }
            _ => None,
        };
        let l = &r.latency_ms;
        table.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {} |\n",
            r.storage,
            r.workload,
            r.concurrency,
            r.target,
            r.requests_per_second,
            r.cpu_us_per_request
                .map_or_else(|| "—".to_owned(), |us| format!("{us:.0}")),
            show_ratio(versus_naive),
            show_ratio(versus_sql),
            l.p50,
            l.p90,
            l.p99,
            l.max,
            r.created_or_replayed,
            r.conflicts,
            r.errors,
            r.keys,
            show_count(r.orders),
            show_count(r.duplicates)
        ));
    }
    table
}

/// The results as CSV with a header row.
pub fn to_csv(results: &[CellResult]) -> String {
    let mut csv = String::from(
        "storage,workload,concurrency,target,requests,requests_per_second,cpu_us_per_request,p50_ms,p90_ms,p99_ms,max_ms,created_or_replayed,conflicts,errors,keys,orders,duplicates\n",
    );
    for r in results {
        let l = &r.latency_ms;
        csv.push_str(&format!(
            "{},{},{},{},{},{:.1},{},{:.3},{:.3},{:.3},{:.3},{},{},{},{},{},{}\n",
            r.storage,
            r.workload,
            r.concurrency,
            r.target,
            r.requests,
            r.requests_per_second,
            r.cpu_us_per_request
                .map_or_else(String::new, |us| format!("{us:.1}")),
            l.p50,
            l.p90,
            l.p99,
            l.max,
            r.created_or_replayed,
            r.conflicts,
            r.errors,
            r.keys,
            r.orders.map_or_else(String::new, |n| n.to_string()),
            r.duplicates.map_or_else(String::new, |n| n.to_string())
        ));
    }
    csv
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Latencies;

    pub(crate) fn cell(
        target: &'static str,
        workload: &str,
        concurrency: usize,
        rps: f64,
        orders: usize,
    ) -> CellResult {
        CellResult {
            storage: "postgres",
            target,
            workload: workload.to_owned(),
            concurrency,
            requests: 100,
            requests_per_second: rps,
            latency_ms: Latencies {
                p50: 1.0,
                p90: 2.0,
                p99: 2.5,
                max: 4.0,
            },
            created_or_replayed: 100,
            conflicts: 0,
            errors: 0,
            keys: 25,
            orders: Some(orders),
            duplicates: Some(orders.saturating_sub(25)),
            cpu_us_per_request: Some(150.0),
        }
    }

    #[test]
    fn the_table_shows_ratios_and_the_csv_has_a_row_per_cell() {
        let results = vec![
            cell("naive", "unique", 4, 1000.0, 100),
            cell("safe", "unique", 4, 900.0, 100),
        ];
        let table = to_table(&results);
        assert!(
            table.contains("| postgres | unique | 4 | safe | 900 | 150 | 0.90× |"),
            "{table}"
        );
        assert_eq!(to_csv(&results).lines().count(), 3);
    }
}
