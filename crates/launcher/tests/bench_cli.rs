//! `idempotency-lab bench --quick` run as a program: it runs, counts the
//! orders right, and shows duplicates for naive and none for safe. Speed is
//! printed, never asserted.

use std::process::Command;

use serde_json::Value;

fn cells<'a>(report: &'a Value, workload: &str, target_prefix: &str) -> Vec<&'a Value> {
    report["results"]
        .as_array()
        .expect("a results array")
        .iter()
        .filter(|cell| {
            cell["workload"] == workload
                && cell["target"].as_str().unwrap().starts_with(target_prefix)
        })
        .collect()
}

fn number(cell: &Value, field: &str) -> u64 {
    cell[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {cell}"))
}

#[test]
fn a_quick_bench_counts_orders_and_shows_naive_duplicates_on_both_storages() {
    let json_file = std::env::temp_dir().join(format!("bench-{}.json", uuid::Uuid::new_v4()));
    let csv_file = json_file.with_extension("csv");
    let postgres = std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| lab_e2e::backend::DEFAULT_TEST_DATABASE_URL.to_owned());
    let output = Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
        .args(["bench", "--quick", "--postgres-url", &postgres, "--json"])
        .arg(&json_file)
        .arg("--csv")
        .arg(&csv_file)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("| storage | workload |"),
        "prints the table:\n{stdout}"
    );
    assert!(stdout.contains("Goals:"), "prints the goals:\n{stdout}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    let all = report["results"].as_array().unwrap();
    assert_eq!(
        all.len(),
        2 * 2 * 2 * 4,
        "2 storages × 2 workloads × 2 levels × 4 targets"
    );
    assert_eq!(
        std::fs::read_to_string(&csv_file).unwrap().lines().count(),
        all.len() + 1
    );
    for storage in ["sqlite", "postgres"] {
        assert!(
            all.iter().any(|cell| cell["storage"] == storage),
            "{storage} was measured"
        );
    }

    for cell in all {
        assert_eq!(number(cell, "errors"), 0, "{cell}");
        assert!(
            cell["requests_per_second"].as_f64().unwrap() > 0.0,
            "{cell}"
        );
    }
    for cell in cells(&report, "unique", "") {
        assert_eq!(
            number(cell, "orders"),
            number(cell, "requests"),
            "one order per unique key: {cell}"
        );
        assert_eq!(number(cell, "duplicates"), 0, "{cell}");
    }
    for cell in cells(&report, "dup×4", "safe") {
        assert_eq!(
            number(cell, "orders"),
            number(cell, "keys"),
            "safe: one order per key: {cell}"
        );
        assert_eq!(number(cell, "duplicates"), 0, "{cell}");
    }
    let naive_duplicates: u64 = cells(&report, "dup×4", "naive")
        .iter()
        .filter(|cell| number(cell, "concurrency") >= 4)
        .map(|cell| number(cell, "duplicates"))
        .sum();
    assert!(
        naive_duplicates > 0,
        "four copies at once race on the naive flow somewhere:\n{stdout}"
    );

    let _ = std::fs::remove_file(json_file);
    let _ = std::fs::remove_file(csv_file);
}

#[test]
fn the_room_bench_times_ordinary_orders_on_every_server_while_another_lab_is_loaded() {
    lab_e2e::raise_open_files_limit();
    let json_file = std::env::temp_dir().join(format!("bench-room-{}.json", uuid::Uuid::new_v4()));
    let output = Command::new(env!("CARGO_BIN_EXE_idempotency-lab"))
        .args(["bench", "--room", "--storage", "sqlite", "--json"])
        .arg(&json_file)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("| storage | server | p50 |"),
        "prints the table:\n{stdout}"
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json_file);
    let servers: Vec<&str> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["server"].as_str().unwrap())
        .collect();
    assert_eq!(servers, ["naive", "safe", "transactional"]);
    for row in results.as_array().unwrap() {
        assert_eq!(number(row, "tries"), 50, "{row}");
        assert!(row["latency_ms"]["p99"].as_f64().unwrap() > 0.0, "{row}");
    }
}
